"""VJP rules of the N-d ``asc.ops`` operators: 1-D/2-D/3-D pooling (also ``ceil_mode``), adaptive
pooling, conv3d and the transposed convolutions, instance / RMS / local-response norms and every
``pad`` mode (``asc.pad`` and ``asc.ops.pad``).

Same rule signature as :mod:`._rules` (``rule(g, out, x, *rest, needs, **kw)``). The formulas avoid
per-dimension kernels:

* max pooling (any dimension, padding, dilation, ``ceil_mode``, adaptive): the forward is run again
  with ``return_indices=True`` (or its indices are taken from the output) and the cotangent is
  scatter-added at the argmax positions, so ties go where the forward's index says (torch's choice);
* average pooling (and lp pooling, a power of an average pool) is separable: ``y = (A_1 (x) ... (x) A_n) x`` with one (out, in) matrix per axis
  whose rows hold 1/divisor on the window (the divisor of a box window is the product of per-axis
  factors in both ``count_include_pad`` modes), so the VJP applies ``A_k^T`` per axis with matmul;
* pad of any mode is a gather with an index map per axis (``numpy.pad`` of ``arange``), its VJP
  the transposed 0/1 matrix per axis;
* convolutions: ``dx`` is the transposed convolution of ``g`` (or the convolution, for a transposed
  forward) and ``dw`` a convolution of the batch-transposed input with the batch-transposed
  cotangent (stride and dilation swap roles), one call per group -- so every dimension and option
  the forward supports has a gradient through the forward's own (oneDNN) kernels.
"""

from __future__ import annotations

import numpy as _np

from ._nn_rules import _arg, _nie


def _asc():
    import pyasc

    return pyasc


def _tup(v, n):
    if isinstance(v, (list, tuple)):
        v = tuple(int(e) for e in v)
        return v * n if len(v) == 1 else v
    return (int(v),) * n


def _acc_dtype(dt):
    return _np.float64 if str(dt) == "float64" else _np.float32


def _apply_axes(g, mats, nd):
    """g (..., O_1, ..., O_nd) -> (..., I_1, ..., I_nd) with g's last nd axes contracted with the
    (O_k, I_k) matrices (the transposes of the forward's per-axis maps)."""
    asc = _asc()
    dt = _acc_dtype(g.dtype)
    for k, m in enumerate(mats):
        ax = g.ndim - nd + k
        gm = asc.moveaxis(g, ax, -1)
        gm = asc.matmul(gm if gm.dtype == dt else gm.astype(dt), asc.asarray(m.astype(dt)))
        g = asc.moveaxis(gm, -1, ax)
    return g


def _rest_len(rest):
    return (None,) * len(rest)


# -- max pooling: scatter at the forward's indices --------------------------------------------------

def _scatter_back(g, idx, xshape, nd):
    """Sums g into a zero array of ``xshape`` at the flat spatial positions ``idx`` (same shape as g)."""
    asc = _asc()
    _no_second_order(g, "max pooling")
    plane = int(_np.prod(xshape[-nd:])) if nd else 1
    rows = int(_np.prod(xshape[:-nd]))
    dt = _acc_dtype(g.dtype)
    gh = _np.asarray(g.astype(dt).numpy() if g.dtype != dt else g.numpy()).reshape(rows, -1)
    ih = _np.asarray(asc.asarray(idx).numpy()).astype(_np.int64).reshape(rows, -1)
    gx = _np.zeros((rows, plane), dtype=dt)
    r = _np.repeat(_np.arange(rows), gh.shape[1])
    _np.add.at(gx, (r, ih.ravel()), gh.ravel())
    return asc.asarray(gx.reshape(tuple(xshape)))


def _no_second_order(g, what):
    from ._tape import Traced

    if type(g) is Traced:  # the scatter runs on the host: it would silently drop the enclosing trace
        raise _nie(f"{what}'s gradient is computed on the host and has no derivative itself (grad of grad)")


_MAX_ARGS = (("kernel_size", None), ("stride", None), ("padding", 0), ("dilation", 1), ("ceil_mode", False))


def _max_pool(nd):
    name = f"max_pool{nd}d"

    def rule(g, out, x, *rest, needs, **kw):
        asc = _asc()
        if isinstance(out, tuple):  # return_indices=True: (values, indices)
            g, idx = g[0], out[1]
        else:
            args = {n: _arg(rest, kw, i, n, d) for i, (n, d) in enumerate(_MAX_ARGS)}
            idx = getattr(asc.ops, name)(x, return_indices=True, **args)[1]
        return (_scatter_back(g, idx, tuple(x.shape), nd),) + _rest_len(rest)

    return rule


