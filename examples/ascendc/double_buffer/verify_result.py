#!/usr/bin/env python3
"""Compares output/output_z.bin with output/golden.bin exactly."""
import sys

import numpy as np

from pyasc.utils import compare

if __name__ == "__main__":
    out = np.fromfile("output/output_z.bin", dtype=np.float32)
    gold = np.fromfile("output/golden.bin", dtype=np.float32)
    report = compare(gold, out, rtol=0, atol=0)
    print(report)
    print("test pass" if report.passed else "[ERROR] result error")
    sys.exit(0 if report.passed else 1)
