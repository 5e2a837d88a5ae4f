"""``pyasc.linalg``: ``numpy.linalg`` on pyasc arrays.

The factorisations are C++ over LAPACK (OpenBLAS): ``inv``/``solve`` (gesv),
``det``/``slogdet`` (getrf), ``cholesky`` (potrf), ``qr`` (geqrf/orgqr),
``svd``/``svdvals`` (gesdd), ``eigh``/``eigvalsh`` (syevd), ``lstsq`` (gelsd);
every one takes stacks of matrices (``lstsq``: one matrix, as NumPy). Like
NumPy (its _commonType), every LAPACK routine computes in double precision -- float32 and
complex64 operands are taken to float64/complex128 and the results cast back when every
operand is single precision; integers, bool and bfloat16 compute in float64; complex
operands use the z routines (mixed with real operands: complex64 results only when every
operand is float32 or complex64); singular values,
eigenvalues of ``eigh``, ``logabsdet``, residuals and norms are real. float16
raises TypeError. Norms, ``pinv``, ``matrix_rank``,
``matrix_power``, ``multi_dot``, ``cross``, ``cond``, ``tensorinv`` and
``tensorsolve`` compose those with the array ops.

Failures (singular matrix, not positive definite, non-square, no convergence)
raise :class:`LinAlgError` (``pyasc.AscendLinAlgError``, a subclass of
``numpy.linalg.LinAlgError`` and so of ``ValueError``).
"""

from __future__ import annotations

import math as _math
import operator as _operator
from collections import namedtuple as _namedtuple

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _linalg_products as _lns
from .errors import AscendLinAlgError as LinAlgError
from .errors import AscendTypeError as _TypeError
from .errors import AscendValueError as _ValueError
from .errors import ErrorCode as _Code

_L = _C._linalg
_BF16 = _np.dtype(_ml_dtypes.bfloat16)
_INEXACT = (_np.dtype(_np.float16), _np.dtype(_np.float32), _np.dtype(_np.float64),
            _np.dtype(_np.complex64), _np.dtype(_np.complex128))

# dtypes numpy.linalg computes in as they are (others become float64).
_LAPACK_KEEPS = (_np.dtype(_np.float32), _np.dtype(_np.float64), _np.dtype(_np.complex64), _np.dtype(_np.complex128))

SVDResult = _namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult = _namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = _namedtuple("QRResult", ["Q", "R"])
SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])

_arr = _lns._arr
_xp = _lns._xp
_shape_str = _lns._shape_str


def _linalg_error(op, msg):
    return LinAlgError(_Code.LINALG_ERROR, f"[{op}] {msg}")


