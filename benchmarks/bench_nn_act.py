"""softmax, log_softmax and gelu (asc.ops) on 2^22 float32 (and bfloat16) vs NumPy, onnxruntime
(float32, when installed) and PyTorch (torch.nn.functional on the same arrays, bfloat16 rows in
bfloat16, as many threads as cores; when installed), with the fraction of memory bandwidth,
measured against a native triad (bench_fusion_triad.cc) in the same run.

    python benchmarks/bench_nn_act.py [--log2n 22] [--repeat 10] [--quick]

``run()`` returns a list of result dicts (the bench_nn.py driver collects them). Bytes moved:
gelu reads and writes n floats (8n bytes); softmax over rows of 1024 reads x twice in the
native kernel once from memory (the max / exp-sum / normalise passes of a 4 KiB row run in
cache) and writes once, so its traffic floor is 8n bytes as well (one read + one write) - the
fraction is reported against that floor (4n for the bfloat16 rows). The triad
out = a * b + c moves 16n bytes (three reads, one write).
"""

from __future__ import annotations

import gc
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the peers installed by `make bench-setup` (scripts/bench_setup.sh), outside the venv
sys.path.append(os.path.join(os.path.dirname(HERE), "build", "bench", "site"))

import pyasc as asc  # noqa: E402
from _nn_common import cli, measure, ort_options, torch_peer, triad_gbps  # noqa: E402


def _np_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _np_gelu(x):
    # NumPy has no erf: the tanh form is NumPy's best vectorised gelu (reference timing only)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _np_log_softmax(x):
    z = x - x.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _ort_sessions(rows, cols):
    try:
        import onnx  # noqa: F401
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    opts = ort_options(ort)
    out = {}
    nodes = (("softmax", helper.make_node("Softmax", ["x"], ["y"], axis=-1)),
             ("log_softmax", helper.make_node("LogSoftmax", ["x"], ["y"], axis=-1)),
             ("softmax_d0", helper.make_node("Softmax", ["x"], ["y"], axis=0)),
             ("gelu", helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft")),
             ("gelu_tanh", helper.make_node("FastGelu", ["x"], ["y"], domain="com.microsoft")))
    for name, node in nodes:
        g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, cols])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, cols])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
        m.ir_version = 8  # onnx 1.19 writes IR 12, onnxruntime 1.23 reads up to 11
        out[name] = (m.SerializeToString(), opts, ort)
    return out


def _ort_session(spec):
    """The onnxruntime session of one model, created per case and released after it (its
    threads do not spin: ort_options), or None when the runtime lacks the (contrib) op."""
    model, opts, ort = spec
    try:
        return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - a missing contrib op only drops that peer
        return None


def run(log2n=22, repeat=10, cols=1024):
    n = 1 << log2n
    rows = n // cols
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((rows, cols)).astype(np.float32)
    xa = asc.array(xn)
    xb = xa.astype(asc.bfloat16)
    asc.lazy.flush()
    F = asc.ops
    results = []
    triad_gbs = triad_gbps(log2n, repeat)
    ort = _ort_sessions(rows, cols)
    torch = torch_peer()
    tf = {}
    if torch is not None:
        TF = torch.nn.functional
        xt = torch.from_numpy(xn)
        xtb = xt.to(torch.bfloat16)
        tf = {"softmax": lambda: TF.softmax(xt, dim=-1), "log_softmax": lambda: TF.log_softmax(xt, dim=-1),
              "softmax_d0": lambda: TF.softmax(xt, dim=0), "gelu": lambda: TF.gelu(xt),
              "gelu_tanh": lambda: TF.gelu(xt, approximate="tanh"),
              "softmax_bf16": lambda: TF.softmax(xtb, dim=-1), "gelu_bf16": lambda: TF.gelu(xtb)}

    def force(y):
        # pyasc outputs are materialised inside the timing: flush runs the pending graph
        asc.lazy.flush()
        asc.synchronize()
        return y

    # (name, pyasc, NumPy, onnxruntime peer (float32 in every case: its CPU kernels have no
    # bfloat16 softmax/gelu), bytes per element moved); the PyTorch peer runs in the row's dtype
    cases = [
        ("softmax", lambda: force(F.softmax(xa, dim=-1)), lambda: _np_softmax(xn), "softmax", 8),
        ("log_softmax", lambda: force(F.log_softmax(xa, dim=-1)), lambda: _np_log_softmax(xn), "log_softmax", 8),
        ("softmax_d0", lambda: force(F.softmax(xa, dim=0)), lambda: _np_softmax(xn.T), "softmax_d0", 8),
        ("gelu", lambda: force(F.gelu(xa)), lambda: _np_gelu(xn), "gelu", 8),
        ("gelu_tanh", lambda: force(F.gelu(xa, approximate="tanh")), lambda: _np_gelu(xn), "gelu_tanh", 8),
        ("softmax_bf16", lambda: force(F.softmax(xb, dim=-1)), lambda: _np_softmax(xn), "softmax", 4),
        ("gelu_bf16", lambda: force(F.gelu(xb)), lambda: _np_gelu(xn), "gelu", 4),
    ]
    for name, f, g, ort_name, bpe in cases:
        spec = ort.get(ort_name) if ort and ort_name else None
        sess = _ort_session(spec) if spec else None
        r = measure(name, f, g, n, triad_gbs, repeat, sess, {"x": xn} if sess else None, tf.get(name))
        del sess
        gc.collect()
        if bpe != 8:  # measure() counts 8 bytes per element; ort runs float32 (8), torch this dtype
            r["pyasc_GBps"] *= bpe / 8
            r["bandwidth_fraction"] *= bpe / 8
            if "two_x_ort_needs" in r:
                r["two_x_ort_needs"] *= bpe / 8
            if "torch_bandwidth_fraction" in r:
                r["torch_bandwidth_fraction"] *= bpe / 8
                r["two_x_torch_needs"] *= bpe / 8
        results.append(r)
    return results


def main():
    cli(run, __doc__, "activations")


if __name__ == "__main__":
    main()
