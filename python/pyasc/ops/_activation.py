"""asc.ops: activations and the softmax family (``torch.nn.functional`` signatures).

Fusion class: every activation here is *elementwise* and is composed from pyasc's
registry ops (maximum, where, exp/expm1/log1p, tanh, the device ops ``sigmoid``,
``erf``, ``erfc``), so it records into the lazy graph and fuses with its neighbours
into one loop (``gelu``, ``silu``, ``mish``, ``hardswish`` are short chains that run as
one fused group). The softmax family is *opaque*: one native kernel per call
(src/nn/softmax.cc; its input is materialised, its output starts a new fusion group)
that reads each row from memory once; float16/bfloat16 are read and written in place
with float32 arithmetic (torch's accumulate type). See docs/nn.md.
"""

from __future__ import annotations

from ._util import _asc  # noqa: F401 - shared helpers
from .. import _C

import warnings as _warnings

import numpy as _np

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "prelu", "elu", "elu_", "selu", "celu",
    "gelu", "gelu_backward", "silu", "mish", "sigmoid", "tanh", "hardtanh", "hardtanh_", "hardswish", "hardsigmoid",
    "softplus", "softsign", "erf", "logsigmoid", "glu", "threshold", "threshold_", "tanhshrink",
    "softshrink", "hardshrink", "rrelu", "softmax", "log_softmax", "softmin",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


_FLOAT_NAMES = ("float16", "float32", "float64", "bfloat16")
_NAME_OF = {}  # dtype -> str(dtype): NumPy's dtype __str__ is Python code (~5-20 us a call)


def _dtype_name(dt):
    key = (type(dt), dt)  # the type too: np.dtype("float32") == np.float32, their str differ
    try:
        r = _NAME_OF.get(key)
    except TypeError:  # an unhashable dtype-like
        return str(dt)
    if r is None:
        r = str(dt)
        if len(_NAME_OF) < 64:
            _NAME_OF[key] = r
    return r


def _is_float_dtype(dt):
    return _dtype_name(dt) in _FLOAT_NAMES


def _in(x, op, *, allow_int=False):
    """asarray(x) with torch's dtype rule for activations: floating only."""
    asc = _asc()
    a = x if isinstance(x, asc.ndarray) else asc.asarray(x)
    if not _is_float_dtype(a.dtype) and not (allow_int and _np.dtype(str(a.dtype)).kind in "iu"):
        raise asc.errors.AscendTypeError(
            asc.errors.ErrorCode.INVALID_DTYPE,
            f"[{op}] expects a floating input (float16/bfloat16/float32/float64), got {a.dtype}")
    return a


def _inplace(x, y, inplace):
    """torch's ``inplace=True``: write ``y`` into ``x`` (which must be a pyasc array) and return x."""
    if not inplace:
        return y
    asc = _asc()
    if not isinstance(x, asc.ndarray):
        raise asc.errors.AscendTypeError(asc.errors.ErrorCode.INVALID_PARAM,
                                         "inplace=True needs a pyasc array input")
    x[...] = y
    return x


def _param_error(op, msg):
    asc = _asc()
    return asc.errors.AscendValueError(asc.errors.ErrorCode.INVALID_PARAM, f"[{op}] {msg}")


def _shape_error(op, msg):
    asc = _asc()
    return asc.errors.AscendValueError(asc.errors.ErrorCode.INVALID_SHAPE, f"[{op}] {msg}")


# -- pointwise -----------------------------------------------------------------------------------

def relu(input, inplace=False):
    """max(x, 0); NaN propagates (torch.nn.functional.relu)."""
    x = _in(input, "relu", allow_int=True)
    return _inplace(x, _asc().relu(x), inplace)


def relu_(input):
    """In-place :func:`relu`."""
    return relu(input, inplace=True)


