#!/usr/bin/env python3
"""Inputs and golden output of the add example: z = x + y in float16."""
import os

import numpy as np

TOTAL_LENGTH = 8 * 2048


def gen_golden_data():
    rng = np.random.default_rng(2024)
    x = rng.uniform(-100, 100, TOTAL_LENGTH).astype(np.float16)
    y = rng.uniform(-100, 100, TOTAL_LENGTH).astype(np.float16)
    # Special values the vector unit must keep: +-0, +-Inf, NaN, overflow to Inf.
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0]
    y[:6] = [-0.0, -0.0, 1.0, -1.0, 1.0, 65504.0]
    golden = (x + y).astype(np.float16)
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("./input/input_x.bin")
    y.tofile("./input/input_y.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    with np.errstate(over="ignore", invalid="ignore"):
        gen_golden_data()
