#!/usr/bin/env python3
"""Large-array throughput of pyasc vs NumPy, measured in the same run.

2^24 float32 elements: a + b, a * 2, exp(a), sum(a), max(a); and sum over
each axis of a 4096x4096 float32 array; with --scalar, array-scalar ops
(a * 2, a + 1.5 (a + 3 for int32), 2 - a) on float32/float64/int32 (these run
the scalar-operand loop of src/ops/loops.h when PYASC_EAGER=1); with --fresh,
a * 2 into a new OS segment each time (empty_cache() first: first-touch page
faults; compare ASC_POOL_HUGEPAGES=0 and 1). Prints best-of-N milliseconds for
both and the ratio numpy_time / pyasc_time (>= 1 means pyasc is at least as
fast; the issue's target).

    python benchmarks/bench_array.py [--repeat 5] [--log2n 24] [--side 4096]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyasc as asc
from _timing import best




def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--side", type=int, default=4096)
    p.add_argument("--scalar", action="store_true", help="only the array-scalar cases")
    p.add_argument("--fresh", action="store_true", help="only the first-touch case (2^(log2n+1) float32)")
    args = p.parse_args()
    if args.scalar:
        return scalar_cases(args)
    if args.fresh:
        return fresh_case(args)

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


def fresh_case(args):
    import os

    n = 1 << (args.log2n + 1)
    na = np.ones(n, np.float32)
    a = asc.array(na)

    def pyasc_once():
        asc.empty_cache()  # the result needs a new segment: every page is touched first here
        asc.eval(a * 2)

    t = best(pyasc_once, args.repeat)
    u = best(lambda: na * 2, args.repeat)
    hp = os.environ.get("ASC_POOL_HUGEPAGES", "1")
    print(f"fresh a * 2 (2^{args.log2n + 1} f32, ASC_POOL_HUGEPAGES={hp}): pyasc {t:.3f} ms numpy {u:.3f} ms "
          f"np/pyasc {u / t:.2f}")
    return 0


def scalar_cases(args):
    rng = np.random.default_rng(1)
    n = f"2^{args.log2n}"
    print(f"eager={asc.is_eager()}")
    print(f"{'op':26s} {'pyasc ms':>9s} {'numpy ms':>9s} {'np/pyasc':>9s}")
    for dt in ("float32", "float64", "int32"):
        if dt == "int32":
            nx = rng.integers(-1000, 1000, 1 << args.log2n, dtype=np.int32)
            c = 3
        else:
            nx = rng.standard_normal(1 << args.log2n).astype(dt)
            c = 1.5
        x = asc.array(nx)
        cases = [
            (f"a * 2 {dt}", lambda: asc.eval(x * 2), lambda: nx * 2),
            (f"a + {c} {dt}", lambda: asc.eval(x + c), lambda: nx + c),
            (f"2 - a {dt}", lambda: asc.eval(2 - x), lambda: 2 - nx),
        ]
        for name, f, g in cases:
            t = best(f, args.repeat)
            u = best(g, args.repeat)
            print(f"{name:26s} {t:9.3f} {u:9.3f} {u / t:9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
