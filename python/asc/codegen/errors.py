"""Errors of the @asc.jit translator, pointing at the kernel's Python source."""

from __future__ import annotations

from pyasc.errors import AscendError


class CompilationError(AscendError, SyntaxError):
    """A kernel the translator or the C++ compiler rejects.

    The message starts with ``file:line:`` of the kernel's Python source and
    quotes that line; it is a :class:`SyntaxError` (as Triton's and
    hicann/pyasc's ``CompilationError``) and a :class:`pyasc.AscendError`.
    """

    def __init__(self, message, filename=None, lineno=None, source_line=None):
        text = message
        if filename is not None and lineno is not None:
            text = f"{filename}:{lineno}: {message}"
            if source_line:
                text += f"\n    {source_line.strip()}"
        Exception.__init__(self, text)
        self.code = 100000  # ACL_ERROR_INVALID_PARAM, as pyasc's other argument errors
        self.message = text
        self.msg = text
        self.filename = filename
        self.lineno = lineno
        self.text = source_line
        self.offset = None

    def __str__(self):
        return self.msg


class KernelTypeError(CompilationError, TypeError):
    """A value of the wrong kind for an API call or an operator inside a kernel."""
