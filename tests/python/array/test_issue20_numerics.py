"""Reliability issue 20, item 11: numerics that disagreed with NumPy 2.4.

Each test reproduces a reported case first (median of [3e38] * 3 was inf,
gcd(1, INT_MIN) was -1, 0j ** (2+1j) was nan+nanj, complex linear_ramp padding
dropped the imaginary part, float16 spacing(-8) was 2**-7, float32 histograms
with 10**5 bins put values on an edge into the neighbouring bin) and then
compares with NumPy over the dtypes and edge values that apply, in the lazy
(default) and eager modes.
"""

from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc


@pytest.fixture(params=[False, True], ids=["lazy", "eager"])
def mode(request):
    previous = asc.is_eager()
    asc.set_eager(request.param)
    yield request.param
    asc.set_eager(previous)


def _np(x):
    return np.asarray(x)


def _same(got, want):
    got = _np(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ median


@pytest.mark.parametrize("dtype,big", [(np.float32, 3e38), (np.float64, 1e308), (np.float16, 6e4),
                                       (ml_dtypes.bfloat16, 3e38)])
@pytest.mark.parametrize("n", [1, 3, 5, 2, 4])
def test_median_of_huge_values_matches_numpy(mode, dtype, big, n):
    x = np.full(n, big, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy: overflow in the even mean
        want = np.median(x)
        got = asc.median(asc.asarray(x))
    _same(got, want)
    if n % 2:  # the reported case: one middle element never overflows
        assert np.isfinite(_np(got))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.float16])
@pytest.mark.parametrize("shape,axis", [((7,), None), ((6,), None), ((3, 5), 1), ((4, 6), 0), ((2, 3, 4), (0, 2)),
                                        ((0,), None), ((), None)])
def test_median_odd_even_axes(mode, dtype, shape, axis):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 50).astype(dtype) if shape else np.array(3, dtype=dtype)
    if np.dtype(dtype).kind == "f" and x.size > 2:
        x.flat[1] = np.finfo(dtype).max
        x.flat[2] = np.finfo(dtype).max
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.median(x, axis=axis)
        got = asc.median(asc.asarray(x), axis=axis)
    np.testing.assert_array_equal(_np(got), want)
    assert _np(got).dtype == want.dtype


