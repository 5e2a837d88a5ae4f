"""asc.ops: tensor ops models need (``torch.nn.functional`` signatures).

Fusion classes: ``pad``/``flatten``/``pixel_shuffle``/``unfold`` are data movement
(views, ``asc.pad`` copies, gathers); ``interpolate`` is separable: nearest modes
gather along each spatial axis, the linear/cubic/antialias modes apply a small
(out, in) interpolation matrix per axis with ``asc.matmul`` (exactly torch's
weights, computed on the host in float64 once per call); ``dropout`` is an
elementwise ``where`` with a Philox mask from ``pyasc.random`` and fuses with its
neighbours; ``embedding`` / ``one_hot`` are gathers / compares.
"""

from __future__ import annotations

import math as _math

import numpy as _np

from ._activation import _asc, _in, _shape_error, _is_float_dtype, _param_error, _inplace

__all__ = [
    "pad", "interpolate", "upsample", "resize", "pixel_shuffle", "pixel_unshuffle", "embedding",
    "one_hot", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "flatten",
    "unflatten", "unfold", "fold",
]


def _arr(x):
    asc = _asc()
    return x if isinstance(x, asc.ndarray) else asc.asarray(x)


def _pair(v, n, op, name):
    if isinstance(v, (tuple, list)):
        if len(v) != n:
            raise _param_error(op, f"{name} must be an int or a {n}-tuple, got {tuple(v)}")
        return tuple(int(i) for i in v)
    return (int(v),) * n


