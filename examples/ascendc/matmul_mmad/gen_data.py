#!/usr/bin/env python3
"""Inputs and golden output of the matmul_mmad example: C = A @ B + bias,
A (128 x 256) and B (256 x 256) float16, bias and C float32."""
import os

import numpy as np

M, N, K = 128, 256, 256


def main():
    rng = np.random.default_rng(17)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bias = rng.uniform(-10, 10, N).astype(np.float32)
    # A row, a column and a bias element of small integers: C[5, 9] is exact.
    a[5] = np.arange(K) % 7 - 3
    b[:, 9] = np.arange(K) % 5 - 2
    bias[9] = 3.0
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    a.tofile("input/x1_gm.bin")
    b.tofile("input/x2_gm.bin")
    bias.tofile("input/bias.bin")
    golden = (a.astype(np.float64) @ b.astype(np.float64) + bias).astype(np.float32)
    golden.tofile("output/golden.bin")


if __name__ == "__main__":
    main()