def _assert_stacked_square(a, op):
    if a.ndim < 2:
        raise _linalg_error(op, f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise _linalg_error(op, f"Last 2 dimensions of the array must be square, got shape {_shape_str(a.shape)}")


# ------------------------------------------------------------------ LAPACK
#
# NumPy's linalg computes in double precision whatever the input ("in lite version, use higher
# precision (always double or cdouble)": _commonType) and casts the results to single precision
# when every operand is float32/complex64. pyasc does the same, so a float32 solve of an
# ill-conditioned system is NumPy's answer, not a float32 LU's (solve([[1, 65504], [0.5, -2.5]], A)
# is exactly the identity in NumPy; the float32 LU was 0.0039 off), and lstsq's default rcond
# (eps * max(M, N)) is float64's eps, as NumPy's.

_SINGLE = {_np.dtype(_np.float32): _np.dtype(_np.float64), _np.dtype(_np.complex64): _np.dtype(_np.complex128)}
_DOUBLE = {v: k for k, v in _SINGLE.items()}


def _square_first(a, op):
    """NumPy's _assert_stacked_2d/_assert_stacked_square run before its double-precision cast:
    a 1-d or non-square array is its LinAlgError even when the cast could not be allocated (a
    2**44-element float32 view given to cholesky was pyasc's MemoryError)."""
    if isinstance(a, (_C.ndarray, _np.ndarray)):
        if a.ndim < 2:
            raise _linalg_error(op, f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
        if a.shape[-1] != a.shape[-2]:  # (the binding's wording)
            raise _linalg_error(op, f"Last 2 dimensions of the array must be square, got shape {tuple(a.shape)}")


def _up(*xs):
    """(operands in double precision, whether NumPy's results are single precision). Non-array
    operands are left to the binding (its conversion and errors)."""
    out, single = [], True
    for x in xs:
        if isinstance(x, (_C.ndarray, _np.ndarray)):
            d = _np.dtype(x.dtype)
            if d in _SINGLE:
                x = _C.astype(_arr(x), _SINGLE[d])
            else:
                single = False
        else:
            single = False
        out.append(x)
    return out, single


def _down(r, single):
    """The results cast back to single precision (arrays of float64/complex128 only: an integer
    rank stays as it is)."""
    if not single:
        return r
    if isinstance(r, (tuple, list)):
        return type(r)(_down(v, single) for v in r) if type(r) in (tuple, list) else type(r)(*(_down(v, single)
                                                                                                for v in r))
    if isinstance(r, _C.ndarray) and _np.dtype(r.dtype) in _DOUBLE:
        return _C.astype(r, _DOUBLE[_np.dtype(r.dtype)])
    return r


def inv(a):
    """Inverse of each square matrix of the stack ``a`` (..., M, M)."""
    _square_first(a, "inv")
    (a,), single = _up(a)
    return _down(_L.inv(a), single)


def solve(a, b):
    """``x`` with ``a @ x == b``: ``b`` is one vector (M,) when 1-d, else a stack (..., M, K)."""
    (a, b), single = _up(a, b)
    return _down(_L.solve(a, b), single)


def det(a):
    """Determinant of each square matrix (LU factorisation)."""
    _square_first(a, "det")
    (a,), single = _up(a)
    return _down(_L.det(a), single)


def slogdet(a):
    """``(sign, logabsdet)`` of each square matrix: ``det = sign * exp(logabsdet)``."""
    _square_first(a, "slogdet")
    (a,), single = _up(a)
    return SlogdetResult(*_down(tuple(_L.slogdet(a)), single))


def cholesky(a, /, *, upper=False):
    """Cholesky factor: lower ``L`` with ``a = L @ L.mT`` (``upper``: ``U`` with ``a = U.mT @ U``)."""
    if not isinstance(upper, bool):  # NumPy: `if upper:` (an array of several elements is ambiguous)
        try:
            upper = bool(upper)
        except ValueError as e:
            raise _ValueError(_C.ErrorCode.INVALID_PARAM, f"[cholesky] upper: {e}") from None
    _square_first(a, "cholesky")
    (a,), single = _up(a)
    return _down(_L.cholesky(a, upper), single)


def qr(a, mode="reduced"):
    """QR factorisation. ``mode``: 'reduced' -> (Q (M,K), R (K,N)), 'complete' ->
    (Q (M,M), R (M,N)), 'r' -> R, 'raw' -> (h, tau) as LAPACK returns them."""
    if not isinstance(mode, str) or mode not in ("reduced", "complete", "r", "raw", "f", "full", "e", "economic"):
        # NumPy compares mode with its names (`mode not in (...)`): anything else, a non-str too, is
        # its ValueError (never the binding's incompatible-arguments TypeError)
        shown = mode if isinstance(mode, (str, int, float, complex)) else type(mode).__name__
        raise _ValueError(_Code.INVALID_PARAM, f"[qr] Unrecognized mode '{shown}'")
    (a,), single = _up(a)
    r = _down(tuple(_L.qr(a, mode)), single)
    if mode == "r":
        return r[0]
    if mode == "raw":
        return tuple(r)
    return QRResult(*r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition ``a = U @ diag(S) @ Vh`` (S descending);
    only ``S`` without ``compute_uv``. ``hermitian``: ``a`` is taken as
    Hermitian (its lower triangle) and decomposed through ``eigh`` as NumPy
    does (S = |eigenvalues| descending, the signs moved into Vh)."""
    if not hermitian and isinstance(a, (_C.ndarray, _np.ndarray)) and a.ndim >= 2 and \
            _np.dtype(a.dtype) == _np.dtype(_np.float16):
        # NumPy's svd checks the array (_assert_stacked_2d, then _commonType's unsupported-type
        # TypeError) before `if compute_uv:` reads its truth value. bfloat16 is no np.inexact:
        # _commonType takes it as an integer type (float64), as the binding does
        raise _TypeError(_Code.INVALID_DTYPE, f"[svd] array type {_np.dtype(a.dtype)} is unsupported in linalg")
    try:  # NumPy's truth-value rules (an array: ValueError); full_matrices only with U, Vh
        compute_uv = bool(compute_uv)
        full_matrices = bool(full_matrices) if compute_uv else False
    except ValueError as e:
        raise _ValueError(_Code.INVALID_PARAM, f"[svd] compute_uv/full_matrices: {e}") from None
    if hermitian:
        return _svd_hermitian(_arr(a), compute_uv)
    _svd_finite(a, "svd", compute_uv)
    (a,), single = _up(a)
    r = _down(tuple(_L.svd(a, full_matrices, compute_uv)), single)
    return SVDResult(*r) if compute_uv else r[0]


def _svd_finite(a, name, compute_uv=True):
    """The one guard left in front of gesdd: a matrix holding +-inf when U and Vh are wanted.
    There LAPACK's divide and conquer (dbdsdc on the NaNs the inf scaling makes) can loop
    forever -- NumPy's bundled OpenBLAS 0.3.31 and the system OpenBLAS 0.3.21 hang on the same 3x3
    matrices, and otherwise return NaN factors or "did not converge" -- so pyasc answers NumPy's
    LinAlgError ("SVD did not converge") up front. Everything else goes to LAPACK as NumPy's call:
    a NaN is gesdd's info=-4, NumPy's "did not converge"; inf without U/Vh gives NaN singular values
    (compared with NumPy over 320 matrices, float32/64, complex64/128, tests/python/linalg)."""
    if not compute_uv:
        return
    x = a if isinstance(a, _C.ndarray) else None
    if x is None:
        try:
            x = _arr(a)
        except Exception:  # noqa: BLE001 - the binding's own argument error follows
            return
    # (float16 is NumPy's "unsupported in linalg" TypeError first: the binding's check)
    dt = _np.dtype(x.dtype)
    # (a matrix with inf and NaN is gesdd's NaN error anyway: the same LinAlgError, so any inf
    # in the stack is refused -- LAPACK never starts on an inf matrix of the stack)
    if x.ndim >= 2 and x.size and ((dt.kind in "fc" and dt.itemsize >= 4) or dt == _BF16) and \
            bool(_C.any(_C.isinf(x))):  # (bfloat16 computes in float64: its inf is LAPACK's too)
        raise LinAlgError(_Code.LINALG_ERROR, f"[{name}] SVD did not converge (the matrix holds inf: LAPACK's "
                                              "divide and conquer may not return on it, NumPy's included)")


def _svd_hermitian(a, compute_uv):
    xp = _xp()
    if not compute_uv:
        return xp.flip(xp.sort(_C.absolute(eigvalsh(a)), axis=-1), axis=-1)
    w, u = eigh(a)
    sgn = _C.copysign(1.0, w)  # +-1, never 0 (a zero eigenvalue keeps its vector in Vh)
    s = _C.absolute(w)
    sidx = xp.flip(xp.argsort(s, axis=-1), axis=-1)
    sgn = xp.take_along_axis(sgn, sidx, axis=-1)
    s = xp.take_along_axis(s, sidx, axis=-1)
    u = xp.take_along_axis(u, _C.expand_dims(sidx, -2), axis=-1)
    vt = _C.conjugate(_C.multiply(u, _C.expand_dims(sgn, -2)).mT)
    return SVDResult(u, s, vt)


def svdvals(x, /):
    """Singular values of each matrix, descending."""
    _svd_finite(x, "svdvals", False)
    (x,), single = _up(x)
    return _down(_L.svd(x, False, False)[0], single)


def _eigh_square_first(a, uplo, op):
    """NumPy's eigh/eigvalsh check UPLO, then the stacked square shape, before the double-precision
    cast (a huge 1-d float32 view is its LinAlgError, not pyasc's MemoryError of the cast)."""
    if isinstance(uplo, str):
        if uplo.upper() not in ("L", "U"):  # (before the cast: eager mode would allocate it first)
            raise _ValueError(_Code.INVALID_PARAM, f"[{op}] UPLO argument must be 'L' or 'U'")
        _square_first(a, op)


def eigh(a, UPLO="L"):  # noqa: N803 - NumPy's parameter name
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices,
    reading the lower (``UPLO='L'``) or upper triangle."""
    _eigh_square_first(a, UPLO, "eigh")
    (a,), single = _up(a)
    return EighResult(*_down(tuple(_L.eigh(a, str(UPLO).upper(), True)), single))


def eigvalsh(a, UPLO="L"):  # noqa: N803
    """Eigenvalues (ascending) of symmetric matrices."""
    _eigh_square_first(a, UPLO, "eigvalsh")
    (a,), single = _up(a)
    return _down(_L.eigh(a, str(UPLO).upper(), False)[0], single)


def _lstsq_shapes(a, b):
    """NumPy's lstsq checks the dimensions (b 1-d read as a column) before the dtypes."""
    sa, sb = _np.shape(a) if not isinstance(a, _C.ndarray) else tuple(a.shape), \
        _np.shape(b) if not isinstance(b, _C.ndarray) else tuple(b.shape)
    if len(sb) == 1:
        sb = sb + (1,)
    for s in (sa, sb):
        if len(s) < 2:
            raise LinAlgError(_Code.LINALG_ERROR, f"[lstsq] {len(s)}-dimensional array given. Array must be at "
                                                  "least two-dimensional")
    if sa[-2] != sb[-2]:
        raise LinAlgError(_Code.LINALG_ERROR, f"[lstsq] Incompatible dimensions (a {sa}, b {sb})")


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)``.
    ``rcond`` defaults to machine epsilon times max(M, N) (NumPy 2)."""
    _lstsq_shapes(a, b)
    try:
        rc = -1.0 if rcond is None else float(rcond)
    except (TypeError, ValueError):
        _L.lstsq(a, b, -1.0)  # NumPy checks the shapes first (its LinAlgError); then rcond's error
        rdt = _np.asarray(rcond.numpy() if hasattr(rcond, "numpy") else rcond).dtype
        if rdt.kind in "cOSU":  # NumPy's gufunc casts rcond to the float loop first
            raise TypeError(f"[lstsq] Cannot cast ufunc 'lstsq' input 2 from dtype('{rdt}') to dtype('float64') "
                            "with casting rule 'same_kind'") from None
        if _np.size(rcond) > 1:  # NumPy compares rcond elementwise: the truth value of an array
            raise ValueError(f"[lstsq] rcond must be a scalar, got an array of shape {_np.shape(rcond)} (the "
                             "truth value of an array with more than one element is ambiguous)") from None
        raise
    (a, b), single = _up(a, b)
    return _down(tuple(_L.lstsq(a, b, rc)), single)


# ------------------------------------------------------------------ compositions


def _float_input(x):
    """Norm inputs: integer, bool and bfloat16 arrays become float64 (as NumPy's ``astype(float)``)."""
    x = _arr(x)
    return x if _np.dtype(x.dtype) in _INEXACT else _C.astype(x, _np.float64)


def pinv(a, rcond=None, hermitian=False, *, rtol=_np._NoValue):
    """Moore-Penrose pseudo-inverse via the SVD, singular values at or below
    ``rcond * max(S)`` treated as zero (``rcond`` default 1e-15; ``rtol=None``
    means max(M, N) * eps)."""
    a = _arr(a)
    if rcond is None:
        if rtol is _np._NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * float(_np.finfo(a.dtype).eps)  # ValueError for integers, as NumPy
        else:
            rcond = rtol
    elif rtol is not _np._NoValue:
        raise _ValueError(_Code.INVALID_PARAM, "[pinv] `rtol` and `rcond` can't be both set.")
    if a.ndim < 2:
        raise _linalg_error("pinv", f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    m, n = a.shape[-2:]
    if m == 0 or n == 0:  # NumPy returns an empty array of a's own dtype here
        return _C.empty(tuple(a.shape[:-2]) + (n, m), a.dtype)
    if _np.dtype(a.dtype).kind == "c":  # pinv(a) = V S^+ U^H = (svd of conj(a)) transposed
        a = _C.conjugate(a)
    u, s, vt = svd(a, full_matrices=False, hermitian=hermitian)
    rc = _C.asarray(rcond)
    cutoff = _C.multiply(_C.expand_dims(rc, -1) if rc.ndim else rc, _C.max(s, axis=-1, keepdims=True))
    large = _C.greater(s, cutoff)
    if tuple(large.shape) != tuple(s.shape):
        # NumPy divides in place (divide(1, s, where=large, out=s)): an rtol that widens the
        # singular values' shape is its ValueError
        raise _ValueError(_Code.INVALID_PARAM, f"[pinv] non-broadcastable output operand with shape "
                                               f"{tuple(s.shape)} doesn't match the broadcast shape "
                                               f"{tuple(large.shape)} (rtol of shape {tuple(rc.shape)})")
    sinv = _C.where(large, _C.true_divide(1, _C.where(large, s, 1)), 0)
    sinv = _C.astype(sinv, s.dtype)
    return _lns.matmul(vt.mT, _C.multiply(_C.expand_dims(sinv, -1), u.mT))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803 - NumPy's names
    """Number of singular values above ``tol`` (default: max(S) * max(M, N) * eps);
    ``hermitian``: |eigenvalues| of the lower triangle stand for them, as NumPy."""
    A = _arr(A)
    if A.ndim < 2:
        return int(not bool(_C.all(_C.equal(A, 0))))
    S = _C.absolute(eigvalsh(A)) if hermitian else svdvals(A)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * float(_np.finfo(S.dtype).eps)
        else:
            rtol = _C.expand_dims(_C.asarray(rtol), -1) if _C.asarray(rtol).ndim else rtol
        # (NumPy: S.max(..., initial=0): an empty matrix has rank 0, not an empty-max error)
        smax = _C.max(S, axis=-1, keepdims=True) if S.shape[-1] else _C.full(tuple(S.shape[:-1]) + (1,), 0, S.dtype)
        tol = _C.multiply(smax, rtol)
    else:
        t = _C.asarray(tol)
        tol = _C.expand_dims(t, -1) if t.ndim else t
    return _xp().count_nonzero(_C.greater(S, tol), axis=-1)


def matrix_power(a, n):
    """``a`` raised to the integer power ``n`` by repeated squaring (``n < 0``:
    of the inverse; ``n == 0``: identity matrices of a's dtype)."""
    a = _arr(a)
    _assert_stacked_square(a, "matrix_power")
    try:
        n = _operator.index(n)
    except TypeError:
        raise _TypeError(_Code.INVALID_DTYPE, "[matrix_power] exponent must be an integer") from None
    if n == 0:
        eye = _xp().eye(a.shape[-1], dtype=a.dtype)
        return _C.broadcast_to(eye, tuple(a.shape)).copy()
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a
    if n == 2:
        return _lns.matmul(a, a)
    if n == 3:
        return _lns.matmul(_lns.matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else _lns.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _lns.matmul(result, z)
    return result


def _inv_or_nan(a):
    """inv(a) with NaN matrices in place of singular ones (NumPy's inverse
    under errstate(all='ignore'), which cond uses)."""
    try:
        return inv(a)
    except LinAlgError:
        pass
    n = a.shape[-1]
    flat = _C.reshape(a, (-1, n, n))
    dt = _np.dtype(a.dtype)  # inv's result dtype (float16 raised in inv above)
    nan = _C.full((n, n), _math.nan, dt if dt in _LAPACK_KEEPS else _np.dtype(_np.float64))
    outs = []
    for i in range(flat.shape[0]):
        try:
            outs.append(inv(flat[i]))
        except LinAlgError:
            outs.append(nan)
    return _C.reshape(_xp().stack(outs), tuple(a.shape))


def cond(x, p=None):
    """Condition number of each matrix in the norm ``p`` (None/2/-2: ratio of
    extreme singular values; 1/-1/inf/-inf/'fro'/'nuc': ``norm(x) *
    norm(inv(x))``, square matrices only). Singular matrices give inf (NaN
    only when the matrix holds NaN), as NumPy."""
    x = _arr(x)
    if x.size == 0 and _math.prod(x.shape[-2:]) == 0:
        raise _linalg_error("cond", "cond is not defined on empty arrays")
    if isinstance(p, (_C.ndarray, _np.ndarray)):  # NumPy: `p in {2, -2}` hashes p
        raise _TypeError(_Code.INVALID_DTYPE, f"[cond] unhashable type: '{type(p).__name__}' (p must be None, a "
                                              "number or a norm name)")
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svdvals(x)
        big, small = s[..., 0], s[..., -1]
        r = _C.true_divide(small, big) if p == -2 else _C.true_divide(big, small)
    else:
        _assert_stacked_square(x, "cond")
        r = _C.multiply(norm(x, p, axis=(-2, -1)), norm(_inv_or_nan(x), p, axis=(-2, -1)))
    # NaN from 0/0 or a singular inverse means "infinitely ill-conditioned",
    # unless the input itself held NaN.
    nan_in = _C.any(_C.isnan(x), axis=(-2, -1))
    return _C.where(_C.logical_and(_C.isnan(r), _C.logical_not(nan_in)), _math.inf, r).astype(r.dtype)


def tensorinv(a, ind=2):
    """Inverse of ``a`` for ``tensordot(.., .., ind)``: a (prod(a.shape[:ind]) x
    prod(a.shape[ind:])) matrix inverted, shape ``a.shape[ind:] + a.shape[:ind]``."""
    a = _arr(a)
    v = ind.numpy() if isinstance(ind, _C.ndarray) else ind
    try:  # NumPy: `if ind > 0` (an array of several: ambiguous), then oldshape[ind:] (a float: TypeError)
        positive = bool(v > 0)
    except ValueError as e:
        raise _ValueError(_Code.INVALID_PARAM, f"[tensorinv] ind: {e}") from None
    except TypeError as e:
        raise _TypeError(_Code.INVALID_DTYPE, f"[tensorinv] ind: {e}") from None
    if not positive:
        raise _ValueError(_Code.INVALID_PARAM, "[tensorinv] Invalid ind argument.")
    try:
        ind = _operator.index(ind)
    except TypeError:
        raise _TypeError(_Code.INVALID_DTYPE, "[tensorinv] slice indices must be integers or None or have an "
                                              f"__index__ method (ind={ind!r})") from None
    old = tuple(a.shape)
    prod = _math.prod(old[ind:])
    ia = inv(_C.reshape(a, (prod, -1)))
    if not old:  # NumPy's ia.reshape(*invshape) with no dimensions
        raise _TypeError(_Code.INVALID_DTYPE, "[tensorinv] reshape() takes exactly 1 argument (0 given): a 0-d "
                                              "array has no inverse shape")
    return _C.reshape(ia, old[ind:] + old[:ind])


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, axes=x.ndim) == b``: ``axes`` of ``a`` are
    moved to the end first; the rest must hold as many elements as ``b``."""
    a, b = _arr(a), _arr(b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = _C.transpose(a, tuple(allaxes))
    old = tuple(a.shape[-(an - b.ndim):])
    prod = _math.prod(old)
    if a.size != prod ** 2:
        raise _linalg_error("tensorsolve", f"Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
                                           f"prod(a.shape[:b.ndim]) (a {_shape_str(a.shape)}, b "
                                           f"{_shape_str(b.shape)})")
    x = solve(_C.reshape(a, (prod, prod)), _C.reshape(b, (-1,)))
    return _C.reshape(x, old)


def _chain_order(shapes):
    """Optimal parenthesisation of a matrix chain (the classic O(n^3) dynamic programme)."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = _math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(arrays, *, out=None):
    """Product of a chain of matrices in the cheapest order; the first array may
    be 1-d (a row vector) and the last 1-d (a column vector)."""
    arrs = [_arr(a) for a in arrays]
    n = len(arrs)
    if n < 2:
        raise _ValueError(_Code.INVALID_PARAM, "[multi_dot] Expecting at least two arrays.")
    if n == 2:
        return _lns.dot(arrs[0], arrs[1], out=out)
    first_1d, last_1d = arrs[0].ndim == 1, arrs[-1].ndim == 1
    if first_1d:
        arrs[0] = _C.expand_dims(arrs[0], 0)
    if last_1d:
        arrs[-1] = _C.expand_dims(arrs[-1], -1)
    for i, x in enumerate(arrs):
        if x.ndim != 2:
            raise _linalg_error("multi_dot", f"array {i} has {x.ndim} dimensions. Must be two-dimensional")
    split = _chain_order([x.shape for x in arrs])

    def product(i, j):
        if i == j:
            return arrs[i]
        k = split[i][j]
        return _lns.dot(product(i, k), product(k + 1, j))

    r = product(0, n - 1)
    if first_1d and last_1d:
        r = r[0, 0]
    elif first_1d:
        r = r[0]
    elif last_1d:
        r = r[:, 0]
    return _lns._to_out(r, out, "multi_dot")


def cross(x1, x2, /, *, axis=-1):
    """Cross products of 3-element vectors along ``axis`` (broadcasting the rest)."""
    a, b = _arr(x1), _arr(x2)

    def dim(arr):  # NumPy reads x.shape[axis]: tuple indexing's TypeError / IndexError, x1 before x2
        try:
            return tuple(arr.shape)[axis]
        except IndexError as e:
            from .errors import AscendIndexError  # noqa: PLC0415

            raise AscendIndexError(_Code.INVALID_PARAM, f"[cross] {e} (axis {axis!r}, shape "
                                                        f"{_shape_str(arr.shape)})") from None
        except TypeError as e:
            raise _TypeError(_Code.INVALID_PARAM, f"[cross] axis: {e}") from None

    if dim(a) != 3 or dim(b) != 3:
        dim(b)  # NumPy's message reads x2.shape[axis] too: its IndexError/TypeError comes first
        raise _ValueError(_Code.INVALID_SHAPE, f"[cross] both input arrays must be (arrays of) 3-dimensional "
                                               f"vectors along axis {axis}, got shapes {_shape_str(a.shape)} and "
                                               f"{_shape_str(b.shape)}")
    a = _xp().moveaxis(a, axis, -1)
    b = _xp().moveaxis(b, axis, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = _xp().stack([_C.subtract(_C.multiply(a1, b2), _C.multiply(a2, b1)),
                   _C.subtract(_C.multiply(a2, b0), _C.multiply(a0, b2)),
                   _C.subtract(_C.multiply(a0, b1), _C.multiply(a1, b0))], axis=-1)
    return _xp().moveaxis(c, -1, axis) if axis != -1 else c


def outer(x1, x2, /):
    """Outer product of two 1-d arrays."""
    a, b = _arr(x1), _arr(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise _ValueError(_Code.INVALID_SHAPE, f"[outer] Input arrays must be one-dimensional, got shapes "
                                               f"{_shape_str(a.shape)} and {_shape_str(b.shape)}")
    return _lns.outer(a, b)


def diagonal(x, /, *, offset=0):
    """The diagonals of the last two axes (a view)."""
    from .numeric import _c_int_offset  # noqa: PLC0415

    return _C.diagonal(_arr(x), _c_int_offset("diagonal", offset), -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """Sums of the diagonals of the last two axes."""
    return _lns.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def tensordot(x1, x2, /, *, axes=2):
    """``numpy.linalg.tensordot`` (see :func:`pyasc.tensordot`)."""
    return _lns.tensordot(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """``numpy.linalg.vecdot`` (see :func:`pyasc.vecdot`)."""
    return _lns.vecdot(x1, x2, axis=axis)


def matrix_transpose(x, /):
    """Swaps the last two axes (a view)."""
    return _lns.matrix_transpose(x)


def matmul(x1, x2, /):
    """``numpy.linalg.matmul`` (see :func:`pyasc.matmul`)."""
    return _lns.matmul(x1, x2)


# ------------------------------------------------------------------ norms


def _is_complex(x):
    return _np.dtype(x.dtype).kind == "c"


def _real_dtype(x):
    """x's dtype, or its real counterpart for complex (float32 for complex64)."""
    return _np.finfo(_np.dtype(x.dtype)).dtype if _is_complex(x) else x.dtype


def _abs_sq(x):
    """|x|^2 elementwise, real (NumPy's ``(x.conj() * x).real``)."""
    if _is_complex(x):
        re, im = x.real, x.imag
        return _C.add(_C.multiply(re, re), _C.multiply(im, im))
    return _C.multiply(x, x)


def _sum_sq(x, axis, keepdims=False):
    return _C.sum(_abs_sq(x), axis=axis, keepdims=keepdims)


def _svd_norm(x, row, col, reduce):
    y = _xp().moveaxis(x, (row, col), (-2, -1))
    return reduce(svdvals(y), axis=-1)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's parameter name
    """Vector or matrix norm (``numpy.linalg.norm``): ``ord`` None/2/1/inf/-inf/0/p
    for vectors; None/'fro'/'nuc'/1/-1/2/-2/inf/-inf for matrices; ``axis`` an
    int (vector), a pair (matrix) or None (the whole array)."""
    x = _float_input(x)
    if axis is None:
        nd = x.ndim
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            flat = _C.reshape(x, (-1,))
            if _is_complex(flat):
                re, im = flat.real, flat.imag
                r = _C.sqrt(_C.add(_lns.dot(re, re), _lns.dot(im, im)))
            else:
                r = _C.sqrt(_lns.dot(flat, flat))
            return r.reshape((1,) * nd) if keepdims else r
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (_operator.index(axis),)
        except TypeError:
            raise _TypeError(_Code.INVALID_DTYPE, "[norm] 'axis' must be None, an integer or a tuple of "
                                                  "integers") from None
    nd = x.ndim
    if len(axis) == 1:
        ax = axis[0]
        if ord == _math.inf:
            return _C.max(_C.absolute(x), axis=ax, keepdims=keepdims)
        if ord == -_math.inf:
            return _C.min(_C.absolute(x), axis=ax, keepdims=keepdims)
        if ord == 0:  # counted in the real dtype (float32 for complex64), as NumPy
            return _C.sum(_C.astype(_C.not_equal(x, 0), _real_dtype(x)), axis=ax, keepdims=keepdims)
        if ord == 1:
            return _C.sum(_C.absolute(x), axis=ax, keepdims=keepdims)
        if ord is None or ord == 2:
            return _C.sqrt(_sum_sq(x, ax, keepdims))
        if isinstance(ord, str):
            raise _ValueError(_Code.INVALID_PARAM, f"[norm] Invalid norm order '{ord}' for vectors")
        absx = _C.absolute(x)
        p = _C.power(absx, _C.astype(_C.asarray(ord), absx.dtype))
        r = _C.sum(p, axis=ax, keepdims=keepdims)
        return _C.power(r, _C.astype(_C.asarray(1.0 / ord), absx.dtype))
    if len(axis) == 2:
        row, col = (_lns._norm_axis(a, nd) for a in axis)
        if row == col:
            raise _ValueError(_Code.INVALID_PARAM, "[norm] Duplicate axes given.")
        if ord == 2:
            r = _svd_norm(x, row, col, _C.max)
        elif ord == -2:
            r = _svd_norm(x, row, col, _C.min)
        elif ord == 1:
            r = _C.max(_C.sum(_C.absolute(x), axis=row), axis=col - 1 if col > row else col)
        elif ord == _math.inf:
            r = _C.max(_C.sum(_C.absolute(x), axis=col), axis=row - 1 if row > col else row)
        elif ord == -1:
            r = _C.min(_C.sum(_C.absolute(x), axis=row), axis=col - 1 if col > row else col)
        elif ord == -_math.inf:
            r = _C.min(_C.sum(_C.absolute(x), axis=col), axis=row - 1 if row > col else row)
        elif ord in (None, "fro", "f"):
            r = _C.sqrt(_sum_sq(x, (row, col)))
        elif ord == "nuc":
            r = _svd_norm(x, row, col, _C.sum)
        else:
            raise _ValueError(_Code.INVALID_PARAM, f"[norm] Invalid norm order {ord!r} for matrices.")
        if keepdims:
            shape = list(x.shape)
            shape[row] = shape[col] = 1
            r = r.reshape(tuple(shape))
        return r
    raise _ValueError(_Code.INVALID_PARAM, f"[norm] Improper number of dimensions to norm: axis={axis}")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """Vector norm over ``axis`` (None: all elements; a tuple: those axes flattened together)."""
    x = _float_input(x)
    shape = list(x.shape)
    if axis is None:
        y, ax = _C.reshape(x, (-1,)), 0
    elif isinstance(axis, tuple):
        axs = _lns._norm_axes(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in axs)
        y = _C.transpose(x, axs + rest).reshape((_math.prod(shape[i] for i in axs),) + tuple(shape[i] for i in rest))
        ax = 0
    else:
        y, ax = x, axis
    r = norm(y, ord=ord, axis=ax)
    if keepdims:
        axs = range(len(shape)) if axis is None else _lns._norm_axes(axis, len(shape))
        for i in axs:
            shape[i] = 1
        r = r.reshape(tuple(shape))
    return r


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """Matrix norm over the last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


__all__ = [
    "LinAlgError", "SVDResult", "EighResult", "QRResult", "SlogdetResult",
    "inv", "solve", "det", "slogdet", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "lstsq",
    "pinv", "matrix_rank", "matrix_power", "multi_dot", "cross", "cond", "tensorinv", "tensorsolve", "outer",
    "diagonal", "trace", "tensordot",
    "vecdot", "matrix_transpose", "matmul", "norm", "vector_norm", "matrix_norm",
]
