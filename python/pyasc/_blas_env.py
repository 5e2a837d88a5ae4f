"""Chooses OpenBLAS's kernels before libasc (and with it libopenblas) is loaded.

OpenBLAS built with DYNAMIC_ARCH picks its kernels from the CPU model when the
library loads; a release older than the CPU (Debian's 0.3.21 on Emerald
Rapids, for instance) falls back to generic SSE3 ("Prescott") kernels that run
gemm 3-4x slower. Imported by ``pyasc/__init__.py`` first: unless the user set
``OPENBLAS_CORETYPE``, it names the kernel family the CPU's instruction set
supports (AVX-512 -> SkylakeX, AVX2 + FMA -> Haswell; what a newer OpenBLAS
picks for gemm on such CPUs) while it imports ``pyasc._C`` (which loads
libopenblas), then removes the variable again. Only the system libopenblas
that libasc links is affected (NumPy's wheel bundles its own copy).
"""

from __future__ import annotations

import os


def _cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _choose():
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


_core = None if "OPENBLAS_CORETYPE" in os.environ else _choose()
if _core is not None:
    os.environ["OPENBLAS_CORETYPE"] = _core
try:
    from . import _C  # noqa: F401,E402 - loads libasc and libopenblas, which reads the variable now
finally:
    # Leave the environment as it was: NumPy's own OpenBLAS, loaded later, and
    # child processes make their own choice.
    if _core is not None:
        os.environ.pop("OPENBLAS_CORETYPE", None)
