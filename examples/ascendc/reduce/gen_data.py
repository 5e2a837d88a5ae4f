#!/usr/bin/env python3
"""Inputs and golden outputs of the reduce example.

Sums are computed in float64 and rounded to the element type (the kernel's
order of additions differs, so verify_result.py compares sums with a
tolerance); max/min and their indices (first occurrence; a NaN wins and its
first position is the index) are exact.
"""
import os

import numpy as np

BLOCK_DIM = 4
F_ROWS, F_COLS = 32, 64
H_ROWS, H_COLS = 16, 128
REDUCE_COUNT = 2000
RES_LENGTH = 32


def idx_bits(i, dtype):
    """An index stored as the integer bits of an element of `dtype`."""
    itype = np.uint32 if dtype == np.float32 else np.uint16
    return np.array([i], dtype=itype).view(dtype)[0]


def fsum(a, dtype):
    return dtype(np.sum(a.astype(np.float64)))


def block_goldens(xf, xh):
    f, h = np.float32, np.float16
    rf = np.zeros(RES_LENGTH, f)
    a = xf[:REDUCE_COUNT]
    rf[0] = fsum(a, f)
    rf[8], rf[9] = np.max(a), idx_bits(np.argmax(a), f)
    rf[16], rf[17] = np.min(a), idx_bits(np.argmin(a), f)
    rf[24], rf[25] = np.min(xf), idx_bits(np.argmin(xf), f)
    rh = np.zeros(RES_LENGTH, h)
    rh[0], rh[1] = np.max(xh), idx_bits(np.argmax(xh), h)
    rh[16] = fsum(xh, h)
    rows_f = xf.reshape(F_ROWS, F_COLS)
    rows_h = xh.reshape(H_ROWS, H_COLS)
    whole_sum = np.array([fsum(r, f) for r in rows_f], f)
    whole_max = np.zeros(2 * H_ROWS, h)
    whole_max[0::2] = rows_h.max(axis=1)
    whole_max[1::2] = np.array([idx_bits(i, h) for i in rows_h.argmax(axis=1)], h)
    block_sum = xf.astype(np.float64).reshape(-1, 8).sum(axis=1).astype(f)
    block_max = xh.reshape(-1, 16).max(axis=1)
    return {"reduce_f": rf, "reduce_h": rh, "whole_sum_f": whole_sum, "whole_max_h": whole_max,
            "block_sum_f": block_sum, "block_max_h": block_max}


def main():
    rng = np.random.default_rng(3)
    xf = rng.uniform(-10, 10, BLOCK_DIM * F_ROWS * F_COLS).astype(np.float32)
    xh = rng.uniform(-10, 10, BLOCK_DIM * H_ROWS * H_COLS).astype(np.float16)
    fl, hl = F_ROWS * F_COLS, H_ROWS * H_COLS
    # Block 0: plain values with a repeated maximum (the first one's index counts).
    xf[100] = xf[1500] = 50.0
    xf[7] = xf[1999] = -50.0
    xh[300] = xh[1300] = 20.0
    # Block 1: the count form's minimum sits at its last tile (index 1990);
    # the mask/repeat ReduceMin over all rows finds -Inf beyond REDUCE_COUNT.
    xf[fl + 1990] = -1e30
    xf[fl + 5] = np.inf
    xf[fl + 2040] = -np.inf
    xh[hl + 17] = -np.inf
    xh[hl + 1000] = np.inf
    # Block 2: NaN wins max and min (first NaN position), in row 3 and block 26.
    xf[2 * fl + 200] = np.nan
    xf[2 * fl + 210] = np.nan
    xh[2 * hl + 400] = np.nan
    # Block 3: -0 / +0 only rows for the sums and a row of equal values.
    xf[3 * fl + 64:3 * fl + 128] = 0.0
    xf[3 * fl + 64:3 * fl + 96] = -0.0
    xh[3 * hl + 128:3 * hl + 256] = 2.5
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    xf.tofile("input/input_xf.bin")
    xh.tofile("input/input_xh.bin")
    gold = {}
    with np.errstate(invalid="ignore"):
        for b in range(BLOCK_DIM):
            for k, v in block_goldens(xf[b * fl:(b + 1) * fl], xh[b * hl:(b + 1) * hl]).items():
                gold.setdefault(k, []).append(v)
    for k, parts in gold.items():
        np.concatenate(parts).tofile(f"output/golden_{k}.bin")


if __name__ == "__main__":
    main()
