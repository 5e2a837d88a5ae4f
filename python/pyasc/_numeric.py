"""NumPy's ``_core/numeric`` names composed on pyasc arrays (this is not
:mod:`pyasc.numeric`, the aggregator that re-exports every section).

``indices``, ``fromfunction``, the comparisons ``isclose``/``allclose``/
``array_equal``/``array_equiv``, ``correlate``/``convolve`` (direct loops,
or blocked GEMMs over BLAS for long float/complex filters), ``isscalar``,
``cross``, ``rollaxis``, ``isfortran``, ``broadcast_shapes`` (NumPy's
``lib/_stride_tricks_impl``), the host string formatters ``binary_repr``/
``base_repr`` and the constants ``e``, ``pi``, ``euler_gamma``, ``inf``,
``nan`` and ``newaxis``.
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import operator as _operator
import warnings as _warnings

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from ._helpers import _BF16, _OE, _TE, _VE, _arr, _bshape, _dt, _is_inexact, _kind

__all__ = [
    "indices", "fromfunction", "allclose", "isclose", "array_equal", "array_equiv", "convolve", "correlate",
    "isscalar", "cross", "rollaxis", "isfortran", "broadcast_shapes", "binary_repr", "base_repr",
    "e", "pi", "euler_gamma", "inf", "nan", "newaxis",
]

# NumPy's constants (plain Python floats and None, as NumPy's).
e = _math.e
pi = _math.pi
euler_gamma = 0.5772156649015329
inf = _math.inf
nan = _math.nan
newaxis = None


def indices(dimensions, dtype=int, sparse=False):
    """An index grid: ``res[i][...] = index along axis i`` (``numpy.indices``)."""
    if isinstance(dimensions, (_C.ndarray, _np.ndarray)) and dimensions.ndim and dimensions.shape[0] > 64:
        # (a huge broadcast view is never iterated) NumPy's tuple(dimensions) of 2**40 or more entries
        # cannot be allocated (MemoryError); a shorter one is more dimensions than an array can have
        n = dimensions.shape[0]
        if n >= 1 << 40:
            from .errors import AscendMemoryError, ErrorCode  # noqa: PLC0415

            raise AscendMemoryError(ErrorCode.BAD_ALLOC, f"[indices] unable to make a tuple of the {n} dimensions")
        raise _VE(f"[indices] maximum supported dimension for an ndarray is currently 64, found {n + 1}")
    dimensions = tuple(dimensions)
    nd = len(dimensions)
    if not sparse:  # NumPy allocates empty((N,) + dimensions) first: its shape errors
        # (empty converts the shape to integers, then the dtype, then checks the extents: a bad
        # dtype beside a negative extent is the dtype's TypeError)
        try:
            ints = [_operator.index(d) for d in dimensions]
        except TypeError:
            ints = None
        if ints is not None and _builtins.all(-(1 << 63) <= v < (1 << 63) for v in ints):
            from ._signatures import check_dtype  # noqa: PLC0415

            check_dtype("indices", dtype)
        _shape_dims("indices", (nd,) + dimensions)
    if nd or not sparse:  # then empty's (or the first arange's) dtype: an array is NumPy's TypeError
        from ._signatures import check_dtype  # noqa: PLC0415

        check_dtype("indices", dtype)
    parts = []
    for i, d in enumerate(dimensions):
        idx = _C.array(_np.arange(d, dtype=dtype)).reshape((1,) * i + (d,) + (1,) * (nd - i - 1))
        parts.append(idx if sparse else _C.broadcast_to(idx, dimensions))
    if sparse:
        return tuple(parts)
    if nd == 0:
        return _C.empty((0,), dtype)
    return _man.stack(parts)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``function(*indices(shape, dtype))``, the index grids on the device (``numpy.fromfunction``)."""
    if like is not None:
        raise _TE("[fromfunction] like= is not supported by pyasc")
    return function(*indices(shape, dtype=dtype), **kwargs)


