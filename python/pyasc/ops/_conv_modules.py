"""Module-style Conv*/ConvTranspose*/Linear classes (torch.nn constructor args and default init).

Weights use torch's default init: kaiming_uniform(a=sqrt(5)), i.e. U(-1/sqrt(fan_in),
1/sqrt(fan_in)) for weight and bias, drawn with NumPy's default generator (seeded by
``asc.random.seed`` is not implied; pass arrays to ``load_state_dict`` for exact weights).
"""

from __future__ import annotations

from ._util import _asc  # noqa: F401 - shared helpers

import math as _math

import numpy as _np

from ._modules import Module, Parameter


def _tup(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _ConvNd(Module):
    _n = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, output_padding=0, layout="NCHW"):
        super().__init__()
        n = self._n
        if in_channels % groups or out_channels % groups:
            from ._conv import _err
            raise _err("AscendValueError", "INVALID_PARAM",
                       f"[{type(self).__name__}] in_channels ({in_channels}) and out_channels ({out_channels}) "
                       f"must be divisible by groups ({groups})")
        if padding_mode != "zeros":
            from ._conv import _err
            raise _err("AscendValueError", "INVALID_PARAM",
                       f"[{type(self).__name__}] padding_mode {padding_mode!r} is not supported (only 'zeros')")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tup(kernel_size, n)
        self.stride, self.dilation = _tup(stride, n), _tup(dilation, n)
        self.padding = padding if isinstance(padding, str) else _tup(padding, n)
        self.output_padding = _tup(output_padding, n)
        self.groups, self.padding_mode, self.layout = groups, padding_mode, layout
        asc = _asc()
        dt = _np.dtype("float32") if dtype is None else dtype
        if self._transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
            fan_in = (out_channels // groups) * _math.prod(self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
            fan_in = (in_channels // groups) * _math.prod(self.kernel_size)
        bound = 1.0 / _math.sqrt(fan_in) if fan_in else 0.0
        rng = _np.random.default_rng()
        self.weight = Parameter(asc.asarray(rng.uniform(-bound, bound, shape)).astype(dt))
        self.bias = Parameter(asc.asarray(rng.uniform(-bound, bound, (out_channels,))).astype(dt)) if bias else None

    def forward(self, input, output_size=None):
        from . import _conv

        if self._transposed:
            fn = getattr(_conv, f"conv_transpose{self._n}d")
            return fn(input, self.weight, self.bias, self.stride, self.padding, self.output_padding, self.groups,
                      self.dilation, layout=self.layout)
        fn = getattr(_conv, f"conv{self._n}d")
        return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups,
                  layout=self.layout)


class Conv1d(_ConvNd):
    """torch.nn.Conv1d."""
    _n = 1


class Conv2d(_ConvNd):
    """torch.nn.Conv2d (``layout="NHWC"`` extra keyword)."""
    _n = 2


class Conv3d(_ConvNd):
    """torch.nn.Conv3d."""
    _n = 3


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None, layout="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding=output_padding, layout=layout)


class ConvTranspose1d(_ConvTransposeNd):
    """torch.nn.ConvTranspose1d."""
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """torch.nn.ConvTranspose2d."""
    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """torch.nn.ConvTranspose3d."""
    _n = 3


class Linear(Module):
    """torch.nn.Linear: ``y = x @ weight.T + bias``."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        asc = _asc()
        dt = _np.dtype("float32") if dtype is None else dtype
        bound = 1.0 / _math.sqrt(in_features) if in_features else 0.0
        rng = _np.random.default_rng()
        self.weight = Parameter(asc.asarray(rng.uniform(-bound, bound, (out_features, in_features))).astype(dt))
        self.bias = Parameter(asc.asarray(rng.uniform(-bound, bound, (out_features,))).astype(dt)) if bias else None

    def forward(self, input):
        from ._conv import linear

        return linear(input, self.weight, self.bias)
