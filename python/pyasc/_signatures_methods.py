"""NumPy 2.4's signatures for the ndarray methods bound in C++ with a narrower one.

The method half of :mod:`pyasc._signatures` (which holds the functions and the argument checks both
use): ``reshape``, ``ravel``, ``conj``, ``copy``, ``swapaxes``, ``squeeze``, ``astype``, ``flatten``,
``transpose`` and the reduction/cumulative methods (``sum``, ``max``, ``mean``, ``argmax``,
``cumsum``, ...) take NumPy's parameters, check them in NumPy's order and call the binding (or the
function wrapper) unchanged. Importing this module installs them on ``pyasc.ndarray``; it is
imported at the end of :mod:`pyasc._signatures`, which re-exports its names.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import numpy as _np

from . import _C
from . import _signatures as _sig
from ._signatures import (  # noqa: F401 - (the checks and functions the methods share)
    _NV,
    _empty_shape_seq,
    _type_error,
    _value_error,
    _var_std,
    as_fortran,
    axis_converter,
    check_axis,
    check_count_axis,
    check_dtype,
    check_order,
    check_out,
    check_squeeze_axis,
    keepdims_flag,
    mean,
    reshape,
    transpose,
)
from .errors import AscendNotImplementedError, AscendOverflowError, ErrorCode


# --------------------------------------------------------------------------- ndarray methods

_c_reshape = _C.ndarray.reshape
_c_ravel = _C.ndarray.ravel
_c_conj = _C.ndarray.conj


def _method_reshape(self, *shape, order="C", copy=None):
    """The array with a new shape (``ndarray.reshape(*shape, order='C', copy=None)``)."""
    if not shape:
        raise _type_error("reshape", "reshape() takes exactly 1 argument (0 given)")
    if len(shape) == 1:
        shape = ((tuple(self.shape) if shape[0] is None else _empty_shape_seq(shape[0])),)
    if len(shape) == 1 and isinstance(shape[0], (_C.ndarray, _np.ndarray)) and shape[0].ndim == 1 and \
            _np.dtype(shape[0].dtype).kind in "iu":
        # NumPy's PyArray_IntpConverter takes a 1-d integer array as the shape sequence (a bool one
        # is its TypeError)
        shape = (tuple(int(v) for v in (shape[0].numpy() if isinstance(shape[0], _C.ndarray) else shape[0]).tolist()),)
    if order.__class__ is str and order == "C" and copy is None:
        return _c_reshape(self, *shape)
    return reshape(self, shape[0] if len(shape) == 1 else shape, order=order, copy=copy)


def _keep_order_perm(shape, strides):
    """The axes, outermost first, in which NumPy's iterator reads an array in 'K' order: its
    stable insertion sort by |stride| from the innermost axis out, where a zero stride (a
    broadcast or a length-1 axis, whose stride the iterator zeroes) compares as ambiguous and
    leaves the order as it is."""
    st = [0 if n == 1 else abs(s) for n, s in zip(shape, strides)]
    perm = list(range(len(shape)))[::-1]  # innermost first, as the iterator keeps them
    for i0 in range(1, len(perm)):
        j0, pos = perm[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            s0, s1 = st[j0], st[perm[i1]]
            if s0 == 0 or s1 == 0:
                continue  # ambiguous: look further out
            if s1 <= s0:
                break
            pos = i1
        if pos != i0:
            perm.insert(pos, perm.pop(i0))
    return perm[::-1]


def ravel_order(self, order):
    """``self`` flattened in NumPy's ``order``: 'C' row-major, 'F' column-major, 'A' 'F' when the
    array is Fortran- but not C-contiguous, 'K' the order of the elements in memory (see
    ``_keep_order_perm``; a negative stride still reads its axis forward, as NumPy's)."""
    o = "C" if isinstance(order, str) and order == "C" else check_order("ravel", order, none_ok=True) or "C"
    if o in ("A", "K") and self.ndim >= 2 and not self.is_contiguous():
        if o == "A":
            o = "F" if self.T.is_contiguous() else "C"
        else:
            perm = _keep_order_perm(self.shape, self.strides)
            if perm != list(range(self.ndim)):
                return _c_ravel(self.transpose(perm))
            o = "C"
    return _c_ravel(self.T) if o == "F" else _c_ravel(self)


def _method_ravel(self, order="C"):
    """The array flattened (``ndarray.ravel(order='C')``; see ``ravel_order``)."""
    return ravel_order(self, order)


_ravel_order_views = ravel_order


def ravel_order(self, order):  # noqa: F811 - the contiguity rule wraps the order logic above
    """``ravel_order``'s result, copied unless contiguous: NumPy's ravel is a view only of an
    array contiguous in the order read (x[::2].ravel() and a broadcast view are copies), where a
    strided view of pyasc's would alias the input (a write through it changed x)."""
    if self.size > 1 << 32 and not self.is_contiguous():
        if not (isinstance(order, str) and order == "C"):
            check_order("ravel", order, none_ok=True)  # (NumPy reads the order before it copies)
        from ._helpers import _alloc_check  # noqa: PLC0415 - a huge broadcast view: NumPy's copy fails

        _alloc_check("ravel", tuple(self.shape), self.dtype)
    r = _ravel_order_views(self, order)
    return r if r.size <= 1 or r.is_contiguous() else _C.ndarray.copy(r)


def _method_conj(self, *args, **kwargs):
    """The complex conjugate, elementwise (``ndarray.conj(out=None)``; NumPy takes ``out`` only
    positionally)."""
    if kwargs:
        raise _type_error("conj", "ndarray.conj() takes no keyword arguments")
    if len(args) > 1:
        raise _type_error("conj", f"ndarray.conj() takes at most 1 argument ({len(args)} given)")
    out = args[0] if args else None
    if out is not None and not isinstance(out, _C.ndarray):
        raise _type_error("conj", f"output must be an array (got {type(out).__name__})")
    return _c_conj(self, out)


_c_copy_method = _C.ndarray.copy


def _method_copy(self, order="C"):
    """A copy (``ndarray.copy(order='C')``): 'C' (or None) row-major, 'F' column-major, 'A'/'K' the
    memory order of a Fortran-ordered array."""
    if order.__class__ is str and order == "C":
        return _c_copy_method(self)
    o = check_order("copy", order) or "C"
    if o in ("A", "K"):
        o = "F" if self.ndim >= 2 and self.flags.f_contiguous and not self.flags.c_contiguous else "C"
    if o == "F" and self.ndim >= 2:
        return _C.transpose(_c_copy_method(_C.transpose(self)))
    return _c_copy_method(self)


_c_swapaxes = _C.ndarray.swapaxes


def _method_swapaxes(self, axis1, axis2):
    """A view with two axes interchanged (``ndarray.swapaxes``): NumPy parses both axes as C ints
    ("ii") before their bounds -- beyond one its OverflowError, not an AxisError."""
    for a in (axis1, axis2):  # (in order: a None first is its TypeError even if the other overflows)
        try:
            i = _operator.index(a)
        except TypeError as e:  # (its own text, as NumPy's: "'numpy.float64' object cannot be ...")
            raise _type_error("swapaxes", str(e)) from None
        if not -(1 << 63) <= i < (1 << 63):
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[swapaxes] Python int too large to convert to C long ({i})")
        if i >= 1 << 31:
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[swapaxes] signed integer is greater than maximum ({i})")
        if i < -(1 << 31):
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[swapaxes] signed integer is less than minimum ({i})")
    return _c_swapaxes(self, axis1, axis2)


_C.ndarray.swapaxes = _method_swapaxes
_C.ndarray.reshape = _method_reshape
_C.ndarray.ravel = _method_ravel
_C.ndarray.conj = _method_conj
_C.ndarray.conjugate = _method_conj
_C.ndarray.copy = _method_copy


_UFUNC_REDUCTIONS = ("sum", "prod", "max", "min", "any", "all")


def _install_reduction_methods():
    for op in ("max", "min"):  # NumPy: (axis, out, keepdims, initial, where)
        cm = getattr(_C.ndarray, op)

        def xmethod(self, axis=None, out=None, keepdims=False, *, _op=op, _cm=cm, **kw):
            if axis is None and out is None and keepdims is False and not kw:
                return _cm(self)
            check_out(_op, out)
            keepdims = keepdims_flag(_op, keepdims)
            check_axis(axis, self.ndim, ufunc=True)
            return getattr(_sig, _op)(self, axis, out, keepdims, **kw)

        xmethod.__name__ = xmethod.__qualname__ = op
        xmethod.__doc__ = cm.__doc__
        setattr(_C.ndarray, op, xmethod)
    for op in ("any", "all"):  # NumPy (_methods._any): (axis, dtype, out, keepdims, *, where)
        cm = getattr(_C.ndarray, op)

        def bmethod(self, axis=None, dtype=None, out=None, keepdims=False, *, _op=op, _cm=cm, **kw):
            if axis is None and dtype is None and out is None and keepdims is False and not kw:
                return _cm(self)
            check_dtype(_op, dtype)
            check_out(_op, out)
            keepdims = keepdims_flag(_op, keepdims)
            check_axis(axis, self.ndim, ufunc=True)
            if dtype is not None and _np.dtype(dtype) != _np.bool_:
                # logical_or/logical_and have only loops with a bool output (and object's): a numeric
                # dtype= is NumPy's TypeError for every input dtype
                raise _type_error(_op, f"No loop matching the specified signature and casting was found for ufunc "
                                       f"logical_{'or' if _op == 'any' else 'and'} (dtype={_np.dtype(dtype)}; "
                                       "only bool is supported)")
            return getattr(_sig, _op)(self, axis, out, keepdims, **kw)

        bmethod.__name__ = bmethod.__qualname__ = op
        bmethod.__doc__ = cm.__doc__
        setattr(_C.ndarray, op, bmethod)
    for op in ("sum", "prod", "mean"):
        cm = getattr(_C.ndarray, op)

        def method(self, axis=None, dtype=None, out=None, keepdims=False, *, _op=op, _cm=cm, **kw):
            if axis is None and dtype is None and out is None and keepdims is False and not kw:
                return _cm(self)
            if _op == "mean":  # _methods._mean: normalize_axis_index per element (an array: TypeError)
                if "where" in kw and kw["where"] is not True:
                    check_axis(axis, self.ndim, ufunc=True)
                else:
                    check_count_axis(axis, self.ndim, _op, dtype)
                check_dtype(_op, dtype)
            else:
                check_dtype(_op, dtype)
                check_out(_op, out)
                keepdims = keepdims_flag(_op, keepdims)
                check_axis(axis, self.ndim, ufunc=True)
            return getattr(_sig, _op)(self, axis, dtype, out, keepdims, **kw)

        method.__name__ = method.__qualname__ = op
        method.__doc__ = cm.__doc__
        setattr(_C.ndarray, op, method)
    for op in ("var", "std"):
        cm = getattr(_C.ndarray, op)

        def vmethod(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, _op=op, _cm=cm, **kw):
            check_count_axis(axis, self.ndim, _op, dtype)
            check_dtype(_op, dtype)
            # (NumPy's method is _methods._var: no correction=, mean=None is no mean; the function's
            # path then takes the kernel for a plain call, NumPy's steps for where/mean/odd ddofs)
            extra = set(kw) - {"where", "mean"}
            if extra:
                raise _type_error(_op, f"unexpected keyword argument {sorted(extra)[0]!r}")
            mean = kw.get("mean", _NV)
            return _var_std(_op, self, axis, dtype, out, ddof, keepdims, kw.get("where", _NV),
                            _NV if mean is None else mean, _NV)

        vmethod.__name__ = vmethod.__qualname__ = op
        vmethod.__doc__ = cm.__doc__
        setattr(_C.ndarray, op, vmethod)
    for op in ("argmax", "argmin"):
        cm = getattr(_C.ndarray, op)

        def amethod(self, axis=None, out=None, *, keepdims=False, _op=op, _cm=cm):
            # NumPy's order: the axis converted (a bool, a non-integer: TypeError; beyond a C long
            # OverflowError, beyond a C int ValueError), then out, then the axis bounds
            if axis is not None:
                if isinstance(axis, (bool, _np.bool_)):
                    raise _type_error(_op, f"an integer is required for the axis (got {axis!r})")
                try:
                    ax = _operator.index(axis)
                except TypeError as e:
                    raise _type_error(_op, f"{e} (axis)") from None
                if not -(1 << 63) <= ax < (1 << 63):
                    raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{_op}] axis: Python int too large to convert "
                                                                  "to C long")
                if not -(1 << 31) <= ax < (1 << 31):
                    raise _value_error(_op, f"axis: integer won't fit into a C int ({ax})")
            check_out(_op, out, "output must be an array")
            if axis is not None:
                _np.lib.array_utils.normalize_axis_index(ax, _builtins.max(self.ndim, 1))
            if type(keepdims) is not _builtins.bool:  # NumPy: PyArray_BoolConverter (truth value)
                try:
                    keepdims = _builtins.bool(keepdims)
                except ValueError as e:
                    raise _value_error(_op, f"keepdims: {e}") from None
            from .numeric import _arg_out_cast  # noqa: PLC0415 - (numeric imports this module)
            _arg_out_cast(_cm, _op, self, axis, out, keepdims)
            return _cm(self, axis, None, out, keepdims)

        amethod.__name__ = amethod.__qualname__ = op
        amethod.__doc__ = cm.__doc__
        setattr(_C.ndarray, op, amethod)


