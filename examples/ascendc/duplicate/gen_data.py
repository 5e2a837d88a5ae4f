#!/usr/bin/env python3
"""Golden outputs of the duplicate example (every element equals the scalar)."""
import os

import numpy as np

N = 1000
GOLDEN = {
    "f32_neg_zero": np.full(N, -0.0, np.float32),
    "f32": np.full(N, 3.25, np.float32),
    "f16": np.full(N, -65504.0, np.float16),
    "f16_nan": np.full(N, np.nan, np.float16),
    "s32": np.full(N, np.iinfo(np.int32).min, np.int32),
    "s16": np.full(N, -12345, np.int16),
}

if __name__ == "__main__":
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    for name, arr in GOLDEN.items():
        arr.tofile(f"output/golden_{name}.bin")
