"""The direct NCHW stride-2 path (src/nn/conv_direct.cc) vs a float64 NumPy reference: kernels 1x1 to
7x7 (and 11x11), paddings incl. asymmetric, odd widths (masked tails around the 16-position blocks and
the dropped columns), channel counts around the 6-channel blocks and the channel chunks, batches,
bias / residual / activations, in place into the residual, out=, non-contiguous inputs, special values,
the shapes it leaves to oneDNN, and that it is off unless ASC_CONV_DIRECT=1 (opt-in: not yet measured
faster than oneDNN; every test here turns it on)."""

import os

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C, ops

RNG = np.random.default_rng(2026)


@pytest.fixture(autouse=True)
def direct_on():
    """The path is opt-in (read per call): on for each test here, the previous value restored after."""
    old = os.environ.get("ASC_CONV_DIRECT")
    os.environ["ASC_CONV_DIRECT"] = "1"
    yield
    if old is None:
        os.environ.pop("ASC_CONV_DIRECT", None)
    else:
        os.environ["ASC_CONV_DIRECT"] = old


def ref_conv(x, w, b, stride, pads, residual=None, act=None, alpha=0.01):
    """float64 direct convolution; pads = (top, bottom, left, right)."""
    pt, pb, pl, pr = pads
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pt, pb), (pl, pr)])
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    k, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, k, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            out += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    if residual is not None:
        out += residual
    if act == "relu":
        out = np.maximum(out, 0)
    elif act == "relu6":
        out = np.clip(out, 0, 6)
    elif act == "leaky_relu":
        out = np.where(out > 0, out, out * alpha)
    return out


def calls():
    return _C.nn.direct_calls()


def run(x, w, b, stride, pads, **kw):
    """conv2d with (top, bottom, left, right) pads through _C.nn.conv (asymmetric pads as ONNX gives)."""
    pt, pb, pl, pr = pads
    act = kw.get("activation") or "none"
    return _C.nn.conv(asc.asarray(x), asc.asarray(w), None if b is None else asc.asarray(b),
                      kw.get("residual"), [stride, stride], [pt, pl], [pb, pr], [1, 1], [0, 0], 1, False,
                      False, act, float(kw.get("alpha", 0.01)), "onednn", "conv2d", out=kw.get("out"))


