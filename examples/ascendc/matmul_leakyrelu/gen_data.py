#!/usr/bin/env python3
"""Inputs and golden output of the matmul_leakyrelu example:
C = LeakyRelu(A @ B + bias, alpha = 0.001), A (1024 x 256) and B (256 x 640)
float16, bias and C float32."""
import os

import numpy as np

M, N, K = 1024, 640, 256
ALPHA = np.float32(0.001)


def main():
    rng = np.random.default_rng(29)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    a.tofile("input/x1_gm.bin")
    b.tofile("input/x2_gm.bin")
    bias.tofile("input/bias.bin")
    c = (a.astype(np.float64) @ b.astype(np.float64) + bias).astype(np.float32)
    np.where(c >= 0, c, c * ALPHA).astype(np.float32).tofile("output/golden.bin")


if __name__ == "__main__":
    main()
