"""Manipulation, gather/scatter and NaN-aware reductions of the namespace.

The functions that move data run in C++ (``pyasc._C``: ``concatenate``,
``take``, ``take_along_axis``, ``put_along_axis``, ``put``, ``repeat``, the
parallel copy behind ``tile``, and the ``nan*`` reductions); this module adds
NumPy's argument handling, the functions that are views or compositions of
those (``stack``, ``split``, ``pad``, ``roll``, ``diag``, ...) and NumPy's
RuntimeWarnings for all-NaN slices. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import operator as _operator
import warnings as _warnings

import numpy as _np

from . import _C
from . import _namespace as _ns
from . import _signatures as _sig
from ._helpers import _BF16, _IE, _TE, _VE, _check_sequence
from ._helpers import _VE as _VE_tile
from ._helpers import _axes as _axes_tuple
from ._helpers import _norm_axis

__all__ = [
    "concatenate", "concat", "stack", "hstack", "vstack", "dstack", "column_stack",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack",
    "tile", "repeat", "pad", "roll", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d",
    "diag", "diagflat", "take", "take_along_axis", "put_along_axis", "put", "compress", "extract", "place",
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
    "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod",
]


_arr = _ns._arr
_axis = _ns._axis


# ------------------------------------------------------------------ joining


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Joins arrays along an existing axis (``axis=None``: flattened first); one C++ copy kernel."""
    if isinstance(axis, (bool, _np.bool_)):  # NumPy's PyArray_AxisConverter, before the arrays are read
        raise _TE(f"[concatenate] an integer is required for the axis (got {axis!r})")
    # an array as the sequence: NumPy makes an object per row first, which a huge broadcast view
    # (2**31 rows of 2**31) cannot give (MemoryError); pyasc says so without iterating it
    _check_sequence("concatenate", arrays)
    return _C.concatenate(arrays, axis, out, dtype=dtype, casting=casting)


concat = concatenate


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Joins arrays of one shape along a new axis."""
    _check_sequence("stack", arrays)
    arrs = [_arr(a) for a in arrays]
    if not arrs:
        raise ValueError("need at least one array to stack")
    if _builtins.any(a.shape != arrs[0].shape for a in arrs):
        raise ValueError("all input arrays must have the same shape")
    axis = _axis(axis, arrs[0].ndim + 1)
    return _C.concatenate([_C.expand_dims(a, axis) for a in arrs], axis, out, dtype=dtype, casting=casting)


def atleast_1d(*arys):
    """Views of the inputs with at least one dimension (a tuple for several inputs)."""
    res = tuple(_C.reshape(a, (1,)) if a.ndim == 0 else a for a in map(_arr, arys))
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    """Views with at least two dimensions: 0-d -> (1, 1), 1-d (n,) -> (1, n)."""
    res = []
    for a in map(_arr, arys):
        if a.ndim == 0:
            a = _C.reshape(a, (1, 1))
        elif a.ndim == 1:
            a = _C.expand_dims(a, 0)
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys):
    """Views with at least three dimensions: 0-d -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    res = []
    for a in map(_arr, arys):
        if a.ndim == 0:
            a = _C.reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = _C.reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = _C.expand_dims(a, 2)
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def _seq(tup, name):
    if isinstance(tup, (_C.ndarray, _np.ndarray)):  # NumPy iterates an array along its first axis
        if tup.ndim == 0:
            raise _TE(f"[{name}] arrays to {name} must be passed as a sequence type such as list or tuple "
                      "(got a 0-d array)")
        if tup.shape[0] > 1 << 28:
            from .errors import AscendMemoryError, ErrorCode
            raise AscendMemoryError(ErrorCode.BAD_ALLOC, f"[{name}] an array of {tup.shape[0]} rows as the "
                                    "sequence of arrays: too many to hold")
        return list(tup)
    if not hasattr(tup, "__iter__"):
        raise _TE(f"[{name}] arrays to {name} must be passed as a sequence type such as list or tuple.")
    return list(tup)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Stacks arrays horizontally (along axis 1, axis 0 for 1-d inputs)."""
    arrs = [atleast_1d(a) for a in _seq(tup, "hstack")]
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return _C.concatenate(arrs, axis, None, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Stacks arrays vertically (along axis 0 after atleast_2d)."""
    return _C.concatenate([atleast_2d(a) for a in _seq(tup, "vstack")], 0, None, dtype=dtype, casting=casting)


def dstack(tup):
    """Stacks arrays along the third axis (after atleast_3d)."""
    return _C.concatenate([atleast_3d(a) for a in _seq(tup, "dstack")], 2)


def column_stack(tup):
    """Stacks 1-d arrays as columns (2-d arrays as they are) into a 2-d array."""
    arrs = []
    for a in map(_arr, _seq(tup, "column_stack")):
        if a.ndim < 2:
            a = _C.reshape(a, (-1, 1))
        arrs.append(a)
    return _C.concatenate(arrs, 1)


# ------------------------------------------------------------------ splitting (views)


def _sections(v):
    """A number of sections as NumPy's split takes it: an integer, or a float (split tests
    ``N % sections``, array_split takes ``int(sections)``; NaN/inf are int()'s errors)."""
    if isinstance(v, (float, _np.floating)):
        return v
    return _operator.index(v)


def _int_sections(v):
    """array_split's int(sections), its errors as pyasc's (NumPy's classes)."""
    try:
        return int(_sections(v))
    except TypeError as e:
        raise _TE(f"[array_split] {e} (indices_or_sections {v!r})") from None
    except OverflowError as e:
        from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[array_split] {e}") from None
    except ValueError as e:
        raise _VE(f"[array_split] {e}") from None


