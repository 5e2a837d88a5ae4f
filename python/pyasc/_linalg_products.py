"""Linear algebra in the array namespace: ``matmul``, ``dot``, ``vdot``,
``inner``, ``tensordot``, ``outer``, ``einsum``, ``matrix_transpose``,
``vecdot``, ``trace``, ``kron``, ``einsum_path`` (NumPy's ``_core/multiarray``,
``numeric`` and ``einsumfunc`` products; ``pyasc.linalg`` is :mod:`pyasc.linalg`).

``matmul`` (and the ``@`` operator) is C++ (``pyasc._C._linalg.matmul``: shape
rules, BLAS, integer and bool kernels). The others are compositions of
``matmul`` with views (transpose/reshape, which copy only when the strides do
not allow a view) and the elementwise/reduction ops; dtypes follow NumPy's
(``dot``-family functions keep bfloat16 as ml_dtypes' ``dot`` does, ``matmul``
gives float32 for it). Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import math as _math
import operator as _operator

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _ufunc
from ._helpers import _check_sequence
from .errors import AscendIndexError as _IndexError
from .errors import AscendOverflowError as _OverflowError
from .errors import AscendTypeError as _TypeError
from .errors import AscendValueError as _ValueError
from .errors import ErrorCode as _Code
from . import errors as _errors

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


def _arr(x):
    return x if isinstance(x, _C.ndarray) else _C.asarray(x)


def _xp():
    """The pyasc namespace (imported lazily: this module is part of its initialisation)."""
    import pyasc

    return pyasc


def _norm_axis(axis, ndim):
    """One axis normalised like NumPy (AxisError, a ValueError and IndexError, when out of range)."""
    axis = _operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _norm_axes(axis, ndim):
    out = tuple(_norm_axis(a, ndim) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(out)) != len(out):
        raise _ValueError(_Code.INVALID_PARAM, f"[axis] repeated axis in {axis}")
    return out


def _shape_error(op, msg):
    return _ValueError(_Code.INVALID_SHAPE, f"[{op}] {msg}")


def _shape_str(s):
    return "(" + ",".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def _result_dtype(a, b):
    return _C.result_type_of(a, b)


def _with_dtype(r, dtype):
    return r if r.dtype == dtype else _C.astype(r, dtype)


def _to_out(r, out, op):
    if out is None:
        return r
    if not isinstance(out, _C.ndarray):
        raise _TypeError(_Code.INVALID_DTYPE, f"[{op}] out must be a pyasc.ndarray")
    if tuple(out.shape) != tuple(r.shape):
        raise _shape_error(op, f"output array has shape {_shape_str(out.shape)}, the result has shape "
                               f"{_shape_str(r.shape)}")
    out[...] = r
    return out


# ------------------------------------------------------------------ products


#: Matrix product (``numpy.matmul``): stacks of matrices broadcast over the
#: leading dimensions; a 1-d first operand is a row vector, a 1-d second one a
#: column vector (the added dimension is removed from the result). The plain
#: call goes straight to the C++ binding; NumPy's gufunc keywords (dtype=,
#: casting=, out=(o,), ...) through pyasc._ufunc.
def _matmul_fast(x1, x2, out=None):
    if out is not None:
        # NumPy checks out's dtype (the loop) before any shape: a bad one takes the keyword path
        # for NumPy's error; a good one writes straight into out.
        try:
            if not (isinstance(x1, _C.ndarray) and isinstance(x2, _C.ndarray) and isinstance(out, _C.ndarray)):
                raise TypeError
            _np.matmul.resolve_dtypes((x1.dtype, x2.dtype, out.dtype))
        except TypeError:
            return _ufunc.call("matmul", 2, (x1, x2), {"out": out}, impl=_matmul_loop, core=True, core_dims=2)
        try:
            return _C._linalg.matmul(x1, x2, out)
        except ValueError:
            if out.ndim <= max(x1.ndim, x2.ndim):
                raise
            # an out with more loop dimensions: NumPy broadcasts into it
            return _ufunc.call("matmul", 2, (x1, x2), {"out": out}, impl=_matmul_loop, core=True, core_dims=2)
    try:
        return _C._linalg.matmul(x1, x2, out)
    except TypeError:
        # NumPy converts a Python int outside int64 with the C long loop: OverflowError
        for x in (x1, x2):
            if type(x) is int and not -2 ** 63 <= x < 2 ** 63:
                raise _OverflowError(_Code.OVERFLOW, f"[matmul] Python int too large to convert to C long ({x})") \
                    from None
        raise


def _matmul_loop(x1, x2):
    return _C._linalg.matmul(x1, x2, None)


matmul = _ufunc.make("matmul", 2, _matmul_fast, _matmul_loop, core=True, core_dims=2,
                     doc=_C._linalg.matmul.__doc__)


def dot(a, b, out=None):
    """``numpy.dot``: inner product of 1-d arrays, matrix product of 2-d ones,
    multiplication for 0-d operands, and for N-d a sum product over the last
    axis of ``a`` and the second-to-last of ``b``."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _to_out(_C.multiply(a, b), out, "dot")
    kb = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if a.shape[-1] != kb:
        raise _shape_error("dot", f"shapes {_shape_str(a.shape)} and {_shape_str(b.shape)} not aligned: "
                                  f"{a.shape[-1]} (dim {a.ndim - 1}) != {kb} (dim {max(b.ndim - 2, 0)})")
    if b.ndim <= 2:
        r = _C._linalg.matmul(a, b, None)
        if a.dtype == _BF16 or b.dtype == _BF16:  # ml_dtypes' dot keeps bfloat16, matmul runs in float32
            r = _with_dtype(r, _result_dtype(a, b))
    else:
        r = tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))
    return _to_out(r, out, "dot")


