#!/usr/bin/env python3
"""Compares output/output.bin with the golden: float32 accumulation of K = 256
exact float16 products, then LeakyRelu (negative results scaled by 0.001)."""
import re
import sys

import numpy as np

from pyasc.utils import compare

M, N = 1024, 640
ALPHA = np.float32(0.001)


def main():
    out = np.fromfile("output/output.bin", dtype=np.float32)
    gold = np.fromfile("output/golden.bin", dtype=np.float32)
    if out.size != M * N:
        print(f"[ERROR] {out.size} results, expected {M * N}")
        return 1
    # Undo the alpha scaling on both sides, so that the negative results are
    # held to the same absolute precision as the positive ones.
    def unscale(c):
        return np.where(c < 0, c / ALPHA, c)
    report = compare(unscale(gold), unscale(out), rtol=1e-5, atol=5e-5)
    print(report)
    ok = report.passed
    # LeakyRelu really ran: negative results are small, positive ones untouched.
    neg = gold < -1e-3
    if ok and not (np.all(out[neg] < 0) and np.all(out[neg] > -0.1) and neg.sum() > M * N // 4):
        print("negative results were not scaled by alpha")
        ok = False
    log = open("output/run.log").read()
    m = re.search(r"tiling: (\d+) cores", log)
    if not m or int(m.group(1)) < 2:
        print("the tiling did not use several cores")
        ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
