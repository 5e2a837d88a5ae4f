"""The kernel language: ``core`` (types, tensors), ``basic`` (instructions),
``fwk`` (TPipe, queues, buffers), ``adv`` (Matmul), as hicann/pyasc lays it out."""

from . import adv, basic, core, fwk, struct, types
from .basic import *  # noqa: F401,F403
from .core import *  # noqa: F401,F403
from .fwk import *  # noqa: F401,F403
from .struct import Field, Struct
from .types import *  # noqa: F401,F403

__all__ = (list(core.__all__) + list(basic.__all__) + list(fwk.__all__) + list(types.__all__)
           + ["Field", "Struct", "adv", "basic", "core", "fwk"])
