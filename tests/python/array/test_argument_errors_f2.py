"""NumPy's exception classes where another check used to fire first (issue 20 items 12/15,
fuzz findings of pattern class-mismatch, seed 3001): each call runs with NumPy and pyasc; both
return equal results, or pyasc raises an instance of the class NumPy raises (or of its builtin
base)."""

import numpy as np
import pytest

import pyasc as asc
from test_argument_errors import check


def _a(xp, a):
    return a if xp is np else asc.asarray(a)


A3 = np.arange(24.0).reshape(2, 3, 4) - 7
B1 = np.ones((1, 2, 1))


# --------------------------------------------------------------- partition order=

@pytest.mark.parametrize("call", [
    lambda xp: xp.partition(_a(xp, A3), None, order="A"),  # order before kth's dtype
    lambda xp: xp.argpartition(_a(xp, A3), None, axis=None, order="C"),
    lambda xp: _a(xp, A3).partition(None, order="F"),
    lambda xp: _a(xp, A3).argpartition(1, order="bogus"),
    lambda xp: xp.partition(_a(xp, A3), 1, axis=7, order="C"),
])
def test_partition_order_before_kth(call):
    check(call)


# --------------------------------------------------------------- squeeze axis

@pytest.mark.parametrize("axis", [True, False, np.True_, (0, True), (0, 0), (2, -1), (0, 5), (0, 2), 0, -1, (), None])
@pytest.mark.parametrize("method", [False, True])
def test_squeeze_axis_bool_and_repeats(axis, method):
    if method:
        check(lambda xp: _a(xp, B1).squeeze(axis))
    else:
        check(lambda xp: xp.squeeze(_a(xp, B1), axis))


def test_squeeze_bool_axis_of_0d():
    check(lambda xp: _a(xp, np.float64(2.0)).squeeze(True))


# --------------------------------------------------------------- split

@pytest.mark.parametrize("a", [np.float64(1.0), np.ones(4), np.ones((2, 4)), np.ones(5)])
@pytest.mark.parametrize("sections", [0, 2, -1, 3, [1, 2], 2.0, 2.5, float("nan"), 0.0])
@pytest.mark.parametrize("axis", [0, -1, 5])
@pytest.mark.parametrize("name", ["split", "array_split"])
def test_split_reads_the_axis_length_first(a, sections, axis, name):
    check(lambda xp: getattr(xp, name)(_a(xp, a), sections, axis=axis))


# --------------------------------------------------------------- gradient spacing

F5 = np.array([1.0, 4.0, 9.0, 16.0, 25.0])


@pytest.mark.parametrize("f", [F5, np.ones(1), np.ones(0), np.ones(3, bool), np.arange(6).reshape(2, 3)])
@pytest.mark.parametrize("spacing", [(), (2.0,), (np.arange(5.0),), ([1, 2, 4],), (np.ones(1),), (np.ones(0),),
                                     ([0, 1],), (np.ones(3, bool),), (np.array([0.0, 1.0, 3.0]),)])
@pytest.mark.parametrize("kw", [{}, {"edge_order": 2}, {"axis": 0}, {"axis": -1, "edge_order": 2}])
def test_gradient_spacing_checked_first(f, spacing, kw):
    check(lambda xp: xp.gradient(_a(xp, f), *[_a(xp, s) if isinstance(s, np.ndarray) else s for s in spacing], **kw))


def test_gradient_axis_array():
    check(lambda xp: xp.gradient(_a(xp, F5), 1.0, 1.0, axis=_a(xp, np.array([-6, 0]))))


# --------------------------------------------------------------- quantile & co

QA = [np.arange(6.0).reshape(2, 3), np.ones((2, 3), bool), np.ones((0, 3)), np.ones((0, 0), bool),
      np.ones(3, complex), np.arange(4, dtype=np.uint16), np.ones((0, 3), np.int32), np.array([1.0, np.nan, 3.0])]
QQ = [0.5, -0.1, 1.5, [0.2, 0.7], np.ones((3, 0)), np.ones(0), np.full((2, 2, 2), 0.5), -2**63 - 1, 2**64, "a",
      True, 0, 1, np.array([0, 1]), np.float32(0.25)]
QK = [{}, {"axis": 5}, {"axis": 1}, {"method": "bogus"}, {"method": "lower"}, {"method": "midpoint"},
      {"weights": np.ones((2, 3))}, {"keepdims": True, "axis": 0}]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["quantile", "nanquantile", "percentile", "nanpercentile"])
