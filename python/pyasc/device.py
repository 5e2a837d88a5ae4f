"""Device information.

The default (and for now only) device is the CPU: every core is an "AI core"
with its own Unified Buffer (UB), L1 and L0A/L0B/L0C buffers.
"""

from __future__ import annotations

import dataclasses

from . import _C
from .errors import AscendValueError, ErrorCode

__all__ = ["DeviceProperties", "get_device_properties", "device_count", "current_device"]


@dataclasses.dataclass(frozen=True)
class DeviceProperties:
    """Properties of a device (sizes in bytes).

    Attributes:
        name: device name (``"cpu"``).
        device_id: index of the device.
        num_cores: AI cores (worker threads); ``ASC_NUM_CORES`` overrides.
        ub_size: Unified Buffer per core (192 KiB; ``ASC_UB_SIZE`` overrides).
        l1_size: L1 buffer per core.
        l0a_size: L0A buffer per core.
        l0b_size: L0B buffer per core.
        l0c_size: L0C buffer per core.
        total_memory: physical memory the device may use.
        memory_limit: what the memory pool may reserve: the pool's limit
            (``asc.set_memory_limit`` / ``ASC_MEMORY_LIMIT``) when set, else
            ``total_memory``.

    Fields can also be read like a dict (``props["ub_size"]``).
    """

    name: str
    device_id: int
    num_cores: int
    ub_size: int
    l1_size: int
    l0a_size: int
    l0b_size: int
    l0c_size: int
    total_memory: int
    memory_limit: int

    def __getitem__(self, key):
        """Field ``key`` (dict-style access)."""
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def keys(self):
        """Field names, in order."""
        return [f.name for f in dataclasses.fields(self)]

    def to_dict(self):
        """The properties as a plain dict."""
        return dataclasses.asdict(self)


def get_device_properties(device=None):
    """Properties of ``device`` (the current device when None) as :class:`DeviceProperties`."""
    if device not in (None, 0):
        raise AscendValueError(
            ErrorCode.RT_INVALID_DEVICE_ID,
            f"[get_device_properties] invalid device {device!r}; device_count() is {device_count()}",
        )
    props = _C.get_device_properties()
    limit = _C.get_memory_limit()
    return DeviceProperties(memory_limit=limit or props["total_memory"], **props)


def device_count():
    """Number of devices pyasc can use (the CPU device: 1)."""
    return 1


def current_device():
    """Index of the device new work goes to (0)."""
    return 0

