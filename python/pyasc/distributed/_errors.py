"""Errors of :mod:`pyasc.distributed` (torch.distributed's names, pyasc's classes).

Every class derives from :class:`pyasc.AscendError` and from the builtin
torch.distributed raises in the same situation: ``DistError`` and its
subclasses are ``RuntimeError`` s (torch's ``DistError``/``DistBackendError``),
a timeout is also a ``TimeoutError``, state errors (collectives before
``init_process_group``, initialising twice, a bad group) are ``ValueError`` s as
in torch, and ranks that disagree on a collective's shapes/dtypes raise
``CollectiveMismatchError`` (a ``ValueError``) on every rank.
"""

from __future__ import annotations

from ..errors import AscendRuntimeError, AscendValueError, ErrorCode

__all__ = [
    "DistError",
    "DistBackendError",
    "DistTimeoutError",
    "DistStateError",
    "CollectiveMismatchError",
]


class DistError(AscendRuntimeError):
    """A failure of a collective or point-to-point operation (torch.distributed.DistError)."""

    def __init__(self, message, code=ErrorCode.FAILURE):
        super().__init__(code, message)


class DistBackendError(DistError):
    """The engine (MPI) reported an error, or the process group is unusable after an earlier
    failure (torch.distributed.DistBackendError)."""


class DistTimeoutError(DistBackendError, TimeoutError):
    """A collective or point-to-point operation did not complete within the process group's
    ``timeout``: a rank died, hangs or never called the matching operation."""


class DistStateError(AscendValueError):
    """The process group is in the wrong state for the call: not initialised, initialised
    twice, destroyed, or a group this rank is not a member of (torch raises ValueError)."""

    def __init__(self, message, code=ErrorCode.INVALID_PARAM):
        super().__init__(code, message)


class CollectiveMismatchError(AscendValueError):
    """The ranks called a collective with different shapes, dtypes, ops or roots (raised on
    every rank of the group, like TORCH_DISTRIBUTED_DEBUG=DETAIL's fingerprint check)."""

    def __init__(self, message, code=ErrorCode.INVALID_SHAPE):
        super().__init__(code, message)
