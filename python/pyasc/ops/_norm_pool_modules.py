"""asc.ops: module forms of the pooling and normalisation ops.

``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``LPPool1d/2d/3d`` wrap the functions of ``_pool``;
``BatchNorm1d/2d/3d`` (weight/bias parameters, running_mean / running_var /
num_batches_tracked buffers, train()/eval()), ``InstanceNorm1d/2d/3d``,
``LayerNorm``, ``GroupNorm``, ``RMSNorm``, ``LocalResponseNorm`` those of
``_norm``, with torch.nn's constructor arguments and defaults. Exported through
``_pool.__all__`` / ``_norm.__all__``.
"""

from __future__ import annotations

from ._util import _asc  # noqa: F401 - shared helpers

import operator as _operator

from ._modules import Module, Parameter


def _pool_fn(name):
    from . import _pool

    return getattr(_pool, name)


def _norm_fn(name):
    from . import _norm

    return getattr(_norm, name)


__pool_modules__: dict = {}
__norm_modules__: dict = {}


def _make_pool(cls_name, fn_name, params):
    names = [p for p, _ in params]

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(names):
            raise TypeError(f"{cls_name}() takes at most {len(names)} positional arguments")
        vals = dict(params)
        for k, v in zip(names, args):
            vals[k] = v
        for k, v in kwargs.items():
            if k not in vals:
                raise TypeError(f"{cls_name}() got an unexpected keyword argument {k!r}")
            vals[k] = v
        for k, v in vals.items():
            if v is _REQUIRED:
                raise TypeError(f"{cls_name}() missing required argument {k!r}")
            setattr(self, k, v)

    def forward(self, input):
        return _pool_fn(fn_name)(input, **{k: getattr(self, k) for k in names})

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)!r}" for k in names)

    cls = type(cls_name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                     "__doc__": f"Module form of :func:`pyasc.ops.{fn_name}`.",
                                     "__module__": __name__})
    globals()[cls_name] = cls
    __pool_modules__[cls_name] = cls


_REQUIRED = object()
for _n in (1, 2, 3):
    _make_pool(f"MaxPool{_n}d", f"max_pool{_n}d",
               [("kernel_size", _REQUIRED), ("stride", None), ("padding", 0), ("dilation", 1),
                ("return_indices", False), ("ceil_mode", False)])
    _avg = [("kernel_size", _REQUIRED), ("stride", None), ("padding", 0), ("ceil_mode", False),
            ("count_include_pad", True)]
    if _n > 1:
        _avg.append(("divisor_override", None))
    _make_pool(f"AvgPool{_n}d", f"avg_pool{_n}d", _avg)
    _make_pool(f"AdaptiveAvgPool{_n}d", f"adaptive_avg_pool{_n}d", [("output_size", _REQUIRED)])
    _make_pool(f"AdaptiveMaxPool{_n}d", f"adaptive_max_pool{_n}d",
               [("output_size", _REQUIRED), ("return_indices", False)])
    _make_pool(f"LPPool{_n}d", f"lp_pool{_n}d",
               [("norm_type", _REQUIRED), ("kernel_size", _REQUIRED), ("stride", None), ("ceil_mode", False)])
del _n, _avg


