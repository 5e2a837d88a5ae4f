"""complex64 / complex128: pyasc vs NumPy.

Special values (NaN/Inf in either part, signed zeros), empty and 0-d arrays,
non-contiguous and negative-stride views, lengths around the SIMD width;
every test runs lazily (default) and eagerly.
"""

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from pyasc import lazy as _lazy

CDTYPES = [np.complex64, np.complex128]
REAL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
PARTS = [0.0, -0.0, 1.0, -1.5, 2.5, np.nan, np.inf, -np.inf]
LENGTHS = [1, 7, 8, 9, 16, 17, 33, 64, 100]


@pytest.fixture(params=["lazy", "eager"], autouse=True)
def mode(request):
    with _lazy.eager(request.param == "eager"):
        yield request.param


def cdata(dtype, n=64, seed=0, special=True):
    """n complex values: every pair of special parts first, then random ones."""
    rng = np.random.default_rng(seed)
    re = rng.standard_normal(n) * 4
    im = rng.standard_normal(n) * 4
    if special:
        pairs = [(a, b) for a in PARTS for b in PARTS][:n]
        for i, (a, b) in enumerate(pairs):
            re[i], im[i] = a, b
    return (re + 1j * im).astype(dtype) if not special else _pack(re, im, dtype)


def _pack(re, im, dtype):
    out = np.empty(re.shape, dtype)
    out.real = re
    out.imag = im  # keeps -0.0 and NaN parts exactly (re + 1j*im would not)
    return out


def views(a):
    """pyasc arrays with a's values: contiguous, negative-stride, strided."""
    x = asc.asarray(a)
    rev = asc.asarray(np.ascontiguousarray(a[::-1]))[::-1]
    strided = asc.asarray(np.repeat(a, 2))[::2]
    return [x, rev, strided]


def rtol_of(dtype):
    return 2e-6 if np.dtype(dtype) in (np.dtype(np.complex64), np.dtype(np.float32)) else 1e-13


def same(got, expected, rtol=None, exact=False, numpy_ok=False, scaled=False):
    """dtype, shape and values equal; NaN matches NaN (per part), Inf matches Inf.
    scaled: the absolute tolerance is rtol * max|expected| (products and sums
    that cancel: NumPy's complex64 SIMD loops use FMA, ours round once from
    double, and both differ from the naive float result there)."""
    g = np.asarray(got)
    e = np.asarray(expected)
    assert numpy_ok or isinstance(got, asc.ndarray) or np.ndim(got) == 0 or not isinstance(got, np.ndarray)
    assert g.dtype == e.dtype, f"dtype {g.dtype} != {e.dtype}"
    assert g.shape == e.shape, f"shape {g.shape} != {e.shape}"
    if e.dtype.kind in "cf":
        tol = 0 if exact else (rtol if rtol is not None else rtol_of(e.dtype))
        for part in ("real", "imag") if e.dtype.kind == "c" else ("real",):
            gp, ep = getattr(g, part), getattr(e, part)
            atol = tol * 1e-3
            if scaled and e.size:
                finite = np.abs(e[np.isfinite(e)])
                atol = tol * (finite.max() if finite.size else 1.0)
            np.testing.assert_allclose(gp, ep, rtol=tol, atol=atol, equal_nan=True)
            if exact:  # signed zeros too
                z = ep == 0
                np.testing.assert_array_equal(np.signbit(gp[z]), np.signbit(ep[z]))
    else:
        np.testing.assert_array_equal(g, e)


# ------------------------------------------------------------------ dtypes, promotion


def test_dtype_objects_and_queries():
    assert asc.complex64 is np.complex64 and asc.complex128 is np.complex128
    for d in CDTYPES:
        assert asc.isdtype(d, "complex floating") and asc.isdtype(d, "numeric")
        assert not asc.isdtype(d, "real floating")
        assert asc.finfo(d).eps == np.finfo(d).eps
        assert asc.finfo(asc.zeros(1, d)).dtype == np.finfo(d).dtype
    info = asc.__array_namespace_info__()
    assert set(info.dtypes(kind="complex floating")) == {"complex64", "complex128"}
    assert "complex64" in info.dtypes(kind="numeric")


