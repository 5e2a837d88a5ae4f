"""ONNX elementwise, comparison, logical, reduction, index-reduction and dense ops.

ONNX requires both operands of a binary op to have the same element type, so
NumPy's promotion of pyasc never widens here except where an op mixes types
(Pow's exponent, Where's condition): those cast back to ONNX's output type.
"""

from __future__ import annotations

import numpy as np

from ._registry import ONNX_DTYPES, host_ints, op


def _asc():
    import pyasc

    return pyasc


# ------------------------------------------------------------------ elementwise

_UNARY = {
    "Abs": "abs", "Neg": "negative", "Sqrt": "sqrt", "Exp": "exp", "Log": "log", "Floor": "floor", "Ceil": "ceil",
    "Reciprocal": "reciprocal", "Sign": "sign", "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "arcsin",
    "Acos": "arccos", "Atan": "arctan", "Sinh": "sinh", "Cosh": "cosh", "Asinh": "arcsinh", "Acosh": "arccosh",
    "Atanh": "arctanh", "Round": "rint", "IsNaN": "isnan", "Not": "logical_not", "Tanh": "tanh",
}
_BINARY = {
    "Add": "add", "Sub": "subtract", "Mul": "multiply", "Equal": "equal", "Less": "less", "Greater": "greater",
    "LessOrEqual": "less_equal", "GreaterOrEqual": "greater_equal", "And": "logical_and", "Or": "logical_or",
    "Xor": "logical_xor", "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor",
}


def _unary(fname):
    def run(node, inputs):
        return getattr(_asc(), fname)(inputs[0])

    return run


def _binary(fname):
    def run(node, inputs):
        return getattr(_asc(), fname)(inputs[0], inputs[1])

    return run


for _t, _f in _UNARY.items():
    op(_t)(_unary(_f))
for _t, _f in _BINARY.items():
    op(_t)(_binary(_f))


@op("BitwiseNot", since=18)
def _bitwise_not(node, inputs):
    return _asc().invert(inputs[0])