def relu6(input, inplace=False):
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace, _op="relu6")


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False, *, _op="hardtanh"):
    """clamp(x, min_val, max_val); NaN propagates."""
    if min_val > max_val:
        raise _param_error(_op, f"min_val ({min_val}) cannot be greater than max_val ({max_val})")
    asc = _asc()
    x = _in(input, _op)
    return _inplace(x, asc.minimum(asc.maximum(x, min_val), max_val), inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    asc = _asc()
    x = _in(input, "leaky_relu")
    return _inplace(x, asc.where(x > 0, x, x * negative_slope), inplace)


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, True)


def prelu(input, weight):
    """x if x > 0 else weight * x; ``weight`` has 1 element or one per channel (dim 1)."""
    asc = _asc()
    x = _in(input, "prelu")
    w = _in(weight, "prelu")
    if w.ndim > 1:
        raise _shape_error("prelu", f"weight must be 0-d or 1-d, got shape {tuple(w.shape)}")
    n = int(w.size)
    if n != 1:
        c = x.shape[1] if x.ndim >= 2 else (x.shape[0] if x.ndim == 1 else 1)
        if n != c:
            raise _shape_error("prelu", f"weight has {n} elements but the input {tuple(x.shape)} "
                                        f"has {c} channels (dim 1)")
        if x.ndim >= 2:
            w = w.reshape((1, n) + (1,) * (x.ndim - 2))
    else:
        w = w.reshape(())
    w = w.astype(x.dtype)
    return asc.where(x > 0, x, w * x)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU; in evaluation mode the slope is (lower + upper) / 2."""
    asc = _asc()
    x = _in(input, "rrelu")
    if training:
        slope = asc.random.uniform(lower, upper, size=tuple(x.shape)).astype(x.dtype)
        y = asc.where(x >= 0, x, x * slope)
    else:
        y = asc.where(x >= 0, x, x * ((lower + upper) / 2))
    return _inplace(x, y, inplace)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    asc = _asc()
    x = _in(input, "elu")
    return _inplace(x, asc.where(x > 0, x, asc.expm1(x) * alpha), inplace)


def elu_(input, alpha=1.0):
    """In-place :func:`elu`."""
    return elu(input, alpha, True)


def selu(input, inplace=False):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)) with the SELU constants."""
    asc = _asc()
    x = _in(input, "selu")
    y = asc.where(x > 0, x * _SELU_SCALE, asc.expm1(x) * (_SELU_ALPHA * _SELU_SCALE))
    return _inplace(x, y, inplace)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise _param_error("celu", "alpha cannot be 0 (ZeroDivisionError in x / alpha)")
    asc = _asc()
    x = _in(input, "celu")
    return _inplace(x, asc.where(x > 0, x, asc.expm1(x * (1.0 / alpha)) * alpha), inplace)


