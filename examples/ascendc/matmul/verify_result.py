#!/usr/bin/env python3
"""Compares output/output.bin with the float64 golden (float32 accumulation
of K = 200 exact float16 products)."""
import re
import sys

import numpy as np

from pyasc.utils import compare

M, N = 500, 330


def main():
    out = np.fromfile("output/output.bin", dtype=np.float32)
    gold = np.fromfile("output/golden.bin", dtype=np.float32)
    report = compare(gold, out, rtol=1e-5, atol=5e-5)
    print(report)
    ok = report.passed and out.size == M * N
    # The tiling must really split the work over several blocks.
    log = open("output/run.log").read()
    m = re.search(r"tiling: (\d+) cores", log)
    if not m or int(m.group(1)) < 2:
        print("the tiling did not use several cores:", m.group(0) if m else log[:200])
        ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