# -- pad -----------------------------------------------------------------------------------------

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dims; ``pad = (left_last, right_last, left_prev, right_prev, ...)``.

    Modes: constant (``value``, default 0; negative pads crop), reflect, replicate,
    circular (torch's rules: reflect needs pad < size, circular pad <= size).
    """
    asc = _asc()
    x = _arr(input)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise _shape_error("pad", f"padding length must be even and at most 2*ndim ({2 * x.ndim}), "
                                  f"got {len(pad)} for input shape {tuple(x.shape)}")
    if mode not in _PAD_MODES:
        raise _param_error("pad", f"mode must be one of {sorted(_PAD_MODES)}, got {mode!r}")
    k = len(pad) // 2
    widths = [(0, 0)] * x.ndim
    for i in range(k):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode != "constant":
        if value not in (None, 0, 0.0):
            raise _param_error("pad", f"padding mode {mode!r} doesn't take in value argument")
        if x.ndim - k < 1 and x.ndim > 0:
            pass
        for ax in range(x.ndim - k, x.ndim):
            lo, hi = widths[ax]
            n = x.shape[ax]
            if lo < 0 or hi < 0:
                raise _param_error("pad", f"negative padding {widths[ax]} is only supported in constant mode")
            if mode == "reflect" and (lo >= n or hi >= n) and (lo or hi):
                raise _shape_error("pad", f"reflect padding ({lo}, {hi}) must be < the input size {n} "
                                          f"of dim {ax} (input shape {tuple(x.shape)})")
            if mode == "circular" and (lo > n or hi > n):
                raise _shape_error("pad", f"circular padding ({lo}, {hi}) must be <= the input size {n} "
                                          f"of dim {ax} (input shape {tuple(x.shape)})")
            if mode == "replicate" and n == 0 and (lo or hi):
                raise _param_error("pad", f"replicate padding of the empty dim {ax}")
        return asc.pad(x, widths, mode=_PAD_MODES[mode])
    # constant: crop the negative parts first, then pad the positive ones
    crop = tuple(slice(max(-lo, 0), x.shape[ax] - max(-hi, 0) if hi < 0 else None)
                 for ax, (lo, hi) in enumerate(widths))
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        for ax, (lo, hi) in enumerate(widths):
            if x.shape[ax] + lo + hi < 0:
                raise _shape_error("pad", f"the padded size of dim {ax} would be negative "
                                          f"({x.shape[ax]} + {lo} + {hi})")
        x = x[crop]
    pos = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if not any(lo or hi for lo, hi in pos):
        return x.copy() if hasattr(x, "copy") else x
    v = 0 if value is None else value
    return asc.pad(x, pos, mode="constant", constant_values=v)


# -- interpolate ---------------------------------------------------------------------------------

def _cubic(t, a):
    t = _np.abs(t)
    return _np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                     _np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def _src_scale(n_in, n_out, align_corners, sf):
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return (1.0 / sf) if sf is not None else n_in / n_out


def _axis_weights(src, n_in, mode, a=-0.75):
    """(len(src), n_in) float64 linear or cubic (coefficient ``a``) weights at the source coordinates
    ``src``, taps clamped to the border (shared with the ONNX Resize importer)."""
    n_out = len(src)
    W = _np.zeros((n_out, n_in))
    rows = _np.arange(n_out)
    if mode == "linear":
        src = _np.maximum(src, 0.0)
        i0 = _np.minimum(_np.floor(src).astype(_np.int64), n_in - 1)
        i1 = _np.minimum(i0 + 1, n_in - 1)
        lam = src - i0
        _np.add.at(W, (rows, i0), 1.0 - lam)
        _np.add.at(W, (rows, i1), lam)
        return W
    i0 = _np.floor(src).astype(_np.int64)
    t = src - i0
    for k in range(-1, 3):
        _np.add.at(W, (rows, _np.clip(i0 + k, 0, n_in - 1)), _cubic(t - k, a))
    return W


def _interp_matrix(n_in, n_out, mode, align_corners, sf, antialias):
    """(n_out, n_in) float64 matrix of torch's interpolation weights along one axis."""
    W = _np.zeros((n_out, n_in))
    if n_out == 0 or n_in == 0:
        return W
    scale = _src_scale(n_in, n_out, align_corners, sf)
    dst = _np.arange(n_out, dtype=_np.float64)
    if antialias:
        interp = 2 if mode == "linear" else 4
        support = interp * 0.5 * scale if scale >= 1.0 else interp * 0.5
        inv = 1.0 / scale if scale >= 1.0 else 1.0
        for i in range(n_out):
            center = scale * (i + 0.5)
            xmin = max(int(center - support + 0.5), 0)
            xsize = min(int(center + support + 0.5), n_in) - xmin
            j = _np.arange(xsize, dtype=_np.float64)
            arg = (j + xmin - center + 0.5) * inv
            w = _np.maximum(0.0, 1.0 - _np.abs(arg)) if mode == "linear" else _cubic(arg, -0.5)
            s = w.sum()
            if s != 0:
                w = w / s
            W[i, xmin:xmin + xsize] = w
        return W
    if align_corners:
        src = dst * scale
    else:
        src = (dst + 0.5) * scale - 0.5
    return _axis_weights(src, n_in, mode)


def _nearest_index(n_in, n_out, sf, exact):
    scale = (1.0 / sf) if sf is not None else n_in / n_out
    dst = _np.arange(n_out, dtype=_np.float64)
    src = _np.floor((dst + 0.5) * scale) if exact else _np.floor(dst * _np.float32(scale))
    return _np.minimum(src.astype(_np.int64), n_in - 1)


_MODES = {"nearest": 0, "nearest-exact": 0, "linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3,
          "area": 0}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims (all dims after N, C) as ``torch.nn.functional.interpolate``.

    Modes: nearest, nearest-exact, linear (3-D input), bilinear/bicubic (4-D), trilinear
    (5-D), area (adaptive average); ``align_corners`` for the linear/cubic modes;
    ``antialias`` for bilinear/bicubic (torch's PIL-style filters when downsampling).
    """
    asc = _asc()
    x = _arr(input)
    op = "interpolate"
    if mode not in _MODES:
        raise _param_error(op, f"unsupported mode {mode!r} (one of {sorted(_MODES)})")
    sd = x.ndim - 2
    if sd < 1:
        raise _shape_error(op, f"expects a batched input with >= 1 spatial dim, got shape {tuple(x.shape)}")
    if _MODES[mode] and _MODES[mode] != sd:
        raise _shape_error(op, f"mode {mode!r} expects {_MODES[mode] + 2}-D input, got shape {tuple(x.shape)}")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise _param_error(op, "align_corners option can only be set with the interpolating modes: "
                                   "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias and mode not in ("bilinear", "bicubic"):
        raise _param_error(op, f"anti-alias option is only supported for bilinear and bicubic modes, not {mode!r}")
    if (size is None) == (scale_factor is None):
        raise _param_error(op, "only one of size or scale_factor should be defined")
    in_sp = tuple(int(s) for s in x.shape[2:])
    if size is not None:
        out_sp = _pair(size, sd, op, "size")
        sfs = (None,) * sd
    else:
        sfs = tuple(float(s) for s in (scale_factor if isinstance(scale_factor, (tuple, list))
                                       else (scale_factor,) * sd))
        if len(sfs) != sd:
            raise _param_error(op, f"scale_factor must have {sd} elements, got {scale_factor}")
        out_sp = tuple(int(_math.floor(n * s)) for n, s in zip(in_sp, sfs))
        if recompute_scale_factor:
            sfs = (None,) * sd
    if any(o <= 0 for o in out_sp) or any(o < 0 for o in out_sp):
        raise _shape_error(op, f"output spatial size {out_sp} must be positive (input {tuple(x.shape)})")
    if any(n == 0 for n in in_sp):
        raise _shape_error(op, f"input spatial size {in_sp} must be non-empty")
    if not (_is_float_dtype(x.dtype) or mode in ("nearest", "nearest-exact")):
        raise _param_error(op, f"mode {mode!r} needs a floating input, got {x.dtype}")
    y = x
    for k in range(sd):
        ax = 2 + k
        n_in, n_out, sf = in_sp[k], out_sp[k], sfs[k]
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest_index(n_in, n_out, sf, mode == "nearest-exact")
            y = asc.take(y, asc.asarray(idx), axis=ax)
            continue
        if mode == "area":
            W = _np.zeros((n_out, n_in))
            for i in range(n_out):
                s = (i * n_in) // n_out
                e = -((-(i + 1) * n_in) // n_out)
                W[i, s:e] = 1.0 / (e - s)
        else:
            kind = "linear" if mode in ("linear", "bilinear", "trilinear") else "cubic"
            W = _interp_matrix(n_in, n_out, kind, align_corners, sf, antialias)
        acc = asc.float64 if str(y.dtype) == "float64" else asc.float32
        Wt = asc.asarray(W.T.astype(_np.float64 if acc == asc.float64 else _np.float32))
        ym = asc.moveaxis(y, ax, -1)
        ym = ym.astype(acc) if ym.dtype != acc else ym
        ym = asc.matmul(ym, Wt)
        y = asc.moveaxis(ym, -1, ax)
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    return asc.ascontiguousarray(y)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated torch alias of :func:`interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def resize(input, size, mode="bilinear", align_corners=None, antialias=False):
    """Resize to ``size`` (alias of :func:`interpolate` with a size)."""
    return interpolate(input, size=size, mode=mode, align_corners=align_corners, antialias=antialias)


# -- rearrangements --------------------------------------------------------------------------------

def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    x = _arr(input)
    r = int(upscale_factor)
    if x.ndim < 3 or r <= 0 or x.shape[-3] % (r * r):
        raise _shape_error("pixel_shuffle", f"input {tuple(x.shape)} needs >= 3 dims and a channel count "
                                            f"divisible by upscale_factor^2 = {r * r}")
    *b, c, h, w = x.shape
    oc = c // (r * r)
    nb = len(b)
    y = x.reshape(tuple(b) + (oc, r, r, h, w))
    perm = tuple(range(nb)) + (nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return _asc().ascontiguousarray(y.transpose(perm)).reshape(tuple(b) + (oc, h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    x = _arr(input)
    r = int(downscale_factor)
    if x.ndim < 3 or r <= 0 or x.shape[-1] % r or x.shape[-2] % r:
        raise _shape_error("pixel_unshuffle", f"input {tuple(x.shape)} needs >= 3 dims and H, W divisible "
                                              f"by downscale_factor = {r}")
    *b, c, h, w = x.shape
    nb = len(b)
    y = x.reshape(tuple(b) + (c, h // r, r, w // r, r))
    perm = tuple(range(nb)) + (nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return _asc().ascontiguousarray(y.transpose(perm)).reshape(tuple(b) + (c * r * r, h // r, w // r))


def flatten(input, start_dim=0, end_dim=-1):
    """Flatten dims start_dim..end_dim into one."""
    x = _arr(input)
    if x.ndim == 0:
        return x.reshape((1,))
    n = x.ndim
    s, e = start_dim % n if -n <= start_dim < n else None, end_dim % n if -n <= end_dim < n else None
    if s is None or e is None:
        raise _asc().errors.AscendIndexError(_asc().errors.ErrorCode.INVALID_PARAM,
                                             f"[flatten] start_dim {start_dim} / end_dim {end_dim} out of range "
                                             f"for {n}-d input")
    if s > e:
        raise _param_error("flatten", f"start_dim ({start_dim}) cannot come after end_dim ({end_dim})")
    shp = tuple(x.shape)
    mid = 1
    for d in shp[s:e + 1]:
        mid *= d
    return x.reshape(shp[:s] + (mid,) + shp[e + 1:])


def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one entry may be -1)."""
    x = _arr(input)
    n = x.ndim
    d = dim % n
    shp = tuple(x.shape)
    return x.reshape(shp[:d] + tuple(sizes) + shp[d + 1:])


# -- embedding / one_hot ---------------------------------------------------------------------------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` (num_embeddings, dim) gathered by the integer ``input``.

    ``max_norm`` renormalises, in place in ``weight`` as torch does, the referenced rows
    whose ``norm_type``-norm exceeds it. ``padding_idx`` is validated (it only affects
    gradients in torch).
    """
    asc = _asc()
    idx = _arr(input)
    w = _arr(weight)
    if _np.dtype(str(idx.dtype)).kind not in "iu":
        raise asc.errors.AscendTypeError(asc.errors.ErrorCode.INVALID_DTYPE,
                                         f"[embedding] indices must be an integer array, got {idx.dtype}")
    if w.ndim != 2:
        raise _shape_error("embedding", f"weight must be 2-D, got shape {tuple(w.shape)}")
    n = w.shape[0]
    if padding_idx is not None and not -n <= padding_idx < n:
        raise _param_error("embedding", f"padding_idx {padding_idx} must be within num_embeddings {n}")
    if idx.size:
        lo, hi = int(asc.min(idx)), int(asc.max(idx))
        if lo < 0 or hi >= n:
            raise asc.errors.AscendIndexError(asc.errors.ErrorCode.INDEX_OUT_OF_RANGE,
                                              f"[embedding] index out of range: indices span [{lo}, {hi}], "
                                              f"weight has {n} rows")
    if max_norm is not None and idx.size:
        rows = _np.unique(_np.asarray(idx).ravel())
        wr = _np.asarray(w)[rows].astype(_np.float64)
        norms = _np.sum(_np.abs(wr) ** norm_type, axis=1) ** (1.0 / norm_type)
        big = norms > max_norm
        if big.any():
            scale = max_norm / (norms[big] + 1e-7)
            new = (_np.asarray(w)[rows[big]].astype(_np.float64) * scale[:, None])
            w[asc.asarray(rows[big])] = asc.asarray(new).astype(w.dtype)
    return asc.take(w, idx.astype(asc.int64), axis=0)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a trailing dim of ``num_classes`` (max + 1 when -1)."""
    asc = _asc()
    t = _arr(tensor)
    if _np.dtype(str(t.dtype)).kind not in "iu":
        raise asc.errors.AscendTypeError(asc.errors.ErrorCode.INVALID_DTYPE,
                                         f"[one_hot] is only applicable to index (integer) tensors, got {t.dtype}")
    if t.size:
        lo, hi = int(asc.min(t)), int(asc.max(t))
        if lo < 0:
            raise _param_error("one_hot", f"class values must be non-negative, got {lo}")
    else:
        hi = -1
        if num_classes == -1:
            raise _param_error("one_hot", "can not infer total number of classes from an empty tensor")
    if num_classes == -1:
        num_classes = hi + 1
    elif t.size and hi >= num_classes:
        raise _param_error("one_hot", f"class values must be smaller than num_classes ({num_classes}), got {hi}")
    classes = asc.arange(num_classes, dtype=asc.int64)
    return (t.astype(asc.int64)[..., None] == classes).astype(asc.int64)


# -- dropout ---------------------------------------------------------------------------------------

def _check_p(p, op):
    if not 0.0 <= p <= 1.0:
        raise _param_error(op, f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_mask(x, p, shape, generator):
    asc = _asc()
    rng = generator if generator is not None else asc.random
    u = rng.random(shape)
    return u >= p


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p) (training);
    identity when ``training`` is False. The mask comes from pyasc.random (Philox) or ``generator``.
    """
    _check_p(p, "dropout")
    asc = _asc()
    x = _in(input, "dropout")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return _inplace(x, x * 0.0, inplace)
    keep = _dropout_mask(x, p, tuple(x.shape), generator)
    return _inplace(x, asc.where(keep, x * (1.0 / (1.0 - p)), asc.asarray(0, dtype=x.dtype)), inplace)


def _feature_dropout(input, p, training, inplace, op, nsp, generator=None):
    _check_p(p, op)
    asc = _asc()
    x = _in(input, op)
    if x.ndim not in (nsp + 1, nsp + 2):
        raise _shape_error(op, f"expects a {nsp + 1}-D or {nsp + 2}-D input, got shape {tuple(x.shape)}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return _inplace(x, x * 0.0, inplace)
    lead = x.ndim - nsp
    shape = tuple(x.shape[:lead]) + (1,) * nsp
    keep = _dropout_mask(x, p, shape, generator)
    return _inplace(x, asc.where(keep, x * (1.0 / (1.0 - p)), asc.asarray(0, dtype=x.dtype)), inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel dropout on (N, C, L) / (C, L)."""
    return _feature_dropout(input, p, training, inplace, "dropout1d", 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel dropout on (N, C, H, W) / (C, H, W)."""
    return _feature_dropout(input, p, training, inplace, "dropout2d", 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Channel dropout on (N, C, D, H, W) / (C, D, H, W)."""
    return _feature_dropout(input, p, training, inplace, "dropout3d", 3)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """SELU-preserving dropout (torch's alpha_dropout); identity when not training."""
    _check_p(p, "alpha_dropout")
    asc = _asc()
    x = _in(input, "alpha_dropout")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return _inplace(x, x * 0.0, inplace)
    alpha_p = -1.7580993408473766
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = _dropout_mask(x, p, tuple(x.shape), None)
    return _inplace(x, asc.where(keep, x, asc.asarray(alpha_p, dtype=x.dtype)) * a + b, inplace)


# -- unfold / fold (img2col) -----------------------------------------------------------------------

def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """img2col: (N, C, H, W) -> (N, C kh kw, L) in torch's (c, ki, kj) row order."""
    asc = _asc()
    x = _arr(input)
    op = "unfold"
    batched = x.ndim == 4
    if x.ndim == 3:
        x = x[None]
    elif x.ndim != 4:
        raise _shape_error(op, f"expects a 3-D or 4-D input, got shape {tuple(x.shape)}")
    kh, kw = _pair(kernel_size, 2, op, "kernel_size")
    dh, dw = _pair(dilation, 2, op, "dilation")
    ph, pw = _pair(padding, 2, op, "padding")
    sh, sw = _pair(stride, 2, op, "stride")
    if min(kh, kw, dh, dw, sh, sw) <= 0 or min(ph, pw) < 0:
        raise _param_error(op, "kernel_size, dilation, stride must be positive and padding non-negative")
    n, c, h, w = x.shape
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise _shape_error(op, f"calculated output size ({oh}, {ow}) is too small for input {tuple(x.shape)}, "
                               f"kernel ({kh}, {kw})")
    xp = asc.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x
    cols = []
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            cols.append(xp[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw])
    y = asc.stack(cols, axis=2).reshape((n, c * kh * kw, oh * ow))
    return y if batched else y[0]


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2img: (N, C kh kw, L) -> (N, C, H, W), summing overlapping patches (inverse layout of unfold)."""
    asc = _asc()
    x = _arr(input)
    op = "fold"
    batched = x.ndim == 3
    if x.ndim == 2:
        x = x[None]
    elif x.ndim != 3:
        raise _shape_error(op, f"expects a 2-D or 3-D input, got shape {tuple(x.shape)}")
    H, W = _pair(output_size, 2, op, "output_size")
    kh, kw = _pair(kernel_size, 2, op, "kernel_size")
    dh, dw = _pair(dilation, 2, op, "dilation")
    ph, pw = _pair(padding, 2, op, "padding")
    sh, sw = _pair(stride, 2, op, "stride")
    if min(kh, kw, dh, dw, sh, sw) <= 0 or min(ph, pw) < 0:
        raise _param_error(op, "kernel_size, dilation, stride must be positive and padding non-negative")
    n, ck, L = x.shape
    if ck % (kh * kw):
        raise _shape_error(op, f"expected size of input's dimension 1 ({ck}) to be divisible by the "
                               f"product of kernel_size ({kh * kw})")
    c = ck // (kh * kw)
    oh = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0 or oh * ow != L:
        raise _shape_error(op, f"given output_size=({H}, {W}), kernel_size=({kh}, {kw}), the number of "
                               f"blocks is {max(oh, 0) * max(ow, 0)} but the input has {L} (shape {tuple(x.shape)})")
    xr = x.reshape((n, c, kh, kw, oh, ow))
    out = asc.zeros((n, c, H + 2 * ph, W + 2 * pw), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            out[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw] += xr[:, :, i, j]
    y = out[:, :, ph:ph + H, pw:pw + W]
    y = asc.ascontiguousarray(y)
    return y if batched else y[0]
