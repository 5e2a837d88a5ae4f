"""NumPy's ``lib/_function_base_impl`` names on pyasc arrays.

Selection (``select``, ``piecewise``), ``rot90``, editing along an axis
(``append``, ``delete``, ``insert``, ``trim_zeros``), ``vectorize``, and the
difference/integration helpers ``diff``, ``gradient``, ``trapezoid``,
``interp``, ``unwrap``, ``copy``, ``iterable``, the modified Bessel function
``i0`` and the window functions ``bartlett``, ``blackman``, ``hamming``,
``hanning``, ``kaiser``. Compositions of pyasc's device ops (elementwise ops
fuse lazily; take/concatenate/scatter run in C++); the data never goes
through NumPy. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from . import _sorting as _srt
from ._creation import _c_copy
from ._helpers import _MAX_REQUEST, _alloc_check
from ._helpers import _BF16, _IE, _OE, _TE, _VE, _arr, _axes, _axis, _bshape, _dt, _dt_or_scalar, _host, _kind
from ._helpers import _norm_axis

__all__ = [
    "select", "piecewise", "rot90", "append", "insert", "delete", "trim_zeros", "vectorize", "diff", "gradient",
    "interp", "trapezoid", "unwrap", "copy", "iterable", "i0", "bartlett", "blackman", "hamming", "hanning",
    "kaiser",
]


# ------------------------------------------------------------------ selection


def select(condlist, choicelist, default=0):
    """``choicelist[i]`` where ``condlist[i]`` is first true, else ``default`` (``numpy.select``).
    NumPy's order of checks: the lengths, the common dtype of the choices and the default, the
    conditions' broadcast, the choices' broadcast, then the conditions' dtype."""
    if len(condlist) != len(choicelist):
        raise _VE(f"[select] list of cases must be same length as list of conditions "
                  f"({len(choicelist)} vs {len(condlist)})")
    if len(condlist) == 0:
        raise _VE("[select] select with an empty condition list is not possible")
    scalar = (int, float, complex)  # exactly these stay weak (NumPy: type(c) in ...; a bool is an array)
    choices = [c if type(c) in scalar else _arr(c) for c in choicelist]
    dflt = default if type(default) in scalar else _arr(default)
    try:
        dtype = _np.result_type(*[_dt_or_scalar(c) for c in choices + [dflt]])
    except TypeError as e:
        raise _TE(f"[select] Choicelist and default value do not have a common dtype: {e}") from None
    conds = [_arr(c) for c in condlist]
    cshape = _bshape("select", *[c.shape for c in conds])
    vshape = _bshape("select", *[_np.shape(c) if not isinstance(c, _C.ndarray) else c.shape
                                 for c in choices + [dflt]])
    for i, c in enumerate(conds):
        if c.dtype != _np.bool_:
            raise _TE(f"[select] invalid entry {i} in condlist: should be boolean ndarray, got {c.dtype}")
    shp = cshape if len(vshape) == 0 else _bshape("select", cshape, vshape)
    out = _C.full(shp, dflt, dtype) if not isinstance(dflt, _C.ndarray) else \
        _C.broadcast_to(dflt.astype(dtype), shp)
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
    if isinstance(obj, _C.ndarray):
        o = obj
    else:
        h = _np.asarray(obj)
        if h.dtype.kind not in "biufc" and (h.size or isinstance(obj, _np.ndarray)):
            # None, a str, an object array: NumPy's keep[obj,] indexing refuses it
            raise _IE(f"[delete] arrays used as indices must be of integer (or boolean) type, got {h.dtype}")
        o = _C.array(h if h.dtype.kind in "biufc" else h.astype(_np.int64))
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
        # bounds before the ravel: min/max of a huge broadcast view are answered from one element,
        # its copy could not be allocated (NumPy's keep[obj,] fails at the first bad index)
        if o.size and (int(_C.min(o)) < -n or int(_C.max(o)) >= n):
            bad = int(_C.min(o)) if int(_C.min(o)) < -n else int(_C.max(o))
            raise _IE(f"[delete] index {bad} is out of bounds for axis {axis} with size {n}")
        o = _ns.ravel(o)
        keep = _C.full((n,), True, _np.bool_)
        if o.size:
            keep[o] = False
    slobj[axis] = keep
    return arr[tuple(slobj)]


