"""asc.ops.linear(..., out=): the result written into a caller's array (the models executor's
arena slot), equal to NumPy's ``x @ w.T + b``; a wrong out is refused before anything is written."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc as asc
from pyasc.errors import AscendError

RNG = np.random.default_rng(14)


def _ref(x, w, b):
    y = x.astype(np.float64) @ w.astype(np.float64).T
    return y + b if b is not None else y


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-6), ("float64", 1e-13)])
@pytest.mark.parametrize("xs,ws,bs", [((3, 5), (4, 5), (4,)), ((2, 3, 5), (4, 5), (4,)), ((3, 5), (4, 5), None),
                                      ((3, 5), (5,), None), ((0, 5), (4, 5), (4,)), ((3, 0), (4, 0), (4,)),
                                      ((3, 5), (4, 5), (1,)), ((3, 5), (4, 5), (3, 4))])
def test_out_matches_numpy(dtype, tol, xs, ws, bs):
    x = RNG.standard_normal(xs).astype(dtype)
    w = RNG.standard_normal(ws).astype(dtype)
    b = RNG.standard_normal(bs).astype(dtype) if bs is not None else None
    want = _ref(x, w, b)
    out = asc.asarray(np.full(want.shape, np.nan, dtype))
    r = asc.ops.linear(asc.asarray(x), asc.asarray(w), None if b is None else asc.asarray(b), out=out)
    assert r is out
    got = np.asarray(out)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max(initial=0)))
    # the same values as without out=
    plain = asc.ops.linear(asc.asarray(x), asc.asarray(w), None if b is None else asc.asarray(b))
    np.testing.assert_array_equal(np.asarray(plain), got)


def test_out_with_strided_inputs_and_arena_slice():
    """A transposed input, a strided weight view, and out= a reshaped slice of one flat buffer."""
    xt = RNG.standard_normal((5, 3)).astype(np.float32)
    wbig = RNG.standard_normal((8, 5)).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    x, w = asc.asarray(xt).T, asc.asarray(wbig)[::2]
    arena = asc.zeros((40,), dtype="float32")
    out = arena[7:19].reshape(3, 4)
    asc.ops.linear(x, w, asc.asarray(b), out=out)
    np.testing.assert_allclose(np.asarray(out), _ref(xt.T, wbig[::2], b), rtol=2e-6, atol=2e-6)
    rest = np.asarray(arena)
    assert not rest[:7].any() and not rest[19:].any()  # nothing outside the slot written


def _bad(out, match, cls, x=None, w=None, b=None):
    x = x if x is not None else asc.asarray(np.ones((3, 5), np.float32))
    w = w if w is not None else asc.asarray(np.ones((4, 5), np.float32))
    before = np.asarray(out).copy() if isinstance(out, asc.ndarray) else None
    with pytest.raises(cls, match=match) as e:
        asc.ops.linear(x, w, b, out=out)
    assert isinstance(e.value, AscendError) and "[linear]" in str(e.value)
    if before is not None:  # refused before any write
        np.testing.assert_array_equal(np.asarray(out), before)


def test_out_errors():
    f32 = np.float32
    _bad(asc.full((3, 3), 7.0, dtype="float32"), r"out has shape \(3, 3\).*give \(3, 4\)", ValueError)
    _bad(asc.full((3, 4), 7.0, dtype="float64"), "dtype float64; the result is float32", TypeError)
    _bad(np.zeros((3, 4), f32), "must be a pyasc.ndarray, got ndarray", TypeError)
    _bad(asc.full((4, 3), 7.0, dtype="float32").T, "C-contiguous", ValueError)
    ro = np.full((3, 4), 7.0, f32)
    ro.flags.writeable = False
    out_ro = asc.asarray(ro)  # a read-only NumPy buffer stays read-only through asarray
    assert not out_ro.flags.writeable
    _bad(out_ro, "read-only", ValueError)
    locked = asc.full((3, 4), 7.0, dtype="float32")
    locked.flags.writeable = False
    _bad(locked, "read-only", ValueError)
    buf = asc.asarray(np.ones(27, f32))  # contiguous out overlapping the input's tail
    _bad(buf[12:24].reshape(3, 4), "shares memory with input", ValueError, x=buf[:15].reshape(3, 5))
    wb = asc.asarray(np.ones(32, f32))
    _bad(wb[16:28].reshape(3, 4), "shares memory with weight", ValueError, w=wb[:20].reshape(4, 5))
    bias = asc.asarray(np.ones((3, 4), f32))
    _bad(bias, "shares memory with bias", ValueError, b=bias)
    _bad(asc.full((3, 4), 7.0, dtype="float32"), r"bias \(5,\) does not broadcast", ValueError,
         b=asc.asarray(np.ones(5, f32)))
    _bad(asc.full((3, 4), 7.0, dtype="float32"), r"bias \(2, 3, 4\) does not broadcast", ValueError,
         b=asc.asarray(np.ones((2, 3, 4), f32)))
    # the shape check of input/weight still comes first
    with pytest.raises(ValueError, match="do not match"):
        asc.ops.linear(asc.ones((3, 5)), asc.ones((4, 6)), out=asc.empty((3, 4)))
