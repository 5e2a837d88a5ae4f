"""NumPy's ``_core/numerictypes`` names: the scalar type names and dtype queries.

The scalar types are NumPy's own classes (``asc.single is numpy.float32``,
``asc.floating is numpy.floating``), so they work as ``dtype=`` arguments and
in ``isinstance``/``issubclass`` checks against NumPy scalars, as the dtype
objects ``asc.float32`` etc. already do. ``longdouble``/``clongdouble``
(float128/complex256 on x86) are not provided: pyasc has no extended-precision
dtypes (see :data:`pyasc._numpy_names.NOT_PROVIDED`).

Also NumPy's tables and flags: ``dtype`` (NumPy's class), ``True_``/``False_``,
``little_endian``, ``typecodes`` (NumPy's character classes), ``sctypeDict``
and ``ScalarType`` (NumPy's, restricted to the numeric types pyasc holds, plus
bfloat16).

``issubdtype``, ``promote_types`` and ``min_scalar_type`` follow NumPy 2.4 and
know bfloat16 as pyasc does: a real floating dtype (``issubdtype(bfloat16,
floating)`` is True, where NumPy's answer for the ml_dtypes class is False),
promoted by :func:`pyasc.result_type`. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _namespace as _ns
from ._helpers import _BF16, _TE

__all__ = [
    "single", "double", "half", "csingle", "cdouble", "byte", "ubyte", "short", "ushort", "intc", "uintc",
    "int_", "uint", "long", "ulong", "longlong", "ulonglong", "intp", "uintp",
    "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating",
    "issubdtype", "promote_types", "min_scalar_type",
    "dtype", "True_", "False_", "little_endian", "typecodes", "sctypeDict", "ScalarType",
]

# C-named scalar types (NumPy's aliases of the sized types on this platform).
single, double, half = _np.single, _np.double, _np.half
csingle, cdouble = _np.csingle, _np.cdouble
byte, ubyte, short, ushort = _np.byte, _np.ubyte, _np.short, _np.ushort
intc, uintc, int_, uint = _np.intc, _np.uintc, _np.int_, _np.uint
long, ulong = _np.long, _np.ulong  # noqa: A001 - NumPy 2's names
longlong, ulonglong = _np.longlong, _np.ulonglong
intp, uintp = _np.intp, _np.uintp

# The abstract classes of NumPy's scalar hierarchy (for issubdtype / isinstance).
generic, number, integer = _np.generic, _np.number, _np.integer
signedinteger, unsignedinteger = _np.signedinteger, _np.unsignedinteger
inexact, floating, complexfloating = _np.inexact, _np.floating, _np.complexfloating

dtype = _np.dtype
True_, False_ = _np.True_, _np.False_
little_endian = _np.little_endian
typecodes = dict(_np.typecodes)


def _numeric_type(t):
    try:
        return issubclass(t, _np.generic) and _np.dtype(t).kind in "biufc" and _np.dtype(t).itemsize <= 16 and \
            t not in (_np.longdouble, _np.clongdouble)
    except TypeError:
        return False


sctypeDict = {k: v for k, v in _np.sctypeDict.items() if _numeric_type(v)}
sctypeDict["bfloat16"] = _ml_dtypes.bfloat16
ScalarType = tuple(t for t in _np.ScalarType if not issubclass(t, _np.generic) or _numeric_type(t)) + (
    _ml_dtypes.bfloat16,)


def _is_bf16(x):
    if x is _ml_dtypes.bfloat16:
        return True
    if isinstance(x, (_C.ndarray, _np.ndarray)):  # an array is no dtype (np.dtype reads a pyasc
        return False                               # array's .dtype attribute: bfloat16 passed as one)
    try:
        return _np.dtype(x) == _BF16
    except TypeError:
        return False


def issubdtype(arg1, arg2):
    """Whether dtype ``arg1`` is lower than or equal to ``arg2`` in NumPy's type hierarchy
    (``numpy.issubdtype``; ``arg2`` may be an abstract class such as ``floating``).

    bfloat16 is a ``floating`` (and ``inexact``, ``number``, ``generic``) here, as in pyasc's
    ``isdtype``."""
    if isinstance(arg2, (_C.ndarray, _np.ndarray)):  # np.dtype(array) is NumPy's TypeError, whatever arg1
        raise _TE("[issubdtype] Cannot construct a dtype from an array (arg2)")
    if _is_bf16(arg1):
        if not (isinstance(arg2, type) and issubclass(arg2, _np.generic)):
            try:  # NumPy reads any other arg2 as np.dtype(arg2) (issubdtype(bf16, True): its TypeError)
                _np.dtype(arg2)
            except TypeError as e:
                raise _TE(f"[issubdtype] {e} (arg2)") from None
        if isinstance(arg2, type) and issubclass(arg2, _np.generic) and arg2 in (
                _np.floating, _np.inexact, _np.number, _np.generic):
            return True
        return _is_bf16(arg2)
    if isinstance(arg1, _C.ndarray):
        raise _TE("[issubdtype] Cannot construct a dtype from an array (arg1)")  # NumPy's np.dtype(arg1)
    if isinstance(arg2, _C.ndarray):  # np.dtype(array) is NumPy's TypeError
        raise _TE("[issubdtype] Cannot construct a dtype from an array (arg2)")
    return bool(_np.issubdtype(arg1, arg2))


def promote_types(type1, type2, /):
    """The smallest dtype to which both dtypes may be safely cast (``numpy.promote_types``;
    bfloat16 promotes as in :func:`pyasc.result_type`)."""
    for t in (type1, type2):
        if t is None:  # np.dtype(None) is float64, but NumPy's promote_types rejects None
            raise _TE("[promote_types] did not understand one of the types (None)")
        if isinstance(t, (_C.ndarray, _np.ndarray)):  # _dtype_of would read the array's .dtype
            raise _TE("[promote_types] Cannot construct a dtype from an array")
    d1, d2 = _ns._dtype_of(type1), _ns._dtype_of(type2)
    for d in (d1, d2):
        if d.kind not in "biufc" and d != _BF16:
            raise _TE(f"[promote_types] pyasc has no dtype {d} (only bool, integer, floating and complex)")
    if d1 != _BF16 and d2 != _BF16:
        return _np.promote_types(d1, d2)
    return _np.dtype(_ns.result_type(d1, d2))


def min_scalar_type(a, /):
    """The dtype of smallest size and kind that holds ``a`` (``numpy.min_scalar_type``): the
    array's own dtype for arrays with ``ndim > 0``, value-based for scalars and 0-d arrays."""
    if isinstance(a, _C.ndarray):
        if a.ndim > 0:
            return _np.dtype(a.dtype)
        if _np.dtype(a.dtype) == _BF16:
            return _BF16
        a = a.numpy()[()]
    return _np.min_scalar_type(a)
