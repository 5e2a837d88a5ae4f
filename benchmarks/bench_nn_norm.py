"""layer_norm, rms_norm, batch_norm (inference), group_norm and local_response_norm (asc.ops) on 2^22
float32 vs NumPy, onnxruntime and PyTorch (torch.nn.functional on the same arrays, as many threads as
cores; each when installed), with the fraction of memory bandwidth measured against a native triad
(bench_fusion_triad.cc) in the same run.

    python benchmarks/bench_nn_norm.py [--log2n 22] [--repeat 10] [--quick]

``run()`` returns a list of result dicts (the bench_nn.py driver collects them). Bytes moved:
both ops read x once and write y once at their floor (8n bytes; layer_norm's statistics pass
re-reads a row that is in cache); the fraction is reported against that floor and the triad's
16n bytes per pass. group_norm runs (2, 64, 128, 256) with 32 groups (64 rows over the cores) and
(1, 64, 256, 256) with one group (one row cut into spans); onnxruntime's peer is ONNX
GroupNormalization (opset 21, per-channel scale/bias; opset 18's per-group form when the runtime
lacks 21); rms_norm's is ONNX RMSNormalization (opset 23, dropped when the runtime lacks it).
local_response_norm: (8, 64, 64, 128), size 5 (ONNX LRN, the same window for odd sizes),
compute-bound (window sums and a power per element), so its fraction of the triad is small.
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
from _nn_common import cli, measure, ort_options, torch_peer, triad_gbps  # noqa: E402


def _np_layer_norm(x, w, b, eps=1e-5):
    m = x.mean(axis=-1, keepdims=True)
    v = x.var(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def _np_rms_norm(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * w


def _np_batch_norm(x, rm, rv, w, b, eps=1e-5):
    sc = (w / np.sqrt(rv + eps)).astype(np.float32)
    sh = (b - rm * sc).astype(np.float32)
    return x * sc[None, :, None, None] + sh[None, :, None, None]


def _np_group_norm(x, g, w, b, eps=1e-5):
    n, c = x.shape[:2]
    r = x.reshape(n, g, -1).astype(np.float64)
    y = ((r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True) + eps)).reshape(x.shape)
    bc = (1, c) + (1,) * (x.ndim - 2)
    return (y * w.reshape(bc) + b.reshape(bc)).astype(np.float32)


def _np_lrn(x, size, alpha=1e-4, beta=0.75, k=1.0):
    sq = np.pad(x * x, ((0, 0), (size // 2, (size - 1) // 2), (0, 0), (0, 0)))
    acc = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return x / (k + alpha / size * acc) ** beta


def _ort_extra(specs):
    """onnxruntime sessions of single-node models: specs of (name, input shape, variants), each variant
    (opset, node, initialisers), tried in order until the installed runtime accepts one (an op it
    lacks only drops that peer). IR version 8 up to opset 17 (onnx 1.19 writes IR 12, onnxruntime
    1.23 reads up to 11), 10 up to 21, 11 above."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return {}
    out = {}
    for name, shape, variants in specs:
        for opset, node, inits in variants:
            g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
                                  initializer=[numpy_helper.from_array(v, k) for k, v in inits])
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
            m.ir_version = 8 if opset <= 17 else 10 if opset <= 21 else 11
            try:
                out[name] = ort.InferenceSession(m.SerializeToString(), ort_options(ort),
                                                 providers=["CPUExecutionProvider"])
                break
            except Exception:  # noqa: BLE001 - an op the installed runtime lacks only drops that peer
                continue
    return out


def _group_norm_specs(cases):
    from onnx import helper

    specs = []
    for name, shape, g, w, b in cases:
        sg = np.ones(g, np.float32)
        zg = np.zeros(g, np.float32)
        node = helper.make_node("GroupNormalization", ["x", "s", "bb"], ["y"], epsilon=1e-5, num_groups=g)
        # opset 18's per-group scale/bias only matches the per-channel case for w = 1, b = 0, so
        # it stands in only when the weights are trivial (they are not here: opset 21 or no peer)
        variants = [(21, node, [("s", w), ("bb", b)])]
        if np.all(w == 1) and np.all(b == 0):
            variants.append((18, node, [("s", sg), ("bb", zg)]))
        specs.append((name, shape, variants))
    return specs


