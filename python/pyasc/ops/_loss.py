"""asc.ops: losses (``torch.nn.functional`` signatures).

Fusion class: the pointwise part of each loss is elementwise (fuses); the reduction
('mean' | 'sum' | 'none') is a reduction node. ``cross_entropy`` is log_softmax
(reduction class) + a gather of the target class (``take_along_axis``). Half
precision inputs are computed in float32 and the loss is returned in the input dtype.
"""

from __future__ import annotations

import numpy as _np

from ._activation import _asc, _in, _shape_error, _param_error, log_softmax

__all__ = [
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "soft_margin_loss",
]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average, reduce, reduction, op):
    # torch's legacy size_average/reduce arguments
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        reduction = "none" if not rd else ("mean" if sa else "sum")
    if reduction not in _REDUCTIONS:
        raise _param_error(op, f"{reduction!r} is not a valid value for reduction (one of {_REDUCTIONS})")
    return reduction


def _reduce(loss, reduction):
    asc = _asc()
    if reduction == "none":
        return loss
    if reduction == "sum":
        return asc.sum(loss)
    return asc.mean(loss)


def _up(x):
    """float16/bfloat16 -> float32 (the loss is computed in float32)."""
    asc = _asc()
    return x.astype(asc.float32) if str(x.dtype) in ("float16", "bfloat16") else x


def _pair(input, target, op):
    x = _in(input, op)
    t = _in(target, op)
    if tuple(x.shape) != tuple(t.shape):
        try:
            _np.broadcast_shapes(tuple(x.shape), tuple(t.shape))
        except ValueError:
            raise _shape_error(op, f"input shape {tuple(x.shape)} and target shape {tuple(t.shape)} "
                                   "do not broadcast") from None
    return x, t


