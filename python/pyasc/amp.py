"""Autocast and mixed precision (``asc.autocast``); see docs/nn.md.

``with asc.autocast(dtype=asc.float16):`` (also ``@asc.autocast(...)``, nestable,
thread-local) makes the ``asc.ops`` entry points on the *lower-precision list*
(conv*, linear, matmul, mm, bmm, addmm, baddbmm, einsum, prelu, ...) cast their
floating inputs to the autocast dtype (the engines accumulate in float32) and return
that dtype, and those on the *float32 list* (softmax, log_softmax, norms, losses,
exp/log-type activations, reductions) cast half-precision inputs up to float32.
Other ops run in whatever dtype their inputs have (as torch's "promote" class).

``asc.autocast("auto")`` chooses per tensor for the lower-precision list: float16 when
``max|x| < 65504`` and the measured rounding error ``||fp16(x) - x||_2 / ||x||_2 <= tol``
(default ``tol = 2**-10``, i.e. within twice float16's unit roundoff; pass ``tol=``),
float32 otherwise. Every decision is logged at debug level (``PYASC_DEBUG=1``,
component ``amp``) and recorded as a profiler ``op`` event named ``autocast:<op>``.

The policy is applied by name: at import, this module wraps ``pyasc.ops.<name>`` for
the names of both lists, so op implementations need no edits. Other code can use
:func:`autocast_op` (decorator) or :func:`cast_inputs` directly.

``cache_enabled=True``: a module parameter (an array registered through
``pyasc.ops.Module``) is cast once per outermost autocast region and reused.
"""

from __future__ import annotations

import functools as _functools
import math as _math
import threading as _threading

import numpy as _np

__all__ = [
    "autocast",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "autocast_op",
    "cast_inputs",
    "LOWER_PRECISION_OPS",
    "FP32_OPS",
]

#: asc.ops names that run in the autocast dtype (PyTorch's CPU autocast lower-precision list).
LOWER_PRECISION_OPS = (
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "linear", "matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "einsum", "prelu",
    "scaled_dot_product_attention",
)

#: asc.ops names that run in float32 (softmax family, norms, losses, exp/log-type ops, reductions).
FP32_OPS = (
    "softmax", "log_softmax", "softmin", "batch_norm", "layer_norm", "group_norm", "instance_norm",
    "rms_norm", "local_response_norm", "normalize", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
    "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    "soft_margin_loss", "softplus", "logsigmoid", "avg_pool3d", "max_pool3d", "adaptive_avg_pool3d",
    "lp_pool1d", "lp_pool2d", "lp_pool3d", "exp", "log", "log1p", "expm1", "sum", "mean", "prod", "cumsum",
    "norm", "interpolate",
)

_HALF = ("float16", "bfloat16")
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_FP16_MAX = 65504.0


def _asc():
    import pyasc

    return pyasc


class _State(_threading.local):
    def __init__(self):
        self.stack = []        # (enabled, dtype | "auto", cache_enabled, tol)
        self.cache = {}        # id(param) -> (param, cast)
        self.depth = 0


_state = _State()
_PARAM_IDS: set = set()  # ids of Module parameters (filled by pyasc.ops.Module)


def _note_param(arr):
    """Called by pyasc.ops.Module when it registers a parameter (for cache_enabled)."""
    _PARAM_IDS.add(id(arr))


def _norm_dtype(dtype):
    asc = _asc()
    if dtype is None:
        return asc.float16
    if not isinstance(dtype, str) and type(dtype).__module__ == "torch":
        dtype = str(dtype)[6:]  # torch.bfloat16 / torch.float16 (torch's CPU autocast dtypes), no torch import
    s = str(_np.dtype(dtype)) if not isinstance(dtype, str) else dtype
    if s in ("float16", "half"):
        return asc.float16
    if s == "bfloat16":
        return asc.bfloat16
    raise asc.errors.AscendValueError(asc.errors.ErrorCode.INVALID_PARAM,
                                      f"[autocast] dtype must be float16, bfloat16 or 'auto', got {dtype!r}")


