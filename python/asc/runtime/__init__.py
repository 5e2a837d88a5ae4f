"""JIT compilation, caching and launching of kernels; ``asc.runtime.config``."""

from . import config
from .jit import CompiledKernel, JITFunction, jit

__all__ = ["config", "jit", "JITFunction", "CompiledKernel"]
