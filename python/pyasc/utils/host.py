"""Host (NumPy) copies of pyasc arrays for quick checks."""

from __future__ import annotations

import numpy as _np

__all__ = ["numpy"]


def numpy(x):
    """A NumPy COPY of ``x`` (a pyasc array, or anything :func:`pyasc.asarray` takes),
    never a view: writing into the result leaves ``x`` alone, writing into ``x`` later
    leaves the result alone. Pending lazy work is computed first; the dtype is kept
    (bfloat16 as ``ml_dtypes.bfloat16``); the copy is C-contiguous and writable."""
    from .. import _C  # noqa: PLC0415 - pyasc imports this package first

    t = x if isinstance(x, _C.ndarray) else _C.asarray(x, None, None)
    return _np.array(t.numpy(), copy=True, order="C")
