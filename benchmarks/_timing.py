"""Timing helper shared by the Python benchmarks (run as `python benchmarks/bench_x.py`)."""

from __future__ import annotations

import time


def best(fn, repeat):
    """Best of `repeat` timed calls of fn() in milliseconds, after one untimed warm-up call
    (pool segments, page faults)."""
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3


def interleaved(fns, repeat):
    """Best time (ms) of each of ``fns`` over ``repeat`` rounds that call every fn once in turn
    (after one warm-up call each): a burst of load from other processes hits all of them alike
    instead of whichever happened to be measured then."""
    for f in fns:
        f()
    ts = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, f in enumerate(fns):
            t0 = time.perf_counter()
            f()
            ts[i] = min(ts[i], time.perf_counter() - t0)
    return [t * 1e3 for t in ts]
