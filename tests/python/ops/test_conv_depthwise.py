"""The NCHW depthwise 3x3 path (src/nn/conv_depthwise.cc) vs a float64 NumPy reference: strides 1
and 2, every padding it takes, odd widths (masked tails), batches, bias / residual / activations,
in place into the residual, non-contiguous inputs, and the shapes it leaves to oneDNN."""

import os

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C, ops

RNG = np.random.default_rng(777)


def ref_dw(x, w, b, stride, pt, pb, pl, pr, residual=None, act=None, alpha=0.01):
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pt, pb), (pl, pr)])
    n, c, h, wd = x.shape
    oh, ow = (h - 3) // stride + 1, (wd - 3) // stride + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(3):
        for j in range(3):
            out += x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride] * w[None, :, 0, i, j, None, None]
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
    return _C.nn.depthwise_calls()


def run(x, w, b, stride, pads, **kw):
    """conv2d with (top, bottom, left, right) pads through _C.nn.conv (asymmetric pads as ONNX gives)."""
    pt, pb, pl, pr = pads
    act = kw.get("activation") or "none"
    return _C.nn.conv(asc.asarray(x), asc.asarray(w), None if b is None else asc.asarray(b),
                      kw.get("residual"), [stride, stride], [pt, pl], [pb, pr], [1, 1], [0, 0], x.shape[1], False,
                      False, act, float(kw.get("alpha", 0.01)), "onednn", "conv2d", out=kw.get("out"))


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("hw", [(1, 1), (3, 3), (7, 9), (16, 16), (13, 30), (5, 17)])
def test_depthwise_shapes(stride, hw):
    h, wd = hw
    for pads in [(1, 1, 1, 1), (0, 0, 0, 0), (2, 1, 0, 2), (0, 2, 1, 0)]:
        if h + pads[0] + pads[1] < 3 or wd + pads[2] + pads[3] < 3:
            continue
        for n, c in [(1, 1), (2, 5), (1, 16)]:
            x = RNG.standard_normal((n, c, h, wd)).astype(np.float32)
            w = RNG.standard_normal((c, 1, 3, 3)).astype(np.float32)
            b = RNG.standard_normal(c).astype(np.float32)
            before = calls()
            got = np.asarray(run(x, w, b, stride, pads))
            assert calls() == before + 1, "the depthwise path did not run"
            np.testing.assert_allclose(got, ref_dw(x, w, b, stride, *pads), rtol=1e-5, atol=1e-5,
                                       err_msg=f"n={n} c={c} pads={pads}")


@pytest.mark.parametrize("act", [None, "relu", "relu6", "leaky_relu"])
def test_depthwise_epilogue(act):
    x = (RNG.standard_normal((2, 24, 20, 19)) * 4).astype(np.float32)
    w = RNG.standard_normal((24, 1, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(24).astype(np.float32)
    res = RNG.standard_normal((2, 24, 20, 19)).astype(np.float32)
    got = ops.conv2d(x, w, b, padding=1, groups=24, activation=act, negative_slope=0.2, residual=asc.array(res))
    want = ref_dw(x, w, b, 1, 1, 1, 1, 1, residual=res, act=act, alpha=0.2)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    # in place into the residual's buffer (out is the residual)
    buf = asc.array(res)
    ops.conv2d(x, w, b, padding=1, groups=24, activation=act, negative_slope=0.2, residual=buf, out=buf)
    np.testing.assert_allclose(np.asarray(buf), want, rtol=1e-5, atol=1e-5)
    # residual_inplace (the model executor's flag): the residual's buffer becomes the output
    buf2 = asc.array(res)
    y = _C.nn.conv(asc.asarray(x), asc.asarray(w), asc.asarray(b), buf2, [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 24,
                   False, False, act or "none", 0.2, "onednn", "conv2d", 0, 0, True)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-5)


def test_depthwise_special_values_and_views():
    x = RNG.standard_normal((1, 8, 12, 12)).astype(np.float32)
    x[0, 1, 3, 4] = np.nan
    x[0, 2, 5, 5] = np.inf
    w = RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        want = ref_dw(x, w, None, 1, 1, 1, 1, 1, act="relu")
    got = np.asarray(ops.conv2d(x, w, None, padding=1, groups=8, activation="relu"))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=1e-5, atol=1e-5)
    # a non-contiguous input view (every other column of a wider array)
    big = RNG.standard_normal((2, 8, 12, 24)).astype(np.float32)
    xv = asc.array(big)[..., ::2]
    got = np.asarray(ops.conv2d(xv, w, None, stride=2, padding=1, groups=8))
    np.testing.assert_allclose(got, ref_dw(big[..., ::2], w, None, 2, 1, 1, 1, 1), rtol=1e-5, atol=1e-5)
    # empty batch
    e = ops.conv2d(np.zeros((0, 8, 5, 5), np.float32), w, None, padding=1, groups=8)
    assert e.shape == (0, 8, 5, 5)


def test_depthwise_left_to_onednn():
    """Shapes this path does not take still run (on oneDNN) and match the reference."""
    x = RNG.standard_normal((1, 8, 10, 10)).astype(np.float32)
    w = RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)
    before = calls()
    cases = [
        dict(stride=3, padding=1),     # stride 3
        dict(stride=1, padding=3),     # padding 3
        dict(stride=1, padding=1, dilation=2),
    ]
    for kw in cases:
        got = np.asarray(ops.conv2d(x, w, None, groups=8, **kw))
        d = kw.get("dilation", 1)
        wd = np.zeros((8, 1, 1 + 2 * d, 1 + 2 * d), np.float32)
        wd[:, :, ::d, ::d] = w
        p = kw["padding"]
        xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (p, p), (p, p)])
        k = wd.shape[-1]
        oh = (xp.shape[2] - k) // kw["stride"] + 1
        want = np.zeros((1, 8, oh, oh))
        for i in range(k):
            for j in range(k):
                want += xp[:, :, i:i + kw["stride"] * oh:kw["stride"], j:j + kw["stride"] * oh:kw["stride"]] * \
                    wd[None, :, 0, i, j, None, None]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # gelu (no AVX2 epilogue here), float64, NHWC, channel multiplier 2
    ops.conv2d(x, w, None, padding=1, groups=8, activation="gelu")
    ops.conv2d(x.astype(np.float64), w.astype(np.float64), None, padding=1, groups=8)
    ops.conv2d(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w, None, padding=1, groups=8, layout="NHWC")
    ops.conv2d(x, np.concatenate([w, w]), None, padding=1, groups=8)
    assert calls() == before


def test_depthwise_env_off_matches():
    x = RNG.standard_normal((1, 16, 30, 30)).astype(np.float32)
    w = RNG.standard_normal((16, 1, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    ours = np.asarray(ops.conv2d(x, w, b, padding=1, groups=16))
    os.environ["ASC_CONV_DEPTHWISE"] = "0"
    try:
        before = calls()
        onednn = np.asarray(ops.conv2d(x, w, b, padding=1, groups=16))
        assert calls() == before
    finally:
        del os.environ["ASC_CONV_DEPTHWISE"]
    np.testing.assert_allclose(ours, onednn, rtol=1e-5, atol=1e-5)
