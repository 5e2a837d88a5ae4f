#!/usr/bin/env python3
"""Checks output/output_y.bin against its golden and the program's output
(output/run.log): block prefixes, printf text, DumpTensor format, the assert
report and the error code of the failed launch."""
import re
import sys

import numpy as np

from pyasc.utils import compare

BLOCKS, BLOCK_LENGTH = 4, 128


def fmt(v):
    return repr(float(v)).rstrip("0").rstrip(".") if float(v) != int(v) else str(int(v))


def expected_block_lines(x, y, b):
    p = f"[Block {b}/{BLOCKS}] "
    off = b * BLOCK_LENGTH
    xs = x[off:off + 20]
    return [
        p + f"block {b} of {BLOCKS}: elements [{off}, {off + BLOCK_LENGTH})",
        p + f"DumpTensor: desc={100 + b}, addr=0x0, data_type=float32, position=VECIN, dump_size=20",
        p + "[0] " + ", ".join(fmt(v) for v in xs[:16]),
        p + "[16] " + ", ".join(fmt(v) for v in xs[16:]),
        p + f"[0] " + ", ".join(fmt(v) for v in y[off:off + 4]),
        p + f"block {b} done, y[0] = {y[off]:f}",
    ]


def main():
    x = np.fromfile("input/input_x.bin", dtype=np.float32)
    out = np.fromfile("output/output_y.bin", dtype=np.float32)
    gold = np.fromfile("output/golden_y.bin", dtype=np.float32)
    report = compare(gold, out, rtol=0, atol=0)
    ok = report.passed
    if not ok:
        print(report)
    log = open("output/run.log").read().splitlines()
    for b in range(BLOCKS):
        mine = [l for l in log if l.startswith(f"[Block {b}/{BLOCKS}] ") and "[ASSERT]" not in l]
        gm_header = [l for l in mine if "position=GM" in l]
        mine = [l for l in mine if "position=GM" not in l]
        want = expected_block_lines(x, gold, b)
        if mine != want:
            print(f"block {b}: got\n  " + "\n  ".join(mine) + "\nwant\n  " + "\n  ".join(want))
            ok = False
        if len(gm_header) != 1 or not re.fullmatch(
                rf"\[Block {b}/4\] DumpTensor: desc={200 + b}, addr=0x[0-9a-f]+, data_type=float32, position=GM, "
                r"dump_size=4", gm_header[0]):
            print(f"block {b}: bad GM dump header {gm_header}")
            ok = False
    asserts = [l for l in log if "[ASSERT]" in l]
    pat = (r"\[Block (\d)/4\] \[ASSERT\] .*printf_dump_assert\.asc:\d+: Assertion `blockLength % TILE_LENGTH == 0' "
           r"failed\. blockLength 127 is not a multiple of 64")
    if not asserts or not all(re.fullmatch(pat, l) for l in asserts):
        print("bad assert report:", asserts)
        ok = False
    if "host: bad launch returned 507015" not in log:
        print("the failed launch did not return 507015")
        ok = False
    msg = [l for l in log if l.startswith("host: message: ")]
    if not msg or not re.search(r"\[square_custom\] block \d of 4 .*\[assert\] kernel 'square_custom' block \d of 4: "
                                r".*Assertion `blockLength % TILE_LENGTH == 0' failed", msg[0]):
        print("bad error message:", msg)
        ok = False
    print("test pass" if ok else "[ERROR] result error")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
