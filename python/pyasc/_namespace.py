"""Array-namespace functions that are compositions of pyasc primitives.

Creation (``linspace``, ``eye``, ``identity``, ``tri``, ``tril``, ``triu``,
``meshgrid``), manipulation views (``flip``, ``ravel``, ``swapaxes``, ``moveaxis``; the
functions that move data are in :mod:`pyasc._manipulation`), elementwise compositions
(``clip``, ``round``; ``count_nonzero`` is in _sorting.py) and dtype queries (``finfo``,
``iinfo``, ``can_cast``, ``isdtype``, ``result_type``). Every function
follows NumPy 2's semantics; views are returned where NumPy returns views.
Re-exported by :mod:`pyasc.numeric` (``import pyasc as asc; asc.flip(...)``).
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import errors as _errors
from ._array_api import check_device as _check_device

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


def _arr(x):
    return _C.asarray(x)


def _axis(axis, ndim):
    """Normalises one axis like NumPy (AxisError, a ValueError and IndexError, when out of range;
    NumPy's OverflowError for an int outside a C int)."""
    try:
        axis = _operator.index(axis)
    except TypeError as e:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, f"[axis] {e}") from None
    if not -(1 << 31) <= axis < (1 << 31):
        # normalize_axis_index parses the axis as a C int ("i") before the range check: beyond
        # int64 "C long", beyond int32 "C int", both OverflowError (not AxisError)
        from .errors import AscendOverflowError, ErrorCode

        width = "C long" if not -(1 << 63) <= axis < (1 << 63) else "C int"
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[axis] Python int too large to convert to {width} ({axis})")
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def _axes(axis, ndim):
    """NumPy's normalize_axis_tuple: one integer (operator.index), else each entry of an iterable
    (an integer array of several elements is read entry by entry, as a tuple)."""
    if not isinstance(axis, (tuple, list)) and isinstance(axis, (_C.ndarray, _np.ndarray)) and axis.ndim:
        try:
            _operator.index(axis)
        except TypeError:
            axis = [axis[i] for i in range(_builtins.min(axis.shape[0], 65))]  # (a huge one: the first fail)
    if isinstance(axis, (tuple, list)):
        out = tuple(_axis(a, ndim) for a in axis)
        if len(set(out)) != len(out):
            raise _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, f"[flip] repeated axis in {out}")
        return out
    return (_axis(axis, ndim),)


# ------------------------------------------------------------------ dtypes


from ._array_api import _dtype_of, finfo, iinfo  # noqa: E402,F401 - NumPy's fields with the array API's types


def can_cast(from_, to, casting="safe"):
    """Whether a value of dtype (or array) ``from_`` can be cast to ``to`` under ``casting``."""
    if isinstance(to, (_C.ndarray, _np.ndarray)):  # NumPy's np.dtype(to); _dtype_of would read .dtype
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE,
                                      "[can_cast] Cannot construct a dtype from an array (to)")
    def conv(v):
        try:
            return _dtype_of(v)
        except TypeError as e:
            if isinstance(e, _errors.AscendError):
                raise
            raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, f"[can_cast] {e}") from None

    # NumPy's argument parser converts `to` (None passes), then casting=, then looks at from_
    t = None if to is None else conv(to)
    try:
        _np.can_cast(_np.int8, _np.int8, casting=casting)
    except (TypeError, ValueError) as e:
        cls = _errors.AscendTypeError if isinstance(e, TypeError) else _errors.AscendValueError
        raise cls(_errors.ErrorCode.INVALID_PARAM, f"[can_cast] {e}") from None
    if from_ is None or to is None:  # (np.dtype(None) is float64; NumPy's can_cast refuses None)
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE,
                                      "[can_cast] did not understand one of the types; 'None' not accepted")
    if isinstance(from_, (bool, int, float, complex)) and not isinstance(from_, _np.generic):
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE,
                                      "[can_cast] can_cast() does not support Python ints, floats, and complex "
                                      f"because the result used to depend on the value (from_={from_!r})")
    return bool(_np.can_cast(conv(from_), t, casting=casting))


