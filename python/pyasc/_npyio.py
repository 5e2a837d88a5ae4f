"""NumPy's ``lib/_npyio_impl`` file formats on pyasc arrays: ``save``,
``load`` (``.npy`` and ``.npz``; NpzFile members load as pyasc arrays),
``savez``, ``savez_compressed``, ``loadtxt``, ``savetxt``, ``genfromtxt``,
``fromregex``, and NumPy's raw readers ``fromfile``/``fromstring``
(``_core/multiarray``).
Files are host I/O: arrays are viewed as NumPy arrays to write and copied to
the device after reading. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import functools as _functools

import numpy as _np

from . import _C
from ._helpers import _TE, _arr

__all__ = [
    "save", "load", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
    "fromfile", "fromstring", "fromregex",
]


# ------------------------------------------------------------------ files (NumPy's formats)


def save(file, arr, allow_pickle=True):
    """Writes ``arr`` to a ``.npy`` file (``numpy.save``)."""
    _np.save(file, _arr(arr).numpy(), allow_pickle=allow_pickle)


def _savez(fn, file, args, kwds):
    fn(file, *[_arr(a).numpy() for a in args], **{k: _arr(v).numpy() for k, v in kwds.items()})


def savez(file, *args, allow_pickle=True, **kwds):
    """Writes several arrays to an uncompressed ``.npz`` file (``numpy.savez``)."""
    _savez(_functools.partial(_np.savez, allow_pickle=allow_pickle), file, args, kwds)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Writes several arrays to a compressed ``.npz`` file (``numpy.savez_compressed``)."""
    _savez(_functools.partial(_np.savez_compressed, allow_pickle=allow_pickle), file, args, kwds)


class _NpzFile:
    """The arrays of an ``.npz`` file, read lazily as pyasc arrays (mapping like NumPy's NpzFile)."""

    def __init__(self, npz):
        self._npz = npz
        self.files = npz.files

    def __getitem__(self, key):
        return _C.array(self._npz[key])

    def __contains__(self, key):
        return key in self._npz

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def keys(self):
        """The array names."""
        return self._npz.keys()

    def values(self):
        """The arrays, as pyasc arrays."""
        return [self[k] for k in self.files]

    def items(self):
        """``(name, pyasc array)`` pairs."""
        return [(k, self[k]) for k in self.files]

    def get(self, key, default=None):
        """The array ``key``, or ``default``."""
        return self[key] if key in self._npz else default

    def close(self):
        """Closes the file."""
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *, max_header_size=None):
    """Reads ``.npy`` (a pyasc array) or ``.npz`` (a mapping of pyasc arrays) files (``numpy.load``)."""
    kw = {} if max_header_size is None else {"max_header_size": max_header_size}
    res = _np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, fix_imports=fix_imports,
                   encoding=encoding, **kw)
    if isinstance(res, _np.lib.npyio.NpzFile):
        return _NpzFile(res)
    if isinstance(res, _np.ndarray) and res.dtype != object:
        return _C.array(res)
    return res


def loadtxt(fname, *args, **kwargs):
    """Reads a text file into a pyasc array (``numpy.loadtxt``; same arguments)."""
    res = _np.loadtxt(fname, *args, **kwargs)
    return tuple(_C.array(r) for r in res) if isinstance(res, (tuple, list)) else _C.array(res)


def savetxt(fname, X, *args, **kwargs):
    """Writes a 1-d or 2-d array to a text file (``numpy.savetxt``; same arguments)."""
    _np.savetxt(fname, _arr(X).numpy(), *args, **kwargs)


def genfromtxt(fname, *args, **kwargs):
    """Reads a text file with missing-value handling into a pyasc array (``numpy.genfromtxt``)."""
    res = _np.genfromtxt(fname, *args, **kwargs)
    if isinstance(res, _np.ndarray) and res.dtype.names is None and res.dtype != object:
        return _C.array(res)
    return res


def _no_like(like, name):
    if like is not None:
        raise _TE(f"[{name}] like= is not supported by pyasc")


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """A 1-d array read from a binary (``sep=''``) or text file (``numpy.fromfile``; the file is
    parsed on the host by NumPy and the values copied to the device)."""
    _no_like(like, "fromfile")
    return _C.array(_np.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep="", like=None):
    """A 1-d array parsed from the text ``string`` with separator ``sep`` (``numpy.fromstring``;
    NumPy 2 no longer reads binary strings: ``sep=''`` raises ValueError there and here; use
    :func:`pyasc.frombuffer`). Parsed on the host, copied to the device."""
    _no_like(like, "fromstring")
    return _C.array(_np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromregex(file, regexp, dtype, encoding=None):
    """An array of the regular-expression groups matched in a text file (``numpy.fromregex``; a
    structured ``dtype`` gives NumPy's structured array, which pyasc cannot hold, so only a plain
    dtype returns a pyasc array)."""
    res = _np.fromregex(file, regexp, dtype, encoding=encoding)
    if res.dtype.names is None:
        return _C.array(res)
    return res
