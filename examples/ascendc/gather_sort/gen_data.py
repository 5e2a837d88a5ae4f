#!/usr/bin/env python3
"""Inputs and golden outputs of the gather_sort example.

Sort32 / Sort order: descending by value, NaN first, equal values (+0 and -0
included) in input order.
"""
import os

import numpy as np

BLOCK_DIM = 4
LENGTH = 512
MAT_LENGTH = 512
FULL_SORT = 128
PICK_COUNT = 300
PATTERN_WORDS = 40


def sort_desc(values, indices):
    order = sorted(range(len(values)), key=lambda i: (0 if np.isnan(values[i]) else 1, -float(values[i])))
    return values[order], indices[order]


def gather_mask(x, lanes_on, count=None):
    """Elements of x whose lane bit is set, repeat by repeat (64 lanes)."""
    n = len(x) if count is None else count
    return np.array([x[i] for i in range(n) if lanes_on(i)], dtype=x.dtype)


def main():
    rng = np.random.default_rng(9)
    n = BLOCK_DIM * LENGTH
    x = rng.integers(-40, 40, n).astype(np.float32) / 4  # many ties
    for b in range(BLOCK_DIM):
        o = b * LENGTH
        x[o:o + 8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1.0, -0.0]
        x[o + 40] = np.nan
        x[o + 100:o + 104] = [3e38, -3e38, 1e-45, -1e-45]
    offsets = np.concatenate([rng.permutation(LENGTH) for _ in range(BLOCK_DIM)]).astype(np.uint32)
    offsets[5] = offsets[6] = 9  # the same element twice
    m = rng.uniform(-1000, 1000, BLOCK_DIM * MAT_LENGTH).astype(np.float16)
    pattern_bits = rng.integers(0, 2, (BLOCK_DIM, PATTERN_WORDS * 32)).astype(np.uint8)
    pattern = np.packbits(pattern_bits, axis=1, bitorder="little").view(np.uint32)

    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    (offsets * 4).astype(np.uint32).tofile("input/input_offsets.bin")
    m.tofile("input/input_m.bin")
    pattern.tofile("input/input_pattern.bin")

    g = {k: [] for k in ("gather", "transpose", "sort32_val", "sort32_idx", "sortall_val", "sortall_idx", "even",
                         "picked", "counts")}
    for b in range(BLOCK_DIM):
        xb = x[b * LENGTH:(b + 1) * LENGTH]
        idx = np.arange(b * LENGTH, (b + 1) * LENGTH, dtype=np.uint32)
        g["gather"].append(xb[offsets[b * LENGTH:(b + 1) * LENGTH]])
        mb = m[b * MAT_LENGTH:(b + 1) * MAT_LENGTH].reshape(2, 16, 16)
        g["transpose"].append(mb.transpose(0, 2, 1).reshape(-1))
        vals, ids = [], []
        for s in range(0, LENGTH, 32):
            v, i = sort_desc(xb[s:s + 32], idx[s:s + 32])
            vals.append(v)
            ids.append(i)
        g["sort32_val"].append(np.concatenate(vals))
        g["sort32_idx"].append(np.concatenate(ids))
        v, i = sort_desc(xb[:FULL_SORT], idx[:FULL_SORT])
        g["sortall_val"].append(v)
        g["sortall_idx"].append(i)
        even = gather_mask(xb, lambda i: i % 64 % 2 == 0)
        g["even"].append(even)
        bits = pattern_bits[b]
        # Counter mode, CANN's configuration one (A2/A3/950): repeatTimes (1) repeats of PICK_COUNT
        # elements each, the pattern's bits consumed continuously: element i reads bit i.
        picked = gather_mask(xb, lambda i: bits[i] == 1, PICK_COUNT)
        g["picked"].append(np.concatenate([picked, np.zeros(LENGTH - picked.size, np.float32)]))
        counts = np.zeros(8, np.uint32)
        counts[0], counts[1] = even.size, picked.size
        g["counts"].append(counts)
    for k, parts in g.items():
        np.concatenate(parts).tofile(f"output/golden_{k}.bin")


if __name__ == "__main__":
    main()
