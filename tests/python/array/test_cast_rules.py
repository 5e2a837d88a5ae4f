"""Casts and promotion of the 16-bit floats: pyasc vs NumPy 2.4 / ml_dtypes 0.7, bit for bit.

* bfloat16 -> integer follows ml_dtypes 0.7 (the truncated value when the
  target holds it, else 0: NaN, +-Inf, out of range, negative into unsigned);
  float16 -> integer follows NumPy's half loops; every 16-bit pattern is
  checked, contiguous, reversed and strided, lazy, eager and fused into a
  tile program, for lengths around the SIMD widths.
* float64, complex and wide integers -> float16/bfloat16 round once (no
  double rounding through float32), except a weak Python float bound for
  bfloat16 in a ufunc or full(), which NumPy rounds through float32.
* Promotion: bfloat16/float16 with every dtype and with Python scalars is
  np.result_type's (bfloat16 + 2.5 stays bfloat16 in ml_dtypes 0.7).
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, INT_DTYPES

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
HALF = [F16, BF16]
CDTYPES = [np.complex64, np.complex128]
ids = lambda d: np.dtype(d).name  # noqa: E731
SIZES = [1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 4097]
SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 2.5, -2.5, 127.5, 128.0,
           -128.0, -129.0, 255.0, 256.0, -256.0, 32768.0, -32768.0, 65504.0, -65504.0, 65536.0, 2.0**31, -2.0**31,
           2.0**32, 2.0**63, -2.0**63, 2.0**64, 3e38, -3e38, 1e-40, -1e-40]


def np_cast(a, dst):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return a.astype(dst)


def same_bits(expected, got):
    """Equal dtype, shape and values; floats bit for bit except NaN payloads (NaN where NumPy has NaN)."""
    g = np.asarray(got)
    e = np.asarray(expected)
    assert g.dtype == e.dtype, f"dtype {g.dtype} != {e.dtype}"
    assert g.shape == e.shape, f"shape {g.shape} != {e.shape}"
    e, g = e.reshape(-1), g.reshape(-1)
    if e.dtype.kind == "f" or e.dtype == BF16 or e.dtype.kind == "c":
        ef = e.astype(np.complex128 if e.dtype.kind == "c" else np.float64)
        gf = g.astype(ef.dtype)
        for part in ((lambda z: z.real, lambda z: z.imag) if e.dtype.kind == "c" else (lambda z: z,)):
            ep, gp = part(ef), part(gf)
            nan = np.isnan(ep)
            np.testing.assert_array_equal(np.isnan(gp), nan)
            bad = np.nonzero(~nan & ((ep != gp) | (np.signbit(ep) != np.signbit(gp))))[0]
            assert bad.size == 0, f"{bad.size} values differ, first at {bad[:5]}: got {gp[bad[:5]]}, want {ep[bad[:5]]}"
    else:
        bad = np.nonzero(e.ravel() != g.ravel())[0]
        assert bad.size == 0, f"{bad.size} values differ, first at {bad[:5]}: got {g.ravel()[bad[:5]]}, " \
                              f"want {e.ravel()[bad[:5]]}"


def every_value(dt):
    """All 65536 bit patterns of a 16-bit float dtype."""
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(dt)


# ------------------------------------------------------------------ 16-bit float -> integer


@pytest.mark.parametrize("dst", INT_DTYPES + [np.bool_], ids=ids)
@pytest.mark.parametrize("src", HALF, ids=ids)
def test_half_to_int_every_value(mode, src, dst):
    a = every_value(src)
    x = asc.asarray(a)
    same_bits(np_cast(a, dst), x.astype(dst))
    same_bits(np_cast(a[::-1], dst), x[::-1].astype(dst))
    same_bits(np_cast(a[1::3], dst), x[1::3].astype(dst))
    same_bits(np_cast(a.reshape(256, 256)[:, ::-2], dst), x.reshape(256, 256)[:, ::-2].astype(dst))


@pytest.mark.parametrize("dst", INT_DTYPES, ids=ids)
@pytest.mark.parametrize("src", HALF, ids=ids)
def test_half_to_int_special_values_and_sizes(mode, src, dst):
    sp = np.array(SPECIAL, np.float64)
    for n in SIZES:
        a = np_cast(np.resize(sp, n), src)
        same_bits(np_cast(a, dst), asc.asarray(a).astype(dst))
    same_bits(np_cast(np.array(-3.0, src), dst), asc.asarray(np.array(-3.0, src)).astype(dst))  # 0-d
    same_bits(np.zeros(0, dst), asc.asarray(np.zeros(0, src)).astype(dst))
    same_bits(np_cast(np.array(np.nan, src), dst), asc.asarray(np.array(np.nan, src)).astype(dst))


@pytest.mark.parametrize("dst", INT_DTYPES, ids=ids)
@pytest.mark.parametrize("src", HALF, ids=ids)
def test_half_to_int_fused(src, dst):
    """A cast inside a fused tile program gives the eager answer."""
    from lazy_helpers import groups_of

    prev = asc.is_eager()
    asc.set_eager(False)
    try:
        a = np_cast(np.resize(np.array(SPECIAL, np.float64), 5000), src)
        x = asc.asarray(a)
        zero = asc.zeros(5000, dst)
        got, groups = groups_of(lambda: np.asarray(asc.negative(asc.negative(x)).astype(dst) + zero))
        assert groups == 1
        same_bits(np_cast(a, dst), got)
        got, _ = groups_of(lambda: np.asarray((x[::-1] * 1).astype(dst)[::-1]))
        same_bits(np_cast(a, dst), got)
    finally:
        asc.set_eager(prev)


def test_bfloat16_to_int_rule():
    """ml_dtypes 0.7's rule stated directly (the exhaustive tests compare with the library itself)."""
    a = np.array([np.nan, np.inf, -np.inf, -1.0, -0.5, 127.0, 128.0, -128.0, -129.0, 255.0, 256.0], BF16)
    x = asc.asarray(a)
    np.testing.assert_array_equal(np.asarray(x.astype(np.uint8)), [0, 0, 0, 0, 0, 127, 128, 0, 0, 255, 0])
    np.testing.assert_array_equal(np.asarray(x.astype(np.int8)), [0, 0, 0, -1, 0, 127, 0, -128, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(x.astype(np.uint8)), np_cast(a, np.uint8))
    np.testing.assert_array_equal(np.asarray(x.astype(np.int8)), np_cast(a, np.int8))


# ------------------------------------------------------------------ -> float16 / bfloat16 rounding


def _ties(rng, n, scale_bits):
    """float64 values just beside 16-bit ties: m * 2^-k +- tiny, random signs and exponents."""
    m = rng.integers(1 << 8, 1 << 12, n).astype(np.float64) + 0.5
    e = rng.integers(-scale_bits, scale_bits, n)
    nudge = rng.choice([-1.0, 0.0, 1.0], n) * 2.0**-30
    return np.ldexp(m * (1 + nudge), e) * rng.choice([-1.0, 1.0], n)


@pytest.mark.parametrize("dst", HALF, ids=ids)
def test_float64_to_half_rounds_once(mode, dst):
    rng = np.random.default_rng(3)
    a = np.concatenate([_ties(rng, 3000, 20), rng.standard_normal(2000) * 1e4, np.array(SPECIAL),
                        [1.0039062500001, 1 + 2**-11 + 2**-30, 65519.99, 65520.0, 1e300, -1e300, 5e-324, 2.0**-25,
                         2.0**-25 * (1 + 2**-40), 2.0**-134 * 1.5, 3.3961e38]])
    x = asc.asarray(a)
    same_bits(np_cast(a, dst), x.astype(dst))
    same_bits(np_cast(a[::-2], dst), x[::-2].astype(dst))
    z = a + 1j * a[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        same_bits(np_cast(z, dst), asc.asarray(z).astype(dst))
        same_bits(np_cast(z.astype(np.complex64), dst), asc.asarray(z.astype(np.complex64)).astype(dst))
    same_bits(np_cast(a.astype(np.float32), dst), asc.asarray(a.astype(np.float32)).astype(dst))


@pytest.mark.parametrize("src", [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64], ids=ids)
@pytest.mark.parametrize("dst", HALF, ids=ids)
def test_int_to_half_rounds_once(mode, src, dst):
    rng = np.random.default_rng(5)
    info = np.iinfo(src)
    bits = np.dtype(src).itemsize * 8 - (1 if info.min < 0 else 0)
    # tie + sticky patterns at every width: 2^k + 2^(k-8) + 1 (bfloat16), 2^k + 2^(k-11) + 1 (float16)
    crafted = [(1 << k) + (1 << (k - s)) + c for s in (8, 11) for k in range(s + 1, bits) for c in (0, 1)]
    v = np.concatenate([np.array(crafted, np.uint64).astype(src),
                        rng.integers(info.min, int(info.max) + 1, 4000, dtype=src), [info.min, info.max, 0]]).astype(src)
    if info.min < 0:
        v = np.concatenate([v, -v[: len(crafted)]])
    x = asc.asarray(v)
    same_bits(np_cast(v, dst), x.astype(dst))
    same_bits(np_cast(v[::-3], dst), x[::-3].astype(dst))


def test_half_casts_between_floats(mode):
    for src in HALF:
        a = every_value(src)
        for dst in [F16, BF16, np.float32, np.float64, np.complex64, np.complex128, np.bool_]:
            same_bits(np_cast(a, dst), asc.asarray(a).astype(dst))
            same_bits(np_cast(a[::-1], dst), asc.asarray(a)[::-1].astype(dst))


# ------------------------------------------------------------------ promotion


OTHER = ALL_DTYPES + CDTYPES


@pytest.mark.parametrize("other", OTHER, ids=ids)
@pytest.mark.parametrize("half", HALF, ids=ids)
def test_promotion_with_every_dtype(mode, half, other):
    na = np.array([1.5, -2.0, 0.0, 3.0, 0.5], half)
    nb = np.array([1, 0, 1, 1, 0], np.int64).astype(other) if np.dtype(other) == np.bool_ else \
        np.array([3, 2, 1, 7, 5]).astype(other)
    a, b = asc.asarray(na), asc.asarray(nb)
    assert asc.result_type(a, b) == np.result_type(na, nb)
    assert asc.result_type(half, other) == np.result_type(half, other) == np.promote_types(other, half)
    for name in ("add", "multiply", "subtract", "maximum"):
        if name == "subtract" and np.dtype(other) == np.bool_:
            continue
        f_np, f_asc = getattr(np, name), getattr(asc, name)
        same_bits(f_np(na, nb), f_asc(a, b))
        same_bits(f_np(nb, na), f_asc(b, a))
    same_bits(np.greater(na, nb), asc.greater(a, b))


SCALARS = [True, False, 3, -3, 0, 300, 70000, 2.5, -0.0, 1e-30, 1e300, 1.0039062500001, 1 + 2**-11 + 2**-30,
           float("nan"), float("inf"), 1 + 2j, complex(np.inf, -0.0)]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("half", HALF, ids=ids)
def test_promotion_with_python_scalars(mode, half, scalar):
    na = np.array([1.0, -2.5, 0.0, -0.0, np.inf, np.nan, 65504, 1.0078125], half)
    a = asc.asarray(na)
    assert asc.result_type(a, scalar) == np.result_type(na, scalar)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("add", "multiply", "subtract", "true_divide", "maximum"):
            f_np, f_asc = getattr(np, name), getattr(asc, name)
            if isinstance(scalar, complex) and name == "maximum":
                continue
            same_bits(f_np(na, scalar), f_asc(a, scalar))
            same_bits(f_np(scalar, na), f_asc(scalar, a))
        same_bits(na + scalar, a + scalar)
        same_bits(scalar * na, scalar * a)
        if not isinstance(scalar, complex):
            same_bits(na > scalar, a > scalar)
            same_bits(np.full(3, scalar, half), asc.full(3, scalar, half))


def test_weak_scalar_sizes(mode):
    for half in HALF:
        for n in SIZES:
            na = np.linspace(-40, 40, n).astype(half)
            a = asc.asarray(na)
            for s in (2.5, 1.0039062500001, -3):
                same_bits(na * s, a * s)
                same_bits(s - na, s - a)


# ------------------------------------------------------------------ ufuncs without a bfloat16 loop


@pytest.mark.parametrize("dtype", HALF + [np.float32, np.float64], ids=ids)
def test_bfloat16_loop_fallbacks(mode, dtype):
    """ml_dtypes 0.7 has deg2rad/rad2deg loops for bfloat16 but none for radians/degrees or clip:
    NumPy computes those in float32; one-sided clip goes through maximum/minimum (bfloat16)."""
    na = np.array([0.0, -0.0, 1.5, -180.0, 3.25, np.inf, np.nan, 65504.0], dtype)
    a = asc.asarray(na)
    for name in ("radians", "degrees", "deg2rad", "rad2deg"):
        same_bits(getattr(np, name)(na), getattr(asc, name)(a))
    # (no -0.0 into clip: NumPy's own answer for it differs between its contiguous and strided loops)
    nc = np.array([0.0, 1.5, -180.0, 3.25, np.inf, np.nan, 65504.0, 2.5], dtype)
    c = asc.asarray(nc)
    same_bits(np.clip(nc, 0, 2.5), asc.clip(c, 0, 2.5))
    same_bits(np.clip(nc, -1, None), asc.clip(c, -1, None))
    same_bits(np.clip(nc, None, 2), asc.clip(c, None, 2))
    lo, hi = np.full(8, -1.0, dtype), np.full(8, 2.5, dtype)
    same_bits(np.clip(nc, lo, hi), asc.clip(c, asc.asarray(lo), asc.asarray(hi)))
    for e in (3, -200, 0, True):
        same_bits(np.ldexp(na, e), asc.ldexp(a, e))


def test_asarray_chkfinite_bfloat16():
    """NumPy checks only its own float/complex types (typecodes['AllFloat']): bfloat16 passes unchecked."""
    for bad in (np.nan, np.inf):
        nb = np.array([1.0, bad], BF16)
        same_bits(np.asarray_chkfinite(nb), asc.asarray_chkfinite(asc.asarray(nb)))
        for dt in (np.float16, np.float32, np.complex64):
            with pytest.raises(ValueError):
                np.asarray_chkfinite(nb.astype(dt))
            with pytest.raises(ValueError, match="asarray_chkfinite"):
                asc.asarray_chkfinite(asc.asarray(nb.astype(dt)))


# ------------------------------------------------------------------ Python ints outside a dtype's range


BIG = [2**63, 2**64 - 1, 2**64, 2**70, -2**63 - 1, 300, -1, -129, 65536, 2**32]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ids)
def test_out_of_range_python_ints(mode, dtype):
    """NumPy 2: comparisons of integer arrays with an int outside their range are answered from the
    sign; arithmetic raises OverflowError, except uint64 up to 2**64 - 1 and float dtypes (inf)."""
    na = np.array([0, 1, 2, 3, 100, 5, 6, 7, 8], np.int64).astype(dtype)
    a = asc.asarray(na)
    def both(f_np, f_asc):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = f_np()
        except OverflowError:
            with pytest.raises(OverflowError, match="out of bounds|too large"):
                f_asc()
            return
        same_bits(e, f_asc())

    for s in BIG:
        for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "add", "multiply",
                     "maximum"):
            both(lambda: getattr(np, name)(na, s), lambda: getattr(asc, name)(a, s))
            both(lambda: getattr(np, name)(s, na), lambda: getattr(asc, name)(s, a))
        both(lambda: na == s, lambda: a == s)
        both(lambda: s > na, lambda: s > a)
        both(lambda: na[::-2] <= s, lambda: a[::-2] <= s)
        both(lambda: np.full(3, s, dtype), lambda: asc.full(3, s, dtype))
        both(lambda: np.full_like(na, s), lambda: asc.full_like(a, s))

        def into_out(xp, arr):
            o = xp.zeros(arr.shape, np.bool_)
            xp.less(arr, s, out=o)
            return o
        both(lambda: into_out(np, na), lambda: into_out(asc, a))


