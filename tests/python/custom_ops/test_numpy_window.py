"""A registered op called on asc.asarray(<NumPy array>) (memory pyasc does not own): the input is
private for the call, so the body fuses (the gelu pass fires), and everything reading it runs before
the call returns -- a later in-place change of the NumPy array never reaches the result."""

import math

import numpy as np
import pytest

import pyasc as asc

N = 1 << 16  # above the window's 2^14-element threshold


def _register(name):
    @asc.register_op(name, replace=True)
    def fwd(ctx, x):
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    return getattr(asc.ops, name)


def _gelu_passes():
    return asc.lazy.graph_stats()["passes_fired_by_pass"].get("gelu", 0)


def test_gelu_pass_fires_on_a_numpy_input_and_equals_the_builtin():
    op = _register("NpGeLU")
    a = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    before = _gelu_passes()
    y = op(asc.asarray(a))
    assert _gelu_passes() == before + 1
    want = np.asarray(asc.ops.gelu(asc.asarray(a.copy())))
    np.testing.assert_array_equal(np.asarray(y).view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_no_stale_read_after_an_in_place_change(layout):
    op = _register("NpGeLU2")
    base = np.random.default_rng(1).standard_normal((256, 512)).astype(np.float32)
    a = {"contiguous": base, "transposed": base.T, "strided": base[:, ::2]}[layout]
    want = np.asarray(asc.ops.gelu(asc.asarray(a.copy())))
    y = op(asc.asarray(a))
    z = y * 2.0  # a lazy consumer of the result, recorded after the call
    base[...] = 7.0  # the user changes the NumPy array in place
    np.testing.assert_allclose(np.asarray(y), want, rtol=2e-6, atol=5e-7)  # composite or pass: both fresh
    np.testing.assert_allclose(np.asarray(z), want * 2.0, rtol=2e-6, atol=1e-6)


def test_window_closes_on_an_exception_and_the_input_is_volatile_again():
    name = "NpBoom"

    @asc.register_op(name, replace=True)
    def boom(ctx, x):
        y = x * 3.0
        raise RuntimeError("boom")

    a = np.ones(N, np.float32)
    xa = asc.asarray(a)
    with pytest.raises(RuntimeError, match="boom"):
        getattr(asc.ops, name)(xa)
    # after the call the view is volatile again: a lazy read made now sees the value of now
    w = xa + 1.0
    a[:] = 5.0
    assert float(np.asarray(w)[0]) == 2.0
    # and the window can open again for the next call
    op = _register("NpGeLU3")
    np.testing.assert_allclose(np.asarray(op(xa)), np.asarray(asc.ops.gelu(asc.asarray(a.copy()))), rtol=2e-6)


def test_two_large_numpy_inputs_stay_volatile_and_right():
    name = "NpAdd2"

    @asc.register_op(name, replace=True)
    def add2(ctx, x, y):
        return x * 2.0 + y

    a = np.arange(N, dtype=np.float32)
    y = getattr(asc.ops, name)(asc.asarray(a), asc.asarray(a[::-1]))  # overlapping memory
    a[:] = 0
    np.testing.assert_array_equal(np.asarray(y), np.arange(N, dtype=np.float32) * 2 + np.arange(N)[::-1])


def test_small_inputs_and_pyasc_owned_inputs_are_unchanged():
    op = _register("NpGeLU4")
    a = np.linspace(-3, 3, 16).astype(np.float32)
    y = op(asc.asarray(a))
    a[:] = 0
    want = np.asarray(asc.ops.gelu(asc.asarray(np.linspace(-3, 3, 16).astype(np.float32))))
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-6)  # the composite (1 + erf cancels)
    x = asc.arange(N, dtype=np.float32) / N
    before = _gelu_passes()
    r = op(x)
    asc.eval(r)
    assert _gelu_passes() == before + 1