def _adaptive_max(nd):
    name = f"adaptive_max_pool{nd}d"

    def rule(g, out, x, *rest, needs, **kw):
        asc = _asc()
        if isinstance(out, tuple):
            g, idx = g[0], out[1]
        else:
            idx = getattr(asc.ops, name)(x, _arg(rest, kw, 0, "output_size", None), return_indices=True)[1]
        return (_scatter_back(g, idx, tuple(x.shape), nd),) + _rest_len(rest)

    return rule


# -- average pooling: separable ---------------------------------------------------------------------

def _avg_matrix(n_in, n_out, k, s, p, include_pad, unit):
    """(n_out, n_in): row o holds 1/divisor-factor on window o (torch's avg_pool: the window
    [o s - p, o s - p + k) clipped to [0, n_in); the divisor factor counts the padding up to
    n_in + p with count_include_pad, else only the real elements). ``unit``: 1 on the window."""
    m = _np.zeros((n_out, n_in))
    for o in range(n_out):
        start = o * s - p
        end = min(start + k, n_in + p)
        lo, hi = max(start, 0), min(end, n_in)
        if hi <= lo:
            continue
        div = 1 if unit else ((end - start) if include_pad else (hi - lo))
        m[o, lo:hi] = 1.0 / div
    return m


def _avg_pool(nd):
    def rule(g, out, x, *rest, needs, **kw):
        k = _tup(_arg(rest, kw, 0, "kernel_size", None), nd)
        s = _arg(rest, kw, 1, "stride", None)
        s = k if s is None or (isinstance(s, (list, tuple)) and len(s) == 0) else _tup(s, nd)
        p = _tup(_arg(rest, kw, 2, "padding", 0), nd)
        include_pad = bool(_arg(rest, kw, 4, "count_include_pad", True))
        div = _arg(rest, kw, 5, "divisor_override", None) if nd > 1 else None
        xs, gs = tuple(x.shape[-nd:]), tuple(g.shape[-nd:])
        mats = [_avg_matrix(xs[i], gs[i], k[i], s[i], p[i], include_pad, div is not None) for i in range(nd)]
        gx = _apply_axes(g, mats, nd)
        if div is not None:
            gx = gx * (1.0 / float(div))
        return (gx,) + _rest_len(rest)

    return rule


def _lp_pool(nd):
    # y = (K a)^(1/p), a = avg_pool(x^p) (no padding, torch's edge divisors), K = the kernel's size:
    # dx = x^(p-1) * avg_pool^T(g K y^(1-p))
    def rule(g, out, x, norm_type, *rest, needs, **kw):
        asc = _asc()
        p = float(norm_type)
        k = _tup(_arg(rest, kw, 0, "kernel_size", None), nd)
        s = _arg(rest, kw, 1, "stride", None)
        s = k if s is None or (isinstance(s, (list, tuple)) and len(s) == 0) else _tup(s, nd)
        xs, gs = tuple(x.shape[-nd:]), tuple(g.shape[-nd:])
        mats = [_avg_matrix(xs[i], gs[i], k[i], s[i], 0, True, False) for i in range(nd)]
        kk = float(_np.prod(k))
        inner = g * asc.power(out, 1.0 - p) * kk
        return (_apply_axes(inner, mats, nd) * asc.power(x, p - 1.0), None) + _rest_len(rest)

    return rule


def _bins(n_in, n_out):
    m = _np.zeros((n_out, n_in))
    for i in range(n_out):
        a, b = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, a:b] = 1.0 / (b - a)
    return m


def _adaptive_avg(nd):
    def rule(g, out, x, *rest, needs, **kw):
        xs, gs = tuple(x.shape[-nd:]), tuple(g.shape[-nd:])
        return (_apply_axes(g, [_bins(xs[i], gs[i]) for i in range(nd)], nd),) + _rest_len(rest)

    return rule


# -- pad ----------------------------------------------------------------------------------------------

def _index_map(n, lo, hi, np_mode):
    """Source index of every output position along one axis (-1: a constant fill)."""
    a = _np.arange(n)
    if np_mode == "constant":
        a = a[max(-lo, 0): n - max(-hi, 0)]  # negative pads crop (asc.ops.pad)
        return _np.pad(a, (max(lo, 0), max(hi, 0)), mode="constant", constant_values=-1)
    return _np.pad(a, (lo, hi), mode=np_mode)


