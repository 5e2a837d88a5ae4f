"""Elementwise ops, promotion, NEP 50 scalars, reductions: pyasc vs NumPy."""

import itertools

import ml_dtypes
import numpy as np
import pytest

from conftest import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NUMERIC_DTYPES

SPECIAL = [0.0, -0.0, 1.0, -1.5, 2.5, np.nan, np.inf, -np.inf, 7.0, -3.0]


def data(dtype, n=37, seed=0, nonzero=False):
    """Values valid for `dtype` (special values for floats), length n (tails around the SIMD width)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -100), min(info.max, 100)
        v = rng.integers(lo, hi + 1, n).astype(dt)
        v[:2] = [info.min, info.max]
        if nonzero:
            v[v == 0] = 1
        return v
    v = (rng.standard_normal(n) * 10).astype(np.float64)
    v[: len(SPECIAL)] = SPECIAL[:n]
    return v.astype(dt)


def views(xp, a):
    """The same values as contiguous, negative-stride and strided views."""
    x = xp.asarray(a)
    rev = xp.asarray(np.ascontiguousarray(a[::-1]))[::-1]
    strided = xp.asarray(np.repeat(a, 2))[::2]
    return [x, rev, strided]


BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "maximum", "minimum",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", BINARY)
def test_binary_same_dtype(check, op, dtype):
    a = data(dtype, 37, 1)
    b = data(dtype, 37, 2, nonzero=op in ("floor_divide", "remainder"))[::-1].copy()
    for i in range(3):
        check(lambda xp: getattr(xp, op)(views(xp, a)[i], views(xp, b)[(i + 1) % 3]))


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "true_divide"])
@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_], ids=lambda d: np.dtype(d).name)
def test_integer_division_by_zero(check, op, dtype):
    a = data(dtype, 16, 3)
    b = np.zeros(16, dtype)
    if np.dtype(dtype).kind == "i":
        a[0], b[1] = np.iinfo(dtype).min, -1
        a[1] = np.iinfo(dtype).min
    check(lambda xp: getattr(xp, op)(xp.asarray(a), xp.asarray(b)))


@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_float_divmod_special(check, op, dtype):
    a = np.array([x for x, _ in itertools.product(SPECIAL, SPECIAL)], dtype)
    b = np.array([y for _, y in itertools.product(SPECIAL, SPECIAL)], dtype)
    check(lambda xp: getattr(xp, op)(xp.asarray(a), xp.asarray(b)))


@pytest.mark.parametrize("d1,d2", list(itertools.combinations(ALL_DTYPES, 2)),
                         ids=lambda d: np.dtype(d).name)
def test_promotion_table(check, d1, d2):
    a, b = data(d1, 5, 4), data(d2, 5, 5)
    check(lambda xp: xp.add(xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.less(xp.asarray(a), xp.asarray(b)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scalar", [True, 1, 2.5, -3])
def test_nep50_weak_scalars(check, dtype, scalar):
    a = data(dtype, 9, 6)
    if np.dtype(dtype).kind == "u" and scalar == -3:  # arithmetic raises OverflowError in both
        import pyasc as asc
        for xp in (np, asc):
            with pytest.raises(OverflowError, match="-3 out of bounds for uint"):
                xp.asarray(a) + scalar
            with pytest.raises(OverflowError, match="-3 out of bounds for uint"):
                scalar * xp.asarray(a)
    else:
        check(lambda xp: xp.asarray(a) + scalar)
        check(lambda xp: scalar * xp.asarray(a))
    check(lambda xp: xp.asarray(a) > scalar)  # NumPy 2 compares out-of-range ints without error
    check(lambda xp: scalar == xp.asarray(a))


def test_scalar_out_of_range():
    import pyasc as asc
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):  # as NumPy
        asc.zeros(3, asc.int8) + 300


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((1,), (5, 1, 2)), ((0, 3), (1, 3)),
                                    ((), (2, 2)), ((2, 1, 3), (2, 4, 1))])
def test_broadcasting(check, shapes):
    s1, s2 = shapes
    a = np.arange(int(np.prod(s1)), dtype=np.float32).reshape(s1)
    b = np.arange(int(np.prod(s2)), dtype=np.int16).reshape(s2)
    check(lambda xp: xp.asarray(a) * xp.asarray(b) - xp.asarray(b))


def test_broadcast_mismatch_raises(check):
    check(lambda xp: xp.add(xp.zeros((2, 3)), xp.zeros((3, 2))))


UNARY_FLOAT = ["exp", "log", "sqrt", "sin", "cos", "tanh"]


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", UNARY_FLOAT)
def test_unary_math(check, op, dtype):
    a = data(dtype, 40, 7)
    if np.dtype(dtype).kind == "f" or np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16):
        a = np.clip(a.astype(np.float64), -20, 20).astype(dtype) if op == "exp" else a
    rtol = 1e-5 if np.dtype(dtype) in (np.dtype(np.float32),) else None
    for i in range(3):
        check(lambda xp: getattr(xp, op)(views(xp, a)[i]), rtol=rtol)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["negative", "positive", "absolute", "logical_not"])
def test_unary_basic(check, op, dtype):
    a = data(dtype, 33, 8)
    check(lambda xp: getattr(xp, op)(xp.asarray(a)[::-1]))


def test_operators_and_inplace(check):
    a = data(np.float32, 20, 9)
    b = data(np.float32, 20, 10)

    def f(xp):
        x, y = xp.asarray(a).copy(), xp.asarray(b)
        r = (x + y, x - y, x * y, x / y, x // 2, x % 3, -x, abs(x), x == y, x != y, x < y, x <= y, x > 1, x >= 1,
             2 - x, 1 / x, 3 // xp.asarray(np.full(20, 2.0, np.float32)), 5 % x)
        x += y
        x *= 2
        x -= 1
        x /= 4
        return r + (x,)
    check(f)

    def g(xp):
        x = xp.asarray(np.arange(10, dtype=np.int32)).copy()
        x += 3
        x //= 2
        x %= 3
        return x
    check(g)


def test_inplace_same_kind_error(check):
    def f(xp):
        x = xp.asarray(np.arange(4, dtype=np.int32)).copy()
        x += 1.5
        return x
    check(f)


def test_numpy_left_operand():
    import pyasc as asc
    r = np.arange(4.0) + asc.asarray(np.ones(4))
    assert isinstance(r, asc.ndarray)
    np.testing.assert_array_equal(np.asarray(r), np.arange(4.0) + 1)


@pytest.mark.parametrize("src", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_astype(check, src, dst):
    a = data(src, 40, 11)
    if np.dtype(dst).kind in "iu" and np.dtype(src) in (np.dtype(np.float32), np.dtype(np.float64)):
        # NaN/Inf -> int: NumPy's float32/float64 loops differ by code path (contiguous SIMD vs strided);
        # its float16 and ml_dtypes' bfloat16 loops agree on every path, so those keep them
        a[~np.isfinite(a)] = 0
    check(lambda xp: xp.asarray(a)[::-1].astype(dst))


@pytest.mark.parametrize("dst", INT_DTYPES + [np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("src", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_astype_float_to_int_special(check, src, dst):
    a = np.array([np.nan, np.inf, -np.inf, 1e20, -1e20, 3.7, -3.7, 0.0, -0.0, 250.0], src)
    check(lambda xp: xp.asarray(a).astype(dst))


def test_where(check):
    c = np.array([True, False, True, False, True])
    check(lambda xp: xp.where(xp.asarray(c), xp.asarray(np.arange(5, dtype=np.int8)), 2.5))
    check(lambda xp: xp.where(xp.asarray(c)[:, None], xp.asarray(np.arange(3, dtype=np.float32)),
                              xp.asarray(np.zeros((5, 1), np.int16))))


REDUCTIONS = ["sum", "prod", "max", "min", "mean"]
AXES = [None, 0, 1, -1, (0, 2), (), (0, 1, 2)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions(check, op, dtype):
    a = data(dtype, 60, 12).reshape(3, 4, 5)
    if op == "mean" and np.dtype(dtype).itemsize == 8 and np.dtype(dtype).kind in "iu":
        a[:2] = 1  # float64 sums of +-2**63 cancel differently in different orders
    if op == "prod" and np.dtype(dtype).kind in "iuf":
        a = (np.abs(a.astype(np.float64)) % 3).astype(dtype)  # keep products in range
    for axis in AXES:
        for keepdims in (False, True):
            check(lambda xp: getattr(xp, op)(xp.asarray(a).transpose(2, 0, 1)[::-1], axis=axis,
                                             keepdims=keepdims), rtol=2e-2 if np.dtype(dtype).itemsize == 2 else None)


def test_reduction_methods_and_dtype(check):
    a = np.arange(1000, dtype=np.int8)
    check(lambda xp: xp.asarray(a).sum())
    check(lambda xp: xp.asarray(a).sum(dtype=xp.int8))
    check(lambda xp: xp.asarray(a.astype(np.uint16)).sum())
    check(lambda xp: xp.asarray(np.ones(100003, np.float32)).sum())
    check(lambda xp: xp.asarray(np.ones((300, 301), np.float32)).sum(axis=0))
    check(lambda xp: xp.asarray(np.ones((300, 301), np.float16)).mean(axis=1))
    check(lambda xp: xp.max(xp.zeros((0, 2)), axis=0))
    check(lambda xp: xp.sum(xp.zeros((2, 2)), axis=2))


def test_large_parallel(check):
    a = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    check(lambda xp: xp.asarray(a) * 2 + xp.asarray(a)[::-1])
    check(lambda xp: xp.asarray(a.reshape(1024, 1024)).T + 1)
