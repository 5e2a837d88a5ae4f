"""More of NumPy's namespace, built from pyasc's device ops (issue 3).

Index helpers (``triu_indices``, ``unravel_index``, ``ix_``, ...), selection
(``select``, ``piecewise``, ``choose``), rearranging (``rot90``, ``fliplr``,
``resize``, ``insert``, ``delete``, ``append``, ``block``, ``trim_zeros``),
set operations (``setdiff1d``, ``union1d``, ``intersect1d``, ``setxor1d``),
creation (``logspace``, ``geomspace``, ``fromfunction``, ``frombuffer``,
``fromiter``), bit packing, functional helpers (``apply_along_axis``,
``vectorize``, ...), NumPy's print options, floating-point error state and
file formats (``save``/``load``/``savez``/``loadtxt``/``savetxt``/``genfromtxt``).

Data stays on the device where the result depends on it; results computed from
shapes or scalars only (``logspace``, ``geomspace``) are computed as NumPy does
and copied, like ``arange``. Printing goes through NumPy (an ndarray's repr is
NumPy's repr of a zero-copy view), so the print options are NumPy's own.
pyasc's device ops never warn or raise on floating-point errors (``1/0`` gives
``inf`` silently); ``seterr``/``geterr``/``errstate`` keep pyasc's own state
for API compatibility and change nothing else.
"""

from __future__ import annotations

import builtins as _builtins
import contextlib as _contextlib
import contextvars as _contextvars
import functools as _functools
import operator as _operator
import warnings as _warnings

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from . import _sorting as _srt
from . import errors as _errors

__all__ = [
    "select", "piecewise", "choose", "rot90", "fliplr", "flipud",
    "triu_indices", "tril_indices", "triu_indices_from", "tril_indices_from", "indices", "ix_",
    "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from", "fill_diagonal",
    "shape", "size", "ndim", "resize", "append", "insert", "delete", "trim_zeros",
    "setdiff1d", "union1d", "intersect1d", "setxor1d", "block", "row_stack",
    "logspace", "geomspace", "fromfunction", "frombuffer", "fromiter", "copyto",
    "shares_memory", "may_share_memory", "asarray_chkfinite", "packbits", "unpackbits",
    "apply_along_axis", "apply_over_axes", "vectorize", "ndindex", "ndenumerate",
    "errstate", "seterr", "geterr",
    "printoptions", "set_printoptions", "get_printoptions", "array2string", "array_repr", "array_str",
    "save", "load", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
]

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


# ------------------------------------------------------------------ selection


