"""Logging of the pyasc core.

Off (warnings and errors only) by default. ``PYASC_DEBUG=1`` turns on debug
logs; ``ASC_LOG_LEVEL`` (``debug``, ``info``, ``warning``, ``error``, ``off``
or ``0``..``4``) sets the level at import; ``PYASC_LOG_FILE`` sends the lines
to a file instead of stderr. :func:`set_log_level` changes it at run time.
"""

from __future__ import annotations

from . import _C
from .errors import AscendValueError, ErrorCode

__all__ = ["set_log_level", "get_log_level", "LOG_LEVELS"]

#: Level names in order of severity (index = the C++ level number).
LOG_LEVELS = ("debug", "info", "warning", "error", "off")
_ALIASES = {"warn": "warning", "none": "off", "critical": "error", "fatal": "error"}


def set_log_level(level):
    """Sets the log level: ``"debug"``, ``"info"``, ``"warning"``, ``"error"``,
    ``"off"`` (case-insensitive), or a number 0 (debug) .. 4 (off)."""
    if isinstance(level, str):
        name = level.strip().lower()
        name = _ALIASES.get(name, name)
        if name.isdigit():
            number = int(name)
        elif name in LOG_LEVELS:
            number = LOG_LEVELS.index(name)
        else:
            raise AscendValueError(
                ErrorCode.INVALID_PARAM,
                f"[set_log_level] unknown level {level!r}; use one of {', '.join(LOG_LEVELS)}",
            )
    elif isinstance(level, int) and not isinstance(level, bool):
        number = level
    else:
        raise AscendValueError(
            ErrorCode.INVALID_PARAM,
            f"[set_log_level] level must be a name or 0..4, got {level!r}",
        )
    _C.set_log_level(number)


def get_log_level():
    """The current log level's name (``"debug"`` .. ``"off"``)."""
    return LOG_LEVELS[_C.get_log_level()]
