"""asc.ops normalisation vs independent NumPy references."""

import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

DTYPES = ["float32", "float64", "float16", "bfloat16"]
TOL = {"float32": 2e-5, "float64": 1e-12, "float16": 4e-3, "bfloat16": 3e-2}
rng = np.random.default_rng(1)


def _in(x, dtype):
    a = asc.asarray(np.asarray(x, np.float64)).astype(getattr(asc, dtype))
    return a, np.asarray(a.astype(asc.float64))


def _np(a):
    return np.asarray(a.astype(asc.float64))


def _close(y, r, dtype, scale=1.0):
    np.testing.assert_allclose(_np(y), r, rtol=TOL[dtype] * scale, atol=TOL[dtype] * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2)])
def test_batch_norm_inference(dtype, shape):
    x, xv = _in(rng.standard_normal(shape) * 3 + 1, dtype)
    c = shape[1]
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    bc = (1, c) + (1,) * (len(shape) - 2)
    ref = (xv - rm.reshape(bc)) / np.sqrt(rv.reshape(bc) + 1e-3) * w.reshape(bc) + b.reshape(bc)
    y = ops.batch_norm(x, rm, rv, w, b, eps=1e-3)
    assert y.dtype == x.dtype and y.shape == shape
    _close(y, ref, dtype, 8)
    ref0 = (xv - rm.reshape(bc)) / np.sqrt(rv.reshape(bc) + 1e-5)
    _close(ops.batch_norm(x, rm, rv), ref0, dtype, 8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_norm_training_updates_running_stats(dtype):
    xv = rng.standard_normal((4, 3, 5, 2)) * 2 + 3
    x = asc.asarray(xv).astype(getattr(asc, dtype))
    rm = asc.asarray(np.full(3, 0.5)).astype(getattr(asc, dtype))
    rv = asc.asarray(np.full(3, 2.0)).astype(getattr(asc, dtype))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    y = ops.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-5)
    mean = xv.mean(axis=(0, 2, 3))
    var = xv.var(axis=(0, 2, 3))
    bc = (1, 3, 1, 1)
    ref = (xv - mean.reshape(bc)) / np.sqrt(var.reshape(bc) + 1e-5) * w.reshape(bc) + b.reshape(bc)
    _close(y, ref, dtype, 8)
    n = 4 * 5 * 2
    np.testing.assert_allclose(np.asarray(rm), 0.8 * 0.5 + 0.2 * mean, rtol=TOL[dtype])
    np.testing.assert_allclose(np.asarray(rv), 0.8 * 2.0 + 0.2 * var * n / (n - 1), rtol=TOL[dtype])
    # NumPy arrays are updated in place too; None running stats are fine in training
    rmn, rvn = np.zeros(3, np.float32), np.ones(3, np.float32)
    ops.batch_norm(xv.astype(np.float32), rmn, rvn, training=True)
    np.testing.assert_allclose(rmn, 0.1 * mean, rtol=1e-5)
    _close(ops.batch_norm(x, None, None, training=True), (xv - mean.reshape(bc)) / np.sqrt(var.reshape(bc) + 1e-5),
           dtype, 8)


def test_batch_norm_errors():
    x = np.zeros((1, 3), np.float32)
    with pytest.raises(asc.errors.AscendValueError, match="more than 1 value per channel"):
        ops.batch_norm(x, np.zeros(3, np.float32), np.ones(3, np.float32), training=True)
    with pytest.raises(asc.errors.AscendValueError, match=r"running_mean must have shape \(3,\)"):
        ops.batch_norm(x, np.zeros(4, np.float32), np.ones(3, np.float32))
    with pytest.raises(asc.errors.AscendValueError, match="required"):
        ops.batch_norm(x, None, None)
    with pytest.raises(asc.errors.AscendTypeError, match="batch_norm.*int64"):
        ops.batch_norm(np.zeros((2, 3), np.int64), np.zeros(3), np.ones(3))
    with pytest.raises(asc.errors.AscendValueError, match="writeable"):
        ops.batch_norm(np.ones((2, 3), np.float32), asc.broadcast_to(asc.asarray(np.float32(0)), (3,)),
                       np.ones(3, np.float32), training=True)


