"""ONNX Resize (opsets 10-19) and Upsample: separable, one host-computed matrix per axis.

Each resized axis gets an (out, in) float64 weight matrix built on the host from
ONNX's coordinate transformation, interpolation mode, cubic coefficient,
exclude_outside and antialias rules; the device applies it with one matmul per
axis (nearest mode is a gather, exact for every dtype).
"""

from __future__ import annotations

import math

import numpy as np

from ..ops._tensor import _axis_weights, _cubic
from ._registry import host, host_ints, op


def _asc():
    import pyasc

    return pyasc


def _s(node, key, default):
    v = node.attr(key, default)
    return v.decode() if isinstance(v, bytes) else v


def _coords(mode, n_out, n_in, scale, roi):
    """Source coordinate of each output index (float64)."""
    x = np.arange(n_out, dtype=np.float64)
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adj = n_out / (scale * n_in)
        center = n_in / 2
        return center * (1 - adj) + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if n_out > 1 else np.zeros(n_out)
    if mode == "align_corners":
        return x * (n_in - 1) / (n_out - 1) if n_out > 1 else np.zeros(n_out)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_crop_and_resize":
        a, b = roi
        if n_out > 1:
            return a * (n_in - 1) + x * (b - a) * (n_in - 1) / (n_out - 1)
        return np.full(n_out, 0.5 * (a + b) * (n_in - 1))
    raise ValueError(f"coordinate_transformation_mode {mode!r} is not an ONNX mode")


def _nearest(xs, n_in, how):
    if how == "round_prefer_floor":
        i = np.where(xs - np.floor(xs) == 0.5, np.floor(xs), np.round(xs))
    elif how == "round_prefer_ceil":
        i = np.where(xs - np.floor(xs) == 0.5, np.ceil(xs), np.round(xs))
    elif how == "floor":
        i = np.floor(xs)
    elif how == "ceil":
        i = np.ceil(xs)
    else:
        raise ValueError(f"nearest_mode {how!r} is not an ONNX mode")
    return np.clip(i, 0, n_in - 1).astype(np.int64)


def _weights(kind, xs, n_in, scale, a, exclude_outside, antialias):
    """(out, in) float64 interpolation matrix for linear / cubic."""
    n_out = len(xs)
    w = np.zeros((n_out, n_in))
    if antialias and scale < 1:
        support = (1.0 if kind == "linear" else 2.0) / scale
        for o, x in enumerate(xs):
            lo, hi = int(math.floor(x - support)) + 1, int(math.ceil(x + support))
            js = np.arange(lo, hi)
            t = (js - x) * scale
            k = np.maximum(0.0, 1 - np.abs(t)) if kind == "linear" else _cubic(t, a)
            ok = (js >= 0) & (js < n_in)
            k, js = k[ok], js[ok]
            if k.sum() != 0:
                k = k / k.sum()
            np.add.at(w[o], js, k)
        return w
    if kind == "linear" or not exclude_outside:
        return _axis_weights(xs, n_in, kind, a)
    # exclude_outside: taps outside the input get no weight, the others are renormalised
    i0 = np.floor(xs).astype(np.int64)
    for o in range(n_out):
        js = i0[o] + np.arange(-1, 3)
        js = js[(js >= 0) & (js < n_in)]
        k = _cubic(js - xs[o], a)
        w[o, js] += k / k.sum() if k.sum() != 0 else k
    return w


def _apply(x, axis, w):
    asc = _asc()
    xm = asc.moveaxis(x, axis, -1)
    y = asc.matmul(xm, asc.asarray(w.T.astype(x.dtype if x.dtype.kind == "f" else np.float32)))
    return asc.moveaxis(y, -1, axis)