def _finish(loss, dtype, reduction):
    out = _reduce(loss, reduction)
    return out if out.dtype == dtype else out.astype(dtype)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced."""
    r = _reduction(size_average, reduce, reduction, "mse_loss")
    x, t = _pair(input, target, "mse_loss")
    d = _up(x) - _up(t)
    loss = d * d
    if weight is not None:
        loss = loss * _up(_in(weight, "mse_loss"))
    return _finish(loss, x.dtype, r)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced."""
    r = _reduction(size_average, reduce, reduction, "l1_loss")
    x, t = _pair(input, target, "l1_loss")
    loss = _asc().abs(_up(x) - _up(t))
    if weight is not None:
        loss = loss * _up(_in(weight, "l1_loss"))
    return _finish(loss, x.dtype, r)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta = 0: L1)."""
    if beta < 0:
        raise _param_error("smooth_l1_loss", f"beta must be >= 0, got {beta}")
    asc = _asc()
    r = _reduction(size_average, reduce, reduction, "smooth_l1_loss")
    x, t = _pair(input, target, "smooth_l1_loss")
    a = asc.abs(_up(x) - _up(t))
    loss = a if beta == 0 else asc.where(a < beta, a * a * (0.5 / beta), a - 0.5 * beta)
    return _finish(loss, x.dtype, r)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    if delta <= 0:
        raise _param_error("huber_loss", f"delta must be > 0, got {delta}")
    asc = _asc()
    r = _reduction(None, None, reduction, "huber_loss")
    x, t = _pair(input, target, "huber_loss")
    a = asc.abs(_up(x) - _up(t))
    loss = asc.where(a < delta, a * a * 0.5, (a - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * _up(_in(weight, "huber_loss"))
    return _finish(loss, x.dtype, r)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x)), reduced."""
    asc = _asc()
    r = _reduction(size_average, reduce, reduction, "soft_margin_loss")
    x, t = _pair(input, target, "soft_margin_loss")
    z = -(_up(x) * _up(t))
    loss = asc.maximum(z, 0) + asc.log1p(asc.exp(-asc.abs(z)))
    return _finish(loss, x.dtype, r)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)) with the logs clamped at -100 (torch); x must be in [0, 1]."""
    asc = _asc()
    r = _reduction(size_average, reduce, reduction, "binary_cross_entropy")
    x, t = _pair(input, target, "binary_cross_entropy")
    if tuple(x.shape) != tuple(t.shape):
        raise _shape_error("binary_cross_entropy", f"target size {tuple(t.shape)} must be the same as "
                                                   f"input size {tuple(x.shape)}")
    xu, tu = _up(x), _up(t)
    if x.size:
        lo, hi = float(asc.min(xu)), float(asc.max(xu))
        if lo < 0 or hi > 1:
            raise _param_error("binary_cross_entropy", f"all elements of input should be between 0 and 1 "
                                                       f"(got min {lo}, max {hi})")
    loss = -(tu * asc.maximum(asc.log(xu), -100.0) + (1.0 - tu) * asc.maximum(asc.log1p(-xu), -100.0))
    if weight is not None:
        loss = loss * _up(_in(weight, "binary_cross_entropy"))
    return _finish(loss, x.dtype, r)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Stable sigmoid + BCE: (1 - t) x + (1 + (pw - 1) t) (log1p(exp(-|x|)) + max(-x, 0))."""
    asc = _asc()
    op = "binary_cross_entropy_with_logits"
    r = _reduction(size_average, reduce, reduction, op)
    x, t = _pair(input, target, op)
    if tuple(x.shape) != tuple(t.shape):
        raise _shape_error(op, f"target size {tuple(t.shape)} must be the same as input size {tuple(x.shape)}")
    xu, tu = _up(x), _up(t)
    sp = asc.log1p(asc.exp(-asc.abs(xu))) + asc.maximum(-xu, 0)
    if pos_weight is not None:
        pw = _up(_in(pos_weight, op))
        loss = (1.0 - tu) * xu + (1.0 + (pw - 1.0) * tu) * sp
    else:
        loss = (1.0 - tu) * xu + sp
    if weight is not None:
        loss = loss * _up(_in(weight, op))
    return _finish(loss, x.dtype, r)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target (log target - input) (0 where target == 0); ``reduction='batchmean'`` divides by N."""
    asc = _asc()
    op = "kl_div"
    if reduction == "batchmean":
        r = "batchmean"
    else:
        r = _reduction(size_average, reduce, reduction, op)
    x, t = _pair(input, target, op)
    xu, tu = _up(x), _up(t)
    if log_target:
        loss = asc.exp(tu) * (tu - xu)
    else:
        safe = asc.where(tu > 0, tu, asc.asarray(1, dtype=tu.dtype))
        loss = asc.where(tu == 0, asc.asarray(0, dtype=tu.dtype), tu * (asc.log(safe) - xu))
        loss = asc.where(asc.isnan(tu), tu, loss)
    if r == "batchmean":
        n = x.shape[0] if x.ndim else 1
        out = asc.sum(loss) / n
        return out.astype(x.dtype) if out.dtype != x.dtype else out
    return _finish(loss, x.dtype, r)


def _class_layout(x, target, op):
    """Validate (C,) / (N, C) / (N, C, d1, ...) input vs class-index target."""
    asc = _asc()
    if x.ndim == 0:
        raise _param_error(op, "input must have at least 1 dim (C,) / (N, C, ...), got a 0-d array")
    t = target
    if x.ndim == 1:
        if t.ndim != 0:
            raise _shape_error(op, f"for a 1-D input {tuple(x.shape)} the target must be 0-d, got {tuple(t.shape)}")
        return x[None], t.reshape((1,)), True
    exp = (x.shape[0],) + tuple(x.shape[2:])
    if tuple(t.shape) != exp:
        raise _shape_error(op, f"expected target shape {exp} for input {tuple(x.shape)}, got {tuple(t.shape)}")
    return x, t, False


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-w[t] * input[n, t] over non-ignored targets; 'mean' divides by the sum of w[t]."""
    asc = _asc()
    op = "nll_loss"
    r = _reduction(size_average, reduce, reduction, op)
    x = _in(input, op)
    t = target if isinstance(target, asc.ndarray) else asc.asarray(target)
    if _np.dtype(str(t.dtype)).kind not in "iu":
        raise asc.errors.AscendTypeError(asc.errors.ErrorCode.INVALID_DTYPE,
                                         f"[{op}] expected an integer class-index target, got {t.dtype}")
    return _nll(_up(x), t, weight, ignore_index, r, op, x.dtype)


