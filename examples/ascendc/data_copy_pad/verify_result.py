#!/usr/bin/env python3
"""Compares output/output_{y,t}.bin with their goldens exactly."""
import sys

import numpy as np

from pyasc.utils import compare


def main():
    ok = True
    for name in ("y", "t"):
        out = np.fromfile(f"output/output_{name}.bin", dtype=np.float32)
        gold = np.fromfile(f"output/golden_{name}.bin", dtype=np.float32)
        report = compare(gold, out, rtol=0, atol=0)
        print(f"{name}: {'pass' if report.passed else 'FAIL'}")
        if not report.passed:
            print(report)
            ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
