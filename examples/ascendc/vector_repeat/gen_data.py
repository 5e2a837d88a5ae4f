#!/usr/bin/env python3
"""Inputs and golden outputs of the vector_repeat example.

The golden model walks the mask/repeat layout lane by lane: lane l of repeat
r of an operand with block stride B and repeat stride R (both in 32-byte
blocks) is element (r * R + (l // E) * B) * E + l % E, E = 32 // itemsize;
a lane takes part when its mask bit is set. Lanes that do not take part
keep the SENTINEL the kernel writes first.
"""
import os

import numpy as np

BLOCK_DIM = 4
BLOCK_LENGTH = 1024
SUB_LENGTH = 512
DIV_COUNT = 1000
SENTINEL = 7.0


def lanes_of(dtype):
    return 256 // np.dtype(dtype).itemsize


def count_mask(n, dtype):
    return np.arange(lanes_of(dtype)) < n


def bit_mask(words, dtype):
    lanes = lanes_of(dtype)
    bits = [(words[l // 64] >> (l % 64)) & 1 for l in range(lanes)]
    return np.array(bits, dtype=bool)


def element(r, lane, blk, rep, dtype):
    e = 32 // np.dtype(dtype).itemsize
    return (r * rep + (lane // e) * blk) * e + lane % e


def repeat_op(fn, dst, srcs, mask, repeat, blk, rep):
    """dst[lane] = fn(*src lanes) over the selected lanes; blk / rep list the
    strides of dst first, then of each source."""
    dtype = dst.dtype
    for r in range(repeat):
        for lane in np.nonzero(mask)[0]:
            args = [s[element(r, lane, blk[i + 1], rep[i + 1], dtype)] for i, s in enumerate(srcs)]
            dst[element(r, lane, blk[0], rep[0], dtype)] = fn(*args)
    return dst


def fresh(dtype, n=BLOCK_LENGTH):
    return np.full(n, SENTINEL, dtype=dtype)


def block_results(xh, yh, xf, yf):
    h, f = np.float16, np.float32
    out = {}
    out["add_h"] = repeat_op(lambda a, b: a + b, fresh(h), [xh, yh], count_mask(100, h), 8, [1, 1, 1], [8, 8, 8])
    out["mul_f"] = repeat_op(lambda a, b: a * b, fresh(f), [xf, yf], bit_mask([0xF0F0F0F0AAAA5555, 0], f), 16,
                             [1, 1, 1], [8, 8, 8])
    out["sub_f"] = repeat_op(lambda a, b: a - b, fresh(f), [xf, yf], count_mask(64, f), 8, [1, 2, 1],
                             [8, 16, 8])[:SUB_LENGTH]
    out["muls_h"] = repeat_op(lambda a: a * h(0.5), fresh(h), [xh],
                              bit_mask([0xFFFFFFFFFFFFFFFF, 0x0000FFFF0000FFFF], h), 4, [2, 1], [16, 8])
    # SetVectorMask(high, low): lanes 0..63 from low, 64..127 from high.
    out["max_h"] = repeat_op(np.maximum, fresh(h), [xh, yh], bit_mask([0x00000000FFFF0000, 0x8000000000000001], h),
                             8, [1, 1, 1], [8, 8, 8])
    # Relu keeps -0 and NaN (a >= 0 ? a : 0).
    out["relu_f"] = repeat_op(lambda a: a if a >= 0 or np.isnan(a) else f(0), fresh(f), [xf],
                              count_mask(37, f), 16, [1, 1], [8, 8])
    out["lrelu_h"] = repeat_op(lambda a: a if a >= 0 or np.isnan(a) else a * h(0.25), fresh(h), [xh],
                               count_mask(128, h), 4, [1, 1], [8, 16])
    div = fresh(f)
    div[:DIV_COUNT] = xf[:DIV_COUNT] / yf[:DIV_COUNT]
    out["div_f"] = div
    return out


def specials(a, dtype):
    big = np.finfo(dtype).max
    a[:10] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, big, -big, 1.0, -3.0, 0.5], dtype=dtype)


def main():
    rng = np.random.default_rng(11)
    n = BLOCK_DIM * BLOCK_LENGTH
    xh = rng.uniform(-100, 100, n).astype(np.float16)
    yh = rng.uniform(-100, 100, n).astype(np.float16)
    xf = rng.uniform(-1000, 1000, n).astype(np.float32)
    yf = rng.uniform(-1000, 1000, n).astype(np.float32)
    for b in range(BLOCK_DIM):
        s = slice(b * BLOCK_LENGTH, (b + 1) * BLOCK_LENGTH)
        specials(xh[s], np.float16)
        specials(xf[s], np.float32)
        # y: 0 and -0 below x's finite values (x / 0 = +-Inf, 0 / 0 = NaN), NaN against x = 1.
        yh[s][:10] = [-0.0, -0.0, 1.0, 2.0, 3.0, 65504.0, 65504.0, np.nan, 0.0, -0.0]
        yf[s][:10] = [0.0, -0.0, 1.0, 2.0, 3.0, 3e38, 3e38, np.nan, 0.0, -0.0]
        # Lanes 16..19 are among those the mask register selects for Max.
        xh[s][16:20] = [np.nan, 1.0, np.inf, -np.inf]
        yh[s][16:20] = [1.0, np.nan, -np.inf, 5.0]
        # Lanes 128.. of x also hold specials (they are read by strided cases).
        xh[s][128:138] = xh[s][:10]
        xf[s][128:138] = xf[s][:10]
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    xh.tofile("input/input_xh.bin")
    yh.tofile("input/input_yh.bin")
    xf.tofile("input/input_xf.bin")
    yf.tofile("input/input_yf.bin")
    results = {}
    with np.errstate(all="ignore"):
        for b in range(BLOCK_DIM):
            s = slice(b * BLOCK_LENGTH, (b + 1) * BLOCK_LENGTH)
            for name, v in block_results(xh[s], yh[s], xf[s], yf[s]).items():
                results.setdefault(name, []).append(v)
    for name, parts in results.items():
        np.concatenate(parts).tofile(f"output/golden_{name}.bin")


if __name__ == "__main__":
    main()
