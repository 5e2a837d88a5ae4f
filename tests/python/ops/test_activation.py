"""asc.ops activations and softmax family vs independent NumPy (float64) references of torch's formulas."""

import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64]
RTOL = {np.float32: 2e-6, np.float16: 2e-3, ml_dtypes.bfloat16: 1.6e-2, np.float64: 1e-13}
ATOL = {np.float32: 1e-6, np.float16: 1e-3, ml_dtypes.bfloat16: 1e-2, np.float64: 1e-14}

_verf = np.vectorize(math.erf, otypes=[np.float64])


def _sig(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))))


def _sp(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


A, S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
REF = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.minimum(np.maximum(x, 0), 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: S * np.where(x > 0, x, A * np.expm1(x)),
    "celu": lambda x: np.where(x > 0, x, np.expm1(x)),
    # torch's formula: gelu(-inf) = -inf * 0 = NaN
    "gelu": lambda x: 0.5 * x * (1 + _verf(x / math.sqrt(2))),
    "silu": lambda x: x * _sig(x),
    "mish": lambda x: x * np.tanh(_sp(x)),
    "sigmoid": _sig,
    "tanh": np.tanh,
    "hardtanh": lambda x: np.clip(x, -1, 1),
    "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hardsigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "softplus": lambda x: np.where(x > 20, x, _sp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "erf": _verf,
    "logsigmoid": lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
    "tanhshrink": lambda x: x - np.tanh(x),
    "softshrink": lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, x * 0)),
    "hardshrink": lambda x: np.where((x >= -0.5) & (x <= 0.5), 0, x),
}


def _data(dt, n=257):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(n) * 4, [0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0, 0.5, -0.5, 1e-3]])
    return x.astype(dt)


def _check(got, ref, dt):
    got = np.asarray(got).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64).astype(dt).astype(np.float64)  # round the reference like the output
    assert got.shape == ref.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, rtol=RTOL[dt] * 4, atol=ATOL[dt] * 4, equal_nan=True)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(REF))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_pointwise(name, dt):
    x = _data(dt)
    y = getattr(F, name)(asc.asarray(x))
    assert str(y.dtype) == np.dtype(dt).name
    _check(y, REF[name](x.astype(np.float64)), dt)


@pytest.mark.parametrize("name", sorted(REF))
def test_pointwise_empty_noncontiguous(name):
    assert getattr(F, name)(asc.zeros((0, 3), dtype=asc.float32)).shape == (0, 3)
    x = np.random.default_rng(1).standard_normal((6, 8)).astype(np.float32)
    xa = asc.asarray(x)[::2, 1::3]
    _check(getattr(F, name)(xa), REF[name](x[::2, 1::3].astype(np.float64)), np.float32)


def test_signed_zero():
    z = asc.asarray(np.array([-0.0, 0.0], np.float32))
    assert np.signbit(np.asarray(F.leaky_relu(z))).tolist() == [True, False]
    assert np.signbit(np.asarray(F.elu(z))).tolist() == [True, False]


def test_gelu_tanh():
    x = _data(np.float32).astype(np.float64)
    ref = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    _check(F.gelu(asc.asarray(x.astype(np.float32)), approximate="tanh"), ref, np.float32)
    with pytest.raises(ValueError, match="gelu"):
        F.gelu(asc.asarray(x), approximate="fast")


def test_parametrised():
    x = _data(np.float64)
    _check(F.leaky_relu(x, 0.2), np.where(x > 0, x, 0.2 * x), np.float64)
    _check(F.elu(x, alpha=2.0), np.where(x > 0, x, 2 * np.expm1(x)), np.float64)
    _check(F.celu(x, alpha=2.0), np.where(x > 0, x, 2 * np.expm1(x / 2)), np.float64)
    _check(F.hardtanh(x, -2.0, 3.0), np.clip(x, -2, 3), np.float64)
    _check(F.softplus(x, beta=2.0, threshold=5.0), np.where(2 * x > 5, x, _sp(2 * x) / 2), np.float64)
    _check(F.threshold(x, 0.3, -7.0), np.where(x <= 0.3, -7.0, x), np.float64)
    _check(F.softshrink(x, 1.0), np.where(x > 1, x - 1, np.where(x < -1, x + 1, x * 0)), np.float64)
    with pytest.raises(ValueError, match="hardtanh"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(TypeError, match="gelu"):
        F.gelu(np.arange(3))


def test_prelu_glu():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = np.array([0.1, 0.2, 0.3], np.float32)
    _check(F.prelu(x, w), np.where(x > 0, x, w[None, :, None] * x), np.float32)
    _check(F.prelu(x, np.array([0.25], np.float32)), np.where(x > 0, x, 0.25 * x), np.float32)
    with pytest.raises(ValueError, match="prelu"):
        F.prelu(x, np.ones(4, np.float32))
    x64 = x.astype(np.float64)
    _check(F.glu(x, dim=-1), x64[..., :2] * _sig(x64[..., 2:]), np.float32)
    with pytest.raises(ValueError, match="glu"):
        F.glu(x, dim=1)


def test_inplace():
    x = asc.asarray(np.array([-1.0, 2.0], np.float32))
    y = F.relu(x, inplace=True)
    assert y is x and np.asarray(x).tolist() == [0.0, 2.0]
    F.leaky_relu_(x := asc.asarray(np.array([-1.0], np.float32)), 0.5)
    assert np.asarray(x).tolist() == [-0.5]


def test_erf_ulp_dense():
    """asc.ops.erf within docs/vector_math.md's 4-ULP bound over 2^20 points of [-6, 6]."""
    x = np.linspace(-6, 6, 1 << 20, dtype=np.float32)
    got = np.asarray(F.erf(x))
    ref = _verf(x.astype(np.float64))
    ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - ref) / ulp
    assert err.max() <= 4.0, err.max()


