"""More of the namespace vs NumPy (xp harness): elementwise math, power,
statistics, arg-reductions, scans, creation, manipulation, dtype queries."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES
from test_ops import data, views

IDS = lambda d: np.dtype(d).name  # noqa: E731


def _is_float(dtype):
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16)


# ------------------------------------------------------------------ elementwise


UNARY_MATH = ["exp2", "expm1", "log2", "log10", "log1p", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
              "arcsinh", "arctanh", "cbrt", "rint"]


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=IDS)
@pytest.mark.parametrize("op", UNARY_MATH)
def test_unary_math_more(check, op, dtype):
    a = data(dtype, 40, 21)
    if _is_float(dtype) and op in ("exp2", "expm1", "sinh", "cosh"):
        a = np.clip(a.astype(np.float64), -10, 10).astype(dtype)
    if _is_float(dtype) and op in ("arcsin", "arccos", "arctanh"):
        a = (a.astype(np.float64) / 30).astype(dtype)
    rtol = 1e-5 if np.dtype(dtype) == np.dtype(np.float32) else None
    for i in range(3):
        check(lambda xp: getattr(xp, op)(views(xp, a)[i]), rtol=rtol)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
@pytest.mark.parametrize("op", ["floor", "ceil", "trunc", "sign", "square", "isnan", "isinf", "isfinite",
                                "signbit"])
def test_unary_same_kind(check, op, dtype):
    a = data(dtype, 33, 22)
    if op == "square" and np.dtype(dtype).kind in "iu":
        a = a % 50  # products stay exact in int8.. (and wrap identically otherwise)
    check(lambda xp: getattr(xp, op)(xp.asarray(a)[::-1]))
    check(lambda xp: getattr(xp, op)(xp.asarray(np.asarray(a[3], dtype))))  # 0-d


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.int16, np.int64], ids=IDS)
def test_reciprocal(check, dtype):
    a = data(dtype, 20, 23, nonzero=True)
    check(lambda xp: xp.reciprocal(xp.asarray(a)))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=IDS)
def test_power(check, dtype):
    a = data(dtype, 30, 24)
    b = data(dtype, 30, 25)
    if np.dtype(dtype).kind in "iu":
        b = np.abs(b.astype(np.int64)).astype(dtype) % 5
    if _is_float(dtype):
        a = np.abs(a)
        b = np.clip(b.astype(np.float64), -3, 3).astype(dtype)
    rtol = 1e-5 if np.dtype(dtype) == np.dtype(np.float32) else None
    check(lambda xp: xp.power(xp.asarray(a), xp.asarray(b)), rtol=rtol)
    if dtype is not np.bool_:  # NumPy's bool_array ** 2 takes its square() shortcut (int8)
        check(lambda xp: xp.asarray(a) ** 2, rtol=rtol)
    check(lambda xp: 2 ** xp.asarray(b)[::-1], rtol=rtol)


def test_power_negative_integer_exponent(check):
    check(lambda xp: xp.power(xp.asarray(np.array([2, 3], np.int32)), xp.asarray(np.array([1, -1], np.int32))))


def test_power_inplace(check):
    def f(xp):
        x = xp.asarray(np.arange(5, dtype=np.float32)).copy()
        x **= 2
        return x
    check(f)


@pytest.mark.parametrize("op", ["arctan2", "hypot", "copysign", "fmax", "fmin"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32], ids=IDS)
def test_binary_math(check, op, dtype):
    a, b = data(dtype, 30, 26), data(dtype, 30, 27)[::-1].copy()
    rtol = 1e-5 if np.dtype(dtype) == np.dtype(np.float32) else None
    check(lambda xp: getattr(xp, op)(xp.asarray(a), xp.asarray(b)), rtol=rtol)
    check(lambda xp: getattr(xp, op)(xp.asarray(a)[:, None][:5], xp.asarray(b)[:4]), rtol=rtol)


# bfloat16 is left out: NumPy's clip of ml_dtypes' bfloat16 with Python ints gives float32.
@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float16, np.float32, np.float64], ids=IDS)
def test_clip(check, dtype):
    a = data(dtype, 30, 28)
    check(lambda xp: xp.clip(xp.asarray(a), 1, 5))
    check(lambda xp: xp.clip(xp.asarray(a), None, 3))
    check(lambda xp: xp.clip(xp.asarray(a), xp.asarray(a)[::-1], None))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16, np.uint8], ids=IDS)
@pytest.mark.parametrize("decimals", [0, 1, 2, -1])
def test_round(check, dtype, decimals):
    a = data(dtype, 30, 29)
    if _is_float(dtype):
        a = (a.astype(np.float64) * 1.37).astype(dtype)
    if decimals < 0 and np.dtype(dtype).kind in "iu":
        return  # integer rounding to tens is not implemented
    check(lambda xp: xp.round(xp.asarray(a), decimals))


# ------------------------------------------------------------------ reductions


STATS_AXES = [None, 0, 1, -1, (0, 2)]


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=IDS)
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std(check, op, dtype):
    a = data(dtype, 60, 30).reshape(3, 4, 5)
    if np.dtype(dtype).kind in "iu":
        a = (a.astype(np.int64) % 50).astype(dtype)
    if _is_float(dtype):
        a = np.nan_to_num(a.astype(np.float64), nan=1.0, posinf=2.0, neginf=-2.0).astype(dtype)
    if np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16):
        return  # NumPy's bfloat16 var computes in bfloat16 (far less accurate than ours)
    rtol = 2e-2 if np.dtype(dtype).itemsize == 2 else 1e-5 if np.dtype(dtype) == np.dtype(np.float32) else None
    for axis in STATS_AXES:
        check(lambda xp: getattr(xp, op)(xp.asarray(a).transpose(1, 0, 2), axis=axis), rtol=rtol)
    check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=1, ddof=1, keepdims=True), rtol=rtol)
    check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=0, correction=2), rtol=rtol)
    check(lambda xp: getattr(xp.asarray(a), op)(ddof=1), rtol=rtol)


def test_var_special(check):
    check(lambda xp: xp.var(xp.asarray(np.array([1.0, np.nan, 3.0]))))
    check(lambda xp: xp.std(xp.asarray(np.array([1.0, 2.0])), ddof=2))
    check(lambda xp: xp.var(xp.asarray(np.array(3.0, np.float32))))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin(check, op, dtype):
    a = data(dtype, 60, 31).reshape(3, 4, 5)
    for axis in [None, 0, 1, -1]:
        check(lambda xp: getattr(xp, op)(xp.asarray(a).transpose(2, 0, 1)[::-1], axis=axis))
        check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=axis, keepdims=True))
    check(lambda xp: getattr(xp.asarray(a), op)())
    check(lambda xp: getattr(xp, op)(xp.asarray(np.asarray(a[0, 0, 0]))))  # 0-d
    check(lambda xp: getattr(xp, op)(xp.zeros((0, 3), dtype), axis=0))  # empty: ValueError
    check(lambda xp: getattr(xp, op)(xp.zeros((0, 3), dtype), axis=1))


def test_argmax_nan_first(check):
    check(lambda xp: xp.argmax(xp.asarray(np.array([1.0, np.nan, 5.0, np.nan]))))
    check(lambda xp: xp.argmin(xp.asarray(np.array([np.inf, -np.inf, -np.inf], np.float32))))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
@pytest.mark.parametrize("op", ["all", "any"])
def test_all_any(check, op, dtype):
    a = data(dtype, 60, 32).reshape(3, 4, 5)
    a.reshape(-1)[::3] = 0
    for axis in [None, 0, 1, -1, (0, 2), ()]:
        for keepdims in (False, True):
            check(lambda xp: getattr(xp, op)(xp.asarray(a)[:, ::-1], axis=axis, keepdims=keepdims))
    check(lambda xp: getattr(xp, op)(xp.zeros((0, 3), dtype)))
    check(lambda xp: getattr(xp, op)(xp.zeros((0, 3), dtype), axis=0))
    check(lambda xp: getattr(xp.asarray(np.ones(4, dtype)), op)())


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod(check, op, dtype):
    a = data(dtype, 24, 33).reshape(2, 3, 4)
    if op == "cumprod" and np.dtype(dtype).kind in "iuf":
        a = (np.abs(a.astype(np.float64)) % 3).astype(dtype)
    rtol = 2e-2 if np.dtype(dtype).itemsize == 2 else None
    for axis in [None, 0, 1, -1]:
        check(lambda xp: getattr(xp, op)(xp.asarray(a)[::-1], axis=axis), rtol=rtol)
    check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=2, dtype=xp.float64), rtol=rtol)
    check(lambda xp: getattr(xp, op)(xp.asarray(np.asarray(a[0, 0, 0]))))
    check(lambda xp: getattr(xp, op)(xp.zeros((0, 3), dtype), axis=1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_count_nonzero(check, dtype):
    a = data(dtype, 24, 34).reshape(2, 3, 4)
    check(lambda xp: xp.count_nonzero(xp.asarray(a)))
    check(lambda xp: xp.count_nonzero(xp.asarray(a), axis=1))
    check(lambda xp: xp.count_nonzero(xp.asarray(a), axis=(0, 2), keepdims=True))


def test_large_reductions_parallel(check):
    rng = np.random.default_rng(1)
    m = rng.standard_normal((700, 300)).astype(np.float32)
    v = rng.standard_normal(300001).astype(np.float32)
    v[12345] = np.nan
    for axis in (None, 0, 1):
        check(lambda xp: xp.sum(xp.asarray(m), axis=axis), rtol=1e-4)
        check(lambda xp: xp.max(xp.asarray(m).T, axis=axis))
        check(lambda xp: xp.min(xp.asarray(m), axis=axis))
        check(lambda xp: xp.sum(xp.asarray(m.astype(np.int32)), axis=axis))
    check(lambda xp: xp.max(xp.asarray(v)))
    check(lambda xp: xp.sum(xp.asarray(np.nan_to_num(v))), rtol=1e-4)
    check(lambda xp: xp.max(xp.asarray(np.nan_to_num(v))))
    check(lambda xp: xp.argmax(xp.asarray(v)))
    check(lambda xp: xp.any(xp.asarray(v > 3), axis=0))
    check(lambda xp: xp.sum(xp.asarray(np.ones((3, 200000), np.float32)), axis=1))


def test_sum_accuracy():
    # 2^24 ones plus small values: a naive float32 accumulation stalls at 2^24.
    v = np.full(1 << 22, 0.1, np.float32)
    ref = float(np.sum(v, dtype=np.float64))
    got = float(asc.sum(asc.asarray(v)))
    assert abs(got - ref) <= max(abs(float(np.sum(v)) - ref) * 4, 1e-6 * ref)


# ------------------------------------------------------------------ creation


def test_linspace_eye_tri(check):
    check(lambda xp: xp.linspace(0, 1, 11))
    check(lambda xp: xp.linspace(-2, 5, 7, endpoint=False, dtype=xp.float32))
    check(lambda xp: xp.linspace(0, 1, 5, retstep=True))
    check(lambda xp: xp.linspace(0, 1, 0))
    check(lambda xp: xp.eye(3))
    check(lambda xp: xp.eye(3, 5, k=2, dtype=xp.int8))
    check(lambda xp: xp.eye(4, k=-1, dtype=xp.bool_))
    check(lambda xp: xp.identity(4, dtype=xp.float16))
    check(lambda xp: xp.identity(2))
    check(lambda xp: xp.tri(3, 4, 1))
    check(lambda xp: xp.tri(2, dtype=xp.int32))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float32, ml_dtypes.bfloat16], ids=IDS)
@pytest.mark.parametrize("k", [0, 1, -2])
def test_tril_triu(check, dtype, k):
    a = data(dtype, 60, 35).reshape(3, 4, 5)
    check(lambda xp: xp.tril(xp.asarray(a), k))
    check(lambda xp: xp.triu(xp.asarray(a)[:, ::-1], k=k))
    check(lambda xp: xp.tril(xp.asarray(a[0, 0])))
    check(lambda xp: xp.triu(xp.zeros((0, 3), dtype)))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(check, indexing, sparse):
    x = np.arange(3, dtype=np.float32)
    y = np.arange(4, dtype=np.int16)
    z = np.arange(2.0)
    check(lambda xp: xp.meshgrid(xp.asarray(x), xp.asarray(y), indexing=indexing, sparse=sparse))
    check(lambda xp: xp.meshgrid(xp.asarray(x), xp.asarray(y), xp.asarray(z), indexing=indexing, sparse=sparse))
    check(lambda xp: xp.meshgrid(xp.asarray(x), indexing=indexing))


# ------------------------------------------------------------------ manipulation


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate(check, axis):
    a = np.arange(12, dtype=np.int8).reshape(3, 4)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)[::-1]
    check(lambda xp: xp.concatenate([xp.asarray(a), xp.asarray(b), xp.asarray(a)], axis=axis))
    check(lambda xp: xp.concat((xp.asarray(a), xp.asarray(a).T.T), axis=axis))


def test_concatenate_errors_and_edges(check):
    check(lambda xp: xp.concatenate([xp.zeros((2, 3)), xp.zeros((3, 2))]))  # ValueError
    check(lambda xp: xp.concatenate([xp.zeros((2, 3)), xp.zeros(3)]))
    check(lambda xp: xp.concatenate([xp.zeros(()), xp.zeros(())]))
    check(lambda xp: xp.concatenate([xp.zeros((0, 3)), xp.ones((2, 3), xp.int8)]))
    check(lambda xp: xp.concatenate([xp.zeros((2, 3))], axis=2))
    check(lambda xp: xp.concatenate([xp.zeros(2, xp.bool_), xp.ones(1, ml_dtypes.bfloat16)]))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack(check, axis):
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    check(lambda xp: xp.stack([xp.asarray(a), xp.asarray(a)[::-1], xp.asarray(a) * 2], axis=axis))


def test_stack_errors(check):
    check(lambda xp: xp.stack([xp.zeros((2, 3)), xp.zeros((3, 2))]))
    check(lambda xp: xp.stack([xp.zeros((2, 3))], axis=3))
    check(lambda xp: xp.stack([xp.zeros(()), xp.ones(())]))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), 3])
def test_flip(check, axis):
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    check(lambda xp: xp.flip(xp.asarray(a), axis=axis))


def test_flip_is_view():
    x = asc.asarray(np.arange(6.0)).copy()
    f = asc.flip(x)
    f[0] = 100
    assert float(x[5]) == 100


@pytest.mark.parametrize("shift,axis", [(1, None), (-2, None), (7, 0), (1, 1), ((1, 2), (0, 1)), (2, (1, 1)),
                                        (0, 0), (3, -1), (1, 5)])
def test_roll(check, shift, axis):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    check(lambda xp: xp.roll(xp.asarray(a)[:, ::-1], shift, axis=axis))


def test_roll_empty_and_0d(check):
    check(lambda xp: xp.roll(xp.zeros((0, 3)), 2, axis=0))
    check(lambda xp: xp.roll(xp.asarray(np.array(5)), 1))


def test_ravel_flatten_swapaxes_moveaxis(check):
    a = np.arange(24, dtype=np.uint16).reshape(2, 3, 4)
    check(lambda xp: xp.ravel(xp.asarray(a).transpose(2, 0, 1)))
    check(lambda xp: xp.asarray(a)[:, ::2].flatten())
    check(lambda xp: xp.asarray(a).ravel())
    check(lambda xp: xp.swapaxes(xp.asarray(a), 0, 2))
    check(lambda xp: xp.swapaxes(xp.asarray(a), 0, 3))
    check(lambda xp: xp.moveaxis(xp.asarray(a), 0, -1))
    check(lambda xp: xp.moveaxis(xp.asarray(a), (0, 1), (2, 0)))
    check(lambda xp: xp.moveaxis(xp.asarray(a), 0, 3))
    check(lambda xp: xp.moveaxis(xp.asarray(a), (0, 0), (1, 2)))
    check(lambda xp: xp.ravel(xp.asarray(np.array(3.0))))
    x = asc.asarray(a)
    assert np.shares_memory(np.asarray(asc.ravel(x)), np.asarray(x))


# ------------------------------------------------------------------ dtypes


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=IDS)
def test_finfo(dtype):
    f = asc.finfo(dtype)
    g = ml_dtypes.finfo(dtype)
    assert f.bits == g.bits and f.eps == g.eps and f.max == g.max and f.tiny == g.tiny
    assert asc.finfo(asc.zeros(2, dtype)).dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=IDS)
def test_iinfo(dtype):
    assert (asc.iinfo(dtype).min, asc.iinfo(dtype).max) == (np.iinfo(dtype).min, np.iinfo(dtype).max)
    assert asc.iinfo(asc.zeros(2, dtype)).bits == np.iinfo(dtype).bits


@pytest.mark.parametrize("src", [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32], ids=IDS)
@pytest.mark.parametrize("dst", [np.bool_, np.int16, np.uint32, np.float32, np.float64], ids=IDS)
@pytest.mark.parametrize("casting", ["safe", "same_kind", "unsafe"])
def test_can_cast(src, dst, casting):
    assert asc.can_cast(src, dst, casting) == np.can_cast(src, dst, casting)
    assert asc.can_cast(asc.zeros(1, src), dst, casting) == np.can_cast(src, dst, casting)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float16, np.float64], ids=IDS)
@pytest.mark.parametrize("kind", ["bool", "signed integer", "unsigned integer", "integral", "real floating",
                                  "complex floating", "numeric", ("bool", "real floating"), np.float64])
def test_isdtype(dtype, kind):
    assert asc.isdtype(dtype, kind) == np.isdtype(np.dtype(dtype), kind)


def test_isdtype_bfloat16():
    assert asc.isdtype(asc.bfloat16, "real floating") and asc.isdtype(asc.bfloat16, "numeric")
    assert not asc.isdtype(asc.bfloat16, "integral")
    with pytest.raises(ValueError):
        asc.isdtype(asc.float32, "floating")


def test_result_type():
    assert asc.result_type(asc.int8, asc.uint8) == np.int16
    assert asc.result_type(asc.zeros(2, asc.int8), 1) == np.int8
    assert asc.result_type(asc.zeros(2, asc.int8), 1.5) == np.float64
    assert asc.result_type(asc.float16, asc.int16, asc.zeros(1, asc.uint8), 2.0) == np.float32
    assert asc.result_type(asc.float16, asc.float32, asc.int64) == np.float64
    assert asc.result_type(1, 2.0) == np.float64
    assert asc.result_type(asc.bfloat16, asc.float16) == np.float32


def test_docstrings():
    for name in ["power", "var", "std", "argmax", "cumsum", "all", "any", "isnan", "floor", "arctan2", "sum",
                 "add", "exp", "where", "concatenate", "stack", "flip", "roll", "moveaxis", "linspace", "eye",
                 "tril", "meshgrid", "finfo", "isdtype", "clip", "round", "count_nonzero"]:
        assert (getattr(asc, name).__doc__ or "").strip(), name
