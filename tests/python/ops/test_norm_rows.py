"""layer_norm / rms_norm through the SIMD rows of src/nn/norm_rows.cc, against float64 NumPy on the
same (rounded) inputs: every row length class (shorter than a vector, vector multiples and tails,
across the 1024-element sum blocks, rows beyond the cache), the affine cases, rows with a large
mean, the streamed-output path (>= 4 MiB float32 / float64 outputs, rows starting off a vector
boundary), rows split over the cores, non-contiguous inputs and special values.

Bounds (stated in docs/nn.md): float32 |y - ref| <= 16 eps32 (|t| |w| + |w| + |b|) with t the exact
normalised value (eps32 = 2^-24 * 2); float64 the same with eps64; float16 / bfloat16 outputs are
float32 results rounded once (half an ulp of the output dtype plus the float32 bound).
"""

import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

rng = np.random.default_rng(13)
EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _in(x, dtype):
    a = asc.asarray(np.asarray(x, np.float64)).astype(getattr(asc, dtype))
    return a, np.asarray(a.astype(asc.float64))


def _ln_ref(xv, k, w=None, b=None, eps=1e-5):
    ax = tuple(range(xv.ndim - k, xv.ndim))
    t = (xv - xv.mean(axis=ax, keepdims=True)) / np.sqrt(xv.var(axis=ax, keepdims=True) + eps)
    return t


def _check(y, t, w, b, dtype, k=16):
    """|y - (t w + b)| <= k eps (|t w| + |w| + |b|) (float32 / float64 compute), plus half an ulp of
    a half output's rounding."""
    yv = np.asarray(y.astype(asc.float64))
    wv = np.ones(t.shape[-1]) if w is None else w
    bv = np.zeros(t.shape[-1]) if b is None else b
    ref = t * wv + bv
    ce = EPS["float64"] if dtype == "float64" else EPS["float32"]
    bound = k * ce * (np.abs(t * wv) + np.abs(wv) + np.abs(bv))
    if dtype in ("float16", "bfloat16"):
        bound = bound + EPS[dtype] * np.abs(ref) + 1e-7
    err = np.abs(yv - ref)
    assert np.all(err <= bound), f"max err {err.max()} at {np.unravel_index(np.argmax(err - bound), err.shape)}"