@pytest.mark.parametrize("a", QA, ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("q", QQ, ids=repr)
@pytest.mark.parametrize("kw", QK, ids=repr)
def test_quantile_check_order(name, a, q, kw):
    if name.endswith("percentile") and type(q) is float:  # noqa: E721
        q = q * 100

    def call(xp):
        k = dict(kw)
        if "weights" in k:
            k["weights"] = _a(xp, k["weights"])
        return getattr(xp, name)(_a(xp, a), _a(xp, q) if isinstance(q, np.ndarray) else q, **k)

    check(call)


# --------------------------------------------------------------- eye order=, like=

@pytest.mark.parametrize("order", ["C", "F", "K", "A", None, "f", 1, "CF"])
@pytest.mark.parametrize("args", [(3,), (2, 3, 1), (0,), (3, None, (1, "a")), ("a",), (3, 2.5)])
def test_eye_order(order, args):
    check(lambda xp: xp.eye(*args, order=order))


def test_eye_order_f_strides_and_like():
    check(lambda xp: xp.eye(3, 4, order="F").strides)
    check(lambda xp: xp.eye(3, like=np.ones(2)))


# --------------------------------------------------------------- histogram weights

@pytest.mark.parametrize("weights", [2, np.ones(3), np.ones((2, 1, 2)), np.float64(1.0)])
@pytest.mark.parametrize("kw", [{}, {"density": True}, {"bins": [0, 1, 2]}, {"range": (0, 1, 2)}])
def test_histogram_weights_shape_checked_first(weights, kw):
    a = np.arange(4.0).reshape(2, 1, 2)
    check(lambda xp: xp.histogram(_a(xp, a), weights=_a(xp, weights) if isinstance(weights, np.ndarray) else weights,
                                  **kw))


# --------------------------------------------------------------- nansum/nanprod initial, where; reductions of 0-d

AN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-0.0, 2.0, np.inf]])
WN = np.array([[True, False, True], [False, False, False], [True, True, False]])


@pytest.mark.parametrize("name", ["nansum", "nanprod"])
@pytest.mark.parametrize("a", [AN, AN.astype(np.float32), np.arange(6, dtype=np.int16).reshape(2, 3), np.float64(np.nan),
                               np.ones((2, 0))], ids=lambda a: f"{np.asarray(a).dtype}{np.shape(a)}")
@pytest.mark.parametrize("kw", [{}, {"initial": 5}, {"initial": np.ones(3)}, {"initial": np.ones(())}, {"where": WN},
                                {"where": True}, {"initial": 2.5, "axis": 0}, {"axis": -3, "initial": np.ones(())},
                                {"initial": 1, "keepdims": True, "axis": 1}, {"initial": [1]}, {"initial": "a"},
                                {"initial": -1, "dtype": np.uint8}], ids=repr)
def test_nansum_nanprod_initial_where(name, a, kw):
    def call(xp):
        k = {kk: (_a(xp, v) if isinstance(v, np.ndarray) else v) for kk, v in kw.items()}
        return getattr(xp, name)(_a(xp, a), **k)

    check(call)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "any", "all", "nansum", "nanprod"])
@pytest.mark.parametrize("axis", [0, -1, 1, (0,), (), None])
@pytest.mark.parametrize("kw", [{}, {"initial": 2}, {"where": True}, {"keepdims": True}], ids=repr)
def test_reduction_of_0d_takes_axis_0(name, axis, kw):
    if name in ("any", "all") and "initial" in kw:
        pytest.skip("no initial")
    check(lambda xp: getattr(xp, name)(_a(xp, np.array(1.5)), axis=axis, **kw))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.float32, np.complex128])
@pytest.mark.parametrize("initial", [[1], np.ones(3), np.ones(1), (1,), "a", 2.5, 1000])
@pytest.mark.parametrize("name", ["sum", "max"])
def test_initial_converted_as_numpy(dt, initial, name):
    check(lambda xp: getattr(xp, name)(_a(xp, np.arange(6).astype(dt).reshape(2, 3)), axis=0,
                                       initial=_a(xp, initial) if isinstance(initial, np.ndarray) else initial))


# --------------------------------------------------------------- moveaxis, compress, array(ndmax=)

@pytest.mark.parametrize("a", [np.ones((2, 3, 4)), np.ones(5), np.float64(1)], ids=lambda a: str(np.shape(a)))
@pytest.mark.parametrize("src", [0, -1, 3, (0, 1), [0, 0], np.array([0, 1]), np.array([3, 0]), "a", 1.0], ids=repr)
@pytest.mark.parametrize("dst", [0, -2, (1, 0), np.array([1, 2]), 5], ids=repr)
def test_moveaxis_axis_arrays_iterated(a, src, dst):
    check(lambda xp: xp.moveaxis(_a(xp, a), _a(xp, src) if isinstance(src, np.ndarray) else src,
                                 _a(xp, dst) if isinstance(dst, np.ndarray) else dst).shape)


@pytest.mark.parametrize("a", [np.ones((2, 3)), np.arange(5.0), np.ones((4, 0, 2)), np.float64(2)],
                         ids=lambda a: str(np.shape(a)))
@pytest.mark.parametrize("cond", [[True, False], (1, "a"), np.ones((2, 2), bool), [1, 0, 1], ["", "x"]], ids=repr)
@pytest.mark.parametrize("axis", [None, 0, 1, "abc", (1, 3), 5])
@pytest.mark.parametrize("method", [False, True])
def test_compress_axis_converted_first(a, cond, axis, method):
    if method:
        check(lambda xp: _a(xp, a).compress(cond, axis))
    else:
        check(lambda xp: xp.compress(cond, _a(xp, a), axis=axis))


@pytest.mark.parametrize("ndmax", [0, 1, 2, -1, 65, 64, True, 1.0, None, np.int64(3), np.ones((3, 3)), np.array(2), "a"],
                         ids=repr)
def test_array_ndmax_checked_as_numpy(ndmax):
    check(lambda xp: xp.array(np.ones((2, 3)), ndmax=_a(xp, ndmax) if isinstance(ndmax, np.ndarray) else ndmax))
