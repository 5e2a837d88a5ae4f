#!/usr/bin/env python3
"""Inputs and golden outputs of the local_mem_allocator example."""
import os

import numpy as np

BLOCK_DIM = 8
TOTAL_LENGTH = BLOCK_DIM * 8 * 1024
TILE_BYTES = 1024 * 4


def main():
    rng = np.random.default_rng(21)
    x = rng.uniform(-10, 10, TOTAL_LENGTH).astype(np.float32)
    y = rng.uniform(-10, 10, TOTAL_LENGTH).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, np.nan, 1e20, -1e20]
    y[:6] = [-0.0, -0.0, 1.0, 1.0, -1e20, 1e20]
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    y.tofile("input/input_y.bin")
    with np.errstate(all="ignore"):
        z = ((x - y) * x + y).astype(np.float32)  # float32 at every step, as the kernel
    z.tofile("output/golden_z.bin")
    # Cursor after: 4 input tiles, 2 output tiles, 1026 floats (4104 bytes,
    # rounded up to 4128 = 129 * 32), 8 uint32; then the position bits (all 3 set).
    cursors = [4 * TILE_BYTES, 6 * TILE_BYTES, 6 * TILE_BYTES + 4128, 6 * TILE_BYTES + 4128 + 32, 7, 0, 0, 0]
    np.tile(np.array(cursors, np.uint32), BLOCK_DIM).tofile("output/golden_addrs.bin")


if __name__ == "__main__":
    main()