def test_batch_norm_empty_and_noncontiguous():
    x = np.zeros((0, 3, 4), np.float32)
    assert ops.batch_norm(x, np.zeros(3), np.ones(3)).shape == (0, 3, 4)
    xv = rng.standard_normal((3, 4, 6)).astype(np.float32)
    xs = asc.asarray(xv)[:, :, ::2]
    ref = (xv[:, :, ::2] - 1.0) / np.sqrt(2.0 + 1e-5)
    np.testing.assert_allclose(np.asarray(ops.batch_norm(xs, np.ones(4), np.full(4, 2.0))), ref, rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", [((4, 7), (7,)), ((2, 3, 8), (3, 8)), ((2, 3, 4, 5), (5,)), ((5,), (5,)),
                                      ((3, 1000), (1000,))])
def test_layer_norm(dtype, shape, ns):
    x, xv = _in(rng.standard_normal(shape) * 4 + 10, dtype)
    w, b = rng.standard_normal(ns), rng.standard_normal(ns)
    ax = tuple(range(len(shape) - len(ns), len(shape)))
    m, v = xv.mean(axis=ax, keepdims=True), xv.var(axis=ax, keepdims=True)
    ref = (xv - m) / np.sqrt(v + 1e-5)
    _close(ops.layer_norm(x, ns, w, b), ref * w + b, dtype, 10)
    _close(ops.layer_norm(x, ns), ref, dtype, 10)
    _close(ops.layer_norm(x, ns, w), ref * w, dtype, 10)
    _close(ops.layer_norm(x, ns, None, b), ref + b, dtype, 10)
    assert ops.layer_norm(x, ns).dtype == x.dtype


