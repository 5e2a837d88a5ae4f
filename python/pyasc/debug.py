"""Debugging Ascend C kernels: the kernel checker.

With the checker on, every kernel launch (from C++ operator modules, ACL
programs or ``pyasc-cc`` binaries loaded into this process) reports the bugs
NPU hardware hides or turns into hangs -- GM accesses outside an allocation,
host pointers, UB/L1/L0 budget overflow, misaligned UB operands, DataCopy
lengths the hardware rounds down, queue misuse, tensors still held at kernel
exit, WaitFlag without SetFlag, two blocks writing the same GM bytes -- with
kernel name, block index, instruction and offsets, and the launch fails with
``ACL_ERROR_RT_AICORE_EXCEPTION`` (507015). See docs/kernel_checker.md.

``ASCEND_DEBUG=1`` in the environment turns it on for the whole process.
"""

from __future__ import annotations

from . import _C

__all__ = ["check_kernels", "kernel_checks_enabled", "check_reports", "clear_check_reports", "print_check_reports"]

_d = _C._debug


def check_kernels(on: bool = True) -> None:
    """Checks every kernel launched from now on (``False`` stops checking)."""
    _d.check_kernels(bool(on))


def kernel_checks_enabled() -> bool:
    """Whether launches are checked (``ASCEND_DEBUG=1``, ``pyasc-cc --check`` or :func:`check_kernels`)."""
    return _d.kernel_checks_requested()


def check_reports() -> list[dict]:
    """The checker's reports since the last :func:`clear_check_reports`, oldest first.

    Each is a dict: ``finding`` (e.g. ``"gm-out-of-bounds"``), ``kernel``,
    ``block``, ``block_num``, ``instruction``, ``detail`` and ``text``, the line
    written to stderr::

        [kernel check] <finding>: kernel '<name>' block <i>/<n>: <instruction>: <detail>
    """
    return _d.check_reports()


def clear_check_reports() -> None:
    """Forgets the reports kept so far."""
    _d.clear_check_reports()


def print_check_reports(on: bool = True) -> None:
    """Whether reports are also written to stderr (on by default)."""
    _d.set_print_check_reports(bool(on))
