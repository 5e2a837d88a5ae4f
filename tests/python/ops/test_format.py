"""asc.ops.to_format vs independent element-wise references of CANN's layouts."""

import itertools

import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

rng = np.random.default_rng(2)


def ref_nc1hwc0(x, c0):
    n, c, h, w = x.shape
    c1 = -(-c // c0)
    y = np.zeros((n, c1, h, w, c0), x.dtype)
    for i, j, a, b in itertools.product(range(n), range(c), range(h), range(w)):
        y[i, j // c0, a, b, j % c0] = x[i, j, a, b]
    return y


def ref_fractal_z(wt, c0):
    n, c, h, w = wt.shape
    c1, n1 = -(-c // c0), -(-n // 16)
    y = np.zeros((c1 * h * w, n1, 16, c0), wt.dtype)
    for i, j, a, b in itertools.product(range(n), range(c), range(h), range(w)):
        y[((j // c0) * h + a) * w + b, i // 16, i % 16, j % c0] = wt[i, j, a, b]
    return y


@pytest.mark.parametrize("dtype,c0", [(np.float16, 16), (np.float32, 16), (np.int8, 32), (np.uint8, 32),
                                      (np.int32, 16)])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 16, 2, 2), (1, 33, 3, 1), (0, 5, 2, 2)])
def test_nc1hwc0_roundtrip(dtype, c0, shape):
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    assert ops.c0_of(dtype) == c0
    y = ops.to_format(x, "NC1HWC0")
    r = ref_nc1hwc0(x, c0)
    assert y.dtype == dtype and y.shape == r.shape
    np.testing.assert_array_equal(np.asarray(y), r)
    back = ops.to_format(y, "NCHW", src_format="NC1HWC0", shape=shape)
    np.testing.assert_array_equal(np.asarray(back), x)
    nhwc = ops.to_format(y, "NHWC", shape=shape)
    np.testing.assert_array_equal(np.asarray(nhwc), x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(np.asarray(ops.to_format(x.transpose(0, 2, 3, 1), "NC1HWC0", src_format="NHWC")),
                                  r)
    # default back conversion keeps the zero-padded channels
    np.testing.assert_array_equal(np.asarray(ops.to_format(y, "NCHW"))[:, :shape[1]], x)


@pytest.mark.parametrize("dtype,c0", [(np.float16, 16), (np.float32, 16), (np.int8, 32)])
@pytest.mark.parametrize("shape", [(20, 3, 3, 3), (16, 16, 1, 1), (5, 40, 2, 3)])
def test_fractal_z_roundtrip(dtype, c0, shape):
    wt = (rng.standard_normal(shape) * 50).astype(dtype)
    y = ops.to_format(wt, "FRACTAL_Z")
    np.testing.assert_array_equal(np.asarray(y), ref_fractal_z(wt, c0))
    np.testing.assert_array_equal(np.asarray(ops.to_format(y, "NCHW", src_format="FRACTAL_Z", shape=shape)), wt)
    ws = asc.asarray(wt.transpose(0, 2, 3, 1))  # NHWC weight
    np.testing.assert_array_equal(np.asarray(ops.to_format(ws, "FRACTAL_Z", src_format="NHWC")),
                                  ref_fractal_z(wt, c0))


def test_nchw_nhwc_and_ids():
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(ops.to_format(x, "NHWC")), x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(np.asarray(ops.to_format(x.transpose(0, 2, 3, 1), "NCHW", "NHWC")), x)
    assert [ops.format_id(f) for f in ("NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z")] == [0, 1, 2, 3, 4]
    assert ops.FORMAT_IDS["FRACTAL_NZ"] == 29


def test_errors():
    x = np.zeros((2, 3, 4, 5), np.float32)
    with pytest.raises(asc.errors.AscendValueError, match="NC1HWC0"):
        ops.to_format(x, "NCHW16")
    with pytest.raises(asc.errors.AscendValueError, match="needs shape"):
        ops.to_format(x, "NCHW", src_format="FRACTAL_Z")
    with pytest.raises(asc.errors.AscendValueError, match="must be 4-D"):
        ops.to_format(np.zeros((2, 3, 4)), "NC1HWC0", src_format="NCHW")
    with pytest.raises(asc.errors.AscendValueError, match="5-D"):
        ops.to_format(np.zeros((2, 1, 4, 5, 8), np.float32), "NCHW", src_format="NC1HWC0")
    with pytest.raises(asc.errors.AscendValueError, match="does not fit"):
        ops.to_format(np.zeros((2, 1, 4, 5, 16), np.float32), "NCHW", shape=(2, 17, 4, 5))
    with pytest.raises(asc.errors.AscendValueError, match="FRACTAL_Z weight"):
        ops.to_format(np.zeros((9, 2, 16, 16), np.float32), "NCHW", "FRACTAL_Z", shape=(20, 3, 3, 2))
    with pytest.raises(asc.errors.AscendValueError, match="unknown format"):
        ops.format_id("XYZ")