def vdot(a, b, /):
    """``numpy.vdot``: the dot product of the flattened arrays, the first one conjugated when complex."""
    a, b = _arr(a), _arr(b)
    if a.dtype.kind == "c":
        a = _C.conjugate(a)
    if a.size != b.size:
        raise _shape_error("vdot", f"arrays of shapes {_shape_str(a.shape)} and {_shape_str(b.shape)} have "
                                   f"different sizes {a.size} and {b.size}")
    return dot(_C.reshape(a, (-1,)), _C.reshape(b, (-1,)))


def inner(a, b, /):
    """``numpy.inner``: sum product over the last axes (multiplication for 0-d operands)."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _C.multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise _shape_error("inner", f"shapes {_shape_str(a.shape)} and {_shape_str(b.shape)} not aligned: "
                                    f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[-1]} (dim {b.ndim - 1})")
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def _tensordot_parse(axes):
    """numpy.tensordot's first steps, before it converts the operands (the same Python steps, so the
    same errors): an int n (anything not iterable) is range(-n, 0) / range(0, n) -- a negative n
    sums nothing, a float is range()'s TypeError, 2**63 its OverflowError --, else a pair; a pair
    entry that is not a sequence is one axis. Returns ((axes_a, na), (axes_b, nb))."""
    try:
        iter(axes)
    except Exception:  # noqa: BLE001 - NumPy: any failure of iter() means "an int"
        axes_a, axes_b = list(range(-axes, 0)), list(range(0, axes))
    else:
        axes_a, axes_b = axes
    lists = []
    for ax in (axes_a, axes_b):
        try:
            n = len(ax)
            ax = list(ax)
        except TypeError:
            ax, n = [ax], 1
        if len(set(ax)) != len(ax):  # (before the operands are converted; an unhashable entry: TypeError)
            raise _ValueError(_Code.INVALID_PARAM, f"[tensordot] duplicate axes are not allowed in tensordot ({ax})")
        lists.append((ax, n))
    return lists


def _tensordot_match(parsed, a_shape, b_shape):
    """Each axis indexes the shape tuple (IndexError beyond it; negative ones from the end) and the
    summed sizes must agree ("shape-mismatch for sum"), as numpy.tensordot checks them."""
    (axes_a, na), (axes_b, nb) = parsed
    equal = na == nb
    if equal:
        for k in range(na):
            if a_shape[axes_a[k]] != b_shape[axes_b[k]]:
                equal = False
                break
            if axes_a[k] < 0:
                axes_a[k] += len(a_shape)
            if axes_b[k] < 0:
                axes_b[k] += len(b_shape)
    if not equal:
        raise _shape_error("tensordot", f"shape-mismatch for sum: axes {axes_a} of {_shape_str(a_shape)} and "
                                        f"{axes_b} of {_shape_str(b_shape)}")
    if len(set(axes_a)) != na or len(set(axes_b)) != nb:  # (-1 and 1 of a matrix: NumPy's transpose)
        raise _ValueError(_Code.INVALID_PARAM, f"[tensordot] repeated axis in transpose (axes {axes_a}, {axes_b})")
    return axes_a, axes_b


def _tensordot_step(fn, *args):
    """``fn(*args)`` with its builtin errors as pyasc's of the same class."""
    try:
        return fn(*args)
    except _errors.AscendError:
        raise
    except (IndexError, TypeError, ValueError, OverflowError, MemoryError) as e:
        cls = _IndexError if isinstance(e, IndexError) else _TypeError if isinstance(e, TypeError) else \
            _OverflowError if isinstance(e, OverflowError) else \
            _errors.AscendMemoryError if isinstance(e, MemoryError) else _ValueError
        raise cls(_Code.INVALID_PARAM, f"[tensordot] axes: {type(e).__name__}: {e}") from None


