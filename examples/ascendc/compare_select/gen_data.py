#!/usr/bin/env python3
"""Inputs and golden outputs of the compare_select example (float32).

Bit i of a mask (bit i % 8 of byte i // 8, little-endian bit order) is the
comparison of element i; NaN compares false except with NE.
"""
import os

import numpy as np

N = 4 * 4096


def main():
    rng = np.random.default_rng(5)
    x = rng.uniform(-10, 10, N).astype(np.float32)
    y = rng.uniform(-10, 10, N).astype(np.float32)
    # Ties, signed zeros, infinities and NaN on either side, spread over tiles.
    specials_x = [1.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 2.0, np.nan, -1.0, np.inf, 3.0, -0.0]
    specials_y = [1.5, -0.0, 0.0, np.inf, 1.0, 1.0, np.nan, np.nan, -np.inf, np.inf, 3.0, 0.0]
    for start in range(0, N, 1000):
        x[start:start + 12] = specials_x
        y[start:start + 12] = specials_y
    # Rows of integer values make many exact ties.
    x[5000:5512] = np.round(x[5000:5512])
    y[5000:5512] = np.round(y[5000:5512])
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    y.tofile("input/input_y.bin")
    with np.errstate(invalid="ignore"):
        lt = x < y
        ge = x >= 0
        ne = x != y
    np.where(lt, x, y).astype(np.float32).tofile("output/golden_z.bin")
    np.where(ge, x, np.float32(0)).astype(np.float32).tofile("output/golden_r.bin")
    np.packbits(lt, bitorder="little").tofile("output/golden_mask_lt.bin")
    np.packbits(ge, bitorder="little").tofile("output/golden_mask_ge.bin")
    np.packbits(ne, bitorder="little").tofile("output/golden_mask_ne.bin")


if __name__ == "__main__":
    main()