class autocast:
    """Mixed-precision region: ``with asc.autocast(dtype=asc.float16, enabled=True, cache_enabled=True)``.

    ``dtype`` is ``asc.float16`` (default), ``asc.bfloat16`` or ``"auto"`` (per-tensor
    float16/float32 choice by data range, see the module docstring; ``tol`` sets the
    accepted relative rounding error). A torch-style device string first
    (``autocast("cpu", dtype=...)``) is accepted and ignored. Usable as a decorator.
    """

    def __init__(self, dtype=None, enabled=True, cache_enabled=True, *, tol=2.0 ** -10, device_type=None):
        if isinstance(dtype, str) and dtype in ("cpu", "npu", "ascend", "cuda"):
            dtype = None
        self.auto = isinstance(dtype, str) and dtype == "auto"
        self.dtype = "auto" if self.auto else _norm_dtype(dtype)
        self.enabled = bool(enabled)
        self.cache_enabled = bool(cache_enabled)
        if not (tol > 0):
            raise _asc().errors.AscendValueError(_asc().errors.ErrorCode.INVALID_PARAM,
                                                 f"[autocast] tol must be > 0, got {tol}")
        self.tol = float(tol)
        self._pushed = 0

    def __enter__(self):
        _state.stack.append((self.enabled, self.dtype, self.cache_enabled, self.tol))
        _state.depth += 1
        self._pushed += 1
        return self

    def __exit__(self, *exc):
        _state.stack.pop()
        _state.depth -= 1
        self._pushed -= 1
        if _state.depth == 0:
            _state.cache.clear()
        return False

    def __call__(self, fn):
        args = (self.dtype, self.enabled, self.cache_enabled)

        @_functools.wraps(fn)
        def wrapper(*a, **k):
            with autocast(*args, tol=self.tol):
                return fn(*a, **k)

        return wrapper

    def __repr__(self):
        return f"autocast(dtype={self.dtype}, enabled={self.enabled}, cache_enabled={self.cache_enabled})"


def _current():
    if not _state.stack:
        return None
    top = _state.stack[-1]
    return top if top[0] else None


def is_autocast_enabled():
    """True inside an enabled autocast region (of this thread)."""
    return _current() is not None


def get_autocast_dtype():
    """The innermost region's dtype (``asc.float16`` outside any region, as torch's default
    query), or the string ``"auto"``."""
    cur = _current()
    if cur is None:
        return _asc().float16 if not _state.stack else (
            _state.stack[-1][1] if _state.stack[-1][1] == "auto" else _state.stack[-1][1])
    return cur[1]


def _is_float_array(x):
    """Arrays autocast may cast: float16/bfloat16/float32 (float64 is left alone, as torch's
    autocast leaves double tensors)."""
    asc = _asc()
    return isinstance(x, (asc.ndarray, _np.ndarray)) and str(x.dtype) in _FLOATS[:3]


def _has_f64(args, kwargs):
    asc = _asc()
    return any(isinstance(v, (asc.ndarray, _np.ndarray)) and str(v.dtype) == "float64"
               for v in list(args) + list(kwargs.values()))


def _cast(x, dtype, cache_enabled):
    asc = _asc()
    if str(x.dtype) == str(_np.dtype(dtype)):
        return x
    if cache_enabled and id(x) in _PARAM_IDS:
        hit = _state.cache.get((id(x), str(dtype)))
        if hit is not None and hit[0] is x:
            return hit[1]
        y = asc.asarray(x).astype(dtype)
        _state.cache[(id(x), str(dtype))] = (x, y)
        return y
    return asc.asarray(x).astype(dtype)


def _auto_choice(op, arrays, tol):
    """float16 when every floating input fits float16's range and rounds within ``tol``."""
    asc = _asc()
    reasons = []
    use_half = True
    for a in arrays:
        a = asc.asarray(a)
        if a.size == 0:
            continue
        a32 = a.astype(asc.float32) if str(a.dtype) != "float32" else a
        amax = float(asc.max(asc.abs(a32)))
        if not _math.isfinite(amax) or amax >= _FP16_MAX:
            use_half = False
            reasons.append(f"max|x|={amax:g} >= 65504")
            break
        nrm = float(asc.sqrt(asc.sum(a32 * a32)))
        if nrm == 0:
            reasons.append("x=0")
            continue
        d = a32.astype(asc.float16).astype(asc.float32) - a32
        rel = float(asc.sqrt(asc.sum(d * d))) / nrm
        reasons.append(f"max|x|={amax:g} relerr={rel:.3g}")
        if rel > tol:
            use_half = False
            break
    dtype = asc.float16 if use_half else asc.float32
    msg = f"autocast(auto) {op}: {'float16' if use_half else 'float32'} ({'; '.join(reasons)}; tol={tol:g})"
    try:
        asc._C.log(0, "amp", msg)
    except Exception:  # noqa: BLE001 - logging must never break the op
        pass
    P = asc._C.profiler
    if P.enabled():
        P.record(P.EventKind.op, f"autocast:{op}", P.now_ns(), 0, msg)
    return dtype


