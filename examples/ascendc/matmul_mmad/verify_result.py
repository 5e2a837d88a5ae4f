#!/usr/bin/env python3
"""Compares output/output.bin with the float64 golden: float32 accumulation
of K = 256 products of float16 values (each product exact in float32)."""
import sys

import numpy as np

from pyasc.utils import compare

M, N = 128, 256


def main():
    out = np.fromfile("output/output.bin", dtype=np.float32)
    gold = np.fromfile("output/golden.bin", dtype=np.float32)
    report = compare(gold, out, rtol=1e-5, atol=5e-5)
    print(report)
    ok = report.passed and out.size == M * N
    # Row 5 x column 9: integer products and an integer sum, exact (plus the bias).
    g = gold.reshape(M, N)
    o = out.reshape(M, N)
    if ok and o[5, 9] != g[5, 9]:
        print(f"C[5, 9] = {o[5, 9]}, want exactly {g[5, 9]}")
        ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
