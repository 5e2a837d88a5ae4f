"""``import asc``: hicann/pyasc's kernel language on pyasc's CPU device.

Kernels are Python functions decorated with :func:`asc.jit`; their AST is
translated into C++ over pyasc's Ascend C kernel API (``kernel_operator.h``),
compiled with the host compiler (cached in memory and on disk) and launched
with ``kernel[core_num, stream](*args)`` on the CPU device. See
``docs/asc_jit.md`` for the supported language surface.

``asc`` is a thin layer over the ``pyasc`` package (its runtime, kernel
headers and ``libasc``); ``import pyasc`` is the array library.
"""

from . import language, runtime
from .codegen.errors import CompilationError, KernelTypeError
from .language import *  # noqa: F401,F403
from .language import adv, basic, core, fwk
from .runtime.jit import JITFunction, jit

float = language.core.float32  # noqa: A001 - hicann/pyasc's name for float32
bool = language.core.int1  # noqa: A001

__all__ = list(language.__all__) + ["jit", "JITFunction", "CompilationError", "KernelTypeError", "runtime",
                                    "language", "adv", "float", "bool"]