_install_reduction_methods()


def _install_cumulative_methods():
    """ndarray.cumsum/cumprod (and the functions, which call them) parse ``axis`` with
    PyArray_AxisConverter before ``dtype``: an axis beyond a C int is that ValueError even when
    the positional dtype is no dtype (0, 5); the C++ method read the dtype first."""
    for op in ("cumsum", "cumprod"):
        cm = getattr(_C.ndarray, op)

        def cmethod(self, axis=None, dtype=None, out=None, _op=op, _cm=cm):
            axis_converter(_op, axis)
            return _cm(self, axis, dtype, out)

        cmethod.__name__ = cmethod.__qualname__ = op
        cmethod.__doc__ = cm.__doc__
        setattr(_C.ndarray, op, cmethod)


_install_cumulative_methods()


_c_squeeze_method = _C.ndarray.squeeze


def _method_squeeze(self, axis=None):
    """The array without its length-1 axes (``ndarray.squeeze(axis=None)``)."""
    if self.ndim == 0 and hasattr(axis, "__index__") and not isinstance(axis, (bool, _np.bool_, _C.ndarray)):
        # NumPy reads a 0-d array's single axis 0/-1 as that of one element (a tuple is checked as is)
        _np.lib.array_utils.normalize_axis_index(_operator.index(axis), 1)
        return _c_squeeze_method(self, None)
    if axis is None or type(axis) is int:  # noqa: E721 - the common call goes straight to the binding
        return _c_squeeze_method(self, axis)
    check_squeeze_axis(axis, self.ndim)
    return _c_squeeze_method(self, axis)


