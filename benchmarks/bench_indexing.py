#!/usr/bin/env python3
"""Gather/scatter throughput of pyasc vs NumPy, measured in the same run.

2^22 float32 elements: fancy-index gather x[idx] (random int64 indices),
boolean-mask selection x[x > 0], take(x, idx), a 2-d row gather x2[rows],
and the scatter x[idx] = v. Prints best-of-N milliseconds for both and the
ratio numpy_time / pyasc_time (>= 1: pyasc at least as fast).

    python benchmarks/bench_indexing.py [--repeat 7] [--log2n 22]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyasc as asc
from _timing import best




def done(r):
    """Materialises a pyasc result (np.asarray is a zero-copy view)."""
    np.asarray(r)
    return r


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--log2n", type=int, default=22)
    args = p.parse_args()
    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    nx = rng.standard_normal(n).astype(np.float32)
    nidx = rng.integers(0, n, n)
    nmask = nx > 0
    nx2 = nx.reshape(-1, 64)
    nrows = rng.integers(0, nx2.shape[0], nx2.shape[0])
    nv = rng.standard_normal(n).astype(np.float32)
    x, idx, mask, x2, rows, v = (asc.array(a) for a in (nx, nidx, nmask, nx2, nrows, nv))
    y, ny = asc.array(nx), nx.copy()

    def scatter_asc():
        y[idx] = v
        return done(y)

    def scatter_np():
        ny[nidx] = nv

    tag = f"2^{args.log2n}"
    cases = [
        (f"x[idx] ({tag})", lambda: done(x[idx]), lambda: nx[nidx]),
        (f"x[mask] ({tag})", lambda: done(x[mask]), lambda: nx[nmask]),
        (f"take(x, idx) ({tag})", lambda: done(asc.take(x, idx)), lambda: np.take(nx, nidx)),
        (f"x2[rows] ({nx2.shape[0]}x64)", lambda: done(x2[rows]), lambda: nx2[nrows]),
        (f"x[idx] = v ({tag})", scatter_asc, scatter_np),
    ]
    print(f"{'op':28s} {'pyasc ms':>9s} {'numpy ms':>9s} {'np/pyasc':>9s}")
    for name, f, g in cases:
        t = best(f, args.repeat)
        u = best(g, args.repeat)
        print(f"{name:28s} {t:9.3f} {u:9.3f} {u / t:9.2f}")


if __name__ == "__main__":
    main()
