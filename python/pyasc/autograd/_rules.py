"""VJP rules of the NumPy-style pyasc functions (element-wise, reductions, matmul, shape and
indexing). A rule is ``rule(g, out, *operands, needs, **attrs)`` -> one cotangent per positional
operand (None where no gradient flows or ``needs[i]`` is False); cotangents may be of a broadcast
shape: :func:`unbroadcast` sums them back to the operand's shape. Every rule is written with pyasc
ops, so the backward records into the lazy graph and fuses like the forward.
"""

from __future__ import annotations

import math as _math

import numpy as _np


def _asc():
    import pyasc

    return pyasc


def _shape(x):
    return tuple(getattr(x, "shape", ()))


def unbroadcast(g, shape):
    """Sums ``g`` over the axes broadcasting added or stretched to reach ``shape``."""
    shape = tuple(shape)
    gs = tuple(g.shape)
    if gs == shape:
        return g
    asc = _asc()
    lead = len(gs) - len(shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(shape) if d == 1 and gs[lead + i] != 1]
    if axes:
        g = asc.sum(g, axis=tuple(axes), keepdims=True)
    return g.reshape(shape)


def _ub(g, x):
    return None if not hasattr(x, "shape") and not isinstance(x, (int, float, complex)) else unbroadcast(g, _shape(x))


def _unary(fn):
    def rule(g, out, x, *rest, needs, **kw):
        return (fn(g, out, x),) + (None,) * len(rest)

    return rule


def _binary(fx, fy):
    def rule(g, out, x, y, *rest, needs, **kw):
        gx = unbroadcast(fx(g, out, x, y), _shape(x)) if needs[0] else None
        gy = unbroadcast(fy(g, out, x, y), _shape(y)) if needs[1] else None
        return (gx, gy) + (None,) * len(rest)

    return rule


def _zero(g, out, *ops, needs, **kw):
    return (None,) * len(ops)


_SQRT_2_OVER_PI = 2.0 / _math.sqrt(_math.pi)


def _elementwise_rules():
    asc = _asc()
    A = asc
    r = {
        "add": _binary(lambda g, o, x, y: g, lambda g, o, x, y: g),
        "subtract": _binary(lambda g, o, x, y: g, lambda g, o, x, y: -g),
        "multiply": _binary(lambda g, o, x, y: g * y, lambda g, o, x, y: g * x),
        "divide": _binary(lambda g, o, x, y: g / y, lambda g, o, x, y: -g * o / y),
        "power": _binary(lambda g, o, x, y: g * y * A.power(x, y - 1),
                         lambda g, o, x, y: g * o * A.log(A.where(A.asarray(x) > 0, x, 1))),
        "maximum": _binary(lambda g, o, x, y: g * _tie(x, y, 1), lambda g, o, x, y: g * _tie(y, x, 1)),
        "minimum": _binary(lambda g, o, x, y: g * _tie(x, y, -1), lambda g, o, x, y: g * _tie(y, x, -1)),
        "fmax": _binary(lambda g, o, x, y: g * _tie(x, y, 1), lambda g, o, x, y: g * _tie(y, x, 1)),
        "fmin": _binary(lambda g, o, x, y: g * _tie(x, y, -1), lambda g, o, x, y: g * _tie(y, x, -1)),
        "arctan2": _binary(lambda g, o, y, x: g * x / (x * x + y * y), lambda g, o, y, x: -g * y / (x * x + y * y)),
        "hypot": _binary(lambda g, o, x, y: g * x / o, lambda g, o, x, y: g * y / o),
        "logaddexp": _binary(lambda g, o, x, y: g * A.exp(x - o), lambda g, o, x, y: g * A.exp(y - o)),
        "negative": _unary(lambda g, o, x: -g),
        "positive": _unary(lambda g, o, x: g),
        "exp": _unary(lambda g, o, x: g * o),
        "exp2": _unary(lambda g, o, x: g * o * _math.log(2.0)),
        "expm1": _unary(lambda g, o, x: g * (o + 1)),
        "log": _unary(lambda g, o, x: g / x),
        "log1p": _unary(lambda g, o, x: g / (x + 1)),
        "log2": _unary(lambda g, o, x: g / (x * _math.log(2.0))),
        "log10": _unary(lambda g, o, x: g / (x * _math.log(10.0))),
        "sqrt": _unary(lambda g, o, x: g / (o * 2)),
        "cbrt": _unary(lambda g, o, x: g / (o * o * 3)),
        "square": _unary(lambda g, o, x: g * x * 2),
        "reciprocal": _unary(lambda g, o, x: -g * o * o),
        "abs": _unary(lambda g, o, x: g * A.sign(x)),
        "sin": _unary(lambda g, o, x: g * A.cos(x)),
        "cos": _unary(lambda g, o, x: -g * A.sin(x)),
        "tan": _unary(lambda g, o, x: g * (o * o + 1)),
        "tanh": _unary(lambda g, o, x: g * (1 - o * o)),
        "sinh": _unary(lambda g, o, x: g * A.cosh(x)),
        "cosh": _unary(lambda g, o, x: g * A.sinh(x)),
        "arcsin": _unary(lambda g, o, x: g / A.sqrt(1 - x * x)),
        "arccos": _unary(lambda g, o, x: -g / A.sqrt(1 - x * x)),
        "arctan": _unary(lambda g, o, x: g / (x * x + 1)),
        "arcsinh": _unary(lambda g, o, x: g / A.sqrt(x * x + 1)),
        "arccosh": _unary(lambda g, o, x: g / A.sqrt(x * x - 1)),
        "arctanh": _unary(lambda g, o, x: g / (1 - x * x)),
        "sigmoid": _unary(lambda g, o, x: g * o * (1 - o)),
        "erf": _unary(lambda g, o, x: g * A.exp(-(x * x)) * _SQRT_2_OVER_PI),
        "erfc": _unary(lambda g, o, x: g * A.exp(-(x * x)) * -_SQRT_2_OVER_PI),
        "sign": _zero, "floor": _zero, "ceil": _zero, "trunc": _zero, "rint": _zero, "round": _zero,
        "where": _where,
        "clip": _clip,
        "_astype": lambda g, o, x, dt, *, needs: (g.astype(x.dtype), None),
        "_copy": _unary(lambda g, o, x: g),
    }
    r["true_divide"] = r["divide"]
    r["absolute"] = r["fabs"] = r["abs"]
    r["arcsin"] = r["arcsin"]
    r["asin"], r["acos"], r["atan"], r["atan2"] = r["arcsin"], r["arccos"], r["arctan"], r["arctan2"]
    r["asinh"], r["acosh"], r["atanh"] = r["arcsinh"], r["arccosh"], r["arctanh"]
    r["pow"] = r["power"]
    return r


