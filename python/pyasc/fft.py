"""Discrete Fourier transforms: ``pyasc.fft`` (NumPy's ``numpy.fft``, the array API's fft extension).

``fft``/``ifft``, ``fftn``/``ifftn``, ``rfft``/``irfft``, ``rfftn``/``irfftn``, ``hfft``/``ihfft``
take and return pyasc arrays with NumPy 2's signatures, values and dtypes (float32 and complex64
inputs give complex64, float16 as NumPy; bfloat16 is transformed in float32; integers, bool and
float64 give complex128; the real-output transforms give the matching real dtype). The
transforms themselves run on the host with NumPy's pocketfft over a zero-copy view of the input
(pyasc has no FFT kernel): the result is one copy into a new pyasc array (or into ``out``).

``fftfreq``/``rfftfreq`` (with the array API's ``dtype=`` and ``device=``) and
``fftshift``/``ifftshift`` (a pyasc ``roll`` on the device) complete the module.
"""

from __future__ import annotations

import operator as _operator

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from ._array_api import check_device as _check_device

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


def _host(a):
    """A NumPy view of ``a``'s values (bfloat16, which NumPy's FFT lacks, as float32)."""
    x = _C.asarray(a)
    h = _np.asarray(x)
    return h.astype(_np.float32) if h.dtype == _BF16 else h


def _result(res, out, name):
    if out is None:
        return _C.array(res)
    if not isinstance(out, _C.ndarray):
        raise TypeError(f"{name}: out must be a pyasc.ndarray")
    if tuple(out.shape) != res.shape:
        raise ValueError(f"{name}: out has shape {tuple(out.shape)}, the result {res.shape}")
    out[...] = _C.array(res)
    return out


def fft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional discrete Fourier transform along ``axis`` (``numpy.fft.fft``)."""
    return _result(_np.fft.fft(_host(a), n=n, axis=axis, norm=norm), out, "fft")


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """One-dimensional inverse discrete Fourier transform (``numpy.fft.ifft``)."""
    return _result(_np.fft.ifft(_host(a), n=n, axis=axis, norm=norm), out, "ifft")


def fftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional discrete Fourier transform over ``axes`` (``numpy.fft.fftn``)."""
    return _result(_np.fft.fftn(_host(a), s=s, axes=axes, norm=norm), out, "fftn")


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional inverse discrete Fourier transform (``numpy.fft.ifftn``)."""
    return _result(_np.fft.ifftn(_host(a), s=s, axes=axes, norm=norm), out, "ifftn")


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """Discrete Fourier transform of real input, the n//2 + 1 non-negative frequencies (``numpy.fft.rfft``)."""
    return _result(_np.fft.rfft(_host(a), n=n, axis=axis, norm=norm), out, "rfft")


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of :func:`rfft`: a real signal of length ``n`` (``numpy.fft.irfft``)."""
    return _result(_np.fft.irfft(_host(a), n=n, axis=axis, norm=norm), out, "irfft")


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """N-dimensional discrete Fourier transform of real input (``numpy.fft.rfftn``)."""
    return _result(_np.fft.rfftn(_host(a), s=s, axes=axes, norm=norm), out, "rfftn")


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """Inverse of :func:`rfftn` (``numpy.fft.irfftn``)."""
    return _result(_np.fft.irfftn(_host(a), s=s, axes=axes, norm=norm), out, "irfftn")


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """Transform of a Hermitian-symmetric signal (a real spectrum, ``numpy.fft.hfft``)."""
    return _result(_np.fft.hfft(_host(a), n=n, axis=axis, norm=norm), out, "hfft")


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of :func:`hfft` (``numpy.fft.ihfft``)."""
    return _result(_np.fft.ihfft(_host(a), n=n, axis=axis, norm=norm), out, "ihfft")


def _freq_dtype(dtype, name):
    if dtype is None:
        return _np.dtype(_np.float64)
    dt = _np.dtype(dtype)
    if dt.kind != "f" and dt != _BF16:
        raise ValueError(f"{name}: dtype must be a real floating dtype, got {dt}")
    return dt


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point transform with sample spacing ``d``
    (``numpy.fft.fftfreq``; float64 unless ``dtype``; ``device`` may only be 'cpu')."""
    _check_device("fftfreq", device)
    dt = _freq_dtype(dtype, "fftfreq")
    return _C.array(_np.fft.fftfreq(_operator.index(n), d=d).astype(dt))


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of :func:`rfft` (``numpy.fft.rfftfreq``; float64 unless ``dtype``)."""
    _check_device("rfftfreq", device)
    dt = _freq_dtype(dtype, "rfftfreq")
    return _C.array(_np.fft.rfftfreq(_operator.index(n), d=d).astype(dt))


def _shift(x, axes, sign):
    from .numeric import roll

    x = _C.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif not isinstance(axes, (tuple, list)):
        axes = (axes,)
    axes = tuple(_np.lib.array_utils.normalize_axis_index(_operator.index(a), x.ndim) for a in axes)
    if not axes:
        return x[...]
    shift = tuple(sign * (x.shape[a] // 2) for a in axes)
    return roll(x, shift, axis=axes)


def fftshift(x, axes=None):
    """The zero-frequency term moved to the centre over ``axes`` (all by default; ``numpy.fft.fftshift``)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of :func:`fftshift` (``numpy.fft.ifftshift``)."""
    return _shift(x, axes, -1)