@pytest.mark.parametrize("a", REAL_DTYPES + CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("b", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_promotion(a, b):
    assert asc.result_type(a, b) == np.result_type(a, b)
    x, y = asc.ones(3, a), asc.ones(3, b)
    assert (x + y).dtype == np.result_type(a, b)
    assert (y * x).dtype == np.result_type(a, b)


@pytest.mark.parametrize("a", REAL_DTYPES + CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scalar", [2j, 1.5, 3, True, complex(np.inf, -0.0)])
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_weak_scalars(a, scalar):
    na = np.ones(4, a)
    if np.dtype(a) == np.bool_ and isinstance(scalar, bool):
        return same(asc.ones(4, a) * scalar, na * scalar)
    expected = na * scalar
    got = asc.ones(4, a) * scalar
    same(got, expected, rtol=1e-2 if np.dtype(a).itemsize == 2 else None)
    assert asc.result_type(asc.ones(1, a), scalar) == np.result_type(na, scalar)
    same(scalar - asc.ones(4, a), scalar - na, rtol=1e-2 if np.dtype(a).itemsize == 2 else None)


@pytest.mark.parametrize("src", REAL_DTYPES + CDTYPES, ids=lambda d: np.dtype(d).name)
def test_can_cast(src):
    for dst in REAL_DTYPES + CDTYPES:
        for casting in ("safe", "same_kind", "unsafe"):
            assert asc.can_cast(src, dst, casting) == np.can_cast(src, dst, casting), (src, dst, casting)


# ------------------------------------------------------------------ creation, interop


@pytest.mark.parametrize("dtype", CDTYPES)
def test_creation(dtype):
    same(asc.zeros((2, 3), dtype), np.zeros((2, 3), dtype), exact=True)
    same(asc.ones(5, dtype), np.ones(5, dtype), exact=True)
    same(asc.full((2, 2), 1 - 2j, dtype), np.full((2, 2), 1 - 2j, dtype), exact=True)
    same(asc.full(3, complex(-0.0, np.nan), dtype), np.full(3, complex(-0.0, np.nan), dtype), exact=True)
    assert asc.empty((4,), dtype).dtype == dtype
    x = asc.asarray(cdata(dtype, 9))
    for fn in ("zeros_like", "ones_like", "empty_like"):
        r = getattr(asc, fn)(x)
        assert r.dtype == dtype and r.shape == (9,)
    same(asc.full_like(x, 3j), np.full_like(cdata(dtype, 9), 3j), exact=True)
    same(asc.full(2, 1 + 1j), np.full(2, 1 + 1j), exact=True)  # complex128 by default
    same(asc.asarray([1 + 2j, 3]), np.asarray([1 + 2j, 3]), exact=True)
    same(asc.array(np.complex64(2 - 1j)), np.array(np.complex64(2 - 1j)), exact=True)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_numpy_interop_zero_copy(dtype):
    a = cdata(dtype, 10)
    x = asc.asarray(a)  # shares a's memory
    a[3] = 5 - 6j
    assert complex(x[3]) == 5 - 6j
    n = np.asarray(x)  # zero-copy back
    assert n.dtype == dtype and np.shares_memory(n, a)
    n[4] = -1j
    assert x[4].item() == -1j
    mv = memoryview(x)
    assert mv.format == ("Zf" if dtype == np.complex64 else "Zd") and mv.itemsize == np.dtype(dtype).itemsize
    assert np.asarray(x[::-2]).dtype == dtype
    same(np.asarray(x[::-2]), a[::-2], exact=True, numpy_ok=True)
    assert x.__array_interface__["typestr"] == np.dtype(dtype).str
    y = np.from_dlpack(x)  # DLPack kDLComplex, both ways
    assert y.dtype == dtype and np.shares_memory(y, a)
    z = asc.from_dlpack(a)
    same(z, a, exact=True)
    v = asc.array(a)  # value semantics
    a[0] = 99
    assert v[0].item() != 99


def test_bfloat16_still_exports():
    x = asc.ones(3, asc.bfloat16)
    assert np.asarray(x).dtype == np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_repr_item_tolist(dtype):
    a = np.array([1 + 2j, -0.5j, complex(np.nan, np.inf)], dtype)
    x = asc.asarray(a)
    assert repr(x) == repr(a) and str(x) == str(a)
    assert repr(x.tolist()) == repr(a.tolist())  # NaN parts: compare the text
    assert x[0].item() == a[0].item() and isinstance(x[0].item(), complex)
    assert complex(x[1]) == complex(a[1])
    with pytest.raises(TypeError):
        float(x[0])  # NumPy: can't convert complex to float
    assert repr(asc.zeros((), dtype)) == repr(np.zeros((), dtype))


@pytest.mark.parametrize("src", CDTYPES)
@pytest.mark.parametrize("dst", REAL_DTYPES + CDTYPES, ids=lambda d: np.dtype(d).name)
def test_astype_from_complex(src, dst):
    a = _pack(np.array([1.7, -2.5, 0.0, -0.0, 300.9, 3.0, 0.0]), np.array([9.0, 0.0, 0.0, 1.0, -2.0, np.nan, -0.0]),
              src)
    if np.dtype(dst).kind in "iu":
        a = a[[0, 2, 3, 5, 6]]  # out-of-range and negative to unsigned are implementation-defined in C
        a.real = np.abs(a.real)
    x = asc.asarray(a)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        expected = a.astype(dst)
    warned = any(issubclass(i.category, np.exceptions.ComplexWarning) for i in w)
    if warned:
        with pytest.warns(np.exceptions.ComplexWarning):
            got = x.astype(dst)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = x.astype(dst)
    same(got, expected, rtol=1e-2 if np.dtype(dst).itemsize == 2 else None)


@pytest.mark.parametrize("src", REAL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dst", CDTYPES)
def test_astype_to_complex(src, dst):
    a = np.array([0, 1, 3, 100, 7, 0, 1], dtype=np.float64)
    if np.dtype(src).kind == "f" or np.dtype(src) == np.dtype(ml_dtypes.bfloat16):
        a = np.array([0.0, -0.0, 1.5, np.nan, np.inf, -np.inf, -2.25])
    a = a.astype(src)
    same(asc.asarray(a).astype(dst), a.astype(dst), exact=True)
    same(asc.astype(asc.asarray(a), dst), a.astype(dst), exact=True)


# ------------------------------------------------------------------ elementwise


BINARY = ["add", "subtract", "multiply", "divide", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "maximum", "minimum", "fmax", "fmin"]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_binary_specials(dtype, op):
    # Every pair of special complex values against every other (64 x 64).
    a = cdata(dtype, 64)
    na, nb = np.repeat(a, 64), np.tile(a, 64)
    with np.errstate(all="ignore"):
        expected = getattr(np, op)(na, nb)
    got = getattr(asc, op)(asc.asarray(na), asc.asarray(nb))
    same(got, expected, exact=op in ("add", "subtract", "maximum", "minimum", "fmax", "fmin"))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_binary_views_and_tails(dtype, n, op):
    a, b = cdata(dtype, n, seed=1, special=False), cdata(dtype, n, seed=2, special=False)
    expected = getattr(np, op)(a, b)
    for x, y in zip(views(a), views(b)):
        same(getattr(asc, op)(x, y), expected, scaled=True)
    # broadcast against a 0-d and a row
    same(getattr(asc, op)(asc.asarray(a), asc.asarray(b[0])), getattr(np, op)(a, b[0]), scaled=True)
    same(getattr(asc, op)(asc.asarray(a)[None, :], asc.asarray(b[:1])[:, None]),
         getattr(np, op)(a[None, :], b[:1, None]), scaled=True)


def test_division_signed_zeros():
    num = _pack(np.array([1.0, -1.0, 0.0, -0.0, 1.0, np.inf]), np.array([0.0, -0.0, 1.0, -0.0, np.nan, 1.0]),
                np.complex128)
    for den in [complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), complex(2, -0.0),
                complex(-0.0, 3), complex(np.inf, 1), complex(1e-300, 1e300)]:
        d = np.full(num.shape, den)
        with np.errstate(all="ignore"):
            expected = num / d
        same(asc.asarray(num) / asc.asarray(d), expected, exact=True)


def test_operators_and_inplace():
    a = cdata(np.complex64, 20, special=False)
    b = cdata(np.complex64, 20, seed=3, special=False)
    x, y = asc.asarray(a.copy()), asc.asarray(b)
    same(x + y, a + b)
    same(x - 1j, a - 1j)
    same(2 * x, 2 * a)
    same(1j / x, 1j / a)
    same(-x, -a, exact=True)
    same(+x, +a, exact=True)
    same(abs(x), np.abs(a))
    same(x == y, a == b)
    same(x != x, a != a)
    same(x ** 2, a ** 2)
    x += y
    a2 = a + b
    same(x, a2)
    x *= 1j
    same(x, a2 * 1j)
    r = asc.ones(3)
    with pytest.raises(TypeError):  # same_kind: complex result into float64
        r += 1j
    with pytest.raises(TypeError):
        asc.floor_divide(x, y)
    with pytest.raises(TypeError):
        x % y


UNARY = ["negative", "positive", "conjugate", "absolute", "exp", "log", "sqrt", "square", "reciprocal", "sign",
         "isnan", "isinf", "isfinite"]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", UNARY)
def test_unary_specials(dtype, op):
    a = cdata(dtype, 64)
    with np.errstate(all="ignore"):
        expected = getattr(np, op)(a)
    exact = op in ("negative", "positive", "conjugate", "isnan", "isinf", "isfinite")
    for x in views(a):
        same(getattr(asc, op)(x), expected, exact=exact)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", ["absolute", "exp", "log", "sqrt", "square", "reciprocal", "sign", "conjugate"])
def test_unary_views_and_tails(dtype, n, op):
    a = cdata(dtype, n, seed=4, special=False)
    expected = getattr(np, op)(a)
    for x in views(a):
        same(getattr(asc, op)(x), expected, scaled=True)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_real_imag_views(dtype):
    a = cdata(dtype, 12, special=False)
    x = asc.asarray(a.copy())
    same(x.real, a.real, exact=True)
    same(x.imag, a.imag, exact=True)
    same(asc.real(x), np.real(a), exact=True)
    same(asc.imag(x)[::-3], np.imag(a)[::-3], exact=True)
    assert x.real.strides == a.real.strides and x.imag.strides == a.imag.strides
    # views: writes show in the base
    x.real[2] = 100.0
    x.imag[:3] = -7.0
    b = a.copy()
    b.real[2] = 100.0
    b.imag[:3] = -7.0
    same(x, b, exact=True)
    x.imag = 0.5
    b.imag = 0.5
    same(x, b, exact=True)
    # real input: .real is the array itself, .imag zeros
    f = asc.asarray(np.arange(4.0))
    same(f.real, np.arange(4.0).real, exact=True)
    same(f.imag, np.arange(4.0).imag, exact=True)
    same(asc.real([1, 2]), np.real([1, 2]))
    with pytest.raises(TypeError):
        f.imag = 1.0


@pytest.mark.parametrize("dtype", CDTYPES)
def test_angle_conj_methods(dtype):
    a = cdata(dtype, 64)
    x = asc.asarray(a)
    same(asc.angle(x), np.angle(a))
    same(asc.angle(x, deg=True), np.angle(a, deg=True))
    same(x.conj(), a.conj(), exact=True)
    same(x.conjugate(), a.conjugate(), exact=True)
    same(asc.conj(x[::-1]), np.conj(a[::-1]), exact=True)
    for r in (np.array([1, -2, 0], np.int8), np.array([-1.5, 0.0, -0.0, 2.0])):
        same(asc.angle(r), np.angle(r))
        same(asc.conjugate(r), np.conjugate(r), exact=True)
    assert asc.iscomplexobj(x) and not asc.iscomplexobj(asc.ones(2)) and asc.isrealobj(asc.ones(2))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_power(dtype):
    a = cdata(dtype, 30, seed=5, special=False)
    for e in [0, 1, 2, 3, 4, 7, -1, -2, -5, 0.5, 2.5, 1j, 1 + 1j]:
        with np.errstate(all="ignore"):
            expected = a ** e
        same(asc.asarray(a) ** e, expected, rtol=1e-4 if dtype == np.complex64 else 1e-11)
    z = np.array([0, 0, 0, 1 + 1j], dtype)
    for e in [np.array([0, 2, -1, 0], dtype), np.array([1j, 2.5, -1 + 1j, 0], dtype)]:
        with np.errstate(all="ignore"):
            expected = z ** e
        same(asc.asarray(z) ** asc.asarray(e), expected)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_where_concatenate_indexing(dtype):
    a = cdata(dtype, 24, special=True)
    b = cdata(dtype, 24, seed=9, special=False)
    x, y = asc.asarray(a), asc.asarray(b)
    c = np.arange(24) % 3 == 0
    same(asc.where(asc.asarray(c), x, y), np.where(c, a, b), exact=True)
    same(asc.where(asc.asarray(c), x, 0), np.where(c, a, 0), exact=True)
    same(asc.where(asc.asarray(c), 1.5, y), np.where(c, 1.5, b), exact=True)
    same(asc.concatenate([x, y[::-1]]), np.concatenate([a, b[::-1]]), exact=True)
    same(asc.concatenate([x, asc.ones(3)]), np.concatenate([a, np.ones(3)]), exact=True)
    same(asc.stack([x, y]), np.stack([a, b]), exact=True)
    m, n = x.reshape(4, 6), a.reshape(4, 6)
    same(m.T, n.T, exact=True)
    same(asc.transpose(m)[1:, ::-2], n.T[1:, ::-2], exact=True)
    same(m[[0, 3], 1:4], n[[0, 3], 1:4], exact=True)
    same(m[m.real > 0], n[n.real > 0], exact=True)
    same(asc.take(x, asc.asarray([5, 0, 23])), np.take(a, [5, 0, 23]), exact=True)
    same(asc.flip(m, 1), np.flip(n, 1), exact=True)
    same(asc.broadcast_to(x[:6], (2, 6)), np.broadcast_to(a[:6], (2, 6)), exact=True)
    w = asc.asarray(a.copy()).reshape(4, 6)
    w[1] = 3 - 3j
    w[:, 0] = y[:4]
    k = n.copy()
    k[1] = 3 - 3j
    k[:, 0] = b[:4]
    same(w, k, exact=True)
    w[w.imag < 0] = 0
    k[k.imag < 0] = 0
    same(w, k, exact=True)
    same(asc.reshape(x, (2, 3, 4))[:, 1], a.reshape(2, 3, 4)[:, 1], exact=True)


def test_empty_and_zero_d():
    for dtype in CDTYPES:
        e = np.zeros((0, 3), dtype)
        x = asc.asarray(e)
        same(x + 1j, e + 1j)
        same(asc.abs(x), np.abs(e))
        same(asc.sum(x, axis=0), np.sum(e, axis=0))
        same(asc.sum(x), np.sum(e))
        same(asc.prod(x, axis=1), np.prod(e, axis=1))
        z = np.array(1 - 2j, dtype)
        xz = asc.asarray(z)
        same(xz * xz, z * z)
        same(asc.exp(xz), np.exp(z))
        same(asc.sqrt(xz), np.sqrt(z))
        same(xz.real, z.real)
        assert xz.item() == z.item()
        with pytest.raises(ValueError):
            asc.max(x, axis=0)


# ------------------------------------------------------------------ reductions


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [1, 7, 17, 100, 5000])
def test_sum_prod_mean(dtype, n):
    a = cdata(dtype, n, seed=6, special=False)
    x = asc.asarray(a)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    same(asc.sum(x), np.sum(a), rtol=tol)
    same(x.sum(), a.sum(), rtol=tol)
    same(asc.mean(x), np.mean(a), rtol=tol)
    same(asc.sum(x[::-3]), np.sum(a[::-3]), rtol=tol)
    p = (a / np.abs(a)).astype(dtype)[: min(n, 60)]  # unit modulus: no overflow
    same(asc.prod(asc.asarray(p)), np.prod(p), rtol=1e-4 if dtype == np.complex64 else 1e-11)
    same(asc.cumsum(x), np.cumsum(a), rtol=tol)
    same(asc.cumprod(asc.asarray(p)), np.cumprod(p), rtol=1e-4 if dtype == np.complex64 else 1e-11)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
def test_axis_reductions(dtype, axis):
    a = cdata(dtype, 6 * 35, seed=7, special=False).reshape(6, 35)
    x = asc.asarray(a)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    for name in ("sum", "mean", "prod"):
        b = a if name != "prod" else (a / np.abs(a)).astype(dtype)
        same(getattr(asc, name)(asc.asarray(b), axis=axis), getattr(np, name)(b, axis=axis),
             rtol=tol if name != "prod" else 1e-4)
        same(getattr(asc, name)(asc.asarray(b), axis=axis, keepdims=True),
             getattr(np, name)(b, axis=axis, keepdims=True), rtol=tol if name != "prod" else 1e-4)
    for name in ("var", "std"):
        same(getattr(asc, name)(x, axis=axis), getattr(np, name)(a, axis=axis), rtol=tol)
        same(getattr(asc, name)(x.T, axis=axis, ddof=1), getattr(np, name)(a.T, axis=axis, ddof=1), rtol=tol)
    same(asc.max(x, axis=axis), np.max(a, axis=axis), exact=True)
    same(asc.min(x, axis=axis), np.min(a, axis=axis), exact=True)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_reductions_special(dtype):
    a = cdata(dtype, 64)
    for sl in (slice(0, 64), slice(0, 6), slice(20, 30), slice(40, 44)):
        b = a[sl]
        with np.errstate(all="ignore"):
            for name in ("sum", "max", "min"):
                same(getattr(asc, name)(asc.asarray(b)), getattr(np, name)(b), exact=name != "sum")
            same(asc.any(asc.asarray(b)), np.any(b))
            same(asc.all(asc.asarray(b)), np.all(b))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_fused_expression(dtype):
    # A chain the lazy graph fuses (elementwise + reduction) gives NumPy's values.
    a = cdata(dtype, 70000, seed=8, special=False)
    b = cdata(dtype, 70000, seed=9, special=False)
    x, y = asc.asarray(a), asc.asarray(b)
    tol = 1e-4 if dtype == np.complex64 else 1e-11
    same((x * y + 1j) / (y - 2), (a * b + 1j) / (b - 2), rtol=tol, scaled=True)
    same(asc.sum(x * asc.conj(y)), np.sum(a * np.conj(b)), rtol=tol)
    same(asc.abs(x - y).astype(np.float64).sum(), np.abs(a - b).astype(np.float64).sum(), rtol=tol)


# ------------------------------------------------------------------ linear algebra


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((64, 70), (70, 33)), ((2, 5, 6), (6, 3)), ((7,), (7,)),
                                    ((5,), (5, 4)), ((3, 4), (4,))])
