#!/usr/bin/env python3
"""Compares output/output_<case>.bin with output/golden_<case>.bin exactly (sign of zero too)."""
import sys

import numpy as np

from pyasc.utils import compare

CASES = {"f32_neg_zero": np.float32, "f32": np.float32, "f16": np.float16, "f16_nan": np.float16,
         "s32": np.int32, "s16": np.int16}


def main():
    ok = True
    for case, dtype in CASES.items():
        out = np.fromfile(f"output/output_{case}.bin", dtype=dtype)
        gold = np.fromfile(f"output/golden_{case}.bin", dtype=dtype)
        report = compare(gold, out, rtol=0, atol=0)
        # compare() treats -0 == +0; Duplicate must keep the sign bit too.
        same_bits = out.size == gold.size and (np.isnan(gold).all() or np.array_equal(out.view(np.uint8),
                                                                                      gold.view(np.uint8)))
        print(f"{case}: {'pass' if report.passed and same_bits else 'FAIL'}")
        if not (report.passed and same_bits):
            print(report)
            ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