_KINDS = {
    "bool": lambda d: d.kind == "b",
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d.kind == "f" or d == _BF16,
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc" or d == _BF16,
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric') or a tuple of them."""
    from .errors import AscendTypeError, AscendUnsupportedDtypeError, AscendValueError, ErrorCode

    d = _isdtype_arg(dtype)
    if d is None:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, "[isdtype] dtype argument must be a NumPy dtype, but it is "
                                                       f"a {type(dtype)}")
    found = False
    for k in kind if isinstance(kind, tuple) else (kind,):  # NumPy reads every kind, then answers
        if isinstance(k, str):
            if k not in _KINDS:
                # bfloat16 is pyasc's extension: NumPy would refuse that dtype first (TypeError),
                # the kind is NumPy's ValueError for its own dtypes; the error is both for bfloat16
                cls = AscendUnsupportedDtypeError if d == _BF16 else AscendValueError
                raise cls(ErrorCode.INVALID_PARAM, f"[isdtype] kind argument is a string, but {k!r} is not a known "
                                                   f"kind name (one of {sorted(_KINDS)})")
            found = _KINDS[k](d) or found
        else:
            if isinstance(k, (_C.ndarray, _np.ndarray)) and k.size != 1:
                # NumPy compares each kind with the names first (kind == "bool"): an empty array or
                # one of several elements makes that `if` its ambiguous-truth ValueError
                # (bfloat16, pyasc's extension, is NumPy's TypeError for the dtype first: both classes)
                cls = AscendUnsupportedDtypeError if d == _BF16 else AscendValueError
                raise cls(ErrorCode.INVALID_PARAM, "[isdtype] The truth value of an array with more than "
                                                   "one element is ambiguous (kind given as an array of "
                                                   f"shape {tuple(k.shape)})")
            kd = _isdtype_arg(k)
            if kd is None:
                raise AscendTypeError(ErrorCode.INVALID_DTYPE, "[isdtype] kind argument must be comprised of NumPy "
                                                               f"dtypes or strings only, but is a {type(k)}")
            found = found or d == kd
    return found


def _isdtype_arg(x):
    """A dtype argument of isdtype as NumPy's _preprocess_dtype takes it: a dtype instance or a
    NumPy scalar type (pyasc adds bfloat16), not a str, a Python type or an array; None if not."""
    if isinstance(x, _np.dtype):
        return x
    if isinstance(x, type) and (issubclass(x, _np.generic) or x is _BF16.type):
        return _np.dtype(x)
    return None