def test_matmul(dtype, shapes):
    a = cdata(dtype, int(np.prod(shapes[0])), seed=1, special=False).reshape(shapes[0])
    b = cdata(dtype, int(np.prod(shapes[1])), seed=2, special=False).reshape(shapes[1])
    tol = 1e-4 if dtype == np.complex64 else 1e-11
    # sums of 70 products cancel: the bound scales with the largest result (the BLAS kernels of NumPy's
    # and our OpenBLAS build differ by CPU: SkylakeX vs Haswell sum in different orders)
    same(asc.matmul(asc.asarray(a), asc.asarray(b)), np.matmul(a, b), rtol=tol, scaled=True)
    same(asc.asarray(a) @ asc.asarray(b), a @ b, rtol=tol, scaled=True)
    if a.ndim == 2 and b.ndim == 2:
        same(asc.asarray(a.T.copy()).T @ asc.asarray(b), a @ b, rtol=tol, scaled=True)
    same(asc.dot(asc.asarray(a), asc.asarray(b)), np.dot(a, b), rtol=tol, scaled=True)
    fa = a.reshape(-1)
    fb = cdata(dtype, fa.size, seed=3, special=False)
    same(asc.vdot(asc.asarray(fa), asc.asarray(fb)), np.vdot(fa, fb), rtol=tol, scaled=True)


