"""Custom operators: three ways to add an operator to ``asc.ops`` (see docs/custom_ops.md).

* :func:`register_op` -- a composite op written in pyasc (traced into the lazy graph, fuses),
  with an optional gradient (``grad=`` or :func:`register_grad`).
* :func:`hybrid_operator` -- a Python function launching an Ascend C kernel (a
  :mod:`pyasc.utils.cpp_extension` module) with derived shape/dtype inference, contiguity and
  dtype checks and an out-of-bounds write check.
* :func:`load_op_library` -- a shared library whose C++ ``ASC_REGISTER_OP`` declarations
  (include/asc/op_library.h) become ``asc.ops.<name>``; unload and reload at run time.

``asc.ops.get(name)``, ``asc.ops.registered()``, ``asc.ops.stats()`` look the registry up.
"""

from __future__ import annotations

from ._registry import (  # noqa: F401
    CustomOp,
    OpContext,
    get,
    register_grad,
    register_op,
    registered,
    reset_stats,
    stats,
    unregister_op,
)
from ._hybrid import DTYPE_TABLE, HybridOp, hybrid_operator  # noqa: F401
from ._library import OpLibrary, load_op_library  # noqa: F401

__all__ = ["register_op", "register_grad", "unregister_op", "get", "registered", "stats", "reset_stats",
           "CustomOp", "OpContext", "hybrid_operator", "HybridOp", "DTYPE_TABLE", "load_op_library", "OpLibrary"]
