"""asc.ops pooling vs independent NumPy references (direct window loops)."""

import itertools
import math

import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

DTYPES = ["float32", "float64", "float16", "bfloat16"]
TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 1.6e-2}


def _in(x, dtype):
    """A pyasc array of `dtype` and the float64 values it holds."""
    a = asc.asarray(np.asarray(x, np.float32)).astype(getattr(asc, dtype))
    return a, np.asarray(a.astype(asc.float64))


def _np(a):
    return np.asarray(a.astype(asc.float64)) if a.dtype != np.int64 else np.asarray(a)


def _out_size(n, k, s, p, d, ceil):
    eff = d * (k - 1) + 1
    num = n + 2 * p - eff
    o = (num + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def ref_max(x, k, s, p, d, ceil):
    nsp = len(k)
    sp = x.shape[-nsp:]
    outs = [_out_size(sp[i], k[i], s[i], p[i], d[i], ceil) for i in range(nsp)]
    lead = x.shape[:-nsp]
    y = np.empty(lead + tuple(outs))
    idx = np.empty(lead + tuple(outs), np.int64)
    for pre in itertools.product(*[range(v) for v in lead]):
        plane = x[pre]
        for o in itertools.product(*[range(v) for v in outs]):
            best, bi = -np.inf, None
            for kk in itertools.product(*[range(v) for v in k]):
                pos = [o[i] * s[i] - p[i] + kk[i] * d[i] for i in range(nsp)]
                if any(q < 0 or q >= sp[i] for i, q in enumerate(pos)):
                    continue
                v = plane[tuple(pos)]
                flat = int(np.ravel_multi_index(pos, sp))
                if bi is None:
                    bi = flat
                if v > best or np.isnan(v):
                    best, bi = v, flat
                    if np.isnan(v):
                        break
            y[pre + o] = best
            idx[pre + o] = bi
    return y, idx


def ref_avg(x, k, s, p, ceil, cip, div):
    nsp = len(k)
    sp = x.shape[-nsp:]
    outs = [_out_size(sp[i], k[i], s[i], p[i], 1, ceil) for i in range(nsp)]
    lead = x.shape[:-nsp]
    y = np.empty(lead + tuple(outs))
    for pre in itertools.product(*[range(v) for v in lead]):
        plane = x[pre]
        for o in itertools.product(*[range(v) for v in outs]):
            lo = [o[i] * s[i] - p[i] for i in range(nsp)]
            hi = [min(lo[i] + k[i], sp[i] + p[i]) for i in range(nsp)]
            full = math.prod(hi[i] - lo[i] for i in range(nsp))
            clo = [max(v, 0) for v in lo]
            chi = [min(hi[i], sp[i]) for i in range(nsp)]
            win = plane[tuple(slice(a, b) for a, b in zip(clo, chi))]
            cnt = win.size
            if cnt == 0:
                y[pre + o] = 0
                continue
            dv = div if div else (full if cip else cnt)
            y[pre + o] = win.sum() / dv
    return y


def ref_adaptive(x, outs, is_max):
    nsp = len(outs)
    sp = x.shape[-nsp:]
    lead = x.shape[:-nsp]
    y = np.empty(lead + tuple(outs))
    idx = np.empty(lead + tuple(outs), np.int64)
    for pre in itertools.product(*[range(v) for v in lead]):
        plane = x[pre]
        for o in itertools.product(*[range(v) for v in outs]):
            lo = [(o[i] * sp[i]) // outs[i] for i in range(nsp)]
            hi = [-(-((o[i] + 1) * sp[i]) // outs[i]) for i in range(nsp)]
            win = plane[tuple(slice(a, b) for a, b in zip(lo, hi))]
            if is_max:
                j = int(np.argmax(win)) if not np.isnan(win).any() else int(np.flatnonzero(np.isnan(win.ravel()))[0])
                pos = np.unravel_index(j, win.shape)
                y[pre + o] = win[pos]
                idx[pre + o] = int(np.ravel_multi_index([pos[i] + lo[i] for i in range(nsp)], sp))
            else:
                y[pre + o] = win.mean()
    return y, idx


rng = np.random.default_rng(0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    # shape, kernel, stride, padding, dilation, ceil
    ((2, 3, 9), (3,), (2,), (1,), (1,), False),
    ((1, 2, 10), (2,), (3,), (1,), (2,), True),
    ((2, 2, 7, 8), (3, 2), (2, 2), (1, 0), (1, 1), False),
    ((1, 3, 7, 7), (3, 3), (2, 2), (1, 1), (2, 1), True),
    ((2, 6, 5), (2, 2), (1, 2), (1, 1), (1, 1), True),          # unbatched (C, H, W)
    ((1, 2, 5, 6, 5), (2, 3, 2), (2, 1, 2), (1, 1, 0), (1, 1, 2), True),
])
def test_max_pool(dtype, cfg):
    shape, k, s, p, d, ceil = cfg
    x, xv = _in(rng.standard_normal(shape), dtype)
    fn = {1: ops.max_pool1d, 2: ops.max_pool2d, 3: ops.max_pool3d}[len(k)]
    y, i = fn(x, k, s, p, d, ceil, return_indices=True)
    ry, ri = ref_max(xv, k, s, p, d, ceil)
    assert y.dtype == x.dtype and i.dtype == np.int64
    np.testing.assert_array_equal(_np(y), ry)  # max is exact
    np.testing.assert_array_equal(np.asarray(i), ri)
    np.testing.assert_array_equal(_np(fn(x, k, s, p, d, ceil)), ry)


def test_max_pool_nan_inf_and_noncontiguous():
    x = rng.standard_normal((2, 3, 8, 10)).astype(np.float32)
    x[0, 1, 2, 3] = np.nan
    x[1, 2, :4, :4] = -np.inf
    x[1, 0, 5, 5] = np.inf
    xs = x[:, :, ::2, 1::2]  # non-contiguous view
    for arr in (x, xs):
        y, i = ops.max_pool2d(asc.asarray(arr), 2, 1, return_indices=True)
        ry, ri = ref_max(arr.astype(np.float64), (2, 2), (1, 1), (0, 0), (1, 1), False)
        np.testing.assert_array_equal(np.asarray(y), ry.astype(np.float32))
        np.testing.assert_array_equal(np.asarray(i), ri)
    y = ops.max_pool2d(asc.asarray(x).transpose(0, 1, 3, 2), 3)
    np.testing.assert_array_equal(np.asarray(y), ref_max(x.transpose(0, 1, 3, 2).astype(np.float64), (3, 3), (3, 3),
                                                         (0, 0), (1, 1), False)[0].astype(np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    # shape, kernel, stride, padding, ceil, count_include_pad, divisor
    ((2, 3, 9), (3,), (2,), (1,), False, True, None),
    ((2, 3, 10), (4,), (3,), (2,), True, False, None),
    ((2, 2, 7, 8), (3, 2), (2, 2), (1, 1), True, True, None),
    ((1, 2, 7, 7), (3, 3), (2, 3), (1, 1), True, False, None),
    ((1, 2, 6, 5), (2, 3), (2, 2), (1, 1), False, True, 5),
    ((1, 2, 5, 6, 5), (2, 3, 2), (2, 2, 2), (1, 1, 1), True, False, None),
    ((2, 5, 4, 6), (2, 2, 3), (1, 2, 2), (0, 1, 1), False, True, 7),
])
def test_avg_pool(dtype, cfg):
    shape, k, s, p, ceil, cip, div = cfg
    x, xv = _in(rng.standard_normal(shape), dtype)
    if len(k) == 1:
        y = ops.avg_pool1d(x, k, s, p, ceil, cip)
    else:
        fn = ops.avg_pool2d if len(k) == 2 else ops.avg_pool3d
        y = fn(x, k, s, p, ceil, cip, div)
    np.testing.assert_allclose(_np(y), ref_avg(xv, k, s, p, ceil, cip, div), rtol=TOL[dtype] * 4,
                               atol=TOL[dtype] * 4)
    assert y.dtype == x.dtype


def test_pool_stride_default_and_empty_batch():
    x = rng.standard_normal((0, 3, 6, 6)).astype(np.float32)
    assert ops.max_pool2d(x, 2).shape == (0, 3, 3, 3)
    assert ops.avg_pool2d(x, 3, padding=1).shape == (0, 3, 2, 2)
    y, i = ops.adaptive_max_pool2d(x, 4, return_indices=True)
    assert y.shape == (0, 3, 4, 4) and i.shape == (0, 3, 4, 4)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(ops.max_pool2d(x, 2)), np.asarray(ops.max_pool2d(x, 2, 2)))
    np.testing.assert_array_equal(np.asarray(ops.max_pool2d(x, 2, stride=[])), np.asarray(ops.max_pool2d(x, 2, 2)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,out", [((2, 3, 10), (4,)), ((2, 3, 7, 9), (3, 4)), ((3, 5, 5), (5, 2)),
                                       ((1, 2, 5, 7, 3), (2, 3, 5)), ((1, 2, 4, 4), (7, 9))])
def test_adaptive(dtype, shape, out):
    x, xv = _in(rng.standard_normal(shape), dtype)
    fa = {1: ops.adaptive_avg_pool1d, 2: ops.adaptive_avg_pool2d, 3: ops.adaptive_avg_pool3d}[len(out)]
    fm = {1: ops.adaptive_max_pool1d, 2: ops.adaptive_max_pool2d, 3: ops.adaptive_max_pool3d}[len(out)]
    ra, _ = ref_adaptive(xv, out, False)
    rm, ri = ref_adaptive(xv, out, True)
    np.testing.assert_allclose(_np(fa(x, out)), ra, rtol=TOL[dtype] * 4, atol=TOL[dtype] * 4)
    y, i = fm(x, out, return_indices=True)
    np.testing.assert_array_equal(_np(y), rm)
    np.testing.assert_array_equal(np.asarray(i), ri)


def test_adaptive_none_and_global():
    x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    assert ops.adaptive_avg_pool2d(x, (None, 3)).shape == (2, 3, 5, 3)
    np.testing.assert_allclose(np.asarray(ops.global_avg_pool(x)), x.mean(axis=(2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(ops.global_max_pool(x)), x.max(axis=(2, 3), keepdims=True))
    x3 = rng.standard_normal((2, 3, 4)).astype(np.float64)
    np.testing.assert_allclose(np.asarray(ops.global_avg_pool(x3)), x3.mean(axis=2, keepdims=True), rtol=1e-13)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("ceil", [False, True])
def test_lp_pool(p, ceil):
    x = np.abs(rng.standard_normal((2, 3, 7, 8))) + 0.1
    y = ops.lp_pool2d(asc.asarray(x), p, (3, 2), (2, 3), ceil)
    # torch's definition: (sum over the (clipped) window of x**p * k / window) ** (1/p)
    a = ref_avg(x ** p, (3, 2), (2, 3), (0, 0), ceil, True, None)
    np.testing.assert_allclose(np.asarray(y), (a * 6) ** (1 / p), rtol=1e-12)
    if not ceil:  # without edge windows it is the plain L_p norm of each window
        w = np.lib.stride_tricks.sliding_window_view(x, (3, 2), axis=(2, 3))[:, :, ::2, ::3]
        np.testing.assert_allclose(np.asarray(y), (w ** p).sum(axis=(-2, -1)) ** (1 / p), rtol=1e-12)
    x1 = np.abs(rng.standard_normal((2, 3, 9))).astype(np.float32)
    w = np.lib.stride_tricks.sliding_window_view(x1.astype(np.float64), 3, axis=2)[:, :, ::3]
    np.testing.assert_allclose(np.asarray(ops.lp_pool1d(x1, p, 3)), (w ** p).sum(-1) ** (1 / p), rtol=2e-5)


@pytest.mark.parametrize("call,msg", [
    (lambda x: ops.max_pool2d(x, 0), "kernel_size"),
    (lambda x: ops.max_pool2d(x, 2, 0), "stride"),
    (lambda x: ops.max_pool2d(x, 2, padding=2), "pad"),
    (lambda x: ops.avg_pool2d(x, 3, padding=2), "pad"),
    (lambda x: ops.max_pool2d(x, 2, dilation=0), "dilation"),
    (lambda x: ops.max_pool2d(x, 9), "output size"),
    (lambda x: ops.max_pool2d(x, (2, 2, 2)), "kernel_size"),
    (lambda x: ops.avg_pool2d(x, 2, divisor_override=0), "divisor"),
    (lambda x: ops.adaptive_avg_pool2d(x, (2, 2, 2)), "output_size"),
    (lambda x: ops.adaptive_avg_pool2d(x, -1), "output_size"),
])
def test_errors_value(call, msg):
    x = asc.asarray(rng.standard_normal((1, 2, 5, 5)).astype(np.float32))
    with pytest.raises(asc.errors.AscendValueError, match=msg):
        call(x)


def test_errors_shape_dtype():
    with pytest.raises(asc.errors.AscendValueError, match=r"max_pool2d.*\(2, 5\)"):
        ops.max_pool2d(np.zeros((2, 5), np.float32), 2)
    with pytest.raises(asc.errors.AscendValueError, match="non-zero"):
        ops.max_pool2d(np.zeros((1, 0, 4, 4), np.float32), 2)
    with pytest.raises(asc.errors.AscendTypeError, match="avg_pool2d.*int32"):
        ops.avg_pool2d(np.zeros((1, 1, 4, 4), np.int32), 2)
    with pytest.raises(asc.errors.AscendTypeError, match="kernel_size"):
        ops.max_pool2d(np.zeros((1, 1, 4, 4), np.float32), 2.5)


def test_modules():
    x = asc.asarray(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
    m = ops.MaxPool2d(3, stride=2, padding=1)
    np.testing.assert_array_equal(np.asarray(m(x)), np.asarray(ops.max_pool2d(x, 3, 2, 1)))
    y, i = ops.MaxPool2d(2, return_indices=True)(x)
    assert i.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(ops.AvgPool2d(2)(x)), np.asarray(ops.avg_pool2d(x, 2)))
    assert ops.AdaptiveAvgPool2d((1, 1))(x).shape == (2, 3, 1, 1)
    assert ops.AdaptiveMaxPool2d(3)(x).shape == (2, 3, 3, 3)
    assert ops.LPPool2d(2, 2)(x).shape == (2, 3, 4, 4)
    assert "kernel_size=3" in repr(m)
    with pytest.raises(TypeError):
        ops.MaxPool2d()
