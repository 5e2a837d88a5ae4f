"""asc.ops convolution: the reordered-weight cache (invalidated by every kind of write) and the
pieces a call is cut into (bands of output rows / groups of images run by the core workers),
against the float64 reference of test_conv.py."""

import os
import sys
import threading

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_conv import check, ref_conv  # noqa: E402

RNG = np.random.default_rng(77)


def _r(*shape, dt=np.float32):
    return RNG.standard_normal(shape).astype(dt)


def _conv(x, w, b, s=1, p=0, d=1, g=1):
    return np.asarray(ops.conv2d(x, w, b, s, p, d, g))


def _ref(x, w, b, s=1, p=0, d=1, g=1):
    return ref_conv(np.asarray(x), np.asarray(w), None if b is None else np.asarray(b), [s, s], [p, p], [p, p],
                    [d, d], g)


@pytest.mark.parametrize("dt", [np.float32, ml_dtypes.bfloat16])
def test_weight_written_in_place_is_reordered_again(dt):
    x = asc.array(_r(2, 16, 9, 9, dt=dt))
    wn = _r(24, 16, 3, 3, dt=dt)
    bn = _r(24, dt=dt)
    w, b = asc.array(wn), asc.array(bn)  # pyasc-owned: cached across calls
    check(_conv(x, w, b, 1, 1), _ref(x, wn, bn, 1, 1), dt)
    check(_conv(x, w, b, 1, 1), _ref(x, wn, bn, 1, 1), dt)  # steady state (cache hit)
    # setitem
    w[0] = asc.array(_r(16, 3, 3, dt=dt))
    check(_conv(x, w, b, 1, 1), _ref(x, np.asarray(w), bn, 1, 1), dt)
    # in-place arithmetic (recorded lazily where the graph can)
    w *= 2
    b += 1
    check(_conv(x, w, b, 1, 1), _ref(x, np.asarray(w), np.asarray(b), 1, 1), dt)
    # out= of another op
    asc.negative(w, out=w)
    check(_conv(x, w, b, 1, 1), _ref(x, np.asarray(w), np.asarray(b), 1, 1), dt)
    # a write through a NumPy view of the pyasc array
    v = np.asarray(w)
    if v.flags.writeable:
        v[:, :, 1, 1] = 3
        check(_conv(x, w, b, 1, 1), _ref(x, v, np.asarray(b), 1, 1), dt)


def test_numpy_backed_weight_written_by_numpy():
    # asarray wraps NumPy memory: NumPy may write it behind pyasc's back, so it is never cached.
    x = asc.array(_r(1, 8, 10, 10))
    wn, bn = _r(16, 8, 3, 3), _r(16)
    w, b = asc.asarray(wn), asc.asarray(bn)
    check(_conv(x, w, b, 1, 1), _ref(x, wn, bn, 1, 1), np.float32)
    wn *= -3
    wn[0] = 1
    check(_conv(x, w, b, 1, 1), _ref(x, wn, bn, 1, 1), np.float32)


def test_weight_views_and_same_shapes_do_not_alias():
    # Two weights of one shape (one plan) and two views of one storage at different offsets.
    x = asc.array(_r(1, 8, 12, 12))
    big = asc.array(_r(2, 16, 8, 3, 3))
    w0, w1 = big[0], big[1]
    other = asc.array(_r(16, 8, 3, 3))
    for w in (w0, w1, other, w0):
        check(_conv(x, w, None, 1, 1), _ref(x, np.asarray(w), None, 1, 1), np.float32)


# (N, C, OC, H, W, k, stride, pad, dilation, groups): bands of 1-2 rows, windows reaching
# into the padding only, strides that skip the last rows, dilation, depthwise.
BAND_CASES = [
    (1, 3, 8, 7, 7, 3, 1, 1, 1, 1),
    (1, 4, 8, 5, 6, 7, 2, 3, 1, 1),
    (1, 4, 8, 2, 9, 1, 1, 2, 1, 1),      # pad 2 around 2 rows with a 1x1 kernel: bands of pure padding
    (1, 4, 4, 9, 9, 3, 3, 0, 1, 1),      # stride skips the last input rows
    (2, 6, 6, 11, 7, 3, 2, 2, 2, 3),
    (3, 8, 8, 6, 6, 3, 1, 1, 1, 8),      # depthwise, N < 2 x cores
    (5, 8, 16, 6, 5, 3, 1, 1, 1, 1),     # images split into groups with a smaller tail
    (1, 16, 32, 3, 3, 1, 1, 0, 1, 1),    # weights > image: slices of output channels
    (1, 24, 40, 4, 4, 3, 1, 1, 1, 1),    # ... with a smaller last slice
    (2, 32, 48, 3, 3, 3, 2, 1, 1, 1),
]


