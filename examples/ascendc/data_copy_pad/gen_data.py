#!/usr/bin/env python3
"""Inputs and goldens of the data_copy_pad example."""
import os

import numpy as np

BLOCK_DIM, ROWS, COLS, PER_BLOCK = 4, 16, 37, 256

if __name__ == "__main__":
    rng = np.random.default_rng(11)
    x = rng.uniform(-10, 10, (ROWS, COLS)).astype(np.float32)
    s = rng.uniform(-10, 10, BLOCK_DIM * PER_BLOCK).astype(np.float32)
    t = np.full(BLOCK_DIM * PER_BLOCK, 7.0, np.float32)
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    s.tofile("input/input_s.bin")
    t.tofile("input/input_t.bin")
    (x * np.float32(2) + np.float32(1)).tofile("output/golden_y.bin")
    # Even 32-byte blocks (8 floats) of s, negated, land in the even blocks of t.
    blocks = t.reshape(-1, 8).copy()
    blocks[0::2] = -s.reshape(-1, 8)[0::2]
    blocks.reshape(-1).tofile("output/golden_t.bin")