class _BatchNorm(Module):
    """Batch normalisation module (torch.nn.BatchNormNd semantics).

    Holds ``weight`` / ``bias`` (``affine``) and the buffers ``running_mean``,
    ``running_var``, ``num_batches_tracked`` (``track_running_stats``). In
    training mode the batch statistics normalise and the running statistics are
    updated in place (``momentum=None``: cumulative average); in eval mode the
    running statistics normalise.
    """

    _expected_dims: tuple = ()

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__()
        asc = _asc()
        dt = asc.float32 if dtype is None else dtype
        self.num_features = _operator.index(num_features)
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(asc.ones(self.num_features, dtype=dt))
            self.bias = Parameter(asc.zeros(self.num_features, dtype=dt))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", asc.zeros(self.num_features, dtype=dt))
            self.register_buffer("running_var", asc.ones(self.num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", asc.zeros((), dtype=asc.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def _check_input_dim(self, x):
        if x.ndim not in self._expected_dims:
            raise _asc().errors.AscendValueError(
                _asc().errors.ErrorCode.INVALID_SHAPE,
                f"[{type(self).__name__}] expected a {' or '.join(f'{d}D' for d in self._expected_dims)} input, "
                f"got shape {tuple(x.shape)}")

    def reset_running_stats(self):
        asc = _asc()
        if self.track_running_stats:
            self.running_mean = asc.zeros_like(self.running_mean)
            self.running_var = asc.ones_like(self.running_var)
            self.num_batches_tracked = asc.zeros((), dtype=asc.int64)

    def forward(self, input):
        asc = _asc()
        x = asc.asarray(input)
        self._check_input_dim(x)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked = self.num_batches_tracked + 1
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch = self.training or self.running_mean is None
        rm = self.running_mean if (not self.training or self.track_running_stats) else None
        rv = self.running_var if (not self.training or self.track_running_stats) else None
        return _norm_fn("batch_norm")(x, rm, rv, self.weight, self.bias, use_batch, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """BatchNorm over (N, C) or (N, C, L)."""
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """BatchNorm over (N, C, H, W)."""
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """BatchNorm over (N, C, D, H, W)."""
    _expected_dims = (5,)


class _InstanceNorm(_BatchNorm):
    """Instance normalisation module (torch.nn.InstanceNormNd: affine=False, track_running_stats=False)."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        asc = _asc()
        x = asc.asarray(input)
        unbatched = x.ndim == self._expected_dims[0] - 1
        if unbatched:
            x = asc.expand_dims(x, 0)
        elif x.ndim != self._expected_dims[0]:
            self._check_input_dim(x)
        use_input = self.training or not self.track_running_stats
        r = _norm_fn("instance_norm")(x, self.running_mean, self.running_var, self.weight, self.bias, use_input,
                                      0.1 if self.momentum is None else self.momentum, self.eps)
        return r[0] if unbatched else r


class InstanceNorm1d(_InstanceNorm):
    """InstanceNorm over (N, C, L) or (C, L)."""
    _expected_dims = (3,)


class InstanceNorm2d(_InstanceNorm):
    """InstanceNorm over (N, C, H, W) or (C, H, W)."""
    _expected_dims = (4,)


class InstanceNorm3d(_InstanceNorm):
    """InstanceNorm over (N, C, D, H, W) or (C, D, H, W)."""
    _expected_dims = (5,)


class LayerNorm(Module):
    """torch.nn.LayerNorm(normalized_shape, eps, elementwise_affine, bias)."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        asc = _asc()
        dt = asc.float32 if dtype is None else dtype
        ns = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else (normalized_shape,)
        self.normalized_shape = tuple(_operator.index(v) for v in ns)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(asc.ones(self.normalized_shape, dtype=dt))
            if bias:
                self.bias = Parameter(asc.zeros(self.normalized_shape, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return _norm_fn("layer_norm")(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """torch.nn.GroupNorm(num_groups, num_channels, eps, affine)."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None):
        super().__init__()
        asc = _asc()
        dt = asc.float32 if dtype is None else dtype
        self.num_groups = _operator.index(num_groups)
        self.num_channels = _operator.index(num_channels)
        if self.num_groups <= 0 or self.num_channels % self.num_groups:
            raise asc.errors.AscendValueError(asc.errors.ErrorCode.INVALID_PARAM,
                                              f"[GroupNorm] num_channels {num_channels} must be divisible by "
                                              f"num_groups {num_groups}")
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(asc.ones(self.num_channels, dtype=dt))
            self.bias = Parameter(asc.zeros(self.num_channels, dtype=dt))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return _norm_fn("group_norm")(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    """torch.nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        asc = _asc()
        dt = asc.float32 if dtype is None else dtype
        ns = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else (normalized_shape,)
        self.normalized_shape = tuple(_operator.index(v) for v in ns)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(asc.ones(self.normalized_shape, dtype=dt))
        else:
            self.register_parameter("weight", None)

    def forward(self, input):
        return _norm_fn("rms_norm")(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """torch.nn.LocalResponseNorm(size, alpha, beta, k)."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _norm_fn("local_response_norm")(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


for _c in (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LayerNorm,
           GroupNorm, RMSNorm, LocalResponseNorm):
    __norm_modules__[_c.__name__] = _c
del _c