def test_matmul_mixed_and_vecdot():
    a = cdata(np.complex64, 12, special=False).reshape(3, 4)
    b = np.arange(8.0).reshape(4, 2)
    same(asc.asarray(a) @ asc.asarray(b), a @ b, rtol=1e-11)  # complex64 @ float64 -> complex128
    same(asc.asarray(b.T) @ asc.asarray(a.T), b.T @ a.T, rtol=1e-11)
    x = cdata(np.complex128, 12, seed=4, special=False).reshape(3, 4)
    same(asc.vecdot(asc.asarray(x), asc.asarray(x)), np.vecdot(x, x))


# ------------------------------------------------------------------ unsupported -> clear errors


@pytest.mark.parametrize("dtype", CDTYPES)
def test_unsupported_raise_clear_errors(dtype):
    x = asc.asarray(cdata(dtype, 8, special=False))
    name = np.dtype(dtype).name
    for fn, op in [(asc.floor, "floor"), (asc.signbit, "signbit"), (asc.cbrt, "cbrt")]:
        with pytest.raises(TypeError, match=rf"\[{op}\].*{name}"):
            fn(x)
    with pytest.raises(TypeError, match=rf"\[arctan2\].*{name}"):
        asc.arctan2(x, x)
    with pytest.raises(TypeError, match=rf"\[floor_divide\].*{name}"):
        asc.floor_divide(x, x)
    with pytest.raises(asc.AscendError):
        asc.floor_divide(x, x)
    with pytest.warns(np.exceptions.ComplexWarning):
        x.astype(np.float32)


