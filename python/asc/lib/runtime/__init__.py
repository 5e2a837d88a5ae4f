"""Runtime helpers of hicann/pyasc's ``asc.lib.runtime`` over pyasc's streams."""

from __future__ import annotations

import pyasc

__all__ = ["current_stream", "synchronize", "use_model", "is_available", "current_platform"]


def current_stream():
    """The calling thread's current :class:`pyasc.Stream` (pass it as ``kernel[core_num, stream]``)."""
    return pyasc.current_stream()


def synchronize():
    """Waits for all streams."""
    pyasc.synchronize()


def use_model():
    """Kernels run on the CPU device (the only backend here)."""
    return None


def is_available():
    """True: the CPU device is always there."""
    return True


def current_platform():
    """The platform name the CPU device stands in for."""
    return "Ascend910B1"
