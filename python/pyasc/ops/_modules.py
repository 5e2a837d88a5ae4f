"""asc.ops: module-style callable objects (the torch.nn.Module model, kept small).

:class:`Module` is the base every ``asc.ops`` module derives from (the Conv*/Linear
modules in ``_conv_modules``, norm/pool modules in ``_norm_pool_modules`` and the
activation/loss/tensor modules here). Its API is the subset of ``torch.nn.Module``
that inference and simple training loops use:

* attributes that are :class:`Parameter` (or pyasc arrays registered with
  :meth:`Module.register_parameter`) are parameters; arrays registered with
  :meth:`Module.register_buffer` are buffers (e.g. BatchNorm running stats);
  attributes that are Modules are children (recursively walked);
* ``parameters()`` / ``named_parameters()`` / ``buffers()`` / ``children()`` /
  ``modules()``;
* ``state_dict()`` returns ``{dotted_name: numpy.ndarray}`` (copies);
  ``load_state_dict(d, strict=True)`` accepts NumPy or pyasc arrays and checks
  names and shapes;
* ``__call__`` -> ``forward``; ``train(mode=True)`` / ``eval()`` set ``training``
  on the whole tree; ``repr`` shows the tree with ``extra_repr()``.
"""

from __future__ import annotations

from ._util import _asc  # noqa: F401 - shared helpers

from collections import OrderedDict

import numpy as _np

__all__ = [
    "Module",
    "Parameter",
    "Sequential",
    "ModuleList",
    "Identity",
]


def _note_param(arr):
    # autocast(cache_enabled=True) casts module parameters once per region
    if arr is not None:
        from .. import amp

        amp._note_param(arr)


class Parameter:
    """Marks an array as a module parameter: ``self.weight = Parameter(arr)``.

    Assigning a Parameter to a Module attribute stores the underlying pyasc
    array (``module.weight`` is a plain pyasc array) and registers the name.
    ``requires_grad`` is kept for torch-like code; pyasc has no autograd.
    """

    __slots__ = ("data", "requires_grad")

    def __init__(self, data, requires_grad=True):
        self.data = _asc().asarray(data)
        self.requires_grad = bool(requires_grad)

    def __repr__(self):
        return f"Parameter({self.data!r})"


