"""The channel-blocked average pool (src/nn/pool.cc avg_pool_blocked, the model executor's head and
inner AveragePool / GlobalAveragePool over NC1HWC0 activations) against a float64 NumPy reference of
ONNX AveragePool (floor mode, explicit asymmetric pads, both count_include_pad rules)."""

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C

RNG = np.random.default_rng(31)


def block(x, c0):
    n, c = x.shape[:2]
    sp = x.shape[2:]
    order = (0, 1) + tuple(range(3, 3 + len(sp))) + (2,)
    return np.ascontiguousarray(x.reshape((n, c // c0, c0) + sp).transpose(order))


def unblock(x):
    n, c1, c0 = x.shape[0], x.shape[1], x.shape[-1]
    sp = x.shape[2:-1]
    return x.transpose((0, 1, len(sp) + 2) + tuple(range(2, 2 + len(sp)))).reshape((n, c1 * c0) + sp)


def avg_ref(x, k, s, pl, pr, include):
    """ONNX AveragePool (floor mode) in float64: window sums over the zero-padded input, divided by
    the window size (count_include_pad) or by the number of input positions it covers."""
    nsp = len(k)
    pad = [(0, 0), (0, 0)] + [(pl[i], pr[i]) for i in range(nsp)]
    xp = np.pad(x.astype(np.float64), pad)
    ones = np.pad(np.ones(x.shape[2:]), pad[2:])
    out_sp = [(x.shape[2 + i] + pl[i] + pr[i] - k[i]) // s[i] + 1 for i in range(nsp)]
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    cnt = np.zeros(out_sp)
    for idx in np.ndindex(*k):
        sl = tuple(slice(idx[i], idx[i] + s[i] * out_sp[i], s[i]) for i in range(nsp))
        out += xp[(slice(None), slice(None)) + sl]
        cnt += ones[sl]
    return out / (float(np.prod(k)) if include else cnt)


GEOS = [((7, 7), (1, 1), (0, 0), (0, 0)),        # ResNet-50's head: the whole 7x7 plane
        ((3, 3), (2, 2), (1, 1), (1, 1)),
        ((2, 3), (1, 2), (0, 1), (1, 0)),        # asymmetric pads
        ((5, 5), (3, 3), (2, 0), (0, 2)),
        ((1, 1), (2, 2), (0, 0), (0, 0))]


@pytest.mark.parametrize("c0", [8, 16, 3])
@pytest.mark.parametrize("geo", GEOS)
@pytest.mark.parametrize("include", [False, True])
def test_avg_pool_blocked_matches_reference(c0, geo, include):
    k, s, pl, pr = geo
    x = RNG.standard_normal((2, 2 * c0, 7, 7)).astype(np.float32)
    y = _C.nn.avg_pool_blocked(asc.asarray(block(x, c0)), list(k), list(s), list(pl), list(pr), include,
                               "AveragePool")
    want = avg_ref(x, k, s, pl, pr, include)
    assert tuple(y.shape) == (2, 2) + want.shape[2:] + (c0,)
    assert y.dtype == np.float32
    np.testing.assert_allclose(unblock(np.asarray(y)), want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-13), ("float16", 2e-3), ("bfloat16", 1e-2)])
def test_avg_pool_blocked_dtypes(dtype, tol):
    x = RNG.standard_normal((3, 16, 6, 5))
    xa = asc.asarray(block(x, 8)).astype(dtype)
    y = _C.nn.avg_pool_blocked(xa, [3, 2], [1, 2], [1, 0], [1, 1], False, "AveragePool")
    assert str(y.dtype) == dtype
    want = avg_ref(np.asarray(xa.astype("float64")).transpose(0, 1, 4, 2, 3).reshape(3, 16, 6, 5),
                   [3, 2], [1, 2], [1, 0], [1, 1], False)
    np.testing.assert_allclose(unblock(np.asarray(y.astype("float64"))), want, rtol=tol, atol=tol)


def test_avg_pool_blocked_1d_3d():
    x1 = RNG.standard_normal((2, 16, 9)).astype(np.float32)
    y1 = _C.nn.avg_pool_blocked(asc.asarray(block(x1, 8)), [3], [2], [1], [0], True, "AveragePool")
    np.testing.assert_allclose(unblock(np.asarray(y1)), avg_ref(x1, [3], [2], [1], [0], True), rtol=2e-6, atol=2e-6)
    x3 = RNG.standard_normal((1, 8, 4, 5, 3)).astype(np.float32)
    y3 = _C.nn.avg_pool_blocked(asc.asarray(block(x3, 8)), [2, 2, 3], [1, 2, 1], [0, 1, 1], [1, 0, 1], False,
                                "AveragePool")
    np.testing.assert_allclose(unblock(np.asarray(y3)), avg_ref(x3, [2, 2, 3], [1, 2, 1], [0, 1, 1], [1, 0, 1],
                                                                False), rtol=2e-6, atol=2e-6)


def test_avg_pool_blocked_views_and_edges():
    # a non-contiguous view (every other image, a lazy slice) equals its contiguous copy
    xb = block(RNG.standard_normal((4, 16, 7, 7)).astype(np.float32), 8)
    view = asc.asarray(xb)[::2]
    got = np.asarray(_C.nn.avg_pool_blocked(view, [7, 7], [1, 1], [0, 0], [0, 0], True, "GlobalAveragePool"))
    np.testing.assert_allclose(got[..., 0, 0, :], xb[::2].astype(np.float64).mean(axis=(2, 3)), rtol=2e-6,
                               atol=1e-6)
    # an empty batch gives an empty result of the right shape
    e = _C.nn.avg_pool_blocked(asc.asarray(np.zeros((0, 2, 7, 7, 8), np.float32)), [7, 7], [1, 1], [0, 0], [0, 0],
                               True, "GlobalAveragePool")
    assert tuple(e.shape) == (0, 2, 1, 1, 8)
    # inf and NaN reach the mean as they do in NumPy's
    x = np.ones((1, 8, 4, 4), np.float32)
    x[0, 2, 1, 1], x[0, 5, 0, 3] = np.inf, np.nan
    y = np.asarray(_C.nn.avg_pool_blocked(asc.asarray(block(x, 8)), [4, 4], [1, 1], [0, 0], [0, 0], True, "P"))
    np.testing.assert_array_equal(y.reshape(8), x.mean(axis=(2, 3)).reshape(8))


def test_avg_pool_blocked_errors():
    x = asc.asarray(np.ones((1, 2, 4, 4, 8), np.float32))
    with pytest.raises(asc.AscendValueError, match=r"\[AveragePool\].*rank 5"):
        _C.nn.avg_pool_blocked(asc.asarray(np.ones((1, 8, 4, 4), np.float32)), [2, 2], [1, 1], [0, 0], [0, 0], True,
                               "AveragePool")
    with pytest.raises(asc.AscendValueError, match=r"\[AveragePool\].*positive"):
        _C.nn.avg_pool_blocked(x, [0, 2], [1, 1], [0, 0], [0, 0], True, "AveragePool")
    with pytest.raises(asc.AscendValueError, match=r"\[AveragePool\].*pads"):
        _C.nn.avg_pool_blocked(x, [2, 2], [1, 1], [2, 0], [0, 0], True, "AveragePool")
    with pytest.raises(asc.AscendValueError, match=r"\[AveragePool\].*empty output"):
        _C.nn.avg_pool_blocked(x, [5, 2], [1, 1], [0, 0], [0, 0], True, "AveragePool")
    with pytest.raises(asc.AscendValueError, match=r"\[AveragePool\].*one entry per spatial axis"):
        _C.nn.avg_pool_blocked(x, [2, 2], [1], [0, 0], [0, 0], True, "AveragePool")
    with pytest.raises(asc.AscendTypeError, match=r"\[AveragePool\]"):
        _C.nn.avg_pool_blocked(asc.asarray(np.ones((1, 2, 4, 4, 8), np.int32)), [2, 2], [1, 1], [0, 0], [0, 0], True,
                               "AveragePool")
