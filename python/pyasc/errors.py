"""Errors raised by pyasc.

Every failure of the C++ core is an ``asc::Error`` with an ACL-style code and a
message that starts with ``[op_name]``. It reaches Python as an
:class:`AscendError` subclass chosen by the one table in this module
(``_CLASS_BY_CODE``); each subclass also derives from the builtin exception
NumPy would raise in the same situation, so ``except ValueError`` keeps
working::

    try:
        ...
    except asc.AscendError as e:
        print(e.code, e.message)
"""

from __future__ import annotations

from numpy import linalg as _np_linalg

from . import _C

__all__ = [
    "ErrorCode",
    "AscendError",
    "AscendValueError",
    "AscendTypeError",
    "AscendIndexError",
    "AscendMemoryError",
    "AscendNotImplementedError",
    "AscendRuntimeError",
    "AscendLinAlgError",
    "AscendOverflowError",
    "AscendKeyError",
    "AscendAttributeError",
    "AscendUnsupportedDtypeError",
    "AscendUnsupportedIntError",
    "error_class",
]

ErrorCode = _C.ErrorCode


def _as_code(code):
    try:
        return ErrorCode(int(code))
    except ValueError:
        return int(code)


class AscendError(Exception):
    """Base class of pyasc errors.

    Attributes:
        code: the error code (an :class:`ErrorCode` member, or a plain ``int``
            for codes pyasc does not define); the numbers are ACL's ``aclError``.
        message: the message, starting with ``[op_name]``.
    """

    def __init__(self, code, message=""):
        super().__init__(code, message)
        self.code = _as_code(code)
        self.message = str(message)

    def __str__(self):
        return f"{self.message} ({_C.error_code_name(int(self.code))} {int(self.code)})"


class AscendValueError(AscendError, ValueError):
    """Invalid argument or shape (a ``ValueError``)."""


class AscendTypeError(AscendError, TypeError):
    """Invalid dtype (a ``TypeError``)."""


class AscendIndexError(AscendError, IndexError):
    """Index or offset out of range (an ``IndexError``)."""


class AscendMemoryError(AscendError, MemoryError):
    """Device, host or on-chip (UB/L1/L0) memory exhausted (a ``MemoryError``)."""


class AscendNotImplementedError(AscendError, NotImplementedError):
    """Feature or API not supported (a ``NotImplementedError``)."""


class AscendRuntimeError(AscendError, RuntimeError):
    """Kernel, stream or internal runtime failure (a ``RuntimeError``)."""


class AscendLinAlgError(AscendError, _np_linalg.LinAlgError):
    """Singular or not positive definite matrix, non-square input, no convergence
    (a ``numpy.linalg.LinAlgError``, hence also a ``ValueError``)."""


class AscendKeyError(AscendError, KeyError):
    """A name that is not in a table of choices, where NumPy looks it up in a dict (a
    ``KeyError``: einsum's ``optimize`` path name)."""


class AscendAttributeError(AscendError, AttributeError):
    """An argument lacking a method NumPy calls on it (an ``AttributeError``: numpy.require
    calls ``upper()`` on each entry of ``requirements``)."""


class AscendOverflowError(AscendError, OverflowError):
    """A Python integer out of the range of the target dtype (an ``OverflowError``)."""


class AscendUnsupportedDtypeError(AscendTypeError, ValueError):
    """Array data of a dtype pyasc does not hold (str, bytes, object, datetime): a ``TypeError``
    and a ``ValueError``, since NumPy raises either for the same input depending on which of its
    checks fails first ("could not convert string to float", a missing ufunc loop, "object too
    deep for desired array", a shape or axis check that runs before the dtype matters)."""


class AscendUnsupportedIntError(AscendUnsupportedDtypeError, OverflowError):
    """Object data holding a Python int beyond int64/uint64 (also an ``OverflowError``, NumPy's
    "Python int too large to convert to C long")."""


def _unsupported_input(arr):
    """The exception for converting NumPy array ``arr`` of an unsupported dtype (C++ from_numpy)."""
    cls = AscendUnsupportedDtypeError
    if arr.dtype.kind == "O" and arr.size and any(type(v) is int for v in arr.flat[:64]):  # noqa: E721
        cls = AscendUnsupportedIntError
    shown = repr(arr.flat[0]) if arr.size else "[]"
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return cls(ErrorCode.INVALID_DTYPE,
               f"[asarray] unsupported dtype {arr.dtype} (value {shown}, shape {arr.shape}): pyasc arrays hold "
               "bool, integer, float and complex numbers")


# The one code -> class table. Codes not listed map to AscendRuntimeError.
_CLASS_BY_CODE = {
    ErrorCode.INVALID_PARAM: AscendValueError,
    ErrorCode.UNINITIALIZE: AscendRuntimeError,
    ErrorCode.REPEAT_INITIALIZE: AscendRuntimeError,
    ErrorCode.INVALID_FILE: AscendValueError,
    ErrorCode.INVALID_DTYPE: AscendTypeError,
    ErrorCode.INDEX_OUT_OF_RANGE: AscendIndexError,
    ErrorCode.INVALID_SHAPE: AscendValueError,
    ErrorCode.LINALG_ERROR: AscendLinAlgError,
    ErrorCode.OVERFLOW: AscendOverflowError,
    ErrorCode.BAD_ALLOC: AscendMemoryError,
    ErrorCode.API_NOT_SUPPORT: AscendNotImplementedError,
    ErrorCode.INVALID_DEVICE: AscendValueError,
    ErrorCode.MEMORY_ADDRESS_UNALIGNED: AscendValueError,
    ErrorCode.INVALID_RESOURCE_HANDLE: AscendValueError,
    ErrorCode.FEATURE_UNSUPPORTED: AscendNotImplementedError,
    ErrorCode.STORAGE_OVER_LIMIT: AscendMemoryError,
    ErrorCode.RT_PARAM_INVALID: AscendValueError,
    ErrorCode.RT_INVALID_DEVICE_ID: AscendValueError,
    ErrorCode.RT_FEATURE_NOT_SUPPORT: AscendNotImplementedError,
    ErrorCode.RT_MEMORY_ALLOCATION: AscendMemoryError,
    ErrorCode.RT_MEMORY_FREE: AscendValueError,
    ErrorCode.RT_INTERNAL_ERROR: AscendRuntimeError,
    ErrorCode.RT_AICORE_EXCEPTION: AscendRuntimeError,
    ErrorCode.INTERNAL: AscendRuntimeError,
    ErrorCode.FAILURE: AscendRuntimeError,
}


def error_class(code):
    """The :class:`AscendError` subclass raised for ``code`` (an int or ErrorCode)."""
    return _CLASS_BY_CODE.get(_as_code(code), AscendRuntimeError)


def _from_code(code, message):
    """Builds the exception for ``code``; the C++ exception translator calls this."""
    return error_class(code)(code, message)


def _callback_failure(exc):
    """``(code, message)`` stored on a stream when a host callback raised ``exc``."""
    if isinstance(exc, AscendError):
        return int(exc.code), exc.message
    return (
        int(ErrorCode.FAILURE),
        f"[host_callback] {type(exc).__name__}: {exc}",
    )
