"""The gelu pass's node alone in its group over large contiguous float32 memory runs the built-in
kernel directly (src/graph/execute.cc run_direct_gelu: one contiguous range per block, streaming
stores for outputs of >= 4 MiB), not through a tile program. Without the profiler (which always
takes the tile program, to report its spans), so the path is observed through the graph counters:
the pass fired, and no tile program was looked up. Results: asc.ops.gelu's bits."""

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
    return 0.5 * x * (1.0 + asc.tanh(C1 * (x + 0.044715 * (x * x * x))))


def _data(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4.0).astype(np.float32)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 12.5, -12.5, 14.5, -14.6, 30.0, -30.0, 1e-30, -1e-30,
                   1e-45, 3.4e38, -3.4e38], np.float32)
    x[rng.choice(n, sp.size, replace=False)] = sp
    x[-3:] = (20.0, np.nan, -13.0)  # the second path in the last (partial) vector of the last block
    return x


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def _same_bits(got, want):
    nan = np.isnan(got) & np.isnan(want)
    bad = (_bits(got) != _bits(want)) & ~nan
    assert not bad.any(), (np.flatnonzero(bad)[:5], got[bad][:5], want[bad][:5])


def _counters():
    s = asc.lazy.graph_stats()
    return s["passes_fired_by_pass"]["gelu"], s["program_cache_hits"] + s["program_cache_misses"]


@pytest.mark.parametrize("n", [1 << 16, (1 << 17) + 3, (1 << 20) + 37, 1 << 22])
@pytest.mark.parametrize("form", ["erf", "tanh"])
def test_large_contiguous_runs_the_kernel_directly(n, form):
    x = asc.array(_data(n, seed=n % 1000))
    asc.eval(x)
    fn, tanh = (_erf_gelu, False) if form == "erf" else (_tanh_gelu, True)
    fired0, programs0 = _counters()
    y = fn(x)
    asc.eval(y)
    fired1, programs1 = _counters()
    assert fired1 == fired0 + 1
    assert programs1 == programs0, "the direct path takes no tile program"
    want = asc.ops.gelu(x, approximate="tanh" if tanh else "none").numpy()
    _same_bits(y.numpy(), want)


def test_registered_op_on_a_numpy_input_and_in_a_chain():
    @asc.register_op("DirectGeLU", replace=True)
    def gelu_forward(ctx, x):
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    try:
        xn = _data(1 << 18, seed=7)
        fired0, programs0 = _counters()
        got = asc.ops.DirectGeLU(asc.asarray(xn)).numpy()  # external memory: the call's private window
        fired1, programs1 = _counters()
        assert fired1 == fired0 + 1 and programs1 == programs0
        _same_bits(got, asc.ops.gelu(asc.array(xn)).numpy())
        # the gelu of an earlier group's result (a reduction feeds it): still the built-in's bits
        a = asc.array(xn.reshape(512, 512))
        asc.eval(a)
        s = a.sum(axis=0) * 0.01
        y = asc.ops.DirectGeLU(s)
        _same_bits(y.numpy(), asc.ops.gelu(asc.array(s.numpy())).numpy())
    finally:
        asc.ops.unregister("DirectGeLU")


def test_views_and_fused_neighbours_take_the_tile_program_with_the_same_bits():
    xn = _data(1 << 18, seed=9)
    x = asc.array(xn)
    asc.eval(x)
    for view in (x[::2], x.reshape(512, 512).T):
        fired0, programs0 = _counters()
        y = _erf_gelu(view)
        asc.eval(y)
        fired1, programs1 = _counters()
        assert fired1 == fired0 + 1 and programs1 > programs0  # strided: gathered by a tile program
        _same_bits(y.numpy(), asc.ops.gelu(view).numpy())
    # gelu(x) * 2 - 1 is one group of three nodes: the tile program, the same bits
    y = _erf_gelu(x) * 2.0 - 1.0
    with np.errstate(over="ignore"):  # 3.4e38 * 2 -> inf, as in the fused group
        want = (asc.ops.gelu(x).numpy() * np.float32(2.0) - np.float32(1.0)).astype(np.float32)
    _same_bits(y.numpy(), want)


def test_pass_off_gives_the_composite(monkeypatch):
    monkeypatch.setenv("ASC_GRAPH_PASSES", "0")
    xn = np.linspace(-6, 6, 1 << 17, dtype=np.float32)
    x = asc.array(xn)
    asc.eval(x)
    fired0, _ = _counters()
    y = _erf_gelu(x).numpy()
    assert _counters()[0] == fired0
    ref = np.array([0.5 * v * math.erfc(-v / math.sqrt(2.0)) for v in xn.astype(np.float64)])
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=1e-7)
