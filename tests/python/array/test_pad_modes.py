"""pad's statistic and ramp modes (maximum, minimum, mean, median with stat_length;
linear_ramp with end_values) against NumPy for every dtype, special values, empty axes
and views."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, assert_same, run_both

BF16 = np.dtype(ml_dtypes.bfloat16)
STAT_MODES = ["maximum", "minimum", "mean", "median"]


def _data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100) + 1, n).astype(dt).reshape(shape)
    return (np.round(rng.standard_normal(n) * 40) / 4).astype(dt).reshape(shape)


def _np_pad(a, *args, **kw):
    """np.pad, through float64 for bfloat16 (NumPy has no bfloat16 mean/median loops)."""
    if np.dtype(a.dtype) == BF16:
        return np.pad(a.astype(np.float64), *args, **kw).astype(BF16)
    return np.pad(a, *args, **kw)


def _check(a, *args, **kw):
    exp = _np_pad(a, *args, **kw)
    got = asc.pad(asc.asarray(a), *args, **kw)
    rtol = 1e-2 if np.dtype(a.dtype) in (BF16, np.dtype(np.float16)) else None
    assert_same(exp, got, rtol)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d is not np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", STAT_MODES)
def test_stat_modes_all_dtypes(dtype, mode):
    a = _data(dtype, (5, 7), 1)
    _check(a, 2, mode)
    _check(a, ((1, 3), (0, 2)), mode)
    _check(a, ((2, 1), (3, 4)), mode, stat_length=2)
    _check(a, ((2, 1), (3, 4)), mode, stat_length=((1, 3), (2, 100)))
    _check(a[::-1, ::2], ((1, 1), (2, 0)), mode, stat_length=(3,))
    _check(_data(dtype, (9,), 2), (4, 3), mode, stat_length=(2, 5))
    _check(_data(dtype, (3, 4, 2), 3), ((1, 0), (2, 2), (1, 3)), mode, stat_length=1)


@pytest.mark.parametrize("mode", ["maximum", "minimum"])
def test_bool_max_min(mode):
    _check(_data(np.bool_, (4, 6), 4), 2, mode)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.int64], ids=lambda d: np.dtype(d).name)
def test_integer_mean_median_round_half_even(dtype):
    a = np.array([[1, 2], [3, 6], [2, 4], [1, 3]], dtype=dtype)  # means/medians with .5
    for mode in ("mean", "median"):
        _check(a, 1, mode)
        _check(a, ((2, 2), (1, 1)), mode, stat_length=2)
        _check(a.T, 3, mode, stat_length=(1, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16], ids=lambda d: np.dtype(d).name)
def test_stat_modes_special_values(dtype):
    a = np.array([[1.0, np.nan, -0.0, 3.0], [np.inf, 2.0, 0.0, -np.inf], [-1.0, 4.0, 5.0, 0.5]], dtype=dtype)
    for mode in STAT_MODES:
        _check(a, 2, mode)
        _check(a, 1, mode, stat_length=1)
        _check(a[:, 2:], 1, mode)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_linear_ramp(dtype):
    a = _data(dtype, (4, 5), 5)
    _check(a, 3, "linear_ramp")
    _check(a, ((1, 4), (2, 0)), "linear_ramp", end_values=((5, -3), (2, 7)))
    _check(a[::-1, 1::2], 2, "linear_ramp", end_values=(10,))
    _check(_data(dtype, (7,), 6), (5, 6), "linear_ramp", end_values=(-4, 9))
    _check(_data(dtype, (2, 3, 2), 7), ((1, 1), (0, 3), (2, 1)), "linear_ramp", end_values=1)


def test_linear_ramp_float_values_and_zero_step():
    a = np.array([[2.0, 5.0], [2.0, -1.0]], np.float32)
    _check(a, ((0, 0), (3, 2)), "linear_ramp", end_values=2.0)  # a zero step in one row
    _check(a, 4, "linear_ramp", end_values=((0.5, 1.25), (np.inf, -3.0)))
    _check(np.array([1.0, np.nan, 3.0]), 2, "linear_ramp", end_values=(0.0, 7.5))
    _check(np.array([10, 0, 255], np.uint8), 3, "linear_ramp", end_values=(255, 0))


def test_stat_and_ramp_errors_and_empty(check):
    a = np.arange(12.0).reshape(3, 4)
    check(lambda xp: xp.pad(xp.asarray(a), 1, "maximum", stat_length=0))
    check(lambda xp: xp.pad(xp.asarray(a), 1, "minimum", stat_length=((0, 1), (1, 1))))
    check(lambda xp: xp.pad(xp.asarray(a), 1, "mean", stat_length=-1))
    check(lambda xp: xp.pad(xp.asarray(a), 1, "median", end_values=1))
    check(lambda xp: xp.pad(xp.asarray(a), 1, "linear_ramp", stat_length=1))
    check(lambda xp: xp.pad(xp.asarray(a), 1, "mean", stat_length=((1, 2, 3),)))
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 3))), 1, "mean"))
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 3))), ((0, 0), (1, 2)), "maximum"))
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 3))), ((0, 0), (1, 2)), "linear_ramp"))
    check(lambda xp: xp.pad(xp.asarray(np.float32(2.0)), 3, "mean"))
    check(lambda xp: xp.pad(xp.asarray(a), 0, "median"))


def test_large_pad_mean():
    a = np.random.default_rng(0).standard_normal((300, 257)).astype(np.float32)
    _check(a, ((3, 5), (64, 65)), "mean", stat_length=((10, 300), (2, 3)))
    _check(a, ((3, 5), (64, 65)), "median", stat_length=((10, 300), (2, 3)))
    _check(a, 7, "linear_ramp", end_values=(1.5, -2.0))


# ------------------------------------------------------------------ reflect_type='odd', callable modes

ODD_WIDTHS = [0, 1, 2, (1, 3), (5, 0), (7, 11), (20, 13)]  # wider than the axis: iterative chunks


@pytest.mark.parametrize("dtype", ALL_DTYPES + [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_reflect_type_odd_1d(dtype, mode):
    for n in (1, 2, 3, 4, 7):
        if np.dtype(dtype).kind == "c":
            a = (_data(np.float64, (n,), n) * (1 - 2j)).astype(dtype)
        else:
            a = _data(dtype, (n,), n)
        for w in ODD_WIDTHS:
            _check(a, w, mode, reflect_type="odd")
            _check(a, w, mode, reflect_type="even")


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_reflect_type_odd_nd_and_views(dtype, mode):
    a = _data(dtype, (4, 5, 3), 2)
    if np.dtype(dtype).kind in "iu":  # 2 * edge - x wraps around as NumPy's integer arithmetic does
        a[0, 0, 0] = np.iinfo(dtype).max
        a[1, 0, 0] = np.iinfo(dtype).min
    for v in (a, a[::-1, ::2], a.transpose(2, 0, 1), a[:, 1:2, :]):
        _check(v, ((2, 3), (0, 4), (9, 1)), mode, reflect_type="odd")
        _check(v, 3, mode, reflect_type="odd")
    f = np.array([1.0, np.nan, -np.inf, 0.0, -0.0])
    _check(f, 6, mode, reflect_type="odd")


def test_reflect_type_odd_edge_cases(check):
    a = np.arange(6.0).reshape(2, 3)
    check(lambda xp: xp.pad(xp.asarray(a), 2, "reflect", reflect_type="odd"))
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 3))), ((1, 1), (0, 0)), "reflect", reflect_type="odd"))
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 3))), ((0, 0), (2, 2)), "symmetric", reflect_type="odd"))
    check(lambda xp: xp.pad(xp.asarray(np.float64(3.0)), 2, "reflect", reflect_type="odd"))
    check(lambda xp: xp.pad(xp.asarray(a), 2, "wrap", reflect_type="odd"))  # not a keyword of 'wrap'
    # NumPy treats any reflect_type other than 'odd' as 'even'.
    check(lambda xp: xp.pad(xp.asarray(a), 2, "reflect", reflect_type="other"))


def _pad_with(vector, pad_width, iaxis, kwargs):
    """NumPy's documented example: fill both pad areas with `padder`."""
    pad_value = kwargs.get("padder", 10)
    vector[:pad_width[0]] = pad_value
    if pad_width[1]:
        vector[-pad_width[1]:] = pad_value


