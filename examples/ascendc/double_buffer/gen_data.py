#!/usr/bin/env python3
"""Inputs and golden of the double_buffer example: z = relu(x * y + x) in float32."""
import os

import numpy as np

N = 8 * 4096

if __name__ == "__main__":
    rng = np.random.default_rng(5)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    x[:4] = [np.inf, -np.inf, np.nan, -0.0]
    y[:4] = [1.0, 1.0, 2.0, 3.0]
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    y.tofile("input/input_y.bin")
    with np.errstate(invalid="ignore"):
        t = x * y + x  # two float32 roundings, like Mul then Add
        golden = np.where(t > 0, t, np.float32(0)).astype(np.float32)
    golden[2] = np.nan  # Relu keeps NaN
    golden.tofile("output/golden.bin")