def _tie(x, y, sign):
    # d max(x, y)/dx: 1 where x wins, 1/2 on a tie (torch and JAX split a tie evenly)
    asc = _asc()
    x, y = asc.asarray(x), asc.asarray(y)
    win = (x > y) if sign > 0 else (x < y)
    return win.astype(x.dtype) + (x == y).astype(x.dtype) * 0.5


def _where(g, out, cond, x=None, y=None, *, needs):
    asc = _asc()
    zero = asc.zeros((), dtype=g.dtype)
    gx = unbroadcast(asc.where(cond, g, zero), _shape(x)) if needs[1] else None
    gy = unbroadcast(asc.where(cond, zero, g), _shape(y)) if len(needs) > 2 and needs[2] else None
    return (None, gx, gy)


def _clip(g, out, x, lo=None, hi=None, *, needs, **kw):
    asc = _asc()
    x = asc.asarray(x)
    keep = asc.ones(x.shape, dtype=bool)
    if lo is not None:
        keep = keep & (x >= lo)
    if hi is not None:
        keep = keep & (x <= hi)
    gx = asc.where(keep, g, 0).astype(g.dtype) if needs[0] else None
    glo = unbroadcast(asc.where(x < lo, g, 0).astype(g.dtype), _shape(lo)) if len(needs) > 1 and needs[1] else None
    ghi = unbroadcast(asc.where(x > hi, g, 0).astype(g.dtype), _shape(hi)) if len(needs) > 2 and needs[2] else None
    return (gx, glo, ghi)


# -- reductions ------------------------------------------------------------------------------------

def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        return tuple(sorted(a % ndim for a in axis))
    return (axis % ndim,)


def _expand(g, x, axis, keepdims):
    """The reduced cotangent reshaped so it broadcasts against ``x``."""
    if keepdims or x.ndim == 0:
        return g
    shape = list(x.shape)
    for a in _axes(axis, x.ndim):
        shape[a] = 1
    return g.reshape(tuple(shape))


def _count(x, axis):
    n = 1
    for a in _axes(axis, x.ndim):
        n *= x.shape[a]
    return n


def _red_args(args, kw):
    axis = kw.get("axis", args[0] if args else None)
    keepdims = kw.get("keepdims", False)
    return axis, bool(keepdims)


