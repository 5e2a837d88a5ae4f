#!/usr/bin/env python3
"""Vector math throughput of pyasc vs NumPy, measured in the same run.

exp, log, sin, cos, tanh and erf on 2^24 float32 and float64 elements
(standard normal inputs; |x| for log). Prints the median and best
milliseconds of both and the ratio numpy_time / pyasc_time (> 1: pyasc is
faster). NumPy has no erf: its peer is scipy.special.erf when SciPy is
installed, else the column says n/a. ``ASC_NUM_CORES=1`` shows the
single-core figures.

    python benchmarks/bench_vector_math.py [--repeat 7] [--log2n 24] [--ops exp,sin]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import pyasc as asc

try:  # optional peer for erf
    from scipy import special as _special
except ImportError:  # pragma: no cover - depends on the environment
    _special = None


def _materialise(r):
    # Lazy pyasc arrays (issue 4) compute when observed; force it so the
    # timing covers the work.
    ev = getattr(r, "eval", None)
    if callable(ev):
        ev()
    sync = getattr(asc, "synchronize", None)
    if callable(sync):
        sync()


def timed(fn, repeat):
    fn()  # warm up (pool segments, page faults, dispatch tables)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3, min(ts) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--ops", default="exp,log,sin,cos,tanh,erf")
    args = p.parse_args()

    rng = np.random.default_rng(0)
    base = rng.standard_normal(1 << args.log2n)
    print(f"n = 2^{args.log2n}, repeat {args.repeat}; times in ms (median / best); ratio = numpy / pyasc (median)")
    print(f"{'op':8s} {'dtype':8s} {'pyasc':>17s} {'numpy':>17s} {'ratio':>7s}")
    for dtype in (np.float32, np.float64):
        for op in args.ops.split(","):
            x = np.abs(base).astype(dtype) if op == "log" else base.astype(dtype)
            ax = asc.array(x)
            fa = getattr(asc, op)

            def run_asc(fa=fa, ax=ax):
                _materialise(fa(ax))

            if op == "erf":
                fn = _special.erf if _special is not None else None
            else:
                fn = getattr(np, op)
            ta = timed(run_asc, args.repeat)
            if fn is None:
                print(f"{op:8s} {np.dtype(dtype).name:8s} {ta[0]:8.2f} /{ta[1]:7.2f} {'n/a':>17s} {'n/a':>7s}")
                continue
            tn = timed(lambda fn=fn, x=x: fn(x), args.repeat)
            print(f"{op:8s} {np.dtype(dtype).name:8s} {ta[0]:8.2f} /{ta[1]:7.2f} {tn[0]:8.2f} /{tn[1]:7.2f} "
                  f"{tn[0] / ta[0]:7.2f}")


if __name__ == "__main__":
    main()
