"""NumPy's ufunc keywords for pyasc's elementwise functions (one implementation).

Every elementwise function of the namespace (``sin``, ``add``, ``maximum``,
``bitwise_and``, ``isfinite``, ``copysign``, ... and the array-API aliases
``acos``, ``pow``, ``bitwise_invert``, ...) takes NumPy's ufunc arguments::

    f(x1[, x2][, out], /, *, out=None, where=True, casting='same_kind', order='K',
      dtype=None, subok=True, signature=None)

The plain call ``f(x)`` / ``f(x1, x2, out=arr)`` is the C++ binding's fast
path (python/src/array.cc); every other call comes here (:func:`call`). The
loop dtypes are NumPy's own: ``numpy.<ufunc>.resolve_dtypes`` on the operand
dtypes (Python scalars passed as the weak ``int``/``float``/``complex`` of NEP
50), with ``signature``/``dtype`` and ``casting``. So ``dtype=`` picks the loop
as NumPy does (``sin(int8_array, dtype='float32')`` computes in float32), and
the casting errors are NumPy's (``Cannot cast ufunc 'add' input 0 from
dtype('float64') to dtype('uint8') with casting rule 'same_kind'``) raised as
:class:`pyasc.AscendTypeError` (a ``TypeError``, the base of NumPy's
``UFuncTypeError``). The operands are cast to the loop dtypes and the pyasc op
runs on them (lazily, like any op).

* ``out``: a pyasc array (or a NumPy array, written on the host), positional or
  keyword, or a 1-tuple; a read-only ``out`` is ValueError, a larger ``out`` gets
  the result broadcast into it, a smaller one is NumPy's ValueError.
* ``where``: a bool mask broadcast with the operands; with ``out`` the masked-off
  elements keep ``out``'s values; without ``out`` NumPy leaves them
  uninitialised, pyasc sets them to 0.
* ``order``: 'K' (default) and 'C' give pyasc's C-contiguous result, 'F' a
  Fortran-contiguous one, 'A' Fortran when every array operand is (and not C).
* ``subok`` must be a bool (pyasc has no subclasses to keep).

Functions that are not NumPy ufuncs (``sigmoid``, ``erf``, ``rsqrt``, ...)
take the same keywords; ``dtype=`` then casts the operands (``casting``
checked with ``numpy.can_cast``) and ``signature`` is not supported.
Generalised ufuncs (``matmul``, ``matvec``, ``vecmat``, ``vecdot``) take
``out``/``dtype``/``casting``/``order``/``subok``/``signature`` (no ``where``,
as NumPy) and NumPy's ``axes=`` (a list with one entry per operand: a tuple of
its core axes, an int for one core axis; the output's entry may be left out
when it has no core axes), ``axis=`` (gufuncs with one shared core dimension:
``vecdot``) and ``keepdims=`` (``vecdot``): the operands' core axes are moved
last (views), the gufunc runs, and the result's core axes are put where the
output's entry says -- with NumPy's TypeError/AxisError/ValueError for bad ones.
"""

from __future__ import annotations

import builtins as _builtins
import functools as _functools
import operator as _operator
import re as _re

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import errors as _errors

_BF16 = _np.dtype(_ml_dtypes.bfloat16)
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_KEYWORDS = frozenset(("out", "where", "casting", "order", "dtype", "subok", "signature"))
_GUFUNC_KEYWORDS = frozenset(("out", "casting", "order", "dtype", "subok", "signature", "axes", "axis", "keepdims"))
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2 ** 63), 2 ** 63 - 1, 2 ** 64 - 1
_DEFAULT = {int: _np.int64, float: _np.float64, complex: _np.complex128}


def _te(msg):
    return _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, msg)


def _ve(msg):
    return _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, msg)


def _nie(msg):
    return _errors.AscendNotImplementedError(_errors.ErrorCode.FEATURE_UNSUPPORTED, msg)


@_functools.lru_cache(maxsize=None)
def _np_ufunc(name):
    f = getattr(_np, name, None)
    return f if isinstance(f, _np.ufunc) else None


def _is_weak(x):
    """A Python scalar NEP 50 treats as weak (bool is not: it is numpy.bool)."""
    return isinstance(x, (int, float, complex)) and not isinstance(x, (bool, _np.generic))


