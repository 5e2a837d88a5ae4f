"""NumPy's ``_core/arrayprint`` names. Printing goes through NumPy (an
ndarray's repr is NumPy's repr of a zero-copy view), so the print options are
NumPy's own. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from ._helpers import _arr, _host

__all__ = [
    "printoptions", "set_printoptions", "get_printoptions", "array2string", "array_repr", "array_str",
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
