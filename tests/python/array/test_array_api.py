"""Array API standard (2024.12) conformance points, each checked against NumPy 2.4 (its own
array API answers where it has them) or against the standard's stated result.

The external suite (data-apis/array-api-tests, scripts/array_api_tests.sh) is not part of CI;
these are the regressions of the fixes it found: __array_api_version__, the inspection
namespace, finfo/iinfo types, device= on creation functions, to_device, arange's step with one
bound, expand_dims axes, meshgrid of empty vectors, reshape(copy=), the keyword names the
standard uses, cos(+-0) == 1 in float64, -0 kept by in-place updates of one-element arrays.
"""

import inspect
import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import FLOAT_DTYPES, INT_DTYPES

IDS = lambda d: np.dtype(d).name  # noqa: E731
BF16 = np.dtype(ml_dtypes.bfloat16)


# ------------------------------------------------------------------ version, namespace, info


def test_array_api_version():
    assert asc.__array_api_version__ == "2024.12"
    assert "__array_api_version__" in asc.numeric.__all__
    x = asc.ones(3)
    assert x.__array_namespace__() is asc
    assert x.__array_namespace__(api_version="2024.12") is asc
    with pytest.raises(ValueError, match="2099.01"):
        x.__array_namespace__(api_version="2099.01")


def test_info_capabilities_and_devices():
    info = asc.__array_namespace_info__()
    caps = info.capabilities()
    assert caps == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}
    asc.zeros((1,) * caps["max dimensions"])  # the stated maximum exists
    with pytest.raises(ValueError):
        asc.zeros((1,) * (caps["max dimensions"] + 1))
    assert info.devices() == ["cpu"]
    assert info.default_device() in info.devices()
    assert asc.ones(2).device == info.default_device()


def test_info_default_dtypes_as_numpy():
    got = asc.__array_namespace_info__().default_dtypes(device="cpu")
    assert got == np.__array_namespace_info__().default_dtypes(device="cpu")
    assert asc.asarray(1.5).dtype == got["real floating"]
    assert asc.asarray(1).dtype == got["integral"]
    assert asc.asarray(1j).dtype == got["complex floating"]


KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating",
         "numeric", ("bool", "real floating"), ("signed integer", "complex floating")]


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_info_dtypes_as_numpy(kind):
    """Names and dtypes of NumPy's own inspection namespace (array API dtypes only: no float16,
    no bfloat16), each usable by the creation functions."""
    got = asc.__array_namespace_info__().dtypes(kind=kind, device="cpu")
    expected = np.__array_namespace_info__().dtypes(kind=kind, device="cpu")
    assert got == expected
    for dt in got.values():
        assert asc.empty(1, dtype=dt, device="cpu").dtype == dt


def test_info_bad_arguments():
    info = asc.__array_namespace_info__()
    for kind in ("floating", np.float32, ("bool", "float")):
        with pytest.raises(ValueError):
            np.__array_namespace_info__().dtypes(kind=kind)
        with pytest.raises(ValueError, match="kind"):
            info.dtypes(kind=kind)
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="gpu")
    with pytest.raises(ValueError, match="device"):
        info.default_dtypes(device="gpu")


# ------------------------------------------------------------------ finfo / iinfo


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.complex64, np.complex128], ids=IDS)
def test_finfo_types_and_values(dtype):
    ref = ml_dtypes.finfo(dtype)  # numpy.finfo, and bfloat16's
    for arg in (dtype, np.dtype(dtype), asc.ones(2, dtype=dtype), asc.ones(2, dtype=dtype).dtype):
        fi = asc.finfo(arg)
        assert type(fi.bits) is int and fi.bits == ref.bits
        for name in ("eps", "max", "min", "smallest_normal"):
            v = getattr(fi, name)
            assert type(v) is float, name
            assert v == float(getattr(ref, name)), name
        assert fi.dtype == np.dtype(ref.dtype) and not isinstance(fi.dtype, str)
        # NumPy's other fields, unchanged
        assert fi.tiny == ref.tiny and fi.resolution == ref.resolution and fi.precision == ref.precision
        assert fi.nmant == ref.nmant and fi.epsneg == ref.epsneg
    assert asc.finfo(dtype) == asc.finfo(dtype)
    with pytest.raises(AttributeError):
        asc.finfo(dtype).eps = 1.0


def test_finfo_complex_describes_real_part():
    assert asc.finfo(np.complex64).dtype == np.dtype(np.float32)
    assert asc.finfo(np.complex128).dtype == np.dtype(np.float64)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=IDS)
def test_iinfo_types_and_values(dtype):
    ref = np.iinfo(dtype)
    for arg in (dtype, np.dtype(dtype), asc.ones(2, dtype=dtype), asc.ones(2, dtype=dtype).dtype):
        ii = asc.iinfo(arg)
        assert type(ii.bits) is int and type(ii.min) is int and type(ii.max) is int
        assert (ii.bits, ii.min, ii.max, ii.dtype) == (ref.bits, int(ref.min), int(ref.max), np.dtype(dtype))


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_], ids=IDS)
def test_finfo_of_non_float_raises_as_numpy(dtype):
    with pytest.raises(ValueError):
        np.finfo(dtype)
    with pytest.raises(ValueError, match="finfo"):
        asc.finfo(dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.bool_], ids=IDS)