def result_type(*arrays_and_dtypes):
    """The dtype NumPy 2 gives an operation on the operands (arrays, dtypes, and
    Python scalars, which are weak as in NEP 50)."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    strong, weak, seq = [], [], []
    for x in arrays_and_dtypes:
        if isinstance(x, (bool, int, float, complex)) and not hasattr(x, "dtype"):
            weak.append(x)
            seq.append(x)
        elif isinstance(x, _C.ndarray):
            strong.append(_C.empty((0,), x.dtype))
            seq.append(_np.dtype(x.dtype))
        else:
            strong.append(_C.empty((0,), _dtype_of(x)))
            seq.append(_np.dtype(strong[-1].dtype))
    if strong and _BF16 not in seq:
        # NumPy's own answer: its promotion of three or more dtypes is not a pairwise fold
        # (uint8, int8, float16 is float16; folded, int16 then float32) and a weak Python int is not
        # checked against the dtype here (result_type(int8, 300) is int8; the operation using it
        # raises)
        try:
            return _np.result_type(*seq)
        except TypeError:
            pass
    elif strong and len(seq) <= 4:
        # with bfloat16 (ml_dtypes) NumPy's answer can depend on the argument order (uint8, bfloat16,
        # 1.5: bfloat16 or float64) or be a DTypePromotionError: pyasc takes it only when every order
        # gives the same dtype (uint8, int8, bfloat16 is bfloat16), else its order-independent fold
        # (docs/architecture.md: bfloat16 promotes as an ordinary float)
        import itertools  # noqa: PLC0415

        answers = set()
        for order in itertools.permutations(seq):
            try:
                answers.add(_np.result_type(*order))
            except TypeError:
                answers.add(None)
            if len(answers) > 1:
                break
        if len(answers) == 1 and None not in answers:
            return answers.pop()
    if not strong:
        return _C.result_type_of(*weak[:1]) if len(weak) == 1 else _fold_weak(weak)
    acc = strong[0]
    for s in strong[1:]:
        acc = _C.empty((0,), _C.result_type_of(acc, s))
    for w in weak:
        acc = _C.empty((0,), _C.result_type_of(acc, w))
    return acc.dtype


def _fold_weak(weak):
    acc = _C.empty((0,), _C.result_type_of(weak[0]))
    for w in weak[1:]:
        acc = _C.empty((0,), _C.result_type_of(acc, w))
    return acc.dtype


# ------------------------------------------------------------------ creation


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``num`` evenly spaced values over [start, stop] (NumPy's formula, so the values match);
    ``device`` may only be 'cpu'."""
    _check_device("linspace", device)
    if isinstance(dtype, _C.ndarray):
        # np.dtype() would read a pyasc array's .dtype; NumPy refuses an array as the dtype only
        # after checking num: a NumPy array stands in, so its checks keep their order
        dtype = _np.zeros(0)
    # pyasc arrays go to NumPy as NumPy views (passing them would dispatch back here through
    # __array_function__: infinite recursion)
    start, stop = (v.numpy() if isinstance(v, _C.ndarray) else v for v in (start, stop))
    try:
        res = _np.linspace(start, stop, num=num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
    except (TypeError, ValueError) as e:
        if type(e) not in (TypeError, ValueError):
            raise
        from .errors import AscendTypeError, AscendValueError, ErrorCode

        cls, code = (AscendTypeError, ErrorCode.INVALID_DTYPE) if isinstance(e, TypeError) else \
            (AscendValueError, ErrorCode.INVALID_PARAM)
        raise cls(code, f"[linspace] {e}") from None
    if retstep:
        return _C.array(res[0]), res[1]
    return _C.array(res)


def _dtype_arg(op, dtype):  # NumPy's np.dtype(dtype) rejects an array; np.dtype would read a pyasc one's .dtype
    from ._signatures import check_dtype

    check_dtype(op, dtype)


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):  # noqa: N803 - NumPy's names
    """A 2-D array with ones on the k-th diagonal and zeros elsewhere (float64 unless ``dtype``);
    ``order`` 'C' or 'F' (Fortran strides), ``device`` may only be 'cpu', ``like`` a pyasc or
    NumPy array (ignored)."""
    from ._signatures import as_fortran, check_like  # noqa: PLC0415 - (imports this module's users)

    check_like("eye", like)
    _check_device("eye", device)
    _dtype_arg("eye", dtype)
    try:  # NumPy's zeros((N, M), dtype, order) checks the shape, then the order, then k
        res = _np.eye(N, M, k=k, dtype=float if dtype is None else dtype, order=order)
    except (TypeError, ValueError) as e:
        if type(e) not in (TypeError, ValueError):
            raise
        if isinstance(e, TypeError):
            raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, f"[eye] {e}") from None
        raise _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, f"[eye] {e}") from None
    x = _C.array(res)
    return as_fortran(x) if res.ndim == 2 and res.flags.f_contiguous and not res.flags.c_contiguous else x


def identity(n, dtype=None):
    """The n x n identity matrix (float64 unless ``dtype``)."""
    _dtype_arg("identity", dtype)
    return _C.array(_np.identity(n, dtype=float if dtype is None else dtype))


