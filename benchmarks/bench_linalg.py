"""numpy.linalg (real and complex), einsum and float32 matmul: pyasc vs NumPy in the same process.

Per case: the median (and best) of several timed runs of each library, and the
ratio NumPy time / pyasc time (>= 1: pyasc at least as fast). The two
libraries alternate run by run, so a burst of machine noise hits both.
Both use OpenBLAS (pyasc the system's libopenblas, NumPy its bundled
scipy-openblas); the thread counts are printed first. ``--threads N`` sets
OPENBLAS_NUM_THREADS for both before they load (a fair single-core comparison
on a loaded machine: ``--threads 1``).

    python benchmarks/bench_linalg.py [--quick] [--only SUBSTRING] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repetitions")
    p.add_argument("--only", default="", help="run the cases whose name contains this")
    p.add_argument("--threads", type=int, default=0, help="OPENBLAS_NUM_THREADS for both libraries")
    return p.parse_args()


ARGS = parse()
if ARGS.threads:
    os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.threads)

import numpy as np  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc import _C  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from bench_matmul import numpy_blas_threads  # noqa: E402

RESULTS = []


def case(name, np_fn, asc_fn, repeat, number=1, target=None):
    if ARGS.only and ARGS.only not in name:
        return
    np_fn(), asc_fn()  # warm up (pool, BLAS threads, plan caches)
    tn, ta = [], []
    for _ in range(repeat):
        for fn, acc in ((np_fn, tn), (asc_fn, ta)):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            acc.append((time.perf_counter() - t0) / number)
    mn, ma = statistics.median(tn), statistics.median(ta)
    ratio = mn / ma
    flag = "" if target is None else ("  OK" if ratio >= target else f"  BELOW {target}")
    unit, scale = ("us", 1e6) if ma < 1e-3 else ("ms", 1e3)
    print(f"{name:<40} numpy {mn * scale:9.3f} {unit}  pyasc {ma * scale:9.3f} {unit}  "
          f"ratio {ratio:5.2f} (best {min(tn) / min(ta):5.2f}){flag}", flush=True)
    RESULTS.append((name, ratio))


def main():
    rep = 5 if ARGS.quick else 11
    print(f"cores {os.cpu_count()}; pyasc OpenBLAS threads {_C._linalg.blas_num_threads()}; "
          f"NumPy OpenBLAS threads {numpy_blas_threads()}")
    rng = np.random.default_rng(0)

    # ---------------------------------------------------------------- LAPACK
    m = rng.standard_normal((512, 512)) + np.eye(512) * 512
    ma = asc.asarray(m)
    spd = m @ m.T
    spda = asc.asarray(spd)
    b64, v512 = m[:, :64].copy(), m[:, 0].copy()
    ba, va = asc.asarray(b64), asc.asarray(v512)
    case("inv 512 float64", lambda: np.linalg.inv(m), lambda: asc.linalg.inv(ma), rep, target=1.0)
    m32 = m.astype(np.float32)
    m32a = asc.asarray(m32)
    case("inv 512 float32", lambda: np.linalg.inv(m32), lambda: asc.linalg.inv(m32a), rep, target=1.0)
    case("solve 512, (512,64)", lambda: np.linalg.solve(m, b64), lambda: asc.linalg.solve(ma, ba), rep, target=1.0)
    case("solve 512, vector", lambda: np.linalg.solve(m, v512), lambda: asc.linalg.solve(ma, va), rep, target=1.0)
    case("det 512", lambda: np.linalg.det(m), lambda: asc.linalg.det(ma), rep, target=1.0)
    case("slogdet 512", lambda: np.linalg.slogdet(m), lambda: asc.linalg.slogdet(ma), rep, target=1.0)
    case("cholesky 512", lambda: np.linalg.cholesky(spd), lambda: asc.linalg.cholesky(spda), rep, target=1.0)
    case("qr 512", lambda: np.linalg.qr(m), lambda: asc.linalg.qr(ma), rep, target=1.0)
    tall = rng.standard_normal((1000, 200))
    talla = asc.asarray(tall)
    case("qr 1000x200", lambda: np.linalg.qr(tall), lambda: asc.linalg.qr(talla), rep, target=1.0)
    s256, s256a = m[:256, :256].copy(), asc.asarray(m[:256, :256].copy())
    case("svd 256", lambda: np.linalg.svd(s256), lambda: asc.linalg.svd(s256a), rep, target=1.0)
    case("svd 1000x200 reduced", lambda: np.linalg.svd(tall, full_matrices=False),
         lambda: asc.linalg.svd(talla, full_matrices=False), rep, target=1.0)
    case("svdvals 256", lambda: np.linalg.svd(s256, compute_uv=False),
         lambda: asc.linalg.svd(s256a, compute_uv=False), rep, target=1.0)
    e256, e256a = spd[:256, :256].copy(), asc.asarray(spd[:256, :256].copy())
    case("eigh 256", lambda: np.linalg.eigh(e256), lambda: asc.linalg.eigh(e256a), rep, target=1.0)
    case("eigvalsh 256", lambda: np.linalg.eigvalsh(e256), lambda: asc.linalg.eigvalsh(e256a), rep, target=1.0)

    # ---------------------------------------------------------------- stacks of tiny matrices
    t4 = rng.standard_normal((1000, 4, 4)) + np.eye(4) * 4
    t4a = asc.asarray(t4)
    s4 = t4 @ np.swapaxes(t4, -1, -2)
    s4a = asc.asarray(s4)
    r4, r4a = t4[..., :1].copy(), asc.asarray(t4[..., :1].copy())
    case("inv 1000 x 4x4", lambda: np.linalg.inv(t4), lambda: asc.linalg.inv(t4a), rep, 5, target=1.0)
    case("det 1000 x 4x4", lambda: np.linalg.det(t4), lambda: asc.linalg.det(t4a), rep, 5, target=1.0)
    case("solve 1000 x 4x4, (4,1)", lambda: np.linalg.solve(t4, r4), lambda: asc.linalg.solve(t4a, r4a), rep, 5,
         target=1.0)
    case("cholesky 1000 x 4x4", lambda: np.linalg.cholesky(s4), lambda: asc.linalg.cholesky(s4a), rep, 5,
         target=1.0)
    t3 = rng.standard_normal((100000, 3, 3)) + np.eye(3) * 3
    t3a = asc.asarray(t3)
    case("inv 100000 x 3x3", lambda: np.linalg.inv(t3), lambda: asc.linalg.inv(t3a), rep, target=1.0)
    case("det 100000 x 3x3", lambda: np.linalg.det(t3), lambda: asc.linalg.det(t3a), rep, target=1.0)
    t32 = rng.standard_normal((200, 32, 32)) + np.eye(32) * 32
    t32a = asc.asarray(t32)
    case("inv 200 x 32x32", lambda: np.linalg.inv(t32), lambda: asc.linalg.inv(t32a), rep, target=1.0)

    # ---------------------------------------------------------------- complex (c/z routines, small complex kernels)
    c256 = (rng.standard_normal((256, 256)) + 1j * rng.standard_normal((256, 256)) + np.eye(256) * 256)
    c256a = asc.asarray(c256)
    cb = c256[:, :32].copy()
    cba = asc.asarray(cb)
    case("inv 256 complex128", lambda: np.linalg.inv(c256), lambda: asc.linalg.inv(c256a), rep, target=1.0)
    c256f = c256.astype(np.complex64)
    c256fa = asc.asarray(c256f)
    case("inv 256 complex64", lambda: np.linalg.inv(c256f), lambda: asc.linalg.inv(c256fa), rep, target=1.0)
    case("solve 256 complex128, (256,32)", lambda: np.linalg.solve(c256, cb), lambda: asc.linalg.solve(c256a, cba),
         rep, target=1.0)
    c128, c128a = c256[:128, :128].copy(), asc.asarray(c256[:128, :128].copy())
    case("svd 128 complex128", lambda: np.linalg.svd(c128), lambda: asc.linalg.svd(c128a), rep, target=1.0)
    h128 = c128 @ c128.conj().T
    h128a = asc.asarray(h128)
    case("eigh 128 complex128", lambda: np.linalg.eigh(h128), lambda: asc.linalg.eigh(h128a), rep, target=1.0)
    case("cholesky 128 complex128", lambda: np.linalg.cholesky(h128), lambda: asc.linalg.cholesky(h128a), rep,
         target=1.0)
    ct4 = t4 + 1j * rng.standard_normal((1000, 4, 4))
    ct4a = asc.asarray(ct4)
    case("inv 1000 x 4x4 complex128", lambda: np.linalg.inv(ct4), lambda: asc.linalg.inv(ct4a), rep, 5, target=1.0)
    case("det 1000 x 4x4 complex128", lambda: np.linalg.det(ct4), lambda: asc.linalg.det(ct4a), rep, 5, target=1.0)
    ct4s = ct4 @ np.conj(np.swapaxes(ct4, -1, -2))
    ct4sa = asc.asarray(ct4s)
    case("cholesky 1000 x 4x4 complex128", lambda: np.linalg.cholesky(ct4s), lambda: asc.linalg.cholesky(ct4sa),
         rep, 5, target=1.0)
    ct32 = (t32 + 1j * rng.standard_normal((200, 32, 32))).astype(np.complex64)
    ct32a = asc.asarray(ct32)
    case("inv 200 x 32x32 complex64", lambda: np.linalg.inv(ct32), lambda: asc.linalg.inv(ct32a), rep,
         target=1.0)
    case("svd 200 x 8x8 complex64", lambda: np.linalg.svd(ct32[:, :8, :8]),
         lambda: asc.linalg.svd(ct32a[:, :8, :8]), rep, target=1.0)

    # ---------------------------------------------------------------- einsum
    e1, e2 = rng.standard_normal((64, 128)), rng.standard_normal((128, 32))
    ea, eb = asc.asarray(e1), asc.asarray(e2)
    case("einsum ij,jk->ik 64x128x32", lambda: np.einsum("ij,jk->ik", e1, e2),
         lambda: asc.einsum("ij,jk->ik", ea, eb), rep, 50)
    x10, x10a = np.ones((10, 10)), asc.ones((10, 10))
    case("einsum ij,jk 10x10 (overhead)", lambda: np.einsum("ij,jk", x10, x10),
         lambda: asc.einsum("ij,jk", x10a, x10a), rep, 200)
    case("einsum ii (trace 10x10)", lambda: np.einsum("ii", x10), lambda: asc.einsum("ii", x10a), rep, 200)
    bq, bk = rng.standard_normal((16, 128, 64), np.float32), rng.standard_normal((16, 128, 64), np.float32)
    bqa, bka = asc.asarray(bq), asc.asarray(bk)
    case("einsum bqd,bkd->bqk 16x128x128x64 f32", lambda: np.einsum("bqd,bkd->bqk", bq, bk),
         lambda: asc.einsum("bqd,bkd->bqk", bqa, bka), rep, 10)
    case("einsum bqd,bkd->bqk optimize=True", lambda: np.einsum("bqd,bkd->bqk", bq, bk, optimize=True),
         lambda: asc.einsum("bqd,bkd->bqk", bqa, bka, optimize=True), rep, 10)
    c1, c2, c3 = (rng.standard_normal(s) for s in ((50, 60), (60, 70), (70, 80)))
    c1a, c2a, c3a = (asc.asarray(c) for c in (c1, c2, c3))
    case("einsum ij,jk,kl->il 50x60x70x80", lambda: np.einsum("ij,jk,kl->il", c1, c2, c3),
         lambda: asc.einsum("ij,jk,kl->il", c1a, c2a, c3a), rep, 5)
    v1 = rng.standard_normal((1000, 64))
    v1a = asc.asarray(v1)
    case("einsum ij,ij->i 1000x64", lambda: np.einsum("ij,ij->i", v1, v1),
         lambda: asc.einsum("ij,ij->i", v1a, v1a), rep, 20)

    # ---------------------------------------------------------------- matmul
    n = 2048
    a32, b32 = rng.standard_normal((n, n), np.float32), rng.standard_normal((n, n), np.float32)
    xa, xb = asc.asarray(a32), asc.asarray(b32)
    case("matmul float32 2048x2048", lambda: a32 @ b32, lambda: xa @ xb, max(rep, 9), target=0.95)

    below = [n for n, r in RESULTS if r < 1.0]
    print(f"{len(RESULTS)} cases; below 1.0: {', '.join(below) if below else 'none'}")


if __name__ == "__main__":
    main()
