#!/usr/bin/env python3
"""Sorting, sets and random numbers: pyasc vs NumPy, measured in the same run.

2^24 elements by default: sort (float32, float64, int32), argsort (NumPy's
default kind and its stable one), unique (values, counts, inverse, and
unique rows with axis=0), a 4096 x 4096 row-wise sort, searchsorted of 2^20
values, the random generators (uniform float64/float32, normal float64/float32,
integers) against NumPy's default_rng, and pad's statistic modes. Prints the
median-of-N and best-of-N milliseconds and numpy_time / pyasc_time of the
medians (>= 1: pyasc at least as fast).

    python benchmarks/bench_sort.py [--repeat 5] [--log2n 24] [--only sort]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pyasc as asc


def timed(fn, repeat):
    """(median, best) milliseconds of `repeat` runs after one warm-up run (pool segments,
    page faults); pyasc results are materialised (lazy graphs)."""
    def run():
        r = fn()
        for v in r if isinstance(r, tuple) else (r,):
            if hasattr(v, "eval"):
                v.eval()
    run()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2] * 1e3, ts[0] * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--side", type=int, default=4096)
    p.add_argument("--only", default="", help="run only the cases whose name contains this text")
    args = p.parse_args()

    rng = np.random.default_rng(0)
    nx = rng.standard_normal(1 << args.log2n).astype(np.float32)
    nu = rng.integers(0, 1 << 16, 1 << args.log2n).astype(np.float32)  # many duplicates
    nm = rng.standard_normal((args.side, args.side)).astype(np.float32)
    ns = np.sort(nx)
    nv = rng.standard_normal(1 << 20).astype(np.float32)
    x, u, m, s, v = asc.array(nx), asc.array(nu), asc.array(nm), asc.array(ns), asc.array(nv)
    n = f"2^{args.log2n}"
    g = asc.random.default_rng(1)
    ng = np.random.default_rng(1)
    size = 1 << args.log2n
    nd = nx.astype(np.float64)
    ni = rng.integers(-(1 << 31), (1 << 31) - 1, 1 << args.log2n).astype(np.int32)
    nr = rng.integers(0, 4, (1 << (args.log2n - 3), 8)).astype(np.int32)  # unique rows
    npd = rng.standard_normal((2048, 2048)).astype(np.float32)
    d, i32, r8, pd = asc.array(nd), asc.array(ni), asc.array(nr), asc.array(npd)
    cases = [
        (f"sort f32 ({n})", lambda: asc.sort(x), lambda: np.sort(nx)),
        (f"sort f64 ({n})", lambda: asc.sort(d), lambda: np.sort(nd)),
        (f"sort i32 ({n})", lambda: asc.sort(i32), lambda: np.sort(ni)),
        (f"argsort f32 ({n})", lambda: asc.argsort(x), lambda: np.argsort(nx)),
        (f"argsort stable ({n})", lambda: asc.argsort(x, stable=True), lambda: np.argsort(nx, kind="stable")),
        (f"unique f32 ({n})", lambda: asc.unique(u), lambda: np.unique(nu)),
        (f"unique counts ({n})", lambda: asc.unique(u, return_counts=True), lambda: np.unique(nu, return_counts=True)),
        (f"unique inverse ({n})", lambda: asc.unique(u, return_inverse=True),
         lambda: np.unique(nu, return_inverse=True)),
        (f"unique_all ({n})", lambda: asc.unique_all(u), lambda: np.unique_all(nu)),
        (f"unique axis=0 ({nr.shape[0]}x8)", lambda: asc.unique(r8, axis=0), lambda: np.unique(nr, axis=0)),
        (f"sort rows ({args.side}^2)", lambda: asc.sort(m, axis=-1), lambda: np.sort(nm, axis=-1)),
        (f"sort axis 0 ({args.side}^2)", lambda: asc.sort(m, axis=0), lambda: np.sort(nm, axis=0)),
        ("searchsorted (2^20 in n)", lambda: asc.searchsorted(s, v), lambda: np.searchsorted(ns, nv)),
        (f"random f64 ({n})", lambda: g.random(size), lambda: ng.random(size)),
        (f"random f32 ({n})", lambda: g.random(size, dtype=np.float32), lambda: ng.random(size, dtype=np.float32)),
        (f"uniform f64 ({n})", lambda: g.uniform(-2.0, 3.0, size), lambda: ng.uniform(-2.0, 3.0, size)),
        (f"normal f64 ({n})", lambda: g.standard_normal(size), lambda: ng.standard_normal(size)),
        (f"normal f32 ({n})", lambda: g.standard_normal(size, dtype=np.float32),
         lambda: ng.standard_normal(size, dtype=np.float32)),
        (f"integers i64 ({n})", lambda: g.integers(0, 1000, size), lambda: ng.integers(0, 1000, size)),
        ("pad mean (2048^2, 64)", lambda: asc.pad(pd, 64, "mean"), lambda: np.pad(npd, 64, "mean")),
        ("pad linear_ramp (2048^2)", lambda: asc.pad(pd, 64, "linear_ramp"), lambda: np.pad(npd, 64, "linear_ramp")),
    ]
    print(f"{'op':26s} {'pyasc ms':>9s} {'(best)':>8s} {'numpy ms':>9s} {'(best)':>8s} {'np/pyasc':>9s}")
    for name, f, h in cases:
        if args.only not in name:
            continue
        t, tb = timed(f, args.repeat)
        w, wb = timed(h, args.repeat)
        print(f"{name:26s} {t:9.2f} {tb:8.2f} {w:9.2f} {wb:8.2f} {w / t:9.2f}", flush=True)


if __name__ == "__main__":
    main()
