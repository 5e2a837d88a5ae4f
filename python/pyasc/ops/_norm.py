"""asc.ops: normalisation (signatures of ``torch.nn.functional``).

``batch_norm`` (inference with running statistics; ``training=True`` computes
batch statistics and updates ``running_mean`` / ``running_var`` in place with
``momentum`` and the unbiased variance, as torch), ``instance_norm``,
``layer_norm``, ``group_norm``, ``rms_norm`` (torch 2.4), ``local_response_norm``,
``normalize`` (torch's L_p normalisation along ``dim``) and ``normalize_image``
(per-channel mean/std image normalisation fused with the layout and dtype
conversion, e.g. uint8 HWC -> float32 NCHW in one pass).

Dtypes: float16 / bfloat16 (float32 arithmetic, double statistics), float32,
float64. Engine: oneDNN for float32 layer_norm and batch_norm inference, the
kernels of src/nn/norm.cc otherwise (opaque ops: inputs are materialised);
``normalize`` is composed from elementwise/reduction ops and fuses as they do.
See docs/nn.md.
"""

from __future__ import annotations

from ._util import _asc, _err  # noqa: F401 - shared helpers

import operator as _operator

import numpy as _np

from .. import _C

__all__ = [
    "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
    "local_response_norm", "normalize", "normalize_image",
]


def _opt(t):
    return None if t is None else _asc().asarray(t)


def _param(t):
    # running statistics are updated in place: pass pyasc / NumPy arrays through
    if t is None:
        return None
    asc = _asc()
    return t if isinstance(t, asc.ndarray) else asc.asarray(t)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Batch normalisation over axis 1 of (N, C, *) (torch.nn.functional.batch_norm).

    ``training=False``: ``(x - running_mean) / sqrt(running_var + eps) * weight + bias``.
    ``training=True``: the biased batch statistics over N and the spatial axes
    normalise ``x``; ``running_mean`` / ``running_var`` (when not None) are updated
    in place: ``r = (1 - momentum) * r + momentum * stat`` with the unbiased batch
    variance. Raises AscendValueError when training with one value per channel.
    """
    x = _asc().asarray(input)
    return _C.nn.batch_norm(x, _param(running_mean), _param(running_var), _opt(weight), _opt(bias),
                            bool(training), float(momentum if momentum is not None else 0.0), float(eps))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Instance normalisation: statistics per (n, c) over the spatial axes (torch.nn.functional.instance_norm).

    With ``use_input_stats`` the running statistics (if given) are updated in place
    with the batch mean of the per-instance mean / unbiased variance; otherwise the
    running statistics normalise.
    """
    x = _asc().asarray(input)
    return _C.nn.instance_norm(x, _param(running_mean), _param(running_var), _opt(weight), _opt(bias),
                               bool(use_input_stats), float(momentum if momentum is not None else 0.0), float(eps))


def _norm_shape(x, normalized_shape, op):
    if isinstance(normalized_shape, (list, tuple)):
        ns = tuple(_operator.index(v) for v in normalized_shape)
    else:
        ns = (_operator.index(normalized_shape),)
    if len(ns) == 0 or len(ns) > x.ndim or tuple(x.shape[x.ndim - len(ns):]) != ns:
        raise _err("AscendValueError", "INVALID_SHAPE",
                   f"[{op}] normalized_shape {ns} does not match the trailing dimensions of the input of "
                   f"shape {tuple(x.shape)}")
    return len(ns)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Layer normalisation over the trailing ``normalized_shape`` axes (torch.nn.functional.layer_norm).

    ``weight`` / ``bias`` have shape ``normalized_shape``; the variance is biased.
    """
    x = _asc().asarray(input)
    k = _norm_shape(x, normalized_shape, "layer_norm")
    return _C.nn.layer_norm(x, k, _opt(weight), _opt(bias), float(eps))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Group normalisation of (N, C, *) with ``num_groups`` groups of C / num_groups channels."""
    x = _asc().asarray(input)
    return _C.nn.group_norm(x, _operator.index(num_groups), _opt(weight), _opt(bias), float(eps))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """RMS normalisation (torch 2.4): ``x / sqrt(mean(x**2) + eps) * weight`` over ``normalized_shape``.

    ``eps=None`` uses the machine epsilon of the input's dtype (torch's default).
    """
    x = _asc().asarray(input)
    k = _norm_shape(x, normalized_shape, "rms_norm")
    e = -1.0 if eps is None else float(eps)
    if eps is not None and e < 0:
        raise _err("AscendValueError", "INVALID_PARAM", f"[rms_norm] eps must be non-negative, got {eps}")
    return _C.nn.rms_norm(x, k, _opt(weight), e)