def select(condlist, choicelist, default=0):
    """``choicelist[i]`` where ``condlist[i]`` is first true, else ``default`` (``numpy.select``)."""
    if len(condlist) != len(choicelist):
        raise _VE(f"[select] list of cases must be same length as list of conditions "
                  f"({len(choicelist)} vs {len(condlist)})")
    if len(condlist) == 0:
        raise _VE("[select] select with an empty condition list is not possible")
    conds = [_arr(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != _np.bool_:
            raise _TE(f"[select] invalid entry {i} in condlist: should be boolean ndarray, got {c.dtype}")
    scalar = (bool, int, float, complex)
    choices = [c if isinstance(c, scalar) else _arr(c) for c in choicelist]
    dflt = default if isinstance(default, scalar) else _arr(default)
    dtype = _np.result_type(*[_dt_or_scalar(c) for c in choicelist], _dt_or_scalar(default))
    shp = _bshape("select", *[c.shape for c in conds],
                  *[c.shape for c in choices + [dflt] if isinstance(c, _C.ndarray)])
    out = _C.full(shp, dflt, dtype) if isinstance(dflt, scalar) else _C.broadcast_to(dflt.astype(dtype), shp)
    for c, v in zip(reversed(conds), reversed(choices)):
        v = v.astype(dtype) if isinstance(v, _C.ndarray) else _C.full((), v, dtype)
        out = _C.where(c, v, out)
    return _C.broadcast_to(out, shp).copy() if out.shape != shp else out


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluates ``funclist[i]`` (or the constant) where ``condlist[i]`` holds (``numpy.piecewise``)."""
    x = _arr(x)
    n2 = len(funclist)
    # NumPy's test, quirks included (a 0-d array condlist is indexed: IndexError)
    if _np.isscalar(condlist) or (not isinstance(condlist[0], (list, _np.ndarray, _C.ndarray)) and x.ndim != 0):
        condlist = [condlist]
    conds = [_C.asarray(c).astype(_np.bool_) for c in condlist]
    n = len(conds)
    if n == n2 - 1:
        anyc = conds[0]
        for c in conds[1:]:
            anyc = _C.logical_or(anyc, c)
        conds.append(_C.logical_not(anyc))
        n += 1
    elif n != n2:
        raise _VE(f"[piecewise] with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = _C.full(x.shape, 0, x.dtype)
    for cond, func in zip(conds, funclist):
        cond = _C.broadcast_to(cond, x.shape) if cond.shape != x.shape else cond
        if not callable(func):
            y = _C.where(cond, _C.full((), func, x.dtype) if not isinstance(func, _C.ndarray)
                         else _arr(func).astype(x.dtype), y)
        else:
            vals = x[cond]
            if vals.size > 0:
                y[cond] = _arr(func(vals, *args, **kw)).astype(x.dtype)
    return y


def choose(a, choices, out=None, mode="raise"):
    """Builds an array from ``choices`` indexed by the integers of ``a`` (``numpy.choose``)."""
    a = _arr(a)
    if a.dtype.kind not in "iub":
        raise _TE(f"[choose] index array must be integer, got {a.dtype}")
    choices = [c if isinstance(c, _C.ndarray) else _C.array(_np.asarray(c)) for c in choices]
    n = len(choices)
    if n == 0:
        raise _VE("[choose] choices must be a non-empty sequence")
    if mode not in ("raise", "wrap", "clip"):
        raise _VE(f"[choose] clipmode must be one of 'clip', 'raise', or 'wrap', got {mode!r}")
    dtype = _np.result_type(*[c.dtype for c in choices])
    shp = _bshape("choose", a.shape, *[c.shape for c in choices])
    a = a.astype(_np.int64)
    if mode == "raise":
        if a.size and (int(_C.min(a)) < 0 or int(_C.max(a)) >= n):
            raise _VE(f"[choose] invalid entry in choice array: indices must lie in [0, {n})")
    elif mode == "wrap":
        a = _C.remainder(a, n)
    else:
        a = _ns.clip(a, 0, n - 1)
    res = _C.full(shp, 0, dtype)
    for i, c in enumerate(choices):
        res = _C.where(_C.equal(a, i), c.astype(dtype), res)
    res = _C.broadcast_to(res, shp).copy() if res.shape != shp else res
    if out is not None:
        out[...] = res
        return out
    return res


# ------------------------------------------------------------------ flips and rotations


def rot90(m, k=1, axes=(0, 1)):
    """Rotates by 90 degrees ``k`` times in the plane of ``axes`` (a view, ``numpy.rot90``)."""
    m = _arr(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise _VE(f"[rot90] len(axes) must be 2, got axes={axes}")
    if axes[0] == axes[1] or _builtins.abs(axes[0] - axes[1]) == m.ndim:
        raise _VE(f"[rot90] Axes must be different, got axes={axes} for ndim={m.ndim}")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise _VE(f"[rot90] Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return _ns.flip(_ns.flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return _C.transpose(_ns.flip(m, axes[1]), perm)
    return _ns.flip(_C.transpose(m, perm), axes[1])


def fliplr(m):
    """Reverses the columns (axis 1), a view (``numpy.fliplr``)."""
    m = _arr(m)
    if m.ndim < 2:
        raise _VE(f"[fliplr] Input must be >= 2-d, got shape {m.shape}.")
    return _ns.flip(m, 1)


def flipud(m):
    """Reverses the rows (axis 0), a view (``numpy.flipud``)."""
    m = _arr(m)
    if m.ndim < 1:
        raise _VE("[flipud] Input must be >= 1-d.")
    return _ns.flip(m, 0)


# ------------------------------------------------------------------ index helpers


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle of an ``(n, m)`` array (``numpy.tril_indices``)."""
    return tuple(_srt.nonzero(_ns.tri(n, m, k, dtype=_np.bool_)))


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle of an ``(n, m)`` array (``numpy.triu_indices``)."""
    return tuple(_srt.nonzero(_C.logical_not(_ns.tri(n, m, k - 1, dtype=_np.bool_))))


def _check_2d(arr, name):
    arr = _arr(arr)
    if arr.ndim != 2:
        raise _VE(f"[{name}] input array must be 2-d, got shape {arr.shape}")
    return arr


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-d ``arr`` (``numpy.tril_indices_from``)."""
    arr = _check_2d(arr, "tril_indices_from")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-d ``arr`` (``numpy.triu_indices_from``)."""
    arr = _check_2d(arr, "triu_indices_from")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def indices(dimensions, dtype=int, sparse=False):
    """An index grid: ``res[i][...] = index along axis i`` (``numpy.indices``)."""
    dimensions = tuple(dimensions)
    nd = len(dimensions)
    parts = []
    for i, d in enumerate(dimensions):
        idx = _C.array(_np.arange(d, dtype=dtype)).reshape((1,) * i + (d,) + (1,) * (nd - i - 1))
        parts.append(idx if sparse else _C.broadcast_to(idx, dimensions))
    if sparse:
        return tuple(parts)
    if nd == 0:
        return _C.empty((0,), dtype)
    return _man.stack(parts)


def ix_(*args):
    """Open-mesh index arrays for cross indexing, ``a[ix_(rows, cols)]`` (``numpy.ix_``)."""
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, _C.ndarray):
            h = _np.asarray(new)
            if h.size == 0:
                h = h.astype(_np.intp)
            new = _C.array(h)
        if new.ndim != 1:
            raise _VE(f"[ix_] Cross index must be 1 dimensional, got shape {new.shape}")
        if new.dtype == _np.bool_:
            new = _srt.nonzero(new)[0]
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


def _int_index_array(x, name):
    x = _arr(x)
    if x.dtype.kind not in "iu":
        if x.size == 0 and not x.dtype.kind == "b":
            return x.astype(_np.int64)
        raise _TE(f"[{name}] only int indices permitted, got {x.dtype}")
    return x.astype(_np.int64)


def _check_dims(dims, name):
    dims = (dims,) if _np.ndim(dims) == 0 else tuple(dims)
    dims = tuple(_operator.index(d) for d in dims)
    if _builtins.any(d < 0 for d in dims):
        raise _VE(f"[{name}] dimensions must be non-negative, got {dims}")
    return dims


def unravel_index(indices, shape, order="C"):
    """Flat indices to a tuple of coordinate arrays for ``shape`` (``numpy.unravel_index``)."""
    if order not in ("C", "F"):
        raise _VE(f"[unravel_index] only 'C' or 'F' order is permitted, got {order!r}")
    shape = _check_dims(shape, "unravel_index")
    idx = _int_index_array(indices, "unravel_index")
    total = int(_np.prod(shape, dtype=_np.int64))
    if idx.size and (int(_C.min(idx)) < 0 or int(_C.max(idx)) >= total):
        bad = int(_C.min(idx)) if int(_C.min(idx)) < 0 else int(_C.max(idx))
        raise _VE(f"[unravel_index] index {bad} is out of bounds for array with size {total}")
    out = [None] * len(shape)
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    rest = idx
    for d in dims:
        n = shape[d]
        out[d] = _C.remainder(rest, n)
        rest = _C.floor_divide(rest, n)
    return tuple(o.astype(_INTP) for o in out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Coordinate arrays to flat indices for ``dims`` (``numpy.ravel_multi_index``)."""
    if order not in ("C", "F"):
        raise _VE(f"[ravel_multi_index] only 'C' or 'F' order is permitted, got {order!r}")
    dims = _check_dims(dims, "ravel_multi_index")
    if len(multi_index) != len(dims):
        raise _VE(f"[ravel_multi_index] parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise _VE(f"[ravel_multi_index] mode must have length {len(dims)}")
    total = 1
    for d in dims:
        total *= d
    if total > _np.iinfo(_np.intp).max:
        raise _VE("[ravel_multi_index] invalid dims: array size defined by dims is larger than the "
                         "maximum possible size.")
    coords = [_int_index_array(m, "ravel_multi_index") for m in multi_index]
    shp = _bshape("ravel_multi_index", *[c.shape for c in coords]) if coords else ()
    strides = [1] * len(dims)
    order_dims = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for i in order_dims:
        j = i + 1 if order == "C" else i - 1
        strides[i] = strides[j] * dims[j]
    res = _C.full(shp, 0, _np.int64)
    for c, n, md, s in zip(coords, dims, modes, strides):
        if md == "raise":
            if c.size and (int(_C.min(c)) < 0 or int(_C.max(c)) >= n):
                raise _VE(f"[ravel_multi_index] invalid entry in coordinates array (dimension size {n})")
        elif md == "wrap":
            c = _C.remainder(c, n) if n else c
        elif md == "clip":
            c = _ns.clip(c, 0, _builtins.max(n - 1, 0))
        else:
            raise _VE(f"[ravel_multi_index] clipmode must be one of 'clip', 'raise', or 'wrap', got {md!r}")
        res = _C.add(res, _C.multiply(c, s))
    return res.astype(_INTP)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n``-cube of ``ndim`` dims (``numpy.diag_indices``)."""
    idx = _C.array(_np.arange(n))
    return (idx,) * ndim


def diag_indices_from(arr):
    """``diag_indices`` for an array whose dims are all equal (``numpy.diag_indices_from``)."""
    arr = _arr(arr)
    if arr.ndim < 2:
        raise _VE(f"[diag_indices_from] input array must be at least 2-d, got shape {arr.shape}")
    if len(set(arr.shape)) != 1:
        raise _VE(f"[diag_indices_from] All dimensions of input must be of equal length, got {arr.shape}")
    return diag_indices(arr.shape[0], arr.ndim)


def fill_diagonal(a, val, wrap=False):
    """Writes ``val`` (cycled) onto the main diagonal of ``a`` in place (``numpy.fill_diagonal``)."""
    if not isinstance(a, _C.ndarray):
        raise _TE("[fill_diagonal] a must be a pyasc ndarray (it is modified in place)")
    if a.ndim < 2:
        raise _VE(f"[fill_diagonal] array must be at least 2-d, got shape {a.shape}")
    if a.ndim == 2:
        nrow, ncol = a.shape
        end = nrow * ncol if wrap else _builtins.min(ncol * ncol, nrow * ncol)
        p = _np.arange(0, end, ncol + 1)
        idx = (_C.array(p // ncol), _C.array(p % ncol)) if ncol else (_C.array(p), _C.array(p))
    else:
        if len(set(a.shape)) != 1:
            raise _VE(f"[fill_diagonal] All dimensions of input must be of equal length, got {a.shape}")
        idx = diag_indices(a.shape[0], a.ndim)
    count = idx[0].size
    if count == 0:
        return None
    # a.flat[...] = val in NumPy: an unsafe cast, values cycled
    v = val.astype(a.dtype) if isinstance(val, _C.ndarray) else _C.array(_np.asarray(val).astype(a.dtype))
    a[idx] = resize(v, (count,))
    return None


# ------------------------------------------------------------------ metadata


def shape(a):
    """The shape of ``a`` (``numpy.shape``)."""
    return a.shape if isinstance(a, _C.ndarray) else _np.shape(a)


def size(a, axis=None):
    """The number of elements of ``a``, or along ``axis`` (``numpy.size``)."""
    if not isinstance(a, _C.ndarray):
        return _np.size(a, axis)
    if axis is None:
        return a.size
    if isinstance(axis, tuple):
        out = 1
        for ax in set(_axis(x, a.ndim) for x in axis):
            out *= a.shape[ax]
        return out
    return a.shape[_axis(axis, a.ndim)]


def ndim(a):
    """The number of dimensions of ``a`` (``numpy.ndim``)."""
    return a.ndim if isinstance(a, _C.ndarray) else _np.ndim(a)


# ------------------------------------------------------------------ resizing, insert/delete


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with ``a``'s elements repeated (``numpy.resize``)."""
    a = _arr(a)
    if isinstance(new_shape, (int, _np.integer)):
        new_shape = (new_shape,)
    new_shape = tuple(_operator.index(d) for d in new_shape)
    if _builtins.any(d < 0 for d in new_shape):
        raise _VE(f"[resize] all elements of `new_shape` must be non-negative, got {new_shape}")
    a = _ns.ravel(a)
    new_size = 1
    for d in new_shape:
        new_size *= d
    if a.size == 0 or new_size == 0:
        return _C.full(new_shape, 0, a.dtype)
    repeats = -(-new_size // a.size)
    if repeats > 1:
        a = _man.concatenate((a,) * repeats)
    return a[:new_size].reshape(new_shape)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (flattened when ``axis`` is None) (``numpy.append``)."""
    arr = _arr(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = _ns.ravel(arr)
        values = _ns.ravel(_arr(values))
        axis = arr.ndim - 1
    return _man.concatenate((arr, values), axis=axis)


def _norm_axis_for(arr, axis):
    if axis is None:
        if arr.ndim != 1:
            arr = _ns.ravel(arr)
        return arr, arr.ndim - 1
    return arr, _axis(axis, arr.ndim)


def delete(arr, obj, axis=None):
    """``arr`` without the sub-arrays ``obj`` along ``axis`` (``numpy.delete``)."""
    arr, axis = _norm_axis_for(_arr(arr), axis)
    ndim = arr.ndim
    n = arr.shape[axis]
    slobj = [slice(None)] * ndim
    if isinstance(obj, slice):
        keep = _np.ones(n, dtype=bool)
        keep[obj] = False
        slobj[axis] = _C.array(_np.flatnonzero(keep))
        return arr[tuple(slobj)] if n else arr.copy()
    if isinstance(obj, (int, _np.integer)) and not isinstance(obj, (bool, _np.bool_)):
        idx = int(obj)
        if idx < -n or idx >= n:
            raise _IE(f"[delete] index {idx} is out of bounds for axis {axis} with size {n}")
        idx %= n
        left = [slice(None)] * ndim
        right = [slice(None)] * ndim
        left[axis] = slice(None, idx)
        right[axis] = slice(idx + 1, None)
        return _man.concatenate((arr[tuple(left)], arr[tuple(right)]), axis=axis)
    o = obj if isinstance(obj, _C.ndarray) else _C.array(_np.asarray(obj))
    if o.size == 0 and not isinstance(obj, (_C.ndarray, _np.ndarray)):
        o = o.astype(_np.int64)
    if o.dtype == _np.bool_:
        if o.shape != (n,):
            raise _VE("[delete] boolean array argument obj to delete must be one dimensional and match "
                             f"the axis length of {n}, got shape {o.shape}")
        keep = _C.logical_not(o)
    else:
        if o.dtype.kind not in "iu":
            raise _IE(f"[delete] arrays used as indices must be of integer (or boolean) type, got {o.dtype}")
        o = _ns.ravel(o)
        if o.size and (int(_C.min(o)) < -n or int(_C.max(o)) >= n):
            bad = int(_C.min(o)) if int(_C.min(o)) < -n else int(_C.max(o))
            raise _IE(f"[delete] index {bad} is out of bounds for axis {axis} with size {n}")
        keep = _C.full((n,), True, _np.bool_)
        if o.size:
            keep[o] = False
    slobj[axis] = keep
    return arr[tuple(slobj)]


def _values_as(values, dtype):
    if isinstance(values, _C.ndarray):
        return values.astype(dtype)
    return _C.array(_np.array(values, dtype=dtype))


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the indices ``obj`` along ``axis`` (``numpy.insert``)."""
    arr, axis = _norm_axis_for(_arr(arr), axis)
    ndim = arr.ndim
    n = arr.shape[axis]
    newshape = list(arr.shape)
    slobj = [slice(None)] * ndim
    if isinstance(obj, slice):
        ind = _np.arange(*obj.indices(n), dtype=_np.intp)
    else:
        ind = _np.array(_host(obj))
        if ind.dtype == bool:
            if ind.ndim != 1:
                raise _VE("[insert] boolean array argument obj to insert must be one dimensional")
            ind = _np.flatnonzero(ind)
        elif ind.ndim > 1:
            raise _VE("[insert] index array argument obj to insert must be one dimensional or scalar")
    if ind.size == 1:
        index = ind.item()
        if not isinstance(index, (int, _np.integer)):
            raise _IE(f"[insert] index {index!r} must be an integer")
        if index < -n or index > n:
            raise _IE(f"[insert] index {index} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        v = _values_as(values, arr.dtype)
        if v.ndim < ndim:
            v = v.reshape((1,) * (ndim - v.ndim) + v.shape)
        if ind.ndim == 0:
            v = _ns.moveaxis(v, 0, axis)
        numnew = v.shape[axis]
        newshape[axis] += numnew
        new = _C.empty(tuple(newshape), arr.dtype)
        slobj[axis] = slice(None, index)
        new[tuple(slobj)] = arr[tuple(slobj)]
        slobj[axis] = slice(index, index + numnew)
        new[tuple(slobj)] = v
        slobj[axis] = slice(index + numnew, None)
        slobj2 = [slice(None)] * ndim
        slobj2[axis] = slice(index, None)
        new[tuple(slobj)] = arr[tuple(slobj2)]
        return new
    if ind.size == 0 and not isinstance(obj, (_np.ndarray, _C.ndarray)):
        ind = ind.astype(_np.intp)
    if ind.dtype.kind not in "iu":
        raise _IE(f"[insert] index arrays must be of integer type, got {ind.dtype}")
    if ind.size and (ind.min() < -n or ind.max() > n):
        bad = ind.min() if ind.min() < -n else ind.max()
        raise _IE(f"[insert] index {bad} is out of bounds for axis {axis} with size {n}")
    ind = ind.astype(_np.intp)
    ind[ind < 0] += n
    numnew = len(ind)
    order = ind.argsort(kind="mergesort")
    ind[order] += _np.arange(numnew)
    newshape[axis] += numnew
    old_mask = _np.ones(newshape[axis], dtype=bool)
    old_mask[ind] = False
    new = _C.empty(tuple(newshape), arr.dtype)
    slobj2 = [slice(None)] * ndim
    slobj[axis] = _C.array(ind)
    slobj2[axis] = _C.array(_np.flatnonzero(old_mask))
    if numnew:
        new[tuple(slobj)] = _values_as(values, arr.dtype)
    if n:
        new[tuple(slobj2)] = arr
    return new


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading/trailing zeros (all axes, or ``axis``) (``numpy.trim_zeros``)."""
    f = _arr(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise _VE(f"[trim_zeros] unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axes = tuple(range(f.ndim))
    else:
        axes = tuple(_axis(a, f.ndim) for a in ((axis,) if _np.ndim(axis) == 0 else axis))
        if len(set(axes)) != len(axes):
            raise _VE("[trim_zeros] repeated axis in `axis` argument")
    if not axes:
        return filt
    nz = _srt.argwhere(f)
    if nz.shape[0] == 0:
        start = stop = [0] * f.ndim
    else:
        start = [int(v) for v in _np.asarray(_C.min(nz, axis=0))]
        stop = [int(v) + 1 for v in _np.asarray(_C.max(nz, axis=0))]
        if "f" not in trim:
            start = [None] * f.ndim
        if "b" not in trim:
            stop = [None] * f.ndim
    sl = tuple(slice(start[ax], stop[ax]) if ax in axes else slice(None) for ax in range(f.ndim))
    return f[sl]


# ------------------------------------------------------------------ set operations


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (``numpy.setdiff1d``)."""
    ar1 = _ns.ravel(_arr(ar1)) if assume_unique else _srt.unique(ar1)
    return ar1[_srt.isin(ar1, ar2, assume_unique=True, invert=True)]


def union1d(ar1, ar2):
    """The sorted unique values in either array (``numpy.union1d``)."""
    return _srt.unique(_man.concatenate((_ns.ravel(_arr(ar1)), _ns.ravel(_arr(ar2)))))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values in both arrays (and their first indices) (``numpy.intersect1d``)."""
    ar1 = _arr(ar1)
    ar2 = _arr(ar2)
    if not assume_unique:
        if return_indices:
            ar1, ind1 = _srt.unique(ar1, return_index=True)
            ar2, ind2 = _srt.unique(ar2, return_index=True)
        else:
            ar1 = _srt.unique(ar1)
            ar2 = _srt.unique(ar2)
    else:
        ar1 = _ns.ravel(ar1)
        ar2 = _ns.ravel(ar2)
    aux = _man.concatenate((ar1, ar2))
    if return_indices:
        order = _srt.argsort(aux, kind="stable")
        aux = aux[order]
    else:
        aux = _srt.sort(aux)
    mask = _C.equal(aux[1:], aux[:-1])
    int1d = aux[:-1][mask]
    if not return_indices:
        return int1d
    n1 = ar1.size
    ar1_idx = order[:-1][mask]
    ar2_idx = _C.subtract(order[1:][mask], n1)
    if not assume_unique:
        ar1_idx = ind1[ar1_idx]
        ar2_idx = ind2[ar2_idx]
    return int1d, ar1_idx.astype(_INTP), ar2_idx.astype(_INTP)


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the arrays (``numpy.setxor1d``)."""
    if not assume_unique:
        ar1 = _srt.unique(ar1)
        ar2 = _srt.unique(ar2)
    aux = _srt.sort(_man.concatenate((_ns.ravel(_arr(ar1)), _ns.ravel(_arr(ar2)))))
    if aux.size == 0:
        return aux
    edge = _C.full((1,), True, _np.bool_)
    flag = _man.concatenate((edge, _C.not_equal(aux[1:], aux[:-1]), edge))
    return aux[_C.logical_and(flag[1:], flag[:-1])]


# ------------------------------------------------------------------ block / row_stack


def _block_depth(arrays, index=()):
    if isinstance(arrays, tuple):
        raise _TE(f"[block] arrays{''.join(f'[{i}]' for i in index)} is a tuple. Only lists can be used "
                        "to arrange blocks, and np.block does not allow implicit conversion from tuple to ndarray.")
    if isinstance(arrays, list):
        if len(arrays) == 0:
            raise _VE(f"[block] List at arrays{''.join(f'[{i}]' for i in index)} cannot be empty")
        depths = [_block_depth(a, index + (i,)) for i, a in enumerate(arrays)]
        first = depths[0]
        for i, d in enumerate(depths):
            if d[0] != first[0]:
                raise _VE(f"[block] List depths are mismatched. First element was at depth {first[0]}, "
                                 f"but there is an element at depth {d[0]} (arrays{''.join(f'[{j}]' for j in d[1])})")
        return first[0] + 1, first[1], _builtins.max(d[2] for d in depths)
    a = _arr(arrays)
    return 0, index, a.ndim


def block(arrays):
    """Assembles an array from nested lists of blocks (``numpy.block``)."""
    depth, _, max_arr_ndim = _block_depth(arrays)
    result_ndim = _builtins.max(depth, max_arr_ndim)

    def rec(x, d):
        if d == depth:
            a = _arr(x)
            return a.reshape((1,) * (result_ndim - a.ndim) + a.shape) if a.ndim < result_ndim else a
        parts = [rec(y, d + 1) for y in x]
        return _man.concatenate(parts, axis=-(depth - d))

    res = rec(arrays, 0)
    return res.copy() if depth == 0 else res


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """Deprecated alias of ``vstack`` (NumPy 2 warns the same way) (``numpy.row_stack``)."""
    _warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning, stacklevel=2)
    return _man.vstack(tup, dtype=dtype, casting=casting)


# ------------------------------------------------------------------ creation


def _host_creation(fn, *args, dtype=None, **kw):
    hargs = [_host(a) for a in args]
    hkw = {k: _host(v) for k, v in kw.items()}
    return _C.array(_np.asarray(fn(*hargs, dtype=dtype, **hkw)))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop)`` (values computed as NumPy does, then copied) (``numpy.logspace``)."""
    return _host_creation(_np.logspace, start, stop, num=num, endpoint=endpoint, base=base, dtype=dtype, axis=axis)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """A geometric progression from ``start`` to ``stop`` (computed as NumPy does, then copied)
    (``numpy.geomspace``)."""
    return _host_creation(_np.geomspace, start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*indices(shape, dtype))``, the index grids on the device (``numpy.fromfunction``)."""
    if like is not None:
        raise _TE("[fromfunction] like= is not supported by pyasc")
    return function(*indices(shape, dtype=dtype), **kwargs)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """A 1-d array copied from the bytes of ``buffer`` (``numpy.frombuffer``)."""
    if like is not None:
        raise _TE("[frombuffer] like= is not supported by pyasc")
    return _C.array(_np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002 - NumPy's parameter name
    """A 1-d array from the values of an iterable (``numpy.fromiter``)."""
    if like is not None:
        raise _TE("[fromiter] like= is not supported by pyasc")
    return _C.array(_np.fromiter(iter, dtype=dtype, count=count))


def copyto(dst, src, casting="same_kind", where=True):
    """Copies ``src`` (broadcast) into ``dst`` where ``where`` holds, checking ``casting``
    (``numpy.copyto``)."""
    if not isinstance(dst, _C.ndarray):
        raise _TE(f"[copyto] argument dst must be a pyasc ndarray, not {type(dst).__name__}")
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise _VE(f"[copyto] casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', "
                         f"got {casting!r}")
    if isinstance(src, (bool, int, float, complex)) and not isinstance(src, _np.generic):
        sdt = _np.result_type(src)  # the default dtype of the Python scalar's kind
        kinds = "b iu f c".split()
        srank = [i for i, k in enumerate(kinds) if sdt.kind in k][0]
        drank = [i for i, k in enumerate(kinds) if dst.dtype.kind in k or
                 (k == "f" and dst.dtype.kind == "V")][0]
        if casting != "unsafe" and srank > drank:
            raise _TE(f"[copyto] Cannot cast scalar from {sdt!r} to {dst.dtype!r} according to the rule "
                            f"{casting!r}")
        if isinstance(src, int) and not isinstance(src, bool) and dst.dtype.kind in "iu":
            info = _np.iinfo(dst.dtype)
            if not info.min <= src <= info.max:
                raise _OE(f"[copyto] Python integer {src} out of bounds for {dst.dtype}")
        s = _C.full((), src, dst.dtype)
    else:
        s = src if isinstance(src, _C.ndarray) else _C.array(_np.asarray(src))
        if not _np.can_cast(s.dtype, dst.dtype, casting):
            raise _TE(f"[copyto] Cannot cast array data from {s.dtype!r} to {dst.dtype!r} according to the "
                            f"rule {casting!r}")
        s = s.astype(dst.dtype)
    if _bshape("copyto", s.shape, dst.shape) != dst.shape:
        raise _VE(f"[copyto] could not broadcast input array from shape {s.shape} into shape {dst.shape}")
    if where is True:
        dst[...] = s
        return None
    w = where if isinstance(where, _C.ndarray) else _C.array(_np.asarray(where))
    if w.dtype != _np.bool_:
        raise _TE(f"[copyto] where must be boolean, got {w.dtype}")
    if _bshape("copyto", w.shape, dst.shape) != dst.shape:
        raise _VE(f"[copyto] could not broadcast where mask from shape {w.shape} into shape {dst.shape}")
    dst[...] = _C.where(w, s, dst)
    return None


def shares_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` overlap in memory (exact) (``numpy.shares_memory``)."""
    return _np.shares_memory(_host(a), _host(b), max_work=max_work)


def may_share_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` might overlap (memory bounds) (``numpy.may_share_memory``)."""
    return _np.may_share_memory(_host(a), _host(b), max_work=max_work)


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray`` that raises ValueError on NaN or Inf (``numpy.asarray_chkfinite``)."""
    a = _C.asarray(a) if dtype is None else _C.asarray(a).astype(dtype)
    if a.dtype.kind in "fc" or a.dtype.kind == "V":
        if not bool(_C.all(_C.isfinite(a))):
            raise _VE("[asarray_chkfinite] array must not contain infs or NaNs")
    return a


# ------------------------------------------------------------------ bits


def _check_bitorder(bitorder, name):
    if bitorder not in ("big", "little"):
        raise _VE(f"[{name}] 'order' must be either 'little' or 'big', got {bitorder!r}")


def _bits_axis(a, axis):
    """packbits/unpackbits: axis=None works on the flattened array."""
    return (_ns.ravel(a), 0) if axis is None else (a, _axis(axis, a.ndim))


def packbits(a, /, axis=None, bitorder="big"):
    """Packs the truth of the elements into the bits of a uint8 array (``numpy.packbits``)."""
    a = _arr(a)
    _check_bitorder(bitorder, "packbits")
    if a.dtype.kind not in "biu":
        raise _TE(f"[packbits] Expected an input array of integer or boolean data type, got {a.dtype}")
    a, axis = _bits_axis(a, axis)
    b = _ns.moveaxis(_C.not_equal(a, 0).astype(_np.uint8), axis, -1)
    n = b.shape[-1]
    m = -(-n // 8)
    if m * 8 != n:
        b = _man.concatenate((b, _C.full(b.shape[:-1] + (m * 8 - n,), 0, _np.uint8)), axis=-1)
    w = _np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=_np.uint8)
    w = _C.array(w if bitorder == "big" else w[::-1].copy())
    packed = _C.sum(_C.multiply(b.reshape(b.shape[:-1] + (m, 8)), w), axis=-1, dtype=_np.uint8)
    return _ns.moveaxis(packed, -1, axis).copy()


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Unpacks the bits of a uint8 array into 0/1 uint8 elements (``numpy.unpackbits``)."""
    a = _arr(a)
    _check_bitorder(bitorder, "unpackbits")
    if a.dtype != _np.uint8:
        raise _TE(f"[unpackbits] Expected an input array of unsigned byte data type, got {a.dtype}")
    a, axis = _bits_axis(a, axis)
    x = _ns.moveaxis(a, axis, -1)
    shifts = _np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=_np.uint8)
    d = _C.array(shifts if bitorder == "big" else shifts[::-1].copy())
    bits = _C.remainder(_C.floor_divide(x.reshape(x.shape + (1,)), d), 2).astype(_np.uint8)
    bits = bits.reshape(x.shape[:-1] + (x.shape[-1] * 8,))
    nbits = bits.shape[-1]
    if count is not None:
        count = _operator.index(count)
        if count < 0:
            if -count > nbits:
                raise _VE(f"[unpackbits] -count ({-count}) larger than number of elements ({nbits})")
            bits = bits[..., :nbits + count]
        elif count <= nbits:
            bits = bits[..., :count]
        else:
            bits = _man.concatenate((bits, _C.full(bits.shape[:-1] + (count - nbits,), 0, _np.uint8)), axis=-1)
    return _ns.moveaxis(bits, -1, axis).copy()


# ------------------------------------------------------------------ functional


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Applies ``func1d`` to the 1-d slices along ``axis`` (a host loop over device slices)
    (``numpy.apply_along_axis``)."""
    arr = _arr(arr)
    nd = arr.ndim
    axis = _axis(axis, nd)
    view = _ns.moveaxis(arr, axis, -1)
    outer = view.shape[:-1]
    if _builtins.any(s == 0 for s in outer):
        raise _VE("[apply_along_axis] Cannot apply_along_axis when any iteration dimensions are 0")
    results = [_arr(func1d(view[ind], *args, **kwargs)) for ind in _np.ndindex(*outer)]
    res = _man.stack(results).reshape(outer + results[0].shape)
    rnd = results[0].ndim
    perm = list(range(axis)) + list(range(res.ndim - rnd, res.ndim)) + list(range(axis, res.ndim - rnd))
    return _C.transpose(res, perm).copy()


def apply_over_axes(func, a, axes):
    """Applies ``func(a, axis)`` repeatedly over ``axes``, keeping dims (``numpy.apply_over_axes``)."""
    val = _arr(a)
    n = val.ndim
    if _np.ndim(axes) == 0:
        axes = (axes,)
    for ax in axes:
        if ax < 0:
            ax = n + ax
        res = _arr(func(val, ax))
        if res.ndim == val.ndim:
            val = res
        else:
            res = _C.expand_dims(res, ax)
            if res.ndim == val.ndim:
                val = res
            else:
                raise _VE("[apply_over_axes] function is not returning an array of the correct shape")
    return val


class vectorize:  # noqa: N801 - NumPy's name
    """``numpy.vectorize`` for pyasc: a host-side loop over the elements, returning pyasc arrays.

    Takes the same arguments as ``numpy.vectorize`` (``otypes``, ``doc``, ``excluded``,
    ``cache``, ``signature``); pyasc array arguments are viewed on the host, results are
    copied to the device.
    """

    def __init__(self, pyfunc=_np._NoValue, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        if pyfunc is _np._NoValue:
            self._np = None
            self._kw = dict(otypes=otypes, doc=doc, excluded=excluded, cache=cache, signature=signature)
            return
        self._np = _np.vectorize(pyfunc, otypes=otypes, doc=doc, excluded=excluded, cache=cache,
                                 signature=signature)
        self.pyfunc = pyfunc
        self.__doc__ = self._np.__doc__

    def __call__(self, *args, **kwargs):
        if self._np is None:  # decorator form: vectorize(otypes=...)(f)
            return vectorize(args[0], **self._kw)
        out = self._np(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
        if isinstance(out, tuple):
            return tuple(_C.array(_np.asarray(o)) for o in out)
        return _C.array(_np.asarray(out))


class ndindex(_np.ndindex):  # noqa: N801 - NumPy's name
    """An iterator over the index tuples of a shape (``numpy.ndindex``)."""


class ndenumerate:  # noqa: N801 - NumPy's name
    """An iterator of ``(index, value)`` pairs over an array (``numpy.ndenumerate``)."""

    def __init__(self, arr):
        self._it = _np.ndenumerate(_arr(arr).numpy())

    def __iter__(self):
        return self

    def __next__(self):
        """The next ``(index, value)`` pair."""
        return next(self._it)


# ------------------------------------------------------------------ floating-point error state

_ERR_KEYS = ("divide", "over", "under", "invalid")
_ERR_VALUES = ("ignore", "warn", "raise", "call", "print", "log")
_ERR_DEFAULT = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
# Context-local like NumPy 2's (threads and asyncio tasks each see their own settings).
_errstate = _contextvars.ContextVar("pyasc_errstate", default=_ERR_DEFAULT)


def geterr():
    """The floating-point error handling settings (pyasc's device ops never warn or raise on
    floating-point errors; the settings are kept for API compatibility) (``numpy.geterr``)."""
    return dict(_errstate.get())


def seterr(all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002 - NumPy's name
    """Sets the floating-point error settings and returns the old ones. pyasc's device ops never
    warn or raise on floating-point errors, so this changes nothing else (``numpy.seterr``)."""
    old = geterr()
    _errstate.set(_updated(old, all, divide, over, under, invalid))
    return old


def _updated(state, all, divide, over, under, invalid):  # noqa: A002
    state = dict(state)
    new = dict(zip(_ERR_KEYS, (divide, over, under, invalid)))
    for k in _ERR_KEYS:
        v = new[k] if new[k] is not None else all
        if v is None:
            continue
        if v not in _ERR_VALUES:
            raise _VE(f"[seterr] invalid value {v!r} for {k!r}; expected one of {_ERR_VALUES}")
        state[k] = v
    return state


class errstate(_contextlib.ContextDecorator):  # noqa: N801 - NumPy's name
    """Context manager (and decorator) for the floating-point error settings; see :func:`seterr`
    (``numpy.errstate``)."""

    def __init__(self, *, call=None, all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002
        self.call = call
        self._kw = dict(all=all, divide=divide, over=over, under=under, invalid=invalid)

    def __enter__(self):
        self._token = _errstate.set(_updated(_errstate.get(), **self._kw))
        return self

    def __exit__(self, *exc):
        _errstate.reset(self._token)
        return False


# ------------------------------------------------------------------ printing (NumPy's own state)

set_printoptions = _np.set_printoptions
get_printoptions = _np.get_printoptions
printoptions = _np.printoptions


def array2string(a, *args, **kwargs):
    """The string of an array under the print options (``numpy.array2string``)."""
    return _np.array2string(_host(_arr(a)), *args, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """The repr of an array, ``array([...])`` (``numpy.array_repr``)."""
    return _np.array_repr(_host(_arr(arr)), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """The str of an array (``numpy.array_str``)."""
    return _np.array_str(_host(_arr(a)), max_line_width, precision, suppress_small)


# ------------------------------------------------------------------ files (NumPy's formats)


def save(file, arr, allow_pickle=True):
    """Writes ``arr`` to a ``.npy`` file (``numpy.save``)."""
    _np.save(file, _arr(arr).numpy(), allow_pickle=allow_pickle)


def _savez(fn, file, args, kwds):
    fn(file, *[_arr(a).numpy() for a in args], **{k: _arr(v).numpy() for k, v in kwds.items()})


def savez(file, *args, allow_pickle=True, **kwds):
    """Writes several arrays to an uncompressed ``.npz`` file (``numpy.savez``)."""
    _savez(_functools.partial(_np.savez, allow_pickle=allow_pickle), file, args, kwds)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Writes several arrays to a compressed ``.npz`` file (``numpy.savez_compressed``)."""
    _savez(_functools.partial(_np.savez_compressed, allow_pickle=allow_pickle), file, args, kwds)


class _NpzFile:
    """The arrays of an ``.npz`` file, read lazily as pyasc arrays (mapping like NumPy's NpzFile)."""

    def __init__(self, npz):
        self._npz = npz
        self.files = npz.files

    def __getitem__(self, key):
        return _C.array(self._npz[key])

    def __contains__(self, key):
        return key in self._npz

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def keys(self):
        """The array names."""
        return self._npz.keys()

    def values(self):
        """The arrays, as pyasc arrays."""
        return [self[k] for k in self.files]

    def items(self):
        """``(name, pyasc array)`` pairs."""
        return [(k, self[k]) for k in self.files]

    def get(self, key, default=None):
        """The array ``key``, or ``default``."""
        return self[key] if key in self._npz else default

    def close(self):
        """Closes the file."""
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *, max_header_size=None):
    """Reads ``.npy`` (a pyasc array) or ``.npz`` (a mapping of pyasc arrays) files (``numpy.load``)."""
    kw = {} if max_header_size is None else {"max_header_size": max_header_size}
    res = _np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, fix_imports=fix_imports,
                   encoding=encoding, **kw)
    if isinstance(res, _np.lib.npyio.NpzFile):
        return _NpzFile(res)
    if isinstance(res, _np.ndarray) and res.dtype != object:
        return _C.array(res)
    return res


def loadtxt(fname, *args, **kwargs):
    """Reads a text file into a pyasc array (``numpy.loadtxt``; same arguments)."""
    res = _np.loadtxt(fname, *args, **kwargs)
    return tuple(_C.array(r) for r in res) if isinstance(res, (tuple, list)) else _C.array(res)


def savetxt(fname, X, *args, **kwargs):
    """Writes a 1-d or 2-d array to a text file (``numpy.savetxt``; same arguments)."""
    _np.savetxt(fname, _arr(X).numpy(), *args, **kwargs)


def genfromtxt(fname, *args, **kwargs):
    """Reads a text file with missing-value handling into a pyasc array (``numpy.genfromtxt``)."""
    res = _np.genfromtxt(fname, *args, **kwargs)
    if isinstance(res, _np.ndarray) and res.dtype.names is None and res.dtype != object:
        return _C.array(res)
    return res
