"""conv2d (asc.ops) on ResNet-50's layer shapes vs onnxruntime, the FMA peak, bf16 and the Ascend C path.

``run()`` returns result dicts for the bench_nn.py driver. Per shape (batch 1 and 8,
float32): our oneDNN time, onnxruntime's (single-Conv ONNX model, when installed by
scripts/bench_setup.sh), GFLOP/s and the fraction of the FMA peak measured in the same
run (a register-blocked FMA loop at the machine's widest vector width, compiled on the fly, one
thread per core),
bfloat16 vs our float32, and the Ascend C img2col + Mmad path (batch 1 only: slow).
``blocked_ms``: the same convolution with NC1HWC0 input and output (the model executor's layout
between convolutions: no NCHW reorders); ``blocked_peak_frac`` in the SUM row: its fraction of the
peak over the shapes whose channels divide by C0. ``winograd``: the shape ran the Winograd
F(2x2, 3x3) path (3x3 / stride 1 on AVX2), ``depthwise``: the NCHW depthwise 3x3 path, ``direct``: the
direct NCHW stride-2 path (src/nn/conv_direct.cc); ``direct_ms``: oneDNN's kernel on the same call
(ASC_CONV_WINOGRAD=0 / ASC_CONV_DEPTHWISE=0 / ASC_CONV_DIRECT=0) in the same rounds.
``--ab NAME=VALUE`` times ours again with that environment in the same rounds (``ab_over_pyasc``).
``--only NAME`` / ``--batch N`` run a subset. PyTorch (``torch_over_pyasc``): torch.nn.functional.conv2d
on 2 threads in the same rounds when torch is importable (``--no-torch`` leaves it out). GFLOP/s and peak fractions count the direct
convolution's multiply-adds (2 x N x K x C x 9 x OH x OW) for every path. ``*_cpu_ms`` and
``ort_over_pyasc_cpu``: the least process CPU time per call in the same rounds (robust on a
loaded machine, where wall times of 2-thread calls are mostly waiting).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.join(ROOT, "build", "bench", "site"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import best, interleaved  # noqa: E402 - the benchmarks' timers

# (name, C_in, C_out, H, k, stride, pad, groups)
SHAPES = [
    ("stem7x7/2 3-64 @224", 3, 64, 224, 7, 2, 3, 1),
    ("1x1 64-256 @56", 64, 256, 56, 1, 1, 0, 1),
    ("1x1 256-64 @56", 256, 64, 56, 1, 1, 0, 1),
    ("3x3 64-64 @56", 64, 64, 56, 3, 1, 1, 1),
    ("3x3/2 128 @28", 128, 128, 28, 3, 2, 1, 1),
    ("1x1 1024-2048 @7", 1024, 2048, 7, 1, 1, 0, 1),
    ("dw3x3 32 @112", 32, 32, 112, 3, 1, 1, 32),
]

_FMA_SRC = r"""
#include <immintrin.h>
#include <omp.h>
/* The widest FMA the build machine has (-march=native): 512-bit where AVX-512F is
   there, else 256-bit AVX2 FMA. 12 independent accumulators cover FMA latency x
   throughput (4-5 cycles x 2 pipes) on both. */
