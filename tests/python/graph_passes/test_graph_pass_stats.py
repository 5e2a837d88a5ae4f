"""asc.lazy.graph_stats()["passes_fired"]: one per GeLU subgraph the gelu pass rewrites (erf and tanh
forms, several in one flush), nothing for composites it must not touch, nothing with
ASC_GRAPH_PASSES=0 or with the gelu pass dropped; the per-pass split agrees with the total."""

import math

import numpy as np
import pytest

import pyasc as asc

C1 = math.sqrt(2.0 / math.pi)


@pytest.fixture(autouse=True)
def _lazy(monkeypatch):
    monkeypatch.delenv("ASC_GRAPH_PASSES", raising=False)
    previous = asc.is_eager()
    asc.set_eager(False)
    yield
    asc.set_eager(previous)


def _erf_gelu(x):
    return x * 0.5 * (1.0 + asc.erf(x / math.sqrt(2.0)))


def _tanh_gelu(x):
    return 0.5 * x * (1.0 + asc.tanh(C1 * (x + 0.044715 * x * x * x)))


def _fired(fn, *arrays):
    """(total, gelu) passes fired while fn runs over fresh lazy copies, and fn's result."""
    xs = [asc.array(a) for a in arrays]
    asc.eval(*xs)
    before = asc.lazy.graph_stats()
    y = fn(*xs)
    ys = y if isinstance(y, tuple) else (y,)
    asc.eval(*ys)
    after = asc.lazy.graph_stats()
    total = after["passes_fired"] - before["passes_fired"]
    gelu = after["passes_fired_by_pass"]["gelu"] - before["passes_fired_by_pass"]["gelu"]
    return total, gelu, [v.numpy() for v in ys]


def _x(n=1000, seed=0):
    return (np.random.default_rng(seed).standard_normal(n) * 3).astype(np.float32)


def test_keys_and_types():
    s = asc.lazy.graph_stats()
    assert isinstance(s["passes_fired"], int) and s["passes_fired"] >= 0
    assert set(s["passes_fired_by_pass"]) == {"gelu"}
    assert s["passes_fired"] == sum(s["passes_fired_by_pass"].values())


@pytest.mark.parametrize("fn", [_erf_gelu, _tanh_gelu], ids=["erf", "tanh"])
def test_one_per_rewritten_subgraph(fn):
    x = _x()
    total, gelu, (y,) = _fired(fn, x)
    assert (total, gelu) == (1, 1)
    ref = asc.ops.gelu(asc.array(x), approximate="tanh" if fn is _tanh_gelu else "none").numpy()
    np.testing.assert_array_equal(y.view(np.uint32), ref.view(np.uint32))


def test_counts_every_subgraph_of_one_flush():
    a, b, c = _x(seed=1), _x(seed=2), _x(seed=3)
    total, gelu, ys = _fired(lambda p, q, r: (_erf_gelu(p), _tanh_gelu(q), _erf_gelu(r) + 1.0), a, b, c)
    assert (total, gelu) == (3, 3)
    assert len(ys) == 3


def test_zero_when_switched_off(monkeypatch):
    x = _x()
    monkeypatch.setenv("ASC_GRAPH_PASSES", "0")
    assert _fired(_erf_gelu, x)[:2] == (0, 0)
    monkeypatch.setenv("ASC_GRAPH_PASSES", "-gelu")
    assert _fired(_tanh_gelu, x)[:2] == (0, 0)
    monkeypatch.setenv("ASC_GRAPH_PASSES", "gelu")
    assert _fired(_tanh_gelu, x)[:2] == (1, 1)


def test_zero_when_the_pattern_does_not_match():
    x = _x()
    off = float(np.nextafter(np.float32(0.5), np.float32(1)))
    assert _fired(lambda v: v * off * (1.0 + asc.erf(v / math.sqrt(2.0))), x)[:2] == (0, 0)

    def shared(v):  # the erf is needed as computed: another user
        e = asc.erf(v / math.sqrt(2.0))
        return v * 0.5 * (1.0 + e), e * 2.0

    assert _fired(shared, x)[:2] == (0, 0)
    assert _fired(_erf_gelu, x.astype(np.float64))[:2] == (0, 0)


def test_zero_in_eager_mode():
    asc.set_eager(True)
    assert _fired(_erf_gelu, _x())[:2] == (0, 0)