def tri(N, M=None, k=0, dtype=float):  # noqa: N803
    """An N x M array with ones at and below the k-th diagonal."""
    # NumPy's own checks in its order (N's comparisons come before the dtype: an N of several
    # elements is the truth-value ValueError first); a pyasc array dtype= would be read through its
    # .dtype by np.dtype(): a NumPy array stands in (NumPy's "Cannot construct a dtype from an array")
    if isinstance(dtype, _C.ndarray):
        dtype = _np.zeros(0)
    N, M, k = (v.numpy() if isinstance(v, _C.ndarray) else v for v in (N, M, k))  # noqa: N806
    try:
        res = _np.tri(N, M, k=k, dtype=dtype)
    except (TypeError, ValueError, OverflowError, MemoryError) as e:
        if isinstance(e, _errors.AscendError):
            raise
        cls, code = ((_errors.AscendMemoryError, _errors.ErrorCode.BAD_ALLOC) if isinstance(e, MemoryError) else
                     (_errors.AscendOverflowError, _errors.ErrorCode.OVERFLOW) if isinstance(e, OverflowError) else
                     (_errors.AscendTypeError, _errors.ErrorCode.INVALID_DTYPE) if isinstance(e, TypeError) else
                     (_errors.AscendValueError, _errors.ErrorCode.INVALID_PARAM))
        raise cls(code, f"[tri] {e}") from None
    return _C.array(res)


def _tri_mask(x, k, lower):
    n, m = x.shape[-2], x.shape[-1]
    mask = _np.tri(n, m, k=k if lower else k - 1, dtype=bool)
    return _C.asarray(mask if lower else ~mask)


def tril(m, k=0):
    """A copy of ``m`` with the elements above the k-th diagonal zeroed (last two axes)."""
    x = _arr(m)
    if x.ndim < 1:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, "[tril] needs an array of at least one "
                                      "dimension, got a 0-d array (NumPy: TypeError)")
    try:  # NumPy's tri(..., k=k) computes -k before it allocates anything (a huge 1-d m too)
        -k  # noqa: B018 - the check itself
    except TypeError as e:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, f"[tril] k: {e}") from None
    x2 = x if x.ndim >= 2 else _C.broadcast_to(x, (x.shape[0], x.shape[0]))
    return _C.where(_tri_mask(x2, k, True), x2, _C.full((), 0, x.dtype))


def triu(m, k=0):
    """A copy of ``m`` with the elements below the k-th diagonal zeroed (last two axes)."""
    x = _arr(m)
    if x.ndim < 1:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, "[triu] needs an array of at least one "
                                      "dimension, got a 0-d array (NumPy: TypeError)")
    try:  # NumPy computes tri(..., k=k - 1) before it allocates anything
        k - 1  # noqa: B018 - the check itself
    except TypeError as e:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, f"[triu] k: {e}") from None
    x2 = x if x.ndim >= 2 else _C.broadcast_to(x, (x.shape[0], x.shape[0]))
    return _C.where(_tri_mask(x2, k, False), x2, _C.full((), 0, x.dtype))