#if defined(__AVX512F__)
typedef __m512 V;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
static float hsum(V s) { return _mm512_reduce_add_ps(s); }
#else
typedef __m256 V;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
static float hsum(V s) { float o[8]; _mm256_storeu_ps(o, s); return o[0] + o[1] + o[2] + o[3] + o[4] + o[5] + o[6] + o[7]; }
#endif
int fma_lanes(void) { return LANES; }
double fma_peak(long iters, int threads) {
  double t0 = omp_get_wtime();
  #pragma omp parallel num_threads(threads)
  {
    V b = SET1(1.0000001f), c = SET1(1e-7f);
#define D(i) V a##i = SET1((float)i);
    D(0) D(1) D(2) D(3) D(4) D(5) D(6) D(7) D(8) D(9) D(10) D(11)
#define F(i) a##i = FMA(a##i, b, c);
    for (long it = 0; it < iters; ++it) {
      F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11)
      /* keeps the compiler from folding the chains */
      __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7),
                       "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
    }
    V s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(ADD(a4, a5), ADD(a6, a7)), ADD(ADD(a8, a9), ADD(a10, a11))));
    volatile float sink = hsum(s);
    (void)sink;
  }
  double t = omp_get_wtime() - t0;
  return 2.0 * LANES * 12 * (double)iters * threads / t / 1e9;
}
"""


def fma_peak_gflops(threads):
    """float32 FMA peak of `threads` cores in GFLOP/s (best of 3), at the widest vector width
    this machine has (AVX-512 or AVX2; compiled with -march=native)."""
    d = os.path.join(ROOT, "build", "bench")
    os.makedirs(d, exist_ok=True)
    src, lib = os.path.join(d, "fma_peak.c"), os.path.join(d, "fma_peak.so")
    with open(src, "w") as f:
        f.write(_FMA_SRC)
    subprocess.run(["cc", "-O2", "-march=native", "-fopenmp", "-shared", "-fPIC", src, "-o", lib], check=True)
    so = ctypes.CDLL(lib)
    so.fma_peak.restype = ctypes.c_double
    so.fma_peak.argtypes = [ctypes.c_long, ctypes.c_int]
    return max(so.fma_peak(20_000_000, threads) for _ in range(3))


def _ort(x, w, b, s, p, g):
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], strides=[s, s], pads=[p] * 4, group=g)
    graph = helper.make_graph([node], "c", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    # timed in rounds interleaved with pyasc: spinning intra-op threads would take its cores
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, {"x": x})


def _torch_conv():
    """torch.nn.functional.conv2d on 2 threads (PyTorch CPU, oneDNN inside), or None without torch.
    Its OpenMP runtime (torch's own libgomp) is made passive before it loads: spinning threads
    would take the cores of the call timed after it in the same round."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(2)

    def make(x, w, b, s, p, g):
        xt, wt, bt = (torch.from_numpy(v) for v in (x, w, b))

        def f():
            with torch.no_grad():
                return torch.nn.functional.conv2d(xt, wt, bt, s, p, 1, g)
        return f
    return make


def _interleaved_wall_cpu(fns, repeat):
    """interleaved() that also keeps each fn's least process CPU time (ms): all threads' work,
    which a loaded machine disturbs much less than wall time (onnxruntime's threads do not spin
    here; ours idle-spin briefly, which counts against us)."""
    for f in fns:
        f()
    wall, cpu = [float("inf")] * len(fns), [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, f in enumerate(fns):
            t0, c0 = time.perf_counter(), time.process_time()
            f()
            c1, t1 = time.process_time(), time.perf_counter()
            wall[i], cpu[i] = min(wall[i], t1 - t0), min(cpu[i], c1 - c0)
    return [t * 1e3 for t in wall], [t * 1e3 for t in cpu]


def _with_env(env, fn):
    """fn() with the environment variables `env` ({name: value}) set, restored after."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return fn()
    finally:
        for k, v in old.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v


def _direct(fn):
    """fn() with our own kernels off (Winograd, depthwise): oneDNN's kernel on the same call."""
    return _with_env({"ASC_CONV_WINOGRAD": "0", "ASC_CONV_DEPTHWISE": "0", "ASC_CONV_DIRECT": "0"}, fn)


def run(repeat=5, batches=(1, 8), bf16=True, ascendc=True, only=None, ab=None, torch=True):
    import ml_dtypes
    import pyasc as asc
    from pyasc import _C, ops

    peak = fma_peak_gflops(2)
    tmake = _torch_conv() if torch else None
    rng = np.random.default_rng(0)
    results = []
    for n in batches:
        for name, ci, co, h, k, s, p, g in SHAPES:
            if only and not any(o in name for o in only):
                continue
            x = rng.standard_normal((n, ci, h, h)).astype(np.float32)
            w = rng.standard_normal((co, ci // g, k, k)).astype(np.float32) * 0.1
            b = rng.standard_normal(co).astype(np.float32)
            oh = (h + 2 * p - k) // s + 1
            flops = 2.0 * n * co * oh * oh * (ci // g) * k * k
            # Weights owned by pyasc (as asc.ops.Conv2d holds them): their reorder into
            # oneDNN's layout is cached; asarray views of NumPy memory would be reordered
            # on every call (NumPy may write them behind pyasc's back).
            xa, wa, ba = asc.asarray(x), asc.array(w), asc.array(b)
            fns = [lambda: ops.conv2d(xa, wa, ba, s, p, 1, g)]
            # the same convolution with NC1HWC0 activations in and out (what the model executor's
            # layout assignment runs between convolutions): the kernel without the NCHW reorders
            c0 = _C.nn.preferred_block()
            if c0 and ci % c0 == 0 and co % c0 == 0:
                xk = asc.array(np.ascontiguousarray(x.reshape(n, ci // c0, c0, h, h).transpose(0, 1, 3, 4, 2)))
                fns.append(lambda: _C.nn.conv(xk, wa, ba, None, [s, s], [p, p], [p, p], [1, 1], [0, 0], g, False,
                                              False, "none", 0.0, "onednn", "conv2d", c0, c0))
            nblk = len(fns)
            # Winograd F(2x2, 3x3) shapes (3x3 / stride 1, AVX2): the oneDNN direct kernel
            # it replaces, timed in the same rounds (ASC_CONV_WINOGRAD=0)
            wino0, dw0, dr0 = _C.nn.winograd_stats()[0], _C.nn.depthwise_calls(), _C.nn.direct_calls()
            fns[0]()
            dw = _C.nn.depthwise_calls() > dw0
            dr = _C.nn.direct_calls() > dr0
            wino = _C.nn.winograd_stats()[0] > wino0 or dw or dr  # an own kernel: oneDNN's beside it
            if wino:
                fns.append(lambda: _direct(lambda: ops.conv2d(xa, wa, ba, s, p, 1, g)))
            iab = None
            if ab:  # A/B: ours with these environment variables, in the same rounds
                iab = len(fns)
                fns.append(lambda: _with_env(ab, lambda: ops.conv2d(xa, wa, ba, s, p, 1, g)))
            itorch = None
            if tmake is not None:
                itorch = len(fns)
                fns.append(tmake(x, w, b, s, p, g))
            o = _ort(x, w, b, s, p, g)
            if o is not None:
                fns.append(o)
            ts, cs = _interleaved_wall_cpu(fns, repeat)  # ours, [blocked], [direct], [onnxruntime]: same rounds
            t = ts[0]
            tblk = ts[1] if nblk == 2 else float("nan")
            tdir = ts[nblk] if wino else float("nan")
            xb, wb, bb = (asc.array(v.astype(ml_dtypes.bfloat16)) for v in (x, w, b))
            tb = float("nan")
            try:
                if bf16:
                    tb = best(lambda: ops.conv2d(xb, wb, bb, s, p, 1, g), repeat)
            except asc.AscendError:  # no bfloat16 convolution on this machine
                pass
            r = dict(bench="conv2d", shape=f"{name} N={n}", pyasc_ms=t, gflops=flops / t / 1e6,
                     peak_frac=flops / t / 1e6 / peak, blocked_ms=tblk, bf16_ms=tb, bf16_speedup=t / tb, flops=flops)
            if itorch is not None:
                r["torch_ms"] = ts[itorch]
                r["torch_over_pyasc"] = ts[itorch] / t
                r["torch_over_pyasc_cpu"] = cs[itorch] / cs[0]
            if iab is not None:
                r["ab_ms"] = ts[iab]
                r["ab_over_pyasc"] = ts[iab] / t
                r["ab_over_pyasc_cpu"] = cs[iab] / cs[0]
            if wino:
                r["depthwise" if dw else "direct" if dr else "winograd"] = True
                r["direct_ms"] = tdir
                r["direct_over_winograd"] = tdir / t
            r["pyasc_cpu_ms"] = cs[0]
            if wino:
                r["direct_over_winograd_cpu"] = cs[nblk] / cs[0]
            if o is not None:
                r["onnxruntime_ms"] = ts[-1]
                r["ort_over_pyasc"] = r["onnxruntime_ms"] / t
                r["onnxruntime_cpu_ms"] = cs[-1]
                r["ort_over_pyasc_cpu"] = cs[-1] / cs[0]
            if n == 1 and ascendc:
                r["ascendc_ms"] = best(lambda: ops.conv2d(xa, wa, ba, s, p, 1, g, engine="ascendc"), 2)
                r["onednn_over_ascendc"] = r["ascendc_ms"] / t
            results.append(r)
    tot_t = sum(r["pyasc_ms"] for r in results)
    tot_f = sum(r["flops"] for r in results)
    # NC1HWC0 in and out, over the shapes whose channels divide by C0 (the stem's 3 do not)
    blk = [r for r in results if r["blocked_ms"] == r["blocked_ms"]]
    blk_t, blk_f = sum(r["blocked_ms"] for r in blk), sum(r["flops"] for r in blk)
    results.append(dict(bench="conv2d", shape="SUM", pyasc_ms=tot_t, gflops=tot_f / tot_t / 1e6,
                        peak_frac=tot_f / tot_t / 1e6 / peak, peak_gflops=peak,
                        blocked_peak_frac=blk_f / blk_t / 1e6 / peak if blk_t else float("nan"),
                        ort_over_pyasc=(sum(r.get("onnxruntime_ms", np.nan) for r in results) / tot_t),
                        torch_over_pyasc=(sum(r.get("torch_ms", np.nan) for r in results) / tot_t),
                        ort_over_pyasc_cpu=(sum(r.get("onnxruntime_cpu_ms", np.nan) for r in results) /
                                            sum(r["pyasc_cpu_ms"] for r in results))))
    return results


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="float32 only (no bf16, no Ascend C path), 3 repeats")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--only", action="append", help="shapes whose name contains this (repeatable)")
    ap.add_argument("--batch", type=int, action="append", help="batch sizes (default 1 and 8)")
    ap.add_argument("--no-torch", action="store_true", help="leave PyTorch out (it is timed when importable)")
    ap.add_argument("--ab", action="append", help="NAME=VALUE: also time ours with this environment (A/B)")
    a = ap.parse_args()
    print(f"bench_nn_conv: load {os.getloadavg()[0]:.2f}", flush=True)
    rep = a.repeat or (3 if a.quick else 5)
    for r in run(rep, batches=tuple(a.batch or (1, 8)), bf16=not a.quick, ascendc=not a.quick, only=a.only,
                 ab=dict(v.split("=", 1) for v in a.ab) if a.ab else None, torch=not a.no_torch):
        print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
    print(f"load at the end {os.getloadavg()[0]:.2f}")
