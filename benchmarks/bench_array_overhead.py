#!/usr/bin/env python3
"""Per-op overhead of pyasc arrays vs NumPy on tiny (10-element) float32 arrays.

Prints, for each op, the best-of-N time per call of pyasc and of NumPy,
measured in the same run, and the ratio. Target (issue 3, eager path):
<= 1.5 us per op, or <= 3x NumPy's time. The lazy column records the op and
runs it (``asc.eval``) as a one-node graph; target (issue 4): <= 2x eager
(the lazy path aims at <= 1.5x).

    python benchmarks/bench_array_overhead.py [--number 20000] [--repeat 7] [--timer wall|thread|both]

``--timer thread`` measures the calling thread's CPU time instead of wall
time: on a loaded machine wall time mostly measures the other processes.
``both`` prints one table per timer from the same samples. The eager, lazy
and NumPy loops of an op are interleaved repeat by repeat, so a load change
during the run hits all three alike; each column is the best repeat.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pyasc as asc


def sample(fn, number):
    """(wall, thread CPU) seconds per call of `number` calls of fn."""
    loop = range(number)
    w0, c0 = time.perf_counter(), time.thread_time()
    for _ in loop:
        fn()
    return (time.perf_counter() - w0) / number, (time.thread_time() - c0) / number


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--size", type=int, default=10)
    p.add_argument("--timer", choices=["wall", "thread", "both"], default="wall")
    args = p.parse_args()

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
    ev = asc.eval
    results = []
    for name, f, g in cases:
        def lazy(f=f):
            return ev(f())

        best = {k: [float("inf"), float("inf")] for k in ("eager", "lazy", "numpy")}
        for _ in range(args.repeat):
            with asc.lazy.eager(True):
                f()
                s = sample(f, args.number)
            best["eager"] = [min(x, y) for x, y in zip(best["eager"], s)]
            lazy()
            s = sample(lazy, args.number)
            best["lazy"] = [min(x, y) for x, y in zip(best["lazy"], s)]
            g()
            s = sample(g, args.number)
            best["numpy"] = [min(x, y) for x, y in zip(best["numpy"], s)]
        results.append((name, best))

    timers = ["wall", "thread"] if args.timer == "both" else [args.timer]
    for timer in timers:
        k = 0 if timer == "wall" else 1
        print(f"[{timer} time, best of {args.repeat} x {args.number}]")
        print(f"{'op':10s} {'eager us':>9s} {'numpy us':>9s} {'ratio':>6s} {'target':>6s} {'lazy us':>8s} {'lazy/eager':>10s}")
        worst = 0.0
        for name, best in results:
            t, tl, u = best["eager"][k] * 1e6, best["lazy"][k] * 1e6, best["numpy"][k] * 1e6
            ok = "ok" if (t <= 1.5 or t <= 3 * u) else "MISS"
            okl = "ok" if tl <= 2 * t else "MISS"
            worst = max(worst, tl / t)
            print(f"{name:10s} {t:9.3f} {u:9.3f} {t / u:6.2f} {ok:>6s} {tl:8.3f} {tl / t:7.2f} {okl}")
        print(f"worst lazy/eager: {worst:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