def test_median_nan_and_noncontiguous(mode):
    x = np.array([3e38, np.nan, 3e38, 1.0, 3e38], dtype=np.float32)
    y = np.full((5, 6), 3e38, dtype=np.float32)[::-2, ::2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _same(asc.median(asc.asarray(x)), np.median(x))
        _same(asc.median(asc.asarray(y), axis=0), np.median(y, axis=0))
        _same(asc.nanmedian(asc.asarray(x)), np.nanmedian(x))


# ------------------------------------------------------------------ gcd / lcm


def test_gcd_lcm_int8_exhaustive(mode):
    v = np.arange(-128, 128, dtype=np.int8)
    a, b = np.meshgrid(v, v)
    for name in ("gcd", "lcm"):
        _same(getattr(asc, name)(asc.asarray(a), asc.asarray(b)), getattr(np, name)(a, b))


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_gcd_lcm_extremes(mode, dtype):
    info = np.iinfo(dtype)
    vals = [0, 1, 6, 12, info.max, info.max - 1, 1 << (info.bits // 2)]
    if info.min < 0:
        vals += [-1, -6, info.min, info.min + 1, -(1 << (info.bits // 2))]
    v = np.array(vals, dtype=dtype)
    a, b = np.meshgrid(v, v)
    for name in ("gcd", "lcm"):
        _same(getattr(asc, name)(asc.asarray(a), asc.asarray(b)), getattr(np, name)(a, b))
    if info.min < 0:  # the reported case: gcd(1, INT_MIN) is 1, not -1
        one, low = np.array(1, dtype=dtype), np.array(info.min, dtype=dtype)
        assert int(_np(asc.gcd(asc.asarray(one), asc.asarray(low)))) == int(np.gcd(one, low)) == 1


# ------------------------------------------------------------------ complex power


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_power_of_complex_zero(mode, dtype):
    exps = np.array([2 + 1j, 1j, -1 + 0j, 0j, 0.5 + 0j, -1 + 1j, 2 + 0j, 3 + 0j, complex(np.nan, 0),
                     complex(np.inf, 0), 1e-3 - 5j, -2 + 1j, 0.25 + 100j], dtype=dtype)
    for zero in (0j, complex(-0.0, 0.0), complex(0.0, -0.0)):
        base = np.full(exps.shape, zero, dtype=dtype)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.power(base, exps)
            got = asc.power(asc.asarray(base), asc.asarray(exps))
        np.testing.assert_array_equal(_np(got), want)
    with np.errstate(all="ignore"):
        assert complex(_np(asc.power(asc.asarray(np.complex128(0)), 2 + 1j))) == 0j  # reported case


# ------------------------------------------------------------------ pad linear_ramp


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("end_values", [0, (1j, 2), ((1 + 1j, -2j), (3, 0.5 - 0.5j))])
def test_pad_linear_ramp_complex_keeps_imaginary(mode, dtype, end_values):
    x = (np.arange(6).reshape(2, 3) * (1 - 2j) + 0.5j).astype(dtype)
    width = ((2, 1), (1, 3))
    ev = end_values
    if isinstance(ev, tuple) and not isinstance(ev[0], tuple):
        width = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        got = asc.pad(asc.asarray(x), width, mode="linear_ramp", end_values=ev)
    want = np.pad(x, width, mode="linear_ramp", end_values=ev)
    assert _np(got).dtype == want.dtype
    np.testing.assert_allclose(_np(got), want, rtol=1e-6 if dtype == np.complex64 else 1e-15, atol=1e-6)
    assert np.any(_np(got).imag[:1] != 0) or np.all(want.imag[:1] == 0)


def test_pad_linear_ramp_reported_case(mode):
    z = np.array([1 + 2j, 3 - 1j])
    want = np.pad(z, 2, mode="linear_ramp", end_values=(1j, 2))
    got = _np(asc.pad(asc.asarray(z), 2, mode="linear_ramp", end_values=(1j, 2)))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    assert got[0] == 1j and got[1].imag == 1.5


# ------------------------------------------------------------------ spacing


def test_spacing_float16_every_value(mode):
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        want = np.spacing(x)
        got = _np(asc.spacing(asc.asarray(x)))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(want)], want.view(np.uint16)[~np.isnan(want)])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert float(_np(asc.spacing(asc.asarray(np.float16(-8))))) == float(np.spacing(np.float16(-8))) == 2.0 ** -8


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spacing_wider_floats_unchanged(mode, dtype):
    v = np.array([-8, 8, -1, 1, -0.0, 0.0, np.inf, -np.inf, np.nan, np.finfo(dtype).max, -np.finfo(dtype).tiny,
                  np.finfo(dtype).smallest_subnormal, 3.5, -1e-30], dtype=dtype)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_np(asc.spacing(asc.asarray(v))), np.spacing(v))


# ------------------------------------------------------------------ histogram


def _hist_check(x, **kw):
    hn, en = np.histogram(x, **kw)
    w = kw.pop("weights", None)
    if w is not None:
        kw["weights"] = asc.asarray(w)
    ha, ea = asc.histogram(asc.asarray(x), **kw)
    _same(ea, en)
    _same(ha, hn)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_histogram_values_on_edges(mode, dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 2000).astype(dtype)
    _, e = np.histogram(x, bins=10 ** 5 if dtype != np.float16 else 700)
    on_edges = e[rng.integers(0, e.size, 2000)].astype(dtype)
    _hist_check(x, bins=10 ** 5 if dtype != np.float16 else 700)  # the reported case (float32)
    both = np.concatenate([x, on_edges])
    _hist_check(both, bins=10 ** 5 if dtype != np.float16 else 700)
    _hist_check(both, bins=997, range=(0.1, 0.9))
    _hist_check(both, bins=10 ** 4, range=(np.float32(0.2), 1))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("bins", [1, 7, 10, 255, 1024])
def test_histogram_dtypes_weights_density(mode, dtype, bins):
    rng = np.random.default_rng(1)
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is not None:
        x = rng.integers(info.min, info.max, 3000, endpoint=True).astype(dtype)
        x[:2] = [info.min, info.max]
    else:
        x = (rng.standard_normal(3000) * 100).astype(dtype)
    _hist_check(x, bins=bins)
    _hist_check(x, bins=bins, weights=rng.standard_normal(3000))
    _hist_check(x, bins=bins, density=True)
    _hist_check(x[::-3], bins=bins)  # negative stride


def test_histogram_empty_constant_and_errors(mode):
    _hist_check(np.array([], dtype=np.float32), bins=4)
    _hist_check(np.full(5, 2.5, dtype=np.float32), bins=3)
    _hist_check(np.array([0.0, -0.0, 1.0]), bins=2)
    for bad in (np.array([np.inf, 1.0]), np.array([np.nan, 1.0])):
        with pytest.raises(ValueError):
            np.histogram(bad)
        with pytest.raises(ValueError):
            asc.histogram(asc.asarray(bad))
    tiny = np.array([1.0, math.nextafter(1.0, 2.0)], dtype=np.float64)
    with pytest.raises(ValueError, match="Too many bins"):
        np.histogram(tiny, bins=10)
    with pytest.raises(ValueError, match="Too many bins"):
        asc.histogram(asc.asarray(tiny), bins=10)
