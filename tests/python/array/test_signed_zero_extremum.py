"""maximum/minimum/fmax/fmin on +0/-0 ties, in every loop path.

NumPy 2.4's rule (checked against its loops for every form below): equal
operands give the second operand for float32, float64 and bfloat16, the first
for float16 and complex. pyasc must give the same sign of zero in its
contiguous SIMD loops, strided loops, scalar-operand loops (both sides),
0-d arrays and fused lazy programs, eagerly and lazily. fmax/fmin follow the
same rule; NumPy's float32/float64 fmax/fmin call C fmax/SIMD code whose sign
for a ±0 tie varies with length and alignment (C leaves it unspecified), so
there the values are compared with NumPy and the sign with the rule.
"""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
OPS = ["maximum", "minimum", "fmax", "fmin"]
# Around SIMD widths (8/16/32 lanes) and the 4096-element tile.
LENGTHS = [1, 2, 7, 8, 15, 16, 17, 31, 33, 64, 65, 257, 4095, 4097]


def _first_on_tie(dtype):
    return np.dtype(dtype) in (np.dtype(np.float16), np.dtype(np.complex64), np.dtype(np.complex128))


def _numpy_sign_is_reliable(op, dtype):
    return not (op in ("fmax", "fmin") and np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.float64)))


def _data(n, dtype, seed):
    rng = np.random.default_rng(seed)
    pool = np.array([-0.0, 0.0, -0.0, 0.0, np.nan, np.inf, -np.inf, 1.5, -1.5])
    v = pool[rng.integers(0, len(pool), n)]
    # Mostly zeros: many ±0 ties.
    v[rng.random(n) < 0.6] = 0.0
    v[rng.random(n) < 0.5] *= -1
    return v.astype(dtype)


def _check(op, dtype, got, a, b):
    """got vs NumPy's op(a, b) (a, b NumPy operands broadcast as in the call)."""
    want = getattr(np, op)(a, b)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # values (NaN == NaN, -0 == +0)
    aa, bb = np.broadcast_arrays(np.asarray(a, want.dtype), np.asarray(b, want.dtype))
    parts = [np.real, np.imag] if np.iscomplexobj(want) else [lambda x: x]
    for part in parts:
        g, w, x, y = part(got), part(want), part(aa), part(bb)
        real = ~np.isnan(g)
        if _numpy_sign_is_reliable(op, dtype):
            np.testing.assert_array_equal(np.signbit(g[real]), np.signbit(w[real]))
        # The rule itself, independently of NumPy: on a ±0 tie the first or second operand.
        tie = (x == y) & (x == 0) & (np.signbit(x) != np.signbit(y))
        if np.iscomplexobj(want):
            tie &= (np.asarray(aa) == np.asarray(bb))
        expect = np.signbit(x) if _first_on_tie(dtype) else np.signbit(y)
        np.testing.assert_array_equal(np.signbit(g)[tie], expect[tie])


def _array_forms(op, dtype, n, a, b):
    f = getattr(asc, op)
    A, B = asc.array(a), asc.array(b)
    _check(op, dtype, f(A[:n], B[:n]), a[:n], b[:n])                  # contiguous
    _check(op, dtype, f(A[1 : n + 1], B[:n]), a[1 : n + 1], b[:n])     # contiguous, offset
    _check(op, dtype, f(A[::2], B[::2]), a[::2], b[::2])              # strided
    _check(op, dtype, f(A[:0:-2], B[1::2]), a[:0:-2], b[1::2])        # negative stride
    _check(op, dtype, f(A[:n], B[n : 2 * n]), a[:n], b[n : 2 * n])
    if np.dtype(dtype).kind == "f":
        # Fused with neighbours in a lazy program (multiplying by 1 keeps the
        # sign of zero; a complex product by 1+0j would turn inf into NaN parts).
        _check(op, dtype, f(A[:n] * dtype(1), B[:n]) * dtype(1), a[:n], b[:n])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", LENGTHS)
def test_array_array_ties(mode, op, dtype, n):
    _array_forms(op, dtype, n, _data(2 * n + 1, dtype, n), _data(2 * n + 1, dtype, n + 1000))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", [1, 17, 257])  # complex loops have no SIMD path
def test_complex_array_array_ties(mode, op, dtype, n):
    def make(seed):
        z = np.empty(2 * n + 1, dtype)
        z.real = _data(2 * n + 1, np.float64, seed)
        z.imag = _data(2 * n + 1, np.float64, seed + 7)
        return z

    _array_forms(op, dtype, n, make(n), make(n + 1000))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", [1, 7, 16, 17, 65, 4097])
def test_scalar_operand_ties(mode, op, dtype, n):
    a = _data(2 * n, dtype, n + 5)
    f = getattr(asc, op)
    A = asc.array(a)
    for z in (dtype(0.0), dtype(-0.0)):
        _check(op, dtype, f(A[:n], z), a[:n], z)        # array, scalar
        _check(op, dtype, f(z, A[:n]), z, a[:n])        # scalar, array
        _check(op, dtype, f(A[::-2], z), a[::-2], z)    # strided array, scalar
        _check(op, dtype, f(z, A[::2]), z, a[::2])
        zero_d = asc.array(np.array(z, dtype))
        _check(op, dtype, f(A[:n], zero_d), a[:n], np.array(z, dtype))
    # Python scalars are weak: the array's dtype is kept.
    for z in (0, 0.0, -0.0):
        _check(op, dtype, f(A[::-1], z), a[::-1], z)
        _check(op, dtype, f(z, A[:n]), z, a[:n])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", OPS)
def test_zero_d_and_2d_ties(mode, op, dtype):
    f = getattr(asc, op)
    for x, y in [(-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (0.0, 0.0)]:
        a, b = np.array(x, dtype), np.array(y, dtype)
        _check(op, dtype, f(asc.array(a), asc.array(b)), a, b)
    a = _data(12 * 40, dtype, 3).reshape(12, 40)
    b = _data(12 * 40, dtype, 4).reshape(40, 12)
    _check(op, dtype, f(asc.array(a)[:, ::3], asc.array(b).T[:, ::3]), a[:, ::3], b.T[:, ::3])
    # Broadcast row against a column.
    _check(op, dtype, f(asc.array(a)[:, :1], asc.array(b)[:1, :]), a[:, :1], b[:1, :])


@pytest.mark.parametrize("dtype", FLOATS)
def test_out_and_in_place_ties(mode, dtype):
    a = _data(100, dtype, 11)
    b = _data(100, dtype, 12)
    out = asc.empty(100, dtype)
    r = asc.maximum(asc.array(a), asc.array(b), out=out)
    assert r is out
    _check("maximum", dtype, out, a, b)
    x = asc.array(a)
    x[::2] = asc.minimum(x[::2], asc.array(b)[::2])
    want = a.copy()
    want[::2] = np.minimum(a[::2], b[::2])
    np.testing.assert_array_equal(np.signbit(np.asarray(x)), np.signbit(want))
