"""NumPy 2.4's signatures for the functions and ndarray methods bound in C++ with a narrower one.

The C++ bindings (``_C.sum``, ``_C.array``, ``ndarray.ravel``, ...) take the arguments pyasc's
kernels use. NumPy's callers also pass ``order=``, ``like=``, ``ndmin=``, ``initial=``,
``where=``, ``keepdims=<int>``, ...; without these wrappers pybind11 answered with its
"incompatible function arguments" TypeError listing C++ types. Each wrapper takes NumPy's
parameters, validates them as NumPy does (same exception class, a message naming the op and
the parameter), implements them where the result is defined by values (``order`` of a
reshape/ravel, ``where``/``initial`` of a reduction, ``ndmin``) and raises a clear
NotImplementedError where pyasc cannot honour them (``like=`` another array library).
The common call (NumPy's defaults) goes straight to the C++ binding.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import numpy as _np

from . import _C
from .errors import AscendNotImplementedError, AscendOverflowError, AscendTypeError, AscendValueError, ErrorCode

_NV = _np._NoValue  # NumPy's "argument not given" marker (its own signatures show it)

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "mean", "any", "all", "array", "asarray",
           "empty", "full", "zeros", "ones", "empty_like", "zeros_like", "ones_like", "full_like", "reshape"]


def _type_error(op, msg):
    return AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{op}] {msg}")


def _value_error(op, msg):
    return AscendValueError(ErrorCode.INVALID_PARAM, f"[{op}] {msg}")


def keepdims_flag(op, keepdims):
    """``keepdims`` as NumPy's reductions take it: a Python bool or an integer (truthiness),
    anything else (float, str, None, numpy.bool_, an array) NumPy's TypeError."""
    if keepdims is _NV:
        return False
    try:  # NumPy: operator.index semantics (np.True_ is refused, 2 is True), a C int
        v = _operator.index(keepdims)
    except TypeError:
        raise _type_error(op, f"keepdims must be a bool or an integer, not {type(keepdims).__name__}") from None
    # (the ufunc reduction reads it as a C int: beyond a C long that conversion's message, beyond
    # a C int NumPy's own range check)
    if not -(1 << 63) <= v < (1 << 63):
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] keepdims: Python int too large to convert to C long")
    if not -(1 << 31) <= v < (1 << 31):
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] keepdims: Python int too large to convert to C int")
    return bool(v)


def axis_converter(op, axis):
    """``axis`` as NumPy's C functions read it (PyArray_AxisConverter, before anything else):
    None stays None; a bool is its TypeError; otherwise operator.index (TypeError), an int beyond
    a C long its OverflowError and beyond a C int its ValueError. The int, bounds unchecked."""
    if axis is None:
        return None
    if isinstance(axis, (bool, _np.bool_)):
        raise _type_error(op, f"an integer is required for the axis (got {axis!r})")
    try:
        v = _operator.index(axis)
    except TypeError as e:  # (its own text, as NumPy's: "'numpy.float64' object cannot be ...")
        raise _type_error(op, str(e)) from None
    if not -(1 << 63) <= v < (1 << 63):
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] axis: Python int too large to convert to C long")
    if not -(1 << 31) <= v < (1 << 31):
        raise _value_error(op, f"axis: integer won't fit into a C int ({v})")
    return v


def check_order(op, order, allowed="CFAK", none_ok=True):
    """NumPy's ``order`` check: a str among ``allowed`` (case-insensitive) or None; the upper-case
    letter (None stays None). A non-str is NumPy's TypeError, another letter its ValueError."""
    if order is None:
        if none_ok:
            return None
        raise _type_error(op, "order must be str, not None")
    if isinstance(order, bytes):  # NumPy's string converter takes bytes too (b'C')
        order = order.decode("latin-1")
    if not isinstance(order, str):
        raise _type_error(op, f"order must be str, not {type(order).__name__}")
    o = order.upper()
    if o not in "CFAK" or len(o) != 1:
        raise _value_error(op, f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if o not in allowed:
        raise _value_error(op, f"only {' or '.join(repr(c) for c in allowed)} order is permitted (got {order!r})")
    return o


def copy_flag(op, copy):
    """NumPy's ``copy`` converter (array/asarray/reshape): None and bools as they are, a str its
    ValueError, anything else its truth value (an array of several elements: ValueError)."""
    if copy is None or isinstance(copy, bool):
        return copy
    if isinstance(copy, str):
        raise _value_error(op, "strings are not allowed for 'copy' keyword. Use True/False/None instead.")
    try:
        return bool(copy)
    except ValueError as e:
        raise _value_error(op, f"copy: {e}") from None


def check_like(op, like):
    """``like=``: None or a pyasc/NumPy array (the result is a pyasc array either way); another
    array library's object is not supported."""
    if like is None or isinstance(like, (_C.ndarray, _np.ndarray)):
        return
    raise AscendNotImplementedError(ErrorCode.FEATURE_UNSUPPORTED,
                                    f"[{op}] like= is only supported for pyasc or NumPy arrays "
                                    f"(got {type(like).__name__})")


def as_fortran(x):
    """x with Fortran (column-major) strides: the transpose of a C-contiguous copy of x.T."""
    if x.ndim < 2:
        return x
    return _C.ndarray.copy(x.T).T


# --------------------------------------------------------------------------- reductions

_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}
_COMBINE = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


def _axes(op, axis, ndim):
    """The axes of a ufunc reduction: NumPy's normalize_axis_tuple (AxisError out of range, its
    TypeError for a non-integer) with the ufunc's "duplicate value in 'axis'" ValueError for a
    repeated axis -- each an AscendError (normalize_axis_tuple's own are the plain builtins)."""
    if axis is None:
        return tuple(range(ndim))
    try:
        return _np.lib.array_utils.normalize_axis_tuple(axis, ndim)
    except _np.exceptions.AxisError:
        raise
    except ValueError:
        raise _value_error(op, f"duplicate value in 'axis' (axis {_axis_str(axis)})") from None
    except TypeError as e:
        raise _type_error(op, f"{e} (axis {_axis_str(axis)})") from None


def _axis_str(axis):
    # (an array of axes by its shape: the repr of a huge broadcast view is no message)
    if hasattr(axis, "shape") and hasattr(axis, "dtype"):
        return f"given as an array of shape {tuple(axis.shape)} and dtype {axis.dtype}"
    return repr(axis)[:200]


def _where_mask(op, where, shape):
    """``where=`` as NumPy's ufunc.reduce converts it: an array (pyasc or NumPy) must cast to bool
    with casting='safe' (an int64 array is a TypeError); any other object -- a Python or NumPy
    scalar, a list or tuple of numbers, None -- becomes a bool array directly, each element by its
    truth value (np.sum(x, where=[1, 0, 1]) and where=2 are accepted), as
    np.asarray(where, dtype=bool) makes it (a ragged list is its ValueError)."""
    if isinstance(where, (_C.ndarray, _np.ndarray)):
        if where.dtype != _np.bool_:
            raise _type_error(op, f"where= must be a boolean array (got dtype {where.dtype}); NumPy casts it with "
                                  "casting='safe'")
        w = where if isinstance(where, _C.ndarray) else _C.asarray(where)
    else:
        try:
            w = _C.asarray(_np.asarray(where, dtype=_np.bool_))
        except (TypeError, ValueError, OverflowError) as e:
            cls = {TypeError: AscendTypeError, OverflowError: AscendOverflowError}.get(type(e), AscendValueError)
            code = ErrorCode.OVERFLOW if cls is AscendOverflowError else \
                ErrorCode.INVALID_DTYPE if cls is AscendTypeError else ErrorCode.INVALID_PARAM
            raise cls(code, f"[{op}] where=: {e}") from None
    return _C.broadcast_to(w, shape)