# ------------------------------------------------------------------ comparison


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (NaN equal to NaN when ``equal_nan``), as ``numpy.isclose``."""
    # As NumPy 2: Python scalars stay weak, y is made inexact (no integer overflow in |a - b|).
    x, y, atol, rtol = (v if isinstance(v, (int, float, complex)) else _arr(v) for v in (a, b, atol, rtol))
    if isinstance(y, _C.ndarray):
        if _kind(y) not in "fc":
            y = _C.astype(y, _np.result_type(_dt(y), 1.0))
    elif isinstance(y, int):
        y = float(y)
    if not isinstance(x, _C.ndarray) and not isinstance(y, _C.ndarray):
        x = _arr(x)
    dif = _C.absolute(_C.subtract(x, y))
    r = _C.logical_or(_C.logical_and(_C.less_equal(dif, _C.add(atol, _C.multiply(rtol, _C.absolute(y)))),
                                     _C.isfinite(y)), _C.equal(x, y))
    if equal_nan:
        r = _C.logical_or(r, _C.logical_and(_C.isnan(x), _C.isnan(y)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is close to ``b`` (see :func:`isclose`); a Python bool."""
    return bool(_C.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """True if the arrays have the same shape and elements (NaN == NaN when ``equal_nan``)."""
    x, y = _arr(a1), _arr(a2)
    if tuple(x.shape) != tuple(y.shape):
        return False
    eq = _C.equal(x, y)
    if equal_nan and (_is_inexact(x) or _is_inexact(y)):
        eq = _C.logical_or(eq, _C.logical_and(_C.isnan(x), _C.isnan(y)))
    return bool(_C.all(eq))


def array_equiv(a1, a2):
    """True if the arrays broadcast to each other and are equal elementwise."""
    from .errors import AscendTypeError  # noqa: PLC0415

    try:
        x = _arr(a1)
    except AscendTypeError:  # None, a str, an int beyond uint64: no pyasc dtype holds it
        x = None
    try:
        y = _arr(a2)
    except AscendTypeError:
        y = None
    if x is None or y is None:
        # NumPy holds such a value as an object/str array, whose `==` with numbers is all False:
        # equal only when both are such host values (NumPy decides), or when the broadcast is empty
        if x is None and y is None:
            return bool(_np.array_equiv(a1, a2))
        try:
            shape = _np.broadcast_shapes(tuple(x.shape) if x is not None else _np.shape(a1),
                                         tuple(y.shape) if y is not None else _np.shape(a2))
        except ValueError:
            return False
        return _math.prod(shape) == 0
    try:
        _np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        return False
    return bool(_C.all(_C.equal(x, y)))


def _correlate_full(a, v, rdt):
    """full-mode correlation ``c[k] = sum_j a[k + j - (m - 1)] v[j]`` (length n + m - 1) on the device.

    Shift-and-add over the shorter operand: one fused multiply-add of a shifted view of the
    zero-padded longer operand per tap, so the work is O((n + m) min(n, m)) with O(n + m) memory.
    """
    n, m = a.shape[0], v.shape[0]
    if m > n:  # c_av[k] = c_va[L - 1 - k]: loop over the shorter one
        return _correlate_full(v, a, rdt)[::-1]
    L = n + m - 1
    if _np.dtype(rdt) in (_np.dtype(_np.float16), _BF16):
        # NumPy's half (and ml_dtypes' bfloat16) dot sums the products in float32 and rounds the
        # sum once: summed in float16, 1800 * 114 + (-413) * 656 overflowed to inf - inf = NaN
        # where NumPy has -1308 (the products of two halves are exact in float32)
        return _C.astype(_correlate_full(_C.astype(a, _np.float32), _C.astype(v, _np.float32), _np.float32), rdt)
    a = _C.astype(a, rdt)
    v = _C.astype(v, rdt)
    if _np.dtype(rdt).kind in "fc" or _np.dtype(rdt) == _BF16:
        if m > 1 and not bool(_C.all(_C.isfinite(v))) or m >= _BLOCKED_MIN_TAPS and not bool(_C.all(_C.isfinite(a))):
            # NumPy sums only the overlapping products: a zero pad times an inf/NaN tap (or, in the
            # GEMM, a masked-out zero times an inf of a) would be a NaN NumPy never computes
            return _correlate_full_unpadded(a, v, rdt, n, m)
    if m >= _BLOCKED_MIN_TAPS and _np.dtype(rdt) in _BLAS_DTYPES:
        return _correlate_full_blocked(a, v, rdt, n, m)
    if m > 1:
        pad = _C.full((m - 1,), 0, rdt)
        a = _C.concatenate([pad, a, pad], 0)
    boolean = _np.dtype(rdt).kind == "b"
    acc = None
    for j in range(m):
        term = _C.logical_and(a[j:j + L], v[j]) if boolean else _C.multiply(a[j:j + L], v[j])
        acc = term if acc is None else (_C.logical_or(acc, term) if boolean else _C.add(acc, term))
        if j % 32 == 31:
            acc = _C.astype(acc, rdt)  # materialise now and then: bounds the pending lazy graph
    return _C.astype(acc, rdt)


def _correlate_full_unpadded(a, v, rdt, n, m):
    """full-mode correlation from the overlapping products only (n >= m): tap j's products
    ``a * v[j]`` land at outputs m - 1 - j ... n + m - 2 - j; the zeros around them are added,
    never multiplied, so an inf/NaN of either operand reaches exactly the outputs NumPy's dot
    products give it."""
    acc = None
    for j in range(m):
        parts = [_C.multiply(a, v[j])]
        if m - 1 - j:
            parts.insert(0, _C.full((m - 1 - j,), 0, rdt))
        if j:
            parts.append(_C.full((j,), 0, rdt))
        term = _C.concatenate(parts, 0) if len(parts) > 1 else parts[0]
        acc = term if acc is None else _C.add(acc, term)
        if j % 32 == 31:
            acc = _C.astype(acc, rdt)  # materialise now and then: bounds the pending lazy graph
    return _C.astype(acc, rdt)


_BLOCKED_MIN_TAPS = 64
_BLAS_DTYPES = (_np.dtype(_np.float32), _np.dtype(_np.float64), _np.dtype(_np.complex64), _np.dtype(_np.complex128))
_BLOCKED_CHUNK = 1 << 22  # elements of the gathered operand per GEMM (bounds memory)


def _correlate_full_blocked(a, v, rdt, n, m):
    """full-mode correlation as block-Toeplitz GEMMs (both operands long: BLAS speed, not one pass per tap).

    With block b, output ``k = b p + r`` and tap ``j = b s + t``:
    ``c[b p + r] = sum_s sum_u A2[p + s, u] T_s[u, r]`` where ``A2[q, u] = apad[b q + u]`` (u < 2b)
    and ``T_s[u, r] = v[b s + u - r]`` for ``0 <= u - r < b`` (else 0). Stacking the s blocks makes it
    one GEMM ``(P, 2bS) @ (2bS, b)`` per chunk of output blocks: 4 L m flops, gathers of 2 L m / b.
    Only index arithmetic (from the lengths) runs on the host.
    """
    b = 64 if m < 512 else 128
    L = n + m - 1
    P = -(-L // b)
    S = -(-m // b)
    # apad = [0]*(m-1) + a + zeros up to (P + S + 1) b elements
    tail = (P + S + 1) * b - (n + m - 1)
    apad = _C.concatenate([_C.full((m - 1,), 0, rdt), a, _C.full((tail,), 0, rdt)], 0)
    # vext = v + zeros up to S b, then one zero that the masked-out Toeplitz entries point at
    vext = _C.concatenate([v, _C.full((S * b - m + 1,), 0, rdt)], 0)
    u = _np.arange(2 * b, dtype=_np.int64)
    r = _np.arange(b, dtype=_np.int64)
    d = u[:, None] - r[None, :]                                   # (2b, b): u - r
    sblk = _np.arange(S, dtype=_np.int64)[:, None, None] * b
    tidx = _np.where((d >= 0) & (d < b), sblk + d, S * b)           # (S, 2b, b)
    tbig = _C.take(vext, _C.asarray(tidx.reshape(S * 2 * b, b)), 0, "raise")
    rows = _builtins.max(1, _BLOCKED_CHUNK // (S * 2 * b))
    cols = (_np.arange(S, dtype=_np.int64)[:, None] * b + u[None, :]).reshape(-1)  # b s + u
    parts = []
    for p0 in range(0, P, rows):
        p = _np.arange(p0, _builtins.min(P, p0 + rows), dtype=_np.int64)
        aidx = p[:, None] * b + cols[None, :]                     # b (p + s) + u
        abig = _C.take(apad, _C.asarray(aidx), 0, "raise")
        parts.append(_C.reshape(_C.matmul(abig, tbig), (-1,)))
    full = parts[0] if len(parts) == 1 else _C.concatenate(parts, 0)
    return full[:L]


def _mode_slice(full, n, m, mode, swapped=False):
    if mode == "full":
        return full
    if mode == "same":
        k = (_builtins.min(n, m) - 1) // 2
        if swapped:  # NumPy correlates (v, a) and reverses: the window starts from the other end
            k = _builtins.min(n, m) - 1 - k
        return full[k:k + _builtins.max(n, m)]
    return full[_builtins.min(n, m) - 1:_builtins.max(n, m)]


def _check_1d(a, v, name):
    a, v = _arr(a), _arr(v)
    if a.ndim > 1 or v.ndim > 1:
        raise _VE(f"[{name}] object too deep for desired array (shapes {tuple(a.shape)}, {tuple(v.shape)})")
    a, v = _C.reshape(a, (-1,)), _C.reshape(v, (-1,))
    if a.shape[0] == 0:
        raise _VE(f"[{name}] a cannot be empty")
    if v.shape[0] == 0:
        raise _VE(f"[{name}] v cannot be empty")
    return a, v


def _conv_mode(name, mode):
    """NumPy's PyArray_CorrelatemodeConverter: 'valid'/'same'/'full' (another str: ValueError), or
    an int 0/1/2 (another int: ValueError); a bool, a float, None, bytes or an int beyond a C int
    are its TypeError."""
    if isinstance(mode, str):
        if mode in ("valid", "same", "full"):
            return mode
        if len(mode) <= 1 or mode.lower() in ("valid", "same", "full"):
            raise _VE(f"[{name}] Use one of 'valid', 'same', or 'full' for convolve/correlate mode (got {mode!r})")
        raise _VE(f"[{name}] mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    if isinstance(mode, (bool, _np.bool_)) or not isinstance(mode, (int, _np.integer)) or \
            not -(1 << 31) <= int(mode) < (1 << 31):
        raise _TE(f"[{name}] convolve/correlate mode not understood (got {mode!r})")
    if int(mode) not in (0, 1, 2):
        raise _VE(f"[{name}] integer convolve/correlate mode must be 0, 1, or 2 (got {int(mode)})")
    return ("valid", "same", "full")[int(mode)]


def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-d sequences, ``c[k] = sum_n a[n + k] * conj(v[n])`` (modes full/same/valid)."""
    mode = _conv_mode("correlate", mode)  # NumPy's argument converter: before the operands
    if _np.ndim(a) == 0 or _np.ndim(v) == 0:  # NumPy's correlate (unlike convolve) wants 1-d operands
        raise _VE(f"[correlate] object of too small depth for desired array (shapes {_np.shape(a)}, {_np.shape(v)})")
    a, v = _check_1d(a, v, "correlate")
    rdt = _np.result_type(_dt(a), _dt(v))
    n, m = a.shape[0], v.shape[0]
    if _kind(v) == "c":
        v = _C.conjugate(v)
    full = _correlate_full(a, v, rdt)  # the gather handles len(v) > len(a) directly
    return _mode_slice(full, n, m, mode, n < m)


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-d sequences (modes full/same/valid)."""
    # NumPy's convolve: array(x, ndmin=1) of both, the emptiness of len() of a then of v (before
    # the longer one is put first), then correlate converts the mode, then the 1-d depth check
    a, v = _arr(a), _arr(v)
    la, lv = (a.shape[0] if a.ndim else 1), (v.shape[0] if v.ndim else 1)
    if la == 0:
        raise _VE("[convolve] a cannot be empty")
    if lv == 0:
        raise _VE("[convolve] v cannot be empty")
    mode = _conv_mode("convolve", mode)
    a, v = _check_1d(a, v, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    rdt = _np.result_type(_dt(a), _dt(v))
    full = _correlate_full(a, v[::-1], rdt)
    return _mode_slice(full, a.shape[0], v.shape[0], mode)


def isscalar(element):
    """Whether ``element`` is a scalar (Python/NumPy number, str, bytes, ...); arrays are not."""
    if isinstance(element, _C.ndarray):
        return False
    return _np.isscalar(element)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of (arrays of) 2- or 3-element vectors (``numpy.cross``).

    ``axisa``/``axisb`` name the vector axis of each input, ``axisc`` the result's (``axis``
    sets all three). Two 2-vectors give the z component only; 2-vectors are deprecated in
    NumPy 2 and warn as there. Computed with broadcast elementwise device ops."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:  # NumPy's first check, before the axes are read
        raise _VE(f"[cross] At least one array has zero dimension (shapes {tuple(a.shape)}, {tuple(b.shape)})")
    a = _ns.moveaxis(a, _operator.index(axisa), -1)
    b = _ns.moveaxis(b, _operator.index(axisb), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise _VE(f"[cross] incompatible dimensions for cross product (dimension must be 2 or 3), "
                  f"got vectors of {na} and {nb} elements")
    if na == 2 or nb == 2:
        _warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional vectors "
                       "instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=2)
    shape = _bshape("cross", tuple(a.shape[:-1]), tuple(b.shape[:-1]))
    if na == 3 or nb == 3:  # NumPy checks axisc against the result's rank before computing
        try:
            axisc = _ns._axis(axisc, len(shape) + 1)
        except _np.exceptions.AxisError:
            raise _np.exceptions.AxisError(_operator.index(axisc), len(shape) + 1, msg_prefix="axisc") from None
    dt = _ns.result_type(a, b)
    a, b = _C.astype(a, dt), _C.astype(b, dt)
    mul, sub = _C.multiply, _C.subtract
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    z = sub(mul(a0, b1), mul(a1, b0))
    if na == 2 and nb == 2:
        return z  # the elementwise ops broadcast: z has the broadcast shape
    if na == 3 and nb == 3:
        a2, b2 = a[..., 2], b[..., 2]
        x, y = sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2))
    elif na == 2:  # a2 = 0
        b2 = b[..., 2]
        x, y = mul(a1, b2), _C.negative(mul(a0, b2))
    else:  # b2 = 0
        a2 = a[..., 2]
        x, y = _C.negative(mul(a2, b1)), mul(a2, b0)
    parts = [_C.broadcast_to(c, shape) for c in (x, y, z)]
    res = _man.stack(parts, axis=-1)
    return _ns.moveaxis(res, -1, _operator.index(axisc))


def rollaxis(a, axis, start=0):
    """Rolls ``axis`` backwards until it lies before position ``start`` (a view; ``numpy.rollaxis``,
    kept by NumPy for compatibility: ``moveaxis`` is the clearer spelling)."""
    a = _arr(a)
    n = a.ndim
    axis = _operator.index(axis)
    if not -(1 << 31) <= axis < (1 << 31):  # NumPy's normalize_axis_index reads a C int
        from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[rollaxis] Python int too large to convert to C int ({axis})")
    if not -n <= axis < n:
        raise _np.exceptions.AxisError(axis, n)
    axis %= n
    start = _operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise _np.exceptions.AxisError(f"[rollaxis] 'start' arg requires {-n} <= start < {n + 1}")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = [i for i in range(n) if i != axis]
    axes.insert(start, axis)
    return _C.transpose(a, tuple(axes))


def isfortran(a):
    """Whether ``a`` is Fortran-contiguous and not also C-contiguous (``numpy.isfortran``)."""
    f = _arr(a).flags
    return bool(f.f_contiguous and not f.c_contiguous)


def broadcast_shapes(*args):
    """The shape that arrays of the given shapes broadcast to (``numpy.broadcast_shapes``;
    an int stands for a 1-d shape). ValueError naming the shapes when they do not broadcast."""
    # NumPy makes np.empty(shape, bool) of each: its shape conversion (an integer array is a
    # sequence of dimensions, a float a TypeError), then the negative check
    return _bshape("broadcast_shapes", *[_shape_dims("broadcast_shapes", s) for s in args])


def _shape_dims(name, shape):
    """``shape`` as np.empty reads it: NumPy's conversion errors, then ValueError for a negative
    dimension."""
    from ._signatures import intp_tuple  # noqa: PLC0415 - _signatures is imported after this module

    dims = intp_tuple(name, shape)
    if _builtins.any(d < 0 for d in dims):
        raise _VE(f"[{name}] negative dimensions are not allowed, got {dims}")
    return dims


def _host_int(num, name):
    if isinstance(num, _C.ndarray):
        if num.ndim != 0 or num.dtype.kind not in "biu":
            raise _TE(f"[{name}] needs an integer scalar, got an array of shape {tuple(num.shape)} and dtype "
                      f"{num.dtype}")
        return int(num.numpy()[()])
    return _operator.index(num)


def binary_repr(num, width=None):
    """The binary string of an integer (two's complement of ``width`` bits for negative numbers)
    (``numpy.binary_repr``: string formatting, done on the host)."""
    return _np.binary_repr(_host_int(num, "binary_repr"), width)


def base_repr(number, base=2, padding=0):
    """The string of ``number`` in ``base`` (2..36), left-padded with ``padding`` zeros
    (``numpy.base_repr``: string formatting, done on the host)."""
    try:  # NumPy checks the base first
        if base > 36 or base < 2:
            raise _VE(f"[base_repr] Bases {'greater than 36' if base > 36 else 'less than 2'} not handled "
                      f"(base={base!r})")
    except TypeError as e:
        raise _TE(f"[base_repr] {e}") from None
    if isinstance(number, str):  # NumPy: int(number) ('abc': ValueError), then number < 0 (TypeError)
        try:
            int(number)
        except ValueError as e:
            raise _VE(f"[base_repr] {e}") from None
        raise _TE(f"[base_repr] number must be an integer, not str ({number!r})")
    if isinstance(number, _C.ndarray):
        # NumPy's base_repr takes abs(int(number)): any real 0-d array (2.5 -> '10'); an array of
        # several elements is refused without being copied
        if number.size != 1:
            raise _TE(f"[base_repr] only 0-dimensional arrays can be converted to Python scalars (shape "
                      f"{tuple(number.shape)})")
        number = number.numpy()
    try:  # string formatting on the host, by NumPy's own rules (floats truncated, NaN/inf refused)
        return _np.base_repr(number, base, padding)
    except OverflowError as e:
        raise _OE(f"[base_repr] {e}") from None
    except TypeError as e:
        raise _TE(f"[base_repr] {e}") from None
    except ValueError as e:
        raise _VE(f"[base_repr] {e}") from None
