#!/usr/bin/env python3
"""Compares every output/output_<case>.bin with output/golden_<case>.bin exactly."""
import sys

import numpy as np

from pyasc.utils import compare

CASES = {
    "f32_f16_none": np.float16,
    "f32_f16_odd": np.float16,
    "f16_s32_rint": np.int32,
    "f16_s32_floor": np.int32,
    "f16_s32_ceil": np.int32,
    "f16_s32_round": np.int32,
    "f16_s32_trunc": np.int32,
    "f32_s32_trunc": np.int32,
    "s32_f32_none": np.float32,
}


def main():
    ok = True
    for case, dtype in CASES.items():
        out = np.fromfile(f"output/output_{case}.bin", dtype=dtype)
        gold = np.fromfile(f"output/golden_{case}.bin", dtype=dtype)
        report = compare(gold, out, rtol=0, atol=0)
        print(f"{case}: {'pass' if report.passed else 'FAIL'}")
        if not report.passed or out.size != 4 * 1024:
            print(report)
            ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
