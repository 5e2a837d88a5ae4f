"""asc.ops: pooling (signatures of ``torch.nn.functional``).

Max / average pooling over 1-3 spatial axes (``max_pool1d/2d/3d``,
``avg_pool1d/2d/3d``), adaptive pooling (``adaptive_avg_pool*``,
``adaptive_max_pool*``), power-average pooling (``lp_pool1d/2d/3d``) and global
pooling (``global_avg_pool``, ``global_max_pool``, ONNX's GlobalAveragePool /
GlobalMaxPool). Inputs are (N, C, *spatial) or unbatched (C, *spatial), any
strides, float16 / bfloat16 / float32 / float64 (sums in float32, float64 for
float64). Max-pool indices are int64 flat indices into each input spatial plane,
as torch returns them. Engine: the direct window kernels of src/nn/pool.cc
(opaque op: inputs are materialised, outputs are new arrays). See docs/nn.md.
"""

from __future__ import annotations

from ._util import _asc, _err, _tuple  # noqa: F401 - shared helpers

import operator as _operator

from .. import _C

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d",
    "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "global_avg_pool", "global_max_pool",
]


def _max_pool(n, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    op = f"max_pool{n}d"
    x = _asc().asarray(input)
    k = _tuple(kernel_size, n, "kernel_size", op)
    s = _tuple(stride, n, "stride", op, allow_none=True)
    return _C.nn.pool(x, True, k, s, _tuple(padding, n, "padding", op), _tuple(dilation, n, "dilation", op),
                      bool(ceil_mode), True, 0, bool(return_indices), op)


def _avg_pool(n, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    op = f"avg_pool{n}d"
    x = _asc().asarray(input)
    k = _tuple(kernel_size, n, "kernel_size", op)
    s = _tuple(stride, n, "stride", op, allow_none=True)
    div = 0
    if divisor_override is not None:
        div = _operator.index(divisor_override)
        if div == 0:
            raise _err("AscendValueError", "INVALID_PARAM", f"[{op}] divisor_override must be non-zero")
        if div < 0:
            raise _err("AscendValueError", "INVALID_PARAM",
                       f"[{op}] divisor_override must be positive, got {div}")
    return _C.nn.pool(x, False, k, s, _tuple(padding, n, "padding", op), [1] * n, bool(ceil_mode),
                      bool(count_include_pad), div, False, op)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling of (N, C, L) or (C, L); with ``return_indices`` also the int64 argmax indices."""
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling of (N, C, H, W) or (C, H, W) (torch.nn.functional.max_pool2d).

    Padding is implicit -inf; ``padding`` is at most half the effective kernel
    ``dilation * (kernel_size - 1) + 1``. ``ceil_mode`` rounds the output size up
    (a last window must start inside the input or left padding). NaN propagates.
    Indices (``return_indices=True``) are flat ``h * W + w`` per plane, int64.
    """
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling of (N, C, D, H, W) or (C, D, H, W); indices are ``(d * H + h) * W + w``."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling of (N, C, L) or (C, L) (torch.nn.functional.avg_pool1d)."""
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling (torch.nn.functional.avg_pool2d).

    Zero padding; the divisor is ``divisor_override`` when given, else the window
    size clipped to the padded input (``count_include_pad=True``) or the number of
    input elements in the window (``False``).
    """
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling of (N, C, D, H, W) or (C, D, H, W)."""
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive(n, is_max, input, output_size, return_indices):
    op = f"adaptive_{'max' if is_max else 'avg'}_pool{n}d"
    x = _asc().asarray(input)
    if isinstance(output_size, (list, tuple)):
        sizes = list(output_size)
        if len(sizes) == 1:
            sizes = sizes * n
    else:
        sizes = [output_size] * n
    if len(sizes) != n:
        raise _err("AscendValueError", "INVALID_PARAM",
                   f"[{op}] output_size must be an int or a tuple of {n} ints (or None), got {output_size!r}")
    shape = x.shape
    out = []
    for i, v in enumerate(sizes):
        if v is None:
            if len(shape) < n:
                raise _err("AscendValueError", "INVALID_SHAPE", f"[{op}] input of shape {shape} has fewer than "
                                                                f"{n} spatial dimensions")
            out.append(shape[len(shape) - n + i])
        else:
            out.append(_operator.index(v))
    return _C.nn.adaptive_pool(x, is_max, out, bool(return_indices), op)


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling to ``output_size`` (bin o covers [floor(o*L/out), ceil((o+1)*L/out)))."""
    return _adaptive(1, False, input, output_size, False)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling over (H, W); ``output_size`` int or tuple, None keeps that axis."""
    return _adaptive(2, False, input, output_size, False)


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling over (D, H, W)."""
    return _adaptive(3, False, input, output_size, False)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling over L; with ``return_indices`` also int64 flat indices."""
    return _adaptive(1, True, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling over (H, W); with ``return_indices`` also int64 flat indices."""
    return _adaptive(2, True, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive max pooling over (D, H, W); with ``return_indices`` also int64 flat indices."""
    return _adaptive(3, True, input, output_size, return_indices)


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    # torch's definition: (sign(a) * relu(|a|) * prod(kernel)) ** (1/p) with
    # a = avg_pool(x ** p) (count_include_pad, no padding), so ceil_mode edge windows
    # are scaled exactly as torch scales them.
    asc = _asc()
    op = f"lp_pool{n}d"
    p = float(norm_type)
    if p == 0:
        raise _err("AscendValueError", "INVALID_PARAM", f"[{op}] norm_type must be non-zero")
    x = asc.asarray(input)
    k = _tuple(kernel_size, n, "kernel_size", op)
    prod = 1
    for e in k:
        prod *= e
    s = _tuple(stride, n, "stride", op, allow_none=True)
    a = _C.nn.pool(asc.power(x, asc.asarray(p, dtype=x.dtype)), False, k, s, [0] * n, [1] * n, bool(ceil_mode),
                   True, 0, False, op)
    a = asc.sign(a) * asc.maximum(asc.abs(a), 0) * asc.asarray(prod, dtype=a.dtype)
    return asc.power(a, asc.asarray(1.0 / p, dtype=a.dtype))


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: (sum over the window of x**p) ** (1/p) (torch.nn.functional.lp_pool1d)."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over (H, W) (torch.nn.functional.lp_pool2d)."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over (D, H, W) (torch.nn.functional.lp_pool3d)."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def _global(is_max, input):
    x = _asc().asarray(input)
    op = f"global_{'max' if is_max else 'avg'}_pool"
    n = x.ndim - 2
    if n < 1 or n > 3:
        raise _err("AscendValueError", "INVALID_SHAPE",
                   f"[{op}] expected an input (N, C, *spatial) with 1 to 3 spatial axes, got shape {x.shape}")
    return _C.nn.adaptive_pool(x, is_max, [1] * n, False, op)


def global_avg_pool(input):
    """Mean over all spatial axes of (N, C, *spatial), kept as size 1 (ONNX GlobalAveragePool)."""
    return _global(False, input)


def global_max_pool(input):
    """Max over all spatial axes of (N, C, *spatial), kept as size 1 (ONNX GlobalMaxPool)."""
    return _global(True, input)


from ._norm_pool_modules import __pool_modules__ as _mods  # noqa: E402

globals().update({k: v for k, v in _mods.items()})
__all__ += list(_mods)
del _mods
