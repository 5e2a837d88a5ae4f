"""VJP rules of the ``asc.ops`` NN operators (torch.nn.functional's derivatives).

Same rule signature as :mod:`._rules`. Positional-or-keyword arguments of the torch signatures
are read with :func:`_arg` (a call may pass them either way). The conv1d/conv2d backward passes
are img2col / col2img (``asc.ops.unfold`` / ``fold``) plus matmul, so they cover stride, padding
(also 'same'), dilation and groups with one formula. Pooling, pad, conv3d, the other transposed
convolutions and the instance/RMS/LRN norms are in :mod:`._nd_rules`.
"""

from __future__ import annotations

import math as _math

import numpy as _np

from ._rules import unbroadcast


def _asc():
    import pyasc

    return pyasc


def _nie(msg):
    asc = _asc()
    return asc.errors.AscendNotImplementedError(asc.ErrorCode.API_NOT_SUPPORT, f"[asc.grad] {msg}")


def _arg(rest, kw, i, name, default):
    """Argument ``name`` at positional index ``i`` of ``rest`` (the operands after the input)."""
    if name in kw:
        return kw[name]
    return rest[i] if i < len(rest) else default


def _pointwise(deriv):
    """A rule for ``f(input, *params)``: the input's cotangent is g * deriv(x, out, rest, kw)."""
    def rule(g, out, x, *rest, needs, **kw):
        return (g * deriv(x, out, rest, kw),) + (None,) * len(rest)

    return rule


def _f(x, mask):
    return mask.astype(x.dtype)


def _gelu_rule(g, out, x, *rest, needs, **kw):
    """gelu's cotangent through asc.ops.gelu_backward: the native kernel (Phi and phi from one
    exponential) for float32/float16/bfloat16 with g of x's dtype and shape, else its fused chain."""
    approximate = _arg(rest, kw, 0, "approximate", "none")
    return (_asc().ops.gelu_backward(g, x, approximate),) + (None,) * len(rest)


def _softplus_d(x, out, rest, kw):
    asc = _asc()
    beta = _arg(rest, kw, 0, "beta", 1.0)
    thr = _arg(rest, kw, 1, "threshold", 20.0)
    return asc.where(x * beta > thr, 1.0, asc.sigmoid(x * beta)).astype(x.dtype)


def _mish_d(x, out, rest, kw):
    asc = _asc()
    sp = asc.maximum(x, 0) + asc.log1p(asc.exp(-asc.abs(x)))
    t = asc.tanh(sp)
    return t + x * (1 - t * t) * asc.sigmoid(x)


def _hardtanh_d(lo_default, hi_default):
    def d(x, out, rest, kw):
        lo = _arg(rest, kw, 0, "min_val", lo_default)
        hi = _arg(rest, kw, 1, "max_val", hi_default)
        return _f(x, (x > lo) & (x < hi))
    return d