@op("Div")
def _div(node, inputs):
    asc = _asc()
    a, b = inputs
    if a.dtype.kind in "fc":
        return asc.divide(a, b)
    # integer Div truncates toward zero (C semantics, as onnxruntime); NumPy's // floors
    q = asc.floor_divide(a, b)
    if a.dtype.kind == "i":
        fix = (asc.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        q = q + fix.astype(q.dtype)
    return q


@op("Mod", since=10)
def _mod(node, inputs):
    asc = _asc()
    a, b = inputs
    if node.attr("fmod", 0):
        return asc.fmod(a, b)
    if a.dtype.kind == "f":
        raise node.error("AscendValueError", "fmod must be 1 for floating-point inputs (ONNX Mod)")
    return asc.remainder(a, b)


@op("Pow")
def _pow(node, inputs):
    x, y = inputs
    r = _asc().power(x, y)
    return r if r.dtype == x.dtype else r.astype(x.dtype)


@op("BitShift", since=11)
def _bitshift(node, inputs):
    asc = _asc()
    d = node.attr("direction")
    d = d.decode() if isinstance(d, bytes) else d
    if d == "LEFT":
        return asc.left_shift(inputs[0], inputs[1])
    if d == "RIGHT":
        return asc.right_shift(inputs[0], inputs[1])
    raise node.error("AscendValueError", f"direction must be 'LEFT' or 'RIGHT', got {d!r}")


@op("IsInf", since=10)
def _isinf(node, inputs):
    asc = _asc()
    x = inputs[0]
    neg, pos = node.attr("detect_negative", 1), node.attr("detect_positive", 1)
    if neg and pos:
        return asc.isinf(x)
    if pos:
        return asc.isposinf(x)
    if neg:
        return asc.isneginf(x)
    return asc.zeros(x.shape, dtype=bool)


@op("Clip")
def _clip(node, inputs):
    asc = _asc()
    x = inputs[0]
    if node.opset < 11:
        lo, hi = node.attr("min", -np.inf), node.attr("max", np.inf)
        lo = asc.asarray(lo, dtype=x.dtype) if np.isfinite(lo) else None
        hi = asc.asarray(hi, dtype=x.dtype) if np.isfinite(hi) else None
    else:
        lo = inputs[1] if len(inputs) > 1 else None
        hi = inputs[2] if len(inputs) > 2 else None
    # ONNX: min(max(x, lo), hi) (min > max gives max, as NumPy's clip)
    if lo is not None:
        x = asc.maximum(x, lo)
    if hi is not None:
        x = asc.minimum(x, hi)
    return x


def _variadic(fname, mean=False):
    def run(node, inputs):
        asc = _asc()
        xs = [v for v in inputs if v is not None]
        r = xs[0]
        for v in xs[1:]:
            r = getattr(asc, fname)(r, v)
        if mean:
            r = r / len(xs)
            r = r if r.dtype == xs[0].dtype else r.astype(xs[0].dtype)
        return r if len(xs) > 1 else asc.asarray(r).copy()

    return run


op("Max")(_variadic("maximum"))
op("Min")(_variadic("minimum"))
op("Sum")(_variadic("add"))
op("Mean")(_variadic("add", mean=True))


@op("Where", since=9)
def _where(node, inputs):
    return _asc().where(inputs[0], inputs[1], inputs[2])


@op("Cast")
def _cast(node, inputs):
    to = node.attr("to")
    if to not in ONNX_DTYPES:
        raise node.error("AscendTypeError", f"Cast to ONNX data type {to} is not supported", "INVALID_DTYPE")
    return inputs[0].astype(ONNX_DTYPES[to])


@op("CastLike", since=15)
def _cast_like(node, inputs):
    return inputs[0].astype(inputs[1].dtype)


@op("Erf", since=9)
def _erf(node, inputs):
    return _asc().ops.erf(inputs[0])


# ------------------------------------------------------------------ reductions


def _reduce_axes(node, inputs, attr_until):
    """The axes of a Reduce*: an attribute before opset ``attr_until``, an input from it; None = all."""
    if node.opset < attr_until:
        axes = node.attr("axes")
        axes = list(axes) if axes is not None else None
    else:
        axes = host_ints(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else None
    if not axes:
        return "noop" if node.attr("noop_with_empty_axes", 0) else None
    return tuple(axes)


def _reduction(kind, attr_until=18):
    def run(node, inputs):
        asc = _asc()
        x = inputs[0]
        axes = _reduce_axes(node, inputs, attr_until)
        if axes == "noop":
            return x.copy() if kind not in ("ReduceL2", "ReduceL1", "ReduceSumSquare") else _elementwise_of(kind, x)
        keep = bool(node.attr("keepdims", 1))
        if kind == "ReduceSum":
            r = asc.sum(x, axis=axes, keepdims=keep)
        elif kind == "ReduceMean":
            r = asc.mean(x, axis=axes, keepdims=keep)
        elif kind == "ReduceMax":
            r = asc.max(x, axis=axes, keepdims=keep)
        elif kind == "ReduceMin":
            r = asc.min(x, axis=axes, keepdims=keep)
        elif kind == "ReduceProd":
            r = asc.prod(x, axis=axes, keepdims=keep)
        elif kind == "ReduceL1":
            r = asc.sum(asc.abs(x), axis=axes, keepdims=keep)
        elif kind == "ReduceL2":
            r = asc.sqrt(asc.sum(x * x, axis=axes, keepdims=keep))
        elif kind == "ReduceSumSquare":
            r = asc.sum(x * x, axis=axes, keepdims=keep)
        elif kind == "ReduceLogSum":
            r = asc.log(asc.sum(x, axis=axes, keepdims=keep))
        else:  # ReduceLogSumExp, stable
            m = asc.max(x, axis=axes, keepdims=True)
            m = asc.where(asc.isfinite(m), m, asc.zeros_like(m))
            r = asc.log(asc.sum(asc.exp(x - m), axis=axes, keepdims=True)) + m
            if not keep:
                r = asc.squeeze(r, axis=axes if axes is not None else None)
        return r if r.dtype == x.dtype else r.astype(x.dtype)

    return run


def _elementwise_of(kind, x):
    asc = _asc()
    return {"ReduceL1": asc.abs, "ReduceL2": asc.abs, "ReduceSumSquare": lambda v: v * v}[kind](x)


op("ReduceSum")(_reduction("ReduceSum", attr_until=13))
for _k in ("ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
           "ReduceLogSum", "ReduceLogSumExp"):
    op(_k)(_reduction(_k))


def _arg(fname):
    def run(node, inputs):
        asc = _asc()
        x = inputs[0]
        axis = node.attr("axis", 0)
        keep = bool(node.attr("keepdims", 1))
        if node.attr("select_last_index", 0):
            n = x.shape[axis]
            r = (n - 1) - getattr(asc, fname)(asc.flip(x, axis=axis), axis=axis, keepdims=keep)
        else:
            r = getattr(asc, fname)(x, axis=axis, keepdims=keep)
        return r.astype("int64")

    return run


op("ArgMax")(_arg("argmax"))
op("ArgMin")(_arg("argmin"))


@op("TopK", since=10)
def _topk(node, inputs):
    asc = _asc()
    x = inputs[0]
    k = host_ints(inputs[1])[0]
    axis = node.attr("axis", -1)
    largest = node.attr("largest", 1)
    if not 0 <= k <= x.shape[axis]:
        raise node.error("AscendValueError", f"k = {k} is out of range for axis {axis} of shape {tuple(x.shape)}")
    key = x
    if largest:
        # an order-reversing key that cannot overflow (~v = -v - 1 for integers); a stable
        # sort of it keeps the lower index first among equal values, as onnxruntime
        key = -x if x.dtype.kind in "fc" else asc.invert(x)
    idx = asc.argsort(key, axis=axis, kind="stable")
    idx = asc.take(idx, asc.arange(k), axis=axis)
    return asc.take_along_axis(x, idx, axis=axis), idx.astype("int64")


@op("CumSum", since=11)
def _cumsum(node, inputs):
    asc = _asc()
    x = inputs[0]
    axis = host_ints(inputs[1])[0]
    if node.attr("reverse", 0):
        x = asc.flip(x, axis=axis)
    r = asc.cumsum(x, axis=axis, dtype=x.dtype)
    if node.attr("exclusive", 0):
        n = x.shape[axis]
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        r = asc.take(asc.pad(r, pad), asc.arange(n), axis=axis)
    if node.attr("reverse", 0):
        r = asc.flip(r, axis=axis)
    return r


@op("Einsum", since=12)
def _einsum(node, inputs):
    eq = node.attr("equation")
    eq = eq.decode() if isinstance(eq, bytes) else eq
    return _asc().einsum(eq.replace(" ", ""), *inputs)


# ------------------------------------------------------------------ dense


@op("MatMul")
def _matmul(node, inputs):
    return _asc().matmul(inputs[0], inputs[1])


@op("Gemm")
def _gemm(node, inputs):
    asc = _asc()
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    if node.attr("transA", 0):
        a = a.T
    if node.attr("transB", 0):
        b = b.T
    alpha, beta = node.attr("alpha", 1.0), node.attr("beta", 1.0)
    y = asc.matmul(a, b)
    if alpha != 1.0:
        y = y * asc.asarray(alpha, dtype=y.dtype)
    if c is not None and beta != 0.0:
        y = y + (c if beta == 1.0 else c * asc.asarray(beta, dtype=c.dtype))
    return y


def _gemm_prepare(node, inputs):
    """Gemm's prepared call (Model.run) for ``A @ B(^T) + C`` (transA 0, alpha 1, beta 0 or 1, one
    dtype, C broadcasting to the output without growing it): ``asc.ops.linear`` with ``out=`` --
    the run's arena slot when one comes (an eager product: A is read before it returns). Runs
    while A has the same shape and dtype and B / C are the same arrays; None otherwise."""
    if node.attr("transA", 0) or float(node.attr("alpha", 1.0)) != 1.0:
        return None
    beta = float(node.attr("beta", 1.0))
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    if beta not in (0.0, 1.0) or a is None or b is None or a.ndim != 2 or b.ndim != 2:
        return None
    bias = c if beta == 1.0 else None
    w = b if node.attr("transB", 0) else b.T  # linear computes A @ w.T
    if a.shape[1] != w.shape[1] or a.dtype != b.dtype or (bias is not None and bias.dtype != a.dtype):
        return None
    shape = (a.shape[0], w.shape[0])
    if bias is not None:
        try:
            if tuple(np.broadcast_shapes(shape, tuple(bias.shape))) != shape:
                return None
        except ValueError:
            return None
    ashape, adtype = tuple(a.shape), a.dtype
    linear = _asc().ops.linear

    def run(ins, out=None):
        x = ins[0]
        if ins[1] is not b or (ins[2] if len(ins) > 2 else None) is not c or tuple(x.shape) != ashape or \
                x.dtype != adtype:
            return None
        return linear(x, w, bias, out=out)

    run.accepts_out = True
    return run


_gemm.prepare = _gemm_prepare
