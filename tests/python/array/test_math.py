"""Vector math against NumPy / Python's math module, per float dtype.

The ULP bounds are those of docs/vector_math.md plus the reference's own
error: float16/bfloat16/float32 results are compared with NumPy's float64
result on the same inputs (effectively exact), float64 results with Python's
``math`` functions (glibc, < 1 ulp), so the allowance is the documented bound
+ 1 ulp.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

BF16 = ml_dtypes.bfloat16
FLOATS = [np.float16, BF16, np.float32, np.float64]

# name: (domain for dense samples, max ulp float32, max ulp float64, math-module fn or None)
UNARY = {
    "exp": ((-80, 80), 1.5, 1.5, math.exp),
    "exp2": ((-120, 120), 1.5, 1.5, lambda v: 2.0 ** v),
    "expm1": ((-20, 20), 4, 4, math.expm1),
    "log": ((1e-3, 1e3), 4, 4, math.log),
    "log2": ((1e-3, 1e3), 4, 4, math.log2),
    "log10": ((1e-3, 1e3), 4, 4, math.log10),
    "log1p": ((-0.999, 1e3), 4, 4, math.log1p),
    "sin": ((-100, 100), 3, 3, math.sin),
    "cos": ((-100, 100), 3, 3, math.cos),
    "tan": ((-10, 10), 1, 3.5, math.tan),
    "arcsin": ((-1, 1), 3, 3, math.asin),
    "arccos": ((-1, 1), 3, 3, math.acos),
    "arctan": ((-50, 50), 3, 3, math.atan),
    "sinh": ((-80, 80), 4, 4, math.sinh),
    "cosh": ((-80, 80), 4, 4, math.cosh),
    "tanh": ((-20, 20), 4, 4, math.tanh),
    "arcsinh": ((-1e3, 1e3), 4, 4, math.asinh),
    "arccosh": ((1, 1e3), 4, 4, math.acosh),
    "arctanh": ((-0.999, 0.999), 4, 4, math.atanh),
    "sqrt": ((0, 1e6), 0.5, 0.5, math.sqrt),
    "cbrt": ((-1e3, 1e3), 1, 1, math.cbrt),
    "erf": ((-6, 6), 4, 4, math.erf),
    "erfc": ((-5, 9), 5, 5, math.erfc),
}


def _ulps(got, ref, dtype):
    """|got - ref| in units of the last place of ref in `dtype` (ref exact-ish, float64)."""
    ref = np.asarray(ref, np.float64)
    got = np.asarray(got).astype(np.float64)
    finfo = np.finfo(np.float32 if dtype == BF16 else dtype)
    mant = 8 if dtype == BF16 else finfo.nmant + 1
    tiny = float(ml_dtypes.finfo(BF16).smallest_normal) if dtype == BF16 else float(finfo.smallest_normal)
    _, e = np.frexp(np.maximum(np.abs(ref), tiny))
    ulp = np.ldexp(1.0, e - mant)
    both_nan = np.isnan(ref) & np.isnan(got)
    # a reference beyond the dtype's largest value (+ half an ulp) rounds to Inf
    fmax = float(ml_dtypes.finfo(BF16).max) if dtype == BF16 else float(finfo.max)
    over = np.abs(ref) >= fmax * (1 + 2.0 ** -mant)
    ref = np.where(over & np.isinf(got) & (np.sign(got) == np.sign(ref)), got, ref)
    same_inf = np.isinf(ref) & (ref == got)
    err = np.where(both_nan | same_inf, 0.0, np.abs(got - ref) / ulp)
    return np.nan_to_num(err, nan=np.inf)


def _samples(lo, hi, dtype, n=20011, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, n)
    if lo < 0 < hi:
        x = np.concatenate([x, rng.uniform(-1e-3, 1e-3, 257)])
    x = x.astype(dtype)
    return x[np.isfinite(x.astype(np.float64))]


def _reference(name, x, dtype):
    fn = UNARY[name][3]
    if dtype == np.float64:
        return np.array([fn(float(v)) if _in_domain(name, v) else np.nan for v in x])
    if name == "erf":
        return np.array([math.erf(float(v)) for v in x])
    if name == "erfc":
        return np.array([math.erfc(float(v)) for v in x])
    return getattr(np, name)(x.astype(np.float64))


def _in_domain(name, v):
    try:
        UNARY[name][3](float(v))
        return True
    except (ValueError, OverflowError):
        return False


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ulp(name, dtype):
    (lo, hi), u32, u64, _ = UNARY[name]
    x = _samples(lo, hi, dtype)
    if dtype == np.float64 and name in ("exp", "sinh", "cosh"):
        x = x[np.abs(x) < 700]
    got = getattr(asc, name)(asc.asarray(x)).numpy()
    assert got.dtype == x.dtype
    ref = _reference(name, x, dtype)
    if dtype in (np.float16, BF16):
        # Computed in float32 and rounded once: within 1 ulp of the exact value.
        bound = 1.0
    else:
        bound = (u32 if dtype == np.float32 else u64) + 1.0
        if dtype == np.float64 and name == "cbrt":
            bound += 3  # glibc's cbrt (the reference) is up to ~3.7 ulp off; ours is 0.73 (docs)
    err = _ulps(got, ref, dtype)
    worst = int(np.argmax(err))
    assert err[worst] <= bound, f"{name}({x[worst]!r}) = {got[worst]!r}, reference {ref[worst]!r}: {err[worst]:.2f} ulp"


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30, -1e-30, 1e30, -1e30,
                    1e300, -1e300, 5e-324, 1e-310, 100.0, -100.0, 800.0, -800.0, 3.0e38, 1e5, -1e5, 1e10])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_special_values(name, dtype):
    """NaN, +-Inf, +-0 (sign included), domain errors and overflow exactly where NumPy has them."""
    with np.errstate(all="ignore"):
        x = SPECIAL.astype(dtype)
        if name in ("erf", "erfc"):
            want = np.array([getattr(math, name)(float(v)) if not np.isnan(v) else np.nan for v in x.astype(np.float64)])
            want = want.astype(dtype)
        else:
            want = getattr(np, name)(x)
    got = getattr(asc, name)(asc.asarray(x)).numpy()
    want64, got64 = want.astype(np.float64), got.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got64), np.isnan(want64), err_msg=f"NaN positions of {name}")
    exact = np.isinf(want64) | (want64 == 0)
    np.testing.assert_array_equal(got64[exact], want64[exact], err_msg=f"Inf/0 of {name} at {x[exact]}")
    np.testing.assert_array_equal(np.signbit(got64[exact]), np.signbit(want64[exact]), err_msg=f"sign of zero: {name}")
    rest = ~exact & ~np.isnan(want64)
    if dtype == np.float64:  # NumPy's float64 kernels may differ from ours by a few ulps
        np.testing.assert_allclose(got64[rest], want64[rest], rtol=2e-15)
    else:
        err = _ulps(got[rest], want[rest].astype(np.float64), dtype)
        assert err.max(initial=0) <= (1.0 if dtype != np.float32 else UNARY[name][1] + 2), (x[rest], got[rest])


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("name", ["exp", "log1p", "sin", "sqrt", "tanh", "arctan", "cbrt"])
def test_integers_promote_like_numpy(check, name, dtype):
    x = np.arange(0, 40).astype(dtype)
    check(lambda xp: getattr(xp, name)(xp.asarray(x)))


VIEWS = [lambda a: a[::-1], lambda a: a[:, ::-2], lambda a: a.T, lambda a: a[3:30:3, 1::4],
         lambda a: a[::-1, ::-1].T]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", ["exp", "sin", "log", "tanh", "erf", "sigmoid", "cbrt", "tan"])
def test_views_match_contiguous(name, dtype):
    """Negative strides, transposes and slices give the same bits as the contiguous computation."""
    base = np.random.default_rng(3).uniform(0.1, 3, (37, 29)).astype(dtype)
    fn = getattr(asc, name)
    for view in VIEWS:
        got = fn(view(asc.asarray(base))).numpy()
        want = fn(asc.asarray(np.ascontiguousarray(view(base)))).numpy()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 255, 257, 1023, 1025])
def test_tails(n):
    x = np.linspace(-3, 3, n).astype(np.float32)
    for name in ("exp", "sin", "erf", "log1p"):
        got = getattr(asc, name)(asc.asarray(x)).numpy()
        assert got.shape == (n,)
        ref = _reference(name, x, np.float32)
        assert _ulps(got, ref, np.float32).max(initial=0) <= UNARY[name][1] + 1


def test_zero_dim_and_empty(check):
    check(lambda xp: xp.sin(xp.asarray(np.float32(0.5))))
    check(lambda xp: xp.exp(xp.asarray(np.zeros((0, 3), np.float64))))
    check(lambda xp: xp.log1p(xp.asarray(np.zeros((2, 0), np.float16))))
    check(lambda xp: xp.logaddexp(xp.asarray(np.zeros((0,), np.float32)), 1.0))


# ---------------------------------------------------------------- new ops


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_sigmoid_erf_gelu(dtype):
    x = np.concatenate([np.linspace(-12, 12, 2001), [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dtype)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        sig = np.where(x64 >= 0, 1 / (1 + np.exp(-x64)), np.exp(x64) / (1 + np.exp(x64)))
    erf = np.array([math.erf(v) if not np.isnan(v) else np.nan for v in x64])
    phi = np.array([0.5 * math.erfc(-v / math.sqrt(2)) if not np.isnan(v) else np.nan for v in x64])
    with np.errstate(all="ignore"):
        gelu = np.where(np.isneginf(x64), -0.0, x64 * phi)
    bound = 1.0 if dtype in (np.float16, BF16) else 5.0
    for name, ref in (("sigmoid", sig), ("expit", sig), ("erf", erf), ("gelu", gelu)):
        got = getattr(asc, name)(asc.asarray(x)).numpy()
        assert got.dtype == x.dtype
        if dtype == np.float64:
            # the float64 reference of gelu rounds x/sqrt(2) (relative error ~x^2 eps in the tail)
            tail = (x64 < -3) if name == "gelu" else np.zeros(x.shape, bool)
            np.testing.assert_allclose(got[~tail], ref[~tail], rtol=2e-15, atol=1e-300, err_msg=name)
            np.testing.assert_allclose(got[tail], ref[tail], rtol=5e-14, atol=1e-300, err_msg=name)
        else:
            err = _ulps(got, ref, dtype)
            assert err.max() <= bound, (name, x[np.argmax(err)], got[np.argmax(err)])
    # the tanh form against its own formula
    with np.errstate(all="ignore"):
        u = math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)
        gt = np.where(np.isneginf(x64), -0.0, x64 / (1 + np.exp(-2 * u)))
    got = asc.gelu(asc.asarray(x), approximate="tanh").numpy()
    # The float64 formula above rounds u (its error grows like |u| ulps; the C++
    # test checks float64 against long double over [-20, 30]).
    ok = x64 > -3
    assert _ulps(got[ok], gt[ok], dtype).max() <= (1.0 if dtype != np.float64 else 16.0)
    with pytest.raises(ValueError):
        asc.gelu(asc.asarray(x), approximate="fast")


def test_rsqrt():
    x = np.array([4.0, 0.25, 0.0, -0.0, np.inf, -1.0, np.nan, 1e-300, 2.0], np.float64)
    with np.errstate(all="ignore"):
        want = 1 / np.sqrt(x)
    got = asc.rsqrt(asc.asarray(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=3e-16)
    np.testing.assert_array_equal(np.signbit(got[:4]), np.signbit(want[:4]))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "arctan2", "hypot"])
def test_binary_math(check, name, dtype):
    rng = np.random.default_rng(11)
    a = rng.uniform(-30, 30, 513).astype(dtype)
    b = rng.uniform(-30, 30, 513).astype(dtype)
    sp = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0], dtype)
    a = np.concatenate([a, np.repeat(sp, 6)])
    b = np.concatenate([b, np.tile(sp, 6)])
    tol = {np.float64: 2e-15, np.float32: 1e-6}.get(dtype)
    check(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(b)), rtol=tol)
    check(lambda xp: getattr(xp, name)(xp.asarray(a)[::-1], 2.5), rtol=tol)  # strided + broadcast scalar


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_])
def test_binary_math_integer_promotion(check, dtype):
    a = (np.arange(10) % 3).astype(dtype)
    for name in ("logaddexp", "logaddexp2", "heaviside"):
        check(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(a[::-1])))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_exact_helpers(check, dtype):
    """deg2rad/rad2deg/spacing/nextafter/heaviside/fmod/ldexp/sinc: NumPy's values (bit-exact)."""
    x = np.array([0.0, -0.0, 1.0, -1.5, 180.0, 1e-3, 3.5, -7.25, np.inf, -np.inf, np.nan, 65504.0], dtype)
    y = np.array([1.0, 2.0, -0.0, 0.5, np.inf, -np.inf, 0.0, 2.0, 1.0, 3.0, 1.0, -1.0], dtype)
    # ml_dtypes 0.7 has no bfloat16 loop for radians/degrees: NumPy (and pyasc) give float32 there
    for name in ("deg2rad", "rad2deg", "spacing", "radians", "degrees"):
        check(lambda xp: getattr(xp, name)(xp.asarray(x)), rtol=0)
    for name in ("nextafter", "heaviside", "fmod"):
        check(lambda xp: getattr(xp, name)(xp.asarray(x), xp.asarray(y)), rtol=0)
    check(lambda xp: xp.ldexp(xp.asarray(x), xp.asarray(np.arange(-6, 6))), rtol=0)
    for e in (3, -2, True):  # a Python int exponent stays an integer operand
        check(lambda xp: xp.ldexp(xp.asarray(x), e), rtol=0)
    check(lambda xp: xp.sinc(xp.asarray(x[:8])), rtol={np.float64: 1e-15, np.float32: 3e-7}.get(dtype, 4e-3))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32])
def test_fmod_integers(check, dtype):
    a = np.array([7, -7, 7, -7, 0, 5, 100], np.int64)
    b = np.array([3, 3, -3, -3, 3, 0, 7], np.int64)
    if np.dtype(dtype).kind == "u":
        a, b = np.abs(a), np.abs(b)
    check(lambda xp: xp.fmod(xp.asarray(a.astype(dtype)), xp.asarray(b.astype(dtype))))


def test_ldexp_rejects_float_exponent():
    with pytest.raises(TypeError, match="ldexp"):
        asc.ldexp(asc.asarray(np.ones(3)), asc.asarray(np.ones(3)))


def test_power_float_special_values(check):
    x = np.array([-2.0, -2.0, -0.0, 0.0, np.nan, 1.0, -1.0, 0.5, -np.inf, 2.0])
    y = np.array([3.0, 0.5, -3.0, -1.0, 0.0, np.nan, np.inf, -np.inf, 3.0, 1024.0])
    for dtype in (np.float32, np.float64):
        check(lambda xp: xp.power(xp.asarray(x.astype(dtype)), xp.asarray(y.astype(dtype))), rtol=0)
