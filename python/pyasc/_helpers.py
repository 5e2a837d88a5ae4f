"""Private helpers shared by the namespace's section modules (not public).

The AscendError constructors (``_VE``/``_TE``/``_IE``/``_OE``/``_NIE``: the
python/pyasc/errors.py subclasses with NumPy's builtin bases, messages starting
with ``[op]``), argument normalisation (``_arr``, ``_axis``, ``_norm_axis``,
``_axes``, ``_moveaxis``, ``_bshape``, ``_to_out``), dtype probes (``_dt``,
``_kind``, ``_is_inexact``, ``_dt_or_scalar``, ``_np_dtype``) and ``_host``.
"""

from __future__ import annotations

import operator as _operator
import warnings as _warnings

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _namespace as _ns
from . import errors as _errors

_INTP = _np.dtype(_np.intp)


# The AscendError subclasses (each also the builtin NumPy raises); messages start with "[op]".
def _VE(msg):  # noqa: N802
    return _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, msg)


def _TE(msg):  # noqa: N802
    return _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, msg)


def _IE(msg):  # noqa: N802
    return _errors.AscendIndexError(_errors.ErrorCode.INDEX_OUT_OF_RANGE, msg)


def _OE(msg):  # noqa: N802
    return _errors.AscendOverflowError(_errors.ErrorCode.OVERFLOW, msg)


_arr = _ns._arr
_axis = _ns._axis


def _bshape(name, *shapes):
    """The broadcast shape, or an AscendValueError naming the op and the shapes."""
    try:
        return _np.broadcast_shapes(*shapes)
    except ValueError:
        raise _VE(f"[{name}] shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together") \
            from None


def _dt_or_scalar(x):
    """A result_type argument: Python scalars stay weak (NEP 50), arrays give their dtype."""
    if isinstance(x, (bool, int, float, complex)):
        return x
    if isinstance(x, _C.ndarray):
        return x.dtype
    return _np.asarray(x).dtype


def _host(x):
    """A NumPy view (zero-copy, ``ndarray.numpy()``: the dtype NumPy's repr expects) of a pyasc
    array; other objects unchanged."""
    return x.numpy() if isinstance(x, _C.ndarray) else x

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


def _NIE(msg):
    return _errors.AscendNotImplementedError(_errors.ErrorCode.FEATURE_UNSUPPORTED, msg)


def _dt(x):
    return _np.dtype(x.dtype)


def _kind(x):
    d = _dt(x)
    return "f" if d == _BF16 else d.kind


def _is_inexact(x):
    return _kind(x) in "fc"


def _warn(msg):
    _warnings.warn(msg, RuntimeWarning, stacklevel=3)


_C_INT = 1 << 31
_MAX_REQUEST = 1 << 60  # the memory pool's largest supported allocation (kMaxRequest, src/runtime/memory_pool.cc)


_COMMIT = []


def _host_commit_limit():
    """The largest single allocation the host can grant: the pool's limit when one is set, else
    RAM + swap -- Linux's heuristic overcommit refuses one malloc beyond that, so NumPy's own
    allocation of such a result is its MemoryError on this machine (a 16 TiB copy of a broadcast
    view fails at once, before NumPy's later checks)."""
    lim = _C.get_memory_limit()
    if lim:
        return lim
    return _ram_and_swap()


def _ram_and_swap():
    """The host's RAM + swap in bytes (read once)."""
    if not _COMMIT:
        total = 0
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith(("MemTotal:", "SwapTotal:")):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            total = 0
        _COMMIT.append(total or _MAX_REQUEST)
    return _COMMIT[0]


# What NumPy holds per entry when it turns an array into a sequence (PySequence_Fast's list, or
# concatenate/lexsort's PySequence_GetItem per entry): an 8-byte list slot plus one Python object
# per row -- a NumPy scalar (~32 bytes) for the entries of a 1-d array, else an ndarray view
# (112 bytes, 16 more per dimension beyond the first); measured with tracemalloc on NumPy 2.4.
_SEQ_SLOT, _SEQ_SCALAR, _SEQ_VIEW, _SEQ_VIEW_DIM = 8, 32, 112, 16


def _process_memory_limit():
    """The memory this process could still get for Python objects: its address-space limit
    (RLIMIT_AS, set by the fuzz harness's workers and by ulimit -v) or else RAM + swap."""
    limit = _ram_and_swap()
    try:
        import resource  # noqa: PLC0415 - (POSIX only)

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY and soft > 0:
            limit = min(limit, soft)
    except (ImportError, OSError, ValueError):
        pass
    return limit


def _sequence_fits(n, row_ndim):
    """Whether NumPy could hold an array of ``n`` rows (each of ``row_ndim`` dimensions) as a
    sequence of Python objects, as its PySequence_Fast (a list) and concatenate/lexsort/einsum's
    per-entry PySequence_GetItem make one: n x (list slot + row object) against the memory this
    process could get. A huge broadcast view used as a sequence (2**31 x 2**31: 2**31 row views,
    ~250 GB) is NumPy's MemoryError at once under an address-space limit (its list alone is
    16 GiB) and a run into the OOM killer without one; pyasc decides it from the shape alone and
    never iterates such a view."""
    per = _SEQ_SLOT + (_SEQ_SCALAR if row_ndim <= 0 else _SEQ_VIEW + _SEQ_VIEW_DIM * (row_ndim - 1))
    return n * per <= _process_memory_limit()