def _sum(g, out, x, *args, needs, **kw):
    asc = _asc()
    axis, kd = _red_args(args, kw)
    return (asc.broadcast_to(_expand(g, x, axis, kd), x.shape),) + (None,) * len(args)


def _mean(g, out, x, *args, needs, **kw):
    asc = _asc()
    axis, kd = _red_args(args, kw)
    return (asc.broadcast_to(_expand(g, x, axis, kd) / _count(x, axis), x.shape),) + (None,) * len(args)


def _maxmin(g, out, x, *args, needs, **kw):
    # the cotangent is shared evenly among the elements equal to the extreme (torch's amax rule)
    asc = _asc()
    axis, kd = _red_args(args, kw)
    o = _expand(out, x, axis, kd)
    mask = (x == o).astype(g.dtype)
    cnt = asc.sum(mask, axis=_axes(axis, x.ndim), keepdims=True)
    return (_expand(g, x, axis, kd) * mask / cnt,) + (None,) * len(args)


def _prod(g, out, x, *args, needs, **kw):
    # out / x where x != 0; with zeros, the product of the others (computed by masking each zero)
    asc = _asc()
    axis, kd = _red_args(args, kw)
    ax = _axes(axis, x.ndim)
    zero = x == 0
    nz = asc.where(zero, 1, x).astype(x.dtype)
    pnz = asc.prod(nz, axis=ax, keepdims=True)
    nzero = asc.sum(zero.astype(asc.int64), axis=ax, keepdims=True)
    others = asc.where(zero, asc.where(nzero == 1, pnz, 0), asc.where(nzero == 0, pnz / nz, 0))
    return (_expand(g, x, axis, kd) * others.astype(x.dtype),) + (None,) * len(args)


def _var(g, out, x, *args, needs, **kw):
    asc = _asc()
    axis, kd = _red_args(args, kw)
    ddof = kw.get("ddof", 0)
    m = asc.mean(x, axis=_axes(axis, x.ndim), keepdims=True)
    return (_expand(g, x, axis, kd) * (x - m) * (2.0 / (_count(x, axis) - ddof)),) + (None,) * len(args)


def _std(g, out, x, *args, needs, **kw):
    asc = _asc()
    axis, kd = _red_args(args, kw)
    ddof = kw.get("ddof", 0)
    m = asc.mean(x, axis=_axes(axis, x.ndim), keepdims=True)
    return (_expand(g, x, axis, kd) * (x - m) / (_expand(out, x, axis, kd) * (_count(x, axis) - ddof)),) + \
        (None,) * len(args)


def _cumsum(g, out, x, axis=None, *args, needs, **kw):
    asc = _asc()
    axis = kw.get("axis", axis)
    if axis is None:
        return (asc.flip(asc.cumsum(asc.flip(g.ravel()))).reshape(x.shape),) + (None,) * (len(args) + 1)
    return (asc.flip(asc.cumsum(asc.flip(g, axis), axis=axis), axis),) + (None,) * (len(args) + 1)


# -- products ----------------------------------------------------------------------------------------

def _matmul(g, out, a, b, *, needs, **kw):
    asc = _asc()
    if a.ndim == 1 and b.ndim == 1:  # inner product: a 0-d cotangent
        return (g * b if needs[0] else None, g * a if needs[1] else None)
    a2 = a if a.ndim > 1 else a.reshape((1, a.shape[0]))
    b2 = b if b.ndim > 1 else b.reshape((b.shape[0], 1))
    g2 = g
    if a.ndim == 1:
        g2 = asc.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = asc.expand_dims(g2, -1)
    ga = gb = None
    if needs[0]:
        ga = unbroadcast(asc.matmul(g2, asc.swapaxes(b2, -1, -2)), a2.shape).reshape(a.shape)
    if needs[1]:
        gb = unbroadcast(asc.matmul(asc.swapaxes(a2, -1, -2), g2), b2.shape).reshape(b.shape)
    return (ga, gb)


def _dot(g, out, a, b, *, needs, **kw):
    if a.ndim == 0 or b.ndim == 0:
        return _binary(lambda g, o, x, y: g * y, lambda g, o, x, y: g * x)(g, out, a, b, needs=needs)
    if a.ndim > 2 or b.ndim > 2:
        asc = _asc()
        raise asc.errors.AscendNotImplementedError(asc.ErrorCode.API_NOT_SUPPORT,
                                                   "[asc.grad] dot of arrays above 2-D has no rule (use matmul)")
    return _matmul(g, out, a, b, needs=needs)