_C.ndarray.squeeze = _method_squeeze

_c_astype_method = _C.ndarray.astype
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _method_astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """``ndarray.astype(dtype, order='K', casting='unsafe', subok=True, copy=True)``: NumPy's
    parameters in NumPy's order (the second positional one is ``order``), checked as its
    converters do (dtype, order, casting, subok as an integer, copy by truth value, None: only
    if needed); ``casting`` other than 'unsafe' refuses a cast NumPy's can_cast refuses."""
    if order.__class__ is str and order == "K" and casting == "unsafe" and subok is True and type(copy) is bool:  # noqa: E721
        return _c_astype_method(self, dtype, copy)
    check_dtype("astype", dtype)
    o = check_order("astype", order) or "K"
    if not isinstance(casting, str):
        raise _type_error("astype", f"casting must be str, not {type(casting).__name__}")
    if casting not in _CASTINGS:
        if casting == "same_value":
            raise AscendNotImplementedError(ErrorCode.FEATURE_UNSUPPORTED,
                                            "[astype] casting='same_value' is not supported by pyasc")
        raise _value_error("astype", f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' "
                                     f"(got {casting!r})")
    try:
        _operator.index(subok)
    except TypeError:
        raise _type_error("astype", f"'{type(subok).__name__}' object cannot be interpreted as an integer "
                                    "(subok)") from None
    if isinstance(copy, _np._CopyMode):
        raise _value_error("astype", "_CopyMode enum is not allowed for astype function. Use true/false instead.")
    if copy is None:
        need = False
    else:
        try:
            need = bool(copy)
        except ValueError as e:
            raise _value_error("astype", f"copy: {e}") from None
    dt = _np.dtype(dtype) if dtype is not None else _np.dtype(_np.float64)
    if casting != "unsafe" and not _np.can_cast(_np.dtype(self.dtype), dt, casting=casting):
        raise _type_error("astype", f"Cannot cast array data from dtype('{self.dtype}') to dtype('{dt}') according "
                                    f"to the rule '{casting}'")
    r = _c_astype_method(self, dt, need)
    keep_f = o in ("K", "A") and self.ndim >= 2 and self.flags.f_contiguous and not self.flags.c_contiguous
    if (o == "F" or keep_f) and r.ndim >= 2 and not r.flags.f_contiguous:
        r = as_fortran(r)
    elif o == "C" and not r.flags.c_contiguous:
        r = r.copy()
    return r