def _pad_back(g, xshape, widths, np_mode):
    asc = _asc()
    dt = _acc_dtype(g.dtype)
    for ax, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        src = _index_map(xshape[ax], lo, hi, np_mode)
        m = _np.zeros((len(src), xshape[ax]), dtype=dt)
        keep = src >= 0
        m[_np.nonzero(keep)[0], src[keep]] = 1.0
        gm = asc.moveaxis(g, ax, -1)
        gm = asc.matmul(gm if gm.dtype == dt else gm.astype(dt), asc.asarray(m))
        g = asc.moveaxis(gm, -1, ax)
    return g


_INDEX_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _asc_pad(g, out, x, pad_width, *rest, needs, **kw):
    mode = _arg(rest, kw, 0, "mode", "constant")
    if mode not in _INDEX_MODES or kw.get("reflect_type", "even") != "even":
        raise _nie(f"asc.pad's gradient covers the modes {_INDEX_MODES} (reflect_type='even'), got {mode!r}")
    widths = [tuple(int(v) for v in w) for w in _np.broadcast_to(_np.asarray(pad_width), (x.ndim, 2))]
    return (_pad_back(g, tuple(x.shape), widths, mode), None) + _rest_len(rest)


_TORCH_PAD = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _ops_pad(g, out, x, pad, *rest, needs, **kw):
    mode = _arg(rest, kw, 0, "mode", "constant")
    if mode not in _TORCH_PAD:
        raise _nie(f"pad's gradient covers the modes {sorted(_TORCH_PAD)}, got {mode!r}")
    pad = tuple(int(v) for v in pad)
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return (_pad_back(g, tuple(x.shape), widths, _TORCH_PAD[mode]), None) + _rest_len(rest)


# -- norms --------------------------------------------------------------------------------------------

def _slots(rest):
    """Result list (input first) with a slot per positional argument."""
    return [None] * (1 + len(rest))


def _put(res, pos, val):
    if pos < len(res):
        res[pos] = val


def _instance_norm(g, out, x, *rest, needs, **kw):
    from ._nn_rules import _norm_backward

    asc = _asc()
    rm = _arg(rest, kw, 0, "running_mean", None)
    rv = _arg(rest, kw, 1, "running_var", None)
    w = _arg(rest, kw, 2, "weight", None)
    use_stats = _arg(rest, kw, 4, "use_input_stats", True)
    eps = float(_arg(rest, kw, 6, "eps", 1e-5))
    cshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    spatial = tuple(range(2, x.ndim))
    if use_stats:
        gx, xhat = _norm_backward(g, x, spatial, cshape, w, eps)
    else:
        gx, xhat = _norm_backward(g, x, spatial, cshape, w, eps, asc.asarray(rm).reshape(cshape),
                                  asc.asarray(rv).reshape(cshape))
    res = _slots(rest)
    res[0] = gx if needs[0] else None
    axes = (0,) + spatial
    if len(needs) > 3 and needs[3]:
        _put(res, 3, asc.sum(g * xhat, axis=axes))
    if len(needs) > 4 and needs[4]:
        _put(res, 4, asc.sum(g, axis=axes))
    return tuple(res)


def _rms_norm(g, out, x, normalized_shape, *rest, needs, **kw):
    asc = _asc()
    w = _arg(rest, kw, 0, "weight", None)
    eps = _arg(rest, kw, 1, "eps", None)
    if eps is None:
        eps = float(_np.finfo(_np.float32 if str(x.dtype) == "bfloat16" else _np.dtype(str(x.dtype))).eps)
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axes = tuple(range(x.ndim - len(ns), x.ndim))
    r = 1.0 / asc.sqrt(asc.mean(x * x, axis=axes, keepdims=True) + float(eps))
    gw_ = g if w is None else g * w
    gx = r * (gw_ - x * (r * r) * asc.mean(gw_ * x, axis=axes, keepdims=True))
    res = [gx if needs[0] else None, None] + [None] * len(rest)
    if len(needs) > 2 and needs[2] and w is not None:
        res[2] = asc.sum(g * x * r, axis=tuple(range(x.ndim - len(ns))))
    return tuple(res)