def _pad_rank(vector, pad_width, iaxis, kwargs):
    """Writes values that depend on the axis and the current contents (the order matters)."""
    vector[:pad_width[0]] = vector[pad_width[0]] + iaxis + 1
    if pad_width[1]:
        vector[vector.shape[0] - pad_width[1]:] = vector[vector.shape[0] - pad_width[1] - 1] * 2 - iaxis


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, np.complex128])
def test_callable_mode(dtype):
    a = _data(np.float64, (3, 4), 3).astype(dtype)
    for v in (a, a[::-1, ::2], a.T):
        _check(v, 2, _pad_with)
        _check(v, ((1, 0), (2, 3)), _pad_with, padder=-7)
        _check(v, ((2, 1), (0, 3)), _pad_rank)
    _check(np.arange(5.0), (3, 1), _pad_rank)
    _check(np.zeros((2, 0, 3)), 1, _pad_with)
    _check(np.float64(4.0), 0, _pad_with)
    seen = []

    def record(vector, pad_width, iaxis, kwargs):
        assert isinstance(vector, asc.ndarray) and vector.ndim == 1
        seen.append((iaxis, tuple(int(w) for w in pad_width), vector.shape[0], dict(kwargs)))

    asc.pad(asc.asarray(a), ((1, 2), (0, 1)), record, k=1)
    assert seen == [(0, (1, 2), 6, {"k": 1})] * 5 + [(1, (0, 1), 5, {"k": 1})] * 6