def _writeable_broadcast(a, shape):
    # NumPy builds meshgrid(copy=False) with broadcast_arrays: its views stay writeable
    # when the input is, unlike broadcast_to's read-only views.
    v = _C.broadcast_to(a, shape)
    if a.flags.writeable:
        _C._set_writeable(v, True)
    return v


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (NumPy's meshgrid; inputs are flattened), as a
    tuple (NumPy 2.4's type and the array API's from 2025.12; its 2024.12 text says a list)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    s0 = (1,) * ndim
    xs = [_C.reshape(_arr(x), (-1,)) for x in xi]
    out = [_C.reshape(x, s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(xs)]
    if indexing == "xy" and ndim > 1:
        out[0] = _C.reshape(out[0], (1, -1) + s0[2:])
        out[1] = _C.reshape(out[1], (-1, 1) + s0[2:])
    if not sparse:
        lengths = [x.shape[0] for x in xs]
        if indexing == "xy" and ndim > 1:
            lengths[0], lengths[1] = lengths[1], lengths[0]
        out = [_writeable_broadcast(o, tuple(lengths)) for o in out]
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


# ------------------------------------------------------------------ manipulation


def ravel(x, order="C"):
    """The elements of ``x`` as a 1-D array (a view when the strides allow), read in ``order``
    ('C', 'F', 'A' or 'K', as ``numpy.ravel``)."""
    x = _arr(x)
    if not (isinstance(order, str) and order == "C"):
        from ._signatures import check_order, ravel_order

        if check_order("ravel", order, none_ok=True) not in (None, "C"):
            if x.size > 1 << 32 and not x.is_contiguous():
                from ._helpers import _alloc_check

                _alloc_check("ravel", x.shape, x.dtype)
            return ravel_order(x, order)
    if x.size > 1 << 32 and not x.is_contiguous():
        # a huge broadcast view: NumPy copies it (its MemoryError, or "array is too big"), where
        # the strides would let pyasc return a stride-0 view of 2**44 elements or more
        from ._helpers import _alloc_check

        _alloc_check("ravel", x.shape, x.dtype)
        return _C.ndarray.copy(_C.reshape(x, (-1,)))
    r = _C.reshape(x, (-1,))
    # NumPy's ravel is a view only of an array contiguous in the order read, else a copy: the
    # strided 1-D view reshape allows (x[::2]) aliased x, so a write through it changed x
    return r if r.size <= 1 or r.is_contiguous() else _C.ndarray.copy(r)


def swapaxes(x, axis1, axis2):
    """A view of ``x`` with two axes interchanged."""
    return _arr(x).swapaxes(axis1, axis2)


def moveaxis(x, source, destination):
    """A view of ``x`` with axes moved from ``source`` to ``destination`` (ints or sequences)."""
    from ._helpers import _axes as _axis_tuple  # noqa: PLC0415 - NumPy's normalize_axis_tuple (iterates an array)

    x = _arr(x)

    def axes(v, what):  # NumPy's normalize_axis_tuple iterates None (_axis_tuple reads it as all axes)
        if v is None:
            raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE,
                                          f"[moveaxis] {what}: 'NoneType' object is not iterable")
        return _axis_tuple(v, x.ndim, f"moveaxis: {what}")

    src = axes(source, "source")  # (NumPy normalises source fully before destination)
    dst = axes(destination, "destination")
    if len(src) != len(dst):
        raise _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, "[moveaxis] `source` and `destination` "
                                       "arguments must have the same number of elements")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _C.transpose(x, tuple(order))


def flip(m, axis=None):
    """A view of ``m`` with the order of elements reversed along ``axis`` (all axes when None)."""
    x = _arr(m)
    axes = range(x.ndim) if axis is None else _axes(axis, x.ndim)
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a] = slice(None, None, -1)
    return x[tuple(key)]


# ------------------------------------------------------------------ elementwise compositions


_NV = _np._NoValue


def clip(a, a_min=_NV, a_max=_NV, out=None, *, min=_NV, max=_NV):  # noqa: A002 - NumPy's names
    """``a`` limited to [min, max] elementwise (``numpy.clip``: ``minimum(maximum(a, min), max)``;
    NaN propagates). As NumPy: both ``a_min`` and ``a_max`` positionally (None for no bound), or
    the keywords ``min``/``max``, not both forms.

    With both bounds a bfloat16 result is computed in float32, as NumPy 2.4 does (its clip
    ufunc has no bfloat16 loop in ml_dtypes 0.7; one bound goes through maximum/minimum,
    which keep bfloat16)."""
    if a_min is _NV and a_max is _NV:
        a_min = None if min is _NV else min
        a_max = None if max is _NV else max
    elif a_min is _NV or a_max is _NV:
        missing = "a_min" if a_min is _NV else "a_max"
        from .errors import AscendTypeError, ErrorCode

        raise AscendTypeError(ErrorCode.INVALID_PARAM, f"[clip] clip() missing 1 required positional argument: "
                                                       f"'{missing}'")
    elif min is not _NV or max is not _NV:
        from .errors import AscendValueError, ErrorCode

        raise AscendValueError(ErrorCode.INVALID_PARAM, "[clip] Passing `min` or `max` keyword argument when "
                                                        "`a_min` and `a_max` are provided is forbidden.")
    return _clip(a, a_min, a_max, out)