def _lrn(g, out, x, size, *rest, needs, **kw):
    # y = x d^-b, d = k + a/size * S, S_c = sum of x^2 over the channels [c - size//2, c + (size-1)//2]:
    # dx = g d^-b - (2ab/size) x B^T(g x d^(-b-1)), B the (C, C) 0/1 window matrix
    asc = _asc()
    alpha = float(_arg(rest, kw, 0, "alpha", 1e-4))
    beta = float(_arg(rest, kw, 1, "beta", 0.75))
    kk = float(_arg(rest, kw, 2, "k", 1.0))
    size = int(size)
    c = x.shape[1]
    dt = _acc_dtype(x.dtype)
    band = _np.zeros((c, c), dtype=dt)
    for i in range(c):
        band[i, max(i - size // 2, 0): min(i + (size - 1) // 2, c - 1) + 1] = 1.0
    xs = x if x.dtype == dt else x.astype(dt)
    gs = g if g.dtype == dt else g.astype(dt)
    xm = asc.moveaxis(xs, 1, -1)
    d = asc.matmul(xm * xm, asc.asarray(band.T)) * (alpha / size) + kk
    gm = asc.moveaxis(gs, 1, -1)
    q = gm * xm * asc.power(d, -beta - 1.0)
    gx = gm * asc.power(d, -beta) - xm * asc.matmul(q, asc.asarray(band)) * (2.0 * alpha * beta / size)
    return (asc.moveaxis(gx, -1, 1), None) + _rest_len(rest)


# -- convolutions of any dimension through the forward kernels -----------------------------------------

def _check_plain(kw, name):
    if kw.get("layout", "NCHW") != "NCHW" or kw.get("activation") is not None or kw.get("residual") is not None:
        raise _nie(f"{name}'s gradient covers layout='NCHW' without fused activation/residual")


def _pad_sp(t, widths):
    asc = _asc()
    if not any(lo or hi for lo, hi in widths):
        return t
    return asc.pad(t, [(0, 0), (0, 0)] + [tuple(w) for w in widths])


def _crop_sp(t, starts, sizes):
    return t[(slice(None), slice(None)) + tuple(slice(a, a + n) for a, n in zip(starts, sizes))]


def _conv_weight_grad(nd, a, b, stride, dil, k, groups, ga, gb):
    """sum_n sum_pos a[n, i, pos * dil + kpos * stride] b[n, j, pos] as (ga-group blocks of) (j, i, k):
    a conv{nd} of a^T (i as batch, n as channels) with b^T (j as outputs) at stride ``stride`` and
    dilation ``dil``, cropped to the kernel size ``k``."""
    asc = _asc()
    conv = getattr(asc.ops, f"conv{nd}d")
    blocks = []
    for gi in range(groups):
        ag = asc.swapaxes(a[:, gi * ga:(gi + 1) * ga], 0, 1)
        bg = asc.swapaxes(b[:, gi * gb:(gi + 1) * gb], 0, 1)
        r = conv(asc.ascontiguousarray(ag), asc.ascontiguousarray(bg), None, stride=stride, dilation=dil)
        r = _crop_sp(r, (0,) * nd, k)  # (i, j, *k)
        blocks.append(asc.swapaxes(r, 0, 1))
    return blocks[0] if groups == 1 else asc.concatenate(blocks, axis=0)


def _conv_nd(nd):
    name = f"conv{nd}d"

    def rule(g, out, x, w, b=None, *rest, needs, **kw):
        asc = _asc()
        b = kw.get("bias", b)
        _check_plain(kw, name)
        s = _tup(_arg(rest, kw, 0, "stride", 1), nd)
        padding = _arg(rest, kw, 1, "padding", 0)
        d = _tup(_arg(rest, kw, 2, "dilation", 1), nd)
        groups = int(_arg(rest, kw, 3, "groups", 1))
        unb = x.ndim == nd + 1
        if unb:
            x, g = x[None], g[None]
        k = tuple(w.shape[2:])
        if isinstance(padding, str):
            tot = [0] * nd if padding == "valid" else [d[i] * (k[i] - 1) for i in range(nd)]
            widths = [(t // 2, t - t // 2) for t in tot]
        else:
            widths = [(p, p) for p in _tup(padding, nd)]
        xp = _pad_sp(x, widths)
        xps, gsp = tuple(xp.shape[2:]), tuple(g.shape[2:])
        gx = gw = gb = None
        if needs[0]:
            opad = tuple(xps[i] - ((gsp[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1) for i in range(nd))
            gxp = getattr(asc.ops, f"conv_transpose{nd}d")(g, w, None, stride=s, padding=0, output_padding=opad,
                                                          groups=groups, dilation=d)
            gx = _crop_sp(gxp, [lo for lo, _ in widths], tuple(x.shape[2:]))
            gx = gx[0] if unb else gx
        if len(needs) > 1 and needs[1]:
            gw = _conv_weight_grad(nd, xp, g, d, s, k, groups, x.shape[1] // groups, w.shape[0] // groups)
        if len(needs) > 2 and needs[2] and b is not None:
            gb = asc.sum(g, axis=(0,) + tuple(range(2, g.ndim)))
        return (gx, gw, gb) + _rest_len(rest)

    return rule


def _conv_transpose_nd(nd):
    name = f"conv_transpose{nd}d"

    def rule(g, out, x, w, b=None, *rest, needs, **kw):
        asc = _asc()
        b = kw.get("bias", b)
        _check_plain(kw, name)
        s = _tup(_arg(rest, kw, 0, "stride", 1), nd)
        p = _tup(_arg(rest, kw, 1, "padding", 0), nd)
        groups = int(_arg(rest, kw, 3, "groups", 1))
        d = _tup(_arg(rest, kw, 4, "dilation", 1), nd)
        unb = x.ndim == nd + 1
        if unb:
            x, g = x[None], g[None]
        k = tuple(w.shape[2:])
        xs, ys = tuple(x.shape[2:]), tuple(g.shape[2:])
        gx = gw = gb = None
        if needs[0]:
            gx = getattr(asc.ops, f"conv{nd}d")(g, w, None, stride=s, padding=p, dilation=d, groups=groups)
            gx = _crop_sp(gx, (0,) * nd, xs)  # output_padding >= stride gives extra rows
            gx = gx[0] if unb else gx
        if len(needs) > 1 and needs[1]:
            # the full (unpadded, unclipped) output of length (n-1)s + d(k-1) + 1 holds g at [p, p + Y)
            full = [(xs[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 for i in range(nd)]
            gf = _pad_sp(g, [(p[i], max(0, full[i] - p[i] - ys[i])) for i in range(nd)])
            gf = _crop_sp(gf, (0,) * nd, full)
            cig, cog = x.shape[1] // groups, w.shape[1]
            # blocks (cog, cig, k) per group -> weight (Cin, Cout/groups, k): a = g_full, b = x
            blocks = []
            conv = getattr(asc.ops, f"conv{nd}d")
            for gi in range(groups):
                ag = asc.ascontiguousarray(asc.swapaxes(gf[:, gi * cog:(gi + 1) * cog], 0, 1))
                bg = asc.ascontiguousarray(asc.swapaxes(x[:, gi * cig:(gi + 1) * cig], 0, 1))
                r = _crop_sp(conv(ag, bg, None, stride=d, dilation=s), (0,) * nd, k)  # (cog, cig, k)
                blocks.append(asc.swapaxes(r, 0, 1))
            gw = blocks[0] if groups == 1 else asc.concatenate(blocks, axis=0)
        if len(needs) > 2 and needs[2] and b is not None:
            gb = asc.sum(g, axis=(0,) + tuple(range(2, g.ndim)))
        return (gx, gw, gb) + _rest_len(rest)

    return rule


def nd_rules():
    """asc.ops rules of this module (they replace the 2-D-only pooling and pad rules)."""
    r = {}
    for nd in (1, 2, 3):
        r[f"max_pool{nd}d"] = _max_pool(nd)
        r[f"avg_pool{nd}d"] = _avg_pool(nd)
        r[f"adaptive_avg_pool{nd}d"] = _adaptive_avg(nd)
        r[f"adaptive_max_pool{nd}d"] = _adaptive_max(nd)
        r[f"lp_pool{nd}d"] = _lp_pool(nd)
    r.update({
        "conv3d": _conv_nd(3), "conv_transpose1d": _conv_transpose_nd(1), "conv_transpose3d": _conv_transpose_nd(3),
        "pad": _ops_pad, "instance_norm": _instance_norm, "rms_norm": _rms_norm, "local_response_norm": _lrn,
    })
    return r


# functions whose results carry no gradient (booleans, integers): a traced operand is unwrapped
CONSTANT_FNS = (
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isclose", "allclose", "array_equal",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "argmax", "argmin", "argsort", "nonzero",
    "count_nonzero", "shape", "ndim", "size", "result_type", "zeros_like", "ones_like", "empty_like",
)


def asc_nd_rules():
    """asc.<name> rules of this module."""
    ident = lambda g, out, x, *rest, needs, **kw: (g,) + (None,) * len(rest)  # noqa: E731
    # asarray/array of a traced value: identity (the cotangent is cast back to the operand's dtype), so
    # asc.ops functions written in pyasc (losses, interpolate, normalize...) differentiate through
    # their bodies
    return {"pad": _asc_pad, "asarray": ident, "asanyarray": ident, "array": ident}
