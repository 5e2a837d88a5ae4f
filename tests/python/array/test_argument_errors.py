"""NumPy's parameters and exception classes for the non-ufunc functions and ndarray methods
(issue 20 item 15, fuzz findings of pattern pybind-signature / class-mismatch): every case
runs with NumPy and pyasc; both return equal results, or pyasc raises an instance of the
class NumPy raises (or of its builtin base: AxisError -> ValueError/IndexError)."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

BF16 = np.dtype(ml_dtypes.bfloat16)


def _run(xp, fn):
    try:
        return fn(xp), None
    except Exception as e:  # noqa: BLE001
        return None, e


def _builtin_bases(cls):
    return [b for b in cls.__mro__ if b.__module__ == "builtins" and b not in (BaseException, Exception, object)]


def check(fn):
    """fn(xp) with xp = np and asc: equal results, or matching exception classes."""
    ref, rexc = _run(np, fn)
    got, gexc = _run(asc, fn)
    if rexc is not None:
        assert gexc is not None, f"numpy raises {rexc!r}, pyasc returns {got!r}"
        assert isinstance(gexc, type(rexc)) or any(isinstance(gexc, b) for b in _builtin_bases(type(rexc))), \
            f"numpy {type(rexc).__name__}: {rexc} | pyasc {type(gexc).__name__}: {gexc}"
        assert "incompatible function arguments" not in str(gexc)
        return gexc
    assert gexc is None, f"numpy returns, pyasc raises {gexc!r}"
    _equal(ref, got)
    return got


def _equal(ref, got):
    if isinstance(ref, (tuple, list)):
        assert len(ref) == len(got)
        for r, g in zip(ref, got):
            _equal(r, g)
        return
    g = np.asarray(got)
    r = np.asarray(ref)
    assert g.dtype == r.dtype, (g.dtype, r.dtype)
    assert g.shape == r.shape, (g.shape, r.shape)
    np.testing.assert_allclose(g.astype(np.complex128), r.astype(np.complex128), rtol=1e-6, atol=1e-12, equal_nan=True)


def _a(xp, a):
    return a if xp is np else asc.asarray(a)


A = np.arange(24.0).reshape(2, 3, 4) - 7
AI = np.arange(-6, 6, dtype=np.int16).reshape(3, 4)
AN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-0.0, 2.0, np.inf]])
W = np.array([[True, False, True, True], [False, False, False, False], [True, True, False, True]])


# --------------------------------------------------------------- non-numeric data

@pytest.mark.parametrize("call", [
    lambda xp: xp.diagonal(None),
    lambda xp: xp.diff(2**64),
    lambda xp: xp.cumprod(2**64, axis=3),
    lambda xp: xp.flip(None, axis=0),
    lambda xp: xp.sort("abc"),
    lambda xp: xp.expand_dims((1, "a"), 5),
    lambda xp: xp.linalg.det(None),
    lambda xp: xp.linalg.inv((1, "a")),
    lambda xp: xp.matrix_transpose("abc"),
    lambda xp: xp.trace("abc"),
    lambda xp: xp.union1d(2**70, 1),
])
def test_non_numeric_data_raises_numpys_class(call):
    check(call)


def test_non_numeric_data_error_is_type_and_value_error():
    with pytest.raises(asc.errors.AscendUnsupportedDtypeError, match=r"unsupported dtype <U3") as ei:
        asc.asarray(np.array(["abc"]))
    assert isinstance(ei.value, TypeError) and isinstance(ei.value, ValueError)
    with pytest.raises(OverflowError):
        asc.asarray(np.array([2**70], dtype=object))


# --------------------------------------------------------------- reductions: keepdims, initial, where

RED = ["sum", "prod", "max", "min", "amax", "amin"]


@pytest.mark.parametrize("name", RED + ["mean", "any", "all"])
@pytest.mark.parametrize("keepdims", [True, 0, 2, np.True_, float("nan"), "a", None, np.array([1, 2])])
def test_reduction_keepdims_values(name, keepdims):
    check(lambda xp: getattr(xp, name)(_a(xp, A), axis=1, keepdims=keepdims))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_initial_where(name, axis, keepdims):
    for a in (AI, AI.astype(np.float32), AI.astype(np.uint8)):
        check(lambda xp: getattr(xp, name)(_a(xp, a), axis=axis, keepdims=keepdims, initial=3))
        check(lambda xp: getattr(xp, name)(_a(xp, a), axis=axis, keepdims=keepdims, initial=-2, where=_a(xp, W)))
        check(lambda xp: getattr(xp, name)(_a(xp, a), axis=axis, where=_a(xp, W[0])))


@pytest.mark.parametrize("name", ["max", "min"])
def test_extremum_initial_on_empty(name):
    e = np.zeros((0, 3), np.int32)
    check(lambda xp: getattr(xp, name)(_a(xp, e), axis=0, initial=5))
    check(lambda xp: getattr(xp, name)(_a(xp, e), initial=5))
    check(lambda xp: getattr(xp, name)(_a(xp, e), axis=0))


@pytest.mark.parametrize("where", [W, W[1], np.ones(4, np.int64), [[1], [2, 3]], np.ones((2, 4), bool)])
def test_where_mask_errors(where):
    for name in ("sum", "any", "all", "mean"):
        check(lambda xp: getattr(xp, name)(_a(xp, AI), where=where))


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("dtype", [None, np.float32])
def test_mean_where(axis, dtype):
    for a in (AI, AI.astype(np.float16), AN):
        with np.errstate(all="ignore"):
            check(lambda xp: xp.mean(_a(xp, a[:, :3]), axis=axis, dtype=dtype, where=_a(xp, W[:, :3])))


@pytest.mark.parametrize("initial", [[1, 2], np.zeros((2, 0), np.uint8), "x"])
def test_initial_must_be_scalar(initial):
    check(lambda xp: xp.sum(_a(xp, AI), initial=initial))
    check(lambda xp: xp.max(_a(xp, AI), initial=initial))


# --------------------------------------------------------------- creation: order, like, ndmin, copy

ORDERS = ["C", "F", "A", "K", "c", "f", None, "bogus", "CF", np.array(1), 3]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_new_array_order(name, order):
    r = check(lambda xp: getattr(xp, name)((2, 3), order=order) * 0)
    if order in ("F", "f") and not isinstance(r, Exception):
        assert getattr(asc, name)((2, 3), order=order).T.is_contiguous()


@pytest.mark.parametrize("order", ORDERS)
def test_full_and_like_order(order):
    check(lambda xp: xp.full((2, 3), 7, order=order))
    for name in ("zeros_like", "ones_like"):
        check(lambda xp: getattr(xp, name)(_a(xp, A), order=order))
    check(lambda xp: xp.full_like(_a(xp, A), -1, order=order))
    check(lambda xp: xp.empty_like(_a(xp, A), order=order) * 0)


def test_like_shape_subok():
    check(lambda xp: xp.zeros_like(_a(xp, A), shape=(3, 1), subok=False))
    check(lambda xp: xp.ones_like(_a(xp, AI), dtype=np.float32, subok=True, shape=5))
    check(lambda xp: xp.zeros((2,), like=_a(xp, A)))
    with pytest.raises(NotImplementedError, match=r"\[zeros\] like="):
        asc.zeros(3, like=[1, 2])


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", ["array", "asarray"])
def test_array_order(name, order):
    check(lambda xp: getattr(xp, name)(A.transpose(2, 0, 1), order=order))


@pytest.mark.parametrize("ndmin", [0, 1, 4, np.int8(3), 1.5, "a", 65])
def test_array_ndmin(ndmin):
    check(lambda xp: xp.array(A[0], ndmin=ndmin))
    check(lambda xp: xp.array(3.0, ndmin=ndmin))


@pytest.mark.parametrize("copy", [True, False, None])
def test_array_copy(copy):
    src = np.arange(6.0)
    check(lambda xp: xp.array(src, copy=copy))
    check(lambda xp: xp.array(src, dtype=np.float32, copy=copy))
    check(lambda xp: xp.asarray(src, dtype=np.float32, copy=copy))


# --------------------------------------------------------------- shape: reshape / ravel / conj

@pytest.mark.parametrize("order", ["C", "F", "A", "K", "f", None, "bogus", np.array(2)])
@pytest.mark.parametrize("copy", [None, True, False])
def test_reshape_order_copy(order, copy):
    for a in (A, A.transpose(2, 1, 0)):
        check(lambda xp: xp.reshape(_a(xp, a), (4, -1), order=order, copy=copy))
        check(lambda xp: _a(xp, a).reshape(6, 4, order=order, copy=copy))
        check(lambda xp: _a(xp, a).reshape((2, 12), order=order))


def test_method_reshape_without_shape():
    check(lambda xp: _a(xp, A).reshape())


@pytest.mark.parametrize("order", ["C", "F", "A", "K", "a", None, "bogus", np.array(0)])
def test_ravel_order(order):
    for a in (A, A.transpose(2, 1, 0), A[:, ::2]):
        check(lambda xp: _a(xp, a).ravel(order))
        check(lambda xp: _a(xp, a).ravel(order=order))


def test_conj_methods():
    z = (A + 1j * A[::-1]).astype(np.complex64)
    check(lambda xp: _a(xp, z).conj())
    check(lambda xp: _a(xp, z).conjugate())
    check(lambda xp: _a(xp, A).conj())


# --------------------------------------------------------------- nan reductions, take/choose mode, svd, average

@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_extremum_initial_where(name, axis):
    with np.errstate(all="ignore"):
        check(lambda xp: getattr(xp, name)(_a(xp, AN), axis=axis, initial=-5.0))
        check(lambda xp: getattr(xp, name)(_a(xp, AN), axis=axis, initial=7, where=_a(xp, W[:, :3])))
        check(lambda xp: getattr(xp, name)(_a(xp, AI), axis=axis, initial=1, keepdims=True))
        check(lambda xp: getattr(xp, name)(_a(xp, AN), axis=axis, where=_a(xp, W[:, :3])))  # no initial: ValueError
        check(lambda xp: getattr(xp, name)(_a(xp, AI), initial=np.zeros((2, 0), np.uint8)))
        check(lambda xp: getattr(xp, name)(_a(xp, AI), axis=5, initial=1))


@pytest.mark.parametrize("axis", [None, 0, 1, 3])
def test_nanmean_where_and_dtype(axis):
    with np.errstate(all="ignore"):
        check(lambda xp: xp.nanmean(_a(xp, AN), axis=axis, where=_a(xp, W[:, :3])))
        check(lambda xp: xp.nanmean(_a(xp, AN), axis=axis, where=_a(xp, W[:, :3].astype(np.float16))))
        check(lambda xp: xp.nanmean(_a(xp, AN), axis=axis, dtype=np.uint16))
        check(lambda xp: xp.nanmean(_a(xp, AI), axis=axis, dtype=np.float32))


@pytest.mark.parametrize("name", ["nanstd", "nanvar"])
def test_nanvar_mean_where(name):
    check(lambda xp: getattr(xp, name)(_a(xp, AN), axis=-3, mean=_a(xp, AN)))
    # (mean=/where= are supported since the m_z fuzz slice: compared with NumPy)
    check(lambda xp: getattr(xp, name)(_a(xp, AN), axis=0, mean=_a(xp, AN)))
    check(lambda xp: getattr(xp, name)(_a(xp, AN), where=_a(xp, AN > 0)))


@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 3, "r", "raise", "wrap", "clip", "bogus", None, 1.5, np.int64(1)])
def test_take_mode(mode):
    check(lambda xp: xp.take(_a(xp, A[0, 0]), [5, -7, 2], mode=mode))
    check(lambda xp: xp.take(_a(xp, A), [1, 0], axis=0, mode=mode))


@pytest.mark.parametrize("axis", [-2, -1, 0, 1, 4])
def test_take_axis_checked_before_indices(axis):
    check(lambda xp: xp.take(_a(xp, np.float64(3.0)), 1j, axis=axis))
    check(lambda xp: xp.take(_a(xp, np.float64(3.0)), [0], axis=axis))
    check(lambda xp: _a(xp, A[0, 0]).take(_a(xp, np.array(1.5, BF16)), axis))


@pytest.mark.parametrize("mode", ["constant", "r", "raise", "wrap", "clip", 0, 1])
def test_choose_mode_checked_first(mode):
    check(lambda xp: xp.choose(_a(xp, np.float64(0.0)), [_a(xp, np.int8(1))], mode=mode))
    check(lambda xp: xp.choose(_a(xp, np.array([0, 3, 1])), [_a(xp, A[0, 0, :3]), _a(xp, -A[0, 0, :3])], mode=mode))


def _singular_values(r):
    return r[1] if isinstance(r, tuple) else r


@pytest.mark.parametrize("flag", [True, False, 0, np.zeros((0, 0)), np.ones(2)])
def test_svd_flags_truth_value(flag):
    m = A[0, :, :3]
    check(lambda xp: _singular_values(xp.linalg.svd(_a(xp, m), compute_uv=flag)))  # U, Vh: signs may differ
    check(lambda xp: xp.linalg.svd(_a(xp, m), full_matrices=flag, compute_uv=False))


@pytest.mark.parametrize("axis", [None, 0, -1, 6, (0, 1), np.array([0, 1], np.int8), np.array([127], np.int8)])
@pytest.mark.parametrize("keepdims", [True, False, 2, np.ones((2, 2))])
def test_average_axis_then_keepdims(axis, keepdims):
    check(lambda xp: xp.average(_a(xp, A), axis=axis, keepdims=keepdims))
    check(lambda xp: xp.average(_a(xp, np.float32(2.0)), axis=axis, keepdims=keepdims))


# --------------------------------------------------------------- argument order of methods and helpers

@pytest.mark.parametrize("call", [
    lambda xp: _a(xp, np.int32(3)).max(_a(xp, np.uint32(0)), np.dtype(np.int32)),  # out first: TypeError
    lambda xp: _a(xp, np.int32(3)).max(1, None, True),
    lambda xp: _a(xp, A).min(axis=(0, 2), keepdims=2),
    lambda xp: _a(xp, A).any(0, None, True),
    lambda xp: _a(xp, A).sum(2 ** 64, -3),  # dtype first: TypeError
    lambda xp: _a(xp, A).sum(1, np.float32),
    lambda xp: _a(xp, A[0]).mean((1, 2), ()),  # mean: axis first: AxisError
    lambda xp: _a(xp, np.float32(1.0)).var(0, -3),
    lambda xp: _a(xp, np.float32(1.0)).prod((1, "a")),  # axis elements in order: AxisError
    lambda xp: _a(xp, np.int64(1)).argmax(4, np.dtype(np.float64)),  # out first
    lambda xp: _a(xp, A).argmin(-1),
    lambda xp: xp.sum(_a(xp, A), 2 ** 64, -3),
    lambda xp: xp.max(_a(xp, A), 7, np.dtype(np.int8)),
])
def test_reduction_argument_order(call):
    check(call)


@pytest.mark.parametrize("call", [
    lambda xp: xp.split(_a(xp, A), 0),
    lambda xp: xp.hsplit(_a(xp, A), 0),
    lambda xp: xp.vsplit(_a(xp, A), 0),
    lambda xp: xp.array_split(_a(xp, A), 0),
    lambda xp: xp.split(_a(xp, A), -1),
    lambda xp: xp.vstack(_a(xp, A)),
    lambda xp: xp.vstack(_a(xp, A[0, 0])),
    lambda xp: xp.hstack(_a(xp, A)),
    lambda xp: xp.vstack(_a(xp, np.float64(1.0))),
    lambda xp: xp.tril(5),
    lambda xp: xp.triu(_a(xp, np.float32(3.0))),
    lambda xp: xp.cumulative_sum(_a(xp, np.float64(5.0)), axis=1j),
    lambda xp: xp.cumulative_prod(_a(xp, np.uint8(5)), dtype=_a(xp, np.ones(7, bool))),
    lambda xp: xp.base_repr("abc"),
    lambda xp: xp.base_repr("12", 3),
    lambda xp: xp.packbits(_a(xp, np.uint8(3)), axis=0, bitorder=_a(xp, np.uint8(6))),
    lambda xp: xp.unpackbits(_a(xp, np.arange(3, dtype=np.uint8)), bitorder=3),
    lambda xp: xp.polyder(_a(xp, np.zeros((5, 0, 5), np.int64))),
    lambda xp: xp.polyint(_a(xp, np.ones((2, 2, 2), np.int8))),
    lambda xp: xp.percentile(_a(xp, A), 50, weights=2),
    lambda xp: xp.quantile(_a(xp, A), 0.5, weights=_a(xp, A), method="nearest"),
    lambda xp: xp.lexsort([_a(xp, A[0]), _a(xp, np.uint64(0))], axis=None),
    lambda xp: xp.zeros(_a(xp, np.array([2, 3], np.uint32)), dtype=np.int64),
    lambda xp: xp.zeros(_a(xp, np.full(7, 2 ** 31, np.uint32)), dtype=np.int64),
    lambda xp: xp.ones_like(_a(xp, A), shape=_a(xp, np.array([4, 1], np.int16))),
])
def test_numpys_check_order(call):
    check(call)


@pytest.mark.parametrize("call", [
    lambda xp: xp.partition(_a(xp, np.ones((4, 5), bool)), None, axis=-3),  # axis before kth
    lambda xp: xp.argpartition(_a(xp, np.int64(3)), 5, axis=_a(xp, np.array([1, 2]))),
    lambda xp: xp.argpartition(_a(xp, np.float32(2.0)), None),
    lambda xp: _a(xp, np.array(3, np.int32)).partition(5, np.dtype(np.uint16)),
    lambda xp: _a(xp, np.array(1.0)).argpartition(np.dtype(np.float16), 0),
    lambda xp: _a(xp, np.array(1.0)).partition(-3, (3, 1, 4)),
    lambda xp: xp.partition(_a(xp, A[0]), 1, axis=_a(xp, np.array([0, 1])), kind="bogus"),
    lambda xp: xp.partition(_a(xp, A[0]), 1, kind="bogus"),
    lambda xp: xp.partition(_a(xp, A[0]), 2, axis=0),
    lambda xp: xp.einsum(_a(xp, A)),
    lambda xp: xp.einsum(_a(xp, np.uint64(3))),
    lambda xp: xp.einsum("ij->j", _a(xp, A[0])),
    lambda xp: xp.asarray(_a(xp, A[0, 0]), copy=_a(xp, np.ones(7, bool))),
    lambda xp: xp.asarray(_a(xp, A[0, 0]), copy=np.True_),
    lambda xp: xp.array(_a(xp, A[0, 0]), copy=np.ones(3)),
    lambda xp: xp.tile(_a(xp, A[0]), "abc"),
    lambda xp: xp.tile(_a(xp, A[0]), (1, "a")),
    lambda xp: xp.tile(_a(xp, A[0]), (2, 1)),
])
def test_partition_einsum_copy_tile(call):
    check(call)


@pytest.mark.parametrize("call", [
    lambda xp: xp.amin(_a(xp, A[0, 0]), axis=_a(xp, np.array([0, 2 ** 62]))),  # ufunc axis: no array
    lambda xp: xp.sum(_a(xp, A), axis=_a(xp, np.array([0, 1]))),
    lambda xp: xp.mean(_a(xp, A), axis=np.array([0, 1])),  # mean iterates it
    lambda xp: _a(xp, A).argpartition(_a(xp, np.zeros((0, 5), np.complex128))),  # kth 2-d: ValueError
    lambda xp: xp.linalg.lstsq(_a(xp, A[0, :2, :2]), _a(xp, np.zeros((0, 0))), rcond=_a(xp, A[0, :2, :2])),
    lambda xp: xp.linalg.lstsq(_a(xp, A[0, :3, :2]), _a(xp, A[0, :3, 0]), rcond=_a(xp, A[0, :2, :2])),
])
def test_axis_arrays_kth_depth_lstsq_order(call):
    check(call)


@pytest.mark.parametrize("call", [
    lambda xp: xp.zeros((2, 4), dtype=_a(xp, A[0]), order="bogus"),  # dtype before order
    lambda xp: xp.any(_a(xp, A), keepdims=-(2 ** 63) - 1),  # keepdims is a C long
    lambda xp: xp.nanmin(_a(xp, A), keepdims=2 ** 63),
    lambda xp: _a(xp, np.array(1.0, np.float32)).partition(2 ** 64),  # partition: a 0-d array has no axis -1
    lambda xp: xp.partition(None, None, axis=0),
    lambda xp: _a(xp, np.arange(5, dtype=np.uint32)).mean(_a(xp, np.arange(5, dtype=np.int8)), np.uint16),
    lambda xp: xp.asanyarray(_a(xp, A), order=_a(xp, np.ones(3, bool))),
    lambda xp: xp.asanyarray(_a(xp, A), order="bogus"),
])
def test_more_numpy_orders(call):
    check(call)


@pytest.mark.parametrize("call", [
    lambda xp: xp.array(_a(xp, A[0, 0, ::-1]), copy=False, order="C"),  # a copy is needed
    lambda xp: xp.array(_a(xp, A[0].T), copy=False, order="C"),
    lambda xp: xp.array(_a(xp, A[0]), copy=False, order="F"),
    lambda xp: xp.array(_a(xp, A[0]), copy=False, order="C"),
    lambda xp: xp.reshape(_a(xp, np.int16(5)), _a(xp, np.ones((1, 1, 1, 1), np.uint64)), order="K"),
    lambda xp: xp.reshape(_a(xp, A), (5, 5), order="K"),
])
def test_array_copy_false_order_and_reshape_k(call):
    check(call)
