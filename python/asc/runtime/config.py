"""Where kernels run (hicann/pyasc's ``asc.runtime.config``).

``Backend.Model`` (hicann/pyasc: CANN's simulator) runs kernels on pyasc's CPU
device; ``Backend.NPU`` needs an Ascend NPU and its runtime, which this
machine does not have: ``set_platform(Backend.NPU)`` raises
:class:`pyasc.AscendRuntimeError` saying so.
"""

from __future__ import annotations

from enum import Enum
from typing import Optional, Union

from pyasc.errors import AscendRuntimeError, AscendValueError

__all__ = ["Backend", "Platform", "KernelType", "set_platform", "current_backend", "current_platform"]


class Backend(Enum):
    """``Model``: the CPU device; ``NPU``: an Ascend NPU (not available here)."""
    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    """SoC versions (accepted for compatibility; the CPU device has the 910B memory sizes)."""
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    """Which cores a kernel uses (``@asc.jit(kernel_type=...)``)."""
    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


_state = {"backend": Backend.Model, "platform": Platform.Ascend910B1, "device_id": 0}


def set_platform(backend: Union[Backend, str], soc_version: Optional[Platform] = None,
                 device_id: Optional[int] = None, check: bool = True) -> None:
    """Selects where ``@asc.jit`` kernels run: ``Backend.Model`` (the CPU device) or ``Backend.NPU``."""
    try:
        backend = Backend(backend.value if isinstance(backend, Backend) else backend)
    except ValueError:
        raise AscendValueError(100000, f"[set_platform] unknown backend {backend!r} (supported: "
                               f"{[b.value for b in Backend]})") from None
    if soc_version is not None and not isinstance(soc_version, Platform):
        try:
            soc_version = Platform(soc_version)
        except ValueError:
            raise AscendValueError(100000, f"[set_platform] unknown platform {soc_version!r} (supported: "
                                   f"{[p.value for p in Platform]})") from None
    if backend == Backend.NPU:
        raise AscendRuntimeError(507033, "[set_platform] no Ascend NPU here: pyasc runs @asc.jit kernels on its CPU "
                                 "device; use Backend.Model (python script.py -r Model)")
    _state["backend"] = backend
    _state["platform"] = soc_version or Platform.Ascend910B1
    if device_id is not None:
        _state["device_id"] = int(device_id)


def current_backend() -> Backend:
    return _state["backend"]


def current_platform() -> Platform:
    return _state["platform"]