def test_iinfo_of_non_int_raises_as_numpy(dtype):
    with pytest.raises(ValueError):
        np.iinfo(dtype)
    with pytest.raises(ValueError, match="iinfo"):
        asc.iinfo(dtype)


# ------------------------------------------------------------------ creation: device=, arange


CREATION = [
    ("zeros", lambda xp, **k: xp.zeros((2, 3), **k)),
    ("ones", lambda xp, **k: xp.ones(4, dtype=np.int8, **k)),
    ("empty", lambda xp, **k: xp.empty((0, 2), **k)),
    ("full", lambda xp, **k: xp.full((2,), 7.5, **k)),
    ("zeros_like", lambda xp, **k: xp.zeros_like(xp.asarray(np.arange(3, dtype=np.int16)), **k)),
    ("ones_like", lambda xp, **k: xp.ones_like(xp.asarray(np.arange(3.0)), dtype=np.float32, **k)),
    ("empty_like", lambda xp, **k: xp.empty_like(xp.asarray(np.arange(3.0)), **k).shape),
    ("full_like", lambda xp, **k: xp.full_like(xp.asarray(np.arange(3)), 2, **k)),
    ("eye", lambda xp, **k: xp.eye(3, 4, k=1, **k)),
    ("linspace", lambda xp, **k: xp.linspace(0, 1, 7, **k)),
    ("arange", lambda xp, **k: xp.arange(1, 9, 2, **k)),
    ("asarray", lambda xp, **k: xp.asarray([[1, 2], [3, 4]], **k)),
]


@pytest.mark.parametrize("name,fn", CREATION, ids=[c[0] for c in CREATION])
def test_creation_device(name, fn):
    expected = fn(np, device="cpu")
    for device in (None, "cpu", asc.ones(1).device):
        got = fn(asc, device=device)
        if isinstance(expected, tuple):
            assert got == expected
        else:
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(np.asarray(got), expected)
    with pytest.raises(ValueError, match=f"{name}.*unsupported device 'gpu'"):
        fn(asc, device="gpu")
    param = inspect.signature(getattr(asc, name)).parameters.get("device") if name not in (
        "empty", "full", "asarray") else None
    if param is not None:
        assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is None


def test_eye_dtype_none_is_float64():
    assert asc.eye(2, dtype=None).dtype == np.eye(2, dtype=None).dtype == np.float64


@pytest.mark.parametrize("args,kwargs", [
    ((5.0,), {"step": 2}),                         # one bound and a step: the step was dropped
    ((2419502287.0,), {"step": 100653397890458}),  # ... and this one allocated 2.4e9 elements
    ((7,), {"step": -1}),
    ((-3,), {"step": 1}),
    ((0.5, 3), {"dtype": np.int64}),               # dtype= computes in the dtype, as NumPy
    ((0, 1, 0.3), {"dtype": np.float32}),
    ((0, 5), {"dtype": ml_dtypes.bfloat16}),
    ((10, 0, -3), {}),
    ((0,), {}),
])
def test_arange_as_numpy(args, kwargs):
    expected = np.arange(*args, **kwargs)
    got = asc.arange(*args, **kwargs)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(got), expected)


# ------------------------------------------------------------------ to_device, manipulation


def test_to_device():
    x = asc.asarray(np.arange(6.0).reshape(2, 3))
    assert x.to_device("cpu") is x
    assert x.to_device(x.device, stream=None) is x
    with pytest.raises(ValueError, match="to_device.*'gpu'"):
        x.to_device("gpu")
    sig = inspect.signature(x.to_device)
    assert sig.parameters["device"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert sig.parameters["stream"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 4)])
def test_expand_dims_as_numpy(shape):
    a = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    x = asc.asarray(a)
    nd = len(shape)
    for axis in list(range(-2 * nd - 3, 2 * nd + 3)) + [(0, 1), (-1, 0), (0, -1, 2), (1, 1), (0, 9)]:
        try:
            expected = np.expand_dims(a, axis)
        except (IndexError, ValueError) as e:
            with pytest.raises(IndexError if isinstance(e, IndexError) else ValueError):
                asc.expand_dims(x, axis=axis)
            continue
        got = asc.expand_dims(x, axis=axis)
        assert got.shape == expected.shape, axis
        np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("lengths", [(0,), (0, 0), (0, 3), (2, 0), (3, 0, 2), (1, 4), (2, 3, 4)])
def test_meshgrid_empty_and_mixed_lengths(indexing, sparse, lengths):
    vs = [np.arange(n, dtype=np.uint8) + i for i, n in enumerate(lengths)]
    expected = np.meshgrid(*vs, indexing=indexing, sparse=sparse)
    got = asc.meshgrid(*[asc.asarray(v) for v in vs], indexing=indexing, sparse=sparse)
    assert type(got) is type(expected) and len(got) == len(expected)
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(np.asarray(g), e)


