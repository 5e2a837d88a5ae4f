"""Private helpers shared by the namespace's section modules (not public).

The AscendError constructors (``_VE``/``_TE``/``_IE``/``_OE``/``_NIE``: the
python/pyasc/errors.py subclasses with NumPy's builtin bases, messages starting
with ``[op]``), argument normalisation (``_arr``, ``_axis``, ``_norm_axis``,
``_axes``, ``_moveaxis``, ``_bshape``, ``_to_out``), dtype probes (``_dt``,
``_kind``, ``_is_inexact``, ``_dt_or_scalar``, ``_np_dtype``) and ``_host``.
"""

from __future__ import annotations

import operator as _operator
import warnings as _warnings

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _namespace as _ns
from . import errors as _errors

_INTP = _np.dtype(_np.intp)


# The AscendError subclasses (each also the builtin NumPy raises); messages start with "[op]".
def _VE(msg):  # noqa: N802
    return _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, msg)


def _TE(msg):  # noqa: N802
    return _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, msg)


def _IE(msg):  # noqa: N802
    return _errors.AscendIndexError(_errors.ErrorCode.INDEX_OUT_OF_RANGE, msg)


def _OE(msg):  # noqa: N802
    return _errors.AscendOverflowError(_errors.ErrorCode.OVERFLOW, msg)


_arr = _ns._arr
_axis = _ns._axis


def _bshape(name, *shapes):
    """The broadcast shape, or an AscendValueError naming the op and the shapes."""
    try:
        return _np.broadcast_shapes(*shapes)
    except ValueError:
        raise _VE(f"[{name}] shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together") \
            from None


def _dt_or_scalar(x):
    """A result_type argument: Python scalars stay weak (NEP 50), arrays give their dtype."""
    if isinstance(x, (bool, int, float, complex)):
        return x
    if isinstance(x, _C.ndarray):
        return x.dtype
    return _np.asarray(x).dtype


def _host(x):
    """A NumPy view (zero-copy, ``ndarray.numpy()``: the dtype NumPy's repr expects) of a pyasc
    array; other objects unchanged."""
    return x.numpy() if isinstance(x, _C.ndarray) else x

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


def _NIE(msg):
    return _errors.AscendNotImplementedError(_errors.ErrorCode.FEATURE_UNSUPPORTED, msg)


def _dt(x):
    return _np.dtype(x.dtype)


def _kind(x):
    d = _dt(x)
    return "f" if d == _BF16 else d.kind


def _is_inexact(x):
    return _kind(x) in "fc"


def _warn(msg):
    _warnings.warn(msg, RuntimeWarning, stacklevel=3)


def _norm_axis(axis, ndim, name):
    try:
        a = _operator.index(axis)
    except TypeError:
        raise _TE(f"[{name}] axis must be an integer, not {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise _np.exceptions.AxisError(a, ndim)
    return a % ndim


def _axes(axis, ndim, name):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axs = tuple(_norm_axis(a, ndim, name) for a in axis)
        if len(set(axs)) != len(axs):
            raise _VE(f"[{name}] repeated axis in {axis!r}")
        return axs
    return (_norm_axis(axis, ndim, name),)


def _moveaxis(x, src, dst):
    order = [i for i in range(x.ndim) if i not in src]
    perm = list(order)
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _C.transpose(x, tuple(perm))


def _to_out(res, out):
    if out is None:
        return res
    _C._copy_into(out, res)
    return out


def _np_dtype(fn, dt, *args, **kw):
    """NumPy's result dtype of ``fn`` for a 1-element dummy of ``dt`` (no data involved)."""
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        return _np.asarray(fn(_np.ones(1, dt), *args, **kw)).dtype