def _values_as(values, dtype, op="insert"):
    if isinstance(values, _C.ndarray):
        return values.astype(dtype)
    try:
        v = _np.array(values, dtype=dtype)
    except (ValueError, TypeError, OverflowError) as e:  # NumPy's conversion error, as a pyasc error
        cls = _VE if isinstance(e, ValueError) else _TE if isinstance(e, TypeError) else _OE
        raise cls(f"[{op}] values cannot be converted to {_np.dtype(dtype)}: {e}") from None
    return _C.array(v)


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
        # NumPy's order: the bounds (a float index compares too), the values' conversion, and only
        # then the slice of a non-integer index fails (its TypeError)
        if isinstance(index, complex):
            raise _TE(f"[insert] '<' not supported for a complex index ({index!r})")
        try:
            out_of_bounds = index < -n or index > n
        except TypeError as e:  # (a str/bytes index: Python's comparison, NumPy's first step)
            raise _TE(f"[insert] index {index!r} cannot be compared with the axis length {n}: {e}") from None
        if out_of_bounds:
            raise _IE(f"[insert] index {index} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        v = _values_as(values, arr.dtype)
        if not isinstance(index, (int, _np.integer)):
            raise _TE(f"[insert] slice indices must be integers (got the index {ind.item()!r})")
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
    try:  # NumPy's first step on an index array is `indices[indices < 0] += N`: an index array whose
        # dtype has no 'less' loop with an int (str, bytes, datetime) is that comparison's TypeError,
        # before the uint and integer-type checks below
        ind < 0
    except TypeError as e:
        raise _TE(f"[insert] the index array obj of dtype {ind.dtype} cannot be compared with 0: {e}") from None
    if ind.dtype.kind == "u":
        # NumPy shifts the indices in place (indices[order] += arange(numnew)): an unsigned array
        # cannot hold the signed sum, whatever its values
        out_dt = "float64" if ind.dtype.itemsize == 8 else "int64"
        raise _TE(f"[insert] Cannot cast ufunc 'add' output from dtype('{out_dt}') to dtype('{ind.dtype}') with "
                  "casting rule 'same_kind' (the index array obj is unsigned)")
    if ind.dtype.kind not in "iu":
        raise _IE(f"[insert] index arrays must be of integer type, got {ind.dtype}")
    # NumPy has no bounds check of its own here: the shifted indices address the new axis
    # (n + numnew long), so only one beyond it fails, in old_mask's indexing
    if not _np.iinfo(ind.dtype).min <= n <= _np.iinfo(ind.dtype).max:
        # NumPy adds the axis length to the negative indices in the index array's own dtype
        # (indices[indices < 0] += N): a length beyond it is that OverflowError, whatever the values
        raise _OE(f"[insert] Python integer {n} out of bounds for {ind.dtype}")
    ind = ind.astype(_np.intp)
    ind[ind < 0] += n
    numnew = len(ind)
    order = ind.argsort(kind="mergesort")
    ind[order] += _np.arange(numnew)
    newshape[axis] += numnew
    old_mask = _np.ones(newshape[axis], dtype=bool)
    try:
        old_mask[ind] = False
    except IndexError as e:
        raise _IE(f"[insert] {e} (the index array obj, shifted to the new axis)") from None
    new = _C.empty(tuple(newshape), arr.dtype)
    slobj2 = [slice(None)] * ndim
    slobj[axis] = _C.array(ind)
    slobj2[axis] = _C.array(_np.flatnonzero(old_mask))
    if numnew:
        new[tuple(slobj)] = _values_as(values, arr.dtype)
    else:  # NumPy still assigns the values to the empty selection: they must broadcast to it
        v = _values_as(values, arr.dtype)
        target = list(newshape)
        target[axis] = 0
        vs = list(v.shape)
        while len(vs) > len(target) and vs[0] == 1:  # (setitem drops leading length-1 axes)
            vs.pop(0)
        try:
            ok = len(vs) <= len(target) and _np.broadcast_shapes(tuple(vs), tuple(target)) == tuple(target)
        except ValueError:
            ok = False
        if not ok:
            raise _VE(f"[insert] shape mismatch: value array of shape {tuple(v.shape)} could not be broadcast to "
                      f"indexing result of shape {tuple(target)}")
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
        # (np.ndim would copy a huge view; a list/tuple is iterated as NumPy's normalize_axis_tuple
        # does, so a ragged one is the TypeError of its first non-integer entry, not asarray's)
        nd = axis.ndim if isinstance(axis, _C.ndarray) else 1 if isinstance(axis, (list, tuple)) else _np.ndim(axis)
        # (element by element, as NumPy iterates it: a huge view's first element decides)
        items = (axis,) if nd == 0 else (axis[i] for i in range(len(axis))) if isinstance(axis, _C.ndarray) else axis
        axes = tuple(_axis(a, f.ndim) for a in items)
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


# ------------------------------------------------------------------ differences, integration


def _slice(ndim, axis, sl):
    idx = [slice(None)] * ndim
    idx[axis] = sl
    return tuple(idx)


def diff(a, n=1, axis=-1, prepend=_np._NoValue, append=_np._NoValue):
    """The ``n``-th discrete difference along ``axis`` (``prepend``/``append`` joined first)."""
    if n == 0:
        return _arr(a)
    if n < 0:
        raise _VE(f"[diff] order must be non-negative but got {n!r}")
    x = _arr(a)
    if x.ndim == 0:
        raise _VE("[diff] diff requires input that is at least one dimensional")
    ax = _norm_axis(axis, x.ndim, "diff")
    parts = []
    for v, pos in ((prepend, 0), (append, 1)):
        if v is _np._NoValue:
            continue
        v = _arr(v)
        if v.ndim == 0:
            shp = list(x.shape)
            shp[ax] = 1
            v = _C.broadcast_to(v, tuple(shp))
        parts.append((pos, v))
    if parts:
        seq = [v for p, v in parts if p == 0] + [x] + [v for p, v in parts if p == 1]
        x = _C.concatenate(seq, ax)
    # range(n) is NumPy's loop (a float n is its TypeError); once the axis is empty further
    # differences change nothing (same dtype, same empty shape), so at most max(len, 1) are taken --
    # NumPy itself loops n times (np.diff(x, n=2**63 - 1) never returns)
    try:
        order = range(n)
    except TypeError as e:
        raise _TE(f"[diff] {e} (n={n!r})") from None
    for _ in order[:_builtins.max(x.shape[ax], 1)]:
        m = x.shape[ax]
        hi, lo = x[_slice(x.ndim, ax, slice(1, None))], x[_slice(x.ndim, ax, slice(0, _builtins.max(m - 1, 0)))]
        x = _C.not_equal(hi, lo) if _dt(x).kind == "b" else _C.subtract(hi, lo)
    return x


def gradient(f, *varargs, axis=None, edge_order=1):
    """Gradient by second-order central differences inside, first/second-order (``edge_order``) at the edges."""
    x = _arr(f)
    N = x.ndim
    axes = _axes(axis, N, "gradient")
    nax = len(axes)
    nv = len(varargs)
    if nv == 0:
        dxs = [1.0] * nax
    elif nv == 1 and _np.ndim(varargs[0]) == 0:
        dxs = [varargs[0]] * nax
    elif nv == nax:
        dxs = list(varargs)
        for i, dx in enumerate(dxs):  # NumPy checks every spacing before edge_order and the shapes
            if _np.ndim(dx) == 0:
                continue
            d = _arr(dx)
            if d.ndim != 1:
                raise _VE("[gradient] distances must be either scalars or 1d")
            if d.shape[0] != x.shape[axes[i]]:
                raise _VE("[gradient] when 1d, distances must match the length of the corresponding "
                          "dimension")
            if d.shape[0] < 2:  # NumPy: diffx = np.diff(distances); diffx[0] of an empty diffx
                raise _IE(f"[gradient] index 0 is out of bounds for axis 0 with size 0 (the spacing "
                          f"for axis {axes[i]} has {d.shape[0]} coordinates; at least 2 are required)")
            if _kind(d) in "iu":  # (bool coordinates stay: their diff is not_equal, as NumPy's)
                d = _C.astype(d, _np.float64)
            dxa = _C.not_equal(d[1:], d[:-1]) if _kind(d) == "b" else _C.subtract(d[1:], d[:-1])
            # NumPy: constant spacing is the scalar case (its formulas, and no bool subtraction
            # where a bool f gives a result)
            dxs[i] = dxa[0].numpy()[()] if bool(_C.all(_C.equal(dxa, dxa[0]))) else dxa
    else:
        raise _TE("[gradient] invalid number of arguments")
    if edge_order > 2 or edge_order < 1:
        raise _VE("[gradient] 'edge_order' greater than 2 not supported")
    if x.size > _MAX_REQUEST >> 4:
        # (a huge broadcast view) NumPy's np.empty_like(f, otype) for the first axis fails before any
        # subtraction
        if axes and x.shape[axes[0]] >= edge_order + 1:
            _alloc_check("gradient", x.shape, x.dtype if _dt(x).kind in "fc" else _np.float64)
    # NumPy's otype: inexact data keeps its dtype, any other number is float64; integers are cast
    # to float64 first, while bool and ml_dtypes' bfloat16 (no np.inexact) are computed in their own
    # dtype and stored into the float64 result (subtracting booleans is NumPy's TypeError)
    if _kind(x) in "iu":
        x = _C.astype(x, _np.float64)
    odt = _np.dtype(_np.float64) if _kind(x) == "b" or _dt(x) == _BF16 else x.dtype
    outs = []
    for ax, dx in zip(axes, dxs):
        n = x.shape[ax]
        if n < edge_order + 1:
            raise _VE("[gradient] Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")

        def S(sl, ax=ax):
            return x[_slice(N, ax, sl)]

        uniform = _np.ndim(dx) == 0
        if not uniform:
            dxa = dx  # (the coordinates' differences, above)
            bshape = [1] * N

            def B(v):
                bshape[ax] = v.shape[0]
                return _C.reshape(v, tuple(bshape))

        if uniform:
            mid = _C.true_divide(_C.subtract(S(slice(2, None)), S(slice(None, -2))), _C.multiply(2.0, dx)) \
                if n > 2 else None
        else:
            dx1, dx2 = B(dxa[:-1]), B(dxa[1:])
            a_ = _C.negative(_C.true_divide(dx2, _C.multiply(dx1, _C.add(dx1, dx2))))
            b_ = _C.true_divide(_C.subtract(dx2, dx1), _C.multiply(dx1, dx2))
            c_ = _C.true_divide(dx1, _C.multiply(dx2, _C.add(dx1, dx2)))
            mid = _C.add(_C.add(_C.multiply(a_, S(slice(None, -2))), _C.multiply(b_, S(slice(1, -1)))),
                         _C.multiply(c_, S(slice(2, None)))) if n > 2 else None
        if edge_order == 1:
            if uniform:
                first = _C.true_divide(_C.subtract(S(slice(1, 2)), S(slice(0, 1))), dx)
                last = _C.true_divide(_C.subtract(S(slice(n - 1, n)), S(slice(n - 2, n - 1))), dx)
            else:
                first = _C.true_divide(_C.subtract(S(slice(1, 2)), S(slice(0, 1))), B(dxa[0:1]))
                last = _C.true_divide(_C.subtract(S(slice(n - 1, n)), S(slice(n - 2, n - 1))), B(dxa[-1:]))
        else:
            if uniform:
                a0, b0, c0 = -1.5 / dx, 2.0 / dx, -0.5 / dx
                a1, b1, c1 = 0.5 / dx, -2.0 / dx, 1.5 / dx
            else:
                d1, d2 = B(dxa[0:1]), B(dxa[1:2])
                a0 = _C.negative(_C.true_divide(_C.add(_C.multiply(2.0, d1), d2), _C.multiply(d1, _C.add(d1, d2))))
                b0 = _C.true_divide(_C.add(d1, d2), _C.multiply(d1, d2))
                c0 = _C.negative(_C.true_divide(d1, _C.multiply(d2, _C.add(d1, d2))))
                e1, e2 = B(dxa[-2:-1]), B(dxa[-1:])
                a1 = _C.true_divide(e2, _C.multiply(e1, _C.add(e1, e2)))
                b1 = _C.negative(_C.true_divide(_C.add(e2, e1), _C.multiply(e1, e2)))
                c1 = _C.true_divide(_C.add(_C.multiply(2.0, e2), e1), _C.multiply(e2, _C.add(e1, e2)))
            first = _C.add(_C.add(_C.multiply(a0, S(slice(0, 1))), _C.multiply(b0, S(slice(1, 2)))),
                           _C.multiply(c0, S(slice(2, 3))))
            last = _C.add(_C.add(_C.multiply(a1, S(slice(n - 3, n - 2))), _C.multiply(b1, S(slice(n - 2, n - 1)))),
                          _C.multiply(c1, S(slice(n - 1, n))))
        parts = [first] + ([mid] if mid is not None else []) + [last]
        g = _C.concatenate([_C.astype(p, odt) for p in parts], ax)
        outs.append(g)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _list_axis(axis, nd, name):
    """``axis`` as NumPy's trapezoid uses it, the index of a list of ``nd`` slices: Python's list
    errors (IndexError out of range, TypeError for a non-integer), no AxisError."""
    slots = [None] * nd
    try:
        slots[axis] = 0
    except IndexError as e:
        raise _IE(f"[{name}] axis {axis!r} for {nd} dimensions: {e}") from None
    except TypeError as e:
        raise _TE(f"[{name}] axis: {e}") from None
    return _operator.index(axis) % nd


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the composite trapezoidal rule (sample points ``x`` or spacing ``dx``)."""
    if x is None:
        # NumPy converts y to an object array if it must (a 2**64 int) and then fails on the axis:
        # the axis is checked before pyasc's conversion of y
        _list_axis(axis, y.ndim if isinstance(y, _C.ndarray) else _np.ndim(y), "trapezoid")
    elif _np.ndim(x.numpy() if isinstance(x, _C.ndarray) else x) != 1:
        # NumPy: d = diff(x, axis=axis) before y's axis is used (a 0-d x: diff's ValueError first)
        if (x.ndim if isinstance(x, _C.ndarray) else _np.ndim(x)) == 0:
            raise _VE("[trapezoid] diff requires input that is at least one dimensional (x is 0-d)")
    yy = _arr(y)
    ax = _list_axis(axis, yy.ndim, "trapezoid")
    n = yy.shape[ax]
    if x is None:
        d = dx
    else:
        xx = _arr(x)
        if xx.ndim == 1:
            d = diff(xx)
            shp = [1] * yy.ndim
            shp[ax] = d.shape[0]
            d = _C.reshape(d, tuple(shp))
        else:
            d = diff(xx, axis=ax)
    hi = yy[_slice(yy.ndim, ax, slice(1, None))]
    lo = yy[_slice(yy.ndim, ax, slice(0, _builtins.max(n - 1, 0)))]
    if hi.size > 1 << 32:  # NumPy allocates y[1:] + y[:-1] (a huge broadcast view: its MemoryError)
        _alloc_check("trapezoid", tuple(hi.shape), _np.result_type(_np.dtype(hi.dtype), _np.dtype(lo.dtype)))
    r = _C.true_divide(_C.multiply(d, _C.add(hi, lo)), 2.0)
    if isinstance(axis, (bool, _np.bool_)):
        # NumPy indexes its slice list with the bool (True is 1) and only the final .sum(axis)
        # refuses it, after the shapes of y, x and dx were checked
        raise TypeError("[trapezoid] an integer is required for the axis, got a bool")
    return _C.sum(r, ax)


# ------------------------------------------------------------------ interpolation, convolution, polynomials


def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional piecewise-linear interpolation of (``xp``, ``fp``) at ``x``."""
    xv, xpv, fpv = _arr(x), _arr(xp), _arr(fp)
    if xpv.ndim != 1 or fpv.ndim != 1:
        raise _VE(f"[interp] xp and fp must be 1-d sequences (shapes {tuple(xpv.shape)}, "
                         f"{tuple(fpv.shape)})")
    if xpv.shape[0] != fpv.shape[0]:
        raise _VE(f"[interp] fp and xp are not of the same length ({fpv.shape[0]} and {xpv.shape[0]})")
    if xpv.shape[0] == 0:
        raise _VE("[interp] array of sample points is empty")
    if _kind(xv) == "c" or _kind(xpv) == "c":
        raise _TE("[interp] x and xp must be real")
    cplx = _kind(fpv) == "c"
    fdt = _np.complex128 if cplx else _np.float64
    xv = _C.astype(xv, _np.float64)
    xpv = _C.astype(xpv, _np.float64)
    fpv = _C.astype(fpv, fdt)
    if period is not None:
        if period == 0:
            raise _VE("[interp] period must be a non-zero value")
        period = _builtins.abs(period)
        left = right = None
        xv = _C.remainder(xv, period)
        xpv = _C.remainder(xpv, period)
        order = _C.argsort(xpv, -1, False)
        xpv = _C.take(xpv, order, 0, "raise")
        fpv = _C.take(fpv, order, 0, "raise")
        xpv = _C.concatenate([_C.subtract(xpv[-1:], period), xpv, _C.add(xpv[0:1], period)], 0)
        fpv = _C.concatenate([fpv[-1:], fpv, fpv[0:1]], 0)
    m = xpv.shape[0]
    lv, rv = _interp_bound(left, "left", cplx), _interp_bound(right, "right", cplx)
    lval = fpv[0] if lv is None else _C.asarray(_np.asarray(lv, fdt))
    rval = fpv[m - 1] if rv is None else _C.asarray(_np.asarray(rv, fdt))
    if not cplx:
        return _interp_real(xv, xpv, fpv, lval, rval, _np.nan)
    # NumPy interpolates a complex fp's real and imaginary parts separately (each with the real
    # rule's NaN fallback); a NaN x gives NaN + 0j. Complex arithmetic would mix the parts: an
    # infinite real part makes the slope's imaginary part NaN
    re = _interp_real(xv, xpv, fpv.real, lval.real, rval.real, _np.nan)
    im = _interp_real(xv, xpv, fpv.imag, lval.imag, rval.imag, 0.0)
    res = _C.full(tuple(re.shape), 0, fdt)
    res.real[...] = re
    res.imag[...] = im
    return res


def _interp_bound(v, nm, cplx):
    """``left``/``right`` as NumPy's interp reads them: one C double (PyFloat_AsDouble) for a real
    ``fp``, PyComplex_RealAsDouble/ImagAsDouble for a complex one. So an array of 1+ dimensions, a
    list, a tuple or a str is a TypeError, not a broadcast operand; a complex 0-d array is float()'s
    TypeError in both modes; a Python complex (and np.complex128, its subclass) is taken whole by the
    complex loop and is the real loop's TypeError; other NumPy complex scalars give their real part
    (NumPy's ComplexWarning) in both modes; an int beyond float64 is float()'s OverflowError."""
    if v is None:
        return None
    if isinstance(v, (_C.ndarray, _np.ndarray)):
        if v.ndim > 0:
            raise _TE(f"[interp] {nm}: only 0-dimensional arrays can be converted to Python scalars "
                      f"(shape {tuple(v.shape)})")
        if _kind(v) == "c":
            raise _TE(f"[interp] {nm}: float() argument must be a string or a real number, not 'complex' "
                      f"(a 0-d {_np.dtype(v.dtype)} array)")
        return float(v)
    if isinstance(v, (list, tuple, str, bytes)):
        raise _TE(f"[interp] {nm}: must be real number, not {type(v).__name__}")
    if isinstance(v, complex) and (cplx or type(v) is complex):  # noqa: E721
        if not cplx:
            raise _TE(f"[interp] {nm}: must be real number, not complex")
        return complex(v)
    if isinstance(v, _np.complexfloating):
        import warnings  # noqa: PLC0415

        warnings.warn("Casting complex values to real discards the imaginary part", _np.exceptions.ComplexWarning,
                      stacklevel=3)
        return float(v.real)
    try:
        return float(v)
    except OverflowError as e:
        raise _OE(f"[interp] {nm}: {e} (a {len(str(v))}-digit int)") from None
    except (TypeError, ValueError) as e:
        raise _TE(f"[interp] {nm}: must be real number, not {type(v).__name__} ({e})") from None


def _interp_real(xv, xpv, fpv, lval, rval, nan_x):
    """NumPy's real interpolation loop (float64 operands): fp[j] for x on the sample point xp[j],
    else the slope form from the left point, from the right one where that is NaN, fp[j] where
    both are and fp[j] == fp[j + 1]; x beyond the ends gets lval/rval, a NaN x ``nan_x``."""
    m = xpv.shape[0]
    if m == 1:
        # NumPy's single-point rule: NaN x compares false both ways and gets fp[0]
        res = _C.where(_C.less(xv, xpv[0]), lval, _C.where(_C.greater(xv, xpv[0]), rval, fpv[0]))
        return _C.astype(res, _np.float64)
    j = _C.subtract(_C.searchsorted(xpv, xv, True), 1)
    j = _C.minimum(_C.maximum(j, 0), m - 2)
    x0, x1 = _C.take(xpv, j, 0, "raise"), _C.take(xpv, _C.add(j, 1), 0, "raise")
    f0, f1 = _C.take(fpv, j, 0, "raise"), _C.take(fpv, _C.add(j, 1), 0, "raise")
    slope = _C.true_divide(_C.subtract(f1, f0), _C.subtract(x1, x0))
    res = _C.add(_C.multiply(slope, _C.subtract(xv, x0)), f0)
    alt = _C.add(_C.multiply(slope, _C.subtract(xv, x1)), f1)
    alt = _C.where(_C.logical_and(_C.isnan(alt), _C.equal(f0, f1)), f0, alt)
    res = _C.where(_C.isnan(res), alt, res)
    res = _C.where(_C.equal(xv, x0), f0, res)  # NumPy: x on a sample point is its value (no 0 * inf)
    res = _C.where(_C.equal(xv, xpv[m - 1]), fpv[m - 1], res)
    res = _C.where(_C.less(xv, xpv[0]), lval, res)
    res = _C.where(_C.greater(xv, xpv[m - 1]), rval, res)
    res = _C.where(_C.isnan(xv), nan_x, res)
    return _C.astype(res, _np.float64)


def unwrap(p, discont=None, axis=-1, *, period=6.283185307179586):
    """Unwraps ``p`` along ``axis``: jumps larger than ``max(discont, period / 2)`` are replaced by
    their complement modulo ``period`` (``numpy.unwrap``; integer input with an integer period stays
    integral, as NumPy's). Device ops: diff, remainder, where and a cumulative sum."""
    p = _arr(p)
    dd = diff(p, axis=axis)
    ax = _norm_axis(axis, p.ndim, "unwrap")
    if discont is None:
        discont = period / 2
    dt = _np.dtype(_ns.result_type(dd, period) if isinstance(period, (bool, int, float, complex))
                   else _ns.result_type(dd, _arr(period)))
    if dt.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _C.add(_C.remainder(_C.subtract(dd, low), period), low)
    if ambiguous:  # a jump of exactly period / 2 keeps its direction
        ddmod = _C.where(_C.logical_and(_C.equal(ddmod, low), _C.greater(dd, 0)), high, ddmod)
    correct = _C.where(_C.less(_C.absolute(dd), discont), 0, _C.subtract(ddmod, dd))
    up = _C.astype(p, dt)
    if p.shape[ax] < 2:
        return _c_copy(up)
    head = up[_slice(p.ndim, ax, slice(None, 1))]
    tail = _C.add(up[_slice(p.ndim, ax, slice(1, None))], _C.cumsum(_C.astype(correct, dt), ax))
    return _man.concatenate([head, _C.astype(tail, dt)], axis=ax)


def copy(a, order="K", subok=False):
    """A copy of ``a`` (``numpy.copy``): order 'K'/'A' keep a Fortran-ordered input's layout,
    'C'/'F' choose it. pyasc has no ndarray subclasses, so ``subok`` changes nothing."""
    x = _arr(a)
    from ._signatures import check_order  # noqa: PLC0415 (NumPy's checks: a non-str is its TypeError)
    order = check_order("copy", order)
    if order in ("K", "A", None):
        order = "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"
    if order == "C":
        return _c_copy(x)
    return _C.transpose(_c_copy(_C.transpose(x)))


def iterable(y):
    """Whether ``iter(y)`` works (``numpy.iterable``; a 0-d array is not iterable)."""
    if isinstance(y, _C.ndarray):  # without iterating (a broadcast view may have 2**62 rows)
        return y.ndim > 0
    try:
        iter(y)
    except TypeError:
        return False
    return True


# ------------------------------------------------------------------ i0 and windows

# Chebyshev coefficients of exp(-x) I0(x) on [0, 8] and of exp(-x) sqrt(x) I0(x) on (8, inf)
# (Cephes, Moshier: the tables NumPy's i0 evaluates).
_I0_A = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165,
    -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764, 0.17162090152220877, -0.3046826723431984,
    0.6767952744094761,
)
_I0_B = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
    -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
    1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
    2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088,
)


