"""The Winograd F(2x2, 3x3) path of float32 3x3 / stride 1 convolutions (src/nn/conv_winograd.cc):
NCHW and NC1HWC0 (C0 = 8) in and out, edge tiles (odd sizes, asymmetric and zero padding), bias,
residual (also in place), the fused activations it takes, non-contiguous inputs, batches cut into
pieces, weight writes, and its error bound. Every case against a float64 NumPy reference and, where
the path applies, against the oneDNN direct path (ASC_CONV_WINOGRAD=0)."""

import os

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C, ops

from test_conv_blocked import block, conv_ref, unblock

RNG = np.random.default_rng(2024)
HAVE = _C.nn.preferred_block() == 8  # AVX2 machines (oneDNN's C0 = 8): the path exists there


def calls():
    return _C.nn.winograd_stats()[0]


def _conv(x, w, b, r, pl, pr, act="none", alpha=0.0, ib=0, ob=0, inplace=False):
    xa = asc.asarray(block(x, ib) if ib else x)
    ra = None if r is None else asc.array(block(r, ob) if ob else r)
    y = _C.nn.conv(xa, asc.array(w), None if b is None else asc.array(b), ra, [1, 1], list(pl), list(pr), [1, 1],
                   [0, 0], 1, False, False, act, alpha, "onednn", "conv2d", ib, ob, inplace)
    y = y.numpy()
    return unblock(y) if ob else y


def _act(v, act, alpha):
    if act == "relu":
        return np.maximum(v, 0)
    if act == "relu6":
        return np.clip(v, 0, 6)
    if act == "leaky_relu":
        return np.where(v > 0, v, v * alpha)
    return v


def _check(got, want, scale):
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4 * scale)


CASES = [  # (n, c, oc, h, w, pl, pr)
    (1, 16, 16, 28, 28, (1, 1), (1, 1)),      # batch 1: bands of tile rows
    (2, 24, 40, 31, 29, (1, 1), (1, 1)),      # odd output sizes (edge tiles), K % 16 == 8
    (1, 32, 16, 30, 34, (0, 2), (1, 0)),      # asymmetric padding
    (1, 16, 24, 30, 31, (0, 0), (0, 0)),      # no padding
    (3, 16, 32, 28, 28, (1, 1), (1, 1)),      # an odd batch
    (1, 64, 48, 14, 14, (1, 1), (1, 1)),      # 14x14 (ResNet stage 4's size): 49 tiles in 4 bands
]