def _check_sequence(op, seq, what="arrays", axis=0):
    """NumPy's MemoryError when ``seq`` -- a pyasc or NumPy array used as a sequence argument
    (``concatenate(x)``, ``stack(x)``, ``lexsort(x)``, an einsum sublist; ``unstack`` iterates
    ``axis``) -- has more rows than NumPy could hold as Python objects (:func:`_sequence_fits`);
    anything else passes."""
    if isinstance(seq, (_C.ndarray, _np.ndarray)) and seq.ndim and not _sequence_fits(seq.shape[axis], seq.ndim - 1):
        raise _errors.AscendMemoryError(_errors.ErrorCode.BAD_ALLOC,
                                        f"[{op}] cannot hold a sequence of {seq.shape[axis]} {what} (the rows of "
                                        f"the array of shape {tuple(seq.shape)} given as the sequence)")


def _alloc_check(name, shape, dtype):
    """The error NumPy's allocation of a ``shape``/``dtype`` result raises, for a function that
    allocates it before any other check can fail (a huge broadcast view as input): ValueError
    when the byte count overflows intp, MemoryError above the pool's largest allocation."""
    n = 1
    for d in shape:
        n *= int(d)
    nbytes = n * _np.dtype(dtype).itemsize
    if nbytes > (1 << 63) - 1:
        raise _VE(f"[{name}] array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                  f"possible size (shape {tuple(shape)}, dtype {_np.dtype(dtype)})")
    if nbytes > _MAX_REQUEST or nbytes > _host_commit_limit():
        raise _errors.AscendMemoryError(_errors.ErrorCode.BAD_ALLOC,
                                        f"[{name}] unable to allocate {nbytes} bytes for an array with shape "
                                        f"{tuple(shape)} and data type {_np.dtype(dtype)}")


def _norm_axis(axis, ndim, name):
    """NumPy's ``normalize_axis_index``: an integer (TypeError), a C int (OverflowError), in range
    (AxisError)."""
    try:
        a = _operator.index(axis)
    except TypeError as e:  # (its own text, as NumPy's: "'str' object cannot be interpreted as an integer")
        raise _TE(f"[{name}] {e} (axis)") from None
    if not -_C_INT <= a < _C_INT:
        width = "C long" if not -(1 << 63) <= a < (1 << 63) else "C int"  # (PyLong_AsLong fails first)
        raise _OE(f"[{name}] axis {a}: Python int too large to convert to {width}")
    if not -ndim <= a < ndim:
        raise _np.exceptions.AxisError(a, ndim)
    return a % ndim


def _axes(axis, ndim, name):
    """NumPy's ``normalize_axis_tuple``: an integer, else any iterable of integers (a tuple, a list,
    an array of axes, a str), element by element in order, then the repeat check."""
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, (tuple, list)):
        try:
            axis = (_operator.index(axis),)
        except TypeError:
            if isinstance(axis, _C.ndarray):
                if axis.ndim > 1 and axis.shape[0]:  # its entries are arrays (found without iterating)
                    raise _TE(f"[{name}] only integer scalar arrays can be converted to a scalar index (axis "
                              f"given as an array of shape {tuple(axis.shape)})") from None
                if axis.size > 64:  # (a huge broadcast view: never iterated; more axes than any ndim)
                    _norm_axis(axis.numpy().flat[0], ndim, name)
                    raise _VE(f"[{name}] repeated axis: {axis.size} axes given") from None
                axis = list(axis.numpy())
            elif not hasattr(axis, "__iter__"):
                raise _TE(f"[{name}] axis must be an integer or a tuple of integers, not "
                          f"{type(axis).__name__}") from None
    axs = tuple(_norm_axis(a, ndim, name) for a in axis)
    if len(set(axs)) != len(axs):
        raise _VE(f"[{name}] repeated axis in {axis!r}")
    return axs


def _moveaxis(x, src, dst):
    order = [i for i in range(x.ndim) if i not in src]
    perm = list(order)
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _C.transpose(x, tuple(perm))


def _to_out(res, out):
    if out is None:
        return res
    _C._copy_into(out, res)
    return out


def _np_dtype(fn, dt, *args, **kw):
    """NumPy's result dtype of ``fn`` for a 1-element dummy of ``dt`` (no data involved); NumPy's
    refusal (quantile of bool data: the bool subtract) is its class as a pyasc error."""
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        try:
            return _np.asarray(fn(_np.ones(1, dt), *args, **kw)).dtype
        except (TypeError, ValueError) as e:
            if isinstance(e, _errors.AscendError) or type(e) not in (TypeError, ValueError):
                raise
            raise (_TE if isinstance(e, TypeError) else _VE)(f"[{getattr(fn, '__name__', fn)}] {e}") from None
