"""NumPy's ``_core/multiarray`` functions composed here: ``copyto``,
``putmask``, ``shares_memory``/``may_share_memory``, ``packbits``/
``unpackbits`` and ``lexsort`` (stable successive argsorts). The dtype queries
of multiarray (``promote_types``, ``min_scalar_type``) are in
:mod:`pyasc._numerictypes`. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import operator as _operator

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from . import _signatures as _sig
from ._helpers import _OE, _TE, _VE, _alloc_check, _arr, _axis, _bshape, _check_sequence, _host, _norm_axis

__all__ = [
    "copyto", "putmask", "shares_memory", "may_share_memory", "packbits", "unpackbits", "lexsort",
]


def copyto(dst, src, casting="same_kind", where=True):
    """Copies ``src`` (broadcast) into ``dst`` where ``where`` holds, checking ``casting``
    (``numpy.copyto``)."""
    if not isinstance(dst, _C.ndarray):
        raise _TE(f"[copyto] argument dst must be a pyasc ndarray, not {type(dst).__name__}")
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise _VE(f"[copyto] casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', "
                         f"got {casting!r}")
    if isinstance(src, (bool, int, float, complex)) and not isinstance(src, _np.generic):
        sdt = _np.result_type(src)  # the default dtype of the Python scalar's kind
        kinds = "b iu f c".split()
        srank = [i for i, k in enumerate(kinds) if sdt.kind in k][0]
        drank = [i for i, k in enumerate(kinds) if dst.dtype.kind in k or
                 (k == "f" and dst.dtype.kind == "V")][0]
        if casting != "unsafe" and srank > drank:
            raise _TE(f"[copyto] Cannot cast scalar from {sdt!r} to {dst.dtype!r} according to the rule "
                            f"{casting!r}")
        if isinstance(src, int) and not isinstance(src, bool) and dst.dtype.kind in "iu":
            info = _np.iinfo(dst.dtype)
            if not info.min <= src <= info.max:
                raise _OE(f"[copyto] Python integer {src} out of bounds for {dst.dtype}")
        s = _C.full((), src, dst.dtype)
    else:
        s = src if isinstance(src, _C.ndarray) else _C.array(_np.asarray(src))
        if not _np.can_cast(s.dtype, dst.dtype, casting):
            raise _TE(f"[copyto] Cannot cast array data from {s.dtype!r} to {dst.dtype!r} according to the "
                            f"rule {casting!r}")
        s = s.astype(dst.dtype)
    if _bshape("copyto", s.shape, dst.shape) != dst.shape:
        raise _VE(f"[copyto] could not broadcast input array from shape {s.shape} into shape {dst.shape}")
    if where is True:
        dst[...] = s
        return None
    w = where if isinstance(where, _C.ndarray) else _C.array(_np.asarray(where))
    if w.dtype != _np.bool_:
        raise _TE(f"[copyto] where must be boolean, got {w.dtype}")
    if _bshape("copyto", w.shape, dst.shape) != dst.shape:
        raise _VE(f"[copyto] could not broadcast where mask from shape {w.shape} into shape {dst.shape}")
    dst[...] = _C.where(w, s, dst)
    return None


def putmask(a, /, mask, values):
    """Sets ``a.flat[n] = values.flat[n % values.size]`` wherever ``mask.flat[n]`` is true, in place
    (``numpy.putmask``: values repeat by flat position, not by the count of true elements; arrays of
    values must cast safely to ``a``'s dtype, a Python scalar is cast as NumPy casts it)."""
    if not isinstance(a, _C.ndarray):
        raise _TE(f"[putmask] argument a of putmask must be a pyasc ndarray, not {type(a).__name__}")
    if not a.flags.writeable:
        raise _VE(f"[putmask] assignment destination is read-only (shape {tuple(a.shape)})")
    m = _arr(mask)
    if m.size != a.size:
        raise _VE(f"[putmask] mask and data must be the same size, got {m.size} and {a.size}")
    if m.dtype != _np.bool_:
        m = _C.astype(m, _np.bool_)
    if isinstance(values, (bool, int, float, complex)) and not isinstance(values, _np.generic):
        if isinstance(values, int) and not isinstance(values, bool) and a.dtype.kind in "iu":
            info = _np.iinfo(a.dtype)
            if not info.min <= values <= info.max:
                raise _OE(f"[putmask] Python integer {values} out of bounds for {a.dtype}")
        v = _C.full((1,), values, a.dtype)  # a Python scalar is cast as NumPy casts it (unsafely)
    else:
        v = _arr(values)
        if not _np.can_cast(_np.dtype(v.dtype), _np.dtype(a.dtype), "safe"):
            raise _TE(f"[putmask] Cannot cast array data from dtype('{v.dtype}') to dtype('{a.dtype}') according "
                      f"to the rule 'safe'")
    if a.size == 0:
        return None
    if v.size == 0:
        if bool(_C.any(m)):
            raise _VE("[putmask] cannot assign from an empty values array where the mask is true")
        return None
    v = _C.reshape(v, (-1,))
    if v.size != a.size:
        reps = -(-a.size // v.size)
        v = _man.tile(v, reps)[: a.size]
    v = _C.reshape(_C.astype(v, a.dtype), tuple(a.shape))
    a[...] = _C.where(_C.reshape(m, tuple(a.shape)), v, a)
    return None


def shares_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` overlap in memory (exact) (``numpy.shares_memory``)."""
    return _np.shares_memory(_host(a), _host(b), max_work=max_work)


def may_share_memory(a, b, /, max_work=None):
    """Whether ``a`` and ``b`` might overlap (memory bounds) (``numpy.may_share_memory``)."""
    return _np.may_share_memory(_host(a), _host(b), max_work=max_work)


# ------------------------------------------------------------------ bits


def _check_bitorder(bitorder, name):
    if not isinstance(bitorder, str):  # NumPy: "pack() argument 3 must be str"
        raise _TE(f"[{name}] 'bitorder' must be str, not {type(bitorder).__name__}")
    if bitorder not in ("big", "little"):
        raise _VE(f"[{name}] 'order' must be either 'little' or 'big', got {bitorder!r}")


def _bits_axis(a, axis):
    """packbits/unpackbits: axis=None works on the flattened array."""
    if axis is None:
        return _ns.ravel(a), 0
    if a.ndim == 0:  # NumPy's PyArray_CheckAxis reads a 0-d array as 1-d
        a = _C.reshape(a, (1,))
    return a, _axis(axis, a.ndim)


def packbits(a, /, axis=None, bitorder="big"):
    """Packs the truth of the elements into the bits of a uint8 array (``numpy.packbits``)."""
    axis = _sig.axis_converter("packbits", axis)  # NumPy parses axis, then bitorder, then converts a
    _check_bitorder(bitorder, "packbits")
    a = _arr(a)
    if a.dtype.kind not in "biu":
        raise _TE(f"[packbits] Expected an input array of integer or boolean data type, got {a.dtype}")
    a, axis = _bits_axis(a, axis)
    b = _ns.moveaxis(_C.not_equal(a, 0).astype(_np.uint8), axis, -1)
    n = b.shape[-1]
    m = -(-n // 8)
    if m * 8 != n:
        b = _man.concatenate((b, _C.full(b.shape[:-1] + (m * 8 - n,), 0, _np.uint8)), axis=-1)
    w = _np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=_np.uint8)
    w = _C.array(w if bitorder == "big" else w[::-1].copy())
    packed = _C.sum(_C.multiply(b.reshape(b.shape[:-1] + (m, 8)), w), axis=-1, dtype=_np.uint8)
    return _ns.moveaxis(packed, -1, axis).copy()


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Unpacks the bits of a uint8 array into 0/1 uint8 elements (``numpy.unpackbits``)."""
    axis = _sig.axis_converter("unpackbits", axis)  # (NumPy's argument parser runs before a is converted)
    _check_bitorder(bitorder, "unpackbits")
    a = _arr(a)
    if a.dtype != _np.uint8:
        raise _TE(f"[unpackbits] Expected an input array of unsigned byte data type, got {a.dtype}")
    a, axis = _bits_axis(a, axis)
    x = _ns.moveaxis(a, axis, -1)
    shifts = _np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=_np.uint8)
    d = _C.array(shifts if bitorder == "big" else shifts[::-1].copy())
    bits = _C.remainder(_C.floor_divide(x.reshape(x.shape + (1,)), d), 2).astype(_np.uint8)
    bits = bits.reshape(x.shape[:-1] + (x.shape[-1] * 8,))
    nbits = bits.shape[-1]
    if count is not None:
        count = _operator.index(count)
        if count < 0:
            if -count > nbits:
                raise _VE(f"[unpackbits] -count ({-count}) larger than number of elements ({nbits})")
            bits = bits[..., :nbits + count]
        elif count <= nbits:
            bits = bits[..., :count]
        else:
            bits = _man.concatenate((bits, _C.full(bits.shape[:-1] + (count - nbits,), 0, _np.uint8)), axis=-1)
    return _ns.moveaxis(bits, -1, axis).copy()


def lexsort(keys, axis=-1):
    """Indices that sort by several keys, the last key primary (stable successive argsorts)."""
    try:  # NumPy converts axis before it looks at the keys
        _operator.index(axis)
    except TypeError:
        raise _TE(f"[lexsort] axis must be an integer, not {type(axis).__name__}") from None
    if isinstance(keys, _C.ndarray) or isinstance(keys, _np.ndarray):
        # NumPy takes each key with PySequence_GetItem and holds them all: a huge view's rows
        # are its MemoryError (found from the shape: the view is never iterated)
        _check_sequence("lexsort", keys, "keys")
        k = _arr(keys)
        if k.ndim == 0:
            raise _TE("[lexsort] need sequence of keys with len > 0 in lexsort")
        if k.ndim == 1:  # k.shape[0] 0-d keys: NumPy allocates a pointer per key first (a huge
            # view is its MemoryError at once, not 2**44 Python-level keys), then sorts nothing
            if k.shape[0] == 0:
                raise _TE("[lexsort] need sequence of keys with len > 0 in lexsort")
            _alloc_check("lexsort", (k.shape[0],), _np.intp)
            _norm_axis(axis, 1, "lexsort")
            return _C.full((), 0, _np.int64)
        ks = [k[i] for i in range(k.shape[0])]
    else:
        ks = [_arr(v) for v in keys]
    if not ks:
        raise _TE("[lexsort] need sequence of keys with len > 0 in lexsort")
    shp = tuple(ks[0].shape)
    for v in ks:
        if tuple(v.shape) != shp:
            raise _VE(f"[lexsort] all keys need to be the same shape (got {shp} and {tuple(v.shape)})")
    if len(shp) == 0:  # NumPy: 0-d keys sort trivially (after checking axis: an int, -1 or 0)
        _norm_axis(axis, 1, "lexsort")
        return _C.full((), 0, _np.int64)
    ax = _norm_axis(axis, len(shp), "lexsort")
    _alloc_check("lexsort", shp, _np.int64)  # NumPy allocates the intp result before it sorts
    idx = _C.argsort(ks[0], ax, False)
    for v in ks[1:]:
        perm = _C.argsort(_C.take_along_axis(v, idx, ax), ax, False)
        idx = _C.take_along_axis(idx, perm, ax)
    return idx
