#!/usr/bin/env python3
"""Compares the reduce example's results: max/min values and indices exactly,
sums within float32 / float16 rounding of a different summation order."""
import sys

import numpy as np

from pyasc.utils import compare

BLOCK_DIM, RES_LENGTH = 4, 32
SUM_F = [0]          # reduce_f slots holding sums
SUM_H = [16]         # reduce_h slots holding sums


def check(name, dtype, size, sums=None, rtol=0.0, atol=0.0):
    out = np.fromfile(f"output/output_{name}.bin", dtype=dtype)
    gold = np.fromfile(f"output/golden_{name}.bin", dtype=dtype)
    if out.size != size or gold.size != size:
        print(f"{name}: FAIL (size {out.size}, expected {size})")
        return False
    exact = np.ones(size, bool)
    if sums is not None:
        exact[:] = True
        exact[sums] = False
    ok = True
    # Exact positions bit for bit (indices are integer bits, -0 stays -0).
    itype = np.uint32 if dtype == np.float32 else np.uint16
    same = out.view(itype)[exact] == gold.view(itype)[exact]
    nan_both = np.isnan(out[exact]) & np.isnan(gold[exact])
    if not np.all(same | nan_both):
        bad = np.nonzero(~(same | nan_both))[0][:10]
        print(f"{name}: exact slots differ at {bad}: got {out[exact][bad]}, want {gold[exact][bad]}")
        ok = False
    if sums is not None and np.any(~exact):
        report = compare(gold[~exact], out[~exact], rtol=rtol, atol=atol)
        if not report.passed:
            print(report)
            ok = False
    print(f"{name}: {'pass' if ok else 'FAIL'}")
    return ok


def main():
    slots_f = np.zeros(BLOCK_DIM * RES_LENGTH, bool)
    slots_h = np.zeros(BLOCK_DIM * RES_LENGTH, bool)
    for b in range(BLOCK_DIM):
        slots_f[[b * RES_LENGTH + s for s in SUM_F]] = True
        slots_h[[b * RES_LENGTH + s for s in SUM_H]] = True
    ok = True
    ok &= check("reduce_f", np.float32, BLOCK_DIM * RES_LENGTH, slots_f, rtol=1e-5, atol=1e-4)
    ok &= check("reduce_h", np.float16, BLOCK_DIM * RES_LENGTH, slots_h, rtol=2e-3, atol=0.1)
    ok &= check("whole_sum_f", np.float32, BLOCK_DIM * 32, np.ones(BLOCK_DIM * 32, bool), rtol=1e-5, atol=1e-5)
    ok &= check("whole_max_h", np.float16, BLOCK_DIM * 32)
    ok &= check("block_sum_f", np.float32, BLOCK_DIM * 256, np.ones(BLOCK_DIM * 256, bool), rtol=1e-6, atol=1e-6)
    ok &= check("block_max_h", np.float16, BLOCK_DIM * 128)
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
