"""softmax and gelu (asc.ops) on 2^22 float32 vs NumPy and onnxruntime (when installed), with the
fraction of memory bandwidth, measured against a native triad (bench_fusion_triad.cc) in the same run.

    python benchmarks/bench_nn_act.py [--log2n 22] [--repeat 10]

``run()`` returns a list of result dicts (the bench_nn.py driver collects them). Bytes moved:
gelu reads and writes n floats (8n bytes); softmax over rows of 1024 reads x twice in the
fused form (max pass, exp-sum-normalise pass) and writes once, so its traffic floor is 8n
bytes as well (one read + one write) - the fraction is reported against that floor. The triad
out = a * b + c moves 16n bytes (three reads, one write).
"""

from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pyasc as asc  # noqa: E402
from _nn_common import cli, measure, triad_gbps  # noqa: E402


def _np_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _np_gelu(x):
    # NumPy has no erf: the tanh form is NumPy's best vectorised gelu (reference timing only)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _ort_sessions(rows, cols):
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 2
    out = {}
    for name, node in (("softmax", helper.make_node("Softmax", ["x"], ["y"], axis=-1)),
                       ("gelu", helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft"))):
        g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, cols])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, cols])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
        try:
            out[name] = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - a missing contrib op only drops that peer
            pass
    return out


def run(log2n=22, repeat=10, cols=1024):
    n = 1 << log2n
    rows = n // cols
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((rows, cols)).astype(np.float32)
    xa = asc.array(xn)
    F = asc.ops
    results = []
    triad_gbs = triad_gbps(log2n, repeat)
    ort = _ort_sessions(rows, cols)
    def force(y):
        # pyasc outputs are materialised inside the timing: flush runs the pending graph
        asc.lazy.flush()
        asc.synchronize()
        return y

    cases = [
        ("softmax", lambda: force(F.softmax(xa, dim=-1)), lambda: _np_softmax(xn), "softmax"),
        ("gelu", lambda: force(F.gelu(xa)), lambda: _np_gelu(xn), "gelu"),
        ("gelu_tanh", lambda: force(F.gelu(xa, approximate="tanh")), lambda: _np_gelu(xn), None),
    ]
    for name, f, g, ort_name in cases:
        session = ort.get(ort_name) if ort and ort_name else None
        results.append(measure(name, f, g, n, triad_gbs, repeat, session, {"x": xn}))
    return results


def main():
    cli(run, __doc__, "activations")


if __name__ == "__main__":
    main()
