#!/usr/bin/env python3
"""Compares each output/output_<case>.bin with output/golden_<case>.bin exactly
(NaN must meet NaN; untouched lanes must still hold the sentinel)."""
import sys

import numpy as np

from pyasc.utils import compare

N = 4 * 1024
CASES = {
    "add_h": (np.float16, N),
    "mul_f": (np.float32, N),
    "sub_f": (np.float32, 4 * 512),
    "muls_h": (np.float16, N),
    "max_h": (np.float16, N),
    "relu_f": (np.float32, N),
    "lrelu_h": (np.float16, N),
    "div_f": (np.float32, N),
}


def main():
    ok = True
    for case, (dtype, size) in CASES.items():
        out = np.fromfile(f"output/output_{case}.bin", dtype=dtype)
        gold = np.fromfile(f"output/golden_{case}.bin", dtype=dtype)
        report = compare(gold, out, rtol=0, atol=0)
        good = report.passed and out.size == size and gold.size == size
        # Signed zeros must match too (compare() treats -0 == +0).
        good = good and np.array_equal(np.signbit(out[out == 0]), np.signbit(gold[out == 0]))
        print(f"{case}: {'pass' if good else 'FAIL'}")
        if not good:
            print(report)
            ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
