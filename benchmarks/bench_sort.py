#!/usr/bin/env python3
"""Sorting, sets and random numbers: pyasc vs NumPy, measured in the same run.

2^24 float32 by default: sort, argsort (NumPy's default kind and its stable
one), unique, a 4096 x 4096 row-wise sort, searchsorted of 2^20 values, and
the random generators (uniform, normal, integers) against NumPy's
default_rng. Prints the best-of-N milliseconds and numpy_time / pyasc_time
(>= 1: pyasc at least as fast).

    python benchmarks/bench_sort.py [--repeat 3] [--log2n 24]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pyasc as asc


def best(fn, repeat):
    fn()  # warm up (pool segments, page faults)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--side", type=int, default=4096)
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
    cases = [
        (f"sort f32 ({n})", lambda: asc.sort(x), lambda: np.sort(nx)),
        (f"argsort f32 ({n})", lambda: asc.argsort(x), lambda: np.argsort(nx)),
        (f"argsort stable ({n})", lambda: asc.argsort(x, stable=True), lambda: np.argsort(nx, kind="stable")),
        (f"unique f32 ({n})", lambda: asc.unique(u), lambda: np.unique(nu)),
        (f"sort rows ({args.side}^2)", lambda: asc.sort(m, axis=-1), lambda: np.sort(nm, axis=-1)),
        (f"sort axis 0 ({args.side}^2)", lambda: asc.sort(m, axis=0), lambda: np.sort(nm, axis=0)),
        ("searchsorted (2^20 in n)", lambda: asc.searchsorted(s, v), lambda: np.searchsorted(ns, nv)),
        (f"random f64 ({n})", lambda: g.random(size), lambda: ng.random(size)),
        (f"normal f64 ({n})", lambda: g.standard_normal(size), lambda: ng.standard_normal(size)),
        (f"integers i64 ({n})", lambda: g.integers(0, 1000, size), lambda: ng.integers(0, 1000, size)),
    ]
    print(f"{'op':26s} {'pyasc ms':>9s} {'numpy ms':>9s} {'np/pyasc':>9s}")
    for name, f, h in cases:
        t = best(f, args.repeat)
        w = best(h, args.repeat)
        print(f"{name:26s} {t:9.2f} {w:9.2f} {w / t:9.2f}", flush=True)


if __name__ == "__main__":
    main()
