"""The native softmax / log_softmax / softmin kernel (src/nn/softmax.cc) against float64 NumPy
references: every dtype, every axis (contiguous rows and the strided inner-axis slabs), row
lengths around the SIMD widths, special values as torch, empty / 0-d / non-contiguous inputs,
and the large paths (several cores, streaming stores, rows longer than the scratch row)."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
BF16 = ml_dtypes.bfloat16
DTYPES = [np.float32, np.float64, np.float16, BF16]
# float32 / float64: a few ulps of the largest output; half: one rounding of the float32 result
TOL = {np.float32: (3e-6, 1e-7), np.float64: (1e-13, 1e-16), np.float16: (1e-3, 1e-5), BF16: (8e-3, 1e-4)}


def _ref(x64, axis, log=False):
    m = np.max(x64, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        z = x64 - m
        s = np.exp(z).sum(axis=axis, keepdims=True)
        return z - np.log(s) if log else np.exp(z) / s


def _check(got, ref, dt, log=False):
    got = np.asarray(got)
    assert got.dtype == np.dtype(dt), (got.dtype, dt)
    g = got.astype(np.float64)
    rtol, atol = TOL[dt]
    if log:  # log outputs: absolute error relative to the row's scale
        atol = max(atol, rtol * 8)
    np.testing.assert_allclose(g, ref, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 127, 1000])
def test_rows_tails(dt, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((5, n)) * 3).astype(dt)
    x64 = x.astype(np.float64)
    for axis in (-1, 0):
        _check(F.softmax(asc.asarray(x), dim=axis), _ref(x64, axis), dt)
        _check(F.log_softmax(asc.asarray(x), dim=axis), _ref(x64, axis, True), dt, log=True)
        _check(F.softmin(asc.asarray(x), dim=axis), _ref(-x64, axis), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 9, 17), (1, 33, 2), (4, 1, 40)])
def test_every_axis(dt, shape):
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 4).astype(dt)
    x64 = x.astype(np.float64)
    for axis in range(-len(shape), len(shape)):
        _check(F.softmax(x, dim=axis), _ref(x64, axis), dt)
        _check(F.log_softmax(x, dim=axis), _ref(x64, axis, True), dt, log=True)


@pytest.mark.parametrize("dt", [np.float32, np.float64, BF16], ids=lambda d: np.dtype(d).name)
def test_strided_several_slabs(dt):
    # the reduced axis (300) with 700 trailing elements: several slabs of columns plus a tail slab
    x = (np.random.default_rng(7).standard_normal((2, 300, 700)) * 2).astype(dt)
    x64 = x.astype(np.float64)
    _check(F.softmax(x, dim=1), _ref(x64, 1), dt)
    _check(F.log_softmax(x, dim=1), _ref(x64, 1, True), dt, log=True)
    _check(F.softmax(x, dim=0), _ref(x64, 0), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1])
def test_special_values(dt, axis):
    inf, nan = np.inf, np.nan
    rows = np.array([
        [0.0, -inf, 1.0, 2.0, -inf, 0.5, 3.0, -1.0, 4.0, 0.0],   # -inf entries -> 0 / -inf
        [-inf] * 10,                                             # all -inf -> NaN
        [1.0, nan, 0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],      # NaN -> NaN row
        [1.0, 2.0, inf, 0.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],      # +inf -> NaN row (torch)
        [0.0, -95.0, -200.0, -1e30, 1.0, -87.5, -100.0, -103.0, 2.0, -inf],  # tiny / denormal exps
    ])
    with np.errstate(over="ignore"):  # -1e30 is -inf in float16
        x = (rows if axis == 1 else rows.T).astype(dt)
    x64 = x.astype(np.float64)
    for log in (False, True):
        fn = F.log_softmax if log else F.softmax
        got = np.asarray(fn(x, dim=axis)).astype(np.float64)
        want = _ref(x64, axis, log)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        fin = np.isfinite(want)
        np.testing.assert_array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
        rtol, atol = TOL[dt]
        if dt == np.float32 and not log:
            atol = 1e-44  # denormal outputs (exp(-95 - log s)) to within a few denormal units
        np.testing.assert_allclose(got[fin], want[fin], rtol=rtol * 4, atol=atol if not log else 1e-5)
        zero = want == 0
        assert (got[zero] == 0).all()


def test_empty_scalar_noncontiguous():
    assert F.softmax(np.zeros((0, 4), np.float32), dim=1).shape == (0, 4)
    assert F.log_softmax(np.zeros((3, 0), np.float32), dim=0).shape == (3, 0)
    assert float(np.asarray(F.softmax(asc.asarray(np.float32(2.5)), dim=0))) == 1.0
    assert float(np.asarray(F.log_softmax(asc.asarray(np.float32(2.5)), dim=-1))) == 0.0
    assert np.isnan(np.asarray(F.softmax(asc.asarray(np.float32(np.inf)), dim=0)))
    base = np.random.default_rng(1).standard_normal((40, 30)).astype(np.float32)
    a = asc.asarray(base)
    for view, ref in ((a.T, base.T), (a[:, ::3], base[:, ::3]), (a[::-2, 1:], base[::-2, 1:])):
        for axis in (0, 1):
            _check(F.softmax(view, dim=axis), _ref(ref.astype(np.float64), axis), np.float32)
    # a lazy (pending) input is materialised first
    y = F.softmax(a * 2.0 + 1.0, dim=1)
    _check(y, _ref(base.astype(np.float64) * 2 + 1, 1), np.float32)


def test_dtype_argument_and_errors():
    x = np.ones((2, 3), np.float32)
    assert F.softmax(x, dim=1, dtype=asc.float64).dtype == np.float64
    assert F.softmin(x, dim=1, dtype=asc.float16).dtype == np.float16
    with pytest.raises(IndexError, match="softmax"):
        F.softmax(x, dim=2)
    with pytest.raises(TypeError, match="log_softmax"):
        F.log_softmax(np.ones((2, 3), np.int32), dim=1)


@pytest.mark.parametrize("dt", [np.float32, BF16], ids=lambda d: np.dtype(d).name)
def test_large_parallel_streaming(dt):
    # > 4 MiB of output: rows over all cores and streaming stores
    x = (np.random.default_rng(2).standard_normal((1100, 1024)) * 3).astype(dt)
    x64 = x.astype(np.float64)
    _check(F.softmax(x, dim=-1), _ref(x64, -1), dt)
    _check(F.log_softmax(x, dim=-1), _ref(x64, -1, True), dt, log=True)
    _check(F.softmax(x, dim=0), _ref(x64, 0), dt)


@pytest.mark.parametrize("log", [False, True])
def test_long_rows(log):
    # rows longer than the scratch row (16384): pass 3 recomputes exp
    x = (np.random.default_rng(5).standard_normal((3, 40001)) * 5).astype(np.float32)
    fn = F.log_softmax if log else F.softmax
    _check(fn(x, dim=1), _ref(x.astype(np.float64), 1, log), np.float32, log=log)


def test_sums_to_one_float32():
    x = (np.random.default_rng(9).standard_normal((64, 777)) * 10).astype(np.float32)
    y = np.asarray(F.softmax(x, dim=1)).astype(np.float64)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=2e-6)


@pytest.mark.parametrize("neg", [False, True])
@pytest.mark.parametrize("n", [7, 64, 1000])
def test_fast_exp_range_edge_and_nan_payloads(neg, n):
    # rows on both sides of the test-free exp's range (every z = x - max >= -87 in float32),
    # against float64; and NaNs whose payload has low bits set (an exponent-field add would
    # turn them into finite numbers) in rows that would otherwise take the test-free path
    rng = np.random.default_rng(n)
    rows = []
    for spread in (0.0, 1.0, 86.9, 87.0, 87.1, 90.0, 103.0, 110.0):
        r = rng.uniform(-1, 1, n)
        r = (r - r.min()) / max(np.ptp(r), 1e-30) * spread  # min - max = -spread exactly-ish
        rows.append(r + 5.0)
    x = np.array(rows, np.float32)
    if neg:
        x = -x
    x64 = x.astype(np.float64)
    fn = F.softmin if neg else F.softmax
    ref = _ref(-x64 if neg else x64, 1)
    got = np.asarray(fn(x, dim=1)).astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=3e-6 * 4, atol=1e-44)
    lg = np.asarray(F.log_softmax(-x if neg else x, dim=1)).astype(np.float64)
    np.testing.assert_allclose(lg, _ref(-x64 if neg else x64, 1, True), rtol=3e-6, atol=3e-5)
    for payload in (0x7FC00001, 0x7FC001FF, 0x7F800001, 0xFFC00003, 0x7FFFFFFF):
        xn = (rng.standard_normal((3, n)) * 2).astype(np.float32)
        xn[1, n // 2] = np.array([payload], np.uint32).view(np.float32)[0]
        for f in (F.softmax, F.softmin, F.log_softmax):
            y = np.asarray(f(xn, dim=1))
            assert np.isnan(y[1]).all(), (hex(payload), f.__name__)
            assert not np.isnan(y[[0, 2]]).any()