@pytest.mark.parametrize("copy", [None, True, False])
def test_reshape_copy(copy):
    a = np.arange(12.0).reshape(3, 4)
    x = asc.asarray(a.copy())
    # contiguous: a view unless copy=True
    expected = np.reshape(a, (4, 3), copy=copy)
    got = asc.reshape(x, shape=(4, 3), copy=copy)
    np.testing.assert_array_equal(np.asarray(got), expected)
    got[0, 0] = -1.0
    assert (float(x[0, 0]) == -1.0) == (copy is not True)
    # non-contiguous: copy=False cannot be a view
    t = a.T
    xt = asc.asarray(a.copy()).T
    if copy is False:
        with pytest.raises(ValueError):
            np.reshape(t, (12,), copy=False)
        with pytest.raises(ValueError, match="reshape"):
            asc.reshape(xt, (12,), copy=False)
    else:
        np.testing.assert_array_equal(np.asarray(asc.reshape(xt, (12,), copy=copy)), np.reshape(t, (12,), copy=copy))


def test_keyword_names_of_the_standard():
    x = asc.asarray(np.arange(5.0))
    assert asc.broadcast_to(x, shape=(2, 5)).shape == (2, 5)
    assert asc.broadcast_to(array=x, shape=(1, 5)).shape == np.broadcast_to(array=np.arange(5.0), shape=(1, 5)).shape
    assert asc.reshape(x, shape=(1, 5)).shape == (1, 5)
    assert asc.expand_dims(x, axis=0).shape == (1, 5)
    assert asc.asarray(obj=[1, 2], dtype=None, device=None, copy=None).shape == (2,)
    assert asc.empty(shape=3, dtype=np.int8, device="cpu").dtype == np.int8
    assert asc.full(shape=(2,), fill_value=3, dtype=None, device=None).dtype == np.full((2,), 3).dtype


# ------------------------------------------------------------------ elementwise special values


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=IDS)
@pytest.mark.parametrize("n", [0, 1, 3, 8, 17, 64, 1000])
def test_cos_of_zero_and_tiny_is_one(mode, dtype, n):
    """The standard: cos(+0) = cos(-0) = 1. float64's vector kernel gave 1 - 2^-53 for |x| < 2^-27."""
    vals = np.array([0.0, -0.0, 1e-300, -1e-20, 2.0 ** -28, -(2.0 ** -27.5), 1e-9, 5e-324])
    a = (np.resize(vals, n) if n else np.array(0.0)).astype(dtype)
    got = np.asarray(asc.cos(asc.asarray(a)))
    expected = np.cos(a)
    assert got.dtype == expected.dtype
    assert (got == 1).all() and (expected == 1).all()
    # and the rest of the range is untouched: within the documented 3 ulp of NumPy
    b = np.linspace(-10, 10, 1001).astype(dtype)
    np.testing.assert_allclose(np.asarray(asc.cos(asc.asarray(b))).astype(np.float64),
                               np.cos(b).astype(np.float64), rtol=0, atol=float(ml_dtypes.finfo(dtype).eps) * 4)


INPLACE = [("iadd", lambda x, y: x.__iadd__(y), np.add), ("isub", lambda x, y: x.__isub__(y), np.subtract),
           ("imul", lambda x, y: x.__imul__(y), np.multiply)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=IDS)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (2,), (5,)])
@pytest.mark.parametrize("name,iop,ufunc", INPLACE, ids=[i[0] for i in INPLACE])
def test_inplace_keeps_signed_zero(mode, dtype, shape, name, iop, ufunc):
    """-0 + -0 = -0 (the standard, NumPy): x += y on a one-element array went through the
    reduction combiner, whose +0 start gave +0."""
    for xv, yv in [(-0.0, -0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, 1.0), (-1.0, 0.0), (3.0, -0.0)]:
        a = np.full(shape, xv, dtype=dtype)
        b = np.full(shape, yv, dtype=dtype)
        x = asc.asarray(a.copy())
        y = asc.asarray(b)
        iop(x, y)
        expected = ufunc(a, b)
        got = np.asarray(x)
        np.testing.assert_array_equal(got, expected)
        assert (np.signbit(got) == np.signbit(expected)).all(), (xv, yv)
        # out= aliasing the first operand takes the same loop
        x2 = asc.asarray(a.copy())
        ufunc_name = {"iadd": "add", "isub": "subtract", "imul": "multiply"}[name]
        getattr(asc, ufunc_name)(x2, y, out=x2)
        assert (np.signbit(np.asarray(x2)) == np.signbit(expected)).all(), (xv, yv)


def test_sum_of_negative_zeros_as_numpy(mode):
    """Reductions keep their own (NumPy's) result: sum of -0s is +0, as np.sum."""
    for n in (1, 2, 3, 17):
        a = np.full(n, -0.0)
        assert np.signbit(np.asarray(asc.sum(asc.asarray(a)))) == np.signbit(np.sum(a))