def tensordot(a, b, /, axes=2):
    """``numpy.tensordot``: sum products over ``axes`` (an int n: the last n of
    ``a`` with the first n of ``b``; or a pair of axis sequences), as one
    matrix product of the transposed and reshaped operands."""
    parsed = _tensordot_step(_tensordot_parse, axes)
    a, b = _arr(a), _arr(b)
    rt = _result_dtype(a, b)
    axes_a, axes_b = _tensordot_step(_tensordot_match, parsed, tuple(a.shape), tuple(b.shape))
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = _math.prod(a.shape[i] for i in axes_a)
    shape_a = [a.shape[i] for i in free_a]
    shape_b = [b.shape[i] for i in free_b]
    at = _C.transpose(a, tuple(free_a + axes_a)).reshape((_math.prod(shape_a), k))
    bt = _C.transpose(b, tuple(axes_b + free_b)).reshape((k, _math.prod(shape_b)))
    r = _C._linalg.matmul(at, bt, None).reshape(tuple(shape_a + shape_b))
    return _with_dtype(r, rt)


def outer(a, b, out=None):
    """``numpy.outer``: ``a.ravel()[:, None] * b.ravel()[None, :]``."""
    a, b = _C.reshape(_arr(a), (-1, 1)), _C.reshape(_arr(b), (1, -1))
    return _to_out(_C.multiply(a, b), out, "outer")


