"""group_norm and local_response_norm on the core workers (src/nn/norm.cc): inputs large enough
to be split (>= 2^15 elements), each split shape checked against an independent float64 NumPy
reference -- rows over the cores (many (n, group) rows), rows cut into spans (batch 1 with one or
three groups), LRN planes cut into spatial spans (few planes) -- plus non-contiguous inputs,
half dtypes and special values in one span."""

import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

rng = np.random.default_rng(7)
TOL = {"float32": 2e-5, "float64": 1e-12, "float16": 4e-3, "bfloat16": 3e-2}


def _in(x, dtype):
    a = asc.asarray(np.asarray(x, np.float64)).astype(getattr(asc, dtype))
    return a, np.asarray(a.astype(asc.float64))


def _gn_ref(xv, g, w=None, b=None, eps=1e-5):
    n, c = xv.shape[:2]
    r = xv.reshape(n, g, -1)
    y = ((r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True) + eps)).reshape(xv.shape)
    bc = (1, c) + (1,) * (xv.ndim - 2)
    if w is not None:
        y = y * w.reshape(bc)
    if b is not None:
        y = y + b.reshape(bc)
    return y


def _lrn_ref(xv, size, alpha, beta, k):
    c = xv.shape[1]
    sq = xv ** 2
    acc = np.zeros_like(xv)
    for ch in range(c):
        lo, hi = max(0, ch - size // 2), min(c - 1, ch + (size - 1) // 2)
        acc[:, ch] = sq[:, lo:hi + 1].sum(axis=1)
    return xv / (k + alpha * acc / size) ** beta


def _close(y, ref, dtype, scale=10.0):
    got = np.asarray(y.astype(asc.float64))
    np.testing.assert_allclose(got, ref, rtol=TOL[dtype] * scale, atol=TOL[dtype] * scale)


# (shape, groups): many rows (rows over the cores); 1 and 3 rows (each cut into spans, the span
# edges inside a channel plane and across planes); a group of planes of odd size
GN_CASES = [((4, 32, 32, 40), 8), ((1, 8, 96, 97), 1), ((1, 12, 50, 70), 3), ((3, 6, 4099), 2), ((2, 4, 8192), 4)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("shape,g", GN_CASES)
def test_group_norm_split(dtype, shape, g):
    x, xv = _in(rng.standard_normal(shape) * 3 + 2, dtype)
    c = shape[1]
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    _close(ops.group_norm(x, g, w, b), _gn_ref(xv, g, w, b), dtype)
    _close(ops.group_norm(x, g), _gn_ref(xv, g), dtype)


def test_group_norm_split_large_offset_and_noncontiguous():
    # a mean far from zero (two-pass statistics keep the variance) and a transposed view
    xv = rng.standard_normal((1, 8, 64, 80)) + 1000.0
    x = asc.asarray(xv.astype(np.float32))
    _close(ops.group_norm(x, 2), _gn_ref(xv.astype(np.float32).astype(np.float64), 2), "float32", 50)
    base = rng.standard_normal((1, 96, 80, 8)).astype(np.float32)
    xt = asc.asarray(base).transpose(0, 3, 1, 2)  # (1, 8, 96, 80), non-contiguous
    assert not xt.flags.c_contiguous
    _close(ops.group_norm(xt, 4), _gn_ref(base.transpose(0, 3, 1, 2).astype(np.float64), 4), "float32")


def test_group_norm_split_nan_stays_in_its_group():
    xv = rng.standard_normal((1, 4, 128, 128)).astype(np.float32)
    xv[0, 1, 5, 7] = np.nan  # group 0 of 2
    y = np.asarray(ops.group_norm(asc.asarray(xv), 2))
    assert np.isnan(y[0, :2]).all()
    ref = _gn_ref(xv.astype(np.float64)[:, 2:], 1)
    np.testing.assert_allclose(y[0, 2:], ref[0], rtol=2e-4, atol=2e-4)


def test_group_norm_empty_batch():
    y = ops.group_norm(asc.asarray(np.zeros((0, 4, 64, 64), np.float32)), 2)
    assert y.shape == (0, 4, 64, 64)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape,size", [((1, 3, 128, 100), 3), ((1, 5, 4100), 5), ((4, 16, 32, 32), 2),
                                        ((2, 3, 50, 50), 4)])
def test_local_response_norm_split(dtype, shape, size):
    x, xv = _in(rng.standard_normal(shape) * 2, dtype)
    _close(ops.local_response_norm(x, size, alpha=0.3, beta=0.75, k=1.5), _lrn_ref(xv, size, 0.3, 0.75, 1.5), dtype)
    _close(ops.local_response_norm(x, size), _lrn_ref(xv, size, 1e-4, 0.75, 1.0), dtype)


def test_local_response_norm_split_noncontiguous_and_beta():
    base = rng.standard_normal((1, 64, 96, 4)).astype(np.float32)
    xt = asc.asarray(base).transpose(0, 3, 1, 2)  # (1, 4, 64, 96)
    xv = base.transpose(0, 3, 1, 2).astype(np.float64)
    for beta in (0.5, 1.0, 2.0):
        _close(ops.local_response_norm(xt, 3, alpha=0.5, beta=beta, k=1.0), _lrn_ref(xv, 3, 0.5, beta, 1.0),
               "float32")
