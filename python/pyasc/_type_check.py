"""NumPy's ``lib/_type_check_impl`` names composed here: ``nan_to_num``,
``real_if_close``, ``isreal``, ``iscomplex``, and the dtype helpers
``common_type``, ``mintypecode``, ``typename`` (``real``/``imag``/
``iscomplexobj``/``isrealobj`` are in :mod:`pyasc.numeric`).
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _namespace as _ns
from ._helpers import _BF16, _TE, _VE, _arr, _kind

__all__ = [
    "nan_to_num", "real_if_close", "isreal", "iscomplex", "common_type", "mintypecode", "typename",
]


# ------------------------------------------------------------------ elementwise helpers


def _check_fill_values(xv, k, values):
    """NumPy writes each replacement with copyto(part, value, where=...) into the real (and
    imaginary) part -- even where nothing is replaced: the value must cast same_kind into the
    part's real dtype (a complex one is its TypeError) and broadcast to the array's shape."""
    pdt = _np.dtype(xv.real.dtype) if k == "c" else _np.dtype(xv.dtype)
    out = []
    for v in values:
        out.append(v)
        if v is None:
            continue
        if isinstance(v, (bool, int, float)) and not isinstance(v, _np.generic):
            continue  # (a Python number is weak: it takes the part's dtype)
        va = v if isinstance(v, _C.ndarray) else _np.asarray(v)
        vdt = _np.dtype(va.dtype)
        if not _np.can_cast(vdt, pdt, "same_kind"):
            what = "scalar" if va.ndim == 0 else "array data"
            raise _TE(f"[nan_to_num] Cannot cast {what} from dtype('{vdt}') to dtype('{pdt}') according to the "
                      "rule 'same_kind'")
        shape = tuple(xv.shape)
        vs = tuple(va.shape)
        while len(vs) > len(shape) and vs[0] == 1:  # (assignment drops leading unit dimensions)
            vs = vs[1:]
        try:
            ok = len(vs) <= len(shape) and _np.broadcast_shapes(vs, shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise _VE(f"[nan_to_num] could not broadcast input array from shape {tuple(va.shape)} into shape {shape}")
        if vs != tuple(va.shape):
            out[-1] = _C.reshape(va, vs) if isinstance(va, _C.ndarray) else va.reshape(vs)
    return out


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +Inf -> ``posinf`` (largest finite), -Inf -> ``neginf`` (most negative finite)."""
    from . import _signatures as _sig  # noqa: PLC0415

    # NumPy: array(x, copy=copy) first -- its copy converter, and copy=False of anything that is not
    # already an array (a Python scalar, a list) is "Unable to avoid copy"
    copy = _sig.copy_flag("nan_to_num", copy)
    if copy is False and not isinstance(x, (_C.ndarray, _np.ndarray)):
        raise _VE("[nan_to_num] Unable to avoid copy while creating an array as requested (copy=False of a "
                  f"{type(x).__name__})")
    xv = _arr(x)
    k = _kind(xv)
    if k not in "fc":
        return _C.astype(xv, xv.dtype) if copy or not isinstance(x, _C.ndarray) else xv

    nan, posinf, neginf = _check_fill_values(xv, k, (nan, posinf, neginf))

    def fix(part):
        dt = _np.dtype(part.dtype)
        fi = _ml_dtypes.finfo(dt) if dt == _BF16 else _np.finfo(dt)
        hi = fi.max if posinf is None else posinf
        lo = fi.min if neginf is None else neginf
        r = _C.where(_C.isnan(part), nan, part)
        r = _C.where(_C.logical_and(_C.isinf(part), _C.greater(part, 0)), hi, r)
        r = _C.where(_C.logical_and(_C.isinf(part), _C.less(part, 0)), lo, r)
        return _C.astype(r, dt)

    if k == "c":
        res = _C.astype(_C.add(fix(xv.real), _C.multiply(fix(xv.imag), 1j)), xv.dtype)
    else:
        res = fix(xv)
    if not copy and isinstance(x, _C.ndarray):
        _C._copy_into(x, res)
        return x
    return res


def real_if_close(a, tol=100):
    """The real part if every imaginary part is within ``tol`` machine epsilons of zero, else ``a``."""
    x = _arr(a)
    if _kind(x) != "c":
        return x
    t = tol
    if tol > 1:
        t = _np.finfo(_np.dtype(x.dtype)).eps * tol
    if bool(_C.all(_C.less(_C.absolute(x.imag), t))):
        return _C.astype(x.real, x.real.dtype)
    return x


def isreal(x):
    """Elementwise: True where the imaginary part is zero (everywhere for real input)."""
    xv = _arr(x)
    if _kind(xv) == "c":
        return _C.equal(xv.imag, 0)
    return _C.full(tuple(xv.shape), True, _np.bool_)


def iscomplex(x):
    """Elementwise: True where the imaginary part is non-zero (nowhere for real input)."""
    xv = _arr(x)
    if _kind(xv) == "c":
        return _C.not_equal(xv.imag, 0)
    return _C.full(tuple(xv.shape), False, _np.bool_)


def common_type(*arrays):
    """The scalar type of the inexact dtype all ``arrays`` convert to without losing precision
    (``numpy.common_type``): integers count as float64, float16 with nothing wider stays float16,
    any complex array makes it complex; no arrays gives float16. bfloat16 (unknown to NumPy's
    table) is a float type here, promoting as in :func:`pyasc.result_type`. Bool is a TypeError."""
    if not arrays:
        return _np.float16
    dts = []
    for a in arrays:
        if not hasattr(a, "dtype"):  # NumPy reads a.dtype (an AttributeError for a Python scalar or a list)
            raise _TE(f"[common_type] the arguments must be arrays (got {type(a).__name__})")
        d = _np.dtype(a.dtype)
        if d.kind in "iu":
            d = _np.dtype(_np.float64)
        elif d.kind not in "fc" and d != _BF16:
            raise _TE(f"[common_type] can't get common type for non-numeric array (dtype {d})")
        dts.append(d)
    r = _np.dtype(_ns.result_type(*dts))
    return _ml_dtypes.bfloat16 if r == _BF16 else r.type


# NumPy's type codes from smallest to largest element, and its default type set.
_BY_ELSIZE = "GDFgdfQqLlIiHhBb?"


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """The character of the smallest-size type in ``typeset`` that the types ``typechars`` (type
    characters or arrays) can be safely cast to (``numpy.mintypecode``; 'F' with 'd' gives 'D';
    ``default`` when none is in ``typeset``)."""
    codes = {t if isinstance(t, str) else _np.dtype(_arr(t).dtype).char for t in typechars}
    inter = {t for t in codes if t in typeset}
    if not inter:
        return default
    if "F" in inter and "d" in inter:
        return "D"
    return min(inter, key=_BY_ELSIZE.index)


def typename(char):
    """A description of the type character ``char`` (``numpy.typename``: NumPy's own table of
    names, a host lookup; KeyError for an unknown code)."""
    return _np.typename(char)
