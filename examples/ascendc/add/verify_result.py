#!/usr/bin/env python3
"""Compares output/output_z.bin with output/golden.bin (float16, bit-exact rounding)."""
import sys

import numpy as np

from pyasc.utils import compare


def verify_result(output_file, golden_file):
    output = np.fromfile(output_file, dtype=np.float16)
    golden = np.fromfile(golden_file, dtype=np.float16)
    report = compare(golden, output, rtol=0, atol=0)
    print(report)
    if not report.passed or output.size != 8 * 2048:
        print("[ERROR] result error")
        return False
    print("test pass")
    return True


if __name__ == "__main__":
    args = sys.argv[1:] or ["./output/output_z.bin", "./output/golden.bin"]
    sys.exit(0 if verify_result(*args) else 1)
