"""layer_norm and batch_norm (inference) (asc.ops) on 2^22 float32 vs NumPy and onnxruntime (when
installed), with the fraction of memory bandwidth measured against a native triad
(bench_fusion_triad.cc) in the same run.

    python benchmarks/bench_nn_norm.py [--log2n 22] [--repeat 10] [--quick]

``run()`` returns a list of result dicts (the bench_nn.py driver collects them). Bytes moved:
both ops read x once and write y once at their floor (8n bytes; layer_norm's statistics pass
re-reads a row that is in cache); the fraction is reported against that floor and the triad's
16n bytes per pass.
"""

from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the peers installed by `make bench-setup` (scripts/bench_setup.sh), outside the venv
sys.path.append(os.path.join(os.path.dirname(HERE), "build", "bench", "site"))

import pyasc as asc  # noqa: E402
from _nn_common import cli, measure, ort_options, triad_gbps  # noqa: E402


def _np_layer_norm(x, w, b, eps=1e-5):
    m = x.mean(axis=-1, keepdims=True)
    v = x.var(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def _np_batch_norm(x, rm, rv, w, b, eps=1e-5):
    sc = (w / np.sqrt(rv + eps)).astype(np.float32)
    sh = (b - rm * sc).astype(np.float32)
    return x * sc[None, :, None, None] + sh[None, :, None, None]


def _ort_sessions(ln_shape, bn_shape, cols, c, params):
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    opts = ort_options(ort)
    out = {}
    w, b, rm, rv, bw, bb = params
    specs = [
        ("layer_norm", ln_shape, helper.make_node("LayerNormalization", ["x", "w", "b"], ["y"], axis=-1,
                                                  epsilon=1e-5), [("w", w), ("b", b)], 17),
        ("batch_norm", bn_shape, helper.make_node("BatchNormalization", ["x", "s", "bb", "m", "v"], ["y"],
                                                  epsilon=1e-5),
         [("s", bw), ("bb", bb), ("m", rm), ("v", rv)], 15),
    ]
    for name, shape, node, inits, opset in specs:
        g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
                              initializer=[numpy_helper.from_array(v, k) for k, v in inits])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8  # onnx 1.19 writes IR 12, onnxruntime 1.23 reads up to 11 (else no peer at all)
        try:
            out[name] = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - an op the installed runtime lacks only drops that peer
            pass
    return out


def run(log2n=22, repeat=10, cols=1024):
    n = 1 << log2n
    rng = np.random.default_rng(0)
    rows = n // cols
    c = 64
    bn_shape = (max(n // (c * 64 * 128), 1), c, 64, 128) if log2n >= 20 else (1, c, 1, n // c)
    xl = rng.standard_normal((rows, cols)).astype(np.float32)
    xb = rng.standard_normal(bn_shape).astype(np.float32)
    w, b = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
    rm, rv = rng.standard_normal(c).astype(np.float32), (rng.random(c) + 0.5).astype(np.float32)
    bw, bb = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    xla, xba = asc.array(xl), asc.array(xb)
    wa, ba, rma, rva, bwa, bba = (asc.array(v) for v in (w, b, rm, rv, bw, bb))
    F = asc.ops
    triad_gbs = triad_gbps(log2n, repeat)
    ort = _ort_sessions(xl.shape, xb.shape, cols, c, (w, b, rm, rv, bw, bb))
    cases = [
        ("layer_norm", lambda: F.layer_norm(xla, (cols,), wa, ba), lambda: _np_layer_norm(xl, w, b),
         {"x": xl}),
        ("batch_norm", lambda: F.batch_norm(xba, rma, rva, bwa, bba), lambda: _np_batch_norm(xb, rm, rv, bw, bb),
         {"x": xb}),
    ]
    results = []
    for name, f, g, feed in cases:  # opaque ops: outputs are materialised on return
        results.append(measure(name, f, g, n, triad_gbs, repeat, ort.get(name) if ort else None, feed))
    return results


def main():
    cli(run, __doc__, "norms")


if __name__ == "__main__":
    main()