def _method_clip(self, min=None, max=None, out=None):  # noqa: A002 - NumPy's names
    """``a`` limited to [min, max] elementwise (``ndarray.clip(min=None, max=None, out=None)``)."""
    return _clip(self, min, max, out)


def _method_contains(self, value):
    """``value in a``: whether any element equals ``value`` (NumPy's ``(a == value).any()``: a
    value of another shape broadcasts, or is NumPy's ValueError)."""
    return bool(_arr(self == value).any())


_C.ndarray.clip = _method_clip
_C.ndarray.__contains__ = _method_contains


def _clip_bounds(shape, bounds):
    """The bounds as NumPy's clip ufunc takes them: arrays and Python/NumPy scalars as they are,
    any other value through asarray (a list bound is an array; a ragged one is asarray's
    ValueError). A value NumPy holds only as an object array (a dtype object, an arbitrary
    object) selects its object loop: the operands' broadcast is checked first (ValueError), then
    the loop's comparison fails (TypeError)."""
    out, objects = [], []
    for v in bounds:
        if v is None or isinstance(v, (_C.ndarray, bool, int, float, complex, _np.generic)):
            out.append(v)
            continue
        from .errors import AscendTypeError, AscendValueError, ErrorCode  # noqa: PLC0415

        try:
            kind = _np.asarray(v).dtype.kind
        except ValueError as e:
            raise AscendValueError(ErrorCode.INVALID_SHAPE, f"[clip] bound: {e}") from None
        if kind in "USVmM":  # strings, bytes, void, times: no clip loop (NumPy's UFuncTypeError)
            raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[clip] ufunc 'clip' did not contain a loop with "
                                                           f"signature matching types (bound {v!r})")
        if kind == "O":
            objects.append(v)
        out.append(v if kind == "O" else _arr(v))
    if objects:
        shapes = [shape] + [() if v is None else _np.shape(v.numpy() if isinstance(v, _C.ndarray) else v)
                            for v in bounds]
        try:
            out_shape = _np.broadcast_shapes(*shapes)
        except ValueError:
            raise AscendValueError(ErrorCode.INVALID_SHAPE, "[clip] operands could not be broadcast together with "
                                                            f"shapes {' '.join(str(s) for s in shapes)}") from None
        # NumPy allocates the object result before its loop compares anything: a huge one is that
        # allocation's ValueError/MemoryError (10^5 run seed 100: a 2**63-1 int8 view)
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("clip", out_shape, _np.dtype(object))
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[clip] a bound of type {type(objects[0]).__name__} "
                                                       f"({objects[0]!r}) is no number: NumPy's object loop "
                                                       "cannot compare it")
    return out