DTYPES = ["float32", "float64", "float16", "bfloat16"]
LENGTHS = [1, 3, 7, 8, 9, 16, 31, 33, 100, 1023, 1024, 1025, 2048 + 5, 4100]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_layer_norm_lengths_and_affine(dtype, n):
    rows = max(2, 4096 // n)
    x, xv = _in(rng.standard_normal((rows, n)) * 3 + 2, dtype)
    w, b = rng.standard_normal(n), rng.standard_normal(n)
    t = _ln_ref(xv, 1)
    # weight / bias in the input's dtype (as torch requires); the reference uses those values
    wa, wv = _in(w, dtype)
    ba, bv = _in(b, dtype)
    _check(ops.layer_norm(x, (n,), wa, ba), t, wv, bv, dtype)
    _check(ops.layer_norm(x, (n,), wa), t, wv, None, dtype)
    _check(ops.layer_norm(x, (n,), None, ba), t, None, bv, dtype)
    _check(ops.layer_norm(x, (n,)), t, None, None, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [5, 8, 1000, 1025, 3001])
def test_rms_norm_lengths(dtype, n):
    x, xv = _in(rng.standard_normal((6, n)) * 2 - 1, dtype)
    w = rng.standard_normal(n)
    wa, wv = _in(w, dtype)
    t = xv / np.sqrt((xv * xv).mean(-1, keepdims=True) + 1e-6)
    _check(ops.rms_norm(x, (n,), wa, eps=1e-6), t, wv, None, dtype)
    _check(ops.rms_norm(x, (n,), eps=1e-6), t, None, None, dtype)


@pytest.mark.parametrize("mean", [1e3, 1e5, -3e6])
def test_layer_norm_large_mean_float32(mean):
    # the mean is subtracted as a float pair: a row at 1e5 +- 1 keeps ~7 digits of its deviations
    xv = (rng.standard_normal((64, 1024)) + mean).astype(np.float32)
    y = ops.layer_norm(asc.asarray(xv), (1024,))
    _check(y, _ln_ref(xv.astype(np.float64), 1), None, None, "float32")


def test_layer_norm_long_rows():
    # rows beyond the block and the cache (passes 2 and 3 read memory again): 2^20 and 3 * 2^18 + 7
    for shape in [(1, 1 << 20), (3, 3 * (1 << 18) + 7)]:
        xv = (rng.standard_normal(shape) * 5 + 7).astype(np.float32)
        w = rng.standard_normal(shape[1]).astype(np.float32)
        _check(ops.layer_norm(asc.asarray(xv), (shape[1],), w), _ln_ref(xv.astype(np.float64), 1),
               w.astype(np.float64), None, "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_streamed_output(dtype):
    # >= 4 MiB output: streaming stores; 1023-element rows start off the vector boundary (head
    # and tail partial vectors every row), rows split over the cores
    shape = (1100, 1023) if dtype == "float32" else (520, 1021)
    x, xv = _in(rng.standard_normal(shape), dtype)
    w, b = rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    wa, wv = _in(w, dtype)
    ba, bv = _in(b, dtype)
    t = _ln_ref(xv, 1)
    _check(ops.layer_norm(x, (shape[1],), wa, ba), t, wv, bv, dtype)
    _check(ops.rms_norm(x, (shape[1],), wa, eps=1e-5),
           xv / np.sqrt((xv * xv).mean(-1, keepdims=True) + 1e-5), wv, None, dtype)


def test_layer_norm_streamed_misaligned_view():
    # an offset view: the copy made for it is a fresh aligned tensor, the result still exact
    xv = rng.standard_normal((1200, 1025)).astype(np.float32)
    xs = asc.asarray(xv)[:, 1:]
    _check(ops.layer_norm(xs, (1024,)), _ln_ref(xv[:, 1:].astype(np.float64), 1), None, None, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_non_contiguous_and_multi_axis(dtype):
    x, xv = _in(rng.standard_normal((6, 5, 40)), dtype)
    xt = x.transpose(1, 0, 2)[:, ::2]
    xtv = xv.transpose(1, 0, 2)[:, ::2]
    w = rng.standard_normal((3, 40))
    wa, wv = _in(w, dtype)
    t = _ln_ref(xtv, 2).reshape(5, -1)
    _check(ops.layer_norm(xt, (3, 40), wa).reshape(5, -1), t, wv.reshape(-1), None, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_special_values(dtype):
    n = 37
    xv = rng.standard_normal((6, n))
    xv[1, 5] = np.nan
    xv[2, 36] = np.inf
    xv[3, :] = 0.1  # a constant row: exactly zero (the mean residual cancels the rounding)
    xv[4, :] = 0.0
    x, xd = _in(xv, dtype)
    y = np.asarray(ops.layer_norm(x, (n,)).astype(asc.float64))
    assert np.isnan(y[1]).all() and np.isnan(y[2]).all()
    np.testing.assert_array_equal(y[3], 0.0)
    np.testing.assert_array_equal(y[4], 0.0)
    _check(ops.layer_norm(x, (n,))[np.array([0, 5])], _ln_ref(xd[[0, 5]], 1), None, None, dtype)
    r = np.asarray(ops.rms_norm(x, (n,)).astype(asc.float64))
    assert np.isnan(r[1]).all()
    # torch's formula x * rsqrt(mean(x^2) + eps): an inf makes the scale 0, so finite entries
    # give (signed) zeros and the inf itself NaN
    np.testing.assert_array_equal(r[2, :36], 0.0)
    assert np.isnan(r[2, 36])
    np.testing.assert_array_equal(r[4], 0.0)


def test_layer_norm_rows_over_cores_match_one_call():
    # the split over the core workers does not change a row's result (each row on one thread)
    xv = rng.standard_normal((4097, 300)).astype(np.float32)
    y = np.asarray(ops.layer_norm(asc.asarray(xv), (300,)))
    y1 = np.asarray(ops.layer_norm(asc.asarray(xv[1234:1236]), (300,)))
    np.testing.assert_array_equal(y[1234:1236], y1)


# ---- the channel norms' SIMD spans (norm_span_sum / norm_span_dev / norm_affine_span)


def _gn_t(xv, g, eps=1e-5):
    n = xv.shape[0]
    r = xv.reshape(n, g, -1)
    return ((r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True) + eps)).reshape(xv.shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,g", [((2, 8, 5, 7), 4), ((3, 6, 33), 3), ((1, 4, 64, 65), 1), ((8, 32, 17, 16), 8)])
def test_group_norm_spans(dtype, shape, g):
    # planes shorter than a SIMD span (35 elements and less go scalar below 16), one group over a
    # batch-1 input (cut into spans over the cores), many rows; per-channel affine
    x, xv = _in(rng.standard_normal(shape) * 2 + 5, dtype)
    c = shape[1]
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    wa, wv = _in(w, dtype)
    ba, bv = _in(b, dtype)
    bc = (1, c) + (1,) * (len(shape) - 2)
    t = _gn_t(xv, g)
    y = np.asarray(ops.group_norm(x, g, wa, ba).astype(asc.float64))
    ref = t * wv.reshape(bc) + bv.reshape(bc)
    ce = EPS["float64"] if dtype == "float64" else EPS["float32"]
    bound = 16 * ce * (np.abs(t * wv.reshape(bc)) + np.abs(wv.reshape(bc)) + np.abs(bv.reshape(bc)))
    if dtype in ("float16", "bfloat16"):
        bound = bound + EPS[dtype] * np.abs(ref) + 1e-7
    assert np.all(np.abs(y - ref) <= bound)


def test_group_norm_large_mean_float32():
    xv = (rng.standard_normal((1, 8, 128, 128)) + 1e5).astype(np.float32)
    y = np.asarray(ops.group_norm(asc.asarray(xv), 2)).astype(np.float64)
    t = _gn_t(xv.astype(np.float64), 2)
    assert np.all(np.abs(y - t) <= 16 * EPS["float32"] * (np.abs(t) + 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_and_instance_norm_streamed(dtype):
    # >= 4 MiB outputs stream (float64 too); planes of 65 * 63 elements start off the vector
    # boundary; instance_norm's per-plane statistics run over the cores
    shape = (2, 64, 65, 63) if dtype == "float32" else (2, 64, 65, 64)
    x, xv = _in(rng.standard_normal(shape) * 3 - 2, dtype)
    c = shape[1]
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    bc = (1, c, 1, 1)
    sc = w / np.sqrt(rv + 1e-5)
    ref = xv * sc.reshape(bc) + (b - rm * sc).reshape(bc)
    y = np.asarray(ops.batch_norm(x, rm, rv, w, b).astype(asc.float64))
    ce = EPS["float64"] if dtype == "float64" else EPS["float32"]
    # (x - rm) * sc + b: x - rm exact near rm, so the bound is in |(x - rm) sc| + |b| (plus the
    # shift's own rounding, ~|rm sc| ulp, which float64 sees)
    scb, rmb, bb = sc.reshape(bc), rm.reshape(bc), b.reshape(bc)
    assert np.all(np.abs(y - ref) <= 4 * ce * (np.abs((xv - rmb) * scb) + np.abs(bb) + np.abs(rmb * scb)))
    m, v = xv.mean(axis=(2, 3), keepdims=True), xv.var(axis=(2, 3), keepdims=True)
    t = (xv - m) / np.sqrt(v + 1e-5)
    yi = np.asarray(ops.instance_norm(x, weight=w, bias=b).astype(asc.float64))
    refi = t * w.reshape(bc) + b.reshape(bc)
    assert np.all(np.abs(yi - refi) <= 16 * ce * (np.abs(t * w.reshape(bc)) + np.abs(w.reshape(bc)) +
                                                  np.abs(b.reshape(bc))))


_TARGET_CODE = r"""
import numpy as np, pyasc as asc
from pyasc import ops
rng = np.random.default_rng(3)
worst = 0.0
for dt in ("float32", "float64", "bfloat16"):
    for n in (1, 5, 8, 13, 1025):
        xv = rng.standard_normal((7, n)) * 3 + 2
        x = asc.asarray(xv).astype(getattr(asc, dt))
        xd = np.asarray(x.astype(asc.float64))
        w = rng.standard_normal(n)
        t = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5)
        y = np.asarray(ops.layer_norm(x, (n,), w.astype(np.float32) if dt != "float64" else w).astype(asc.float64))
        wv = w.astype(np.float32).astype(np.float64) if dt != "float64" else w
        if dt == "bfloat16":
            wv = np.asarray(asc.asarray(w).astype(asc.bfloat16).astype(asc.float64))
            y = np.asarray(ops.layer_norm(x, (n,), asc.asarray(w).astype(asc.bfloat16)).astype(asc.float64))
        ce = 2.0 ** -52 if dt == "float64" else 2.0 ** -23
        ref = t * wv
        b = 16 * ce * (np.abs(ref) + np.abs(wv)) + (2.0 ** -7 * np.abs(ref) if dt == "bfloat16" else 0)
        worst = max(worst, float(np.max(np.abs(y - ref) / (b + 1e-300))))
    g = asc.asarray(rng.standard_normal((2, 4, 9, 9)) + 4).astype(getattr(asc, dt))
    gd = np.asarray(g.astype(asc.float64)).reshape(2, 2, -1)
    tg = ((gd - gd.mean(-1, keepdims=True)) / np.sqrt(gd.var(-1, keepdims=True) + 1e-5)).reshape(2, 4, 9, 9)
    yg = np.asarray(ops.group_norm(g, 2).astype(asc.float64))
    ce = 2.0 ** -52 if dt == "float64" else 2.0 ** -23
    bg = 16 * ce * (np.abs(tg) + 1) + (2.0 ** -7 * np.abs(tg) if dt == "bfloat16" else 0)
    worst = max(worst, float(np.max(np.abs(yg - tg) / bg)))
print(worst)
"""


@pytest.mark.parametrize("target", ["SCALAR", "SSE4", "AVX2"])
def test_every_simd_target(target):
    # the Highway targets the dispatcher may pick (ASC_SIMD_TARGET caps it; a target the CPU lacks
    # falls back to the best one it has): partial vectors, tails and the span path on each
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _TARGET_CODE], env=dict(os.environ, ASC_SIMD_TARGET=target),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout.strip()) <= 1.0, (target, r.stdout)


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_rows_fewer_than_cores(dtype):
    # one (or two) rows of >= 2^16 elements: cut into spans over the cores (partial sums, partial
    # deviation sums, output by span); the same bounds as the row kernel, rms_norm too
    for shape in [(1, (1 << 16) + 3), (2, (1 << 17) + 5)]:
        x, xv = _in(rng.standard_normal(shape) * 2 + 3, dtype)
        n = shape[1]
        w, b = rng.standard_normal(n), rng.standard_normal(n)
        wa, wv = _in(w, dtype)
        ba, bv = _in(b, dtype)
        _check(ops.layer_norm(x, (n,), wa, ba), _ln_ref(xv, 1), wv, bv, dtype)
        _check(ops.layer_norm(x, (n,)), _ln_ref(xv, 1), None, None, dtype)
        _check(ops.rms_norm(x, (n,), wa, eps=1e-6), xv / np.sqrt((xv * xv).mean(-1, keepdims=True) + 1e-6), wv, None,
               dtype)
    # the span split gives the row kernel's result up to the order of the partial sums
    xv = rng.standard_normal((1, 1 << 17)).astype(np.float32) + 100
    y1 = np.asarray(ops.layer_norm(asc.asarray(xv), (1 << 17,)))
    y2 = np.asarray(ops.layer_norm(asc.asarray(np.repeat(xv, 4, axis=0)), (1 << 17,)))[0]
    np.testing.assert_allclose(y1[0], y2, rtol=0, atol=8 * 2.0 ** -23 * (1 + np.abs(y2).max()))
