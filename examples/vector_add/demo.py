"""pyasc demo: an operator written in the Ascend C model, called from Python.

Runs vector_add (kernels/vector_add.cpp: GlobalTensor, TPipe, TQue, DataCopy,
Add, double buffering, one block per AI core) on the CPU device, checks it
against NumPy and shows the device, the pool and the throughput.
"""
import time

import numpy as np

import pyasc as asc
import ascend_ops


def main():
    props = asc.get_device_properties()
    print(f"pyasc {asc.__version__} - device '{props.name}': {props.num_cores} AI cores, "
          f"UB {props.ub_size // 1024} KiB/core, L1 {props.l1_size // 1024} KiB, "
          f"L0A/L0B/L0C {props.l0a_size // 1024}/{props.l0b_size // 1024}/{props.l0c_size // 1024} KiB")
    n = 1 << 24
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)

    z = ascend_ops.vector_add(a, b)
    expected = a + b
    ok = np.array_equal(z, expected)
    print(f"vector_add of {n:,} float32: matches NumPy: {ok}")

    reps = 10
    t0 = time.perf_counter()
    for _ in range(reps):
        z = ascend_ops.vector_add(a, b)
    t_asc = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        expected = a + b
    t_np = (time.perf_counter() - t0) / reps
    gbs = 3 * 4 * n / t_asc / 1e9
    print(f"pyasc vector_add: {t_asc * 1e3:.2f} ms ({gbs:.1f} GB/s); NumPy a + b: {t_np * 1e3:.2f} ms; "
          f"ratio {t_np / t_asc:.2f}x")
    stats = asc.memory_stats()
    print(f"memory pool: {stats['allocated_bytes']:,} B allocated, {stats['reserved_bytes']:,} B reserved, "
          f"{stats['cache_hits']} cache hits, {stats['os_allocations']} OS allocations")
    if not ok:
        raise SystemExit("vector_add result differs from NumPy")


if __name__ == "__main__":
    main()
