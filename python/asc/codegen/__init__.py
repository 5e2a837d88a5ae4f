"""The @asc.jit translator (Python AST → C++ over kernel_operator.h)."""

from .errors import CompilationError, KernelTypeError

__all__ = ["CompilationError", "KernelTypeError"]
