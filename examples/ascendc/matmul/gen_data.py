#!/usr/bin/env python3
"""Inputs and golden output of the matmul example: C = A @ B + bias with
A (500 x 200) and B (200 x 330) float16, bias and C float32."""
import os

import numpy as np

M, N, K = 500, 330, 200


def main():
    rng = np.random.default_rng(23)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    a.tofile("input/x1_gm.bin")
    b.tofile("input/x2_gm.bin")
    bias.tofile("input/bias.bin")
    (a.astype(np.float64) @ b.astype(np.float64) + bias).astype(np.float32).tofile("output/golden.bin")


if __name__ == "__main__":
    main()
