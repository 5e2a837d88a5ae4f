#!/usr/bin/env python3
"""Compares z with its golden exactly and the allocator cursors with the
documented layout."""
import sys

import numpy as np

from pyasc.utils import compare


def main():
    out = np.fromfile("output/output_z.bin", dtype=np.float32)
    gold = np.fromfile("output/golden_z.bin", dtype=np.float32)
    report = compare(gold, out, rtol=0, atol=0)
    ok = report.passed and out.size == 8 * 8 * 1024
    print(f"z: {'pass' if ok else 'FAIL'}")
    if not ok:
        print(report)
    addrs = np.fromfile("output/output_addrs.bin", dtype=np.uint32)
    want = np.fromfile("output/golden_addrs.bin", dtype=np.uint32)
    if not np.array_equal(addrs, want):
        print(f"allocator cursors: got {addrs.reshape(-1, 8)}, want {want.reshape(-1, 8)}")
        ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
