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
