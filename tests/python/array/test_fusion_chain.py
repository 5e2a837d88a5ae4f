"""Register-level elementwise chains in fused programs (src/kernel/simd/chain-inl.h, program.cc):
a run of float32 elementwise nodes of one fused group is evaluated per few vectors instead of one
inner-loop call per node. The results must equal, bit for bit, the same program run node by node
(ASC_GRAPH_CHAINS=0) and the eager op-by-op results (a NaN's sign and payload aside, see
_assert_same_bits), for every op family a chain supports, special
values, lengths around the SIMD width / sub-tile / tile, broadcast and strided inputs, and values
that are both results and read later in the program."""

import contextlib
import math
import os

import numpy as np
import pytest

import pyasc as asc
from pyasc.profiler import Profiler


@pytest.fixture(autouse=True)
def _no_graph_passes(monkeypatch):
    """These tests are about chains: the gelu graph pass (src/graph/passes.cc) would replace the
    erf GeLU composites by the built-in kernel (tests/python/graph_passes/)."""
    monkeypatch.setenv("ASC_GRAPH_PASSES", "0")


@contextlib.contextmanager
def _chains(enabled):
    old = os.environ.get("ASC_GRAPH_CHAINS")
    os.environ["ASC_GRAPH_CHAINS"] = "1" if enabled else "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["ASC_GRAPH_CHAINS"]
        else:
            os.environ["ASC_GRAPH_CHAINS"] = old


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _materialise(*arrays):
    out = [asc.array(a) for a in arrays]
    asc.eval(*out)
    return out


def _run(fn, inputs):
    """fn over fresh lazy copies of `inputs` (NumPy arrays); NumPy results, one per output."""
    xs = _materialise(*inputs)
    ys = fn(*xs)
    ys = ys if isinstance(ys, tuple) else (ys,)
    asc.eval(*ys)
    return [y.numpy() for y in ys]


def _chain_detail(fn, inputs):
    """The profiler detail's chains=... of the fused group fn builds ('' when none ran)."""
    xs = _materialise(*inputs)
    with Profiler() as prof:
        ys = fn(*xs)
        asc.eval(*(ys if isinstance(ys, tuple) else (ys,)))
    details = [e.get("detail", "") for e in prof.events() if e["name"].startswith("fused[")]
    assert details, "no fused kernel ran"
    return " ".join(d.split(" chains=")[1] for d in details if " chains=" in d)


def _check_identical(fn, inputs):
    """Chains on, chains off (node by node in the same fused program) and eager: bit-identical."""
    with _chains(True):
        got = _run(fn, inputs)
    with _chains(False):
        per_node = _run(fn, inputs)
    with asc.lazy.eager(True):
        eager = _run(fn, inputs)
    for g, p, e in zip(got, per_node, eager):
        assert g.dtype == p.dtype == e.dtype and g.shape == p.shape == e.shape
        _assert_same_bits(g, p)
        _assert_same_bits(g, e)
    return got