# ------------------------------------------------------------------ transcendental functions

TRANSCENDENTAL = ["sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
                  "arctanh", "log2", "log10", "log1p", "expm1", "exp2", "rint"]


def same_signs(got, expected):
    """Where the expected part is not NaN, its sign bit matches (the side of
    a branch cut, signed zero results)."""
    g, e = np.asarray(got), np.asarray(expected)
    for part in ("real", "imag"):
        gp, ep = getattr(g, part), getattr(e, part)
        ok = ~np.isnan(ep)
        np.testing.assert_array_equal(np.signbit(gp[ok]), np.signbit(ep[ok]), err_msg=part)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", TRANSCENDENTAL)
def test_transcendental_specials(dtype, op):
    a = cdata(dtype, 64)  # every pair of {0, -0, 1, -1.5, 2.5, nan, inf, -inf}
    with np.errstate(all="ignore"):
        expected = getattr(np, op)(a)
    for x in views(a):
        got = getattr(asc, op)(x)
        same(got, expected, exact=op == "rint")
        same_signs(got, expected)


def axis_points(dtype):
    """Points on and next to the real and imaginary axes, both zero signs:
    the branch cuts of log/sqrt/arcsin/arccos/arctan/arc*h lie there."""
    mags = [0.0, 0.25, 0.5, 0.999, 1.0, 1.001, 1.5, 2.0, 10.0, 1e10, np.inf]
    re, im = [], []
    for m in mags:
        for s in (1.0, -1.0):
            for z in (0.0, -0.0, 1e-30):
                re += [s * m, z]
                im += [z, s * m]
    return _pack(np.array(re), np.array(im), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", TRANSCENDENTAL)
def test_transcendental_branch_cuts(dtype, op):
    a = axis_points(dtype)
    with np.errstate(all="ignore"):
        expected = getattr(np, op)(a)
    got = getattr(asc, op)(asc.asarray(a))
    same(got, expected, exact=op == "rint")
    same_signs(got, expected)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", TRANSCENDENTAL)
def test_transcendental_views_and_tails(dtype, n, op):
    a = cdata(dtype, n, seed=7, special=False) * 0.3  # moderate: no overflow in sinh/exp2
    with np.errstate(all="ignore"):
        expected = getattr(np, op)(a)
    for x in views(a):
        same(getattr(asc, op)(x), expected, scaled=True)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_transcendental_empty_zero_d_and_2d(dtype):
    for op in TRANSCENDENTAL:
        e = np.zeros((0, 2), dtype)
        same(getattr(asc, op)(asc.asarray(e)), getattr(np, op)(e))
        z = np.array(0.3 - 0.7j, dtype)
        same(getattr(asc, op)(asc.asarray(z)), getattr(np, op)(z))
        m = cdata(dtype, 24, seed=3, special=False).reshape(4, 6) * 0.3
        same(getattr(asc, op)(asc.asarray(m)[::-1, 1::2]), getattr(np, op)(m[::-1, 1::2]), scaled=True)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_round_componentwise(dtype):
    a = _pack(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.2345, -0.0, np.nan, np.inf, 123.456]),
              np.array([-2.5, 0.5, -0.0, 3.5, 0.49, -7.891, 0.5, 1.5, -np.inf, -0.05]), dtype)
    x = asc.asarray(a)
    same(asc.round(x), np.round(a), exact=True)
    same(asc.rint(x[::-1]), np.rint(a[::-1]), exact=True)
    same(asc.round(x, 2), np.round(a, 2))
    same(asc.round(x, -1), np.round(a, -1))