def array_split(ary, indices_or_sections, axis=0):
    """Views of ``ary`` split along ``axis``: N nearly equal sections, or at the given indices."""
    if not hasattr(ary, "shape"):
        # NumPy takes len() of a non-array first: a Python scalar is its TypeError, before the axis
        try:
            len(ary)
        except TypeError:
            raise _TE(f"[array_split] ary must be an array or a sequence, not {type(ary).__name__}") from None
        try:
            len(indices_or_sections)
        except TypeError:
            # NumPy takes int(sections) before it converts a non-array ary (swapaxes): a bad number of
            # sections is int()'s error even for a ragged list
            if _int_sections(indices_or_sections) <= 0:
                raise _VE("[array_split] number sections must be larger than 0.") from None
    x = _arr(ary)
    axis = _axis(axis, x.ndim)
    n = x.shape[axis]
    # NumPy iterates indices_or_sections (len() split points: the first dimension's length)
    shape = getattr(indices_or_sections, "shape", None)
    count = shape[0] if isinstance(shape, tuple) and len(shape) > 0 else None
    if isinstance(count, int) and count > 1 << 28:
        # one view per index: a huge (broadcast) index array is NumPy's MemoryError, not a 2**63-step loop
        from .errors import AscendMemoryError, ErrorCode
        raise AscendMemoryError(ErrorCode.BAD_ALLOC, f"[array_split] {count} split points give {count + 1} "
                                "sub-arrays: too many to hold")
    try:
        bounds = [0] + [_operator.index(i) for i in indices_or_sections] + [n]
    except TypeError:
        sections = _int_sections(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extra = divmod(n, sections)
        sizes = [0] + extra * [each + 1] + (sections - extra) * [each]
        bounds = list(_np.cumsum(sizes))
    lead = (slice(None),) * axis
    return [x[lead + (slice(int(bounds[i]), int(bounds[i + 1])),)] for i in range(len(bounds) - 1)]


def split(ary, indices_or_sections, axis=0):
    """As array_split, but an integer number of sections must divide the axis exactly."""
    x = _arr(ary)
    try:  # NumPy: anything without a len() (an int, a 0-d array) is a number of sections
        len(indices_or_sections)
        is_count = False
    except TypeError:
        is_count = True
    if is_count:
        # NumPy reads N = ary.shape[axis] first: a tuple index, so a 0-d array, an axis out of range
        # or beyond an index-sized integer are tuple indexing's IndexError, a float axis its TypeError
        try:
            n = tuple(x.shape)[axis]
        except IndexError as e:
            raise _IE(f"[split] {e}") from None
        except TypeError as e:
            raise _TE(f"[split] {e}") from None
        sections = _sections(indices_or_sections)
        if sections == 0:  # NumPy: N % sections -- a Python int's ZeroDivisionError, a NumPy integer's
            # (a 0-d array's) silent modulo then array_split's "number sections must be larger than 0"
            if isinstance(indices_or_sections, (int, float)) and not isinstance(indices_or_sections, _np.generic):
                raise ZeroDivisionError("[split] integer modulo by zero: the number of sections must be larger "
                                        "than 0")
            raise _VE_tile("[split] number sections must be larger than 0.")
        if sections < 0:
            raise ValueError("number sections must be larger than 0.")
        if n % sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(x, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """split along axis 1 (axis 0 for 1-d arrays)."""
    x = _arr(ary)
    if x.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """split along axis 0 (arrays of 2 or more dimensions)."""
    x = _arr(ary)
    if x.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(x, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """split along axis 2 (arrays of 3 or more dimensions)."""
    x = _arr(ary)
    if x.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(x, indices_or_sections, 2)


def unstack(x, /, *, axis=0):
    """The views x[..., i, ...] along ``axis``, as a tuple."""
    x = _arr(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    # NumPy: tuple(moveaxis(x, axis, 0)), the axis read by normalize_axis_tuple (an array of axes
    # is iterated), then as many sources as destinations
    if axis is None:  # (normalize_axis_tuple iterates None: TypeError)
        raise TypeError("[unstack] 'NoneType' object is not iterable (axis)")
    src = _axes_tuple(axis, x.ndim, "unstack")
    if len(src) != 1:
        raise _VE_tile(f"[unstack] `source` and `destination` arguments must have the same number of elements "
                       f"(axis {axis!r})")
    axis = src[0]
    _check_sequence("unstack", x, axis=axis)  # (NumPy's tuple() of the views along axis)
    lead = (slice(None),) * axis
    return tuple(x[lead + (i,)] for i in range(x.shape[axis]))


# ------------------------------------------------------------------ repetition, padding


_LOOSE_REPS = (str, float, complex, _np.floating, _np.complexfloating)


def _tile_loose_reps(x, reps):
    """Float or str repetitions as NumPy's tile meets them: all equal to 1, a copy; else, for a
    non-empty A, each rep != 1 is given to ndarray.repeat in order (a str that int() cannot read is
    its ValueError, a Python float NaN too, an infinity its OverflowError, a negative count
    'negative dimensions'), and the output shape -- extent * rep, a float or a str for such a rep --
    is the final reshape's TypeError, naming the first such rep (an empty A repeats nothing: the
    reshape's TypeError alone)."""
    if _builtins.all(r == 1 for r in reps):
        return (1,) * len(reps)
    if x.size:
        # NumPy's loop: for each (extent, rep) of the padded shape, c.reshape(-1, n).repeat(rep, 0);
        # repeat's total count (rows * rep, wrapping in intp) below zero is 'negative dimensions'
        nd = _builtins.max(x.ndim, len(reps))
        shape = (1,) * (nd - x.ndim) + tuple(x.shape)
        n = csize = x.size
        for dim_in, r in zip(shape, (1,) * (nd - len(reps)) + tuple(reps)):
            if r == 1:
                n //= dim_in
                continue
            if isinstance(r, str):
                try:
                    r = int(r)
                except ValueError as e:
                    raise _VE_tile(f"[tile] {e} (reps {reps})") from None
            if isinstance(r, (_np.floating, _np.complexfloating)):
                # repeat casts a NumPy float/complex to intp: the real part truncated, NaN/inf (and
                # beyond intp) the most negative intp
                v = r.real
                count = int(v) if _math.isfinite(v) and -(1 << 63) <= int(v) < (1 << 63) else -(1 << 63)
            elif isinstance(r, complex):  # (repeat's int() of a Python complex)
                raise _TE(f"[tile] int() argument must be a string, a bytes-like object or a real number, not "
                          f"'complex' (reps {reps})")
            elif type(r) is float and _math.isnan(r):  # (a Python float is int()-converted)
                raise _VE_tile("[tile] cannot convert float NaN to integer (reps)")
            elif type(r) is float and _math.isinf(r):
                from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

                raise AscendOverflowError(ErrorCode.OVERFLOW, "[tile] cannot convert float infinity to integer (reps)")
            else:
                count = int(r)
            total = (csize // n * count + (1 << 63)) % (1 << 64) - (1 << 63)
            if total < 0:
                raise _VE_tile(f"[tile] negative dimensions are not allowed (reps {reps})")
            csize = total * n
            n //= dim_in
    first = next(r for r in reps if isinstance(r, _LOOSE_REPS))
    kind = type(first).__name__ if isinstance(first, _np.generic) else "str" if isinstance(first, str) else \
        "complex" if isinstance(first, complex) else "float"
    raise _TE(f"[tile] '{kind}' object cannot be interpreted as an integer (reps {reps}: NumPy's output shape "
              f"holds {kind} extents)")


def _tile_sequence_reps(x, reps):
    """A list/tuple repetition as NumPy's tile meets it (always raises): ``[2] == 1`` is False, so
    for a non-empty A each rep != 1 goes to ``c.reshape(-1, n).repeat(rep, 0)`` in order -- a list
    repeats row by row (broadcast to the rows, ragged or negative: repeat's errors) -- and the output
    shape (extent * list: a list) is the final reshape's TypeError. The repeats are checked on an
    empty stand-in of the same row count (no data: only the count matters to repeat)."""
    if x.size:
        nd = _builtins.max(x.ndim, len(reps))
        shape = (1,) * (nd - x.ndim) + tuple(x.shape)
        n = csize = x.size
        for dim_in, r in zip(shape, (1,) * (nd - len(reps)) + tuple(reps)):
            if isinstance(r, (list, tuple)) or r != 1:
                try:
                    csize = _np.empty((csize // n, 0), bool).repeat(r, 0).shape[0] * n
                except ValueError as e:
                    raise _VE(f"[tile] {e} (reps {reps!r} of an array of shape {tuple(x.shape)})") from None
                except TypeError as e:
                    raise _TE(f"[tile] {e} (reps {reps!r})") from None
            n //= dim_in
    kind = next(type(r).__name__ for r in reps if isinstance(r, (list, tuple)))
    raise _TE(f"[tile] '{kind}' object cannot be interpreted as an integer (reps {reps!r}: NumPy's output shape "
              f"holds {kind} extents)")


def tile(A, reps):  # noqa: N803 - NumPy's name
    """``A`` repeated ``reps`` times per axis: a broadcast view copied once on all cores."""
    x = _arr(A)
    if x.size > 1 << 32:  # NumPy copies A (array(A, ndmin=len(reps))) before it reads reps' values
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("tile", x.shape, x.dtype)
        _C.empty(tuple(x.shape), x.dtype)
    try:  # NumPy: tup = tuple(reps), or (reps,) for what is not iterable (a 0-d array, a number)
        n_reps = len(reps)
    except TypeError:
        n_reps = None
    if n_reps is not None and n_reps > 64:
        # NumPy makes a tuple of reps (a huge view: a tuple it cannot allocate, MemoryError at
        # once), then array(A, ndmin=len(reps)) refuses more than 64 dimensions
        if len(reps) > 1 << 32:
            from .errors import AscendMemoryError, ErrorCode  # noqa: PLC0415

            raise AscendMemoryError(ErrorCode.BAD_ALLOC, f"[tile] cannot make a tuple of {len(reps)} repetitions")
        raise _VE_tile(f"[tile] ndmin must be <= ndmax (64), got {len(reps)} repetitions")
    if isinstance(reps, _C.ndarray) and reps.ndim == 1:
        # tuple() of a NumPy array gives NumPy scalars (a complex64 one is cast by repeat, a float
        # one too): the same entries here, not 0-d pyasc arrays
        reps = tuple(reps.numpy())
    reps = tuple(reps) if n_reps is not None else (reps,)
    if _builtins.any(isinstance(r, (_C.ndarray, _np.ndarray)) and r.ndim >= 1 for r in reps):
        # NumPy tests all(x == 1 for x in reps) first, entry by entry until one is false (an entry of
        # several or no elements: the truth-value ValueError; all ones: a copy), then repeats by each
        # entry: an array entry of more than one dimension is too deep
        host = [r.numpy() if isinstance(r, _C.ndarray) else r for r in reps]
        all_ones = True
        for r in host:
            try:
                one = _builtins.bool(_np.asarray(r) == 1)
            except ValueError as e:
                raise _VE_tile(f"[tile] {e}") from None
            if not one:
                all_ones = False
                break
        if all_ones:
            reps = (1,) * len(reps)
        elif x.size > 0:
            # NumPy's repeat loop, entry by entry: `if nrep != 1` (an array of several or no elements:
            # the truth-value ValueError), then c.repeat(nrep) (a one-element array of 2+ dimensions
            # is too deep); a non-integer or negative entry fails there first (the paths below)
            for r in host:
                if not isinstance(r, _np.ndarray) or r.ndim == 0:
                    if isinstance(r, _LOOSE_REPS):
                        break
                    if _operator.index(r) < 0:
                        raise _VE_tile("[tile] negative dimensions are not allowed")
                    continue
                if r.size != 1:
                    raise _VE_tile(f"[tile] The truth value of an array with "
                                   f"{'more than one element' if r.size else 'no elements'} is ambiguous")
                if r.ndim > 1 and _builtins.bool(r.reshape(()) != 1):
                    raise _VE_tile("[tile] object too deep for desired array (a repetition given as an array of "
                                   "arrays)")
    if _builtins.any(isinstance(r, (list, tuple)) for r in reps):
        _tile_sequence_reps(x, reps)
    if _builtins.any(isinstance(r, _LOOSE_REPS) for r in reps):
        reps = _tile_loose_reps(x, reps)
    reps = tuple(_operator.index(r) for r in reps)
    if x.size == 0:
        # NumPy repeats nothing for an empty A: it reshapes it to the Python product shape, whose
        # extent beyond intp is its "Maximum allowed dimension exceeded" ValueError (a 0 extent
        # times 2**100 is 0: accepted)
        nd0 = _builtins.max(x.ndim, len(reps))
        prod = [r * s for r, s in zip((1,) * (nd0 - len(reps)) + reps, (1,) * (nd0 - x.ndim) + tuple(x.shape))]
        if _builtins.any(not -(1 << 63) <= d < (1 << 63) for d in prod):
            raise _VE_tile(f"[tile] Maximum allowed dimension exceeded (shape {tuple(prod)})")
        if _builtins.any(not -(1 << 63) <= r < (1 << 63) for r in reps) and _builtins.all(d >= 0 for d in prod):
            return _C.empty(tuple(prod), x.dtype)  # (reps never read as C longs: an empty result)
    for r in reps:  # NumPy's shape arithmetic reads each as a C long
        if not -(1 << 63) <= r < (1 << 63):
            from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[tile] Python int too large to convert to C long ({r})")
    nd = _builtins.max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - x.ndim) + x.shape
    if _builtins.any(r < 0 for r in reps):
        if x.size == 0:
            # NumPy repeats nothing for an empty A and reshapes it to the product shape: a negative
            # rep times a zero extent is 0 (accepted), any other negative extent its reshape error
            out_shape = tuple(r * s for r, s in zip(reps, shape))
            if _builtins.any(d < 0 for d in out_shape):
                raise _VE_tile(f"[tile] cannot reshape array of size 0 into shape {out_shape}")
            return _C.reshape(x, out_shape).copy()
        raise ValueError("negative dimensions are not allowed")
    inter = []
    for s in shape:
        inter += [1, s]
    big = []
    for r, s in zip(reps, shape):
        big += [r, s]
    src = _C.broadcast_to(_C.reshape(x, tuple(inter)), tuple(big))
    out = _C.empty(tuple(big), x.dtype)
    _C._copy_into(out, src)
    return _C.reshape(out, tuple(r * s for r, s in zip(reps, shape)))


def repeat(a, repeats, axis=None):
    """Each element repeated ``repeats`` times (an int or one count per element) along ``axis``."""
    if axis is not None and not isinstance(axis, int):
        axis = _operator.index(axis)  # NumPy converts the axis before the counts (TypeError first)
    if axis is not None and not -(1 << 31) <= axis < (1 << 31):
        # PyArray_AxisConverter reads a C int (PyLong_AsLong first: 'C long' beyond int64)
        from .errors import AscendOverflowError, AscendValueError, ErrorCode  # noqa: PLC0415

        if not -(1 << 63) <= axis < (1 << 63):
            raise AscendOverflowError(ErrorCode.OVERFLOW, "[repeat] Python int too large to convert to C long (axis)")
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[repeat] integer won't fit into a C int (axis={axis})")
    if axis is not None and _np.ndim(a) == 0:  # PyArray_CheckAxis: a 0-d array is read as 1-d
        a = _C.reshape(_arr(a), (1,))
    counts = _repeat_counts(repeats)
    if isinstance(a, _C.ndarray) and a.size > 1 << 32 and not a.is_contiguous() and _np.ndim(counts) <= 1:
        # (NumPy's PyArray_Repeat makes a C-contiguous copy of the view once the counts are read,
        # whatever their length: a huge view is its MemoryError)
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("repeat", tuple(a.shape), a.dtype)
        _C.empty(tuple(a.shape), a.dtype)
    if isinstance(a, _C.ndarray) and a.size > 1 << 32 and _np.ndim(counts) == 0:
        # a huge broadcast view: NumPy allocates the result first (its MemoryError / "too big")
        from ._helpers import _alloc_check, _norm_axis  # noqa: PLC0415

        r = int(counts)
        if axis is None:
            shape = (a.size * r,)
        else:
            ax = _norm_axis(axis, a.ndim, "repeat")
            shape = tuple(n * r if i == ax else n for i, n in enumerate(a.shape))
        if r >= 0:
            _alloc_check("repeat", shape, a.dtype)
            _C.empty(shape, a.dtype)
    return _C.repeat(a, counts, axis)


def _repeat_counts(repeats):
    """NumPy's reading of ``repeats``: an array must cast safely to int64 (uint64 and float
    arrays are a TypeError); any other object (a str '2', a float, a list of str) is
    converted with int64 as the target, as np.repeat does."""
    if isinstance(repeats, int):
        return repeats
    if isinstance(repeats, (_np.ndarray, _C.ndarray)):
        dt = _np.dtype(repeats.dtype)
        if repeats.ndim > 1:  # (PyArray_ContiguousFromAny(repeats, intp, 0, 1): the depth first)
            raise _VE_tile(f"[repeat] object too deep for desired array (repeats of shape {tuple(repeats.shape)})")
        if not _np.can_cast(dt, _np.int64, "safe"):
            what = "scalar" if repeats.ndim == 0 else "array data"
            raise TypeError(f"repeat: Cannot cast {what} from dtype('{dt}') to dtype('int64') "
                            f"according to the rule 'safe'")
        return repeats
    try:
        return _np.asarray(repeats, dtype=_np.int64)
    except (TypeError, ValueError, OverflowError) as e:
        raise type(e)(f"repeat: repeats {repeats!r} is not an integer count: {e}") from None


def _pad_pairs(width, ndim, name, integral=True):
    if integral and isinstance(width, _C.ndarray) and _np.dtype(width.dtype).kind != "i":
        # (checked on the dtype: a huge broadcast view is never copied to the host)
        raise _TE(f"[pad] `{name}` must be of integral type (got dtype {width.dtype}).")
    w = _np.asarray(width)
    if integral and w.dtype.kind != "i":  # NumPy: signed integers only (a bool, a 2**63 uint64 refused)
        raise _TE(f"[pad] `{name}` must be of integral type (got dtype {w.dtype}).")
    # NumPy checks the widths before broadcasting (pad of a 0-d array with (4, -1) raises too)
    if integral and (w < 0).any():
        raise ValueError("index can't contain negative values")
    try:
        pairs = _np.broadcast_to(w, (ndim, 2))
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes [original->remapped]: "
                         f"{w.shape} and requested shape ({ndim},2)") from None
    if integral and (pairs < 0).any():
        raise ValueError("index can't contain negative values")
    return pairs


def _check_padded_size(x, pairs):
    """The padded shape in Python ints: past int64 (elements or bytes) is NumPy's ValueError, never a
    wrapped length (pad(ones(4), (2**62, 2**62)) gave shape (0,))."""
    from . import errors as _errors

    shape = [int(s) + int(b) + int(a) for s, (b, a) in zip(x.shape, pairs)]
    n = 1
    for d in shape:
        n *= d
    if _builtins.max(shape, default=0) > 2**63 - 1 or n * x.itemsize > 2**63 - 1:
        raise _errors.AscendValueError(
            _errors.ErrorCode.INVALID_SHAPE,
            f"[pad] array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size "
            f"(padded shape {tuple(shape)})")


def _pad_index(n, before, after, mode):
    from . import errors as _errors

    try:
        i = _np.arange(-before, n + after)
    except MemoryError as e:  # representable but larger than memory (NumPy's pad: MemoryError)
        raise _errors.AscendMemoryError(_errors.ErrorCode.BAD_ALLOC, f"[pad] {e}") from None
    if mode == "edge":
        return _np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    if mode == "symmetric":
        j = i % (2 * n)
        return _np.where(j >= n, 2 * n - 1 - j, j)
    # reflect (about the edge values, which are not repeated)
    if n == 1:
        return _np.zeros_like(i)
    p = 2 * (n - 1)
    j = i % p
    return _np.where(j >= n, p - j, j)


def _pad_stat_pairs(length, ndim):
    """NumPy's ``stat_length`` pairs: None (the whole axis) or non-negative ints (rounded)."""
    if length is None:
        return ((None, None),) * ndim
    w = _np.round(_np.asarray(length)).astype(_np.intp)
    try:
        pairs = _np.broadcast_to(w, (ndim, 2))
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes [original->remapped]: "
                         f"{w.shape} and requested shape ({ndim},2)") from None
    if (pairs < 0).any():
        raise ValueError("index can't contain negative values")
    return tuple((int(b), int(a)) for b, a in pairs)


def _at(axis, sl):
    return (slice(None),) * axis + (sl,)


def _pad_median(chunk, axis):
    """NumPy's median along ``axis`` (keepdims): the mean of the middle element(s) of the
    sorted slice (float64 for integer input), NaN when the slice holds a NaN."""
    n = chunk.shape[axis]
    if n == 0:
        return _C.mean(chunk, axis, None, None, True)
    s = _C.sort(chunk, axis, False)
    mid = n // 2
    middle = s[_at(axis, slice(mid - 1, mid + 1) if n % 2 == 0 else slice(mid, mid + 1))]
    m = _C.mean(middle, axis, None, None, True)
    if _np.dtype(chunk.dtype).kind not in "biu":
        last = s[_at(axis, slice(n - 1, n))]
        m = _C.where(_C.isnan(last), last, m)
    return m


def _pad_stat(chunk, axis, mode, dtype):
    if mode == "maximum":
        return _C.max(chunk, axis, None, None, True)
    if mode == "minimum":
        return _C.min(chunk, axis, None, None, True)
    st = _C.mean(chunk, axis, None, None, True) if mode == "mean" else _pad_median(chunk, axis)
    if dtype.kind in "iu":
        st = _C.rint(st)  # NumPy rounds (half to even) before the integer cast
    return st


def _pad_ramp(edge, end, width, axis, dtype):
    """``numpy.linspace(end, edge, width, endpoint=False, dtype=dtype, axis=axis)`` for the
    edge slice ``edge`` (length 1 along axis) and a scalar ``end``: computed in float64
    (complex128 for complex arrays; the end values are NumPy scalars), floored for integer
    dtypes."""
    shape = [1] * edge.ndim
    shape[axis] = width
    i = _C.asarray(_np.arange(width, dtype=_np.float64).reshape(shape))
    cplx = dtype.kind == "c"  # complex arrays ramp in complex128 (NumPy's linspace dtype)
    start = complex(end) if cplx else float(end)
    delta = _C.subtract(_C.astype(edge, _np.complex128 if cplx else _np.float64, True), start)
    step = _C.true_divide(delta, width)
    if bool(_C.any(_C.equal(step, 0))):
        y = _C.multiply(_C.true_divide(i, width), delta)
    else:
        y = _C.multiply(i, step)
    y = _C.add(y, start)
    if dtype.kind in "iu":
        y = _C.floor(y)
    return _C.astype(y, dtype, True)


def _pad_compute(x, pairs, mode, kwargs):
    """The linear_ramp and statistic modes, as NumPy computes them: an empty padded array
    with x in its centre, then per axis the pad areas of the region of interest (earlier
    axes already padded, later ones only their original extent) from that region."""
    shape = tuple(int(s + b + a) for s, (b, a) in zip(x.shape, pairs))
    out = _C.empty(shape, x.dtype)
    center = tuple(slice(int(b), int(b) + s) for s, (b, _) in zip(x.shape, pairs))
    _C._copy_into(out[center], x)
    if x.size == 0:
        return out
    dtype = _np.dtype(x.dtype)
    if mode == "linear_ramp":
        ends = _pad_pairs(kwargs.get("end_values", 0), x.ndim, "end_values", integral=False)
    else:
        lengths = _pad_stat_pairs(kwargs.get("stat_length"), x.ndim)
    for ax, (b, a) in enumerate(pairs):
        b, a = int(b), int(a)
        roi = out[(slice(None),) * (ax + 1) + center[ax + 1:]]
        lo, hi = b, roi.shape[ax] - a
        if mode == "linear_ramp":
            if b:
                roi[_at(ax, slice(0, b))] = _pad_ramp(roi[_at(ax, slice(lo, lo + 1))], ends[ax][0], b, ax, dtype)
            if a:
                r = _pad_ramp(roi[_at(ax, slice(hi - 1, hi))], ends[ax][1], a, ax, dtype)
                roi[_at(ax, slice(hi, hi + a))] = r[_at(ax, slice(None, None, -1))]
            continue
        if not (b or a):
            continue
        n = hi - lo
        lb, la = lengths[ax]
        lb = n if lb is None or lb > n else lb
        la = n if la is None or la > n else la
        if (lb == 0 or la == 0) and mode in ("maximum", "minimum"):
            raise ValueError("stat_length of 0 yields no value for padding")
        left = _pad_stat(roi[_at(ax, slice(lo, lo + lb))], ax, mode, dtype)
        right = left if lb == la == n else _pad_stat(roi[_at(ax, slice(hi - la, hi))], ax, mode, dtype)
        if b:
            roi[_at(ax, slice(0, b))] = left
        if a:
            roi[_at(ax, slice(hi, hi + a))] = right
    return out


def _pad_reflect_odd(x, pairs, include_edge):
    """'reflect'/'symmetric' with ``reflect_type='odd'``, NumPy's iterative algorithm: per
    axis, chunks of at most the original period are mirrored out of the already padded part
    of the region of interest as ``2 * edge - chunk`` (in the array's dtype, so integers
    wrap as NumPy's do); the edge moves outwards with each chunk, so wide pads keep rising
    or falling instead of repeating. A length-1 axis repeats its value (NumPy's legacy)."""
    shape = tuple(int(s + b + a) for s, (b, a) in zip(x.shape, pairs))
    out = _C.empty(shape, x.dtype)
    center = tuple(slice(int(b), int(b) + s) for s, (b, _) in zip(x.shape, pairs))
    _C._copy_into(out[center], x)
    for ax, (b, a) in enumerate(pairs):
        left, right = int(b), int(a)
        roi = out[(slice(None),) * (ax + 1) + center[ax + 1:]]
        period = x.shape[ax]
        if period == 1:
            edge = roi[_at(ax, slice(left, left + 1))]
            if left:
                roi[_at(ax, slice(0, left))] = edge
            if right:
                roi[_at(ax, slice(left + 1, left + 1 + right))] = edge
            continue
        size = roi.shape[ax]
        while left > 0 or right > 0:
            old = size - left - right
            if include_edge:
                old = old // period * period
                offset = 1
            else:
                old = (old - 1) // (period - 1) * (period - 1)
                offset = 0
            if left > 0:
                n = _builtins.min(old, left)
                stop = left - offset
                chunk = roi[_at(ax, slice(stop + n, stop, -1))]
                edge = roi[_at(ax, slice(left, left + 1))]
                roi[_at(ax, slice(left - n, left))] = _C.subtract(_C.multiply(edge, 2), chunk)
                left -= n
            if right > 0:
                n = _builtins.min(old, right)
                # NumPy's slice(-right + offset - 2, ... - n, -1) as positive indices.
                start = size - right + offset - 2
                chunk = roi[_at(ax, slice(start, start - n, -1) if start - n >= 0 else slice(start, None, -1))]
                edge = roi[_at(ax, slice(size - right - 1, size - right))]
                roi[_at(ax, slice(size - right, size - right + n))] = _C.subtract(_C.multiply(edge, 2), chunk)
                right -= n
    return out


def _pad_callable(x, pairs, function, kwargs):
    """NumPy's ``pad(a, pad_width, function, **kwargs)``: a zero-filled padded copy, then
    ``function(vector, iaxis_pad_width, iaxis, kwargs)`` for every 1-D slice along each axis
    in turn (C order of the other axes), the vector being a writable pyasc view that the
    function fills in place."""
    shape = tuple(int(s + b + a) for s, (b, a) in zip(x.shape, pairs))
    out = _C.full(shape, 0, x.dtype)
    center = tuple(slice(int(b), int(b) + s) for s, (b, _) in zip(x.shape, pairs))
    _C._copy_into(out[center], x)
    widths = _np.array(pairs, dtype=_np.intp).reshape(x.ndim, 2)
    for ax in range(out.ndim):
        view = _C.transpose(out, tuple(i for i in range(out.ndim) if i != ax) + (ax,))
        for ind in _np.ndindex(*view.shape[:-1]):
            function(view[ind + (Ellipsis,)], widths[ax], ax, kwargs)
    return out


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded per axis by ``pad_width`` ((before, after) pairs) with NumPy's modes
    'constant' (``constant_values``), 'edge', 'linear_ramp' (``end_values``), 'maximum',
    'mean', 'median', 'minimum' (``stat_length``), 'reflect', 'symmetric' (``reflect_type``
    'even' or 'odd'), 'wrap' or 'empty', or a callable ``function(vector, iaxis_pad_width,
    iaxis, kwargs)`` that fills each 1-D slice in place (NumPy's protocol)."""
    x = _arr(array)
    pairs = _pad_pairs(pad_width, x.ndim, "pad_width")
    _check_padded_size(x, pairs)
    allowed = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
               "maximum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
               "minimum": {"stat_length"}}
    if callable(mode):
        return _pad_callable(x, pairs, mode, kwargs)
    if mode not in allowed:
        raise _VE_tile(f"[pad] mode '{mode}' is not supported")
    extra = set(kwargs) - allowed[mode]
    if extra:
        raise _VE_tile(f"[pad] unsupported keyword arguments for mode '{mode}': {extra}")
    odd = kwargs.get("reflect_type", "even") == "odd"
    padded = tuple(int(s + b + a) for s, (b, a) in zip(x.shape, pairs))
    if _np.prod(padded, dtype=object) > 1 << 32:
        # NumPy allocates the padded result (np.empty) before any mode's work: a huge one is its
        # MemoryError there (pyasc built a 2**62-entry index vector first: ValueError)
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("pad", padded, x.dtype)
    if mode not in ("constant", "empty") and x.size == 0:
        for ax, (b, a) in enumerate(pairs):
            if x.shape[ax] == 0 and (b or a):
                raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'")
    if mode in ("linear_ramp", "maximum", "mean", "median", "minimum"):
        return _pad_compute(x, pairs, mode, kwargs)
    if odd and mode in ("reflect", "symmetric"):
        return _pad_reflect_odd(x, pairs, mode == "symmetric")
    if mode in ("constant", "empty"):
        shape = tuple(int(s + b + a) for s, (b, a) in zip(x.shape, pairs))
        out = _C.full(shape, 0, x.dtype) if mode == "constant" else _C.empty(shape, x.dtype)
        center = tuple(slice(int(b), int(b) + s) for s, (b, _) in zip(x.shape, pairs))
        _C._copy_into(out[center], x)
        if mode == "constant":
            values = _pad_pairs(kwargs.get("constant_values", 0), x.ndim, "constant_values", integral=False)
            for ax, ((b, a), (vb, va)) in enumerate(zip(pairs, values)):
                lead = (slice(None),) * ax
                if b:
                    out[lead + (slice(0, int(b)),)] = vb.item()
                if a:
                    out[lead + (slice(shape[ax] - int(a), shape[ax]),)] = va.item()
        return out
    res = x
    for ax, (b, a) in enumerate(pairs):
        b, a = int(b), int(a)
        if b == 0 and a == 0:
            continue
        n = res.shape[ax]
        if n == 0:
            raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' or 'empty'")
        res = _C.take(res, _C.asarray(_pad_index(n, b, a, mode)), ax)
    return res.copy() if res is x else res


def _is_seq(v):
    return hasattr(v, "__iter__") and not isinstance(v, (str, bytes)) and getattr(v, "ndim", 1) != 0


def _shift_int(v):
    """One shift of roll as NumPy reads it (through an int64 array): an int, an integer
    scalar, or a str / float such as '1' (np.roll(x, '1') shifts by 1)."""
    if isinstance(v, (int, _np.integer)):
        return _operator.index(v)
    try:
        return int(_np.asarray(v, dtype=_np.int64))
    except (TypeError, ValueError, OverflowError) as e:
        raise type(e)(f"roll: shift {v!r} is not an integer: {e}") from None


def roll(a, shift, axis=None):
    """Elements shifted cyclically along ``axis`` (flattened when None): one gather per axis."""
    x = _arr(a)

    def check_shift():  # NumPy's broadcast(shift, axis).ndim > 1, before any shift is read
        if _np.ndim(shift) > 1:
            raise _VE_tile(f"[roll] 'shift' and 'axis' should be scalars or 1D sequences (shift has "
                           f"{_np.ndim(shift)} dimensions)")

    if axis is None:
        if x.size > 1 << 32:  # NumPy rolls a.ravel(): a huge broadcast view's copy fails first
            _ns.ravel(x)
        check_shift()
        n = x.size
        s = _builtins.sum(_shift_int(v) for v in shift) if _is_seq(shift) else _shift_int(shift)
        if n == 0:
            return x.copy()
        idx = _C.asarray(_np.arange(-(s % n), n - (s % n)))
        return _C.reshape(_C.take(x, idx, None, mode="wrap"), x.shape)
    # (NumPy's normalize_axis_tuple tries operator.index first: a 0-d integer array is one axis)
    seq = hasattr(axis, "__iter__") and not (getattr(axis, "ndim", None) == 0)
    if seq and isinstance(axis, (_C.ndarray, _np.ndarray)) and axis.size and _np.dtype(axis.dtype).kind not in "iu":
        # NumPy iterates an array axis as NumPy scalars: a bool/float one is no index (TypeError at
        # the first entry; a pyasc 0-d bool would pass __index__, and a huge view was a 2**44 loop)
        raise _TE(f"[roll] 'numpy.{_np.dtype(axis.dtype).name}' object cannot be interpreted as an integer (axis)")
    # (normalize_axis_index reads each as a C int: 2**40 is its OverflowError, not an AxisError)
    axes = tuple(_norm_axis(v, x.ndim, "roll") for v in axis) if seq else (_norm_axis(axis, x.ndim, "roll"),)
    check_shift()
    shifts = tuple(shift) if _is_seq(shift) else (shift,) * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences of the same length")
    total = {}
    for s, ax in zip(shifts, axes):
        total[ax] = total.get(ax, 0) + _shift_int(s)
    if x.size > 1 << 32:  # NumPy allocates the result (empty_like) next: a huge broadcast view fails there
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("roll", x.shape, x.dtype)
        _C.empty(tuple(x.shape), x.dtype)
    res = x
    for ax, s in total.items():
        n = res.shape[ax]
        if n == 0 or s % n == 0:
            continue
        s %= n
        res = _C.take(res, _C.asarray(_np.arange(-s, n - s)), ax, mode="wrap")
    return res.copy() if res is x else res


def broadcast_arrays(*args):
    """Views of the inputs broadcast to one shape, as a tuple (NumPy 2.4's type and the
    array API's from 2025.12; its 2024.12 text says a list)."""
    arrs = [_arr(a) for a in args]
    shape = _np.broadcast_shapes(*(a.shape for a in arrs))
    return tuple(a if a.shape == shape else _writeable_broadcast(a, shape) for a in arrs)


def _writeable_broadcast(a, shape):
    # NumPy 2.4: broadcast_arrays' views stay writeable when the input is (deprecated, a
    # FutureWarning on the flag), unlike broadcast_to's read-only views.
    v = _C.broadcast_to(a, shape)
    if a.flags.writeable:
        _C._set_writeable(v, True)
    return v


def diag(v, k=0):
    """The k-th diagonal of a 2-d array (a copy), or a 2-d array with the 1-d ``v`` on its k-th diagonal."""
    x = _arr(v)
    if x.ndim == 1:
        n = x.shape[0] + _builtins.abs(k)
        out = _C.full((n, n), 0, x.dtype)
        out.diagonal(k)[...] = x
        return out
    if x.ndim == 2:
        return x.diagonal(k).copy()
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """A 2-d array with the flattened input on its k-th diagonal."""
    return diag(_C.reshape(_arr(v), (-1,)), k)


# ------------------------------------------------------------------ gather / scatter


def _to_out(res, out):
    if out is None:
        return res
    _C._copy_into(out, res)
    return out


def take(a, indices, axis=None, out=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None);
    ``mode`` as NumPy's clip-mode ('raise', 'wrap', 'clip', None, or 0/1/2)."""
    if axis is not None:  # (ndarray.take's argument parser: the axis converter -- a C int, no bool -- runs
        # before the mode's)
        from ._ufunc import _c_int  # noqa: PLC0415

        _c_int(axis, "take")
    mode = _sig.clip_mode("take", mode)
    if isinstance(a, _C.ndarray) and a.size > 1 << 32 and not a.is_contiguous():
        # NumPy's take works on a C-contiguous copy of the input: a huge broadcast view is its
        # MemoryError at once (pyasc gathered a 2**31-element column of it: no answer in 15 s)
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("take", tuple(a.shape), a.dtype)
    if axis is not None:  # NumPy checks axis before the indices, and takes a 0-d array as 1-d here
        a = _arr(a)
        axis = _np.lib.array_utils.normalize_axis_index(_operator.index(axis), _builtins.max(a.ndim, 1))
        if a.ndim == 0:
            a = _C.reshape(a, (1,))
    if not isinstance(indices, (_C.ndarray, _np.ndarray)):
        # NumPy converts Python (and NumPy scalar) indices straight to intp, element by element
        # with int(): 1.5 -> 1, '1' -> 1, [] -> empty; None/complex are int()'s TypeError, NaN its
        # ValueError, 2**63 an OverflowError. Only arrays go through the same_kind cast check.
        indices = _np.asarray(indices, dtype=_np.intp)
    r = _C.take(a, indices, axis, "raise" if mode == "invalid" else mode)
    if mode == "invalid":
        raise _sig.int_mode_error("take")
    return _to_out(r, out)


def take_along_axis(arr, indices, axis=-1):
    """Values of ``arr`` at ``indices`` along ``axis`` (``indices`` broadcast with ``arr`` elsewhere)."""
    return _C.take_along_axis(arr, indices, axis)


def put_along_axis(arr, indices, values, axis):
    """Writes ``values`` into ``arr`` at ``indices`` along ``axis`` (in place)."""
    if not isinstance(arr, _C.ndarray):
        raise TypeError("put_along_axis: arr must be a pyasc.ndarray (it is written in place)")
    _C.put_along_axis(arr, indices, values, axis)


def put(a, ind, v, mode="raise"):
    """Writes ``v`` (repeated cyclically) into the flattened ``a`` at ``ind`` (in place)."""
    if not isinstance(a, _C.ndarray):
        raise TypeError("put() argument 1 must be pyasc.ndarray")
    _C.put(a, ind, v, mode)


def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` where the 1-d ``condition`` is true."""
    if axis is not None:  # NumPy's ndarray.compress converts the axis (TypeError) before the condition
        if isinstance(axis, (bool, _np.bool_)):  # (PyArray_AxisConverter refuses a bool)
            raise _TE("[compress] an integer is required for the axis (got a bool)")
        try:
            ax = _operator.index(axis)
        except TypeError as e:
            raise _TE(f"[compress] axis: {e}") from None
        if not -(1 << 63) <= ax < (1 << 63):  # (PyArray_AxisConverter: a C long first)
            from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[compress] Python int too large to convert to C long "
                                                          f"(axis {ax})")
        a = _arr(a)
        if a.ndim == 0:  # NumPy's PyArray_CheckAxis takes a 0-d array as 1-d
            a = _C.reshape(a, (1,))
    try:
        c = _arr(condition)
    except TypeError:
        # a condition pyasc holds no dtype for (strings): NumPy takes its truth values (nonzero)
        cn = _np.asarray(condition)
        if cn.ndim != 1:
            raise ValueError("[compress] condition must be a 1-d array") from None
        return _to_out(_C.take(a, _C.asarray(_np.nonzero(cn)[0].astype(_np.int64)), axis, "raise"), out)
    if c.ndim != 1:
        raise ValueError("[compress] condition must be a 1-d array")
    (idx,) = _C._nonzero(c)
    return _to_out(_C.take(a, idx, axis, "raise"), out)


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true (both flattened)."""
    c = _C.reshape(_arr(condition), (-1,))
    if c.size > 1 << 32 and 0 in tuple(c.strides):
        # NumPy's ravel(condition) copies a broadcast view before nonzero: a huge one is its
        # MemoryError at once, where scanning the view element by element would never end
        c = c.copy()
    (idx,) = _C._nonzero(c)
    return _C.take(arr, idx, None, "raise")


def place(arr, mask, vals):
    """Writes ``vals`` (repeated cyclically) into ``arr`` where ``mask`` is true (in place)."""
    if not isinstance(arr, _C.ndarray):
        raise TypeError("argument 1 must be pyasc.ndarray")
    m = _arr(mask)
    if m.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    (idx,) = _C._nonzero(_C.reshape(m, (-1,)))
    v = _arr(vals)
    if idx.size and v.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    if idx.size:
        _C.put(arr, idx, v, "raise")


# ------------------------------------------------------------------ NaN-aware reductions


def _is_float(x):
    return _np.dtype(x.dtype).kind == "f" or str(x.dtype) == "bfloat16"


def _is_inexact(x):
    return _is_float(x) or _np.dtype(x.dtype).kind == "c"


def _any_nan(r):
    return _is_inexact(r) and bool(_C.any(_C.isnan(r)))


def _all_nan_slice(a, axis):
    return a.size == 0 or bool(_C.any(_C.all(_C.isnan(a), axis=axis)))


def _warn(msg):
    _warnings.warn(msg, RuntimeWarning, stacklevel=3)


def _zero_d_none(a, axis):
    """``axis``, or None for axis 0/-1 of a 0-d array: NumPy's reductions (ufunc.reduce, and
    PyArray_CheckAxis of argmax/cumsum) read a 0-d array as one element there."""
    return None if _sig._zero_d_axis(a, axis) else axis


def _np_mean_axis_first(x, axis):
    """NumPy's nanmean/nanvar/nanstd replace NaNs only in an np.inexact input; anything else --
    ml_dtypes' bfloat16 included, whose NaNs pyasc still ignores -- goes to np.mean/np.var, whose
    _count_reduce_items normalizes the axis before anything else: axis 0/-1 of a 0-d bfloat16
    array is NumPy's AxisError there, not the whole array as for a 0-d float."""
    if _np.dtype(x.dtype) == _BF16:
        _sig.check_count_axis(axis, x.ndim)


def _nan_replaced(a, fill):
    """NumPy's _replace_nan: a copy of an inexact ``a`` with its NaNs set to ``fill``."""
    x = a if isinstance(a, _C.ndarray) else _C.asarray(a)
    if _np.dtype(x.dtype).kind in "fcV":
        x = _C.where(_C.isnan(x), _C.astype(_C.asarray(fill), x.dtype), x)
    return x


def _nan_reduce(fast, full, fill, a, axis, dtype, out, keepdims, initial, where):
    """nansum/nanprod: the C++ kernel unless initial/where are given, else NumPy's definition
    (the full reduction of a with NaN replaced by ``fill``)."""
    if initial is _sig._NV and where is _sig._NV:
        if type(keepdims) is not bool:  # np.sum's conversion (a C int), not the kernel's truthiness
            keepdims = _sig.keepdims_flag(fast.__name__, keepdims)
        try:
            return fast(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
        except Exception:
            if _sig._zero_d_axis(a, axis):  # NumPy's reduction takes axis 0/-1 of a 0-d array as None
                return fast(a, axis=None, dtype=dtype, out=out, keepdims=keepdims)
            # NumPy's class when it differs (an axis tuple entry out of range before a str one)
            _sig.numpy_order_checks(fast.__name__, a, axis, dtype, out)
            raise
    return full(_nan_replaced(a, fill), axis, dtype, out, keepdims, initial, where)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_sig._NV, where=_sig._NV):
    """Sum treating NaN as zero (``initial``/``where`` as :func:`sum`'s)."""
    _sig._no_list_axis("nansum", axis)  # (NumPy: np.sum of the NaN-replaced copy)
    if initial is _sig._NV and where is _sig._NV and isinstance(a, _C.ndarray) and not _is_inexact(a):
        r = _sig.bool_loop_reduce("nansum", a, axis, dtype, out, keepdims)  # (np.sum itself: no NaN)
        if r is not None:
            return r
    return _nan_reduce(_C.nansum, _sig.sum, 0, a, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_sig._NV, where=_sig._NV):
    """Product treating NaN as one (``initial``/``where`` as :func:`prod`'s)."""
    _sig._no_list_axis("nanprod", axis)
    if initial is _sig._NV and where is _sig._NV and isinstance(a, _C.ndarray) and not _is_inexact(a):
        r = _sig.bool_loop_reduce("nanprod", a, axis, dtype, out, keepdims)
        if r is not None:
            return r
    return _nan_reduce(_C.nanprod, _sig.prod, 1, a, axis, dtype, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=_sig._NV, initial=_sig._NV, where=_sig._NV):
    """Maximum ignoring NaN; all-NaN slices give NaN and a RuntimeWarning. ``initial`` and
    ``where`` (a boolean mask) as NumPy: the maximum of the selected non-NaN elements and
    ``initial``."""
    keepdims = _sig.keepdims_flag("nanmax", keepdims)
    _sig._no_list_axis("nanmax", axis)  # (NumPy: np.fmax.reduce)
    if where is True:  # (NumPy's default)
        where = _sig._NV
    if initial is not _sig._NV or where is not _sig._NV:
        return _sig.nan_extremum("nanmax", a, axis, out, keepdims, initial, where)
    try:
        r = _C.nanmax(a, axis=_zero_d_none(a, axis), out=out, keepdims=keepdims)
    except Exception:
        _sig.numpy_order_checks("nanmax", a, axis, None, out)  # (NumPy's fmax.reduce order of checks)
        raise
    if _any_nan(r):
        _warn("All-NaN slice encountered")
    return r


def nanmin(a, axis=None, out=None, keepdims=_sig._NV, initial=_sig._NV, where=_sig._NV):
    """Minimum ignoring NaN; all-NaN slices give NaN and a RuntimeWarning. ``initial`` and
    ``where`` as :func:`nanmax`."""
    keepdims = _sig.keepdims_flag("nanmin", keepdims)
    _sig._no_list_axis("nanmin", axis)
    if where is True:  # (NumPy's default)
        where = _sig._NV
    if initial is not _sig._NV or where is not _sig._NV:
        return _sig.nan_extremum("nanmin", a, axis, out, keepdims, initial, where)
    try:
        r = _C.nanmin(a, axis=_zero_d_none(a, axis), out=out, keepdims=keepdims)
    except Exception:
        _sig.numpy_order_checks("nanmin", a, axis, None, out)  # (NumPy's fmin.reduce order of checks)
        raise
    if _any_nan(r):
        _warn("All-NaN slice encountered")
    return r


def _one_axis(op, a, axis, nan_mask_all=False):
    """argmax/cumsum read one integer axis: a tuple is their TypeError ("'tuple' object cannot be
    interpreted as an integer"), not pyasc's bounds ValueError. ``nan_mask_all``: NumPy's
    nanargmax/nanargmin first reduce the NaN mask of a non-empty np.inexact array with
    np.all(mask, axis=axis), whose tuple check (bounds: AxisError -- (0,) of a 0-d array too; a
    repeat) comes first."""
    if not isinstance(axis, tuple):
        return
    if nan_mask_all:
        x = _arr(a)
        if _np.dtype(x.dtype).kind in "fc" and x.size:
            _sig.check_count_axis(axis, x.ndim)
    raise _TE(f"[{op}] 'tuple' object cannot be interpreted as an integer (axis {axis!r})")


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the maximum ignoring NaN; an all-NaN slice raises ValueError."""
    # (NumPy's argmax reads keepdims by its truth value: an array of several elements is ValueError)
    _one_axis("nanargmax", a, axis, nan_mask_all=True)
    return _C.nanargmax(a, axis=_zero_d_none(a, axis), out=out, keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the minimum ignoring NaN; an all-NaN slice raises ValueError."""
    _one_axis("nanargmin", a, axis, nan_mask_all=True)
    return _C.nanargmin(a, axis=_zero_d_none(a, axis), out=out, keepdims=bool(keepdims))


def _inexact_dtype_ok(x, dtype):
    """NumPy's nanmean/nanvar/nanstd check ``issubclass(dtype.type, np.inexact)``: ml_dtypes'
    bfloat16 is no np.inexact, so float16/32/64 and complex input refuse dtype=bfloat16; pyasc
    reads a bfloat16 input as inexact (its NaNs are ignored), and then allows its own dtype."""
    k = _np.dtype(dtype).kind
    return k in "fc" or k == "V" and _np.dtype(x.dtype).kind == "V"


def _bf16_numpy_route(x, dtype):
    """Whether nanmean/nanvar/nanstd of a bfloat16 ``x`` take NumPy's own route: ml_dtypes'
    bfloat16 is no np.inexact, so NumPy's _replace_nan finds no NaNs to replace and calls
    np.mean/np.var/np.std with every argument as given -- an integer or bool dtype= is accepted
    there (nanmean(bf16, dtype=int32) is the int32 mean). pyasc ignores bfloat16 NaNs as it
    does float NaNs, but with such a dtype= it follows NumPy (there is no NaN in an int)."""
    if dtype is None or _np.dtype(x.dtype) != _BF16 or isinstance(dtype, (_C.ndarray, _np.ndarray)):
        return False
    try:
        k = _np.dtype(dtype).kind
    except TypeError:
        return False  # (the dtype's own TypeError is raised where NumPy raises it)
    return k not in "fcV"


def _real_to_complex(x, dtype):
    """Whether ``dtype`` is a complex dtype= for real (float) data."""
    if dtype is None or _np.dtype(x.dtype).kind == "c":
        return False
    try:
        return _np.dtype(dtype).kind == "c"
    except TypeError:
        return False


def nanmean(a, axis=None, dtype=None, out=None, keepdims=_sig._NV, *, where=_sig._NV):
    """Mean ignoring NaN; all-NaN (or empty) slices give NaN and a RuntimeWarning. ``where``
    (a boolean mask) as NumPy: the mean of the selected non-NaN elements."""
    if where is True:  # (np.sum's and np.mean's default)
        where = _sig._NV
    x = _arr(a)
    _np_mean_axis_first(x, axis)
    inexact = (_is_float(x) or _np.dtype(x.dtype).kind == "c") and not _bf16_numpy_route(x, dtype)
    if not inexact:  # NumPy's nanmean of integers is np.mean itself: its axis rules (normalize_axis_index,
        # a C int, before keepdims is read), where= as mean reads it (the count is the sum of where's
        # values: np.nanmean(int_x, where=[1, 2, 3]) divides by 6)
        _sig._no_list_axis("nanmean", axis)
        return _sig.mean(x, axis, dtype, out, keepdims, where=where)
    if dtype is not None and not _inexact_dtype_ok(x, dtype):  # (NumPy checks it before its np.sum)
        raise _TE("[nanmean] If a is inexact, then dtype must be inexact")
    keepdims = _sig.keepdims_flag("nanmean", keepdims)  # (np.sum's argument parser: before the axis)
    _sig._no_list_axis("nanmean", axis)
    axis = _zero_d_none(x, axis)  # (NumPy's nanmean sums with ufunc.reduce: axis 0/-1 of a 0-d array is all)
    if where is not _sig._NV:
        w = _sig._where_mask("nanmean", where, x.shape)
        if inexact:
            w = _C.logical_and(w, _C.logical_not(_C.isnan(x)))
        with _np.errstate(all="ignore"):
            return _sig.mean(x, axis, dtype, out, keepdims, where=w)
    if _sig._narrowing_half_dtype(x, dtype) or _real_to_complex(x, dtype):
        # NumPy's tot = np.sum(arr, dtype=float16) casts each element to float16 first (1e30 is inf
        # there, inf + -inf NaN); the C++ kernel casts its wider sum. A complex dtype= of real data:
        # NumPy divides the complex sum by the count as a complex division ((inf+0j)/1 is inf+nanj),
        # the kernel divides the parts by a real count
        nan = _C.isnan(x)
        tot = _sig.sum(_C.where(nan, _C.full((), 0, x.dtype), x), axis, dtype, None, keepdims)
        cnt = _C.sum(_C.logical_not(nan), axis=axis, dtype=_np.int64, keepdims=keepdims)
        with _np.errstate(all="ignore"):
            r = _sig._to_out_or(_C.astype(_C.true_divide(tot, cnt), tot.dtype), out)
    else:
        r = _C.nanmean(x, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    inexact = _is_float(x) or _np.dtype(x.dtype).kind == "c"  # complex: NaN in either part
    if inexact and bool(_C.any(_C.isnan(r))) and _all_nan_slice(x, axis):
        _warn("Mean of empty slice")
    return r


def _nanvar_in_input_dtype(x, axis, dt, out, ddof, keepdims, is_std):
    """NumPy's nanvar/nanstd steps with a dtype= other than the input's: the mean is summed in
    dtype, but the deviations and their squares are written into the input's (NaN-replaced)
    copy (np.subtract(arr, avg, out=arr, casting='unsafe')), so they are rounded to the input
    dtype (float16 input, dtype=float32: float16 squares), and then summed in dtype."""
    xdt = _np.dtype(x.dtype)
    if x.size > 1 << 32:  # NumPy's _replace_nan copies the input first (a huge view: its MemoryError)
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("nanstd" if is_std else "nanvar", x.shape, xdt)
    nan = _C.isnan(x)
    arr = _C.where(nan, _C.full((), 0, xdt), x)
    cnt = _C.sum(_C.logical_not(nan), axis=axis, dtype=_np.int64, keepdims=True)
    avg = _C.astype(_C.true_divide(_C.sum(arr, axis=axis, dtype=dt, keepdims=True), cnt), dt)
    dev = _C.astype(_C.subtract(arr, avg), xdt)
    dev = _C.where(nan, _C.full((), 0, xdt), dev)
    sq = _C.multiply(dev, _C.conjugate(dev)).real if xdt.kind == "c" else _C.multiply(dev, dev)
    var = _C.sum(sq, axis=axis, dtype=dt, keepdims=keepdims)
    dof = _C.subtract(cnt if keepdims else _C.reshape(cnt, tuple(var.shape)), float(ddof))
    var = _C.astype(_C.true_divide(var, dof), var.dtype)
    var = _C.where(_C.less_equal(dof, 0.0), _C.full((), _np.nan, var.dtype), var)
    if is_std:
        var = _C.sqrt(var)
    if out is not None:
        _C._copy_into(out, _C.astype(var, out.dtype) if _np.dtype(out.dtype) != _np.dtype(var.dtype) else var)
        return out
    return var


def _nanvar(a, axis, dtype, out, ddof, keepdims, correction, is_std):
    x = _arr(a)
    if _is_inexact(x):  # (NumPy's nanvar sums with ufunc.reduce: axis 0/-1 of a 0-d array is all of it)
        axis = _zero_d_none(x, axis)
    if _is_inexact(x) and dtype is not None:  # NumPy's nanvar/nanstd (before ddof/correction); other
        _sig.check_dtype("nanstd" if is_std else "nanvar", dtype)  # input goes to var/std
        if not _inexact_dtype_ok(x, dtype):
            raise _TE(f"[{'nanstd' if is_std else 'nanvar'}] If a is inexact, then dtype must be inexact")
    if correction is not None:  # (after the dtype check; an array of several: NumPy's truth-value error)
        _sig.check_correction("nanstd" if is_std else "nanvar", correction)
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    if isinstance(axis, (_C.ndarray, _np.ndarray)) and axis.ndim > 0:  # (np.sum reads it before ddof is used)
        raise _TE("[nanvar] only integer scalar arrays can be converted to a scalar index (axis)")
    if _np.ndim(ddof.numpy() if isinstance(ddof, _C.ndarray) else ddof) > 0:
        # NumPy divides by (count - ddof) with out= the result: an array of ddof values fails there
        # (ValueError) unless it broadcasts with the result, which pyasc does not support
        raise _VE_tile(f"[{'nanstd' if is_std else 'nanvar'}] ddof must be a scalar, got an array of shape "
                       f"{_np.shape(ddof)}")
    xdt = _np.dtype(x.dtype)
    if dtype is not None and _np.dtype(dtype) != xdt and xdt.kind in "fc":
        r = _nanvar_in_input_dtype(x, axis, _np.dtype(dtype), out, ddof, keepdims, is_std)
    else:
        r = _C._nanvar(x, axis, dtype, out, float(ddof), keepdims, is_std)
    if _is_inexact(x) and _any_nan(r):
        cnt = _C.sum(_C.logical_not(_C.isnan(x)), axis=axis)
        if x.size == 0 or bool(_C.any(_C.less_equal(cnt, ddof))):
            _warn("Degrees of freedom <= 0 for slice.")
    return r


def _nanvar_extras(op, a, axis, keepdims, where, mean, correction, dtype=None):
    """keepdims and correction (<NoValue>: None) as NumPy reads them for nanvar/nanstd (after the
    dtype check NumPy makes before its first np.sum)."""
    if dtype is not None:
        _sig.check_dtype(op, dtype)
        if not _inexact_dtype_ok(_arr(a), dtype):
            raise _TE(f"[{op}] If a is inexact, then dtype must be inexact")
    keepdims = _sig.keepdims_flag(op, keepdims)
    return keepdims, None if correction is _sig._NV else correction


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_sig._NV, *, where=_sig._NV, mean=_sig._NV,
           correction=_sig._NV):
    """Variance ignoring NaN; divisor (non-NaN count) - ddof, NaN with a RuntimeWarning when <= 0;
    ``where=`` (a boolean mask of the items counted) and ``mean=`` (a precomputed mean, keepdims-
    shaped) as NumPy's."""
    _sig._no_list_axis("nanvar", axis)  # (NumPy: np.sum of the mask / np.var's normalize_axis_index)
    _np_mean_axis_first(_arr(a), axis)
    if where is True:  # (NumPy's default)
        where = _sig._NV
    if not _is_inexact(_arr(a)) or _bf16_numpy_route(_arr(a), dtype):  # NumPy: no NaN to replace, np.var
        # with every argument as given
        return _sig._var_std("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    keepdims, correction = _nanvar_extras("nanvar", a, axis, keepdims, where, mean, correction, dtype)
    if where is not _sig._NV or mean is not _sig._NV or not _sig._real_number(ddof if correction is None else
                                                                                correction):
        # (a ddof NumPy subtracts from the count as an array -- a list broadcast, a str its TypeError --
        # takes NumPy's steps)
        from ._nanvar import _nanvar_masked  # noqa: PLC0415 - (it imports this module)
        return _nanvar_masked("nanvar", a, axis, dtype, out, ddof, keepdims, correction, where, mean)
    return _nanvar(a, axis, dtype, out, ddof, keepdims, correction, False)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_sig._NV, *, where=_sig._NV, mean=_sig._NV,
           correction=_sig._NV):
    """Standard deviation ignoring NaN (see nanvar)."""
    _sig._no_list_axis("nanstd", axis)
    _np_mean_axis_first(_arr(a), axis)
    if where is True:  # (NumPy's default)
        where = _sig._NV
    if not _is_inexact(_arr(a)) or _bf16_numpy_route(_arr(a), dtype):  # (as nanvar: np.std)
        return _sig._var_std("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    keepdims, correction = _nanvar_extras("nanstd", a, axis, keepdims, where, mean, correction, dtype)
    if where is not _sig._NV or mean is not _sig._NV or not _sig._real_number(ddof if correction is None else
                                                                                correction):
        # (a ddof NumPy subtracts from the count as an array -- a list broadcast, a str its TypeError --
        # takes NumPy's steps)
        from ._nanvar import _nanvar_masked  # noqa: PLC0415 - (it imports this module)
        return _nanvar_masked("nanstd", a, axis, dtype, out, ddof, keepdims, correction, where, mean)
    return _nanvar(a, axis, dtype, out, ddof, keepdims, correction, True)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaN as zero."""
    _one_axis("nancumsum", a, axis)
    return _C.nancumsum(a, axis=_zero_d_none(a, axis), dtype=dtype, out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaN as one."""
    _one_axis("nancumprod", a, axis)
    return _C.nancumprod(a, axis=_zero_d_none(a, axis), dtype=dtype, out=out)


def _cumulative(fn, identity, x, axis, dtype, include_initial):
    x = _arr(x)
    if x.ndim == 0:  # NumPy's _cumulative_func: atleast_1d(x), then the axis, then accumulate's converters
        x = x.reshape((1,))
    if axis is None:
        if x.ndim > 1:
            raise _VE_tile("[cumulative] For arrays which have more than one dimension ``axis`` argument is "
                           "required.")
        axis = 0
    # the ufunc's accumulate: dtype parsed first, then PyArray_ConvertMultiAxis -- each entry of a
    # tuple (a bool: TypeError; beyond a C int: ValueError) checked in bounds in turn, and only then
    # more than one axis refused (so (1, 'a') on one dimension is the AxisError of 1)
    _sig.check_dtype("cumulative", dtype)
    axs = [_axis(_sig.axis_converter("cumulative", a), x.ndim)
           for a in (axis if isinstance(axis, tuple) else (axis,))]
    if len(axs) != 1:
        raise _VE_tile(f"[cumulative] accumulate does not allow multiple axes (axis={axis!r})")
    axis = axs[0]
    r = fn(x, axis=axis, dtype=dtype)
    if not include_initial:
        return r
    shape = list(r.shape)
    shape[axis] = 1
    return _C.concatenate([_C.full(tuple(shape), identity, r.dtype), r], axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative sum along ``axis`` (array API 2024.12); ``include_initial`` prepends 0."""
    return _cumulative(_C.cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative product along ``axis`` (array API 2024.12); ``include_initial`` prepends 1."""
    return _cumulative(_C.cumprod, 1, x, axis, dtype, include_initial)


def _install_methods():
    """ndarray methods NumPy has for these functions (x.take, x.repeat, x.put, x.compress)."""
    cls = _C.ndarray
    cls.take = lambda self, indices, axis=None, out=None, mode="raise": take(self, indices, axis, out, mode)
    cls.repeat = lambda self, repeats, axis=None: repeat(self, repeats, axis)
    cls.put = lambda self, indices, values, mode="raise": put(self, indices, values, mode)
    cls.compress = lambda self, condition, axis=None, out=None: compress(condition, self, axis, out)


_install_methods()
