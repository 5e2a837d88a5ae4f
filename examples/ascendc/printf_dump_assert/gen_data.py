#!/usr/bin/env python3
"""Input and golden of the printf_dump_assert example: y = x * x."""
import os

import numpy as np

if __name__ == "__main__":
    x = (np.arange(4 * 128, dtype=np.float32) * np.float32(0.5) - np.float32(3)).astype(np.float32)
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    x.tofile("input/input_x.bin")
    (x * x).tofile("output/golden_y.bin")