def _pointwise_rules():
    asc = _asc()
    sg = asc.sigmoid
    return {
        "relu": _pointwise(lambda x, o, r, k: _f(x, x > 0)),
        "relu6": _pointwise(lambda x, o, r, k: _f(x, (x > 0) & (x < 6))),
        "leaky_relu": _pointwise(lambda x, o, r, k: asc.where(x > 0, 1.0, _arg(r, k, 0, "negative_slope", 0.01))
                                 .astype(x.dtype)),
        "elu": _pointwise(lambda x, o, r, k: asc.where(x > 0, 1.0, asc.exp(x) * _arg(r, k, 0, "alpha", 1.0))
                          .astype(x.dtype)),
        "selu": _pointwise(lambda x, o, r, k: asc.where(x > 0, 1.0507009873554805,
                                                        asc.exp(x) * (1.0507009873554805 * 1.6732632423543772))
                           .astype(x.dtype)),
        "celu": _pointwise(lambda x, o, r, k: asc.where(x > 0, 1.0, asc.exp(x / _arg(r, k, 0, "alpha", 1.0)))
                           .astype(x.dtype)),
        "gelu": _gelu_rule,
        "silu": _pointwise(lambda x, o, r, k: sg(x) * (1 + x * (1 - sg(x)))),
        "sigmoid": _pointwise(lambda x, o, r, k: o * (1 - o)),
        "tanh": _pointwise(lambda x, o, r, k: 1 - o * o),
        "erf": _pointwise(lambda x, o, r, k: asc.exp(-(x * x)) * (2.0 / _math.sqrt(_math.pi))),
        "softplus": _pointwise(_softplus_d),
        "mish": _pointwise(_mish_d),
        "hardtanh": _pointwise(_hardtanh_d(-1.0, 1.0)),
        "hardswish": _pointwise(lambda x, o, r, k: asc.where(x < -3, 0.0, asc.where(x > 3, 1.0, x / 3 + 0.5))
                                .astype(x.dtype)),
        "hardsigmoid": _pointwise(lambda x, o, r, k: _f(x, (x > -3) & (x < 3)) * (1.0 / 6)),
        "softsign": _pointwise(lambda x, o, r, k: 1 / ((1 + asc.abs(x)) * (1 + asc.abs(x)))),
        "logsigmoid": _pointwise(lambda x, o, r, k: 1 - sg(x)),
        "tanhshrink": _pointwise(lambda x, o, r, k: asc.tanh(x) * asc.tanh(x)),
    }


# -- softmax family ------------------------------------------------------------------------------

def _softmax_dim(x, rest, kw):
    dim = _arg(rest, kw, 0, "dim", None)
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return dim % max(x.ndim, 1)


def _softmax(g, out, x, *rest, needs, **kw):
    asc = _asc()
    d = _softmax_dim(x, rest, kw)
    return (out * (g - asc.sum(g * out, axis=d, keepdims=True)),) + (None,) * len(rest)


def _log_softmax(g, out, x, *rest, needs, **kw):
    asc = _asc()
    d = _softmax_dim(x, rest, kw)
    return (g - asc.exp(out) * asc.sum(g, axis=d, keepdims=True),) + (None,) * len(rest)


# -- dense -----------------------------------------------------------------------------------------

def _linear(g, out, x, w, b=None, *rest, needs, **kw):
    asc = _asc()
    b = kw.get("bias", b)
    gx = gw = gb = None
    if needs[0]:
        gx = asc.matmul(g, w)
    g2 = g.reshape((-1, w.shape[0]))
    if len(needs) > 1 and needs[1]:
        gw = asc.matmul(asc.transpose(g2), x.reshape((-1, w.shape[1])))
    if len(needs) > 2 and needs[2] and b is not None:
        gb = unbroadcast(g, tuple(b.shape))
    return (gx, gw, gb) + (None,) * len(rest)


# -- convolution -----------------------------------------------------------------------------------

def _pad2(x, pads, value=0.0):
    asc = _asc()
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return x
    return asc.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)


def _pair(v):
    if isinstance(v, (list, tuple)):
        return (int(v[0]), int(v[-1])) if len(v) in (1, 2) else None
    return (int(v), int(v))


