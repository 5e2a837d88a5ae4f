"""softmax / log_softmax / softmin over a non-last axis (the packed strided slabs of
src/nn/softmax.cc PackedT, and the in-place SlabT kept for very long axes) against float64
NumPy: inner sizes around the slab width (16 columns) and the SIMD widths, power-of-two row
strides (the cache-aliasing case the packed copy exists for), several slabs per outer index,
every dtype, special values inside a column."""

import numpy as np
import pytest

import pyasc as asc

from test_softmax_kernel import BF16, DTYPES, TOL, _check, _ref  # one reference and tolerance table

F = asc.ops


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("inner", [2, 7, 8, 15, 16, 17, 31, 32, 33, 48, 65, 1024])
def test_dim0_inner_sizes(dt, inner):
    rng = np.random.default_rng(inner)
    for n in (1, 3, 64, 257):
        x = (rng.standard_normal((n, inner)) * 3).astype(dt)
        x64 = x.astype(np.float64)
        _check(F.softmax(asc.asarray(x), dim=0), _ref(x64, 0), dt)
        _check(F.log_softmax(asc.asarray(x), dim=0), _ref(x64, 0, True), dt, log=True)
        _check(F.softmin(asc.asarray(x), dim=0), _ref(-x64, 0), dt)


@pytest.mark.parametrize("dt", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
def test_dim0_power_of_two_parallel(dt):
    # (4096, 1024): several packed slabs per task and several cores, rows 4 KiB apart
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((4096, 1024)) * 2).astype(dt)
    x64 = x.astype(np.float64)
    _check(F.softmax(asc.asarray(x), dim=0), _ref(x64, 0), dt)
    _check(F.log_softmax(asc.asarray(x), dim=0), _ref(x64, 0, True), dt, log=True)


def test_middle_axis_outer_and_tails():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 200, 37)) * 3).astype(np.float32)
    for axis in (0, 1):
        _check(F.softmax(asc.asarray(x), dim=axis), _ref(x.astype(np.float64), axis), np.float32)
    # non-contiguous input view
    v = x[:, ::2, 1:36]
    _check(F.softmax(asc.asarray(x)[:, ::2, 1:36], dim=1), _ref(v.astype(np.float64), 1), np.float32)


def test_long_axis_in_place_slab():
    # n * 16 columns * 4 bytes > 16 MiB: the in-place SlabT path
    rng = np.random.default_rng(5)
    x = rng.standard_normal((270000, 17)).astype(np.float32)
    _check(F.softmax(asc.asarray(x), dim=0), _ref(x.astype(np.float64), 0), np.float32)


@pytest.mark.parametrize("dt", [np.float32, np.float64, BF16], ids=lambda d: np.dtype(d).name)
def test_dim0_special_values(dt):
    x = np.zeros((40, 20), dtype=np.float64)
    x[:, :] = np.linspace(-3, 3, 40)[:, None]
    x[5, 1] = np.nan          # column 1: NaN
    x[7, 2] = np.inf          # column 2: +inf -> NaN
    x[:, 3] = -np.inf         # column 3: only -inf -> NaN
    x[9, 4] = -np.inf         # column 4: one -inf -> 0 there
    xs = x.astype(dt)
    got = np.asarray(F.softmax(asc.asarray(xs), dim=0)).astype(np.float64)
    assert np.isnan(got[:, 1:4]).all()
    assert got[9, 4] == 0
    ref = _ref(xs.astype(np.float64), 0)
    keep = [0] + list(range(4, 20))
    np.testing.assert_allclose(got[:, keep], ref[:, keep], rtol=TOL[dt][0], atol=TOL[dt][1])
    lg = np.asarray(F.log_softmax(asc.asarray(xs), dim=0)).astype(np.float64)
    assert lg[9, 4] == -np.inf and np.isnan(lg[:, 1:4]).all()