def _clip(x, min, max, out):  # noqa: A002
    r = _arr(x)  # (NumPy: asarray(a).clip(...): a Python scalar `a` is a strong float64/int64 array)
    kind = _np.dtype(_arr(r).dtype).kind
    if kind in "iu":
        # NumPy's ndarray.clip (numpy._core._methods._clip): a Python int bound at or beyond the
        # integer dtype's range bounds nothing and is dropped before any ufunc sees it (so
        # clip(int8, -2**64, 5) is minimum(a, 5), not NEP 50's out-of-bounds OverflowError)
        info = _np.iinfo(_arr(r).dtype)
        if type(min) is int and min <= info.min:  # noqa: E721 - (NumPy's test: not bool, not np.integer)
            min = None  # noqa: A001
        if type(max) is int and max >= info.max:  # noqa: E721
            max = None  # noqa: A001
    min, max = _clip_bounds(tuple(_arr(r).shape), (min, max))  # noqa: A001
    res = None
    if min is not None and max is not None:
        res = _np.dtype(result_type(r, *(0 if type(v) is int else v for v in (min, max))))  # noqa: E721
        if res.kind in "biu" and _builtins.any(type(v) is int and v < -(1 << 63) for v in (min, max)):
            # (an integer loop reads the int as a C long before the operands are broadcast)
            from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

            raise AscendOverflowError(ErrorCode.OVERFLOW, "[clip] Python int too large to convert to C long "
                                                          f"(a bound of {len(str(min if type(min) is int else max))} "
                                                          "digits)")
    if _builtins.any(type(v) is int and v >= 1 << 63 for v in (min, max)):
        # NumPy's clip ufunc broadcasts the operands before a Python int above int64 (uint64 or an
        # object) fails (x.clip(array of 2, 2**100) of 5 elements is the broadcast ValueError; a
        # negative one below int64 is its conversion's OverflowError first)
        shapes = [tuple(_arr(r).shape)] + [tuple(v.shape) for v in (min, max) if isinstance(v, _C.ndarray)]
        try:
            _np.broadcast_shapes(*shapes)
        except ValueError:
            from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

            raise AscendValueError(ErrorCode.INVALID_SHAPE, "[clip] operands could not be broadcast together with "
                                                            f"shapes {' '.join(str(s) for s in shapes)}") from None
    if min is not None and max is not None:
        # NumPy's clip ufunc promotes the three operands together (Python scalars weak) and computes
        # in that one dtype: clip(uint8, 1.5, float16 array) is float16 and clip(bool, 0, int8 0-d)
        # int8, where maximum then minimum would promote pairwise (float64, int64). A Python int
        # bound is converted to a float result dtype (clip(int8, 2**64, 1.5): inf beyond float16,
        # OverflowError beyond float64), where maximum(int8, 2**64) alone is NEP 50's OverflowError.
        # bfloat16 has no clip loop in ml_dtypes 0.7: NumPy 2.4 computes it in float32.
        loop = _np.dtype(_np.float32) if res == _BF16 else res
        if res.kind in "fc":
            conv = []
            for v in (min, max):
                if type(v) is int:  # noqa: E721
                    try:
                        v = _C.asarray(_np.asarray(v, dtype=loop))
                    except OverflowError as e:
                        raise _errors.AscendOverflowError(_errors.ErrorCode.OVERFLOW,
                                                          f"[clip] bound {v}: {e}") from None
                conv.append(v)
            min, max = conv  # noqa: A001
        if _np.dtype(_arr(r).dtype) != loop:
            r = _C.astype(_arr(r), loop)
    if min is None and max is None:
        # NumPy: um.positive, a TypeError for bool (it has no bool loop), before any allocation
        if _np.dtype((r if isinstance(r, _C.ndarray) else _arr(r)).dtype) == _np.bool_:
            from .errors import AscendTypeError, ErrorCode

            raise AscendTypeError(ErrorCode.INVALID_DTYPE, "[clip] ufunc 'positive' did not contain a loop with "
                                                           "signature matching types bool (no min and no max)")
        r = _C.positive(r)
    if min is not None:
        r = _C.maximum(r, min)
    if max is not None:
        r = _C.minimum(r, max)
    if out is not None:
        out[...] = r
        return out
    return r


def _method_round(self, decimals=0, out=None):
    """The array rounded to ``decimals`` decimals (``ndarray.round``; see :func:`round`)."""
    return round(self, decimals, out)


def round(x, decimals=0, out=None):  # noqa: A001 - NumPy's name
    """``x`` rounded to ``decimals`` decimals, halves to even (integers are returned as they are
    for ``decimals >= 0``)."""
    if type(decimals) is not int or not -(1 << 31) <= decimals < (1 << 31):  # noqa: E721
        decimals = _round_decimals(decimals)
    a = _arr(x)
    if out is not None:
        if not isinstance(out, (_C.ndarray, _np.ndarray)):  # (ndarray.round's PyArray_OutputConverter)
            from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

            raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[round] output must be an array (out is a "
                                                           f"{type(out).__name__})")
        return _round_into(a, decimals, out)
    if a.dtype.kind in "iu" and decimals >= 0:
        r = a.copy()
    elif a.dtype.kind == "b" and decimals != 0:
        # NumPy's PyArray_Round computes into an array of x's own dtype: bool cannot hold the quotient
        op = "multiply" if decimals > 0 else "true_divide"
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE,
                                      f"[round] Cannot cast ufunc '{op}' output from dtype('float64') to "
                                      "dtype('bool') with casting rule 'same_kind'")
    elif a.dtype.kind in "iu":
        # NumPy: x / 10**-decimals in float64, rint, times 10**-decimals, cast back to x's dtype
        f = _power_of_ten(-decimals)
        r = _C.astype(_C.multiply(_C.rint(_C.true_divide(_C.astype(a, _np.float64), f)), f), a.dtype)
    elif a.dtype.kind == "c" and decimals != 0:  # NumPy rounds each part alone (inf/NaN stay in their part)
        r = a.copy()
        r.real = round(a.real, decimals)
        r.imag = round(a.imag, decimals)
    elif decimals == 0:
        r = _C.rint(a)
    else:
        f = 10.0 ** decimals
        r = _C.true_divide(_C.rint(_C.multiply(a, f)), f) if decimals > 0 else \
            _C.multiply(_C.rint(_C.true_divide(a, 10.0 ** -decimals)), 10.0 ** -decimals)
    if out is not None:
        out[...] = r
        return out
    return r