def _conv2d(g, out, x, w, b=None, *rest, needs, **kw):
    asc = _asc()
    F = asc.ops
    b = kw.get("bias", b)
    stride = _pair(_arg(rest, kw, 0, "stride", 1))
    padding = _arg(rest, kw, 1, "padding", 0)
    dil = _pair(_arg(rest, kw, 2, "dilation", 1))
    groups = int(_arg(rest, kw, 3, "groups", 1))
    if kw.get("layout", "NCHW") != "NCHW" or kw.get("activation") is not None or kw.get("residual") is not None:
        raise _nie("conv2d's gradient covers layout='NCHW' without fused activation/residual")
    unb = x.ndim == 3
    if unb:
        x, g = x[None], g[None]
    n, c, h, wd = x.shape
    o, cg, kh, kw_ = w.shape
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0), (0, 0))
        else:
            th, tw = dil[0] * (kh - 1), dil[1] * (kw_ - 1)
            pads = ((th // 2, th - th // 2), (tw // 2, tw - tw // 2))
    else:
        ph, pw = _pair(padding)
        pads = ((ph, ph), (pw, pw))
    xp = _pad2(x, pads)
    hp, wp = xp.shape[2], xp.shape[3]
    og = o // groups
    L = g.shape[2] * g.shape[3]
    gr = g.reshape((n, groups, og, L))
    gx = gw = gb = None
    if len(needs) > 1 and needs[1]:
        cols = F.unfold(xp, (kh, kw_), dilation=dil, padding=0, stride=stride).reshape((n, groups, cg * kh * kw_, L))
        gw = asc.sum(asc.matmul(gr, asc.swapaxes(cols, -1, -2)), axis=0).reshape(w.shape)
    if needs[0]:
        wr = w.reshape((groups, og, cg * kh * kw_))
        gcols = asc.matmul(asc.swapaxes(wr, -1, -2), gr).reshape((n, c * kh * kw_, L))
        gxp = F.fold(gcols, (hp, wp), (kh, kw_), dilation=dil, padding=0, stride=stride)
        gx = gxp[:, :, pads[0][0]:pads[0][0] + h, pads[1][0]:pads[1][0] + wd]
        gx = gx[0] if unb else gx
    if len(needs) > 2 and needs[2] and b is not None:
        gb = asc.sum(g, axis=(0, 2, 3))
    return (gx, gw, gb) + (None,) * len(rest)


# -- normalisation ----------------------------------------------------------------------------------

def _norm_backward(g, x, axes, w_b_shape, w, eps, mean=None, var=None):
    """Shared by layer_norm / batch_norm: cotangents of x, weight, bias for y = xhat * w + b with
    xhat normalised over ``axes`` (batch statistics when ``mean`` is None)."""
    asc = _asc()
    n = 1
    for a in axes:
        n *= x.shape[a]
    if mean is None:
        mean = asc.mean(x, axis=axes, keepdims=True)
        var = asc.mean((x - mean) * (x - mean), axis=axes, keepdims=True)
        batch = True
    else:
        batch = False
    inv = 1.0 / asc.sqrt(var + eps)
    xhat = (x - mean) * inv
    gxhat = g if w is None else g * w.reshape(w_b_shape)
    if batch:
        gx = inv * (gxhat - asc.mean(gxhat, axis=axes, keepdims=True)
                    - xhat * asc.mean(gxhat * xhat, axis=axes, keepdims=True))
    else:
        gx = gxhat * inv
    return gx, xhat


def _layer_norm(g, out, x, normalized_shape, w=None, b=None, *rest, needs, **kw):
    asc = _asc()
    w = kw.get("weight", w)
    b = kw.get("bias", b)
    eps = _arg(rest, kw, 0, "eps", 1e-5)
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(ns)
    axes = tuple(range(x.ndim - k, x.ndim))
    gx, xhat = _norm_backward(g, x, axes, (1,) * (x.ndim - k) + ns, w, eps)
    lead = tuple(range(x.ndim - k))
    gw = asc.sum(g * xhat, axis=lead) if (len(needs) > 2 and needs[2] and w is not None) else None
    gb = asc.sum(g, axis=lead) if (len(needs) > 3 and needs[3] and b is not None) else None
    return (gx if needs[0] else None, None, gw, gb) + (None,) * len(rest)


def _batch_norm(g, out, x, rm, rv, w=None, b=None, *rest, needs, **kw):
    asc = _asc()
    w = kw.get("weight", w)
    b = kw.get("bias", b)
    training = _arg(rest, kw, 0, "training", False)
    eps = _arg(rest, kw, 2, "eps", 1e-5)
    axes = (0,) + tuple(range(2, x.ndim))
    cshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    if training:
        gx, xhat = _norm_backward(g, x, axes, cshape, w, eps)
    else:
        gx, xhat = _norm_backward(g, x, axes, cshape, w, eps, asc.asarray(rm).reshape(cshape),
                                  asc.asarray(rv).reshape(cshape))
    gw = asc.sum(g * xhat, axis=axes) if (len(needs) > 3 and needs[3] and w is not None) else None
    gb = asc.sum(g, axis=axes) if (len(needs) > 4 and needs[4] and b is not None) else None
    return (gx if needs[0] else None, None, None, gw, gb) + (None,) * len(rest)


# -- losses ---------------------------------------------------------------------------------------------

def _red(rest, kw, i):
    r = _arg(rest, kw, i, "reduction", "mean")
    if kw.get("size_average") is not None or kw.get("reduce") is not None:
        raise _nie("loss gradients take reduction=, not the legacy size_average/reduce")
    return r


def _elementwise_loss(deriv):
    def rule(g, out, x, t, *rest, needs, **kw):
        r = _red(rest, kw, 2)
        d = deriv(x, t, rest, kw)
        if r == "mean":
            n = int(_np.prod(_np.broadcast_shapes(tuple(x.shape), tuple(t.shape))))
            d = d * (g / float(max(n, 1)))
        else:
            d = d * g
        if kw.get("weight") is not None:
            d = d * kw["weight"]
        gx = unbroadcast(d, tuple(x.shape)) if needs[0] else None
        gt = unbroadcast(-d, tuple(t.shape)) if needs[1] else None
        return (gx, gt) + (None,) * len(rest)
    return rule


def _cross_entropy(g, out, x, t, *rest, needs, **kw):
    asc = _asc()
    weight = kw.get("weight", rest[0] if rest else None)
    ignore = _arg(rest, kw, 2, "ignore_index", -100)
    r = _red(rest, kw, 4)
    eps = float(_arg(rest, kw, 5, "label_smoothing", 0.0))
    unb = x.ndim == 1
    if unb:
        x = x[None]
        t = asc.asarray(t).reshape((1,) + tuple(asc.asarray(t).shape))
    c = x.shape[1]
    cshape = (1, c) + (1,) * (x.ndim - 2)
    p = asc.ops.softmax(x, dim=1)
    wv = asc.ones((c,), dtype=x.dtype) if weight is None else asc.asarray(weight).astype(x.dtype)
    wb = wv.reshape(cshape)
    ta = asc.asarray(t)
    if _np.dtype(str(ta.dtype)).kind in "iu":
        valid = (ta != ignore)
        tc = asc.where(valid, ta, 0)
        onehot = (asc.arange(c).reshape(cshape) == asc.expand_dims(tc, 1)).astype(x.dtype)
        wt = asc.sum(onehot * wb, axis=1) * valid.astype(x.dtype)  # w[target] (0 where ignored)
        vmask = asc.expand_dims(valid.astype(x.dtype), 1)
        # d/dx of (1-eps) w_t (-log p_t) + eps/C sum_c w_c (-log p_c)
        gl = (1 - eps) * asc.expand_dims(wt, 1) * (p - onehot) + \
            (eps / c) * vmask * (p * asc.sum(wv) - wb)
        denom = asc.sum(wt) if r == "mean" else None
    else:
        tp = ta.astype(x.dtype) * (1 - eps) + eps / c
        gl = p * asc.sum(tp * wb, axis=1, keepdims=True) - tp * wb
        denom = float(x.shape[0] * int(_np.prod(x.shape[2:]))) if r == "mean" else None
    if r == "none":
        gx = gl * asc.expand_dims(g if not unb else g.reshape((1,) + tuple(g.shape)), 1)
    else:
        gx = gl * g if denom is None else gl * (g / denom)
    gx = gx[0] if unb else gx
    return (gx if needs[0] else None, None) + (None,) * len(rest)


def _nll_loss(g, out, x, t, *rest, needs, **kw):
    asc = _asc()
    weight = kw.get("weight", rest[0] if rest else None)
    ignore = _arg(rest, kw, 2, "ignore_index", -100)
    r = _red(rest, kw, 4)
    unb = x.ndim == 1
    if unb:
        x = x[None]
        t = asc.asarray(t).reshape((1,))
    c = x.shape[1]
    cshape = (1, c) + (1,) * (x.ndim - 2)
    ta = asc.asarray(t)
    valid = ta != ignore
    tc = asc.where(valid, ta, 0)
    onehot = (asc.arange(c).reshape(cshape) == asc.expand_dims(tc, 1)).astype(x.dtype)
    wv = asc.ones((c,), dtype=x.dtype) if weight is None else asc.asarray(weight).astype(x.dtype)
    wo = onehot * wv.reshape(cshape) * asc.expand_dims(valid.astype(x.dtype), 1)
    if r == "none":
        gx = -wo * asc.expand_dims(g.reshape(tuple(ta.shape)), 1)
    elif r == "sum":
        gx = -wo * g
    else:
        gx = -wo * (g / asc.sum(wo))
    gx = gx[0] if unb else gx
    return (gx if needs[0] else None, None) + (None,) * len(rest)


def ops_rules():
    asc = _asc()
    r = _pointwise_rules()
    r.update({
        "softmax": _softmax, "log_softmax": _log_softmax,
        "linear": _linear, "conv2d": _conv2d,
        "layer_norm": _layer_norm, "batch_norm": _batch_norm,
        "mse_loss": _elementwise_loss(lambda x, t, r, k: (x - t) * 2),
        "l1_loss": _elementwise_loss(lambda x, t, r, k: asc.sign(x - t)),
        "cross_entropy": _cross_entropy, "nll_loss": _nll_loss,
    })
    from ._rules import _matmul

    r["matmul"] = r["mm"] = r["bmm"] = _matmul
    r.update(_more_rules())
    from ._nd_rules import nd_rules

    r.update(nd_rules())  # N-d pooling/pad/norm/conv rules (replace the 2-D-only ones)
    return r


# -- more asc.ops rules ----------------------------------------------------------------------------

def _conv1d(g, out, x, w, b=None, *rest, needs, **kw):
    # conv1d is conv2d over (N, C, 1, L) with a (O, C/g, 1, K) weight
    b = kw.get("bias", b)

    def first(v):
        return int(v[0]) if isinstance(v, (list, tuple)) else int(v)

    padding = _arg(rest, kw, 1, "padding", 0)
    padding = padding if isinstance(padding, str) else (0, first(padding))
    if kw.get("layout", "NCHW") != "NCHW" or kw.get("activation") is not None or kw.get("residual") is not None:
        raise _nie("conv1d's gradient covers layout='NCHW' without fused activation/residual")
    unb = x.ndim == 2
    x4 = x[None, :, None, :] if unb else x[:, :, None, :]
    g4 = g[None, :, None, :] if unb else g[:, :, None, :]
    need3 = tuple(needs) + (False,) * (3 - len(needs))
    gx, gw, gb = _conv2d(g4, None, x4, w[:, :, None, :], b, needs=need3,
                         stride=(1, first(_arg(rest, kw, 0, "stride", 1))), padding=padding,
                         dilation=(1, first(_arg(rest, kw, 2, "dilation", 1))),
                         groups=int(_arg(rest, kw, 3, "groups", 1)))[:3]
    if gx is not None:
        gx = gx[0, :, 0, :] if unb else gx[:, :, 0, :]
    if gw is not None:
        gw = gw[:, :, 0, :]
    return (gx, gw, gb) + (None,) * len(rest)


def _group_norm(g, out, x, num_groups, w=None, b=None, *rest, needs, **kw):
    asc = _asc()
    w = kw.get("weight", w)
    b = kw.get("bias", b)
    eps = _arg(rest, kw, 0, "eps", 1e-5)
    n, c = x.shape[0], x.shape[1]
    cshape = (1, c) + (1,) * (x.ndim - 2)
    gxhat = g if w is None else g * w.reshape(cshape)
    xr = x.reshape((n, num_groups, -1))
    gx, xhat = _norm_backward(gxhat.reshape((n, num_groups, -1)), xr, (2,), None, None, eps)
    gx, xhat = gx.reshape(x.shape), xhat.reshape(x.shape)
    axes = (0,) + tuple(range(2, x.ndim))
    gw = asc.sum(g * xhat, axis=axes) if (len(needs) > 2 and needs[2] and w is not None) else None
    gb = asc.sum(g, axis=axes) if (len(needs) > 3 and needs[3] and b is not None) else None
    return (gx if needs[0] else None, None, gw, gb) + (None,) * len(rest)


def _dropout(g, out, x, *rest, needs, **kw):
    # the mask is not kept: an element is kept where the output is non-zero (an element whose input
    # is exactly 0 gets gradient 0 even when kept)
    p = float(_arg(rest, kw, 0, "p", 0.5))
    training = _arg(rest, kw, 1, "training", True)
    if not training or p == 0.0:
        return (g,) + (None,) * len(rest)
    if p >= 1.0:
        return (g * 0.0,) + (None,) * len(rest)
    return (g * (out != 0).astype(g.dtype) * (1.0 / (1.0 - p)),) + (None,) * len(rest)


def _embedding(g, out, idx, weight, *rest, needs, **kw):
    asc = _asc()
    pad_idx = _arg(rest, kw, 0, "padding_idx", None)
    if _arg(rest, kw, 1, "max_norm", None) is not None:
        raise _nie("embedding's gradient does not cover max_norm (it renormalises the weight in place)")
    from ._nd_rules import _no_second_order

    _no_second_order(g, "embedding")
    ind = _np.asarray(asc.asarray(idx).numpy()).astype(_np.int64)
    gw = _np.zeros(tuple(weight.shape), dtype=_np.dtype(str(g.dtype)))
    _np.add.at(gw, ind.reshape(-1), _np.asarray(g.numpy()).reshape(-1, weight.shape[1]))
    if pad_idx is not None:
        gw[pad_idx] = 0
    return (None, asc.asarray(gw) if needs[1] else None) + (None,) * len(rest)


def _more_rules():
    return {"conv1d": _conv1d, "group_norm": _group_norm, "dropout": _dropout, "embedding": _embedding,
            "conv_transpose2d": _conv_transpose2d}


def _conv_transpose2d(g, out, x, w, b=None, *rest, needs, **kw):
    # y = conv_transpose2d(x, w): dx = conv2d(g, w) with the same stride/padding/dilation/groups;
    # dw[ci, co, :, :] = sum_n x[n, ci] (x) img2col(g[n, co]) (the positions that x[n, ci, i, j] fed)
    asc = _asc()
    F = asc.ops
    b = kw.get("bias", b)
    stride = _pair(_arg(rest, kw, 0, "stride", 1))
    padding = _pair(_arg(rest, kw, 1, "padding", 0))
    groups = int(_arg(rest, kw, 3, "groups", 1))
    dil = _pair(_arg(rest, kw, 4, "dilation", 1))
    opad = _pair(_arg(rest, kw, 2, "output_padding", 0))
    if kw.get("layout", "NCHW") != "NCHW" or kw.get("activation") is not None or kw.get("residual") is not None:
        raise _nie("conv_transpose2d's gradient covers layout='NCHW' without fused activation/residual")
    if opad[0] >= stride[0] or opad[1] >= stride[1]:
        raise _nie("conv_transpose2d's gradient covers output_padding < stride")
    unb = x.ndim == 3
    if unb:
        x, g = x[None], g[None]
    n, cin, h, wd = x.shape
    _, cog, kh, kw_ = w.shape
    gx = gw = gb = None
    if needs[0]:
        gx = F.conv2d(g, w, None, stride=stride, padding=padding, dilation=dil, groups=groups)
        gx = gx[0] if unb else gx
    if len(needs) > 1 and needs[1]:
        cols = F.unfold(g, (kh, kw_), dilation=dil, padding=padding, stride=stride)  # (N, Cout kk, H W)
        cols = cols.reshape((n, groups, cog * kh * kw_, h * wd))
        xr = x.reshape((n, groups, cin // groups, h * wd))
        gw = asc.sum(asc.matmul(xr, asc.swapaxes(cols, -1, -2)), axis=0).reshape(w.shape)
    if len(needs) > 2 and needs[2] and b is not None:
        gb = asc.sum(g, axis=(0, 2, 3))
    return (gx, gw, gb) + (None,) * len(rest)