def _ort_sessions(ln_shape, bn_shape, cols, c, params):
    try:
        from onnx import helper
    except ImportError:
        return {}
    w, b, rm, rv, bw, bb = params
    return _ort_extra([
        ("layer_norm", ln_shape, [(17, helper.make_node("LayerNormalization", ["x", "w", "b"], ["y"], axis=-1,
                                                        epsilon=1e-5), [("w", w), ("b", b)])]),
        ("rms_norm", ln_shape, [(23, helper.make_node("RMSNormalization", ["x", "w"], ["y"], axis=-1,
                                                      epsilon=1e-6), [("w", w)])]),
        ("batch_norm", bn_shape, [(15, helper.make_node("BatchNormalization", ["x", "s", "bb", "m", "v"], ["y"],
                                                        epsilon=1e-5), [("s", bw), ("bb", bb), ("m", rm), ("v", rv)])]),
    ])


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
        ("rms_norm", lambda: F.rms_norm(xla, (cols,), wa, eps=1e-6), lambda: _np_rms_norm(xl, w), {"x": xl}),
        ("batch_norm", lambda: F.batch_norm(xba, rma, rva, bwa, bba), lambda: _np_batch_norm(xb, rm, rv, bw, bb),
         {"x": xb}),
    ]
    torch = torch_peer()
    tf = {}
    if torch is not None:
        TF = torch.nn.functional
        t = {k: torch.from_numpy(v) for k, v in dict(xl=xl, xb=xb, w=w, b=b, rm=rm, rv=rv, bw=bw, bb=bb).items()}
        tf["layer_norm"] = lambda: TF.layer_norm(t["xl"], (cols,), t["w"], t["b"], eps=1e-5)
        if hasattr(TF, "rms_norm"):
            tf["rms_norm"] = lambda: TF.rms_norm(t["xl"], (cols,), t["w"], eps=1e-6)
        tf["batch_norm"] = lambda: TF.batch_norm(t["xb"], t["rm"], t["rv"], t["bw"], t["bb"], training=False,
                                                 eps=1e-5)
    gn = [("group_norm", (2, 64, 128, 256), 32), ("group_norm_g1", (1, 64, 256, 256), 1)]
    gn_cases = []
    for name, shape, g in gn:
        shape = shape if log2n == 22 else (1, 64, 1, n // 64)
        xg = rng.standard_normal(shape).astype(np.float32)
        gw = rng.standard_normal(64).astype(np.float32)
        gb = rng.standard_normal(64).astype(np.float32)
        gn_cases.append((name, shape, g, xg, gw, gb))
    lrn_shape = (8, 64, 64, 128) if log2n == 22 else (1, 64, 1, n // 64)
    xr = rng.standard_normal(lrn_shape).astype(np.float32)
    extra = {}
    try:
        from onnx import helper

        extra = _ort_extra(_group_norm_specs([(nm, sh, g, gw, gb) for nm, sh, g, _, gw, gb in gn_cases]) + [
            ("lrn", lrn_shape, [(13, helper.make_node("LRN", ["x"], ["y"], size=5, alpha=1e-4, beta=0.75, bias=1.0),
                                 [])])])
    except ImportError:
        pass
    for name, shape, g, xg, gw, gb in gn_cases:
        xga, gwa, gba = asc.array(xg), asc.array(gw), asc.array(gb)
        cases.append((name, lambda xga=xga, g=g, gwa=gwa, gba=gba: F.group_norm(xga, g, gwa, gba),
                      lambda xg=xg, g=g, gw=gw, gb=gb: _np_group_norm(xg, g, gw, gb), {"x": xg}))
        if torch is not None:
            tx, tw, tb = (torch.from_numpy(v) for v in (xg, gw, gb))
            tf[name] = lambda tx=tx, g=g, tw=tw, tb=tb: TF.group_norm(tx, g, tw, tb, eps=1e-5)
        if name in extra:
            ort[name] = extra[name]
    xra = asc.array(xr)
    cases.append(("lrn", lambda: F.local_response_norm(xra, 5, alpha=1e-4, beta=0.75, k=1.0),
                  lambda: _np_lrn(xr, 5), {"x": xr}))
    if "lrn" in extra:
        ort["lrn"] = extra["lrn"]
    if torch is not None:
        txr = torch.from_numpy(xr)
        tf["lrn"] = lambda: TF.local_response_norm(txr, 5, alpha=1e-4, beta=0.75, k=1.0)
    results = []
    for name, f, g, feed in cases:  # opaque ops: outputs are materialised on return
        results.append(measure(name, f, g, n, triad_gbs, repeat, ort.get(name) if ort else None, feed, tf.get(name)))
    return results


def main():
    cli(run, __doc__, "norms")


if __name__ == "__main__":
    main()