@pytest.mark.skipif(not HAVE, reason="the Winograd path is for AVX2 (C0 = 8) machines")
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("layout", [(0, 0), (8, 8), (0, 8), (8, 0)], ids=lambda v: f"in{v[0]}out{v[1]}")
def test_winograd_vs_reference(case, layout):
    n, c, oc, h, w_, pl, pr = case
    x = RNG.standard_normal((n, c, h, w_)).astype(np.float32)
    w = (RNG.standard_normal((oc, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    b = RNG.standard_normal(oc).astype(np.float32)
    want = conv_ref(x, w, b, (1, 1), pl, pr, 1)
    before = calls()
    got = _conv(x, w, b, None, pl, pr, ib=layout[0], ob=layout[1])
    assert calls() == before + 1
    assert got.shape == want.shape
    _check(got, want, np.abs(want).max())


@pytest.mark.skipif(not HAVE, reason="the Winograd path is for AVX2 (C0 = 8) machines")
@pytest.mark.parametrize("act,alpha", [("none", 0.0), ("relu", 0.0), ("relu6", 0.0), ("leaky_relu", 0.1)])
@pytest.mark.parametrize("layout", [(0, 0), (8, 8)], ids=lambda v: f"in{v[0]}out{v[1]}")
@pytest.mark.parametrize("inplace", [False, True])
def test_winograd_epilogue(act, alpha, layout, inplace):
    n, c, oc, h = 2, 16, 32, 29
    x = RNG.standard_normal((n, c, h, h)).astype(np.float32) * 3
    w = (RNG.standard_normal((oc, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    r = RNG.standard_normal((n, oc, h, h)).astype(np.float32) * 4
    before = calls()
    got = _conv(x, w, None, r, (1, 1), (1, 1), act, alpha, layout[0], layout[1], inplace)
    assert calls() == before + 1
    want = _act(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), 1) + r, act, alpha)
    _check(got, want, np.abs(want).max())


@pytest.mark.skipif(not HAVE, reason="the Winograd path is for AVX2 (C0 = 8) machines")
def test_winograd_nan_and_inf_propagate():
    x = RNG.standard_normal((1, 16, 28, 28)).astype(np.float32)
    x[0, 3, 10, 10] = np.nan
    x[0, 5, 20, 4] = np.inf
    w = RNG.standard_normal((16, 16, 3, 3)).astype(np.float32)
    got = _conv(x, w, None, None, (1, 1), (1, 1), "relu")
    want = _act(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), 1), "relu", 0)
    # Winograd's transforms mix a NaN/inf into its whole 4x4 tile neighbourhood, as the direct kernel
    # mixes it into its 3x3 window: the NaNs of the reference are NaNs here
    assert np.isnan(got[np.isnan(want)]).all()
    fin = np.isfinite(want) & np.isfinite(got)
    assert fin.sum() > 0.9 * want.size
    _check(got[fin], want[fin], np.abs(want[fin]).max())


@pytest.mark.skipif(not HAVE, reason="the Winograd path is for AVX2 (C0 = 8) machines")
def test_winograd_through_ops_noncontiguous_and_env_switch(monkeypatch):
    x = RNG.standard_normal((2, 32, 60, 58)).astype(np.float32)[:, :, ::2, 1:]  # a strided view
    w = (RNG.standard_normal((32, 32, 3, 3)) / 17).astype(np.float32)
    b = RNG.standard_normal(32).astype(np.float32)
    wa, ba = asc.array(w), asc.array(b)
    want = conv_ref(np.ascontiguousarray(x), w, b, (1, 1), (1, 1), (1, 1), 1)
    before = calls()
    got = ops.conv2d(asc.asarray(x), wa, ba, 1, 1).numpy()
    assert calls() == before + 1
    _check(got, want, np.abs(want).max())
    monkeypatch.setenv("ASC_CONV_WINOGRAD", "0")  # the oneDNN direct kernel
    direct = ops.conv2d(asc.asarray(x), wa, ba, 1, 1).numpy()
    assert calls() == before + 1
    _check(direct, want, np.abs(want).max())
    # error bound: F(2x2, 3x3)'s transforms only add, so its error stays within a few times the direct one
    e_w = np.abs(got - want).max()
    e_d = np.abs(direct - want).max()
    assert e_w <= 4 * e_d + 1e-6 * np.abs(want).max(), (e_w, e_d)


@pytest.mark.skipif(not HAVE, reason="the Winograd path is for AVX2 (C0 = 8) machines")
def test_winograd_weight_cache_follows_writes():
    x = asc.array(RNG.standard_normal((1, 16, 28, 28)).astype(np.float32))
    w0 = (RNG.standard_normal((16, 16, 3, 3)) / 12).astype(np.float32)
    wa = asc.array(w0)
    y0 = ops.conv2d(x, wa, None, 1, 1).numpy()
    _, hits, misses = _C.nn.winograd_stats()
    y1 = ops.conv2d(x, wa, None, 1, 1).numpy()
    _, hits1, misses1 = _C.nn.winograd_stats()
    assert (hits1, misses1) == (hits + 1, misses)
    np.testing.assert_array_equal(y0, y1)
    wa[0] = wa[0] * 2  # a write through pyasc: the transformed weights are remade
    y2 = ops.conv2d(x, wa, None, 1, 1).numpy()
    assert _C.nn.winograd_stats()[2] == misses1 + 1
    want = conv_ref(x.numpy(), wa.numpy(), None, (1, 1), (1, 1), (1, 1), 1)
    _check(y2, want, np.abs(want).max())
    np.testing.assert_allclose(y2[:, 0], 2 * y0[:, 0], rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not HAVE, reason="the Winograd path is for AVX2 (C0 = 8) machines")
def test_winograd_not_taken_outside_its_class():
    """Strided, dilated, grouped, small, float16, non-3x3 and gelu-fused convolutions stay on oneDNN."""
    x = RNG.standard_normal((1, 16, 28, 28)).astype(np.float32)
    w = RNG.standard_normal((16, 16, 3, 3)).astype(np.float32)
    before = calls()
    for kw in (dict(stride=2, padding=1), dict(padding=2, dilation=2)):
        ops.conv2d(asc.asarray(x), asc.array(w), None, **kw).numpy()
    ops.conv2d(asc.asarray(x), asc.array(w[:, :8]), None, 1, 1, 1, 2).numpy()  # groups
    ops.conv2d(asc.asarray(x[:, :, :12, :12]), asc.array(w), None, 1, 1).numpy()  # 12x12 output
    ops.conv2d(asc.asarray(x.astype(np.float16)), asc.array(w.astype(np.float16)), None, 1, 1).numpy()
    ops.conv2d(asc.asarray(x), asc.array(w), None, 1, 1, activation="gelu").numpy()
    ops.conv2d(asc.asarray(x), asc.array(w[:, :, :2, :2]), None, 1, 1).numpy()
    assert calls() == before


@pytest.mark.skipif(not HAVE or os.cpu_count() < 2, reason="needs AVX2 and two cores")
def test_winograd_batch_pieces_match_single_calls():
    """A batch is cut into (image, band) pieces run by several workers: each image equals its own call."""
    x = RNG.standard_normal((5, 16, 30, 30)).astype(np.float32)
    w = (RNG.standard_normal((24, 16, 3, 3)) / 12).astype(np.float32)
    wa = asc.array(w)
    whole = ops.conv2d(asc.asarray(x), wa, None, 1, 1).numpy()
    for i in range(5):
        np.testing.assert_array_equal(whole[i:i + 1], ops.conv2d(asc.asarray(x[i:i + 1]), wa, None, 1, 1).numpy())