def _assert_same_bits(a, b):
    """Equal bits, except the sign/payload of a NaN: where two NaNs meet in a commutative
    operation (NaN * -NaN) x86 returns the first source operand's, and the compiler orders the
    operands of vaddps/vmulps freely, so that choice differs between any two compiled loops (also
    between NumPy's). Every other value, -0 and +-Inf included, must match bit for bit."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    na, nb = np.isnan(a), np.isnan(b)
    np.testing.assert_array_equal(na, nb)
    np.testing.assert_array_equal(_bits(a)[~na], _bits(b)[~nb])


SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.17e-38, -1.17e-38,
                     3.4e38, -3.4e38, 1.0, -1.0, 0.5, -0.5, 0.95, -0.95, 4.0, -4.0, 87.0, 88.7, 89.0,
                     -103.0, -105.0, 1e-20, 2.0, 1e6], dtype=np.float32)


def _data(n, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    k = min(n, SPECIALS.size)
    x[rng.choice(n, k, replace=False)] = SPECIALS[:k]
    return x


SIZES = [1, 7, 8, 9, 31, 32, 33, 63, 65, 383, 384, 385, 1000, 4095, 4096, 4097, 70_001]

MATH = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "arcsin", "arccos",
        "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "sqrt", "erf", "erfc",
        "sigmoid", "rsqrt"]


def _fn(name):
    f = getattr(asc, name, None) or getattr(asc.ops, name, None)
    if f is None:
        pytest.fail(f"pyasc has no {name}")
    return f


@pytest.mark.parametrize("n", SIZES)
def test_gelu_composite_bit_identical(n):
    x = _data(n, seed=n)
    s = 1.0 / math.sqrt(2.0)
    _check_identical(lambda v: v * 0.5 * (1.0 + asc.erf(v * s)), [x])
    _check_identical(lambda v: v * 0.5 * (1.0 + asc.erf(v / math.sqrt(2.0))), [x])


@pytest.mark.parametrize("n", [9, 385, 4097, 70_001])
def test_arithmetic_families_bit_identical(n):
    x, y = _data(n, seed=1), _data(n, seed=2)
    y[::7] = 0.0  # divisions by +-0
    _check_identical(lambda a, b: ((a * 2.0 + 1.0) * b - a / 3.0), [x, y])
    _check_identical(lambda a, b: -(a - b) / (b + a) * a, [x, y])
    _check_identical(lambda a, b: asc.square(a - 1.5) + asc.absolute(-b) * asc.negative(a), [x, y])
    _check_identical(lambda a, b: (2.0 - a) / (b * b) - 0.25 / a, [x, y])
    detail = _chain_detail(lambda a, b: asc.square(a - 1.5) + asc.absolute(-b) * asc.negative(a), [x, y])
    for op in ("subtract", "square", "negative", "absolute", "multiply", "add"):
        assert op in detail, detail


@pytest.mark.parametrize("name", MATH)
def test_math_ops_in_chains_bit_identical(name):
    f = _fn(name)
    for n in (5, 8, 33, 385, 4099):
        x = _data(n, seed=len(name) + n, scale=2.0)
        # the math op between arithmetic nodes, first and last in the chain
        _check_identical(lambda a: f(a * 0.75 + 0.125) * 2.0 - a, [x])
        _check_identical(lambda a: f(a) + 1.0, [x])
        _check_identical(lambda a: -f(a - 0.5), [x])
    assert name in _chain_detail(lambda a: f(a * 0.75 + 0.125) * 2.0 - a, [x])  # the chain did run
    # tails where the padded lanes would take a different vector path (exp's |x| < 87 test)
    x = np.full(13, 1.0, np.float32)
    x[-1] = 200.0
    _check_identical(lambda a: f(a * 1.0 + 0.0) * 1.0, [x])


def test_broadcast_strided_and_scalar_operands():
    rng = np.random.default_rng(3)
    m = rng.standard_normal((300, 257)).astype(np.float32)
    col = rng.standard_normal((300, 1)).astype(np.float32)
    row = rng.standard_normal((257,)).astype(np.float32)
    _check_identical(lambda a, c, r: asc.erf(a * c + r) * 0.5 - c, [m, col, row])
    base = _data(20_000, seed=4)

    def strided(b):
        v = b[::3]
        return asc.exp(v * 0.1) * v + 2.0

    _check_identical(strided, [base])
    t = rng.standard_normal((64, 96)).astype(np.float32)
    _check_identical(lambda a: asc.tanh(a.T * 3.0) + a.T / 7.0, [t])
    # a 0-d operand
    _check_identical(lambda a, s: (a + s) * s - asc.erf(a), [base, np.float32(1.25)])


def test_values_that_are_results_and_read_later():
    x = _data(50_000, seed=5)

    def prog(a):
        u = a * 2.0 + 1.0       # a result and read later
        w = asc.exp(u * 0.01)   # read by the product after the next line
        z = w * u - a
        return u, z, w

    got = _check_identical(prog, [x])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_bits(got[0]), _bits((x * np.float32(2.0) + np.float32(1.0))))


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_dtypes_keep_the_per_node_path(dtype):
    with np.errstate(over="ignore"):
        x = _data(5000, seed=6).astype(dtype)
    _check_identical(lambda a: (a * 2.0 + 1.0) * a - a / 3.0, [x])
    _check_identical(lambda a: asc.exp(a * 0.5) + a, [x])
    assert _chain_detail(lambda a: (a * 2.0 + 1.0) * a - a / 3.0, [x]) == ""


def test_mixed_dtype_nodes_split_chains():
    x = _data(5000, seed=7)
    ints = np.arange(5000, dtype=np.int32)
    _check_identical(lambda a, i: (a * 2.0 + (i % 7)) * 0.5 + a, [x, ints])
    _check_identical(lambda a: ((a * 2.0) > 1.0) * a + 1.0, [x])


def test_custom_gelu_is_one_chain_in_one_fused_kernel():
    x = _data(100_000, seed=8)
    detail = _chain_detail(lambda v: v * 0.5 * (1.0 + asc.erf(v / math.sqrt(2.0))), [x])
    assert detail.count("(") == 1 and "erf" in detail and detail.count("+") >= 4, detail
    with _chains(False):
        assert _chain_detail(lambda v: v * 0.5 * (1.0 + asc.erf(v / math.sqrt(2.0))), [x]) == ""


def test_long_chain_splits_at_the_instruction_limit():
    x = _data(9000, seed=9)

    def long(a):
        for k in range(40):  # more instructions than one chain holds (24)
            a = a * 1.0001 + (k % 3) * 0.001
        return a

    _check_identical(long, [x])
    assert _chain_detail(long, [x]).count("(") >= 2


def test_many_inputs_split_chains():
    rng = np.random.default_rng(10)
    xs = [rng.standard_normal(3000).astype(np.float32) for _ in range(12)]

    def many(*a):
        acc = a[0] * 1.5
        for v in a[1:]:
            acc = acc + v * 0.5
        return acc

    _check_identical(many, xs)


def test_single_nan_operands_propagate_exactly():
    # one NaN operand per operation (no invalid operations produce a second one): its bits,
    # payload and sign included, reach the result as in the per-node path
    x = _data(4097, seed=11)
    x = np.where(np.isnan(x), np.float32(0.25), x)
    x[::97] = np.array([0x7FC00123], np.uint32).view(np.float32)[0]
    x[5::97] = np.array([0xFFC00456], np.uint32).view(np.float32)[0]
    x = np.where(np.isinf(x), np.float32(3.0), x)

    def f(a):
        return (a * 2.0 + 1.0) * 0.5 - asc.absolute(a) / 3.0

    with _chains(True):
        got = _run(f, [x])[0]
    with _chains(False):
        per_node = _run(f, [x])[0]
    np.testing.assert_array_equal(_bits(got), _bits(per_node))
