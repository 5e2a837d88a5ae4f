"""Utilities: precision comparison and system information.

* :func:`compare` -- compares a result with a golden array (the API of the
  ``pyasc-compare`` tool); returns a :class:`CompareReport`. Rules in
  :mod:`pyasc.utils.precision`.
* :func:`load_array` -- reads ``.npy``, ``.npz:key`` and raw ``.bin`` files
  the way ``pyasc-compare`` does (never unpickling).
* :func:`numpy` -- a host NumPy copy (never a view) of a pyasc array.
* :func:`collect_info` -- version, build, device, memory and environment
  information as a dict (the data of ``pyasc-info``).

Names are loaded on first use, so ``import pyasc`` does not import them.
"""

from __future__ import annotations

import importlib

__all__ = [
    "compare",
    "CompareReport",
    "Mismatch",
    "CompareInputError",
    "load_array",
    "collect_info",
    "ENVIRONMENT_VARIABLES",
    "numpy",
]

_LAZY = {
    "compare": "precision",
    "CompareReport": "precision",
    "Mismatch": "precision",
    "CompareInputError": "precision",
    "load_array": "precision",
    "collect_info": "info",
    "ENVIRONMENT_VARIABLES": "info",
    "numpy": "host",
}


def __getattr__(name):
    if name == "cpp_extension":  # a submodule (asc.utils.cpp_extension.load), imported on first use
        return importlib.import_module(f"{__name__}.cpp_extension")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
