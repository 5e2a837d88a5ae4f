"""Array API standard (2024.12) specifics of the pyasc namespace.

* :data:`__array_api_version__` (``"2024.12"``) and the ``device=`` check shared by the
  creation functions (:func:`check_device`: ``None``, ``"cpu"`` or an array's ``.device``).
* :func:`finfo` / :func:`iinfo`: NumPy's fields, with the array API's types: ``bits`` an
  ``int``, ``eps``/``max``/``min``/``smallest_normal`` Python ``float`` for every floating dtype
  (NumPy's float32 ``finfo`` gives ``numpy.float32`` scalars, which the standard does not
  allow), ``dtype`` the real dtype (float32 for complex64). Every other attribute of
  ``numpy.finfo`` / ``ml_dtypes.finfo`` (``tiny``, ``resolution``, ``precision``, ``nmant``, ...) is
  forwarded unchanged.

Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import errors as _errors

__all__ = ["__array_api_version__", "finfo", "iinfo"]

#: The version of the array API standard pyasc implements.
__array_api_version__ = "2024.12"

DEVICE = "cpu"


def check_device(name, device):
    """Raises a ValueError naming ``name`` unless ``device`` is None or pyasc's one device 'cpu'."""
    if device is None or (isinstance(device, str) and device == DEVICE):
        return
    raise _errors.AscendValueError(
        _errors.ErrorCode.INVALID_DEVICE,
        f"{name}: unsupported device {device!r}; pyasc arrays live on {DEVICE!r}")


def _dtype_of(x):
    if isinstance(x, _C.ndarray):
        return _np.dtype(x.dtype)
    if hasattr(x, "dtype") and not isinstance(x, type):
        return _np.dtype(x.dtype)
    return _np.dtype(x)


class finfo:  # noqa: N801 - NumPy's / the array API's name
    """Machine limits of a floating dtype (``numpy.finfo``; bfloat16 as ``ml_dtypes.finfo``).

    ``type`` is a dtype, a dtype name or an array. Complex dtypes describe their real parts.
    ``bits`` is an ``int``; ``eps``, ``max``, ``min``, ``smallest_normal`` are Python floats (the
    array API's types, exactly NumPy's values); ``dtype`` is the real floating dtype; the other
    NumPy attributes (``tiny``, ``resolution``, ``precision``, ``epsneg``, ``nmant``, ...) are
    NumPy's own.
    """

    def __init__(self, type):  # noqa: A002 - NumPy's parameter name
        dt = _dtype_of(type)
        try:
            np_info = _ml_dtypes.finfo(dt)
        except ValueError:
            raise _errors.AscendValueError(
                _errors.ErrorCode.INVALID_DTYPE, f"finfo: data type {dt} not inexact") from None
        object.__setattr__(self, "_np", np_info)
        object.__setattr__(self, "dtype", _np.dtype(np_info.dtype))
        object.__setattr__(self, "bits", int(np_info.bits))
        for name in ("eps", "max", "min", "smallest_normal"):
            object.__setattr__(self, name, float(getattr(np_info, name)))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(object.__getattribute__(self, "_np"), name)

    def __setattr__(self, name, value):
        raise AttributeError(f"finfo: attribute {name!r} is read-only")

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self._np.resolution}, min={self.min!r}, max={self.max!r}, "
                f"dtype={self.dtype})")


class iinfo:  # noqa: N801
    """Machine limits of an integer dtype (``numpy.iinfo``): ``bits``, ``min``, ``max`` (Python
    ints) and ``dtype``. ``type`` is a dtype, a dtype name or an array."""

    def __init__(self, type):  # noqa: A002
        dt = _dtype_of(type)
        if dt.kind not in "iu":
            raise _errors.AscendValueError(
                _errors.ErrorCode.INVALID_DTYPE, f"iinfo: invalid integer data type {dt}")
        np_info = _np.iinfo(dt)
        object.__setattr__(self, "_np", np_info)
        object.__setattr__(self, "dtype", dt)
        object.__setattr__(self, "kind", dt.kind)
        object.__setattr__(self, "bits", int(np_info.bits))
        object.__setattr__(self, "min", int(np_info.min))
        object.__setattr__(self, "max", int(np_info.max))

    def __setattr__(self, name, value):
        raise AttributeError(f"iinfo: attribute {name!r} is read-only")

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