def _chbevl(x, coef):
    """Clenshaw's recurrence for a Chebyshev series (Cephes's chbevl), in device ops."""
    b0, b1 = _C.full(tuple(x.shape), coef[0], x.dtype), _C.full(tuple(x.shape), 0, x.dtype)
    b2 = b1
    for c in coef[1:]:
        b2 = b1
        b1 = b0
        b0 = _C.add(_C.subtract(_C.multiply(x, b1), b2), c)
    return _C.multiply(_C.subtract(b0, b2), 0.5)


def i0(x):
    """The modified Bessel function of the first kind, order 0 (``numpy.i0``): Cephes's Chebyshev
    expansions on [0, 8] and above, evaluated on the device. Integers, bool and bfloat16 give
    float64 (as NumPy, which does not know bfloat16 as a float); float16, float32 and float64 keep
    their dtype. Complex input is a TypeError."""
    x = _arr(x)
    if _kind(x) == "c":
        raise _TE("[i0] i0 not supported for complex values")
    out_dt = None
    if _kind(x) != "f" or _dt(x) == _BF16:
        x = _C.astype(x, _np.float64)
    x = _C.absolute(x)
    small = _C.less_equal(x, 8.0)
    lo = _C.multiply(_chbevl(_C.subtract(_C.multiply(x, 0.5), 2.0), _I0_A), _C.exp(x))
    xs = _C.where(small, 32.0, x)  # keeps 32/x - 2 finite where the branch is not used
    hi = _C.true_divide(_C.multiply(_C.exp(xs), _chbevl(_C.subtract(_C.true_divide(32.0, xs), 2.0), _I0_B)),
                        _C.sqrt(xs))
    res = _C.where(small, lo, hi)
    return res if out_dt is None else _C.astype(res, out_dt)


