"""Neural-network operators: ``asc.ops`` (signatures of ``torch.nn.functional``).

Every function takes pyasc arrays (or anything :func:`pyasc.asarray` takes),
returns pyasc arrays, records into the lazy graph and runs on the current
stream. Module-style classes (``asc.ops.Conv2d``, ``asc.ops.BatchNorm2d``, ...)
hold their parameters and are called like functions. See docs/nn.md for every
op, its fusion class and its engine.

One submodule per op family:

* ``_conv``        convolution, transposed convolution, dense (linear, mm, bmm, ...)
* ``_pool``        max / average / adaptive / Lp pooling
* ``_norm``        batch / layer / group / instance / RMS / local-response norms, normalize
* ``_activation``  activations and softmax family
* ``_loss``        losses
* ``_tensor``      pad, interpolate, pixel_shuffle, embedding, one_hot, dropout, unfold/fold, ...
* ``_format``      NC1HWC0 / FRACTAL_Z layouts (to_format)
* ``_modules``     module-style callable objects
"""

from __future__ import annotations

import importlib as _importlib

__all__: list[str] = []



def _export(names):
    for name in names:
        mod = _importlib.import_module(f"{__name__}.{name}")
        for public in getattr(mod, "__all__", ()):
            globals()[public] = getattr(mod, public)
            __all__.append(public)


_export(("_conv", "_pool", "_norm", "_activation", "_loss", "_tensor", "_format", "_modules"))

# The custom-operator registry's look-ups (registered ops themselves become attributes of this
# module: asc.ops.<name>; see pyasc/custom_ops).
from ..custom_ops._registry import get, registered, reset_stats, stats, unregister_op as unregister  # noqa: E402,F401
