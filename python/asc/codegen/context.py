"""The translator that is running (one per thread), for the language functions."""

from __future__ import annotations

import threading

from .errors import CompilationError

_state = threading.local()


def current():
    """The active :class:`~asc.codegen.translator.Translator`, or None outside a kernel."""
    return getattr(_state, "tr", None)


def require(api):
    """The active translator; a clear error when ``api`` is called outside @asc.jit."""
    tr = current()
    if tr is None:
        raise CompilationError(f"{api} can only be called inside an @asc.jit kernel (or a helper it calls)")
    return tr


class active:
    """``with active(tr):`` makes ``tr`` the current translator."""

    def __init__(self, tr):
        self.tr = tr

    def __enter__(self):
        self.prev = current()
        _state.tr = self.tr
        return self.tr

    def __exit__(self, *exc):
        _state.tr = self.prev
        return False


def builtin(fn):
    """Marks a language function: the translator calls it with kernel values."""
    fn.__asc_builtin__ = True
    return fn
