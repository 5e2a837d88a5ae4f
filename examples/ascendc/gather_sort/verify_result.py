#!/usr/bin/env python3
"""Compares every gather_sort result with its golden bit for bit."""
import sys

import numpy as np

N = 4
CASES = {
    "gather": (np.uint32, N * 512),
    "transpose": (np.uint16, N * 512),
    "sort32_val": (np.uint32, N * 512),
    "sort32_idx": (np.uint32, N * 512),
    "sortall_val": (np.uint32, N * 128),
    "sortall_idx": (np.uint32, N * 128),
    "even": (np.uint32, N * 256),
    "picked": (np.uint32, N * 512),
    "counts": (np.uint32, N * 8),
}


def main():
    ok = True
    for case, (dtype, size) in CASES.items():
        out = np.fromfile(f"output/output_{case}.bin", dtype=dtype)
        gold = np.fromfile(f"output/golden_{case}.bin", dtype=dtype)
        good = out.size == size and gold.size == size and np.array_equal(out, gold)
        print(f"{case}: {'pass' if good else 'FAIL'}")
        if not good and out.size == gold.size:
            bad = np.nonzero(out != gold)[0]
            print(f"  {bad.size} differences, first at {bad[:8]}: got {out[bad[:8]]}, want {gold[bad[:8]]}")
        ok = ok and good
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