def _np_softmax(x, d):
    m = np.max(x, axis=d, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=d, keepdims=True)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_softmax_family(dt, dim):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 4, 5)) * 5).astype(dt)
    x[0, 0, 0] = 80  # large: the max subtraction keeps it finite
    x64 = x.astype(np.float64)
    y = F.softmax(asc.asarray(x), dim=dim)
    assert str(y.dtype) == np.dtype(dt).name
    _check(y, _np_softmax(x64, dim), dt)
    ref_log = x64 - x64.max(axis=dim, keepdims=True)
    ref_log = ref_log - np.log(np.exp(ref_log).sum(axis=dim, keepdims=True))
    _check(F.log_softmax(asc.asarray(x), dim), ref_log, dt)
    _check(F.softmin(asc.asarray(x), dim), _np_softmax(-x64, dim), dt)


def test_softmax_special():
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [np.nan, 0.0, 1.0]], np.float32)
    y = np.asarray(F.softmax(x, dim=1))
    np.testing.assert_allclose(y[0], _np_softmax(x[0:1].astype(np.float64), 1)[0], rtol=1e-6)
    assert np.isnan(y[1]).all() and np.isnan(y[2]).all()  # torch: NaN rows
    assert F.softmax(np.zeros((0, 4), np.float32), dim=1).shape == (0, 4)
    assert F.softmax(np.ones((2, 3), np.float32), dim=1, dtype=asc.float64).dtype == np.float64
    nc = asc.asarray(np.arange(24, dtype=np.float32).reshape(4, 6))[:, ::2]
    _check(F.softmax(nc, dim=0), _np_softmax(np.arange(24.0).reshape(4, 6)[:, ::2], 0), np.float32)
    with pytest.raises(IndexError, match="softmax"):
        F.softmax(np.ones((2, 3), np.float32), dim=2)
    with pytest.warns(UserWarning):
        F.softmax(np.ones((2, 3), np.float32))


def test_fusion_recorded():
    """hardswish / mish chains (and float64 gelu) record into the lazy graph and run as one fused
    group (float32 gelu is the opaque native kernel: tests/python/ops/test_gelu_kernel.py)."""
    x = asc.asarray(np.random.default_rng(4).standard_normal(1 << 16).astype(np.float32))
    x64 = x.astype(asc.float64)
    asc.lazy.flush()
    for fn in (lambda t: F.gelu(x64 * 2.0) + 1.0, F.hardswish, F.mish):
        s0 = asc.lazy.graph_stats()
        y = fn(x)
        np.asarray(y)
        s1 = asc.lazy.graph_stats()
        assert s1["nodes_recorded"] - s0["nodes_recorded"] >= 2
        assert s1["groups_run"] - s0["groups_run"] == 1


def test_gelu_accuracy_dense():
    """docs/nn.md bound for float32 gelu (composed from erfc / sigmoid in float32 lanes):
    <= 48 ULP for |x| <= 5 and relative error <= 3e-5 on [-10, 10] (the deep negative tail,
    where torch's 1 + erf(x / sqrt 2) form cancels completely)."""
    verfc = np.vectorize(math.erfc, otypes=[np.float64])
    x = np.linspace(-10, 10, 1 << 20, dtype=np.float32)
    x64 = x.astype(np.float64)
    v = math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)
    refs = {"none": 0.5 * x64 * verfc(-x64 / math.sqrt(2)), "tanh": x64 / (1 + np.exp(-2 * v))}
    for approx, ref in refs.items():
        got = np.asarray(F.gelu(x, approximate=approx)).astype(np.float64)
        ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        err = np.abs(got - ref) / ulp
        assert err[np.abs(x) <= 5].max() <= 48, (approx, err[np.abs(x) <= 5].max())
        rel = np.abs(got - ref) / np.maximum(np.abs(ref), 1e-37)
        assert rel.max() <= 3e-5, (approx, rel.max())