def resize(node, x, scales, sizes, roi, mode, ctm, nearest_mode, a, exclude_outside, extrapolation, antialias,
           axes=None):
    asc = _asc()
    r = x.ndim
    axes = list(range(r)) if axes is None else [ax + r if ax < 0 else ax for ax in axes]
    full_scales, out = [1.0] * r, list(x.shape)
    if sizes is not None:
        policy = _s(node, "keep_aspect_ratio_policy", "stretch")
        ss = [sizes[i] / x.shape[ax] for i, ax in enumerate(axes)]
        if policy in ("not_larger", "not_smaller"):
            s = min(ss) if policy == "not_larger" else max(ss)
            ss = [s] * len(axes)
            sizes = [int(np.floor(s * x.shape[ax] + 0.5)) for ax in axes]
        for i, ax in enumerate(axes):
            full_scales[ax], out[ax] = ss[i], int(sizes[i])
    elif scales is not None:
        for i, ax in enumerate(axes):
            full_scales[ax] = float(scales[i])
            out[ax] = int(np.floor(x.shape[ax] * float(scales[i])))
    else:
        raise node.error("AscendValueError", "one of scales or sizes is required")
    roi_pairs = [(0.0, 1.0)] * r
    if roi is not None and len(roi):
        k = len(roi) // 2
        for i in range(k):
            ax = axes[i] if len(axes) == k else i
            roi_pairs[ax] = (float(roi[i]), float(roi[i + k]))
    valid = []
    y = x
    work_float = x.dtype.kind != "f" and mode != "nearest"
    if work_float:
        y = y.astype("float32")
    for ax in range(r):
        n_in, n_out, s = x.shape[ax], out[ax], full_scales[ax]
        if n_out == n_in and s == 1.0 and ctm != "tf_crop_and_resize":
            continue
        if n_in == 0 or n_out == 0:
            raise node.error("AscendValueError", f"cannot resize axis {ax} from {n_in} to {n_out}", "INVALID_SHAPE")
        if antialias and s < 1 and mode != "nearest":
            # onnxruntime's antialiased weights are not reproduced yet (max 1e-3 apart): refuse
            # rather than return values that differ from the peer
            raise node.error("AscendNotImplementedError", f"antialias=1 when downscaling axis {ax} (scale {s:g}) "
                             "is not supported", "FEATURE_UNSUPPORTED")
        try:
            xs = _coords(ctm, n_out, n_in, s, roi_pairs[ax])
            if mode == "nearest":
                idx = _nearest(xs, n_in, nearest_mode)
                y = asc.take(y, asc.asarray(idx), axis=ax)
            else:
                y = _apply(y, ax, _weights("linear" if mode == "linear" else "cubic", xs, n_in, s, a,
                                           exclude_outside, antialias))
        except ValueError as e:
            raise node.error("AscendValueError", str(e)) from None
        if ctm == "tf_crop_and_resize":
            v = (xs >= 0) & (xs <= n_in - 1)
            if not v.all():
                shape = [1] * r
                shape[ax] = n_out
                valid.append(v.reshape(shape))
    if work_float:
        info = np.iinfo(x.dtype) if x.dtype.kind in "iu" else None
        y = asc.rint(y)
        if info is not None:
            y = asc.clip(y, info.min, info.max)
        y = y.astype(x.dtype)
    if valid:
        m = valid[0]
        for v in valid[1:]:
            m = m & v
        y = asc.where(asc.asarray(m), y, asc.asarray(extrapolation, dtype=y.dtype))
    return y


def _opt(inputs, i):
    return inputs[i] if len(inputs) > i and inputs[i] is not None and inputs[i].size else None


@op("Resize", since=10)
def _resize(node, inputs):
    x = inputs[0]
    if node.opset == 10:
        scales, sizes, roi = host(inputs[1]).reshape(-1), None, None
    else:
        roi = _opt(inputs, 1)
        scales, sizes = _opt(inputs, 2), _opt(inputs, 3)
        roi = host(roi).reshape(-1) if roi is not None else None
        scales = host(scales).reshape(-1) if scales is not None else None
        sizes = host_ints(sizes) if sizes is not None else None
    mode = _s(node, "mode", "nearest")
    if mode not in ("nearest", "linear", "cubic"):
        raise node.error("AscendValueError", f"mode must be nearest, linear or cubic, got {mode!r}")
    ctm = _s(node, "coordinate_transformation_mode", "half_pixel" if node.opset >= 11 else "asymmetric")
    nearest_mode = _s(node, "nearest_mode", "round_prefer_floor" if node.opset >= 11 else "floor")
    axes = node.attr("axes")
    return resize(node, x, scales, sizes, roi, mode, ctm, nearest_mode, float(node.attr("cubic_coeff_a", -0.75)),
                  bool(node.attr("exclude_outside", 0)), float(node.attr("extrapolation_value", 0.0)),
                  bool(node.attr("antialias", 0)), list(axes) if axes is not None else None)


@op("Upsample", since=7)
def _upsample(node, inputs):
    x = inputs[0]
    scales = node.attr("scales") if node.opset < 9 else host(inputs[1]).reshape(-1)
    mode = _s(node, "mode", "nearest")
    if mode not in ("nearest", "linear", "bilinear"):
        raise node.error("AscendValueError", f"mode must be nearest or linear, got {mode!r}")
    return resize(node, x, np.asarray(scales, np.float64), None, None, "nearest" if mode == "nearest" else "linear",
                  "asymmetric", "floor", -0.75, False, 0.0, False)