_C.ndarray.astype = _method_astype

_c_flatten_method = _C.ndarray.flatten


def _method_flatten(self, order="C"):
    """``ndarray.flatten(order='C')``: a 1-d copy, in C, Fortran ('F'; 'A'/'K' for a Fortran-ordered
    array) or NumPy's checked order."""
    if order.__class__ is str and order == "C":
        return _c_flatten_method(self)
    o = check_order("flatten", order) or "C"
    if o == "F" or (o in ("A", "K") and self.ndim >= 2 and self.flags.f_contiguous and not self.flags.c_contiguous):
        return _c_flatten_method(_C.transpose(self))
    return _c_flatten_method(self)


_C.ndarray.flatten = _method_flatten


_c_method_transpose = _C.ndarray.transpose


def _method_transpose(self, *axes):
    """``ndarray.transpose(*axes)``: one array argument is NumPy's PyArray_IntpConverter sequence
    of axes (as the function reads it), anything else the binding's."""
    if len(axes) == 1 and isinstance(axes[0], (_C.ndarray, _np.ndarray)) and axes[0].ndim > 0:
        return transpose(self, axes[0])
    return _c_method_transpose(self, *axes)


_method_transpose.__doc__ = (_c_method_transpose.__doc__ or "") + "\n" + (_method_transpose.__doc__ or "")
_C.ndarray.transpose = _method_transpose