def _nll(x, t, weight, ignore_index, r, op, out_dtype, smoothing=0.0, logp_for_smooth=None):
    asc = _asc()
    x2, t2, unbatched = _class_layout(x, t, op)
    C = x2.shape[1]
    t2 = t2.astype(asc.int64)
    valid = t2 != ignore_index
    if t2.size:
        tv = asc.where(valid, t2, 0)
        lo, hi = int(asc.min(tv)), int(asc.max(tv))
        if lo < 0 or hi >= C:
            raise asc.errors.AscendIndexError(asc.errors.ErrorCode.INDEX_OUT_OF_RANGE,
                                              f"[{op}] target {lo if lo < 0 else hi} is out of bounds "
                                              f"for {C} classes")
    else:
        tv = t2
    if weight is not None:
        w = _up(_in(weight, op))
        if tuple(w.shape) != (C,):
            raise _shape_error(op, f"weight must have shape ({C},), got {tuple(w.shape)}")
    else:
        w = None
    picked = asc.squeeze(asc.take_along_axis(x2, tv[:, None], axis=1), axis=1)
    wt = asc.take(w, tv) if w is not None else asc.ones(tuple(tv.shape), dtype=x2.dtype)
    wt = asc.where(valid, wt, asc.asarray(0, dtype=wt.dtype))
    loss = -(picked * wt)
    loss = asc.where(valid, loss, asc.asarray(0, dtype=loss.dtype))
    if smoothing:
        shape_w = (1, C) + (1,) * (x2.ndim - 2)
        lp = x2 if w is None else x2 * w.reshape(shape_w)
        smooth = -asc.sum(lp, axis=1)
        smooth = asc.where(valid, smooth, asc.asarray(0, dtype=smooth.dtype))
        loss = loss * (1.0 - smoothing) + smooth * (smoothing / C)
    if r == "none":
        out = loss[0] if unbatched else loss
    elif r == "sum":
        out = asc.sum(loss)
    else:
        out = asc.sum(loss) / asc.sum(wt)
    return out.astype(out_dtype) if out.dtype != out_dtype else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over dim 1 + NLL; targets as class indices (integer) or probabilities (floating,
    same shape as input); ``label_smoothing`` mixes in the uniform distribution as torch."""
    asc = _asc()
    op = "cross_entropy"
    r = _reduction(size_average, reduce, reduction, op)
    if not 0.0 <= label_smoothing <= 1.0:
        raise _param_error(op, f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    x = _in(input, op)
    t = target if isinstance(target, asc.ndarray) else asc.asarray(target)
    if x.ndim == 0:
        raise _param_error(op, "input must have at least 1 dim (C,) / (N, C, ...), got a 0-d array")
    cdim = 0 if x.ndim == 1 else 1
    logp = log_softmax(_up(x), dim=cdim)
    if _np.dtype(str(t.dtype)).kind in "iu":
        return _nll(logp, t, weight, ignore_index, r, op, x.dtype, smoothing=label_smoothing)
    if str(t.dtype) not in ("float16", "float32", "float64", "bfloat16"):
        raise asc.errors.AscendTypeError(asc.errors.ErrorCode.INVALID_DTYPE,
                                         f"[{op}] target must be class indices (integer) or probabilities "
                                         f"(floating), got {t.dtype}")
    if tuple(t.shape) != tuple(x.shape):
        raise _shape_error(op, f"probability target shape {tuple(t.shape)} must equal input shape {tuple(x.shape)}")
    C = x.shape[cdim]
    tu = _up(t)
    if label_smoothing:
        tu = tu * (1.0 - label_smoothing) + label_smoothing / C
    prod = logp * tu
    if weight is not None:
        w = _up(_in(weight, op))
        if tuple(w.shape) != (C,):
            raise _shape_error(op, f"weight must have shape ({C},), got {tuple(w.shape)}")
        prod = prod * w.reshape((C,) + (1,) * (x.ndim - 1 - cdim))
    loss = -asc.sum(prod, axis=cdim)
    if r == "mean":
        n = 1 if x.ndim == 1 else (x.size // C if C else 0)
        out = asc.sum(loss) / n
    else:
        out = _reduce(loss, r)
    return out.astype(x.dtype) if out.dtype != x.dtype else out