def gelu(input, approximate="none"):
    """GELU: exact 0.5 x erfc(-x / sqrt 2) (= 0.5 x (1 + erf(x / sqrt 2)) without the cancellation
    for x << 0), or the tanh form (``approximate='tanh'``) as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)).

    float32 / float16 / bfloat16: one opaque native kernel (src/nn/activation.cc, float32
    arithmetic, the result rounded once to the input dtype; its input is materialised and its
    output starts a new fusion group, as softmax). float64: a chain of registry ops (``erfc`` /
    ``sigmoid`` in float64 lanes) that fuses with its neighbours. Error bounds in docs/nn.md;
    the negative tail keeps relative accuracy. pyasc's top-level ``asc.gelu`` is the
    float64-lane device op (0.5 ULP, slower). gelu(-inf) is NaN, as torch's formula gives.
    """
    asc = _asc()
    x = _in(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise _param_error("gelu", f"approximate must be 'none' or 'tanh', not {approximate!r}")
    if _dtype_name(x.dtype) != "float64":
        return _C.nn.gelu(x, approximate == "tanh")
    if approximate == "none":
        return (x * 0.5) * asc.erfc(x * -0.7071067811865476)
    # 0.5 (1 + tanh(v)) = sigmoid(2 v), v = sqrt(2/pi) (x + 0.044715 x^3)
    return x * asc.sigmoid(x * (1.5957691216057308 + (x * x) * 0.0713548162726))


def gelu_backward(grad_output, input, approximate="none"):
    """gelu's gradient, ``grad_output * gelu'(input)`` (torch's ``aten::gelu_backward``): the exact
    form's Phi(x) + x phi(x), or the derivative of the tanh form (``approximate='tanh'``).

    float32 / float16 / bfloat16: one opaque native kernel (src/nn/activation.cc; Phi and phi share
    one exponential; float32 arithmetic, rounded once to the dtype) -- the derivative ``asc.grad`` uses
    for ``asc.ops.gelu`` and the one to call from a registered GeLU's gradient. float64 (or
    grad_output of another dtype or a broadcast shape): the formula as a fused chain. Error bounds in
    docs/nn.md. +-inf inputs give NaN, as torch's formulas do (inf * 0).
    """
    asc = _asc()
    x = _in(input, "gelu_backward")
    g = grad_output if isinstance(grad_output, asc.ndarray) else asc.asarray(grad_output)
    if approximate not in ("none", "tanh"):
        raise _param_error("gelu_backward", f"approximate must be 'none' or 'tanh', not {approximate!r}")
    name = _dtype_name(x.dtype)
    if name != "float64" and g.dtype == x.dtype and tuple(g.shape) == tuple(x.shape):
        return _C.nn.gelu_backward(g, x, approximate == "tanh")
    if not _is_float_dtype(g.dtype):
        raise asc.errors.AscendTypeError(
            asc.errors.ErrorCode.INVALID_DTYPE,
            f"[gelu_backward] grad_output must be a floating dtype, got {g.dtype} (input {x.dtype})")
    if approximate == "tanh":
        a, b = 1.5957691216057308, 0.0713548162726008
        s = asc.sigmoid(x * (a + (x * x) * b))
        d = s + x * s * (1 - s) * (a + (x * x) * (3 * b))
    else:
        d = asc.erfc(x * -0.7071067811865476) * 0.5 + x * asc.exp(x * x * -0.5) * 0.3989422804014327
    return g * d


def sigmoid(input):
    """1 / (1 + exp(-x)) (device op ``sigmoid``)."""
    return _asc().sigmoid(_in(input, "sigmoid"))


def tanh(input):
    """tanh(x)."""
    return _asc().tanh(_in(input, "tanh"))


def erf(input):
    """Error function (device op ``erf``, vector math within the ULP bound of docs/vector_math.md)."""
    return _asc().erf(_in(input, "erf"))


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    asc = _asc()
    x = _in(input, "silu")
    return _inplace(x, x * asc.sigmoid(x), inplace)


def _softplus1(x):
    # log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|))
    asc = _asc()
    return asc.maximum(x, 0) + asc.log1p(asc.exp(-asc.abs(x)))


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    asc = _asc()
    x = _in(input, "mish")
    return _inplace(x, x * asc.tanh(_softplus1(x)), inplace)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    asc = _asc()
    x = _in(input, "hardswish")
    return _inplace(x, x * asc.minimum(asc.maximum(x + 3.0, 0.0), 6.0) * (1.0 / 6.0), inplace)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    asc = _asc()
    x = _in(input, "hardsigmoid")
    return _inplace(x, asc.minimum(asc.maximum(x + 3.0, 0.0), 6.0) * (1.0 / 6.0), inplace)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, or x where beta x > threshold (torch's linear region)."""
    asc = _asc()
    x = _in(input, "softplus")
    bx = x * beta if beta != 1 else x
    sp = _softplus1(bx)
    if beta != 1:
        sp = sp * (1.0 / beta)
    return asc.where(bx > threshold, x, sp)


def softsign(input):
    """x / (1 + |x|)."""
    asc = _asc()
    x = _in(input, "softsign")
    return x / (asc.abs(x) + 1.0)


def logsigmoid(input):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|."""
    asc = _asc()
    x = _in(input, "logsigmoid")
    return asc.minimum(x, 0) - asc.log1p(asc.exp(-asc.abs(x)))


def glu(input, dim=-1):
    """a * sigmoid(b) where a, b are the two halves of ``input`` along ``dim``."""
    asc = _asc()
    x = _in(input, "glu")
    if x.ndim == 0:
        raise _param_error("glu", "glu does not support 0-d (scalar) tensors")
    d = _norm_dim(dim, x.ndim, "glu")
    n = x.shape[d]
    if n % 2:
        raise _shape_error("glu", f"halving dimension must be even, but dimension {d} is size {n}")
    h = n // 2
    idx_a = [slice(None)] * x.ndim
    idx_b = [slice(None)] * x.ndim
    idx_a[d] = slice(0, h)
    idx_b[d] = slice(h, n)
    return x[tuple(idx_a)] * asc.sigmoid(x[tuple(idx_b)])


def threshold(input, threshold, value, inplace=False):
    """x if x > threshold else value (NaN propagates, as torch)."""
    asc = _asc()
    x = _in(input, "threshold", allow_int=True)
    return _inplace(x, asc.where(x <= threshold, asc.asarray(value, dtype=x.dtype), x), inplace)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`."""
    return globals()["threshold"](input, threshold, value, True)


def tanhshrink(input):
    """x - tanh(x)."""
    asc = _asc()
    x = _in(input, "tanhshrink")
    return x - asc.tanh(x)


def softshrink(input, lambd=0.5):
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0 (NaN propagates)."""
    if lambd < 0:
        raise _param_error("softshrink", f"lambda must be greater or equal to 0, but found to be {lambd}")
    asc = _asc()
    x = _in(input, "softshrink")
    return asc.where(x > lambd, x - lambd, asc.where(x < -lambd, x + lambd, x * 0.0))


def hardshrink(input, lambd=0.5):
    """x if |x| > lambd else 0 (NaN propagates)."""
    asc = _asc()
    x = _in(input, "hardshrink")
    return asc.where((x >= -lambd) & (x <= lambd), asc.asarray(0, dtype=x.dtype), x)


# -- softmax family --------------------------------------------------------------------------------

def _norm_dim(dim, ndim, op):
    n = max(ndim, 1)
    try:
        d = int(dim)
    except TypeError:
        raise _param_error(op, f"dim must be an int, got {type(dim).__name__}") from None
    if not -n <= d < n:
        asc = _asc()
        raise asc.errors.AscendIndexError(
            asc.errors.ErrorCode.INVALID_PARAM,
            f"[{op}] Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return d % n


def _legacy_dim(ndim, op):
    _warnings.warn(f"Implicit dimension choice for {op} has been deprecated. "
                   "Change the call to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_call(input, dim, dtype, op, log, negate=False):
    """The softmax family through the native kernel (src/nn/softmax.cc): any axis, the input's
    dtype (float16/bfloat16 read and written in place with float32 arithmetic)."""
    x = _in(input, op)
    if dtype is not None:
        x = x.astype(dtype)
    if dim is None:
        dim = _legacy_dim(x.ndim, op)
    d = _norm_dim(dim, x.ndim, op)
    return _C.nn.softmax(x, d if x.ndim else 0, log, negate)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x - max) / sum(exp(x - max)) along ``dim`` (numerically stable; any axis).

    One opaque kernel (max, exp-sum, normalise; rows over all cores). A row holding NaN or
    +inf, or only -inf, is NaN (torch's formula); -inf entries of other rows give 0."""
    return _softmax_call(input, dim, dtype, "softmax", False)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim`` (the negation happens inside the kernel)."""
    return _softmax_call(input, dim, dtype, "softmin", False, True)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """(x - max) - log(sum(exp(x - max))) along ``dim`` (numerically stable; one kernel)."""
    return _softmax_call(input, dim, dtype, "log_softmax", True)
