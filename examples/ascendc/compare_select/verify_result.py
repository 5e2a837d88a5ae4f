#!/usr/bin/env python3
"""Compares the selected values and the three bit masks with their goldens exactly."""
import sys

import numpy as np

from pyasc.utils import compare

N = 4 * 4096
CASES = {"z": (np.float32, N), "r": (np.float32, N), "mask_lt": (np.uint8, N // 8),
         "mask_ge": (np.uint8, N // 8), "mask_ne": (np.uint8, N // 8)}


def main():
    ok = True
    for case, (dtype, size) in CASES.items():
        out = np.fromfile(f"output/output_{case}.bin", dtype=dtype)
        gold = np.fromfile(f"output/golden_{case}.bin", dtype=dtype)
        report = compare(gold, out, rtol=0, atol=0)
        good = report.passed and out.size == size
        if dtype == np.float32 and good:
            # The selected element itself, not just an equal value: -0 vs +0 and NaN bits.
            good = np.array_equal(out.view(np.uint32), gold.view(np.uint32))
        print(f"{case}: {'pass' if good else 'FAIL'}")
        if not good:
            print(report)
            ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
