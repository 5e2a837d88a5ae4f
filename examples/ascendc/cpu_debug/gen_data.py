#!/usr/bin/env python3
"""Inputs and golden of the cpu_debug example: z = 1.5 * x + y in float32."""
import os

import numpy as np

N = 8 * 2048

if __name__ == "__main__":
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, N).astype(np.float32)
    y = rng.uniform(-1, 1, N).astype(np.float32)
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    y.tofile("input/input_y.bin")
    (x * np.float32(1.5) + y).astype(np.float32).tofile("output/golden.bin")