def test_transcendental_fused_expression():
    a = cdata(np.complex128, 40, seed=9, special=False) * 0.3
    x = asc.asarray(a)
    same(asc.sin(x) * asc.cos(x) + asc.log1p(x), np.sin(a) * np.cos(a) + np.log1p(a))
    same(asc.expm1(asc.arctanh(x)) - asc.exp2(x), np.expm1(np.arctanh(a)) - np.exp2(a))


# ------------------------------------------------------------------ argmax, argmin


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_argmin(dtype, fn):
    rng = np.random.default_rng(11)
    # ties in the real part decided by the imaginary part; -0 == +0
    a = _pack(rng.integers(-3, 4, 50).astype(float), rng.integers(-3, 4, 50).astype(float), dtype)
    a[7] = complex(-0.0, 3.0)
    for x, ref in zip(views(a), (a, a, a)):
        assert int(getattr(asc, fn)(x)) == getattr(np, fn)(ref)
    m = a[:48].reshape(6, 8)
    xm = asc.asarray(m)
    for axis in (0, 1, -1):
        same(getattr(asc, fn)(xm, axis=axis), getattr(np, fn)(m, axis=axis))
        same(getattr(asc, fn)(xm[::-1, ::2], axis=axis), getattr(np, fn)(m[::-1, ::2], axis=axis))
        same(getattr(asc, fn)(xm, axis=axis, keepdims=True), getattr(np, fn)(m, axis=axis, keepdims=True))
    same(getattr(asc, fn)(asc.asarray(np.array(2 - 1j, dtype))), getattr(np, fn)(np.array(2 - 1j, dtype)))
    with pytest.raises(ValueError):
        getattr(asc, fn)(asc.asarray(np.zeros(0, dtype)))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_argmin_nan_and_inf(dtype, fn):
    nan, inf = np.nan, np.inf
    cases = [
        ([1, 2, nan, 3, nan], [0, 0, 0, 0, 0]),        # first NaN real part wins
        ([1, 2, 5, 3, 0], [0, 0, nan, 0, nan]),        # a NaN imaginary part counts too
        ([nan, 2, 5], [0, 0, 0]),
        ([inf, 2, -inf, inf], [0, 1, 0, -inf]),
        ([-inf, -inf, 1], [inf, -inf, nan]),
        ([0.0, -0.0, 0.0], [-0.0, 0.0, 1.0]),
    ]
    for re, im in cases:
        a = _pack(np.array(re, float), np.array(im, float), dtype)
        for x in views(a):
            assert int(getattr(asc, fn)(x)) == getattr(np, fn)(a), (re, im)
    # the same per row along an axis
    a = _pack(np.array([[1, nan, 3], [4, 5, 6]], float), np.array([[0, 0, 0], [0, 0, nan]], float), dtype)
    same(getattr(asc, fn)(asc.asarray(a), axis=1), getattr(np, fn)(a, axis=1))
    same(getattr(asc, fn)(asc.asarray(a), axis=0), getattr(np, fn)(a, axis=0))


# ------------------------------------------------------------------ complex stored into real arrays

STORE_TARGETS = [np.float32, np.float64, np.float16, np.int32, np.uint8, np.int64]


@pytest.mark.parametrize("dst", STORE_TARGETS, ids=lambda d: np.dtype(d).name)
def test_setitem_python_complex_raises(dst):
    x = asc.zeros(4, dst)
    n = np.zeros(4, dst)
    for key, seq in ((0, 1j), (slice(None), [1 + 2j, 3, 4, 5]), (Ellipsis, [1j] * 4), (np.array([0, 2]), (2, 1j))):
        for value in (1 + 2j, 1 + 0j, seq):
            with pytest.raises(TypeError):
                n[key] = value
            with pytest.raises(TypeError, match=r"\[setitem\].*complex"):
                x[key] = value
            with pytest.raises(asc.AscendError):
                x[key] = value
    same(x, n, exact=True)  # nothing was written