def _target_dtype(policy, op, arrays):
    """The dtype to cast floating inputs to under the current region, or None (no cast)."""
    cur = _current()
    if cur is None:
        return None
    _enabled, dtype, _cache, tol = cur
    asc = _asc()
    if policy == "fp32":
        return asc.float32 if any(str(a.dtype) in _HALF for a in arrays) else None
    if policy != "lower":
        raise asc.errors.AscendValueError(asc.errors.ErrorCode.INVALID_PARAM,
                                          f"[autocast] unknown policy {policy!r} for {op} ('lower' or 'fp32')")
    if dtype == "auto":
        return _auto_choice(op, arrays, tol)
    return dtype


def cast_inputs(op_name, *tensors, policy=None):
    """Cast ``tensors`` as the current autocast region prescribes for ``op_name``.

    ``policy`` defaults to the op's list ("lower" for LOWER_PRECISION_OPS, "fp32" for
    FP32_OPS); non-floating and non-array values pass through. Returns a tuple.
    """
    if policy is None:
        policy = "lower" if op_name in LOWER_PRECISION_OPS else ("fp32" if op_name in FP32_OPS else None)
    if policy is None or _current() is None:
        return tensors
    arrs = [t for t in tensors if _is_float_array(t)]
    dt = _target_dtype(policy, op_name, arrs)
    if dt is None:
        return tensors
    cache = _current()[2]
    return tuple(_cast(t, dt, cache) if _is_float_array(t) else t for t in tensors)


def _cast_out(out, dt):
    asc = _asc()
    if isinstance(out, asc.ndarray) and str(out.dtype) in _FLOATS and str(out.dtype) != str(_np.dtype(dt)):
        return out.astype(dt)
    if isinstance(out, tuple):
        return tuple(_cast_out(o, dt) for o in out)
    return out


def autocast_op(policy, name=None):
    """Decorator: apply the autocast ``policy`` ("lower" | "fp32") to a function's floating
    array arguments (positional and keyword). Outside a region it calls ``fn`` unchanged.
    "lower" ops return the autocast dtype (the engines may return float32 from half inputs)."""

    def deco(fn):
        if getattr(fn, "_asc_autocast_policy", None):
            return fn
        op = name or getattr(fn, "__name__", "op")

        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            cur = _current()
            if cur is None:
                return fn(*args, **kwargs)
            arrs = [a for a in args if _is_float_array(a)] + [v for v in kwargs.values() if _is_float_array(v)]
            dt = _target_dtype(policy, op, arrs)
            if dt is None:
                return fn(*args, **kwargs)
            cache = cur[2]
            args = tuple(_cast(a, dt, cache) if _is_float_array(a) else a for a in args)
            kwargs = {k: (_cast(v, dt, cache) if _is_float_array(v) else v) for k, v in kwargs.items()}
            # run the op itself outside the region so nested asc.ops calls don't re-cast
            _state.stack.append((False, None, False, 0.0))
            try:
                out = fn(*args, **kwargs)
            finally:
                _state.stack.pop()
            # a float64 operand (left uncast) makes the result float64: keep it
            return _cast_out(out, dt) if policy == "lower" and not _has_f64(args, kwargs) else out

        wrapper._asc_autocast_policy = policy
        return wrapper

    return deco


def _install():
    """Wrap pyasc.ops.<name> for the names of both lists (called at import)."""
    try:
        from . import ops as _ops
    except Exception:  # noqa: BLE001 - ops failing to import is reported by ops itself
        return
    import sys

    # the family modules too (pyasc.ops._conv.conv2d, ...), so module classes that look the
    # functional up at call time get the same policy; one wrapper object per function
    families = [m for k, m in sys.modules.items() if k.startswith(_ops.__name__ + "._") and m is not None]
    for policy, names in (("lower", LOWER_PRECISION_OPS), ("fp32", FP32_OPS)):
        for n in names:
            fn = getattr(_ops, n, None)
            if callable(fn) and not isinstance(fn, type):
                w = autocast_op(policy, n)(fn)
                setattr(_ops, n, w)
                for mod in families:
                    if getattr(mod, n, None) is fn:
                        setattr(mod, n, w)


_install()