# -- shape and indexing ------------------------------------------------------------------------------

def _reshape(g, out, x, *args, needs, **kw):
    return (g.reshape(x.shape),) + (None,) * len(args)


def _transpose(g, out, x, axes=None, *, needs, **kw):
    asc = _asc()
    axes = kw.get("axes", axes)
    if axes is None:
        return (asc.transpose(g), None)
    inv = tuple(int(i) for i in _np.argsort([a % x.ndim for a in axes]))
    return (asc.transpose(g, inv), None)


def _swapaxes(g, out, x, a, b, *, needs):
    return (_asc().swapaxes(g, a, b), None, None)


def _moveaxis(g, out, x, src, dst, *, needs):
    return (_asc().moveaxis(g, dst, src), None, None)


def _broadcast_to(g, out, x, shape, *, needs, **kw):
    return (unbroadcast(g, _shape(x)), None)


def _concatenate(g, out, seq, axis=0, *, needs, **kw):
    axis = kw.get("axis", axis)
    if axis is None:
        sizes = [int(_np.prod(s.shape)) for s in seq]
        g = g.ravel()
    else:
        sizes = [s.shape[axis] for s in seq]
    res, start = [], 0
    for s, n in zip(seq, sizes):
        if axis is None:
            res.append(g[start:start + n].reshape(s.shape))
        else:
            idx = [slice(None)] * g.ndim
            idx[axis] = slice(start, start + n)
            res.append(g[tuple(idx)])
        start += n
    return (res, None)


def _stack(g, out, seq, axis=0, *, needs, **kw):
    asc = _asc()
    axis = kw.get("axis", axis)
    return ([asc.take(g, i, axis=axis) for i in range(len(seq))], None)


def _flip(g, out, x, axis=None, *, needs, **kw):
    return (_asc().flip(g, kw.get("axis", axis)), None)


def _getitem(g, out, x, idx, *, needs):
    asc = _asc()
    z = asc.zeros(x.shape, dtype=g.dtype)
    if _basic_index(idx):
        z[idx] = g  # basic indexing: each element of x is selected at most once
        return (z, None)
    # advanced indexing may select an element several times: accumulate (np.add.at semantics)
    gz = _np.zeros(x.shape, dtype=_np.dtype(str(g.dtype)))
    _np.add.at(gz, _host_index(idx), asc.asnumpy(g) if hasattr(asc, "asnumpy") else _np.asarray(g))
    return (asc.asarray(gz), None)


def _basic_index(idx):
    items = idx if isinstance(idx, tuple) else (idx,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, _np.integer)) for i in items)


def _host_index(idx):
    asc = _asc()
    items = idx if isinstance(idx, tuple) else (idx,)
    out = tuple(_np.asarray(i) if isinstance(i, asc.ndarray) else i for i in items)
    return out if isinstance(idx, tuple) else out[0]


def _take(g, out, x, indices, axis=None, *, needs, **kw):
    asc = _asc()
    axis = kw.get("axis", axis)
    gz = _np.zeros(x.shape if axis is not None else (x.size,), dtype=_np.dtype(str(g.dtype)))
    ind = _np.asarray(indices) if isinstance(indices, asc.ndarray) else _np.asarray(indices)
    gh = _np.asarray(g)
    if axis is None:
        _np.add.at(gz, ind.ravel(), gh.ravel())
        return (asc.asarray(gz.reshape(x.shape)), None)
    ax = axis % x.ndim
    idx = (slice(None),) * ax + (ind,)
    _np.add.at(gz, idx, gh)
    return (asc.asarray(gz), None)


def _expand_dims(g, out, x, axis, *, needs):
    return (g.reshape(x.shape), None)


def asc_rules():
    r = _elementwise_rules()
    r.update({
        "sum": _sum, "mean": _mean, "max": _maxmin, "min": _maxmin, "amax": _maxmin, "amin": _maxmin,
        "prod": _prod, "var": _var, "std": _std, "cumsum": _cumsum,
        "matmul": _matmul, "dot": _dot,
        "reshape": _reshape, "ravel": _reshape, "squeeze": _reshape, "expand_dims": _expand_dims,
        "transpose": _transpose, "swapaxes": _swapaxes, "moveaxis": _moveaxis,
        "broadcast_to": _broadcast_to, "concatenate": _concatenate, "stack": _stack, "flip": _flip,
        "take": _take, "_getitem": _getitem, "ascontiguousarray": _unary(lambda g, o, x: g),
    })
    return r