@pytest.mark.parametrize("dst", STORE_TARGETS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("src", CDTYPES)
def test_setitem_complex_array_warns_and_casts(dst, src):
    v = _pack(np.array([1.5, -2.0, 3.0, 4.0]), np.array([7.0, -0.0, 2.0, 1.0]), src)
    for value_of in (lambda: v, lambda: asc.asarray(v), lambda: v[1], lambda: np.array(v[2])):
        n, x = np.zeros(4, dst), asc.zeros(4, dst)
        with pytest.warns(np.exceptions.ComplexWarning):
            n[:] = value_of()
        with pytest.warns(np.exceptions.ComplexWarning):
            x[:] = value_of()
        same(x, n, exact=True)
    n, x = np.zeros(4, dst), asc.zeros(4, dst)
    with pytest.warns(np.exceptions.ComplexWarning):
        x[1:3] = asc.asarray(v)[::-2]
    with pytest.warns(np.exceptions.ComplexWarning):
        n[1:3] = v[::-2]
    same(x, n, exact=True)


def test_setitem_complex_into_bool_and_complex_targets():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither target warns
        b, nb = asc.zeros(3, bool), np.zeros(3, bool)
        b[0] = 1j
        nb[0] = 1j
        b[1:] = asc.asarray(np.array([0j, 2 + 0j], np.complex64))
        nb[1:] = np.array([0j, 2 + 0j], np.complex64)
        same(b, nb)
        c, nc = asc.zeros(3, np.complex64), np.zeros(3, np.complex64)
        c[0] = 1 + 2j
        nc[0] = 1 + 2j
        c[1:] = [3j, -1 - 0j]
        nc[1:] = [3j, -1 - 0j]
        same(c, nc, exact=True)
        # real values into a real array still pass without warnings
        f = asc.zeros(2, np.float32)
        f[:] = [1.5, 2]
        f[0] = 3
        same(f, np.array([3, 2], np.float32), exact=True)


@pytest.mark.parametrize("dst", STORE_TARGETS + [np.bool_], ids=lambda d: np.dtype(d).name)
def test_full_and_asarray_complex_to_real(dst):
    warn = np.dtype(dst) != np.bool_
    for value in (1 + 2j, np.complex64(3 - 1j), np.complex128(-0.0 + 1j)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            expected = np.full(3, value, dtype=dst)
            assert any(x.category is np.exceptions.ComplexWarning for x in w) == warn
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = asc.full(3, value, dtype=dst)
            assert any(x.category is np.exceptions.ComplexWarning for x in w) == warn
        same(got, expected, exact=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = asc.full_like(asc.zeros(2, dst), value)
            assert any(x.category is np.exceptions.ComplexWarning for x in w) == warn
        same(got, np.full(2, value.real, dtype=dst) if warn else np.full(2, value, dtype=dst), exact=True)
    if warn:
        for fn in (asc.asarray, asc.array):
            with pytest.raises(TypeError, match="complex"):
                fn(1 + 2j, dtype=dst)
            with pytest.raises(TypeError, match="complex"):
                fn([1.0, 2j], dtype=dst)
            with pytest.warns(np.exceptions.ComplexWarning):
                r = fn(np.array([1.5 + 2j, -3 + 0j]), dtype=dst)
            with pytest.warns(np.exceptions.ComplexWarning):
                e = np.asarray(np.array([1.5 + 2j, -3 + 0j]), dtype=dst)
            same(r, e, exact=True)
    same(asc.full(2, 1 + 2j), np.full(2, 1 + 2j), exact=True)  # no dtype: complex result


# ------------------------------------------------------------------ search and nan-reductions


def _zeros_and_nans(dtype):
    """Values whose nonzero-ness depends on one part only: ±0 in both parts,
    NaN/Inf in either part, plus the special grid of cdata."""
    parts = [(0.0, 0.0), (-0.0, -0.0), (-0.0, 0.0), (0.0, -0.0), (0.0, 1.0), (-0.0, np.nan), (np.nan, -0.0),
             (np.inf, 0.0), (0.0, -np.inf), (2.0, 0.0), (np.nan, np.nan)]
    re, im = np.array([p[0] for p in parts]), np.array([p[1] for p in parts])
    return np.concatenate([_pack(re, im, dtype), cdata(dtype, 64)])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_nonzero_family(dtype):
    a = _zeros_and_nans(dtype)
    for n in (a.size, 1, 7, 8, 9, 17, 33):
        b = a[:n]
        xs = views(b)
        es = [b, np.ascontiguousarray(b[::-1])[::-1], np.repeat(b, 2)[::2]]
        for x, e in zip(xs, es):
            for g, r in zip(asc.nonzero(x), np.nonzero(e)):
                same(g, r)
            for g, r in zip(asc.where(x), np.where(e)):
                same(g, r)
            same(asc.flatnonzero(x), np.flatnonzero(e))
            same(asc.argwhere(x), np.argwhere(e))
            same(asc.count_nonzero(x), np.int64(np.count_nonzero(e)))
    # -0-0j is zero, a NaN part is nonzero
    z = _pack(np.array([-0.0, 0.0, np.nan, -0.0]), np.array([-0.0, -0.0, 0.0, np.nan]), dtype)
    same(asc.flatnonzero(asc.asarray(z)), np.array([2, 3], np.int64))
    # 2-d: axis/keepdims, transposed and reversed views
    m = a[: 6 * 11].reshape(6, 11)
    xm = asc.asarray(m)
    for x, e in ((xm, m), (xm.T, m.T), (xm[::-1, ::2], m[::-1, ::2])):
        for g, r in zip(asc.nonzero(x), np.nonzero(e)):
            same(g, r)
        same(asc.argwhere(x), np.argwhere(e))
        for axis in (None, 0, 1, -1, (0, 1)):
            same(asc.count_nonzero(x, axis=axis), np.asarray(np.count_nonzero(e, axis=axis), np.int64))
            same(asc.count_nonzero(x, axis=axis, keepdims=True),
                 np.asarray(np.count_nonzero(e, axis=axis, keepdims=True), np.int64))
    # empty and 0-d
    e0 = np.zeros((0, 3), dtype)
    x0 = asc.asarray(e0)
    same(asc.argwhere(x0), np.argwhere(e0))
    for g, r in zip(asc.nonzero(x0), np.nonzero(e0)):
        same(g, r)
    same(asc.count_nonzero(x0, axis=0), np.count_nonzero(e0, axis=0).astype(np.int64))
    same(asc.flatnonzero(x0), np.flatnonzero(e0))
    for v in (0j, complex(-0.0, -0.0), complex(np.nan, 0), 1j):
        s = np.array(v, dtype)
        same(asc.argwhere(asc.asarray(s)), np.argwhere(s))
        same(asc.count_nonzero(asc.asarray(s)), np.int64(np.count_nonzero(s)))
        same(asc.flatnonzero(asc.asarray(s)), np.flatnonzero(s))
        with pytest.raises(ValueError):
            asc.nonzero(asc.asarray(s))


def _nan_data(dtype, n=48, seed=11):
    a = cdata(dtype, n, seed=seed, special=False)
    a[::5] = complex(np.nan, 1.0)
    a[1::7] = complex(2.0, np.nan)
    a[3::11] = complex(-0.0, -0.0)
    return a


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_nan_reductions(dtype):
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    a = _nan_data(dtype)
    for x, e in zip(views(a), [a, np.ascontiguousarray(a[::-1])[::-1], np.repeat(a, 2)[::2]]):
        same(asc.nansum(x), np.nansum(e), rtol=tol)
        same(asc.nanmean(x), np.nanmean(e), rtol=tol)
        same(asc.nanargmax(x), np.nanargmax(e))
        same(asc.nanargmin(x), np.nanargmin(e))
    p = np.where(np.isnan(a), a, a / np.abs(a)).astype(dtype)[:30]
    same(asc.nanprod(asc.asarray(p)), np.nanprod(p), rtol=1e-4 if dtype == np.complex64 else 1e-11)
    m = a.reshape(6, 8)
    xm = asc.asarray(m)
    for x, e in ((xm, m), (xm.T, m.T), (xm[::-1, ::3], m[::-1, ::3])):
        for axis in (None, 0, 1, -1):
            for kd in (False, True):
                same(asc.nansum(x, axis=axis, keepdims=kd), np.nansum(e, axis=axis, keepdims=kd), rtol=tol)
                same(asc.nanmean(x, axis=axis, keepdims=kd), np.nanmean(e, axis=axis, keepdims=kd), rtol=tol)
            if axis is not None:
                same(asc.nanargmax(x, axis=axis), np.nanargmax(e, axis=axis))
                same(asc.nanargmin(x, axis=axis), np.nanargmin(e, axis=axis))
        same(asc.nansum(x, axis=0, dtype=np.complex128), np.nansum(e, axis=0, dtype=np.complex128), rtol=tol)
    # ties and special values: -inf / +inf parts and the replaced NaNs
    s = _pack(np.array([np.nan, -np.inf, 0.0, -np.inf, np.inf, 1.0]),
              np.array([0.0, -1.0, np.nan, 5.0, np.nan, np.inf]), dtype)
    same(asc.nanargmax(asc.asarray(s)), np.nanargmax(s))
    same(asc.nanargmin(asc.asarray(s)), np.nanargmin(s))
    same(asc.nansum(asc.asarray(s[[0, 2, 5]])), np.nansum(s[[0, 2, 5]]), exact=True)
    # ±0: nansum of zeros keeps NumPy's sign
    z = _pack(np.array([-0.0, -0.0, np.nan]), np.array([-0.0, -0.0, 0.0]), dtype)
    same(asc.nansum(asc.asarray(z)), np.nansum(z), exact=True)
    same(asc.nanprod(asc.asarray(z)), np.nanprod(z), exact=True)
    # 0-d
    for v in (complex(np.nan, 0), complex(0, np.nan), 1 - 2j):
        s0 = np.array(v, dtype)
        same(asc.nansum(asc.asarray(s0)), np.nansum(s0), exact=True)
        same(asc.nanprod(asc.asarray(s0)), np.nanprod(s0), exact=True)
    same(asc.nanargmax(asc.asarray(np.array(1 - 2j, dtype))), np.nanargmax(np.array(1 - 2j, dtype)))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_nan_reductions_all_nan_and_empty(dtype):
    allnan = _pack(np.array([np.nan, 1.0, np.nan]), np.array([0.0, np.nan, np.nan]), dtype)
    x = asc.asarray(allnan)
    same(asc.nansum(x), np.nansum(allnan), exact=True)
    same(asc.nanprod(x), np.nanprod(allnan), exact=True)
    with pytest.raises(ValueError, match="All-NaN"):
        asc.nanargmax(x)
    with pytest.raises(ValueError, match="All-NaN"):
        asc.nanargmin(x)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = asc.nanmean(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.nanmean(allnan)
    same(got, expected)
    e = np.zeros((0, 3), dtype)
    xe = asc.asarray(e)
    same(asc.nansum(xe, axis=0), np.nansum(e, axis=0), exact=True)
    same(asc.nanprod(xe, axis=0), np.nanprod(e, axis=0), exact=True)
    same(asc.nansum(xe), np.nansum(e), exact=True)
    with pytest.raises(ValueError):
        asc.nanargmax(xe)
    with pytest.raises(ValueError):
        asc.nanargmin(xe, axis=0)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_nan_cumulative(dtype):
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    a = _nan_data(dtype, 40)
    for x, e in zip(views(a), [a, np.ascontiguousarray(a[::-1])[::-1], np.repeat(a, 2)[::2]]):
        same(asc.nancumsum(x), np.nancumsum(e), rtol=tol)
    p = np.where(np.isnan(a), a, a / np.abs(a)).astype(dtype)[:30]
    same(asc.nancumprod(asc.asarray(p)), np.nancumprod(p), rtol=1e-4 if dtype == np.complex64 else 1e-11)
    m = a.reshape(5, 8)
    for axis in (0, 1, -1):
        same(asc.nancumsum(asc.asarray(m)[::-1], axis=axis), np.nancumsum(m[::-1], axis=axis), rtol=tol)
    z = _pack(np.array([np.nan, -0.0, 1.0]), np.array([0.0, -0.0, np.nan]), dtype)
    same(asc.nancumsum(asc.asarray(z)), np.nancumsum(z), exact=True)
    same(asc.nancumprod(asc.asarray(z)), np.nancumprod(z), exact=True)
    e0 = np.zeros(0, dtype)
    same(asc.nancumsum(asc.asarray(e0)), np.nancumsum(e0))
