"""pyasc: NumPy-style arrays and Ascend C kernels on any machine.

``import pyasc as asc``. This module re-exports the runtime API: streams and
events (:mod:`pyasc.stream`), the memory pool (:mod:`pyasc.memory`), device
information (:mod:`pyasc.device`), errors (:mod:`pyasc.errors`) and logging
(``set_log_level``/``get_log_level``), utilities (:mod:`pyasc.utils`, e.g. ``asc.utils.compare``),
command-line tools (:mod:`pyasc.tools`: ``pyasc-compare``, ``pyasc-info``),
plus helpers to build C++ code against the installed package
(:func:`get_include`, :func:`get_cmake_dir`, :data:`cmake_prefix_path`).
"""

from __future__ import annotations

import atexit as _atexit
import os as _os

from . import _blas_env  # noqa: F401 - loads _C with the OpenBLAS kernel choice (see the module)
from . import _C

__version__ = _C.__version__

from . import _log, device, errors, memory, profiler, stream, tools, utils  # noqa: E402
from . import linalg  # noqa: E402 - pyasc.linalg
from . import fft  # noqa: E402 - pyasc.fft (numpy.fft, the array API's fft extension)
from . import random  # noqa: E402 - pyasc.random (Philox generator)
from . import lazy  # noqa: E402 - lazy graphs and fusion controls
from . import debug  # noqa: E402 - kernel checker (asc.debug.check_kernels)
from .lazy import eval, is_eager, set_eager  # noqa: E402,A004
from .device import (  # noqa: E402
    DeviceProperties,
    current_device,
    device_count,
    get_device_properties,
)
from .errors import (  # noqa: E402
    AscendError,
    AscendIndexError,
    AscendLinAlgError,
    AscendMemoryError,
    AscendNotImplementedError,
    AscendRuntimeError,
    AscendTypeError,
    AscendValueError,
    ErrorCode,
)
from ._log import get_log_level, set_log_level  # noqa: E402
from .numeric import *  # noqa: E402,F401,F403
from ._signatures import *  # noqa: E402,F401,F403 - NumPy's signatures over the narrower C++ bindings (sum, array, ...)
from .memory import (  # noqa: E402
    MemoryAllocator,
    empty_cache,
    get_memory_limit,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_allocator,
    memory_reserved,
    memory_stats,
    host_memory_stats,
    memory_summary,
    reset_peak_memory_stats,
    set_memory_limit,
)
from .stream import (  # noqa: E402
    Event,
    Stream,
    create_stream,
    current_stream,
    default_stream,
    set_current_stream,
    synchronize,
)
from . import ops  # noqa: E402 - asc.ops: NN operators (torch.nn.functional's names)
from .amp import *  # noqa: E402,F401,F403 - autocast / mixed precision
from . import models  # noqa: E402 - ONNX model inference (onnxruntime's session interface)
from .models import (  # noqa: E402
    GraphOptimizationLevel,
    InferenceSession,
    ModelMetadata,
    NodeArg,
    RunOptions,
    SessionOptions,
    get_available_providers,
    load_model,
    save_as_om,
)
from . import image  # noqa: E402 - asc.image: JPEG/PNG decoding and classification preprocessing
from .image import ImageDecoder  # noqa: E402

from . import custom_ops  # noqa: E402 - register_op / hybrid_operator / load_op_library (asc.ops.<name>)
from .custom_ops import hybrid_operator, load_op_library, register_grad, register_op  # noqa: E402
from . import autograd  # noqa: E402 - asc.grad / asc.vjp / asc.value_and_grad (tape-based reverse mode)
from .autograd import grad, value_and_grad, vjp  # noqa: E402
from . import testing  # noqa: E402 - asc.testing.gradcheck
from . import distributed  # noqa: E402 - asc.distributed (torch.distributed names on MPI; mpi4py loads at init_process_group)
from .custom_ops import torch_interop as torch  # noqa: E402 - asc.torch.op (imports torch on first use only)

_PACKAGE_DIR = _os.path.dirname(_os.path.abspath(__file__))

#: Directory to add to ``CMAKE_PREFIX_PATH`` so that ``find_package(pyasc)``
#: finds the installed package (it provides the target ``pyasc::asc``).
cmake_prefix_path = _PACKAGE_DIR


def get_include():
    """Directory of the installed C++ headers (``asc/...``, ``kernel_operator.h``, ``acl/acl.h``)."""
    return _os.path.join(_PACKAGE_DIR, "include")


def get_cmake_dir():
    """Directory of the installed CMake package config (``pyascConfig.cmake``).

    Pass it as ``-Dpyasc_DIR=...``, or put :data:`cmake_prefix_path` on
    ``CMAKE_PREFIX_PATH``, then ``find_package(pyasc)`` and link ``pyasc::asc``.
    """
    return _os.path.join(_PACKAGE_DIR, "lib", "cmake", "pyasc")


def get_library_dir():
    """Directory of the installed shared library ``libasc.so``."""
    return _os.path.join(_PACKAGE_DIR, "lib")


def _drain_streams_at_exit():
    # Host callbacks need the interpreter: run what is still queued before it
    # shuts down. Errors nobody synchronized for are dropped here.
    try:
        _C.synchronize()
    except Exception:  # noqa: BLE001
        pass


_atexit.register(_drain_streams_at_exit)

__all__ = [
    "__version__",
    # errors
    "AscendError",
    "AscendValueError",
    "AscendTypeError",
    "AscendIndexError",
    "AscendMemoryError",
    "AscendNotImplementedError",
    "AscendRuntimeError",
    "AscendLinAlgError",
    "ErrorCode",
    # device
    "DeviceProperties",
    "get_device_properties",
    "device_count",
    "current_device",
    # streams
    "Stream",
    "Event",
    "create_stream",
    "current_stream",
    "default_stream",
    "set_current_stream",
    "synchronize",
    # memory
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_stats",
    "host_memory_stats",
    "memory_summary",
    "empty_cache",
    "set_memory_limit",
    "get_memory_limit",
    "reset_peak_memory_stats",
    "MemoryAllocator",
    "memory_allocator",
    # logging
    "set_log_level",
    "get_log_level",
    # building against pyasc
    "get_include",
    "get_cmake_dir",
    "get_library_dir",
    "cmake_prefix_path",
    # lazy graphs
    "eval",
    "set_eager",
    "is_eager",
    # custom operators and autograd
    "register_op",
    "register_grad",
    "hybrid_operator",
    "load_op_library",
    "grad",
    "vjp",
    "value_and_grad",
    # submodules
    "ops",
    "custom_ops",
    "autograd",
    "testing",
    "models",
    "InferenceSession",
    "save_as_om",
    "load_model",
    "image",
    "ImageDecoder",
    "SessionOptions",
    "RunOptions",
    "NodeArg",
    "ModelMetadata",
    "GraphOptimizationLevel",
    "get_available_providers",
    "lazy",
    "device",
    "errors",
    "linalg",
    "fft",
    "random",
    "memory",
    "profiler",
    "stream",
    "tools",
    "utils",
]
