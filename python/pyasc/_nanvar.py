"""nanvar/nanstd with ``where=`` and/or ``mean=`` (and bfloat16's np.var route), step by step as
numpy.lib._nanfunctions_impl does; split from _manipulation.py, which keeps nanvar/nanstd and
calls in here for these arguments."""
from __future__ import annotations

import builtins as _builtins

import numpy as _np

from . import _C
from . import _namespace as _ns
from . import _signatures as _sig
from ._helpers import _BF16, _TE
from ._helpers import _VE as _VE_tile
from ._manipulation import _inexact_dtype_ok, _to_out, _warn

_arr = _ns._arr


def _nanvar_masked(op, a, axis, dtype, out, ddof, keepdims, correction, where, mean):
    """nanvar/nanstd with ``where=`` and/or ``mean=``, step by step as numpy.lib._nanfunctions_impl:
    NaNs replaced by 0; the count of non-NaN selected items and (unless given) the mean summed over
    ``where`` with keepdims; deviations written into the input's dtype (subtract(..., out=arr,
    casting='unsafe', where=where)), NaN positions zeroed, squared (|d|**2 for complex) and summed
    over ``where``; divided by count - ddof (NaN with a RuntimeWarning at or below 0); std: the
    square root as NumPy's nanstd takes it (a scalar back to its type, an array in place)."""
    is_std = op == "nanstd"
    x = _arr(a)
    if dtype is not None:
        _sig.check_dtype(op, dtype)
        if not _inexact_dtype_ok(x, dtype):
            raise _TE(f"[{op}] If a is inexact, then dtype must be inexact")
    if out is not None and _np.dtype(out.dtype).kind not in "fc" and _np.dtype(out.dtype) != _BF16:
        raise _TE(f"[{op}] If a is inexact, then out must be inexact")
    if correction is not None:  # (after the dtype checks; an array of several: the truth-value error)
        _sig.check_correction(op, correction)
        if _builtins.bool(_np.asarray(ddof.numpy() if isinstance(ddof, _C.ndarray) else ddof) != 0):
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    dd = ddof.numpy() if isinstance(ddof, _C.ndarray) else ddof
    xdt = _np.dtype(x.dtype)
    shape = tuple(x.shape)
    rdt = None
    was_bf16 = xdt == _BF16  # (xdt becomes the working dtype below; NumPy's np.var route is bfloat16's)
    if was_bf16:
        # bfloat16 is no np.inexact: NumPy's nanvar is np.var, whose deviations arr - mean take the
        # promoted dtype (a float64 mean= gives a float64 variance, a complex one its real dtype).
        # pyasc ignores the NaNs as for float data and computes in that dtype's real type (float32
        # at least, then rounded to it): without NaNs and with a real mean, NumPy's np.var answer;
        # a complex mean's imaginary part is dropped as NumPy's nanvar of float data drops it
        pdt = _bf16_var_dtype(mean)
        rdt = None if pdt is None else _np.empty(0, pdt).real.dtype
        wdt = rdt if rdt is not None and rdt.kind == "f" and rdt.itemsize >= 4 else _np.dtype(_np.float32)
        if dtype is not None:
            rdt = None
        x, xdt = _C.astype(x, wdt), wdt
    w = None if where is _sig._NV else _sig._where_mask(op, where, shape)
    mask = {} if w is None else {"where": w}
    if isinstance(axis, (_C.ndarray, _np.ndarray)) and axis.ndim > 0:  # (np.sum reads it: not a sequence)
        raise _TE(f"[{op}] only integer scalar arrays can be converted to a scalar index (axis)")
    if _sig._zero_d_axis(x, axis):  # (NumPy's steps are np.sum calls: an int axis 0/-1 of a 0-d array is none)
        axis = None
    if axis is not None:
        axis = _np.lib.array_utils.normalize_axis_tuple(axis, x.ndim)
    nan = _C.isnan(x)
    zero = _C.full((), 0, xdt)
    arr = _C.where(nan, zero, x)
    cnt = _sig.sum(_C.logical_not(nan), axis, _np.int64, None, True, **mask)
    if mean is not _sig._NV:
        avg = _arr(mean)
    else:
        s = _sig.sum(arr, axis, dtype, None, True, **mask)
        avg = _C.astype(_C.true_divide(s, cnt), s.dtype)
    dev = _C.astype(_C.subtract(arr, avg), xdt)  # (casting='unsafe' into arr: its shape must hold)
    if tuple(dev.shape) != shape:
        raise _VE_tile(f"[{op}] non-broadcastable output operand with shape {shape} doesn't match the broadcast "
                       f"shape {tuple(dev.shape)} (mean of shape {tuple(avg.shape)})")
    if w is not None:
        dev = _C.where(w, dev, arr)
    dev = _C.where(nan, zero, dev)
    sqr = _C.multiply(dev, _C.conjugate(dev)).real if xdt.kind == "c" else _C.multiply(dev, dev)
    var = _sig.sum(sqr, axis, dtype, None, keepdims, **mask)
    cnt = _C.reshape(cnt, tuple(var.shape))
    with _np.errstate(all="ignore"):
        dof = _C.subtract(cnt, _C.asarray(_np.asarray(dd)))
    if (var.ndim or was_bf16) and \
            _np.broadcast_shapes(tuple(var.shape), tuple(dof.shape)) != tuple(var.shape):
        # NumPy divides an array variance in place (true_divide(var, dof, out=var)): an array ddof
        # may not widen it (a scalar variance may: it is not divided in place; bfloat16 data go
        # through np.var, whose ml_dtypes sum is always an array)
        raise _VE_tile(f"[{op}] non-broadcastable output operand with shape {tuple(var.shape)} doesn't match the "
                       f"broadcast shape of the count minus ddof {tuple(dof.shape)}")
    var = _C.astype(_C.true_divide(var, dof), var.dtype)
    bad = _C.less_equal(dof, 0)
    if _builtins.bool(_C.any(bad)):
        _warn("Degrees of freedom <= 0 for slice.")
        var = _C.where(bad, _C.full((), _np.nan, var.dtype), var)
    if is_std:
        var = _C.astype(_C.sqrt(var), var.dtype)
    if rdt is not None:
        var = _C.astype(var, rdt)
    return _to_out(var, out)


def _bf16_var_dtype(mean):
    """The dtype of NumPy's np.var of bfloat16 data with ``mean=`` (NEP 50: a Python scalar is
    weak, an array or NumPy scalar is not)."""
    if mean is _sig._NV:
        return _BF16
    m = _np.empty(0, _np.dtype(mean.dtype)) if isinstance(mean, _C.ndarray) else mean
    try:
        return _np.result_type(_np.empty(0, _BF16), m)
    except Exception:  # noqa: BLE001 - (no promotion: the subtraction below raises NumPy's error)
        return None
