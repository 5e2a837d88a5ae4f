#!/usr/bin/env python3
"""Per-op overhead of pyasc arrays vs NumPy on tiny (10-element) float32 arrays.

Prints, for each op, the best-of-N time per call of pyasc and of NumPy,
measured in the same run, and the ratio. Target (issue 3, eager path):
<= 1.5 us per op, or <= 3x NumPy's time. The lazy column records the op and
runs it (``asc.eval``) as a one-node graph; target (issue 4): <= 2x eager.

    python benchmarks/bench_array_overhead.py [--number 20000] [--repeat 7] [--timer thread]

``--timer thread`` measures the calling thread's CPU time instead of wall
time: on a loaded machine wall time mostly measures the other processes.
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

import pyasc as asc


TIMER = time.perf_counter


def bench(fn, number, repeat):
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=TIMER)) / number * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--size", type=int, default=10)
    p.add_argument("--timer", choices=["wall", "thread"], default="wall")
    args = p.parse_args()
    global TIMER
    TIMER = time.thread_time if args.timer == "thread" else time.perf_counter

    na = np.arange(args.size, dtype=np.float32)
    nb = na[::-1].copy()
    a, b = asc.array(na), asc.array(nb)
    cases = [
        ("a + b", lambda: a + b, lambda: na + nb),
        ("a * 2", lambda: a * 2, lambda: na * 2),
        ("a.sum()", lambda: a.sum(), lambda: na.sum()),
        ("a - 1.5", lambda: a - 1.5, lambda: na - 1.5),
        ("a < b", lambda: a < b, lambda: na < nb),
        ("exp(a)", lambda: asc.exp(a), lambda: np.exp(na)),
        ("a.max()", lambda: a.max(), lambda: na.max()),
        ("a[1:5]", lambda: a[1:5], lambda: na[1:5]),
    ]
    print(f"{'op':10s} {'eager us':>9s} {'numpy us':>9s} {'ratio':>6s} {'target':>6s} {'lazy us':>8s} {'lazy/eager':>10s}")
    for name, f, g in cases:
        with asc.lazy.eager(True):
            f()
            t = bench(f, args.number, args.repeat)
        def lazy(f=f):
            return asc.eval(f())
        lazy()
        tl = bench(lazy, args.number, args.repeat)
        g()
        u = bench(g, args.number, args.repeat)
        ok = "ok" if (t <= 1.5 or t <= 3 * u) else "MISS"
        okl = "ok" if tl <= 2 * t else "MISS"
        print(f"{name:10s} {t:9.3f} {u:9.3f} {t / u:6.2f} {ok:>6s} {tl:8.3f} {tl / t:7.2f} {okl}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
