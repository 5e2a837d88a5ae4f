"""Version, build, device, memory and environment information.

:func:`collect_info` gathers what ``pyasc-info`` (:mod:`pyasc.tools.info`)
prints, as a JSON-serialisable dict.
"""

from __future__ import annotations

import os
import platform
import sys

__all__ = ["collect_info", "ENVIRONMENT_VARIABLES"]

#: The environment variables pyasc reads, with what they do (name -> meaning).
#: Most are read once, when first needed; the values shown by ``pyasc-info``
#: are those of its own process.
ENVIRONMENT_VARIABLES = {
    "ASC_NUM_CORES": "AI cores (worker threads) of the CPU device, 1..1024; default: hardware threads",
    "ASC_UB_SIZE": "Unified Buffer bytes per core, up to 16 MiB (default 196608)",
    "ASC_MEMORY_LIMIT": "device memory pool capacity (bytes, K/M/G suffix allowed)",
    "ASC_SPIN_US": "microseconds a runtime thread spins before sleeping",
    "ASC_SIMD_TARGET": "caps the SIMD target: AVX3, AVX2, SSE4 or SCALAR",
    "ASC_KERNEL_ELIDE": "0/off: kernel API copies eagerly (no copy elision)",
    "PYASC_DEBUG": "1: debug logs",
    "ASC_LOG_LEVEL": "debug, info, warning (default), error, off",
    "PYASC_LOG_FILE": "write logs to this file instead of stderr",
    "ASCEND_DEBUG": "1: kernel checking (out-of-bounds, alignment, queue misuse)",
    "ASCEND_DUMP_GRAPH": "1: dump each graph",
    "ASCEND_DUMP_GRAPH_PATH": "directory of the graph dumps",
}


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version_of(module_name):
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = __import__(module_name)
        except ImportError:
            return None
    return getattr(module, "__version__", None)


def collect_info():
    """Everything ``pyasc-info`` shows, as a dict (JSON-serialisable).

    Keys:

    * ``version`` -- pyasc's version.
    * ``python``, ``numpy``, ``ml_dtypes`` -- versions; ``platform``,
      ``cpu`` (model name), ``hardware_threads``.
    * ``build`` -- ``compiler``; ``simd_targets_compiled`` (Highway targets
      compiled into libasc, best first); ``simd_target`` (the one the
      vector instructions use in this process: the best the CPU supports,
      capped by ``ASC_SIMD_TARGET``); ``simd_target_override`` (the
      ``ASC_SIMD_TARGET`` value or None); ``blas`` (the linked BLAS's build description, read from
      the library at run time) and ``blas_num_threads``.
    * ``devices`` -- one dict per device: :class:`~pyasc.DeviceProperties`
      fields (``name``, ``device_id``, ``num_cores``, ``ub_size``,
      ``l1_size``, ``l0a_size``, ``l0b_size``, ``l0c_size``,
      ``total_memory``, ``memory_limit``; bytes) plus ``memory``: the pool's
      :func:`~pyasc.memory_stats`.
    * ``log_level`` -- the current log level.
    * ``environment`` -- each variable of :data:`ENVIRONMENT_VARIABLES`
      -> its value, or None when unset.
    """
    import pyasc as asc
    from pyasc import _C

    build = dict(_C.build_info())
    build.pop("version", None)
    build["simd_targets_compiled"] = list(build.get("simd_targets_compiled", []))
    build["simd_target_override"] = os.environ.get("ASC_SIMD_TARGET") or None
    # The BLAS libasc really calls, asked at run time: its build description
    # ("OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64") and threads.
    build["blas"] = _C._linalg.blas_config().strip() or "unknown"
    build["blas_num_threads"] = int(_C._linalg.blas_num_threads())

    devices = []
    for i in range(asc.device_count()):
        d = asc.get_device_properties(i).to_dict()
        d["memory"] = dict(asc.memory_stats())
        devices.append(d)

    return {
        "version": asc.__version__,
        "python": platform.python_version(),
        "numpy": _version_of("numpy"),
        "ml_dtypes": _version_of("ml_dtypes"),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "hardware_threads": os.cpu_count(),
        "build": build,
        "devices": devices,
        "log_level": asc.get_log_level(),
        "environment": {name: os.environ.get(name) for name in ENVIRONMENT_VARIABLES},
    }
