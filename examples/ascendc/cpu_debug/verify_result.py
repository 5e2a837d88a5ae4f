#!/usr/bin/env python3
"""Compares output/output_z.bin with output/golden.bin (Muls then Add: exact in float32)."""
import sys

import numpy as np

from pyasc.utils import compare

if __name__ == "__main__":
    out = np.fromfile("output/output_z.bin", dtype=np.float32)
    gold = np.fromfile("output/golden.bin", dtype=np.float32)
    report = compare(gold, out, rtol=0, atol=0)
    print(report)
    ok = report.passed and out.size == 8 * 2048
    print("test pass" if ok else "[ERROR] result error")
    sys.exit(0 if ok else 1)