def test_layer_norm_errors_and_edge():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(asc.errors.AscendValueError, match=r"layer_norm.*normalized_shape \(4,\)"):
        ops.layer_norm(x, (4,))
    with pytest.raises(asc.errors.AscendValueError, match="weight must have the normalized shape"):
        ops.layer_norm(x, (3,), np.ones(4, np.float32))
    assert ops.layer_norm(np.zeros((0, 3), np.float32), (3,)).shape == (0, 3)
    y = np.asarray(ops.layer_norm(x, (3,)))  # constant rows normalise to 0
    np.testing.assert_array_equal(y, np.zeros((2, 3), np.float32))
    xn = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]], np.float32)
    y = np.asarray(ops.layer_norm(xn, (3,)))
    assert np.isnan(y[0]).all() and np.isfinite(y[1]).all()
    xv = rng.standard_normal((4, 6)).astype(np.float32)
    xt = asc.asarray(xv).T  # non-contiguous
    r = (xv.T - xv.T.mean(1, keepdims=True)) / np.sqrt(xv.T.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(ops.layer_norm(xt, 4)), r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,g", [((2, 6, 4), 3), ((2, 4, 3, 3), 1), ((1, 4, 2, 5), 4), ((3, 6), 2)])
def test_group_norm(dtype, shape, g):
    x, xv = _in(rng.standard_normal(shape) * 2 - 1, dtype)
    c = shape[1]
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    xg = xv.reshape(shape[0], g, -1)
    ref = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-5)).reshape(shape)
    bc = (1, c) + (1,) * (len(shape) - 2)
    _close(ops.group_norm(x, g, w, b), ref * w.reshape(bc) + b.reshape(bc), dtype, 10)
    _close(ops.group_norm(x, g), ref, dtype, 10)
    with pytest.raises(asc.errors.AscendValueError, match="divisible by num_groups 5"):
        ops.group_norm(x, 5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_instance_norm(dtype):
    shape = (3, 4, 5, 6)
    x, xv = _in(rng.standard_normal(shape) * 2 + 1, dtype)
    m, v = xv.mean(axis=(2, 3), keepdims=True), xv.var(axis=(2, 3), keepdims=True)
    w, b = rng.standard_normal(4), rng.standard_normal(4)
    bc = (1, 4, 1, 1)
    _close(ops.instance_norm(x, weight=w, bias=b), (xv - m) / np.sqrt(v + 1e-5) * w.reshape(bc) + b.reshape(bc),
           dtype, 10)
    rm, rv = np.zeros(4), np.ones(4)
    ops.instance_norm(x, rm, rv, momentum=0.3)
    np.testing.assert_allclose(rm, 0.3 * m.mean(axis=0).ravel(), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(rv, 0.7 + 0.3 * (v * 30 / 29).mean(axis=0).ravel(), rtol=TOL[dtype] * 10)
    rm2, rv2 = rng.standard_normal(4), rng.random(4) + 0.5
    _close(ops.instance_norm(x, rm2, rv2, use_input_stats=False),
           (xv - rm2.reshape(bc)) / np.sqrt(rv2.reshape(bc) + 1e-5), dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm(dtype):
    x, xv = _in(rng.standard_normal((3, 4, 8)), dtype)
    w = rng.standard_normal(8)
    eps = {"float32": np.finfo(np.float32).eps, "float64": np.finfo(np.float64).eps,
           "float16": np.finfo(np.float16).eps, "bfloat16": 2.0 ** -7}[dtype]
    ref = xv / np.sqrt((xv ** 2).mean(-1, keepdims=True) + eps)
    _close(ops.rms_norm(x, (8,), w), ref * w, dtype, 10)
    _close(ops.rms_norm(x, 8), ref, dtype, 10)
    ref2 = xv / np.sqrt((xv ** 2).mean(axis=(1, 2), keepdims=True) + 0.1)
    _close(ops.rms_norm(x, (4, 8), eps=0.1), ref2, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm(dtype, size):
    shape = (2, 6, 3, 4)
    x, xv = _in(rng.standard_normal(shape), dtype)
    sq = xv ** 2
    c = shape[1]
    acc = np.zeros_like(xv)
    for ch in range(c):
        lo, hi = max(0, ch - size // 2), min(c - 1, ch + (size - 1) // 2)
        acc[:, ch] = sq[:, lo:hi + 1].sum(axis=1)
    ref = xv / (2.0 + 0.1 * acc / size) ** 0.75
    _close(ops.local_response_norm(x, size, alpha=0.1, beta=0.75, k=2.0), ref, dtype, 10)
    with pytest.raises(asc.errors.AscendValueError):
        ops.local_response_norm(np.zeros((2, 3), np.float32), 2)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_normalize_lp(p, dim):
    xv = rng.standard_normal((3, 4, 5))
    n = np.linalg.norm(np.moveaxis(xv, dim, -1), ord=p, axis=-1)
    ref = xv / np.expand_dims(np.maximum(n, 1e-12), dim)
    np.testing.assert_allclose(np.asarray(ops.normalize(xv, p, dim)), ref, rtol=1e-12)
    z = np.zeros((2, 3))
    np.testing.assert_array_equal(np.asarray(ops.normalize(z)), z)  # eps keeps 0/0 away
    y = ops.normalize(asc.asarray(xv.astype(np.float32)), p, dim)
    assert y.dtype == np.float32
    np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("out_dtype", ["float32", "float16", "bfloat16", "float64"])
def test_normalize_image_uint8_hwc_to_nchw(out_dtype):
    img = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    y = ops.normalize_image(img, mean, std, layout="HWC", out_layout="NCHW", dtype=getattr(asc, out_dtype))
    ref = ((img.astype(np.float64) / 255 - mean) / std).transpose(2, 0, 1)[None]
    assert y.shape == (1, 3, 5, 7) and y.dtype == getattr(asc, out_dtype)
    _close(y, ref, out_dtype if out_dtype != "float32" else "float32", 10)


def test_normalize_image_layouts():
    x = rng.random((2, 4, 5, 3)).astype(np.float32)
    m, s = np.array([0.1, 0.2, 0.3]), np.array([0.5, 0.25, 2.0])
    ref = (x.astype(np.float64) - m) / s
    np.testing.assert_allclose(np.asarray(ops.normalize_image(x, m, s, "NHWC", "NCHW")), ref.transpose(0, 3, 1, 2),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.normalize_image(x, m, s, "NHWC", "NHWC")), ref, rtol=1e-6)
    xc = x.transpose(0, 3, 1, 2)  # non-contiguous NCHW view
    np.testing.assert_allclose(np.asarray(ops.normalize_image(xc, m, s, "NCHW", "NHWC")), ref, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.normalize_image(x[0], 0.5, 2.0, "HWC", "CHW")),
                               ((x[0] - 0.5) / 2.0).transpose(2, 0, 1), rtol=1e-6)
    y = ops.normalize_image(x[0] * 255, m, s, "HWC", "HWC", scale=1 / 255)
    np.testing.assert_allclose(np.asarray(y), ref[0], rtol=1e-5)
    with pytest.raises(asc.errors.AscendValueError, match="3 channels"):
        ops.normalize_image(x, [0.1, 0.2], [1, 1], "NHWC", "NCHW")
    with pytest.raises(asc.errors.AscendValueError, match="permutation"):
        ops.normalize_image(x, m, s, "NHHC", "NCHW")
    with pytest.raises(asc.errors.AscendValueError, match="zero"):
        ops.normalize_image(x, m, [1, 0, 1], "NHWC", "NCHW")


def test_modules_batchnorm_train_eval():
    bn = ops.BatchNorm2d(3, momentum=0.5)
    xv = rng.standard_normal((4, 3, 2, 2)).astype(np.float32) + 2
    bn(xv)
    mean = xv.mean(axis=(0, 2, 3))
    np.testing.assert_allclose(np.asarray(bn.running_mean), 0.5 * mean, rtol=1e-5)
    assert int(np.asarray(bn.num_batches_tracked)) == 1
    bn.eval()
    y = bn(xv)
    rm, rv = np.asarray(bn.running_mean), np.asarray(bn.running_var)
    ref = (xv - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-5, atol=1e-5)
    sd = bn.state_dict()
    assert set(sd) >= {"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}
    cma = ops.BatchNorm1d(3, momentum=None)
    x1 = rng.standard_normal((5, 3)).astype(np.float32)
    cma(x1)
    cma(x1 + 1)
    np.testing.assert_allclose(np.asarray(cma.running_mean), (x1.mean(0) + (x1 + 1).mean(0)) / 2, rtol=1e-5)
    with pytest.raises(asc.errors.AscendValueError, match="BatchNorm2d"):
        ops.BatchNorm2d(3)(x1)


def test_modules_other_norms():
    x = rng.standard_normal((2, 4, 3, 5)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(ops.LayerNorm(5)(x)), np.asarray(ops.layer_norm(x, (5,))), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.GroupNorm(2, 4)(x)), np.asarray(ops.group_norm(x, 2)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.InstanceNorm2d(4)(x)), np.asarray(ops.instance_norm(x)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.InstanceNorm2d(4)(x[0])), np.asarray(ops.instance_norm(x[:1]))[0],
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.RMSNorm([3, 5])(x)), np.asarray(ops.rms_norm(x, (3, 5))), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ops.LocalResponseNorm(2)(x)), np.asarray(ops.local_response_norm(x, 2)),
                               rtol=1e-6)
    with pytest.raises(asc.errors.AscendValueError):
        ops.GroupNorm(3, 4)


def test_lazy_inputs_and_in_place_running_stats_ordering():
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    xa = asc.asarray(x)
    np.testing.assert_allclose(np.asarray(ops.layer_norm(xa * 3, (6,))), np.asarray(ops.layer_norm(x * 3, (6,))),
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(ops.max_pool2d(xa * 2 + 1, 2)),
                                  np.asarray(ops.max_pool2d(x, 2)) * 2 + 1)
    rm = asc.zeros(3) + 0  # a pending (lazy) running mean
    rv = asc.asarray(np.ones(3, np.float32))
    before = rm * 2 + 1  # recorded before the in-place update: must see the old values
    ops.batch_norm(xa, rm, rv, training=True)
    np.testing.assert_allclose(np.asarray(rm), 0.1 * x.astype(np.float64).mean(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(before), np.ones(3))


@pytest.mark.parametrize("shape", [(2, 3, 1001, 701), (1, 5, 1, 1 << 20), (3, 1 << 20)])
def test_batch_norm_inference_large_streamed_parallel(shape):
    # >= 4 MiB float32 outputs take the streamed, all-core scale/shift (src/nn/norm.cc): planes of
    # odd length start at every alignment, (3, 2^20) is one element per plane (C = 2^20), and a
    # strided view goes through the contiguous copy first
    c = shape[1]
    xv = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    bc = (1, c) + (1,) * (len(shape) - 2)
    sc = (w / np.sqrt(rv + 1e-5)).reshape(bc)
    ref = (xv.astype(np.float64) - rm.reshape(bc)) * sc + b.reshape(bc)
    y = np.asarray(ops.batch_norm(asc.asarray(xv), rm, rv, w, b))
    # float32 (x - rm) * sc + b (rm rounded to float, its rounding folded into the shift in double):
    # |error| <= a few ulp of |(x - rm) sc| + |b| (measured <= 3.4)
    bound = 4 * 2.0 ** -24 * (np.abs((xv - rm.reshape(bc)) * sc) + np.abs(b.reshape(bc)))
    assert np.all(np.abs(y - ref) <= bound + 1e-30)
    xs = asc.asarray(xv)[..., ::2] if len(shape) > 2 else asc.asarray(xv)[::2]
    ys = np.asarray(ops.batch_norm(xs, rm, rv, w, b))
    np.testing.assert_array_equal(ys, y[..., ::2] if len(shape) > 2 else y[::2])


def test_instance_norm_large_parallel():
    xv = (rng.standard_normal((2, 4, 513, 1023)) * 2 - 1).astype(np.float32)
    m, v = xv.astype(np.float64).mean(axis=(2, 3), keepdims=True), xv.astype(np.float64).var(axis=(2, 3), keepdims=True)
    ref = (xv - m) / np.sqrt(v + 1e-5)
    np.testing.assert_allclose(np.asarray(ops.instance_norm(asc.asarray(xv))), ref, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_layer_norm_large_rows_split_over_cores(dtype):
    # >= 2^15 elements: oneDNN pieces (float32 / bfloat16) or the own kernel (float64) run one
    # range of rows per core; 4097 rows split unevenly, a non-contiguous input copied first
    xv = rng.standard_normal((4097, 2 * 300)) * 3 + 5
    x, xd = _in(xv, dtype)
    xs = x[:, ::2]
    xsv = xd[:, ::2]
    w, b = rng.standard_normal(300), rng.standard_normal(300)
    m, v = xsv.mean(axis=-1, keepdims=True), xsv.var(axis=-1, keepdims=True)
    ref = (xsv - m) / np.sqrt(v + 1e-5) * w + b
    _close(ops.layer_norm(xs, (300,), w, b), ref, dtype, 8)
    _close(ops.layer_norm(xs, (300,)), (xsv - m) / np.sqrt(v + 1e-5), dtype, 8)


def test_rms_norm_large_rows_split_over_cores():
    xv = (rng.standard_normal((2049, 513)) * 2 + 1).astype(np.float32)
    w = rng.standard_normal(513)
    x64 = xv.astype(np.float64)
    ref = x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + 1e-6) * w
    _close(ops.rms_norm(asc.asarray(xv), (513,), w, eps=1e-6), ref, "float32", 8)
