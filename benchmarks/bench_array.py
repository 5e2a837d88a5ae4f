#!/usr/bin/env python3
"""Large-array throughput of pyasc vs NumPy, measured in the same run.

2^24 float32 elements: a + b, a * 2, exp(a), sum(a), max(a); and sum over
each axis of a 4096x4096 float32 array. Prints best-of-N milliseconds for
both and the ratio numpy_time / pyasc_time (>= 1 means pyasc is at least as
fast; the issue's target).

    python benchmarks/bench_array.py [--repeat 5] [--log2n 24] [--side 4096]
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
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--side", type=int, default=4096)
    args = p.parse_args()

    rng = np.random.default_rng(0)
    na = rng.standard_normal(1 << args.log2n).astype(np.float32)
    nb = rng.standard_normal(1 << args.log2n).astype(np.float32)
    nm = rng.standard_normal((args.side, args.side)).astype(np.float32)
    a, b, m = asc.array(na), asc.array(nb), asc.array(nm)
    n = f"2^{args.log2n}"
    s = f"{args.side}x{args.side}"
    cases = [
        (f"a + b ({n})", lambda: asc.eval(a + b), lambda: na + nb),
        (f"a * 2 ({n})", lambda: asc.eval(a * 2), lambda: na * 2),
        (f"exp(a) ({n})", lambda: asc.eval(asc.exp(a)), lambda: np.exp(na)),
        (f"sum(a) ({n})", lambda: asc.eval(asc.sum(a)), lambda: np.sum(na)),
        (f"max(a) ({n})", lambda: asc.eval(asc.max(a)), lambda: np.max(na)),
        (f"sum axis 0 ({s})", lambda: asc.eval(asc.sum(m, axis=0)), lambda: np.sum(nm, axis=0)),
        (f"sum axis 1 ({s})", lambda: asc.eval(asc.sum(m, axis=1)), lambda: np.sum(nm, axis=1)),
    ]
    print(f"{'op':26s} {'pyasc ms':>9s} {'numpy ms':>9s} {'np/pyasc':>9s}")
    for name, f, g in cases:
        t = best(f, args.repeat)
        u = best(g, args.repeat)
        print(f"{name:26s} {t:9.3f} {u:9.3f} {u / t:9.2f}")
    # Accuracy of the float32 sum next to NumPy's pairwise sum (float64 reference).
    ref = float(np.sum(na, dtype=np.float64))
    print(f"sum error vs float64: pyasc {abs(float(asc.sum(a)) - ref):.3g}  numpy {abs(float(np.sum(na)) - ref):.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