def _window_start(M, name, *extra):
    """NumPy's window preamble: the float dtype of ``[0.0, M, *extra]``, and the result for M < 2."""
    for v in (M, *extra):
        # NumPy builds np.array([0.0, M, beta]): an array argument is its ValueError (checked
        # before anything is sized: blackman(broadcast_to(x, (2**33,))) must not allocate), for
        # any of the arguments before None (an object array, which pyasc has no dtype for)
        if _np.ndim(v) != 0:
            raise _VE(f"[{name}] setting an array element with a sequence: M and beta must be scalars, "
                      f"got an array of shape {_np.shape(v)}")
    for v in (M, *extra):
        if v is None or isinstance(v, (str, bytes)):
            raise _TE(f"[{name}] M and beta must be numbers, got {v!r} (NumPy makes an object array)")
        if v is M and isinstance(v, int) and v >= 1 << 64:  # NumPy's arange(1 - M, M, 2)
            raise _VE(f"[{name}] Maximum allowed size exceeded (M = {v})")
        if isinstance(v, int) and not -(1 << 63) <= v < 1 << 64:  # np.array([0.0, v]) is object too
            raise _TE(f"[{name}] M and beta must fit in int64 or uint64, got {v} (NumPy makes an object "
                      "array, which pyasc has no dtype for)")
    dt = _np.result_type(0.0, M, *extra)
    if _np.dtype(dt).kind not in "fc":
        raise _TE(f"[{name}] M must be a real number, got {M!r}")
    if _np.dtype(dt).kind == "c":
        # a complex M: NumPy compares and sizes it as a complex128 scalar (lexicographic order:
        # 1j < 1, and its complex arange is empty for any M), a degenerate window computed on
        # the host as NumPy does rather than a second implementation of complex ordering
        try:
            return dt, _C.asarray(getattr(_np, name)(M, *extra))
        except TypeError as e:  # kaiser's i0 of a complex beta
            raise _TE(f"[{name}] {e}") from None
    if M < 1:
        return dt, _C.empty((0,), dt)
    if M == 1:
        return dt, _C.full((1,), 1, dt)
    return dt, None


