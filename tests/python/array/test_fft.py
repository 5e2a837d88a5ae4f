"""pyasc.fft against numpy.fft: values, dtypes and shapes for every input dtype, n/s, axis/axes,
norm, out=, empty-free edge lengths, fftfreq/rfftfreq with dtype=/device=, fftshift/ifftshift."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES

IDS = lambda d: np.dtype(d).name  # noqa: E731
BF16 = np.dtype(ml_dtypes.bfloat16)

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn"]
COMPLEX_OK = {"fft", "ifft", "irfft", "hfft", "fftn", "ifftn", "irfftn"}


def _data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 4
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _ref_input(a):
    return a.astype(np.float32) if a.dtype == BF16 else a


def _close(got, expected):
    assert isinstance(got, asc.ndarray)
    g = np.asarray(got)
    assert g.dtype == expected.dtype and g.shape == expected.shape
    tol = 1e-4 if expected.dtype in (np.complex64, np.float32) else 1e-10
    np.testing.assert_allclose(g, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max(initial=0))))


ONE_D_CASES = [(n, d) for n in ONE_D for d in ALL_DTYPES + [np.complex64, np.complex128]
               if n in COMPLEX_OK or np.dtype(d).kind != "c"]  # complex into rfft/ihfft: test_real_only_...
N_D_CASES = [(n, d) for n in N_D for d in [np.float32, np.float64, np.complex64, np.complex128, np.int16]
             if n in COMPLEX_OK or np.dtype(d).kind != "c"]


@pytest.mark.parametrize("name,dtype", ONE_D_CASES, ids=[f"{n}-{IDS(d)}" for n, d in ONE_D_CASES])
def test_one_d_as_numpy(name, dtype):
    a = _data(dtype, (3, 8))
    f = getattr(np.fft, name)
    for kw in ({}, {"n": 5}, {"n": 12, "axis": 0}, {"axis": -2, "norm": "ortho"}, {"norm": "forward"}):
        _close(getattr(asc.fft, name)(asc.asarray(a), **kw), f(_ref_input(a), **kw))


@pytest.mark.parametrize("name,dtype", N_D_CASES, ids=[f"{n}-{IDS(d)}" for n, d in N_D_CASES])
def test_n_d_as_numpy(name, dtype):
    a = _data(dtype, (2, 3, 6))
    f = getattr(np.fft, name)
    for kw in ({}, {"axes": (0, 2)}, {"s": (4, 5), "axes": (1, 2)}, {"norm": "ortho"}):
        _close(getattr(asc.fft, name)(asc.asarray(a), **kw), f(a, **kw))


def test_non_contiguous_input():
    a = _data(np.float64, (6, 10))
    x = asc.asarray(a)[::2, ::-3]
    _close(asc.fft.fft(x), np.fft.fft(a[::2, ::-3]))


def test_out():
    a = _data(np.complex128, (4, 8))
    out = asc.empty((4, 8), dtype=np.complex128)
    r = asc.fft.fft(asc.asarray(a), out=out)
    assert r is out
    _close(out, np.fft.fft(a))
    with pytest.raises(ValueError, match="fft: out"):
        asc.fft.fft(asc.asarray(a), out=asc.empty((4, 7), dtype=np.complex128))


def test_errors_as_numpy():
    x = asc.asarray(np.ones(4))
    for call in (lambda m, v: m.fft.fft(v, n=0), lambda m, v: m.fft.fft(v, axis=3),
                 lambda m, v: m.fft.fft(v, norm="bogus")):
        with pytest.raises((ValueError, IndexError)) as e:
            call(np, np.ones(4))
        with pytest.raises(e.type):
            call(asc, x)


def test_real_only_rejects_complex():
    a = np.ones(4, np.complex128)
    with pytest.raises(TypeError):
        np.fft.rfft(a)
    with pytest.raises(TypeError):
        asc.fft.rfft(asc.asarray(a))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_freq(name, n):
    f = getattr(np.fft, name)
    _close(getattr(asc.fft, name)(n), f(n))
    _close(getattr(asc.fft, name)(n, d=0.25, device="cpu"), f(n, d=0.25))
    for dt in (np.float32, np.float64):
        got = getattr(asc.fft, name)(n, d=0.5, dtype=dt)
        assert got.dtype == dt
        np.testing.assert_allclose(np.asarray(got), f(n, d=0.5).astype(dt))
    with pytest.raises(ValueError, match=name):
        getattr(asc.fft, name)(n, dtype=np.int32)
    with pytest.raises(ValueError, match=name):
        getattr(asc.fft, name)(n, device="gpu")


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("shape", [(7,), (8,), (3, 4), (2, 5, 3), (0, 3)])
def test_shifts(name, shape):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    f = getattr(np.fft, name)
    for axes in [None, 0, -1, (0,), tuple(range(len(shape)))]:
        got = getattr(asc.fft, name)(asc.asarray(a), axes=axes)
        expected = f(a, axes=axes)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_numpy_fft_dispatches_to_pyasc():
    a = _data(np.float32, (8,))
    r = np.fft.rfft(asc.asarray(a))
    _close(r, np.fft.rfft(a))
