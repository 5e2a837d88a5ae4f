#!/usr/bin/env python3
"""Inputs and golden outputs of the cast example (NumPy rounding rules)."""
import os

import numpy as np

N = 4 * 1024


def f32_to_f16_odd(x):
    """Round to odd: truncate toward zero to float16, set the last mantissa bit if inexact."""
    h = x.astype(np.float16)  # nearest even
    back = h.astype(np.float32)
    # Truncation toward zero: step back one ulp where RNE rounded away from zero.
    away = np.isfinite(x) & np.isfinite(back) & (np.abs(back) > np.abs(x))
    bits = h.view(np.uint16).copy()
    bits[away] -= 1
    t = bits.view(np.float16)
    inexact = np.isfinite(x) & (t.astype(np.float32) != x)
    # Overflow: truncation saturates to the largest finite value.
    big = np.isfinite(x) & (np.abs(x) >= 65520.0)
    bits = t.view(np.uint16).copy()
    bits[inexact & ~big] |= 1
    bits[big] = np.where(x[big] > 0, 0x7BFF, 0xFBFF)
    return bits.view(np.float16)


def to_s32(x, fn):
    y = fn(x.astype(np.float64))
    y = np.where(np.isnan(y), 0, y)
    return np.clip(y, -2**31, 2**31 - 1).astype(np.int32)


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def main():
    rng = np.random.default_rng(7)
    f32 = (rng.standard_normal(N) * 1000).astype(np.float32)
    f32[:12] = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.0, 70000.0, -1e6, 1e-8, 2.5, -3.5]
    f16 = (rng.uniform(-300, 300, N)).astype(np.float16)
    f16[:10] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, 65504.0, -65504.0]
    s32 = rng.integers(-2**31, 2**31 - 1, N, dtype=np.int64).astype(np.int32)
    s32[:4] = [0, 16777217, -16777217, 2**31 - 1]
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    f32.tofile("input/input_f32.bin")
    f16.tofile("input/input_f16.bin")
    s32.tofile("input/input_s32.bin")
    with np.errstate(all="ignore"):
        f32.astype(np.float16).tofile("output/golden_f32_f16_none.bin")
        f32_to_f16_odd(f32).tofile("output/golden_f32_f16_odd.bin")
        to_s32(f16, np.rint).tofile("output/golden_f16_s32_rint.bin")
        to_s32(f16, np.floor).tofile("output/golden_f16_s32_floor.bin")
        to_s32(f16, np.ceil).tofile("output/golden_f16_s32_ceil.bin")
        to_s32(f16, round_half_away).tofile("output/golden_f16_s32_round.bin")
        to_s32(f16, np.trunc).tofile("output/golden_f16_s32_trunc.bin")
        to_s32(f32, np.trunc).tofile("output/golden_f32_s32_trunc.bin")
        s32.astype(np.float32).tofile("output/golden_s32_f32_none.bin")


if __name__ == "__main__":
    main()