def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    """Local response normalisation across channels (torch.nn.functional.local_response_norm).

    ``x / (k + alpha / size * sum of x**2 over channels [c - size//2, c + (size-1)//2]) ** beta``
    (the window zero padded at the channel edges). Input (N, C, *) with at least 3 dims.
    """
    x = _asc().asarray(input)
    return _C.nn.local_response_norm(x, _operator.index(size), float(alpha), float(beta), float(k))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """L_p normalisation along ``dim`` (torch.nn.functional.normalize): ``x / max(||x||_p, eps)``.

    Not the image normalisation: see :func:`normalize_image` for per-channel mean/std.
    Composed from elementwise and reduction ops (it fuses as they do).
    """
    asc = _asc()
    x = asc.asarray(input)
    if x.dtype.kind not in "fc":
        raise _err("AscendTypeError", "INVALID_DTYPE", f"[normalize] expected a floating input, got {x.dtype}")
    p = float(p)
    ax = _operator.index(dim)
    if x.ndim == 0:
        raise _err("AscendValueError", "INVALID_SHAPE", "[normalize] expected an input with at least 1 dimension")
    if not -x.ndim <= ax < x.ndim:
        raise _err("AscendIndexError", "INVALID_PARAM",
                   f"[normalize] dim {dim} is out of range for an input of {x.ndim} dimensions")
    a = asc.abs(x)
    if p == float("inf"):
        n = asc.max(a, axis=ax, keepdims=True) if x.shape[ax] else asc.zeros_like(asc.sum(a, axis=ax, keepdims=True))
    elif p == float("-inf"):
        n = asc.min(a, axis=ax, keepdims=True)
    elif p == 0:
        n = asc.sum((a != 0).astype(x.dtype), axis=ax, keepdims=True)
    elif p == 1:
        n = asc.sum(a, axis=ax, keepdims=True)
    elif p == 2:
        n = asc.sqrt(asc.sum(a * a, axis=ax, keepdims=True))
    else:
        pp = asc.asarray(p, dtype=x.dtype)
        n = asc.power(asc.sum(asc.power(a, pp), axis=ax, keepdims=True), asc.asarray(1.0 / p, dtype=x.dtype))
    r = x / asc.maximum(n, asc.asarray(eps, dtype=n.dtype))
    if out is not None:
        out[...] = r
        return out
    return r


def normalize_image(img, mean, std, layout="HWC", out_layout="NCHW", dtype=None, scale=None):
    """Per-channel image normalisation fused with the layout and dtype conversion.

    ``out = (img * scale - mean[c]) / std[c]`` in one pass over the image.

    Args:
        img: image(s); ``layout`` names its axes, a permutation of ``"CHW"`` or
            ``"NCHW"`` (``"HWC"``, ``"NHWC"``, ...). Any real dtype (uint8 images).
        mean, std: per-channel sequences of C values (or one value).
        out_layout: axes of the result; a 3-axis ``layout`` with a 4-axis
            ``out_layout`` adds a batch axis of 1 (uint8 HWC -> float32 NCHW).
        dtype: floating result dtype (default float32).
        scale: multiplies the input first; default 1/255 for integer images (as
            torchvision's ToTensor) and 1 for floating ones.
    Raises AscendValueError for a layout that is not a permutation, a channel
    count that does not match mean/std, or a zero std.
    """
    asc = _asc()
    x = asc.asarray(img)
    if dtype is None:
        dtype = asc.float32
    mean = _np.asarray(mean, dtype=_np.float64).ravel().tolist()
    std = _np.asarray(std, dtype=_np.float64).ravel().tolist()
    if not isinstance(layout, str) or not isinstance(out_layout, str):
        raise _err("AscendTypeError", "INVALID_PARAM", "[normalize_image] layout and out_layout must be strings")
    layout, out_layout = layout.upper(), out_layout.upper()
    if len(layout) == 3 and len(out_layout) == 4 and "N" in out_layout and "N" not in layout:
        if x.ndim != 3:
            raise _err("AscendValueError", "INVALID_SHAPE",
                       f"[normalize_image] layout {layout!r} needs a 3-D input, got shape {tuple(x.shape)}")
        x = asc.expand_dims(x, 0)
        layout = "N" + layout
    if scale is None:
        scale = 1.0 if x.dtype.kind in "fc" else 1.0 / 255.0
    return _C.nn.normalize_image(x, mean, std, layout, out_layout, dtype, float(scale))


from ._norm_pool_modules import __norm_modules__ as _mods  # noqa: E402

globals().update({k: v for k, v in _mods.items()})
__all__ += list(_mods)
del _mods