def where_broadcasts(op, where, shape):
    """NumPy's mean/var/std count the items with broadcast_to(where, shape) before the sum checks
    where's dtype: a where= array that cannot broadcast to the input is that ValueError first (an
    int array of the wrong shape too, which the sum would refuse with its cast TypeError)."""
    ws = tuple(getattr(where, "shape", ()))
    if len(ws) > len(shape) or _builtins.any(w not in (1, s) for w, s in zip(ws[::-1], tuple(shape)[::-1])):
        raise _value_error(op, f"where=: operands could not be broadcast together with remapped shapes "
                               f"[original->remapped]: {ws} and requested shape {tuple(shape)}")


def where_count_axes(op, x, axis, where):
    """The axes of mean/var/std with a ``where=`` (anything but True), checked in the order of
    NumPy's _count_reduce_items: broadcast_to(where, x.shape) first (its ValueError), then the
    count's ufunc sum reads the axis (a ufunc's rules: an int axis 0 or -1 of a 0-d array is no
    axis, a list is its TypeError); where='s cast to bool (an int64 array's TypeError) comes
    later, in the sum of the data. Returns the axes tuple for the sums."""
    where_broadcasts(op, where, tuple(x.shape))
    check_axis(axis, x.ndim, ufunc=True)
    if x.ndim == 0 and axis is not None and not isinstance(axis, tuple):
        return ()
    return tuple(_axes(op, axis, x.ndim))


def _where_count(op, where, shape, axes, keepdims):
    """The item count of mean/var/std with ``where=``, as NumPy's _methods._count_reduce_items
    computes it: the sum of ``broadcast_to(where, shape)`` in intp -- the *values* of a where=
    that is not boolean, cast unsafely, not their truth values (np.mean(x, where=[2, 0, 1]) divides
    the sum of the selected items by 3, where=2 by twice the size), while the sum itself takes
    where= as a mask. None, a str or an int beyond int64 are that sum's TypeError/OverflowError."""
    if isinstance(where, (_C.ndarray, _np.ndarray)) or isinstance(where, (bool, _np.bool_)):
        where_broadcasts(op, where, shape)
        w = _where_mask(op, where, shape)
        return _C.sum(w, axes, _np.int64, None, keepdims)
    try:
        v = _np.asarray(where)
    except ValueError as e:  # (a ragged list)
        raise _value_error(op, f"where=: {e}") from None
    if v.dtype == _np.bool_:
        return _C.sum(_C.broadcast_to(_C.asarray(v), shape), axes, _np.int64, None, keepdims)
    if v.dtype.kind in "USV":
        raise _type_error(op, f"the resolved dtypes are not compatible with add.reduce. Resolved (dtypes: "
                              f"{v.dtype}, {_np.dtype(_np.intp)}) (where=)")
    import warnings as _warnings  # (NumPy's complex where= warns ComplexWarning and uses the real part)
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        try:
            with _np.errstate(all="ignore"):
                vi = v.astype(_np.intp)  # NumPy's unsafe cast of the values (NaN -> INT64_MIN as there)
        except TypeError as e:
            raise _type_error(op, f"where=: {e}") from None
        except OverflowError as e:
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] where=: {e}") from None
    return _C.sum(_C.broadcast_to(_C.asarray(vi), shape), axes, _np.int64, None, keepdims)


def _initial_scalar(op, initial, target):
    """``initial`` converted as NumPy's reduce converts it: stored into one element of the result
    dtype (a list is int()'s TypeError for an integer result and a float's ValueError, an
    array of several elements "setting an array element with a sequence", 2.5 is 2 in an
    integer reduction, a Python int out of the dtype's range its OverflowError)."""
    v = initial.numpy() if isinstance(initial, _C.ndarray) else initial
    buf = _np.empty(1, target)
    try:
        buf[0] = v
    except TypeError as e:
        raise _type_error(op, f"initial={type(initial).__name__} for a {target} reduction: {e}") from None
    except ValueError as e:
        raise _value_error(op, f"initial for a {target} reduction: {e}") from None
    except OverflowError as e:
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] initial: {e}") from None
    return buf[0]


def _zero_d_axis(a, axis):
    """NumPy's ufunc reductions take an integer axis 0 or -1 of a 0-d array as no axis."""
    if axis is None or isinstance(axis, (tuple, list, bool, _np.bool_)) or _np.ndim(a) != 0:
        return False  # (a bool axis is the reduction's TypeError)
    try:
        return _operator.index(axis) in (0, -1)
    except TypeError:
        return False


def _has_bool_axis(axis):
    """Whether the axis is a bool or a tuple holding one."""
    if isinstance(axis, tuple):
        return _builtins.any(isinstance(v, (bool, _np.bool_)) for v in axis)
    return isinstance(axis, (bool, _np.bool_))


def _masked_reduce(op, a, axis, dtype, out, keepdims, initial, where):
    """sum/prod/max/min/any/all with NumPy's ``initial`` and ``where``."""
    if not isinstance(a, _C.ndarray) and isinstance(where, (_C.ndarray, _np.ndarray)) and \
            not _np.can_cast(where.dtype, _np.bool_, casting="safe"):
        # an array where= is converted before a non-array input (all([[1], [2, 3]], where=uint16
        # array) is NumPy's cast TypeError, not the ragged list's ValueError)
        raise _type_error(op, f"Cannot cast array data from dtype('{where.dtype}') to dtype('bool') according "
                              "to the rule 'safe' (where=)")
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    if _has_bool_axis(axis):
        # ufunc.reduce reads a bool axis before initial: its TypeError (not an axis 1); in a tuple an
        # entry out of range before the bool is its AxisError (the where= cast comes before the
        # tuple's bounds: only axes holding a bool are checked here)
        check_axis(axis, x.ndim, ufunc=True)
    if where is True:  # NumPy: where=True is no mask (max needs no initial then)
        where = _NV
    if _zero_d_axis(x, axis):
        axis = None
    # NumPy's ufunc.reduce converts where= (casting='safe') before it checks the axis, the
    # initial value after
    w = None if where is _NV else _where_mask(op, where, x.shape)
    axes = _axes(op, axis, x.ndim)
    target = x.dtype if op in ("max", "min", "any", "all") else _np.sum(_np.zeros(0, x.dtype), dtype=dtype).dtype
    init = None if initial is _NV else _initial_scalar(op, initial, target)
    fn = getattr(_C, op)
    if op in ("max", "min") and init is None and (w is not None or _builtins.any(x.shape[i] == 0 for i in axes)):
        raise _value_error(op, f"reduction operation '{'maximum' if op == 'max' else 'minimum'}' does not have an "
                               "identity, so to use a where mask one has to specify 'initial'")
    if w is not None:
        fill = _IDENTITY.get(op, init)
        x = _C.where(w, x, _C.astype(_C.asarray(fill), x.dtype))
    kw = {} if op in ("max", "min", "any", "all") else {"dtype": dtype}
    if _builtins.any(x.shape[i] == 0 for i in axes) and op in ("max", "min"):
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims else \
            tuple(n for i, n in enumerate(x.shape) if i not in axes)
        r = _C.full(shape, init, x.dtype)
    else:
        r = fn(x, axis=tuple(axes), keepdims=keepdims, **kw)
        if init is not None:  # (init holds the result dtype's value: 2.5 is 2 in an integer sum)
            r = _C.astype(getattr(_C, _COMBINE[op])(r, _C.asarray(init)), r.dtype)
    if out is not None:
        out[...] = r
        return out
    return r


def numpy_order_checks(op, a, axis, dtype, out):
    """After a binding failed: the checks of a ufunc reduction in NumPy's order (dtype, out, then
    the axis), so that a call with two bad arguments raises NumPy's class."""
    check_dtype(op, dtype)
    check_out(op, out)
    try:
        nd = _np.ndim(a) if not isinstance(a, _C.ndarray) else a.ndim
    except (TypeError, ValueError):  # (a ragged list: the conversion's own error, raised by the caller)
        return
    check_axis(axis, nd, ufunc="mean" if op in ("mean", "var", "std") else True)