def _symmetric_n(M, dt):
    # n = 1 - M, 3 - M, ..., M - 1: the window's sample positions times 2, centred on 0
    return _C.astype(_C.array(_np.arange(1 - M, M, 2)), dt)


def _cosine_window(M, name, coefs):
    dt, early = _window_start(M, name)
    if early is not None:
        return early
    n = _symmetric_n(M, dt)
    res = _C.full(tuple(n.shape), coefs[0], dt)
    for k, c in enumerate(coefs[1:], start=1):
        res = _C.add(res, _C.multiply(c, _C.cos(_C.true_divide(_C.multiply(k * _np.pi, n), M - 1))))
    return res


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points, zero at both ends (``numpy.bartlett``;
    float64, empty for M < 1)."""
    dt, early = _window_start(M, "bartlett")
    if early is not None:
        return early
    n = _symmetric_n(M, dt)
    r = _C.true_divide(n, M - 1)
    return _C.where(_C.less_equal(n, 0), _C.add(1, r), _C.subtract(1, r))


def blackman(M):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n/(M-1)) + 0.08 cos(4 pi n/(M-1))`` (``numpy.blackman``)."""
    return _cosine_window(M, "blackman", (0.42, 0.5, 0.08))


def hamming(M):
    """The Hamming window ``0.54 - 0.46 cos(2 pi n/(M-1))`` (``numpy.hamming``)."""
    return _cosine_window(M, "hamming", (0.54, 0.46))


def hanning(M):
    """The Hann window ``0.5 - 0.5 cos(2 pi n/(M-1))`` (``numpy.hanning``)."""
    return _cosine_window(M, "hanning", (0.5, 0.5))


def kaiser(M, beta):
    """The Kaiser window ``i0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / i0(beta)`` (``numpy.kaiser``)."""
    dt, early = _window_start(M, "kaiser", beta)
    if early is not None:
        return early
    n = _C.astype(_C.array(_np.arange(0, M)), dt)
    alpha = (M - 1) / 2.0
    t = _C.true_divide(_C.subtract(n, alpha), alpha)
    arg = _C.multiply(beta, _C.sqrt(_C.subtract(1, _C.multiply(t, t))))
    return _C.true_divide(i0(arg), i0(_C.full((), float(beta), dt)))