class Module:
    """Base class of asc.ops modules (see the module docstring)."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # -- registration -------------------------------------------------------
    def _check_init(self):
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}: Module.__init__() must be called before assigning attributes")

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_init()
            d["_buffers"].pop(name, None)
            d["_modules"].pop(name, None)
            d["_parameters"][name] = value.data
            _note_param(value.data)
            return
        if isinstance(value, Module):
            self._check_init()
            d["_parameters"].pop(name, None)
            d["_buffers"].pop(name, None)
            d["_modules"][name] = value
            return
        if "_parameters" in d:
            if name in d["_parameters"]:
                d["_parameters"][name] = None if value is None else _asc().asarray(value)
                _note_param(d["_parameters"][name])
                return
            if name in d["_buffers"]:
                d["_buffers"][name] = None if value is None else _asc().asarray(value)
                return
            if name in d["_modules"]:
                if value is not None:
                    raise TypeError(f"{type(self).__name__}.{name}: a child module can only be replaced "
                                    f"by a Module or None, got {type(value).__name__}")
                d["_modules"][name] = None
                return
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            t = d.get(table)
            if t is not None and name in t:
                return t[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            t = self.__dict__.get(table)
            if t is not None and name in t:
                del t[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, value):
        """Register ``value`` (array or None) as parameter ``name``."""
        self._check_init()
        self.__dict__["_parameters"][name] = None if value is None else _asc().asarray(
            value.data if isinstance(value, Parameter) else value)
        _note_param(self.__dict__["_parameters"][name])

    def register_buffer(self, name, value, persistent=True):
        """Register ``value`` (array or None) as buffer ``name`` (saved in state_dict)."""
        self._check_init()
        self.__dict__["_buffers"][name] = None if value is None else _asc().asarray(value)
        if not persistent:
            self.__dict__.setdefault("_non_persistent", set()).add(name)

    def add_module(self, name, module):
        """Register ``module`` (Module or None) as child ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {name!r} is not a Module ({type(module).__name__})")
        self._check_init()
        self.__dict__["_modules"][str(name)] = module

    # -- traversal ----------------------------------------------------------
    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, m in self.named_children():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        mods = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mp, m in mods:
            for name, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mp}.{name}" if mp else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        mods = self.named_modules(prefix) if recurse else [(prefix, self)]
        for mp, m in mods:
            for name, b in m._buffers.items():
                if b is not None:
                    yield (f"{mp}.{name}" if mp else name), b

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- state --------------------------------------------------------------
    def _state_items(self):
        for mp, m in self.named_modules():
            skip = m.__dict__.get("_non_persistent", ())
            for table in (m._parameters, m._buffers):
                for name, v in table.items():
                    if v is None or name in skip:
                        continue
                    yield (f"{mp}.{name}" if mp else name), m, table, name

    def state_dict(self):
        """``OrderedDict`` of parameters and persistent buffers as NumPy arrays (copies)."""
        out = OrderedDict()
        for key, _m, table, name in self._state_items():
            out[key] = _np.array(_np.asarray(table[name]), copy=True)
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Load arrays (NumPy or pyasc) by dotted name; shapes must match.

        Values are cast to the existing parameter's dtype. With ``strict`` a
        missing or unexpected key raises KeyError naming it. Returns
        ``(missing_keys, unexpected_keys)``.
        """
        asc = _asc()
        own = {key: (m, table, name) for key, m, table, name in self._state_items()}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"{type(self).__name__}.load_state_dict: missing keys {missing}, "
                           f"unexpected keys {unexpected}")
        for key, (m, table, name) in own.items():
            if key not in state_dict:
                continue
            cur = table[name]
            new = _np.asarray(state_dict[key])
            if tuple(new.shape) != tuple(cur.shape):
                raise asc.errors.AscendValueError(
                    f"{type(self).__name__}.load_state_dict: {key!r} has shape {tuple(new.shape)}, "
                    f"the module expects {tuple(cur.shape)}")
            table[name] = asc.asarray(new.astype(_np.dtype(cur.dtype), copy=True))
            if table is m._parameters:
                _note_param(table[name])
        return missing, unexpected

    # -- mode / call --------------------------------------------------------
    def train(self, mode=True):
        """Set training mode on this module and all children; returns self."""
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        """Same as ``train(False)``."""
        return self.train(False)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def to(self, dtype=None):
        """Cast floating parameters and buffers to ``dtype`` in place; returns self."""
        if dtype is None:
            return self
        asc = _asc()
        for m in self.modules():
            for table in (m._parameters, m._buffers):
                for name, v in list(table.items()):
                    if v is not None and (_np.dtype(v.dtype).kind == "f" or str(v.dtype) == "bfloat16"):
                        table[name] = asc.asarray(v).astype(dtype)
        return self

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        for name, m in self._modules.items():
            r = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {r}")
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


class Sequential(Module):
    """Chain of modules applied in order; also accepts an OrderedDict of named modules."""

    def __init__(self, *mods):
        super().__init__()
        if len(mods) == 1 and isinstance(mods[0], (dict, OrderedDict)):
            for k, m in mods[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(mods):
                self.add_module(str(i), m)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        vals = list(self._modules.values())
        if isinstance(i, slice):
            keys = list(self._modules.keys())[i]
            return Sequential(OrderedDict((k, self._modules[k]) for k in keys))
        return vals[i]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


class ModuleList(Module):
    """List of modules (registered as children ``0``, ``1``, ...)."""

    def __init__(self, mods=()):
        super().__init__()
        for m in mods:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        return list(self._modules.values())[i]


class Identity(Module):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


# -- modules for the activation / tensor / loss ops -----------------------------------------------
# Each wraps one functional op; constructor arguments are torch.nn's, stored as attributes
# and passed to the functional form by name.

def _functional(name):
    from . import _activation, _loss, _tensor

    for mod in (_activation, _tensor, _loss):
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AttributeError(name)


def _make(cls_name, fn_name, params, doc, n_inputs=1, pass_training=False):
    """Build a Module class calling ``asc.ops.<fn_name>(*inputs, **params)``."""
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
            setattr(self, k, v)

    def forward(self, *inputs):
        if len(inputs) != n_inputs:
            raise TypeError(f"{cls_name}.forward takes {n_inputs} input(s), got {len(inputs)}")
        kw = {k: getattr(self, k) for k in names}
        if pass_training:
            kw["training"] = self.training
        return _functional(fn_name)(*inputs, **kw)

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)!r}" for k in names)

    cls = type(cls_name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                     "__doc__": doc, "__module__": __name__})
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


_RED = [("size_average", None), ("reduce", None), ("reduction", "mean")]
for _spec in [
    ("ReLU", "relu", [("inplace", False)]),
    ("ReLU6", "relu6", [("inplace", False)]),
    ("LeakyReLU", "leaky_relu", [("negative_slope", 0.01), ("inplace", False)]),
    ("ELU", "elu", [("alpha", 1.0), ("inplace", False)]),
    ("SELU", "selu", [("inplace", False)]),
    ("CELU", "celu", [("alpha", 1.0), ("inplace", False)]),
    ("GELU", "gelu", [("approximate", "none")]),
    ("SiLU", "silu", [("inplace", False)]),
    ("Mish", "mish", [("inplace", False)]),
    ("Sigmoid", "sigmoid", []),
    ("Tanh", "tanh", []),
    ("Hardtanh", "hardtanh", [("min_val", -1.0), ("max_val", 1.0), ("inplace", False)]),
    ("Hardswish", "hardswish", [("inplace", False)]),
    ("Hardsigmoid", "hardsigmoid", [("inplace", False)]),
    ("Softplus", "softplus", [("beta", 1.0), ("threshold", 20.0)]),
    ("Softsign", "softsign", []),
    ("LogSigmoid", "logsigmoid", []),
    ("GLU", "glu", [("dim", -1)]),
    ("Threshold", "threshold", [("threshold", 0.0), ("value", 0.0), ("inplace", False)]),
    ("Tanhshrink", "tanhshrink", []),
    ("Softshrink", "softshrink", [("lambd", 0.5)]),
    ("Hardshrink", "hardshrink", [("lambd", 0.5)]),
    ("Softmax", "softmax", [("dim", None)]),
    ("LogSoftmax", "log_softmax", [("dim", None)]),
    ("Softmin", "softmin", [("dim", None)]),
    ("Flatten", "flatten", [("start_dim", 1), ("end_dim", -1)]),
    ("Unflatten", "unflatten", [("dim", 1), ("sizes", (1,))]),
    ("PixelShuffle", "pixel_shuffle", [("upscale_factor", 2)]),
    ("PixelUnshuffle", "pixel_unshuffle", [("downscale_factor", 2)]),
    ("Upsample", "interpolate", [("size", None), ("scale_factor", None), ("mode", "nearest"),
                                 ("align_corners", None)]),
    ("Unfold", "unfold", [("kernel_size", 1), ("dilation", 1), ("padding", 0), ("stride", 1)]),
    ("Fold", "fold", [("output_size", 1), ("kernel_size", 1), ("dilation", 1), ("padding", 0), ("stride", 1)]),
]:
    _make(_spec[0], _spec[1], _spec[2], f"Module form of :func:`pyasc.ops.{_spec[1]}`.")

for _spec in [("Dropout", "dropout"), ("Dropout1d", "dropout1d"), ("Dropout2d", "dropout2d"),
              ("Dropout3d", "dropout3d"), ("AlphaDropout", "alpha_dropout")]:
    _make(_spec[0], _spec[1], [("p", 0.5), ("inplace", False)],
          f"Module form of :func:`pyasc.ops.{_spec[1]}` (identity in eval()).", pass_training=True)

for _spec in [
    ("MSELoss", "mse_loss", list(_RED)),
    ("L1Loss", "l1_loss", list(_RED)),
    ("SmoothL1Loss", "smooth_l1_loss", _RED + [("beta", 1.0)]),
    ("HuberLoss", "huber_loss", [("reduction", "mean"), ("delta", 1.0)]),
    ("SoftMarginLoss", "soft_margin_loss", list(_RED)),
    ("KLDivLoss", "kl_div", _RED + [("log_target", False)]),
    ("BCELoss", "binary_cross_entropy", [("weight", None)] + _RED),
    ("BCEWithLogitsLoss", "binary_cross_entropy_with_logits", [("weight", None)] + _RED + [("pos_weight", None)]),
    ("NLLLoss", "nll_loss", [("weight", None), ("size_average", None), ("ignore_index", -100), ("reduce", None),
                             ("reduction", "mean")]),
    ("CrossEntropyLoss", "cross_entropy", [("weight", None), ("size_average", None), ("ignore_index", -100),
                                           ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.0)]),
]:
    _make(_spec[0], _spec[1], _spec[2], f"Module form of :func:`pyasc.ops.{_spec[1]}` (input, target).",
          n_inputs=2)
del _spec


class PReLU(Module):
    """PReLU with a learnable slope per channel (``num_parameters``), initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = int(num_parameters)
        self.weight = Parameter(_np.full((self.num_parameters,), init, dtype=_np.float32))
        if dtype is not None:
            self.weight = self.weight.astype(dtype)

    def forward(self, input):
        from ._activation import prelu

        return prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Embedding(Module):
    """Lookup table (num_embeddings, embedding_dim), weights ~ N(0, 1) from pyasc.random
    (row ``padding_idx`` zeroed), or ``_weight``."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        asc = _asc()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None and padding_idx < 0:
            padding_idx += self.num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        if _weight is None:
            w = _np.asarray(asc.random.standard_normal((self.num_embeddings, self.embedding_dim))).astype(_np.float32)
            if padding_idx is not None:
                w[padding_idx] = 0
            w = asc.asarray(w)
        else:
            w = asc.asarray(_weight)
            if tuple(w.shape) != (self.num_embeddings, self.embedding_dim):
                raise asc.errors.AscendValueError(
                    asc.errors.ErrorCode.INVALID_SHAPE,
                    f"[Embedding] _weight shape {tuple(w.shape)} does not match "
                    f"({self.num_embeddings}, {self.embedding_dim})")
        self.weight = Parameter(w.astype(dtype) if dtype is not None else w)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        e = _asc().asarray(embeddings)
        if e.ndim != 2:
            raise _asc().errors.AscendValueError(
                _asc().errors.ErrorCode.INVALID_SHAPE,
                f"[Embedding.from_pretrained] embeddings must be 2-D, got {tuple(e.shape)}")
        return cls(e.shape[0], e.shape[1], padding_idx, max_norm, norm_type, _weight=e)

    def forward(self, input):
        from ._tensor import embedding

        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        return s


__all__ += ["PReLU", "Embedding"]
