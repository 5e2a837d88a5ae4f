"""matmul and linalg: pyasc vs NumPy in the same process.

Prints, per case, the best of several runs for each library and the ratio
NumPy time / pyasc time (>= 1: pyasc at least as fast). Both libraries use
OpenBLAS -- pyasc the system's (libopenblas), NumPy the copy its wheel bundles
(scipy-openblas) -- and the thread count each uses is printed first.

    python benchmarks/bench_matmul.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import pyasc as asc
from pyasc import _C


def numpy_blas_threads():
    try:
        from threadpoolctl import threadpool_info  # optional
        for info in threadpool_info():
            if info.get("internal_api") == "openblas" and "numpy" in info.get("filepath", ""):
                return info.get("num_threads")
    except ImportError:
        pass
    import ctypes
    import glob
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs", "libscipy_openblas*"))
    for lib in libs:
        try:
            dll = ctypes.CDLL(lib)
            for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                         "openblas_get_num_threads"):
                if hasattr(dll, name):
                    return getattr(dll, name)()
        except OSError:
            pass
    return "unknown"


def best(fn, repeat, number=1):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times), statistics.median(times)


def case(name, np_fn, asc_fn, repeat, number=1):
    np_fn(), asc_fn()  # warm up (pool, BLAS threads)
    tn, mn = best(np_fn, repeat, number)
    ta, ma = best(asc_fn, repeat, number)
    print(f"{name:<38} numpy {tn * 1e3:9.3f} ms  pyasc {ta * 1e3:9.3f} ms  ratio {tn / ta:5.2f} "
          f"(median {mn / ma:5.2f})")
    return tn / ta


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    print(f"cores {os.cpu_count()}; pyasc OpenBLAS threads {_C._linalg.blas_num_threads()} "
          f"({_C._linalg.blas_config().strip()}); NumPy OpenBLAS threads {numpy_blas_threads()}")
    rng = np.random.default_rng(0)

    n = 2048
    a32, b32 = rng.standard_normal((n, n), np.float32), rng.standard_normal((n, n), np.float32)
    xa, xb = asc.asarray(a32), asc.asarray(b32)
    ratio = case("matmul float32 2048x2048", lambda: a32 @ b32, lambda: xa @ xb, rep)
    print(f"  target >= 0.95: {'OK' if ratio >= 0.95 else 'BELOW'}")

    a64, b64 = a32.astype(np.float64)[:1024, :1024], b32.astype(np.float64)[:1024, :1024]
    ya, yb = asc.asarray(a64), asc.asarray(b64)
    case("matmul float64 1024x1024", lambda: a64 @ b64, lambda: ya @ yb, rep)

    s, t = rng.standard_normal((64, 128, 64), np.float32), rng.standard_normal((64, 64, 128), np.float32)
    sa, ta = asc.asarray(s), asc.asarray(t)
    case("matmul batched 64x(128x64 @ 64x128)", lambda: s @ t, lambda: sa @ ta, rep, 5)

    act, w = rng.standard_normal((32, 256, 512), np.float32), rng.standard_normal((512, 512), np.float32)
    aa, wa = asc.asarray(act), asc.asarray(w)
    case("matmul (32,256,512) @ (512,512)", lambda: act @ w, lambda: aa @ wa, rep, 3)

    small, sb = rng.standard_normal((10000, 3, 3)), rng.standard_normal((10000, 3, 3))
    sm, smb = asc.asarray(small), asc.asarray(sb)
    case("matmul 10000 x (3x3 @ 3x3) float64", lambda: small @ sb, lambda: sm @ smb, rep, 3)

    i32a, i32b = rng.integers(-9, 9, (512, 512), dtype=np.int32), rng.integers(-9, 9, (512, 512), dtype=np.int32)
    ia, ib = asc.asarray(i32a), asc.asarray(i32b)
    case("matmul int32 512x512", lambda: i32a @ i32b, lambda: ia @ ib, rep)

    h = rng.standard_normal((512, 512)).astype(np.float16)
    ha = asc.asarray(h)
    case("matmul float16 512x512", lambda: h @ h, lambda: ha @ ha, 3 if args.quick else 5)

    m = rng.standard_normal((512, 512)) + np.eye(512) * 512
    ma = asc.asarray(m)
    case("linalg.inv 512x512 float64", lambda: np.linalg.inv(m), lambda: asc.linalg.inv(ma), rep)
    case("linalg.solve 512x512, 512x64", lambda: np.linalg.solve(m, m[:, :64]),
         lambda: asc.linalg.solve(ma, ma[:, :64]), rep)
    case("linalg.det 512x512", lambda: np.linalg.det(m), lambda: asc.linalg.det(ma), rep)
    spd = m @ m.T
    spda = asc.asarray(spd)
    case("linalg.cholesky 512x512", lambda: np.linalg.cholesky(spd), lambda: asc.linalg.cholesky(spda), rep)
    case("linalg.qr 512x512", lambda: np.linalg.qr(m), lambda: asc.linalg.qr(ma), rep)
    case("linalg.svd 256x256", lambda: np.linalg.svd(m[:256, :256]), lambda: asc.linalg.svd(ma[:256, :256]), rep)
    case("linalg.eigh 256x256", lambda: np.linalg.eigh(spd[:256, :256]), lambda: asc.linalg.eigh(spda[:256, :256]),
         rep)
    bm, bma = rng.standard_normal((1000, 4, 4)), None
    bma = asc.asarray(bm)
    case("linalg.inv 1000 x 4x4", lambda: np.linalg.inv(bm), lambda: asc.linalg.inv(bma), rep, 3)
    v = rng.standard_normal(1 << 20)
    va = asc.asarray(v)
    case("linalg.norm 2^20 float64", lambda: np.linalg.norm(v), lambda: asc.linalg.norm(va), rep, 5)
    e1, e2 = rng.standard_normal((64, 128)), rng.standard_normal((128, 32))
    ea, eb = asc.asarray(e1), asc.asarray(e2)
    case("einsum ij,jk->ik 64x128x32", lambda: np.einsum("ij,jk->ik", e1, e2),
         lambda: asc.einsum("ij,jk->ik", ea, eb), rep, 20)


if __name__ == "__main__":
    main()