@pytest.mark.parametrize("case", BAND_CASES)
@pytest.mark.parametrize("fuse", [False, True])
def test_pieces_match_reference(case, fuse):
    n, c, oc, h, wd, k, s, p, d, g = case
    x, w, b = _r(n, c, h, wd), _r(oc, c // g, k, k), _r(oc)
    want = _ref(x, w, b, s, p, d, g)
    if not fuse:
        check(_conv(asc.array(x), asc.array(w), asc.array(b), s, p, d, g), want, np.float32)
        return
    res = _r(*want.shape)
    got = ops.conv2d(asc.array(x), asc.array(w), asc.array(b), s, p, d, g, activation="relu", residual=asc.array(res))
    check(got, np.maximum(want + res, 0), np.float32)


@pytest.mark.parametrize("n", [1, 6])
def test_pieces_nhwc_and_1d_3d(n):
    x, w, b = _r(n, 5, 9, 8), _r(7, 5, 3, 3), _r(7)
    want = _ref(x, w, b, 2, 1)
    got = ops.conv2d(asc.array(x.transpose(0, 2, 3, 1).copy()), asc.array(w), asc.array(b), 2, 1, layout="NHWC")
    check(np.asarray(got).transpose(0, 3, 1, 2), want, np.float32)
    # output-channel slices in NHWC (strided channel pieces)
    x, w, b = _r(n, 24, 4, 4), _r(40, 24, 3, 3), _r(40)
    got = ops.conv2d(asc.array(x.transpose(0, 2, 3, 1).copy()), asc.array(w), asc.array(b), 1, 1, layout="NHWC")
    check(np.asarray(got).transpose(0, 3, 1, 2), _ref(x, w, b, 1, 1), np.float32)
    x1, w1 = _r(n, 4, 13), _r(6, 4, 3)
    check(ops.conv1d(asc.array(x1), asc.array(w1), None, 1, 1), ref_conv(x1, w1, None, [1], [1], [1], [1], 1),
          np.float32)
    x3, w3 = _r(n, 2, 5, 4, 6), _r(3, 2, 3, 3, 3)
    check(ops.conv3d(asc.array(x3), asc.array(w3), None, 1, 1),
          ref_conv(x3, w3, None, [1] * 3, [1] * 3, [1] * 3, [1] * 3, 1), np.float32)


def test_concurrent_calls_with_their_own_weights():
    # Several threads share plans (one shape) and the weight cache, each with its own
    # weights that it rewrites in place between calls.
    x = asc.array(_r(2, 8, 10, 10))
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        wn = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
        w = asc.array(wn)
        try:
            for i in range(6):
                got = _conv(x, w, None, 1, 1)
                want = _ref(x, np.asarray(w), None, 1, 1)
                if not np.allclose(got, want, rtol=2e-4, atol=2e-4 * np.abs(want).max()):
                    errors.append((seed, i))
                w += 1
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    ts = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


@pytest.mark.parametrize("n", [1, 5])
def test_blocked_call_cache_follows_weight_and_bias_writes(n):
    """The per-call cache (src/nn/conv.cc CallPlan: pieces, primitives, reordered weight slices) of
    an NC1HWC0 convolution -- batch 1 cut into output-channel slices, batch 5 into images -- is
    dropped by writes to the weights or the bias, and by other weight arrays of the same shapes."""
    from pyasc import _C

    c0 = _C.nn.preferred_block()
    if c0 == 0:
        pytest.skip("oneDNN prefers a plain layout on this CPU")
    xn = _r(n, 16, 7, 7)
    xb = asc.array(np.ascontiguousarray(xn.reshape(n, 16 // c0, c0, 7, 7).transpose(0, 1, 3, 4, 2)))
    wn, bn = _r(64, 16, 3, 3), _r(64)
    w, b = asc.array(wn), asc.array(bn)

    def run(w, b):
        y = np.asarray(_C.nn.conv(xb, w, b, None, [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1, False, False, "relu",
                                  0.0, "onednn", "conv2d", c0, c0, False))
        return y.transpose(0, 1, 4, 2, 3).reshape(n, 64, 7, 7)

    def want(wv, bv):
        return np.maximum(_ref(xn, wv, bv, 1, 1), 0)

    for _ in range(2):  # the second call is served by the cached call
        check(run(w, b), want(wn, bn), np.float32)
    w[5] = asc.array(_r(16, 3, 3))
    check(run(w, b), want(np.asarray(w), bn), np.float32)
    b += 1
    check(run(w, b), want(np.asarray(w), np.asarray(b)), np.float32)
    w2 = asc.array(_r(64, 16, 3, 3))  # same shapes, other storage
    check(run(w2, b), want(np.asarray(w2), np.asarray(b)), np.float32)
    check(run(w, b), want(np.asarray(w), np.asarray(b)), np.float32)
    hits = _C.nn.cache_stats()[0]
    run(w, b)
    assert _C.nn.cache_stats()[0] > hits