@pytest.mark.parametrize("half", HALF, ids=ids)
def test_python_float_into_half_by_path(mode, half):
    """Where NumPy rounds a Python float once (asarray, setitem, fill, where) and where it goes
    through float32 first for bfloat16 (ufunc operands, full, full_like, copyto)."""
    c = asc.asarray(np.array([True, False, True]))
    nc = np.array([True, False, True])
    for v in (1.0039062500001, 1 + 2**-11 + 2**-30, -(1 + 2**-8 + 2**-40), 3e38, 1e-45):
        same_bits(np.asarray(v, dtype=half), asc.asarray(v, dtype=half))
        same_bits(np.array([v, -v], dtype=half), asc.array([v, -v], dtype=half))
        same_bits(np.full(3, v, half), asc.full(3, v, half))
        same_bits(np.full_like(np.zeros(3, half), v), asc.full_like(asc.zeros(3, half), v))
        same_bits(np.where(nc, np.zeros(3, half), v), asc.where(c, asc.zeros(3, half), v))
        same_bits(np.where(nc, v, np.zeros(3, half)), asc.where(c, v, asc.zeros(3, half)))
        same_bits(np.maximum(np.zeros(3, half), v), asc.maximum(asc.zeros(3, half), v))
        for how in ("fill", "setitem", "setall", "copyto", "iadd"):
            o_np, o_asc = np.zeros(3, half), asc.zeros(3, half)
            for o, xp in ((o_np, np), (o_asc, asc)):
                if how == "fill":
                    o.fill(v)
                elif how == "setitem":
                    o[1] = v
                elif how == "setall":
                    o[...] = v
                elif how == "copyto":
                    xp.copyto(o, v)
                else:
                    o += v
            same_bits(o_np, o_asc)