def kron(a, b):
    """``numpy.kron``: the Kronecker product (block ``a[i, j] * b``), as one broadcast multiply."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _C.multiply(a, b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    ia = tuple(x for d in sa for x in (d, 1))
    ib = tuple(x for d in sb for x in (1, d))
    r = _C.multiply(_C.reshape(a, ia), _C.reshape(b, ib))
    return r.reshape(tuple(x * y for x, y in zip(sa, sb)))


def matrix_transpose(x, /):
    """Swaps the last two axes (a view); ``x`` needs at least 2 dimensions."""
    x = _arr(x)
    if x.ndim < 2:
        raise _shape_error("matrix_transpose", f"input array must be at least 2-dimensional, got shape "
                                               f"{_shape_str(x.shape)}")
    return x.mT


def _gufunc_axis(op, axis):
    """A gufunc's ``axis=`` as NumPy's ufunc machinery reads it (after the operands' ndim check):
    a C long from operator.index, a bool refused ("an integer is required")."""
    if isinstance(axis, (bool, _np.bool_)):
        raise _TypeError(_Code.INVALID_DTYPE, f"[{op}] axis: an integer is required (got {axis!r})")
    try:
        v = _operator.index(axis)
    except TypeError:
        raise _TypeError(_Code.INVALID_DTYPE, f"[{op}] axis: '{type(axis).__name__}' object cannot be "
                                              f"interpreted as an integer") from None
    if not -(1 << 63) <= v < (1 << 63):
        raise _OverflowError(_Code.OVERFLOW, f"[{op}] axis: Python int too large to convert to C long")
    if not -(1 << 31) <= v < (1 << 31):  # then a C int: the ufunc machinery's ValueError
        raise _ValueError(_Code.INVALID_PARAM, f"[{op}] axis: integer won't fit into a C int ({v})")
    return v


def _vecdot(x1, x2, axis=-1):
    a0, b0 = _arr(x1), _arr(x2)
    if a0.ndim == 0 or b0.ndim == 0:
        raise _shape_error("vecdot", "operands must have at least one dimension")
    axis = _gufunc_axis("vecdot", axis)
    a = _xp().moveaxis(a0, axis, -1)
    b = _xp().moveaxis(b0, axis, -1)
    if a.shape[-1] != b.shape[-1]:
        raise _shape_error("vecdot", f"vector lengths differ: {a.shape[-1]} in {_shape_str(a0.shape)} and "
                                     f"{b.shape[-1]} in {_shape_str(b0.shape)} (axis {axis})")
    if a.dtype.kind == "c":  # numpy.vecdot conjugates x1
        a = _C.conjugate(a)
    r = _C._linalg.matmul(_C.expand_dims(a, -2), _C.expand_dims(b, -1), None)
    return r[..., 0, 0]


def _vecdot_fast(x1, x2, out=None):
    if out is None:
        return _vecdot(x1, x2)
    return _ufunc.call("vecdot", 2, (x1, x2), {"out": out}, impl=_vecdot, core=True, extra=("axis",))


vecdot = _ufunc.make("vecdot", 2, _vecdot_fast, _vecdot, core=True, extra=("axis",), doc=(
    """``numpy.vecdot``: dot products of vectors along ``axis``, broadcasting the
    other dimensions (one batched matrix product; dtypes as ``matmul``). NumPy's gufunc
    keywords ``out``, ``dtype``, ``casting``, ``order``, ``subok``, ``signature``
    (:mod:`pyasc._ufunc`)."""))


def _c_int_arg(op, what, v):
    """An argument NumPy's method parses as a C int ("i"): an integer (a float is its TypeError),
    beyond a C long "C long", beyond a C int "C int" (both OverflowError) -- checked before the
    array, as NumPy's argument parser runs first."""
    if isinstance(v, (float, _np.floating)):
        raise _TypeError(_Code.INVALID_DTYPE, f"[{op}] {what}: integer argument expected, got float")
    try:
        i = _operator.index(v)
    except TypeError:
        raise _TypeError(_Code.INVALID_DTYPE, f"[{op}] {what}: '{type(v).__name__}' object cannot be "
                                              "interpreted as an integer") from None
    if not -(1 << 31) <= i < (1 << 31):
        width = "C long" if not -(1 << 63) <= i < (1 << 63) else "C int"
        raise _OverflowError(_Code.OVERFLOW, f"[{op}] {what}: Python int too large to convert to {width} ({i})")
    return i


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``numpy.trace``: sums of the diagonals (sum's dtype rules: small ints to int64)."""
    a = _arr(a)  # (NumPy: asanyarray(a).trace(offset, ...): the array first, then the C int offset)
    offset = _c_int_arg("trace", "offset", offset)
    # axis1/axis2 are C ints of the same argument parse ("|iiiO&O&"), read before any shape check
    axis1 = _c_int_arg("trace", "axis1", axis1)
    axis2 = _c_int_arg("trace", "axis2", axis2)
    # then dtype and out (its O& converters), still before the diagonal's shape and axis checks
    from ._signatures import check_dtype, check_out  # noqa: PLC0415

    check_dtype("trace", dtype)
    check_out("trace", out)
    if a.ndim < 2:
        raise _shape_error("trace", f"diag requires an array of at least two dimensions, got shape "
                                    f"{_shape_str(a.shape)}")
    d = _C.diagonal(a, offset, axis1, axis2)
    r = _C.sum(d, axis=-1, dtype=dtype)
    return _to_out(r, out, "trace")


def _method_trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sums along the diagonals (``ndarray.trace``; see :func:`trace`)."""
    return trace(self, offset, axis1, axis2, dtype, out)


_C.ndarray.trace = _method_trace


# ------------------------------------------------------------------ einsum

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sublist_to_str(sub):
    # NumPy makes a list of the sublist's entries first (PySequence_Fast): a huge broadcast view
    # is its MemoryError, found here from the shape without iterating the view
    _check_sequence("einsum", sub, "subscripts")
    try:
        items = list(sub)
    except TypeError:
        raise _TypeError(_Code.INVALID_PARAM, "[einsum] the subscripts for each operand must be a list or a "
                                              f"tuple, not {type(sub).__name__}") from None
    s = ""
    for x in items:
        if x is Ellipsis:
            s += "..."
            continue
        # NumPy reads each subscript as a C intp: a bool (Python's or NumPy's), a non-integer and an
        # integer beyond int64 (uint64 2**63, Python 2**64) are its TypeError; an in-range integer
        # outside [0, 52) its ValueError
        i = None
        if not isinstance(x, (bool, _np.bool_)) and not (getattr(x, "dtype", None) is not None and
                                                         _np.dtype(x.dtype) == _np.bool_):
            try:
                i = _operator.index(x)
            except TypeError:
                pass
        if i is None or not -(1 << 63) <= i < (1 << 63):
            raise _TypeError(_Code.INVALID_PARAM, f"[einsum] each subscript must be either an integer or an "
                                                  f"ellipsis, got {x!r}")
        if not 0 <= i < 52:
            raise _ValueError(_Code.INVALID_PARAM, f"[einsum] subscript {i} is not within the valid range [0, 52)")
        s += _LETTERS[i]
    return s


def _einsum_args(args):
    if not args:
        raise _ValueError(_Code.INVALID_PARAM, "[einsum] no subscripts given")
    if isinstance(args[0], str):
        return args[0], list(args[1:])
    # Interleaved form: op0, sublist0, op1, sublist1, ..., [sublist_out]
    ops, subs = [], []
    rest = list(args)
    while len(rest) >= 2:
        ops.append(rest.pop(0))
        subs.append(_sublist_to_str(rest.pop(0)))
    s = ",".join(subs)
    if rest:
        s += "->" + _sublist_to_str(rest[0])
    return s, ops


def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """``numpy.einsum`` (explicit and implicit output, ellipsis broadcasting,
    repeated labels for diagonals, the interleaved operand/sublist form).
    C++ (``_C._linalg.einsum``): the subscripts are parsed once and cached,
    diagonals are views, labels used by one operand only are summed first, and
    pairs of operands are contracted as batched matmuls (greedy order).
    ``casting`` applies to ``dtype``; ``order`` and ``optimize`` (any value
    NumPy takes) are accepted for compatibility."""
    if dtype is None and out is None and optimize is False and operands and isinstance(operands[0], str):
        return _C._linalg.einsum(operands[0], operands[1:])  # the common case: no Python work
    if optimize is not False:
        # NumPy's einsum hands any other optimize= to einsum_path, which parses the subscripts and
        # checks the path (True/None/a name/('einsum_path', ...)/(name, limit); anything else is
        # its TypeError, an explicit path that leaves operands its RuntimeError) before the dtype
        einsum_path(*operands, optimize=optimize)
    del order, optimize
    subscripts, ops = _einsum_args(operands)
    if dtype is not None:
        ops = [_arr(x) for x in ops]
        for x in ops:
            if not _xp().can_cast(x.dtype, dtype, casting):
                raise _TypeError(_Code.INVALID_DTYPE, f"[einsum] cannot cast operand from {x.dtype} to "
                                                      f"{_np.dtype(dtype)} according to the rule '{casting}'")
        ops = [_C.astype(x, dtype) for x in ops]
    return _to_out(_C._linalg.einsum(subscripts, ops), out, "einsum")


def _shape_dummy(x):
    """A NumPy array with ``x``'s shape and dtype and no memory behind it (stride 0)."""
    a = _arr(x)
    dt = _np.dtype(a.dtype)
    return _np.broadcast_to(_np.zeros((), dt if dt.kind in "biufc" else _np.float32), tuple(a.shape))


def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """The contraction order NumPy's optimizer picks for an ``einsum`` and its cost report
    (``numpy.einsum_path``: ``(path, string)``). Only the operands' shapes matter: NumPy's optimizer
    runs on data-free stand-ins of the same shapes (pyasc's own ``einsum`` chooses its pairs greedily
    in C++ whatever the path). ``einsum_call=True`` (NumPy-internal) is not supported."""
    # NumPy's own Python parser reads the subscripts (its errors and letters: a sublist entry that
    # is no integer is its TypeError, one beyond its 52 symbols an IndexError), on data-free
    # stand-ins of the operands -- after its check of the path (no operands with a bad path: the
    # path's TypeError, else its "No input operands" ValueError)
    if operands and isinstance(operands[0], str):
        args = [operands[0]] + [_shape_dummy(x) for x in operands[1:]]
    else:
        n = len(operands) // 2 * 2
        args = [(_shape_dummy(x) if i % 2 == 0 else _host_sublist(x)) if i < n else _host_sublist(x)
                for i, x in enumerate(operands)]
    try:
        res = _np.einsum_path(*args, optimize=optimize)
    except (IndexError, TypeError, ValueError, KeyError, RuntimeError) as e:
        # NumPy's parser's and path checks' errors (an unknown path name: KeyError, a path that leaves
        # operands: RuntimeError), as pyasc's of the same class
        cls = _IndexError if isinstance(e, IndexError) else _TypeError if isinstance(e, TypeError) else \
            _errors.AscendKeyError if isinstance(e, KeyError) else \
            _errors.AscendRuntimeError if isinstance(e, RuntimeError) else _ValueError
        raise cls(_Code.INVALID_PARAM, f"[einsum_path] {' '.join(str(a) for a in e.args)}") from None
    if einsum_call:  # (NumPy reads it last, after the parse)
        raise _TypeError(_Code.INVALID_PARAM,
                         "[einsum_path] einsum_call=True is NumPy-internal, not supported by pyasc")
    return res


def _host_sublist(sub):
    """A sublist as NumPy iterates it (a pyasc array: its NumPy view)."""
    return sub.numpy() if isinstance(sub, _C.ndarray) else sub


__all__ = ["matmul", "dot", "vdot", "inner", "tensordot", "outer", "kron", "einsum", "matrix_transpose", "vecdot",
           "trace", "einsum_path"]


def _install_matmul_operators():
    """``x @ 5`` / ``5 @ x``: a Python scalar operand takes the ufunc path, as NumPy's operator
    does (the scalar is converted to the loop dtype first -- -1 with uint16: OverflowError --,
    then the core dimensions are checked); array operands keep the C++ operators."""
    nd = _C.ndarray
    c_matmul, c_rmatmul = nd.__matmul__, nd.__rmatmul__

    def _object_operand(other, i):
        # NumPy makes None a 0-d object array: its object loop exists, so the core-dimension check
        # fails first (ValueError), not the operator's TypeError
        if other is None:
            raise _ValueError(_Code.INVALID_PARAM, f"[matmul] matmul: Input operand {i} does not have enough "
                                                   "dimensions (has 0, gufunc core with signature "
                                                   "(n?,k),(k,m?)->(n?,m?) requires 1) (None is a 0-d object)")

    def __matmul__(self, other):  # noqa: N807 - the operator's name
        if _ufunc._is_weak(other):
            return matmul(self, other)
        _object_operand(other, 1)
        return c_matmul(self, other)

    def __rmatmul__(self, other):  # noqa: N807
        if _ufunc._is_weak(other):
            return matmul(other, self)
        _object_operand(other, 0)
        return c_rmatmul(self, other)

    nd.__matmul__, nd.__rmatmul__ = __matmul__, __rmatmul__


_install_matmul_operators()