def _round_into(a, decimals, out):
    """``round(a, decimals, out=out)`` step by step as NumPy's PyArray_Round: each step is a ufunc
    writing into ``out`` (so it computes in out's dtype and its same_kind casting errors are
    NumPy's): complex parts set one by one (a real ``out`` has no imaginary part to set), integers
    with decimals >= 0 assigned with same_kind casting, else rint, or multiply/divide by 10**|d|,
    rint, divide/multiply back -- all in ``out``."""
    from . import numeric as _numeric  # noqa: PLC0415 - (the ufuncs with NumPy's out= rules import this module)
    from ._ufunc import _te  # noqa: PLC0415

    if out.size != a.size:  # PyArray_Round's first check: sizes, not shapes (() into (1,) is fine)
        raise _errors.AscendValueError(_errors.ErrorCode.INVALID_SHAPE, "[round] invalid output shape "
                                       f"(out {tuple(out.shape)} for an array of shape {tuple(a.shape)})")
    k = a.dtype.kind
    if k == "c":
        if _np.dtype(out.dtype).kind != "c":
            raise _te("[round] array does not have imaginary part to set (a complex array rounded into a real out)")
        out.real = round(a.real, decimals)
        out.imag = round(a.imag, decimals)
        return out
    if k in "iu" and decimals >= 0:
        if not _np.can_cast(a.dtype, out.dtype, "same_kind"):
            raise _te(f"[round] Cannot cast array data from dtype('{a.dtype}') to dtype('{out.dtype}') according to "
                      "the rule 'same_kind'")
        out[...] = a
        return out
    if decimals == 0:
        return _numeric.rint(a, out=out)
    f = _power_of_ten(abs(decimals))
    first, then = ("multiply", "true_divide") if decimals > 0 else ("true_divide", "multiply")
    getattr(_numeric, first)(a, f, out=out)
    _numeric.rint(out, out=out)
    getattr(_numeric, then)(out, f, out=out)
    return out


def _power_of_ten(n):
    """10.0**n as NumPy's round computes it (a product of tens, inf beyond float64's range)."""
    try:
        return 10.0 ** n
    except OverflowError:
        return float("inf")


def _round_decimals(decimals):
    """``decimals`` as ndarray.round parses it, before the array is read: an integer (an array
    of more than 0 dimensions is NumPy's TypeError), within a C int (OverflowError)."""
    from .errors import AscendOverflowError, AscendTypeError, ErrorCode

    try:
        d = _operator.index(decimals)
    except TypeError as e:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[round] decimals: {e}") from None
    if not -(1 << 31) <= d < (1 << 31):
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[round] decimals {d}: signed integer is greater than maximum")
    return d


around = round


__all__ = [
    "finfo", "iinfo", "can_cast", "isdtype", "result_type",
    "linspace", "eye", "identity", "tri", "tril", "triu", "meshgrid",
    "ravel", "swapaxes", "moveaxis", "flip",
    "clip", "round", "around",
]

_C.ndarray.round = _method_round  # (after the namespace's round is defined)