def _shape_str(s):
    s = tuple(s)
    return "(" + ",".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def _parse_out(name, args, nin, kwargs):
    """NumPy's out= rules: positional or keyword (not both), a 1-tuple, None entries."""
    out = None
    if len(args) > nin:
        out = args[nin]
        if "out" in kwargs:
            raise _te(f"[{name}] cannot specify 'out' as both a positional and keyword argument")
        if isinstance(out, tuple):
            raise _te(f"[{name}] return arrays must be of ArrayType (positional out cannot be a tuple)")
    elif "out" in kwargs:
        out = kwargs["out"]
        if isinstance(out, tuple):
            if len(out) != 1:
                raise _ve(f"[{name}] The 'out' tuple must have exactly one entry per ufunc output "
                          f"(1 output, got a tuple of {len(out)})")
            out = out[0]
    if out is None:
        return None
    if isinstance(out, _C.ndarray):
        _C._check_writeable(out, name, "output array is read-only")
    elif isinstance(out, _np.ndarray):
        if not out.flags.writeable:
            raise _ve(f"[{name}] output array is read-only")
    else:
        raise _te(f"[{name}] return arrays must be of ArrayType (out is a {type(out).__name__})")
    return out


def _check_options(name, kwargs, core, extra):
    casting = kwargs.get("casting", "same_kind")
    if not isinstance(casting, str):
        raise _te(f"[{name}] casting must be str, not {type(casting).__name__}")
    if casting not in _CASTINGS:
        raise _ve(f"[{name}] casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got {casting!r})")
    order = kwargs.get("order", "K")
    if order is None:
        order = "K"
    if not isinstance(order, str):
        raise _te(f"[{name}] order must be str, not {type(order).__name__}")
    if len(order) != 1 or order.upper() not in "KACF":
        raise _ve(f"[{name}] order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    subok = kwargs.get("subok", True)
    if not isinstance(subok, bool):
        raise _te(f"[{name}] 'subok' must be a boolean")
    if core:
        # (NumPy's argument parser: before any operand is looked at; a given None counts as given)
        if "keepdims" in kwargs and not isinstance(kwargs["keepdims"], bool):
            raise _te(f"[{name}] 'keepdims' must be a boolean")
        if "axis" in kwargs and "axes" in kwargs:
            raise _te(f"[{name}] cannot specify both 'axis' and 'axes'")
    dtype, signature = kwargs.get("dtype"), kwargs.get("signature")
    if dtype is not None and signature is not None:
        raise _te(f"[{name}] cannot specify both 'signature' and 'dtype'")
    if dtype is not None:
        if isinstance(dtype, (_C.ndarray, _np.ndarray)):  # np.dtype() would take a pyasc array's .dtype
            raise _te(f"[{name}] Cannot construct a dtype from an array (dtype=)")
        try:
            dtype = _np.dtype(dtype)
        except TypeError as e:
            raise _te(f"[{name}] {e}") from None
    return casting, order.upper(), dtype, signature


def _operand(name, nin, i, x, npname):
    """(value, dtype for resolve_dtypes): arrays as they are, weak Python scalars as their type."""
    if isinstance(x, _C.ndarray):
        return x, _np.dtype(x.dtype)
    if isinstance(x, bool):
        return x, _np.dtype(bool)
    if _is_weak(x):
        if isinstance(x, int) and not _INT64_MIN <= x <= _INT64_MAX and nin == 1:
            # NumPy's asarray: uint64 when it fits, else an object array (no loop)
            if 0 <= x <= _UINT64_MAX:
                return _C.asarray(_np.array(x, _np.uint64)), _np.dtype(_np.uint64)
            raise _te(f"[{name}] loop of ufunc does not support argument {i} of type int which has no callable "
                      f"{npname} method ({x} is outside int64 and uint64: NumPy makes it an object array)")
        return x, type(x)
    a = _C.asarray(x)
    return a, _np.dtype(a.dtype)


def _weak_as(name, x, dt):
    """A weak Python scalar as a 0-d array of the loop dtype, converted as NumPy's ufuncs do (an int
    out of an integer dtype's range is OverflowError; a float bound for bfloat16 goes through float32)."""
    if isinstance(x, int):
        try:
            with _np.errstate(all="ignore"):
                return _C.asarray(_np.array(x, dt))
        except OverflowError as e:
            raise _errors.AscendOverflowError(_errors.ErrorCode.OVERFLOW, f"[{name}] {e}") from None
    if isinstance(x, float):
        v = _np.array(x)
    else:
        v = _np.array(x, _np.complex128)
    if dt == _BF16 and v.dtype.kind == "f":
        v = v.astype(_np.float32)
    with _np.errstate(all="ignore"):
        return _C.asarray(v.astype(dt) if v.dtype != dt else v)


def _resolve(name, npu, dts, out_dt, signature, casting):
    kw = {} if signature is None else {"signature": signature}
    try:
        return npu.resolve_dtypes(tuple(dts) + (out_dt,), casting=casting, **kw)
    except TypeError as e:
        raise _te(f"[{name}] {e}") from None
    except ValueError as e:
        raise _ve(f"[{name}] {e}") from None


def _own_loop(name, nin, vals, dts, dtype, signature, casting, out_dt):
    """Loop dtypes of a function NumPy has no ufunc for: dtype= casts the operands."""
    if signature is not None:
        raise _nie(f"[{name}] signature= is not supported by pyasc for {name} (not a NumPy ufunc)")
    if dtype is None:
        return None
    for i, d in enumerate(dts):
        if isinstance(d, _np.dtype) and not _np.can_cast(d, dtype, casting=casting):
            raise _te(f"[{name}] Cannot cast ufunc '{name}' input {i} from dtype('{d}') to dtype('{dtype}') with "
                      f"casting rule '{casting}'")
    return (dtype,) * nin + (dtype,)


def _mask(name, where):
    m = where if isinstance(where, _C.ndarray) else _C.asarray(where)
    if m.dtype != _np.bool_:
        if not _np.can_cast(m.dtype, _np.bool_, casting="safe"):
            raise _te(f"[{name}] Cannot cast array data from dtype('{m.dtype}') to dtype('bool') according to the "
                      f"rule 'safe' (where=)")
        m = _C.astype(m, _np.bool_)
    return m


def _f_layout(x):
    if x.ndim < 2 or x.flags.f_contiguous:
        return x
    return _C.transpose(_C.transpose(x).copy())


def call(name, nin, args, kwargs, impl=None, core=False, extra=(), core_dims=0):
    """``name(*args, **kwargs)`` with NumPy's ufunc semantics (see the module docstring).

    ``impl(*operands, **extra_kwargs)`` computes the result from operands of the loop dtypes
    (default: the registry op ``pyasc._C.<name>``); ``core``: a generalised ufunc (no where=) whose
    result has ``core_dims`` core dimensions (an out must match them; its loop dimensions broadcast);
    ``extra``: the function's own keywords, passed to ``impl`` (``vecdot``'s ``axis``)."""
    if impl is None:
        impl = getattr(_C, name)
    npu = _np_ufunc(name)
    npname = npu.__name__ if npu is not None else name
    if not nin <= len(args) <= nin + 1:
        raise _te(f"[{name}] {name}() takes from {nin} to {nin + 1} positional arguments but {len(args)} were given")
    allowed = (_GUFUNC_KEYWORDS if core else _KEYWORDS) | frozenset(extra)
    for k in kwargs:
        if k not in allowed:
            raise _te(f"[{name}] {name}() got an unexpected keyword argument '{k}'")
    out = _parse_out(name, args, nin, kwargs)
    casting, order, dtype, signature = _check_options(name, kwargs, core, extra)
    ops = [_operand(name, nin, i, x, npname) for i, x in enumerate(args[:nin])]
    vals, dts = [v for v, _ in ops], [d for _, d in ops]
    if nin == 1 and isinstance(dts[0], type):  # a unary ufunc's Python scalar is not weak: int64/float64/...
        dts = [_np.dtype(_DEFAULT[dts[0]])]
    out_dt = _np.dtype(out.dtype) if out is not None else None
    if npu is not None:
        if dtype is not None:  # NumPy: dtype= fixes the output dtype of the loop
            signature = (None,) * nin + (dtype,)
        try:
            loop = _resolve(name, npu, dts, out_dt, signature, casting)
        except TypeError as e:
            # NumPy converts a Python int outside int64/uint64 before it checks the casts into a non-float loop
            # (a C long, or uint64 for a uint64 loop)
            hi = _UINT64_MAX if dtype == _np.uint64 or (dtype is None and _np.dtype(_np.uint64) in dts) \
                else _INT64_MAX
            inexact = dtype is not None and dtype.kind in "fc"
            if not inexact and out_dt is not None and "Cannot cast ufunc" in str(e):
                # (the operands alone pick a float loop -- bfloat16 with a Python int is float32's --:
                # the int is converted to that float, never to a C long; the cast into out is the error)
                try:
                    inexact = all(d.kind in "fc" for d in _resolve(name, npu, dts, None, signature, casting)[:nin])
                except TypeError:
                    pass
            for i, v in enumerate(vals if "Cannot cast ufunc" in str(e) and not inexact else ()):
                # (not for a ufunc without any integer loop at this input, float_power: NumPy never
                # converts the int to an integer there, the cast into out is the error)
                if type(v) is int and not _INT64_MIN <= v <= hi and \
                        _builtins.any(t[i] in "?bBhHiIlLqQ" for t in npu.types):
                    raise _errors.AscendOverflowError(
                        _errors.ErrorCode.OVERFLOW, f"[{name}] Python int too large to convert to C long ({v})") \
                        from None
            if nin >= 2 and dtype is not None and dtype.kind in "iu" and "Cannot cast ufunc" in str(e):
                # then the int into the integer loop dtype= names (-1 into uint64), still before the casts;
                # only for NumPy's weak-scalar promotion of several operands (invert(-1, dtype=uint64) is
                # the casting error)
                info = _np.iinfo(dtype)
                for v in vals:
                    if type(v) is int and not info.min <= v <= info.max:
                        raise _errors.AscendOverflowError(
                            _errors.ErrorCode.OVERFLOW, f"[{name}] Python integer {v} out of bounds for {dtype}") \
                            from None
            if out_dt is not None and any(type(v) is int for v in vals):
                # NumPy picks the loop from the operands, converts the Python ints to it (their
                # OverflowError) and only then checks the cast into out
                try:
                    loop0 = _resolve(name, npu, dts, None, signature, casting)
                except TypeError:
                    loop0 = None
                for i, v in enumerate(vals if loop0 is not None else ()):
                    if type(v) is int:
                        _weak_as(name, v, loop0[i])
            raise
    else:
        loop = _own_loop(name, nin, vals, dts, dtype, signature, casting, out_dt)
    if core:  # NumPy checks the operands' core dimensions before it casts any (a huge view must not be cast),
        # after it converted the Python scalars to the loop dtypes (their OverflowError first)
        if loop is not None:
            vals = [_weak_as(name, v, loop[i]) if _is_weak(v) else v for i, v in enumerate(vals)]
        remap = _core_remap(name, npu, vals, out, kwargs) if npu is not None else None
        if remap is not None:
            vals, out, user_out, out_perm, kept = remap
        else:
            _check_core_ndims(name, npu, vals)

    if not core and loop is not None:
        # NumPy converts the Python scalars to the loop's dtypes (NEP 50: their OverflowError)
        # while it resolves the loop, before its iterator broadcasts the operands with out
        vals = [_weak_as(name, v, loop[i]) if _is_weak(v) else v for i, v in enumerate(vals)]
    where = kwargs.get("where", True)
    mask = None if where is None or (isinstance(where, (bool, _np.bool_)) and where) else _mask(name, where)
    if not core:  # NumPy broadcasts every operand before it casts any (a huge view must not be cast first)
        _broadcast(name, [tuple(v.shape) for v in vals if isinstance(v, _C.ndarray)], mask, out)
    if loop is not None:
        vals = [_weak_as(name, v, loop[i]) if _is_weak(v) else
                (v if isinstance(v, bool) or _np.dtype(v.dtype) == loop[i] else _C.astype(v, loop[i]))
                for i, v in enumerate(vals)]
        vals = [_C.asarray(_np.array(v, loop[i])) if isinstance(v, bool) else v for i, v in enumerate(vals)]
    if not core:
        remap = None
    res = impl(*vals, **{k: kwargs[k] for k in extra if k in kwargs and (remap is None or k != "axis")})
    if not isinstance(res, _C.ndarray):
        res = _C.asarray(res)
    if loop is not None and _np.dtype(res.dtype) != loop[-1]:
        res = _C.astype(res, loop[-1])
    if out is not None and out_dt is not None and npu is None and \
            not _np.can_cast(_np.dtype(res.dtype), out_dt, casting=casting):
        raise _te(f"[{name}] Cannot cast ufunc '{name}' output from dtype('{res.dtype}') to dtype('{out_dt}') with "
                  f"casting rule '{casting}'")
    if core and out is not None and core_dims:
        k = min(core_dims, res.ndim)
        if k and (out.ndim < k or tuple(out.shape[out.ndim - k:]) != tuple(res.shape[res.ndim - k:])):
            raise _ve(f"[{name}] Output operand 0 has a mismatch in its core dimensions: out has shape "
                      f"{_shape_str(out.shape)}, the result {_shape_str(res.shape)}")
    bshape = _broadcast(name, [tuple(res.shape)], mask, out)
    if out is None:
        if mask is not None:
            res = _C.where(mask, res, _C.full((), 0, res.dtype))
        elif tuple(res.shape) != bshape:
            res = _C.broadcast_to(res, bshape).copy()
        if remap is not None:  # the result's core axes where axes=/axis=/keepdims= put them
            for _ in range(kept):
                res = _C.expand_dims(res, -1)
            if out_perm is not None:
                res = _C.transpose(res, tuple(_np.argsort(out_perm).tolist())).copy()
        if order == "F" or (order == "A" and _all_fortran(args[:nin])):
            res = _f_layout(res)
        return res
    if isinstance(out, _np.ndarray):
        host = _np.asarray(res)
        if mask is None:
            _np.copyto(out, host, casting="unsafe")
        else:
            _np.copyto(out, host, casting="unsafe", where=_np.asarray(mask))
        return out if remap is None else user_out
    if _np.dtype(res.dtype) != out_dt:
        res = _C.astype(res, out_dt)
    if mask is not None:
        res = _C.where(mask, res, out)
    _C._copy_into(out, res)
    return out if remap is None else user_out


def _c_int(x, op=None):
    """An axis as NumPy's PyArray_PyIntAsInt reads it: no bool, operator.index, a C long, then a C int."""
    pre = f"[{op}] axis: " if op else ""
    if isinstance(x, (bool, _np.bool_)):
        raise _te(f"{pre}an integer is required")
    try:
        v = _operator.index(x)
    except TypeError as e:
        raise _te(f"{pre}{e}") from None
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise _errors.AscendOverflowError(_errors.ErrorCode.OVERFLOW, f"{pre}Python int too large to convert to C long")
    if not -(1 << 31) <= v < (1 << 31):
        raise _ve(f"{pre}integer won't fit into a C int")
    return v


def _core_labels(npu):
    """Per operand (inputs, then the output), the core dimension labels of a gufunc signature
    ('(n?,k),(k,m?)->(n?,m?)': [['n?', 'k'], ['k', 'm?'], ['n?', 'm?']])."""
    return [[d.strip() for d in g.split(",") if d.strip()] for g in _re.findall(r"\(([^)]*)\)", npu.signature)]


def _core_remap(name, npu, vals, out, kwargs):
    """NumPy's ``axes=``, ``axis=`` and ``keepdims=`` of a generalised ufunc, in NumPy's order of
    checks (ufunc_object.c: keepdims support, axis support, the operands' core ndims, then the
    axes themselves). The gufunc itself always works on the last dimensions: every input is
    returned transposed so that its core axes come last (a view), and ``out`` as the same kind of
    view of the user's array (vecdot's own ``axis=`` is moved the same way: its implementation
    gets the default axis). Then the core dimensions' sizes are checked (NumPy's
    _get_coredim_sizes), still before any operand is cast: a huge broadcast view with a mismatched
    core dimension is NumPy's ValueError, not a MemoryError from casting it first. Returns (vals,
    out view, the user's out, the permutation that places the default-order result in the output
    or None, the number of kept dims)."""
    keepdims = kwargs.get("keepdims") if "keepdims" in kwargs else None
    has_axis = "axis" in kwargs
    labels = _core_labels(npu)
    nin, sig = npu.nin, npu.signature
    if keepdims is not None:
        for i in range(1, len(labels)):
            if len(labels[i]) != (len(labels[0]) if i < nin else 0):
                raise _te(f"[{name}] {name} does not support keepdims: its signature {sig} requires "
                          f"{'input' if i < nin else 'output'} {i if i < nin else i - nin} to have {len(labels[i])} "
                          f"core dimensions, but keepdims can only be used when all inputs have the same number of "
                          f"core dimensions and all outputs have no core dimensions.")
    distinct = {d.rstrip("?") for g in labels for d in g}
    if has_axis and len(distinct) != 1:
        raise _te(f"[{name}] {name}: axis can only be used with a single shared core dimension, not with the "
                  f"{len(distinct)} distinct ones implied by signature {sig}.")
    _check_core_ndims(name, npu, vals)
    # optional ('?') dimensions an input lacks are missing everywhere (matmul of a 1-d operand)
    missing = {d for i, g in enumerate(labels[:nin]) if vals[i].ndim < len(g) for d in g if d.endswith("?")}
    ncore = [len([d for d in g if d not in missing]) for g in labels]
    if keepdims:
        ncore[nin:] = [ncore[0]] * (len(labels) - nin)
    ops = list(vals) + [out]
    if out is not None and out.ndim < ncore[nin]:
        raise _ve(f"[{name}] {name}: Output operand 0 does not have enough dimensions (has {out.ndim}, gufunc core "
                  f"with signature {sig} requires {ncore[nin]})")
    bnd = max(op.ndim - c for op, c in zip(ops, ncore) if op is not None)
    ndims = [op.ndim if op is not None else bnd + c for op, c in zip(ops, ncore)]
    perms = [None] * len(ops)
    if has_axis:
        ax = _c_int(kwargs["axis"])
        for i in range(len(ops)):
            if ncore[i]:
                perms[i] = _core_perm(ndims[i], [ax], i)
    elif "axes" in kwargs:
        axes = kwargs["axes"]
        if not isinstance(axes, list):
            raise _te(f"[{name}] axes should be a list.")
        if len(axes) != len(ops) and (len(axes) != nin or _builtins.any(labels[nin:])):
            raise _ve(f"[{name}] axes should be a list with an entry for all {len(ops)} inputs and outputs; entries "
                      f"for outputs can only be omitted if none of them has core axes.")
        for i, item in enumerate(axes):
            if isinstance(item, tuple):
                if len(item) != ncore[i]:
                    raise _np.exceptions.AxisError(f"{name}: operand {i} has {ncore[i]} core dimensions, but "
                                                   f"{len(item)} dimensions are specified by axes tuple.")
            elif ncore[i] == 1:
                item = (item,)
            else:
                try:
                    _c_int(item)
                except (TypeError, ValueError, OverflowError):
                    raise _te(f"[{name}] {name}: axes item {i} should be a tuple.") from None
                raise _np.exceptions.AxisError(f"{name}: operand {i} has {ncore[i]} core dimensions, but the axes "
                                               f"item is a single integer.")
            perms[i] = _core_perm(ndims[i], item, i)
    vals = [v if p is None else _C.transpose(v, tuple(p)) for v, p in zip(vals, perms)]
    view = out
    if out is not None:
        p = perms[-1]
        view = out if p is None else (_np.transpose(out, p) if isinstance(out, _np.ndarray) else _C.transpose(out, tuple(p)))
        if keepdims:  # the kept size-1 dimensions are not the gufunc's
            if _builtins.any(d != 1 for d in view.shape[view.ndim - ncore[nin]:]):
                raise _ve(f"[{name}] {name}: Output operand 0 has a mismatch in its kept core dimensions: out has "
                          f"shape {_shape_str(out.shape)} (size 1 expected)")
            view = view[(Ellipsis,) + (0,) * ncore[nin]]
    _check_core_sizes(name, sig, labels, missing, vals + ([view] if view is not None and not keepdims else []), nin)
    return vals, view, out, perms[-1], ncore[nin] if keepdims else 0


def _check_core_sizes(name, sig, labels, missing, ops, nin):
    """Equal sizes of the core dimensions with one label (in the operands' last dimensions)."""
    size = {}
    for i, op in enumerate(ops):
        present = [d for d in labels[i] if d not in missing]
        for j, d in enumerate(present):
            n = op.shape[op.ndim - len(present) + j]
            key = d.rstrip("?")
            if key not in size:
                size[key] = n
            elif n != size[key]:
                raise _ve(f"[{name}] {name}: {'Input' if i < nin else 'Output'} operand {i if i < nin else i - nin} "
                          f"has a mismatch in its core dimension {j}, with gufunc signature {sig} (size {n} is "
                          f"different from {size[key]})")


def _core_perm(ndim, core_axes, iop):
    """The transpose that moves an operand's core axes (NumPy's check_and_adjust_axis each, no
    repeats) after its loop axes; None when it changes nothing."""
    seen = []
    for a in core_axes:
        v = _c_int(a)
        if not -ndim <= v < ndim:
            raise _np.exceptions.AxisError(v, ndim)
        v %= ndim
        if v in seen:
            raise _ve(f"axes item {iop} has value {v} repeated")
        seen.append(v)
    perm = [a for a in range(ndim) if a not in seen] + seen
    return None if perm == list(range(ndim)) else perm


def _check_core_ndims(name, npu, vals):
    """NumPy's gufunc check that every operand has its core dimensions (``(n?,k)`` needs 1: a
    ``?`` dimension is optional), from the NumPy gufunc's signature."""
    sig = getattr(npu, "signature", None) if npu is not None else None
    if not sig:
        return
    for i, (group, v) in enumerate(zip(_re.findall(r"\(([^)]*)\)", sig.split("->")[0]), vals)):
        need = _builtins.sum(1 for d in group.split(",") if d.strip() and not d.strip().endswith("?"))
        nd = v.ndim if isinstance(v, _C.ndarray) else 0
        if nd < need:
            raise _ve(f"[{name}] {npu.__name__}: Input operand {i} does not have enough dimensions (has {nd}, "
                      f"gufunc core with signature {sig} requires {need})")


def _broadcast(name, shapes, mask, out):
    """The broadcast shape of the operands, where= and out (NumPy's errors: out never broadcasts)."""
    shapes = list(shapes) + ([tuple(mask.shape)] if mask is not None else [])
    try:
        bshape = _np.broadcast_shapes(*shapes)
        if out is not None:
            full = _np.broadcast_shapes(bshape, tuple(out.shape))
    except ValueError:
        every = shapes + ([tuple(out.shape)] if out is not None else [])
        raise _ve(f"[{name}] operands could not be broadcast together with shapes "
                  f"{' '.join(_shape_str(s) for s in every)}{' (where= included)' if mask is not None else ''}"
                  f"{' (the last is out)' if out is not None else ''}") from None
    if out is not None and full != tuple(out.shape):
        raise _ve(f"[{name}] non-broadcastable output operand with shape {_shape_str(out.shape)} doesn't match the "
                  f"broadcast shape {_shape_str(full)}")
    return full if out is not None else bshape


def _all_fortran(xs):
    arrays = [x for x in xs if isinstance(x, _C.ndarray) and x.ndim >= 2]
    return bool(arrays) and all(x.flags.f_contiguous and not x.flags.c_contiguous for x in arrays)


def make(name, nin, fast, impl=None, *, doc=None, core=False, extra=(), core_dims=0):
    """A Python-level ufunc: ``fast(*operands, out=None)`` for the plain call (``f(x)``,
    ``f(x, out=pyasc_array)``), :func:`call` with ``impl`` (default ``fast`` without out) for
    any call with NumPy's keywords. ``extra`` keywords go to both."""
    loop = impl if impl is not None else fast

    def ufunc(*args, **kwargs):
        # (a gufunc's Python scalar operand takes the keyword path: NumPy converts it to the loop
        # dtype, OverflowError and all, before it looks at core dimensions)
        if len(args) == nin and not (core and any(_is_weak(a) for a in args)):
            o = kwargs.get("out")
            if len(kwargs) == (1 if "out" in kwargs else 0) and (o is None or isinstance(o, _C.ndarray)):
                return fast(*args, out=o)
        return call(name, nin, args, kwargs, impl=loop, core=core, extra=extra, core_dims=core_dims)

    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = doc if doc is not None else getattr(fast, "__doc__", None)
    ufunc.nin, ufunc.nout = nin, 1
    return ufunc