def _no_list_axis(op, axis):
    """A ufunc reduction's axis is an int or a tuple: a list is NumPy's TypeError (pyasc's binding
    would iterate it)."""
    if isinstance(axis, list):
        raise _type_error(op, "'list' object cannot be interpreted as an integer (axis: a ufunc reduction takes an "
                              "int or a tuple)")


def bool_loop_reduce(op, a, axis, dtype, out, keepdims):
    """sum/prod with dtype=bool are NumPy's logical_or/logical_and reductions (the bool loops of add
    and multiply), which stop at the first True/False: any/all, which pyasc also stops early (a
    huge broadcast view of True summed in bool is True at once, not a 2**62-element loop).
    Returns None when the call is not one."""
    if dtype is None or out is not None or isinstance(dtype, (_C.ndarray, _np.ndarray)):
        return None
    try:
        if _np.dtype(dtype) != _np.bool_:
            return None
    except TypeError:
        return None
    x = a if isinstance(a, _C.ndarray) else None
    if x is None or x.size <= 1 << 32 or _zero_d_axis(x, axis):
        return None
    fn = any if op in ("sum", "nansum") else all
    return fn(x, axis, None, keepdims)


def _reduction(op, with_dtype, with_initial):
    cfn = getattr(_C, op)

    if with_dtype and with_initial:
        def f(a, axis=None, dtype=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
            # NumPy's ufunc.reduce converts its arguments in order: dtype, out, keepdims, axis, ...
            if dtype is not None:
                check_dtype(op, dtype)
            if out is not None and not isinstance(out, tuple):
                check_out(op, out)
            kd = keepdims_flag(op, keepdims)
            _no_list_axis(op, axis)
            if where is True:  # (NumPy's default: no mask; the fast path checks the axis as NumPy)
                where = _NV
            if initial is _NV and where is _NV and (r := bool_loop_reduce(op, a, axis, dtype, out, kd)) is not None:
                return r
            if initial is _NV and where is _NV:
                try:
                    return cfn(a, axis, dtype, out, kd)
                except Exception:
                    if _zero_d_axis(a, axis):
                        return cfn(a, None, dtype, out, kd)
                    numpy_order_checks(op, a, axis, dtype, out)  # NumPy's exception class when it differs
                    raise
            return _masked_reduce(op, a, axis, dtype, out, kd, initial, where)
    elif with_initial:
        def f(a, axis=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
            if out is not None and not isinstance(out, tuple):  # (ufunc.reduce: out before keepdims)
                check_out(op, out)
            kd = keepdims_flag(op, keepdims)
            _no_list_axis(op, axis)
            if where is True:  # (NumPy's default: no mask; the fast path checks the axis as NumPy)
                where = _NV
            if initial is _NV and where is _NV:
                try:
                    return cfn(a, axis, None, out, kd)
                except Exception:
                    if _zero_d_axis(a, axis):
                        return cfn(a, None, None, out, kd)
                    numpy_order_checks(op, a, axis, None, out)  # NumPy's exception class when it differs
                    raise
            return _masked_reduce(op, a, axis, None, out, kd, initial, where)
    else:
        def f(a, axis=None, out=None, keepdims=_NV, *, where=_NV):
            if out is not None and not isinstance(out, tuple):  # (ufunc.reduce: out before keepdims)
                check_out(op, out)
            kd = keepdims_flag(op, keepdims)
            _no_list_axis(op, axis)
            if where is True:  # (NumPy's default: no mask; the fast path checks the axis as NumPy)
                where = _NV
            if where is _NV:
                try:
                    return cfn(a, axis, None, out, kd)
                except Exception:
                    if _zero_d_axis(a, axis):
                        return cfn(a, None, None, out, kd)
                    numpy_order_checks(op, a, axis, None, out)  # NumPy's exception class when it differs
                    raise
            return _masked_reduce(op, a, axis, None, out, kd, _NV, where)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = (cfn.__doc__ or "").split("\n")[0] + \
        "\n\nNumPy's signature: ``keepdims`` (bool or int), ``initial``, ``where`` (a boolean mask)."
    return f


sum = _reduction("sum", True, True)  # noqa: A001 - NumPy's name
prod = _reduction("prod", True, True)
max = _reduction("max", False, True)  # noqa: A001
min = _reduction("min", False, True)  # noqa: A001
amax = max
amin = min
any = _reduction("any", False, False)  # noqa: A001
all = _reduction("all", False, False)  # noqa: A001


def _to_out_or(r, out):
    if out is None:
        return r
    out[...] = r
    return out


def mean(a, axis=None, dtype=None, out=None, keepdims=_NV, *, where=_NV):
    """Arithmetic mean (``numpy.mean``), with NumPy's ``keepdims`` (bool or int) and ``where``
    (a boolean mask: the mean of the selected elements, NaN for an empty selection)."""
    if where is True:  # (NumPy's _count_reduce_items: `where is True` is the default's fast path)
        where = _NV
    if where is _NV:
        if axis is not None:
            # _methods._mean counts the items with normalize_axis_index first (True is axis 1: out
            # of bounds is its AxisError; a C int: beyond it OverflowError, not the ufunc's ValueError),
            # before its sum reads keepdims
            check_count_axis(axis, _np.ndim(a) if not isinstance(a, _C.ndarray) else a.ndim, "mean", dtype)
        if dtype is not None:  # (then its umr_sum converts dtype=, out=, keepdims in that order)
            check_dtype("mean", dtype)
        if out is not None and not isinstance(out, tuple):
            check_out("mean", out)
        if _narrowing_half_dtype(a, dtype):  # (NumPy's umr_sum casts each element to float16 first)
            kd = keepdims_flag("mean", keepdims)
            s = sum(a, axis, dtype, None, kd)
            n = a.size // _builtins.max(s.size, 1) if a.size else 0
            return _to_out_or(_C.astype(_C.true_divide(s, _C.asarray(n)), _np.float16), out)
        return _C.mean(a, axis, dtype, out, keepdims_flag("mean", keepdims))
    kd = keepdims_flag("mean", keepdims)  # (with a where= array the count is a ufunc sum: keepdims first)
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    # NumPy's _mean counts the items first, with a where= array as a ufunc sum (its axis rules: a C
    # int's ValueError, a list's TypeError, an int axis of a 0-d array taken)
    axes = where_count_axes("mean", x, axis, where)
    den = _where_count("mean", where, x.shape, axes, kd)
    w = _where_mask("mean", where, x.shape)
    if dtype is not None:
        rt = _np.dtype(dtype) if not isinstance(dtype, _np.dtype) else dtype
    else:
        rt = x.dtype if x.dtype.kind in "fcV" else _np.dtype(_np.float64)
    acc = _np.float32 if rt.itemsize == 2 else rt  # NumPy sums float16/bfloat16 in float32
    num = _C.sum(_C.where(w, _C.astype(x, acc), 0), axes, None, None, kd)
    r = _C.astype(_C.true_divide(num, den), rt)
    if out is not None:
        out[...] = r
        return out
    return r


# --------------------------------------------------------------------------- creation

def _ndmin(op, ndmin):
    try:
        n = _operator.index(ndmin)
    except TypeError:
        raise _type_error(op, f"ndmin must be an integer, not {type(ndmin).__name__}") from None
    if n > 64:
        raise _value_error(op, f"ndmin bigger than allowable number of dimensions NPY_MAXDIMS (=64), got {n}")
    return n


def _ndmax(op, ndmax):
    """NumPy's ndmax: an integer (operator.index: an array of several elements, None, a float are
    its TypeError) in [0, 64]."""
    try:
        n = _operator.index(ndmax)
    except TypeError as e:
        raise _type_error(op, f"ndmax: {e}") from None
    if not 0 <= n <= 64:
        raise _value_error(op, f"ndmax must be in the range [0, NPY_MAXDIMS (64)] (got {n})")
    return n


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None):  # noqa: A002
    """A pyasc array from ``object`` (``numpy.array``): ``copy`` True/None/False as NumPy 2
    (False: no copy, ValueError when one is needed), ``order`` (C/F/A/K; 'F' gives Fortran
    strides), ``ndmin`` (leading length-1 axes), ``like`` (a pyasc or NumPy array, ignored)."""
    o = check_order("array", order)
    n = _ndmin("array", ndmin)
    if type(ndmax) is not int or ndmax:  # noqa: E721 - (the default 0 costs nothing)
        _ndmax("array", ndmax)
    check_like("array", like)
    if copy is not None and not isinstance(copy, bool):
        copy = copy_flag("array", copy)
    if copy is None or (copy is not True and not copy):
        x = asarray(object, dtype, copy=copy)
    else:
        x = _C.array(object, dtype, True)
    # (NumPy's flags: an empty array is contiguous in both orders, a 1-d strided view in neither)
    if copy is False and ((o == "C" and not x.flags.c_contiguous) or (o == "F" and not x.flags.f_contiguous)):
        raise _value_error("array", f"Unable to avoid copy while creating an array as requested (order={order!r} "
                                    "needs a copy of this view; copy=False)")
    if x.ndim < n:
        x = _C.reshape(x, (1,) * (n - x.ndim) + x.shape)
    if o == "F":
        x = as_fortran(x)
    return x


def asarray(a=_NV, dtype=None, order=None, *, device=None, copy=None, like=None, obj=_NV):
    """``a`` as a pyasc array (``numpy.asarray``; no copy when possible): ``copy`` True/None/False,
    ``order`` (C/F/A/K/None; 'F' gives Fortran strides, copying when needed), ``device`` 'cpu',
    ``like`` (a pyasc or NumPy array, ignored). ``obj`` is the array API standard's name of ``a``."""
    if a is _NV:
        if obj is _NV:
            raise _type_error("asarray", "asarray() missing 1 required positional argument: 'a'")
        a = obj
    elif obj is not _NV:
        raise _type_error("asarray", "asarray() got multiple values for argument 'a' (a and obj)")
    if copy is not None and not isinstance(copy, bool):
        copy = copy_flag("asarray", copy)
    if copy is False and isinstance(a, _PY_VALUES):
        # a Python sequence or scalar (or a NumPy scalar) has no array memory to share
        raise _value_error("asarray", f"Unable to avoid copy while creating an array as requested: a "
                                      f"{type(a).__name__} is always copied (copy=False)")
    if order is None and like is None:
        return _C.asarray(a, dtype, copy, device=device)
    o = check_order("asarray", order)
    check_like("asarray", like)
    x = _C.asarray(a, dtype, copy, device=device)
    if o == "F" and x.ndim >= 1 and not x.flags.f_contiguous:  # (NumPy's flags: an empty array is contiguous)
        if copy is False:
            raise _value_error("asarray", "Unable to avoid copy while creating an array as requested (order='F' "
                                          "needs a copy of this view; copy=False)")
        # (a 1-d view that is not contiguous -- a broadcast, a step -- is copied too, as NumPy
        # does: a huge broadcast view is then its MemoryError, not a view)
        x = as_fortran(x) if x.ndim >= 2 else _C.ndarray.copy(x)
    elif o == "C" and x.ndim >= 1 and not x.flags.c_contiguous:
        if copy is False:
            raise _value_error("asarray", "Unable to avoid copy while creating an array as requested (order='C' "
                                          "needs a copy of this view; copy=False)")
        x = _C.ndarray.copy(x)  # NumPy's C-contiguous copy of a view that is not
    return x


_PY_VALUES = (list, tuple, bool, int, float, complex, _np.generic)


def shape_arg(shape):
    """A shape as NumPy reads it: an integer array (NumPy iterates it) becomes a tuple of ints."""
    if isinstance(shape, (_C.ndarray, _np.ndarray)) and shape.ndim == 1 and shape.dtype.kind in "iu" and \
            shape.size <= 64:  # (more entries than dimensions: intp_tuple's error, a huge view never iterated)
        return tuple(int(v) for v in _np.asarray(shape).tolist())
    return shape


def _new(op, shape, fill, dtype, order, device, like):
    # NumPy's converters run in argument order: shape, then dtype, then order (intp_tuple reads an
    # integer array as NumPy does, a huge view from its length alone)
    shape = intp_tuple(op, shape)
    check_dtype(op, dtype)
    from ._array_api import check_device  # noqa: PLC0415
    check_device(op, device)
    # (order is compared only as a str: `order != "C"` of a huge array would be computed)
    o = "C" if isinstance(order, str) and order == "C" else check_order(op, order, allowed="CF") or "C"
    check_like(op, like)
    if fill is None:
        x = _C.empty(shape, dtype)
    else:
        x = _C.full(shape, fill, dtype)
        if x.size == 0:
            _check_fill(fill, x.dtype)
    return as_fortran(x) if o == "F" else x


def _check_fill(fill, dt):
    """NumPy's full/full_like convert the fill value into the dtype (copyto) even when there is
    nothing to fill: a Python int the dtype cannot hold is NEP 50's OverflowError for an empty
    result too (pyasc's fill of nothing converts nothing: one element does it here)."""
    if type(fill) is int:  # noqa: E721 - (the only value whose conversion can fail that way)
        _C.full((1,), fill, dt)


def empty(shape, dtype=None, order="C", *, device=None, like=None):
    """An uninitialised array (``numpy.empty``); ``order`` 'C' or 'F' (Fortran strides)."""
    return _new("empty", shape, None, dtype, order, device, like)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """An array filled with ``fill_value`` (``numpy.full``); ``order`` 'C' or 'F'."""
    if fill_value is None:
        fill_value = _none_fill("full", dtype, lambda: intp_tuple("full", shape))
    return _new("full", shape, fill_value, dtype, order, device, like)


def _none_fill(op, dtype, shape_of):
    """A None fill as NumPy's copyto casts it (unsafe, from an object) into each element: NaN for a
    float, False for bool; int()'s (ml_dtypes' "expected number") TypeError for an integer (a
    bfloat16) dtype unless there is no element. Without a dtype NumPy makes an object array,
    which pyasc has none of: asarray's error. (None itself would mean "no fill" to _new/_like.)"""
    if dtype is None:
        _C.asarray(None)  # (raises: pyasc has no object dtype)
    if isinstance(dtype, (_C.ndarray, _np.ndarray)):
        return 0  # (the dtype check's own error follows)
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        return 0  # (the dtype check's own error follows)
    try:
        return _np.array([None], dtype=object).astype(dt)[0].item()
    except TypeError as e:
        shape = shape_of()
        if _builtins.all(isinstance(d, int) for d in shape) and 0 in shape:
            return 0  # nothing to fill: NumPy converts nothing
        raise _type_error(op, f"{e} (fill_value None into {dt})") from None


def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    """An array of zeros (float64 unless ``dtype``; ``numpy.zeros``); ``order`` 'C' or 'F'."""
    return _new("zeros", shape, 0, _np.float64 if dtype is None else dtype, order, device, like)


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """An array of ones (float64 unless ``dtype``; ``numpy.ones``); ``order`` 'C' or 'F'."""
    return _new("ones", shape, 1, _np.float64 if dtype is None else dtype, order, device, like)


def _like(op, a, fill, dtype, order, subok, shape, device):
    o = check_order(op, order)
    from ._array_api import check_device  # noqa: PLC0415
    check_device(op, device)
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    shp = x.shape if shape is None else shape_arg(shape)
    dt = x.dtype if dtype is None else dtype
    r = _C.empty(shp, dt) if fill is None else _C.full(shp, fill, dt)
    if fill is not None and r.size == 0:
        _check_fill(fill, r.dtype)
    # K/A keep the prototype's layout: Fortran when it is F- and not C-contiguous (as NumPy)
    if o == "F" or (o in ("A", "K", None) and shape is None and x.ndim >= 2 and not x.is_contiguous()
                    and x.T.is_contiguous()):
        r = as_fortran(r)
    return r


def empty_like(prototype, /, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An uninitialised array with the shape and dtype of ``prototype`` (or the given ones)."""
    return _like("empty_like", prototype, None, dtype, order, subok, shape, device)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An array of zeros with the shape and dtype of ``a`` (or the given ones)."""
    return _like("zeros_like", a, 0, dtype, order, subok, shape, device)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An array of ones with the shape and dtype of ``a`` (or the given ones)."""
    return _like("ones_like", a, 1, dtype, order, subok, shape, device)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """An array filled with ``fill_value`` with the shape and dtype of ``a`` (or the given ones)."""
    if fill_value is None:
        dt = dtype if dtype is not None else getattr(a, "dtype", None)
        if dt is None:
            dt = _np.asarray(a).dtype
        fill_value = _none_fill("full_like", dt, lambda: tuple(_np.shape(a) if shape is None else intp_tuple(
            "full_like", shape)))
    return _like("full_like", a, fill_value, dtype, order, subok, shape, device)


# --------------------------------------------------------------------------- shape

def _reshape_f(x, shape, copy):
    """reshape in Fortran (column-major) index order: the reversed-axes reshape of x.T."""
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    shape = tuple(shape)
    return _C.reshape(x.T, shape[::-1], copy=copy).T


def _empty_shape_seq(shape):
    """NumPy's PyArray_IntpConverter iterates an array given as a shape: one whose first extent is
    0 (any dtype, any rank) is an empty sequence, the shape ()."""
    if isinstance(shape, (_C.ndarray, _np.ndarray)) and shape.ndim >= 1 and shape.shape[0] == 0:
        return ()
    return shape


def reshape(a, /, shape=_NV, order="C", *, newshape=None, copy=None):
    """``a`` with a new shape (``numpy.reshape``): ``order`` 'C', 'F' (column-major index order)
    or 'A'; ``copy`` True (always), None (a view when possible), False (a view or ValueError).
    ``shape=None`` keeps the shape (NumPy's ``a.reshape(None)``)."""
    if shape is _NV:
        if newshape is None:
            raise _type_error("reshape", "reshape() missing 1 required positional argument: 'shape'")
        shape = newshape
    if shape is None:  # NumPy's IntpConverter reads None as "no new shape": the array's own
        shape = tuple(_np.shape(a)) if not isinstance(a, _C.ndarray) else tuple(a.shape)
    shape = _empty_shape_seq(shape)
    if copy is not None and not isinstance(copy, (bool, _np.bool_)):
        copy = copy_flag("reshape", copy)
    if isinstance(shape, (_C.ndarray, _np.ndarray)) and shape.ndim == 1 and _np.dtype(shape.dtype).kind in "iu" \
            and shape.shape[0] <= 64:
        # NumPy's PyArray_IntpConverter takes a 1-d integer array as the shape sequence (as the
        # ndarray.reshape method does)
        shape = tuple(int(v) for v in (shape.numpy() if isinstance(shape, _C.ndarray) else shape).tolist())
    if order.__class__ is str and order == "C":
        return _C.reshape(a, shape, copy=copy)
    o = check_order("reshape", order) or "C"
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    if o == "K":
        try:  # NumPy converts the shape (TypeError) before it looks at the order
            _C.reshape(x, shape)
        except TypeError:
            raise
        except Exception:  # noqa: BLE001, S110 - a size mismatch: the order's ValueError comes first
            pass
        raise _value_error("reshape", "order 'K' is not permitted for reshaping")
    if o == "A":
        o = "F" if x.ndim >= 2 and not x.is_contiguous() and x.T.is_contiguous() else "C"
    return _reshape_f(x, shape, copy) if o == "F" else _C.reshape(x, shape, copy=copy)


# --------------------------------------------------------------------------- shared argument checks

def clip_mode(op, mode):
    """NumPy's clip-mode converter (take/choose/put): 'raise'/'wrap'/'clip', None ('raise'), or an
    int (0 'clip', 1 'wrap', anything else 'raise'); a float is its TypeError, another str its
    ValueError."""
    if mode is None:
        return "raise"
    if isinstance(mode, str):
        if mode in ("raise", "wrap", "clip"):
            return mode
        if len(mode) <= 1 or mode.lower() in ("raise", "wrap", "clip"):
            raise _value_error(op, "Use one of 'clip', 'raise', or 'wrap' for clip mode")
        raise _value_error(op, f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if isinstance(mode, (bool, _np.bool_)):  # NumPy's converter refuses bools (True is no 'wrap')
        raise _type_error(op, f"clipmode not understood (got {mode!r})")
    try:
        m = _operator.index(mode)
    except TypeError:
        raise _type_error(op, f"clipmode not understood (got {type(mode).__name__})") from None
    if not -(1 << 31) <= m < (1 << 31):  # NumPy reads it as a C int: an overflow is "not understood"
        raise _type_error(op, f"clipmode not understood (got {m})")
    # NumPy: 0 clip, 1 wrap, 2 raise; any other int reads as 'raise' and its ValueError comes after
    # the call ("invalid": the caller raises int_mode_error() when the indices were in bounds)
    return {0: "clip", 1: "wrap", 2: "raise"}.get(m, "invalid")


def int_mode_error(op):
    return _value_error(op, "integer clipmode must be RAISE, WRAP, or CLIP")


def nan_extremum(op, a, axis, out, keepdims, initial, where):
    """nanmax/nanmin with NumPy's ``initial``/``where``: the extremum over the elements that are
    selected and not NaN (``initial`` where none is)."""
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    if _has_bool_axis(axis):  # (fmax.reduce: a bool axis before where/initial)
        check_axis(axis, x.ndim, ufunc=True)
    w = _C.logical_not(_C.isnan(x)) if x.dtype.kind in "fcV" else None
    if where is not _NV:
        m = _where_mask(op, where, x.shape)
        w = m if w is None else _C.logical_and(w, m)
    if initial is _NV:
        if where is not _NV:
            raise _value_error(op, f"reduction operation 'f{op[3:]}' does not have an identity, so to use a where "
                                   "mask one has to specify 'initial'")
        return None
    return _masked_reduce(op[3:], x, axis, None, out, keepdims, initial, _NV if w is None else w)


# --------------------------------------------------------------------------- reduction methods
#
# NumPy checks the arguments of ndarray.sum & co. in an order the C++ bindings do not share:
# the ufunc reductions (sum, prod, max, min, any, all) convert dtype= and out= before the axis,
# and an axis tuple element by element (axis (1, 'a') of a 0-d array is an AxisError);
# mean/var/std (numpy._core._methods) count the items along the axis first; argmax/argmin
# check out= first. The wrappers check in NumPy's order, then call the binding unchanged.

def check_axis(axis, ndim, ufunc=False):
    """NumPy's axis check, element by element in order (an out-of-range element before a later
    non-integer one is NumPy's AxisError; a non-integer its TypeError; a repeat its ValueError).
    ``ufunc``: a ufunc reduction's axis (a tuple or an int; an array is not iterated; a bool is
    its TypeError before any bound), "mean": mean/var/std's, read by normalize_axis_index first
    (True is axis 1 there: out of bounds is AxisError)."""
    if axis is None:
        return
    was_seq = isinstance(axis, tuple) or (isinstance(axis, list) and ufunc is not True)  # (ufunc: a list is not)
    if not was_seq:
        if ufunc is True and isinstance(axis, (bool, _np.bool_)):
            raise _type_error("axis", f"an integer is required (axis {axis!r})")
        try:
            axis = (_operator.index(axis),)
        except TypeError as e:
            if ufunc or isinstance(axis, str) or not hasattr(axis, "__iter__"):
                raise _type_error("axis", str(e)) from None
            axis = tuple(axis)
    if ufunc is True and ndim == 0 and not was_seq:
        ndim = 1  # a ufunc reduction takes an int axis 0 or -1 of a 0-d array (as no axis)
    seen = []
    for ax in axis:
        if ufunc is True and isinstance(ax, (bool, _np.bool_)):
            raise _type_error("axis", f"an integer is required (axis {ax!r})")
        try:
            i = _operator.index(ax)
        except TypeError as e:
            raise _type_error("axis", str(e)) from None
        # a ufunc reduction reads each as a C long (OverflowError) then a C int (ValueError) before
        # the bounds; mean's normalize_axis_index takes a C int (its OverflowError, below)
        if ufunc and not -(1 << 63) <= i < (1 << 63):
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[axis] Python int too large to convert to C long ({i})")
        if ufunc and not -(1 << 31) <= i < (1 << 31):
            raise _value_error("axis", f"integer won't fit into a C int ({i})")
        seen.append(_np.lib.array_utils.normalize_axis_index(i, ndim))
    if len(set(seen)) != len(seen):
        raise _value_error("axis", "repeated axis")


def check_count_axis(axis, ndim, op=None, dtype=None):
    """The axis of var/std as numpy._core._methods._count_reduce_items reads it first: a tuple
    element by element, anything else one axis (a list or an array of axes is NumPy's TypeError),
    each a C int (OverflowError) within range (AxisError); then the ufunc's repeat check."""
    if axis is None:
        return
    seen = []
    for ax in axis if isinstance(axis, tuple) else (axis,):
        try:
            i = _operator.index(ax)
        except TypeError as e:
            raise _type_error("axis", str(e)) from None
        if not -(1 << 31) <= i < (1 << 31):
            width = "C long" if not -(1 << 63) <= i < (1 << 63) else "C int"  # NumPy: PyLong_AsLong, then int
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[axis] Python int too large to convert to {width} ({i})")
        seen.append(_np.lib.array_utils.normalize_axis_index(i, ndim))
    if op is not None:  # (the ufunc sum that follows the count converts dtype= before its repeat check)
        check_dtype(op, dtype)
    if len(set(seen)) != len(seen):
        raise _value_error("axis", "duplicate value in 'axis'")


def check_dtype(op, dtype):
    if isinstance(dtype, (_C.ndarray, _np.ndarray)):  # np.dtype() would read its .dtype
        raise _type_error(op, "Cannot construct a dtype from an array")
    if dtype is not None and not isinstance(dtype, _np.dtype):
        try:
            _np.dtype(dtype)
        except TypeError as e:
            raise _type_error(op, str(e)) from None


def check_out(op, out, msg="return arrays must be of ArrayType"):
    if out is not None and not isinstance(out, (_C.ndarray, _np.ndarray)):
        raise _type_error(op, f"{msg} (out= got {type(out).__name__})")


# --------------------------------------------------------------------------- partition, einsum

def _partition_checks(op, a, kth, axis, kind, order=None):
    """NumPy's order for partition/argpartition: the axis converted (TypeError), the kind, the
    order (no structured dtypes: any order is a ValueError), the axis against the dimensions
    (a 0-d array counts as 1-d), then kth's dtype."""
    ndim = a.ndim if isinstance(a, _C.ndarray) else _np.ndim(a)
    if axis is not None:
        try:
            ax = _operator.index(axis)
        except TypeError as e:
            raise _type_error(op, str(e)) from None
        if op == "partition" and not -(1 << 31) <= ax < (1 << 31):  # (ndarray.partition parses a C int, "i")
            width = "C long" if not -(1 << 63) <= ax < (1 << 63) else "C int"
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[partition] Python int too large to convert to {width} "
                                                          f"(axis {ax})")
    if not isinstance(kind, (str, bytes)):
        raise _type_error(op, f"select kind must be str, not {type(kind).__name__}")
    if (kind.decode("latin-1") if isinstance(kind, bytes) else kind) != "introselect":
        raise _value_error(op, f"select kind must be 'introselect' (got {kind!r})")
    if order is not None:  # array_partition checks the fields before it converts kth
        raise _value_error(op, f"Cannot specify order when the array has no fields (order={order!r})")
    if op == "partition":  # ndarray.partition converts kth (a copy, at most 1-d) before its axis check
        from ._sorting import _check_kth_conversion  # noqa: PLC0415

        _check_kth_conversion(kth)
    if axis is not None:  # argpartition takes a 0-d array as 1-d (PyArray_CheckAxis), partition does not
        _np.lib.array_utils.normalize_axis_index(ax, ndim if op == "partition" else _builtins.max(ndim, 1))
    k = kth.numpy() if isinstance(kth, _C.ndarray) else kth
    try:
        ka = _np.asarray(k)
        kd = ka.dtype
    except ValueError:  # a ragged sequence: NumPy's intp conversion (at most 1-d) fails first
        raise _value_error(op, "setting an array element with a sequence: kth must be an integer "
                               "or an at most 1-d sequence of integers (got a ragged sequence)") from None
    except Exception:  # noqa: BLE001 - another unconvertible object: not an integer either
        ka, kd = None, _np.dtype(object)
    if ka is not None and ka.ndim > 1:
        raise _value_error(op, f"object too deep for desired array (kth has {ka.ndim} dimensions)")
    if kd.kind == "b":  # NumPy's PyArray_Partition refuses bool kth before the integer check
        raise _value_error(op, "Booleans unacceptable as partition index")
    if kd.kind not in "iu":
        raise _type_error(op, f"Partition index must be integer (kth has dtype {kd})")


def _with_partition_checks(op, impl):
    def f(a, kth, axis=-1, kind="introselect", order=None):
        if op == "argpartition" and isinstance(axis, (bool, _np.bool_)):
            # argpartition reads axis with PyArray_AxisConverter, which refuses bools; partition
            # takes a Python bool as 0/1 (and np.bool_ fails its operator.index below)
            raise _type_error(op, f"an integer is required for the axis (got {axis!r})")
        try:
            return impl(a, kth, axis, kind, order)
        except Exception:
            if op == "partition" and isinstance(a, _C.ndarray) and a.size > 1 << 32 and not a.is_contiguous():
                raise  # NumPy's partition copies the input first: a huge view's allocation error stands
            _partition_checks(op, a, kth, axis, kind, order)  # NumPy's exception class when it differs
            raise

    f.__name__ = f.__qualname__ = op
    f.__doc__ = impl.__doc__
    return f


def _install_partition():
    from . import _sorting  # noqa: PLC0415 - imported after the namespace is built

    g = globals()
    for op in ("partition", "argpartition"):
        g[op] = _with_partition_checks(op, getattr(_sorting, op))
        meth = getattr(_C.ndarray, op)

        def m(self, kth, axis=-1, kind="introselect", order=None, *, _op=op, _meth=meth):
            if _op == "argpartition" and isinstance(axis, (bool, _np.bool_)):  # as the function
                raise _type_error(_op, f"an integer is required for the axis (got {axis!r})")
            if _op == "argpartition" and axis is not None:
                # ndarray.argpartition converts its axis (PyArray_AxisConverter) while parsing the
                # arguments, before kth is read: a dtype or a str is that TypeError first
                try:
                    _operator.index(axis)
                except TypeError as e:
                    raise _type_error(_op, str(e)) from None
            if _op == "partition" and axis is None:
                # ndarray.partition parses its axis as a C int ("i") before it reads kth: None is
                # that TypeError first (argpartition's AxisConverter takes None as flattened)
                raise _type_error(_op, "'NoneType' object cannot be interpreted as an integer")
            if _op == "partition":  # (the same parse: a uint8 array axis is its TypeError before kth,
                # beyond a C int its OverflowError)
                try:
                    ax = _operator.index(axis)
                except TypeError as e:
                    raise _type_error(_op, str(e)) from None
                if not -(1 << 31) <= ax < (1 << 31):
                    width = "C long" if not -(1 << 63) <= ax < (1 << 63) else "C int"
                    raise AscendOverflowError(ErrorCode.OVERFLOW, f"[partition] Python int too large to convert to "
                                                                  f"{width} (axis {ax})")
            if _op == "partition" and isinstance(kind, str) and kind == "introselect" and order is None:
                # NumPy's array_partition after the argument parse: kth converted (a huge view's
                # copy: MemoryError), the axis against the dimensions, then the read-only check,
                # and only then kth's type and bounds
                from ._sorting import _check_kth_conversion  # noqa: PLC0415

                _check_kth_conversion(kth)
                _np.lib.array_utils.normalize_axis_index(ax, self.ndim)
                _C._check_writeable(self, "partition", "partition array is read-only")
            if self.size == 0 and isinstance(kth, (_C.ndarray, _np.ndarray)) and kth.ndim > 1:
                # (the C++ method returns at once for an empty array; NumPy converts kth first)
                raise _value_error(_op, f"object too deep for desired array (kth has {kth.ndim} dimensions)")
            try:
                return _meth(self, kth, axis, kind, order)
            except Exception:
                _partition_checks(_op, self, kth, axis, kind, order)
                raise

        m.__name__ = m.__qualname__ = op
        m.__doc__ = meth.__doc__
        setattr(_C.ndarray, op, m)


_install_partition()
__all__ += ["partition", "argpartition", "einsum"]


def einsum(*operands, **kwargs):
    """``numpy.einsum`` (pyasc's, :func:`pyasc._linalg_products.einsum`); fewer than two
    arguments is NumPy's ValueError (c_einsum's: with an ``optimize=`` other than False, NumPy's
    einsum_path checks the path, then parses, first -- einsum(x, optimize=<array>) is its TypeError)."""
    if len(operands) < 2 and kwargs.get("optimize", False) is False:
        raise _value_error("einsum", "must provide at least an operand and a subscripts list to einsum")
    from . import _linalg_products  # noqa: PLC0415
    return _linalg_products.einsum(*operands, **kwargs)


# --------------------------------------------------------------------------- squeeze

def check_squeeze_axis(axis, ndim):
    """NumPy's PyArray_ConvertMultiAxis for squeeze: a bool (Python's or NumPy's) is no integer
    there (TypeError), a tuple is checked element by element (a bool, then the bounds: AxisError,
    then a repeat: ValueError). The binding takes True as axis 1 and ignores repeats."""
    if isinstance(axis, tuple):
        seen = set()
        for ax in axis:
            if isinstance(ax, (bool, _np.bool_)):
                raise _type_error("squeeze", f"integers are required for the axis tuple elements (got {ax!r})")
            try:
                i = _operator.index(ax)
            except TypeError:
                raise _type_error("squeeze", "integers are required for the axis tuple elements "
                                             f"(got {type(ax).__name__})") from None
            i = _np.lib.array_utils.normalize_axis_index(i, ndim)
            if i in seen:
                raise _value_error("squeeze", f"duplicate value in 'axis' ({axis!r})")
            seen.add(i)
    elif isinstance(axis, (bool, _np.bool_)):
        raise _type_error("squeeze", f"an integer is required for the axis (got {axis!r})")


# --------------------------------------------------------------------------- shapes and axes lists

def intp_tuple(op, obj, what="shape"):
    """A sequence of integers or a single integer, read as NumPy's PyArray_IntpConverter reads a
    shape or an axes list: a non-sequence (a 0-d array too) is one integer (else TypeError
    "expected a sequence of integers..."), a sequence is converted element by element (a float,
    a str or a 1-d array element: TypeError), at most 64 entries, each within intp (else
    NumPy's ValueError "Maximum allowed dimension exceeded")."""
    if isinstance(obj, (_C.ndarray, _np.ndarray)) and obj.ndim:
        # NumPy takes len(obj) entries; an entry that is itself an array (ndim > 1, even of size
        # 1) is not an integer scalar: TypeError, found without iterating (a huge view)
        n = obj.shape[0]
        if n <= 64 and obj.ndim > 1 and n:
            raise _type_error(op, f"only integer scalar arrays can be converted to a scalar index ({what} "
                                  f"given as an array of shape {tuple(obj.shape)})")
    if isinstance(obj, (_C.ndarray, _np.ndarray)) and obj.ndim and obj.shape[0] > 64:
        # (never iterated: it may be a huge broadcast view) NumPy first turns the array into a
        # list of Python objects (PySequence_Fast); when it cannot hold that list it clears the
        # MemoryError and reads the array as a single integer: its TypeError; else the list has
        # too many entries: its ValueError
        from ._helpers import _sequence_fits  # noqa: PLC0415 - (_helpers imports the modules that import this one)

        if not _sequence_fits(obj.shape[0], obj.ndim - 1):
            raise _type_error(op, f"expected a sequence of integers or a single integer, got an array of "
                                  f"{obj.shape[0]} entries ({what}: more than the memory can hold as a list)")
        raise _value_error(op, f"maximum supported dimension for an ndarray is currently 64, found "
                               f"{obj.shape[0]} ({what})")
    if isinstance(obj, _C.ndarray):
        obj = obj.numpy()
    if isinstance(obj, _np.ndarray):
        seq = obj.ndim > 0
    else:
        seq = hasattr(obj, "__len__") and hasattr(obj, "__getitem__")
    if not seq:
        try:
            if isinstance(obj, (bool, _np.bool_)) or isinstance(obj, _np.ndarray) and obj.dtype == bool:
                raise TypeError  # NumPy's converter refuses bools (True is no dimension)
            items = (_operator.index(obj),)
        except TypeError:
            raise _type_error(op, f"expected a sequence of integers or a single integer, got '{obj}' ({what})") \
                from None
    else:
        if len(obj) > 64:
            raise _value_error(op, f"maximum supported dimension for an ndarray is currently 64, found {len(obj)} "
                                   f"({what})")
        items = []
        for v in obj:
            try:
                if isinstance(v, (bool, _np.bool_)):
                    raise TypeError("an integer is required")
                items.append(_operator.index(v))
            except TypeError as e:
                raise _type_error(op, f"{e} ({what})") from None
    for i in items:
        if not -(1 << 63) <= i < (1 << 63):
            raise _value_error(op, f"Maximum allowed dimension exceeded ({what} {i})")
    return tuple(items)


_c_broadcast_to = _C.broadcast_to


def broadcast_to(array, shape, subok=False):
    """``numpy.broadcast_to``: a read-only view of ``array`` with the given shape."""
    try:
        return _c_broadcast_to(array, shape)
    except Exception as err:
        # NumPy's _broadcast_to: tuple(shape), the scalar check, each element compared with 0 (a
        # negative float is NumPy's ValueError before the integer conversion), then nditer's shape
        sh = shape.numpy() if isinstance(shape, _C.ndarray) and (shape.ndim == 0 or shape.size <= 64) else shape
        if not isinstance(sh, _C.ndarray):
            sh = tuple(sh) if _np.iterable(sh) else (sh,)
            try:
                a_shape = array.shape if isinstance(array, _C.ndarray) else _np.shape(array)
            except (TypeError, ValueError):  # (NumPy converts the array first: a ragged list's error)
                raise err from None
            if not sh and a_shape:
                raise _value_error("broadcast_to", "cannot broadcast a non-scalar to a scalar array") from None
            try:
                negative = _builtins.any(s < 0 for s in sh)
            except TypeError as e:
                raise _type_error("broadcast_to", f"{e} (shape)") from None
            except ValueError as e:  # an element that is an array
                raise _value_error("broadcast_to", f"{e} (shape)") from None
            if negative:
                raise _value_error("broadcast_to", "all elements of broadcast shape must be non-negative") from None
            sh = intp_tuple("broadcast_to", sh)
            if type(shape) is not tuple or sh != shape:  # an integer array: the shape NumPy reads
                return _c_broadcast_to(array, sh)
        raise


def transpose_axes(op, axes, ndim):
    """``axes`` of a transpose as NumPy checks them: converted as an intp sequence, as many as the
    dimensions (ValueError "axes don't match array"), each in range (AxisError), no repeat."""
    ax = intp_tuple(op, axes, "axes")
    if len(ax) != ndim:
        raise _value_error(op, f"axes don't match array (axes {ax} for {ndim} dimensions)")
    seen = set()
    for i in ax:
        j = _np.lib.array_utils.normalize_axis_index(i, ndim)
        if j in seen:
            raise _value_error(op, f"repeated axis in transpose ({ax})")
        seen.add(j)
    return ax


def _with_axes_checks(op, cfn):
    def f(a, axes=None):
        try:
            return cfn(a, axes)
        except Exception:
            if axes is None:
                raise
            ax = transpose_axes(op, axes, a.ndim if isinstance(a, _C.ndarray) else _np.ndim(a))
            if type(axes) is not tuple or ax != axes:  # an integer array of axes: NumPy reads it as a sequence
                return cfn(a, ax)
            raise

    f.__name__ = f.__qualname__ = op
    f.__doc__ = cfn.__doc__
    return f


permute_dims = _with_axes_checks("permute_dims", _C.transpose)
transpose = _with_axes_checks("transpose", _C.transpose)
__all__ += ["broadcast_to", "permute_dims", "transpose"]

_c_var, _c_std = _C.var, _C.std


def check_correction(op, correction):
    """NumPy's ``if correction != np._NoValue``: an array of several values is the truth-value
    ValueError (compared elementwise), before ddof is looked at."""
    c = correction.numpy() if isinstance(correction, _C.ndarray) else correction
    if isinstance(c, _np.ndarray) and c.size != 1:  # (a list compares as a list: True)
        raise _value_error(op, f"The truth value of an array with more than one element is ambiguous "
                               f"(correction of shape {_np.shape(c)})")


def _real_number(v):
    """A ddof the C++ kernels take (a real Python/NumPy number); anything else (a complex, a str,
    None, an object) follows NumPy's arithmetic with the count in pyasc._statistics.var_std."""
    if isinstance(v, int) and not -(1 << 63) <= v < (1 << 63):  # (NumPy's count - 2**70: OverflowError)
        return False
    return isinstance(v, (int, float, _np.integer, _np.floating)) and not isinstance(v, _np.timedelta64)


def _narrowing_half_dtype(a, dtype):
    """dtype=float16 for wider data: NumPy's sums cast every element to float16 first (int32
    2**31 - 1 is inf there, and inf + -inf a NaN mean), while the C++ mean/var kernels cast the
    float32 sum; the mean is then computed from pyasc's sum, which casts as NumPy's does."""
    if dtype is None or not isinstance(a, _C.ndarray):
        return False
    try:
        d = _np.dtype(dtype)
    except TypeError:
        return False
    return d == _np.float16 and _np.dtype(a.dtype) != _np.float16 and _np.dtype(a.dtype).kind in "biuf"


def _complex_with_dtype(a, dtype):
    """Complex data with a ``dtype=``: NumPy's _var casts only the mean's sum to the dtype (a real
    one drops the imaginary parts there, ComplexWarning) and sums |x - mean|**2 of the complex
    deviations; a complex one makes that sum complex and divides it by the count as a complex
    number (Smith's division: a NaN or Inf sum gets a NaN imaginary part, nan+nanj, inf+nanj).
    The C++ kernel casts the data first and divides by a real count, so
    pyasc._statistics.var_std takes these."""
    if dtype is None or not isinstance(a, _C.ndarray) or _np.dtype(a.dtype).kind != "c":
        return False
    try:
        _np.dtype(dtype)
    except TypeError:
        return False
    return True


def _var_std(op, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """numpy.var/std: NumPy's axis check first (numpy._core._methods._var counts the items along
    the axis before anything else: a list or an array of axes is its TypeError, an axis beyond a
    C int its OverflowError); plain calls go to the C++ kernel, ``where=``, ``mean=`` and a ddof
    NumPy compares as an array (a bool, an array) to pyasc._statistics.var_std."""
    if correction is not _NV:  # fromnumeric first: `if ddof != 0` (an array of several ddofs: ambiguous)
        from . import _statistics  # noqa: PLC0415 - (imports this module)

        check_correction(op, correction)
        if _statistics._host_scalar_logic(op, lambda: bool(_np.asarray(
                ddof.numpy() if isinstance(ddof, _C.ndarray) else ddof) != 0)):
            raise _value_error(op, "ddof and correction can't be provided simultaneously.")
        ddof, correction = correction, _NV
    if axis is not None and (where is _NV or where is True):
        # (before the kernel allocates anything: a huge view's MemoryError comes later; with a
        # where= the count is a ufunc sum and pyasc._statistics.var_std checks the axis as one)
        check_count_axis(axis, a.ndim if isinstance(a, _C.ndarray) else _np.ndim(a), op, dtype)
    if mean is _NV and where is _NV:
        check_dtype(op, dtype)  # (the mean's sum converts dtype= before ddof is read)
    if mean is _NV and isinstance(a, _C.ndarray) and _np.dtype(a.dtype) == _np.bool_ and dtype is not None:
        # NumPy's _var: the mean summed in dtype=bool stays bool, and `arr - arrmean` is the bool
        # subtract's TypeError -- before ddof is ever read (a ddof beyond int64 was our OverflowError)
        try:
            bool_dt = _np.dtype(dtype) == _np.bool_
        except TypeError:
            bool_dt = False
        if bool_dt:
            raise _type_error(op, "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                                  "the `^` operator, or the logical_xor function instead (bool data, dtype=bool)")
    for d in (ddof,):  # NumPy: maximum(rcount - ddof, 0) with rcount an intp
        if type(d) is int and not -(1 << 63) <= d < (1 << 63):
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] ddof: Python int too large to convert to C long ({d})")
    arrayish = (bool, _np.bool_, _C.ndarray, _np.ndarray, list, tuple)
    general = where is not _NV or mean is not _NV or isinstance(ddof, arrayish) or isinstance(correction, arrayish) \
        or not _real_number(ddof) or (correction is not _NV and not _real_number(correction))
    general = general or _complex_with_dtype(a, dtype) or _narrowing_half_dtype(a, dtype)
    if not general:
        # (NumPy's _var: its first sum, with keepdims=True, converts dtype= and out= before the
        # second one reads keepdims)
        check_dtype(op, dtype)
        if not isinstance(out, tuple):
            check_out(op, out)
        return (_c_var if op == "var" else _c_std)(a, axis, dtype, out, ddof, keepdims_flag(op, keepdims))
    from . import _statistics  # noqa: PLC0415 - (imports this module)

    # (keepdims is read by var_std where NumPy reads it: a bad ddof or dtype= fails first)
    return _statistics.var_std(op, a, axis, dtype, out, ddof, keepdims, where, mean)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NV, *, where=_NV, mean=_NV, correction=_NV):
    """Variance along ``axis`` (``numpy.var``): ``ddof``/``correction`` degrees of freedom,
    ``where`` a boolean mask of the elements counted, ``mean`` a precomputed mean (broadcast
    against ``a``, keepdims-shaped)."""
    return _var_std("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NV, *, where=_NV, mean=_NV, correction=_NV):
    """Standard deviation along ``axis`` (``numpy.std``): the square root of :func:`var`, same
    parameters."""
    return _var_std("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


__all__ += ["var", "std"]


# The ndarray methods (installed on import) live in _signatures_methods; their names stay reachable
# here (pyasc._signatures.ravel_order, ._method_squeeze, ...) as before the split.
from ._signatures_methods import (  # noqa: E402,F401
    _CASTINGS,
    _UFUNC_REDUCTIONS,
    _c_astype_method,
    _c_conj,
    _c_copy_method,
    _c_flatten_method,
    _c_method_transpose,
    _c_ravel,
    _c_reshape,
    _c_squeeze_method,
    _c_swapaxes,
    _install_cumulative_methods,
    _install_reduction_methods,
    _keep_order_perm,
    _method_astype,
    _method_conj,
    _method_copy,
    _method_flatten,
    _method_ravel,
    _method_reshape,
    _method_squeeze,
    _method_swapaxes,
    _method_transpose,
    _ravel_order_views,
    ravel_order,
)
