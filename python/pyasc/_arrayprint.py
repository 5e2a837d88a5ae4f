"""NumPy's ``_core/arrayprint`` names. Printing goes through NumPy (an
ndarray's repr is NumPy's repr of a zero-copy view), so the print options are
NumPy's own; ``format_float_positional``/``format_float_scientific`` are
NumPy's float formatters (Dragon4) applied on the host to a scalar; ``info``
prints an object's documentation as NumPy's does (NumPy's ``lib/_utils_impl``).
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from . import _C
from ._helpers import _TE, _arr, _host

__all__ = [
    "printoptions", "set_printoptions", "get_printoptions", "array2string", "array_repr", "array_str",
    "format_float_positional", "format_float_scientific", "info",
]


# ------------------------------------------------------------------ printing (NumPy's own state)

set_printoptions = _np.set_printoptions
get_printoptions = _np.get_printoptions
printoptions = _np.printoptions


def array2string(a, *args, **kwargs):
    """The string of an array under the print options (``numpy.array2string``)."""
    return _np.array2string(_host(_arr(a)), *args, **kwargs)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """The repr of an array, ``array([...])`` (``numpy.array_repr``)."""
    return _np.array_repr(_host(_arr(arr)), max_line_width, precision, suppress_small)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """The str of an array (``numpy.array_str``)."""
    return _np.array_str(_host(_arr(a)), max_line_width, precision, suppress_small)


def _float_scalar(x, name):
    if isinstance(x, _C.ndarray):
        if x.ndim != 0:
            raise _TE(f"[{name}] needs a scalar, got an array of shape {tuple(x.shape)}")
        return x.numpy()[()]
    return x


def format_float_positional(x, precision=None, unique=True, fractional=True, trim="k", sign=False, pad_left=None,
                            pad_right=None, min_digits=None):
    """The positional-notation string of a floating scalar, as short as round-trips when ``unique``
    (``numpy.format_float_positional``; a 0-d pyasc array counts as its scalar)."""
    return _np.format_float_positional(_float_scalar(x, "format_float_positional"), precision, unique, fractional,
                                       trim, sign, pad_left, pad_right, min_digits)


def format_float_scientific(x, precision=None, unique=True, trim="k", sign=False, pad_left=None, exp_digits=None,
                            min_digits=None):
    """The scientific-notation string of a floating scalar (``numpy.format_float_scientific``;
    a 0-d pyasc array counts as its scalar)."""
    return _np.format_float_scientific(_float_scalar(x, "format_float_scientific"), precision, unique, trim, sign,
                                       pad_left, exp_digits, min_digits)


def info(object=None, maxwidth=76, output=None, toplevel="numpy"):  # noqa: A002 - NumPy's parameter name
    """Prints the documentation of ``object`` (a function, class, module or array; a pyasc array prints
    its NumPy view's summary) (``numpy.info``: a host help printer; ``output`` defaults to stdout)."""
    if isinstance(object, _C.ndarray):
        object = object.numpy()
    _np.info(object, maxwidth, output, toplevel)