def tol(c, k):
    # float32 sums of c * k * k products of unit-variance values
    return 2e-5 * np.sqrt(c * k * k) + 1e-5


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("hw", [(1, 1), (4, 4), (7, 9), (14, 14), (17, 33), (28, 28)])
def test_direct_shapes(k, hw):
    h, wd = hw
    for pads in [(k // 2,) * 4, (0, 0, 0, 0), (2, 1, 0, 3), (0, 2, 1, 0)]:
        if h + pads[0] + pads[1] < k or wd + pads[2] + pads[3] < k:
            continue
        for n, c, oc in [(1, 3, 5), (2, 8, 16), (1, 17, 13)]:
            x = RNG.standard_normal((n, c, h, wd)).astype(np.float32)
            w = RNG.standard_normal((oc, c, k, k)).astype(np.float32)
            b = RNG.standard_normal(oc).astype(np.float32)
            before = calls()
            got = np.asarray(run(x, w, b, 2, pads))
            assert calls() == before + 1, "the direct path did not run"
            t = tol(c, k)
            np.testing.assert_allclose(got, ref_conv(x, w, b, 2, pads), rtol=t, atol=t,
                                       err_msg=f"n={n} c={c} oc={oc} pads={pads}")


@pytest.mark.parametrize("shape", [
    (1, 128, 128, 28, 3, 1),   # ResNet-50's 3x3/2: several channel chunks (partial sums)
    (2, 64, 70, 15, 3, 1),     # odd output width 8, channels not a multiple of 6
    (1, 3, 64, 38, 7, 3),      # the stem's kernel on a small image
    (1, 256, 40, 9, 1, 0),     # 1x1 / 2 downsample: one phase of four
    (1, 5, 7, 40, 11, 5),      # the largest kernel taken
])
def test_direct_resnet_like(shape):
    n, c, oc, h, k, p = shape
    x = RNG.standard_normal((n, c, h, h)).astype(np.float32)
    w = (RNG.standard_normal((oc, c, k, k)) * 0.1).astype(np.float32)
    b = RNG.standard_normal(oc).astype(np.float32)
    before = calls()
    got = np.asarray(ops.conv2d(x, w, b, stride=2, padding=p))
    assert calls() == before + 1
    t = 0.1 * tol(c, k)
    np.testing.assert_allclose(got, ref_conv(x, w, b, 2, (p,) * 4), rtol=t, atol=t)


@pytest.mark.parametrize("oc", [1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 40, 47, 48, 64])
def test_direct_channel_blocks(oc):
    """Output channels around the micro-kernels' blocks (24 x 4 positions; the last block 16 x 6 or
    8 x 12) and the 8-channel transposes; positions around 4 / 6 / 12 / 8 (5x5, 7x9 and 3x13 outputs)."""
    for c, h, w_ in [(3, 9, 10), (5, 13, 17), (2, 5, 26)]:
        x = RNG.standard_normal((1, c, h, w_)).astype(np.float32)
        w = RNG.standard_normal((oc, c, 3, 3)).astype(np.float32)
        b = RNG.standard_normal(oc).astype(np.float32)
        before = calls()
        got = np.asarray(run(x, w, b, 2, (1, 1, 1, 1)))
        assert calls() == before + 1
        t = tol(c, 3)
        np.testing.assert_allclose(got, ref_conv(x, w, b, 2, (1, 1, 1, 1)), rtol=t, atol=t, err_msg=f"c={c}")


@pytest.mark.parametrize("c", [17, 18, 19, 36, 37])
def test_direct_channel_chunks(c):
    """Input channels around the chunk size (16 KiB of packed weights: 18 channels at 3x3; 1 at 7x7 with
    ASC_CONV_DIRECT_L1=1, every channel its own chunk): the tile accumulates across chunks."""
    x = RNG.standard_normal((1, c, 15, 15)).astype(np.float32)
    w = RNG.standard_normal((30, c, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(30).astype(np.float32)
    res = RNG.standard_normal((1, 30, 8, 8)).astype(np.float32)
    want = ref_conv(x, w, b, 2, (1, 1, 1, 1), residual=res, act="relu")
    t = tol(c, 3)
    got = np.asarray(ops.conv2d(x, w, b, stride=2, padding=1, activation="relu", residual=asc.array(res)))
    np.testing.assert_allclose(got, want, rtol=t, atol=t)
    os.environ["ASC_CONV_DIRECT_L1"] = "1"
    try:
        got = np.asarray(ops.conv2d(x, w, b, stride=2, padding=1, activation="relu", residual=asc.array(res)))
    finally:
        del os.environ["ASC_CONV_DIRECT_L1"]
    np.testing.assert_allclose(got, want, rtol=t, atol=t)


@pytest.mark.parametrize("act", [None, "relu", "relu6", "leaky_relu"])
def test_direct_epilogue(act):
    x = (RNG.standard_normal((2, 24, 21, 19)) * 4).astype(np.float32)
    w = RNG.standard_normal((20, 24, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(20).astype(np.float32)
    res = RNG.standard_normal((2, 20, 11, 10)).astype(np.float32) * 3
    want = ref_conv(x, w, b, 2, (1, 1, 1, 1), residual=res, act=act, alpha=0.2)
    t = 4 * tol(24, 3)
    before = calls()
    got = ops.conv2d(x, w, b, stride=2, padding=1, activation=act, negative_slope=0.2, residual=asc.array(res))
    np.testing.assert_allclose(np.asarray(got), want, rtol=t, atol=t)
    # in place into the residual's buffer (out is the residual)
    buf = asc.array(res)
    ops.conv2d(x, w, b, stride=2, padding=1, activation=act, negative_slope=0.2, residual=buf, out=buf)
    np.testing.assert_allclose(np.asarray(buf), want, rtol=t, atol=t)
    # out= a separate buffer
    o = asc.empty((2, 20, 11, 10), dtype=asc.float32)
    ops.conv2d(x, w, b, stride=2, padding=1, activation=act, negative_slope=0.2, residual=asc.array(res), out=o)
    np.testing.assert_allclose(np.asarray(o), want, rtol=t, atol=t)
    # residual_inplace (the model executor's flag): the residual's buffer becomes the output
    buf2 = asc.array(res)
    y = _C.nn.conv(asc.asarray(x), asc.asarray(w), asc.asarray(b), buf2, [2, 2], [1, 1], [1, 1], [1, 1], [0, 0], 1,
                   False, False, act or "none", 0.2, "onednn", "conv2d", 0, 0, True)
    np.testing.assert_allclose(np.asarray(y), want, rtol=t, atol=t)
    assert calls() == before + 4


def test_direct_special_values_and_views():
    x = RNG.standard_normal((1, 8, 12, 12)).astype(np.float32)
    x[0, 1, 3, 4] = np.nan
    x[0, 2, 6, 6] = np.inf
    w = RNG.standard_normal((6, 8, 3, 3)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        want = ref_conv(x, w, None, 2, (1, 1, 1, 1), act="relu")
    got = np.asarray(ops.conv2d(x, w, None, stride=2, padding=1, activation="relu"))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-4, atol=1e-4)
    # a non-contiguous input view (every other column of a wider array)
    big = RNG.standard_normal((2, 8, 12, 26)).astype(np.float32)
    xv = asc.array(big)[..., ::2]
    got = np.asarray(ops.conv2d(xv, w, None, stride=2, padding=1))
    np.testing.assert_allclose(got, ref_conv(big[..., ::2], w, None, 2, (1, 1, 1, 1)), rtol=1e-4, atol=1e-4)
    # a transposed (non-contiguous) weight view
    wt = asc.array(np.ascontiguousarray(w.transpose(1, 0, 2, 3))).transpose(1, 0, 2, 3)
    got = np.asarray(ops.conv2d(x, wt, None, stride=2, padding=1))
    with np.errstate(invalid="ignore"):
        want = ref_conv(x, w, None, 2, (1, 1, 1, 1))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-4, atol=1e-4)
    # empty batch
    e = ops.conv2d(np.zeros((0, 8, 5, 5), np.float32), w, None, stride=2, padding=1)
    assert e.shape == (0, 6, 3, 3)


def test_direct_weight_update_seen():
    """Packed weights are cached per weight version: an in-place update is seen by the next call."""
    x = RNG.standard_normal((1, 16, 20, 20)).astype(np.float32)
    w = asc.array(RNG.standard_normal((12, 16, 3, 3)).astype(np.float32))
    first = np.asarray(ops.conv2d(x, w, None, stride=2, padding=1))
    w[0] = 0.0
    second = np.asarray(ops.conv2d(x, w, None, stride=2, padding=1))
    np.testing.assert_allclose(second, ref_conv(x, np.asarray(w), None, 2, (1, 1, 1, 1)), rtol=1e-4, atol=1e-4)
    assert np.all(second[0, 0] == 0) and not np.all(first[0, 0] == 0)


def test_direct_left_to_others():
    """Shapes this path does not take still run (on oneDNN / Winograd / the reference) and it is not counted."""
    x = RNG.standard_normal((1, 8, 10, 10)).astype(np.float32)
    w = RNG.standard_normal((8, 8, 3, 3)).astype(np.float32)
    before = calls()
    ops.conv2d(x, w, None, stride=1, padding=1)                      # stride 1
    ops.conv2d(x, w, None, stride=3, padding=1)                      # stride 3
    ops.conv2d(x, w, None, stride=(2, 1), padding=1)                 # unequal strides
    ops.conv2d(x, w, None, stride=2, padding=2, dilation=2)          # dilation
    ops.conv2d(x, w[:, :4], None, stride=2, padding=1, groups=2)     # groups
    ops.conv2d(x, w, None, stride=2, padding=1, activation="gelu")   # no AVX2 epilogue here
    ops.conv2d(x.astype(np.float64), w.astype(np.float64), None, stride=2, padding=1)
    ops.conv2d(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w, None, stride=2, padding=1, layout="NHWC")
    ops.conv2d(x, RNG.standard_normal((8, 8, 13, 13)).astype(np.float32), None, stride=2, padding=6)
    assert calls() == before


@pytest.mark.parametrize("value", ["0", None, "", "2"])
def test_direct_env_off_matches(value):
    """Off by default and for any value but "1": oneDNN then runs the same call, equal within tolerance."""
    x = RNG.standard_normal((2, 32, 29, 29)).astype(np.float32)
    w = RNG.standard_normal((40, 32, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(40).astype(np.float32)
    before = calls()
    ours = np.asarray(ops.conv2d(x, w, b, stride=2, padding=1))
    assert calls() == before + 1
    if value is None:
        del os.environ["ASC_CONV_DIRECT"]
    else:
        os.environ["ASC_CONV_DIRECT"] = value
    before = calls()
    onednn = np.asarray(ops.conv2d(x, w, b, stride=2, padding=1))
    assert calls() == before
    np.testing.assert_allclose(ours, onednn, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours, ref_conv(x, w, b, 2, (1, 1, 1, 1)), rtol=1e-4, atol=1e-4)
