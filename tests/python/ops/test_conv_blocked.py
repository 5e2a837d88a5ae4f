"""Channel-blocked (NC1HWC0) convolutions and max pooling: the layouts the model executor keeps
activations in between convolutions (src/nn/conv.cc src_block/dst_block, src/nn/pool.cc
max_pool_blocked). Every case is checked against a float64 NumPy reference of the plain op,
with the blocked operands converted by NumPy reshapes/transposes."""

import numpy as np
import pytest

import pyasc as asc
from pyasc import _C

RNG = np.random.default_rng(11)


def block(x, c0):
    n, c = x.shape[:2]
    sp = x.shape[2:]
    return np.ascontiguousarray(x.reshape((n, c // c0, c0) + sp).transpose((0, 1) + tuple(range(3, 3 + len(sp))) + (2,)))


def unblock(x):
    n, c1, c0 = x.shape[0], x.shape[1], x.shape[-1]
    sp = x.shape[2:-1]
    return x.transpose((0, 1, len(sp) + 2) + tuple(range(2, 2 + len(sp)))).reshape((n, c1 * c0) + sp)


def conv_ref(x, w, b, stride, pl, pr, groups, residual=None, act="none"):
    """float64 direct 2-D convolution (NCHW, OIHW) with asymmetric pads."""
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pl[0], pr[0]), (pl[1], pr[1])])
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    oh, ow = (h - kh) // stride[0] + 1, (wd - kw) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for g in range(groups):
        xs = x[:, g * icg:(g + 1) * icg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("nchw,oc->nohw", patch,
                                                           w[g * ocg:(g + 1) * ocg, :, i, j].astype(np.float64))
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    if residual is not None:
        out += residual
    if act == "relu":
        out = np.maximum(out, 0)
    return out


def _conv(x, w, b, r, stride, pl, pr, groups, act, ib, ob):
    return _C.nn.conv(asc.asarray(x), asc.array(w), None if b is None else asc.array(b),
                      None if r is None else asc.asarray(r), list(stride), list(pl), list(pr), [1, 1], [0, 0],
                      groups, False, False, act, 0.0, "onednn", "conv2d", ib, ob)


CASES = [  # (n, c, oc, hw, k, stride, pl, pr, groups)
    (1, 16, 64, 9, 3, 1, (1, 1), (1, 1), 1),     # batch 1: output-channel slices
    (2, 8, 32, 7, 1, 1, (0, 0), (0, 0), 1),
    (3, 16, 16, 10, 3, 2, (1, 0), (2, 1), 1),    # asymmetric pads, stride 2, an odd batch
    (8, 32, 64, 5, 3, 1, (1, 1), (1, 1), 1),     # whole-image pieces
    (1, 32, 96, 6, 1, 2, (0, 0), (0, 0), 1),
    (2, 16, 16, 8, 3, 1, (1, 1), (1, 1), 16),    # depthwise
    (1, 32, 64, 6, 3, 1, (1, 1), (1, 1), 2),     # grouped
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("c0", [8, 16, 4])
@pytest.mark.parametrize("io", ["bb", "pb", "bp"])
def test_blocked_conv_matches_reference(case, c0, io):
    n, c, oc, hw, k, s, pl, pr, g = case
    if c % c0 or oc % c0:
        pytest.skip("channels not divisible by this C0")
    x = RNG.standard_normal((n, c, hw, hw)).astype(np.float32)
    w = (RNG.standard_normal((oc, c // g, k, k)) / np.sqrt(c // g * k * k)).astype(np.float32)
    b = RNG.standard_normal(oc).astype(np.float32)
    ib = c0 if io[0] == "b" else 0
    ob = c0 if io[1] == "b" else 0
    ref = conv_ref(x, w, b, (s, s), pl, pr, g)
    r = RNG.standard_normal(ref.shape).astype(np.float32)
    for resid, act in ((None, "none"), (r, "relu")):
        want = conv_ref(x, w, b, (s, s), pl, pr, g, None if resid is None else resid.astype(np.float64), act)
        y = _conv(block(x, c0) if ib else x, w, b, None if resid is None else (block(resid, c0) if ob else resid),
                  (s, s), pl, pr, g, act, ib, ob)
        y = np.asarray(y)
        assert y.shape == (want.shape[0], oc // c0, *want.shape[2:], c0) if ob else want.shape
        got = unblock(y) if ob else y
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_blocked_conv_noncontiguous_and_float16():
    x = RNG.standard_normal((2, 16, 8, 8)).astype(np.float32)
    w = (RNG.standard_normal((16, 16, 3, 3)) * 0.1).astype(np.float32)
    xb = block(x, 8)
    big = np.zeros((2, 2, 8, 16, 8), np.float32)
    big[:, :, :, ::2] = xb
    view = asc.asarray(big)[:, :, :, ::2]  # a strided NC1HWC0 view
    y = _C.nn.conv(view, asc.array(w), None, None, [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1, False, False, "none",
                   0.0, "onednn", "conv2d", 8, 8)
    np.testing.assert_allclose(unblock(np.asarray(y)), conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), 1), rtol=1e-4,
                               atol=1e-4)
    yh = _C.nn.conv(asc.asarray(xb.astype(np.float16)), asc.array(w.astype(np.float16)), None, None, [1, 1], [1, 1],
                    [1, 1], [1, 1], [0, 0], 1, False, False, "none", 0.0, "onednn", "conv2d", 8, 8)
    assert np.asarray(yh).dtype == np.float16
    np.testing.assert_allclose(unblock(np.asarray(yh)).astype(np.float64),
                               conv_ref(x.astype(np.float16).astype(np.float32), w.astype(np.float16), None, (1, 1),
                                        (1, 1), (1, 1), 1), rtol=2e-2, atol=2e-2)


def test_blocked_conv_empty_batch():
    y = _C.nn.conv(asc.asarray(np.zeros((0, 2, 5, 5, 8), np.float32)), asc.array(np.ones((16, 16, 3, 3), np.float32)),
                   None, None, [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1, False, False, "none", 0.0, "onednn",
                   "conv2d", 8, 8)
    assert np.asarray(y).shape == (0, 2, 5, 5, 8)


def test_blocked_conv_errors():
    w = asc.array(np.ones((12, 16, 1, 1), np.float32))
    x = asc.asarray(np.ones((1, 2, 4, 4, 8), np.float32))
    args = ([1, 1], [0, 0], [0, 0], [1, 1], [0, 0], 1, False, False, "none", 0.0, "onednn", "conv2d")
    with pytest.raises(asc.AscendValueError, match=r"\[conv2d\].*divisible by C0 = 8, got 12"):
        _C.nn.conv(x, w, None, None, *args, 8, 8)
    with pytest.raises(asc.AscendValueError, match=r"\[conv2d\].*last axis must be C0 = 8"):
        _C.nn.conv(asc.asarray(np.ones((1, 4, 4, 4, 4), np.float32)), w, None, None, *args, 8, 0)
    with pytest.raises(asc.AscendValueError, match=r"\[conv2d\].*5-D input"):
        _C.nn.conv(asc.asarray(np.ones((1, 16, 4, 4), np.float32)), w, None, None, *args, 8, 0)
    with pytest.raises(asc.AscendValueError, match=r"\[conv2d\].*C0 must be 4, 8 or 16, got 5"):
        _C.nn.conv(x, w, None, None, *args, 5, 0)
    with pytest.raises(asc.AscendError, match=r"\[conv2d\].*NC1HWC0 layouts are implemented for forward"):
        _C.nn.conv(asc.asarray(np.ones((1, 2, 4, 4, 8), np.float64)), asc.array(np.ones((16, 16, 1, 1))), None, None,
                   *args, 8, 0)


def test_preferred_block():
    c0 = _C.nn.preferred_block()
    assert c0 in (0, 4, 8, 16)


def pool_ref(x, k, s, pl, pr, d):
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pl[0], pr[0]), (pl[1], pr[1])], constant_values=-np.inf)
    n, c, h, w = x.shape
    ek = [(k[i] - 1) * d[i] + 1 for i in range(2)]
    oh, ow = (h - ek[0]) // s[0] + 1, (w - ek[1]) // s[1] + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(k[0]):
        for j in range(k[1]):
            v = x[:, :, i * d[0]:i * d[0] + s[0] * oh:s[0], j * d[1]:j * d[1] + s[1] * ow:s[1]]
            out = np.maximum(out, v)  # propagates NaN
    return out


@pytest.mark.parametrize("c0", [8, 16, 3])
@pytest.mark.parametrize("geo", [((3, 3), (2, 2), (1, 1), (1, 1), (1, 1)),    # ResNet-50's stem pool
                                 ((2, 3), (1, 2), (0, 1), (1, 0), (1, 1)),    # asymmetric pads
                                 ((3, 2), (2, 1), (2, 0), (0, 1), (2, 1))])   # dilation
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_max_pool_blocked_matches_reference(c0, geo, dtype):
    k, s, pl, pr, d = geo
    x = RNG.standard_normal((2, 2 * c0, 11, 9)).astype(dtype)
    x[0, 1, 3:6, 4] = np.nan  # rows 3..5: every geometry samples one
    y = _C.nn.max_pool_blocked(asc.asarray(block(x, c0)), list(k), list(s), list(pl), list(pr), list(d), "MaxPool")
    got = unblock(np.asarray(y)).astype(np.float64)
    want = pool_ref(x, k, s, pl, pr, d)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(want).any()
    np.testing.assert_array_equal(np.nan_to_num(got), np.nan_to_num(want))


def test_max_pool_blocked_errors():
    x = asc.asarray(np.ones((1, 2, 4, 4, 8), np.float32))
    with pytest.raises(asc.AscendValueError, match=r"\[MaxPool\].*rank 5"):
        _C.nn.max_pool_blocked(asc.asarray(np.ones((1, 8, 4, 4), np.float32)), [2, 2], [1, 1], [0, 0], [0, 0], [1, 1],
                               "MaxPool")
    with pytest.raises(asc.AscendValueError, match=r"\[MaxPool\].*positive"):
        _C.nn.max_pool_blocked(x, [0, 2], [1, 1], [0, 0], [0, 0], [1, 1], "MaxPool")
    with pytest.raises(asc.AscendValueError, match=r"\[MaxPool\].*wholly in the padding"):
        _C.nn.max_pool_blocked(x, [2, 2], [1, 1], [2, 0], [0, 0], [1, 1], "MaxPool")
    with pytest.raises(asc.AscendTypeError, match=r"\[MaxPool\]"):
        _C.nn.max_pool_blocked(asc.asarray(np.ones((1, 2, 4, 4, 8), np.int32)), [2, 2], [1, 1], [0, 0], [0, 0], [1, 1],
                               "MaxPool")


@pytest.mark.parametrize("n", [1, 4])
@pytest.mark.parametrize("io", [(8, 8), (0, 0), (8, 16)])
def test_residual_inplace(n, io):
    """residual_inplace: the output takes a contiguous residual's buffer (the caller gives it up);
    a non-contiguous residual is left alone. Same values as the copying path."""
    ib, ob = io
    x = RNG.standard_normal((n, 16, 6, 6)).astype(np.float32)
    w = (RNG.standard_normal((32, 16, 3, 3)) * 0.2).astype(np.float32)
    b = RNG.standard_normal(32).astype(np.float32)
    r = RNG.standard_normal((n, 32, 6, 6)).astype(np.float32)
    want = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), 1, r.astype(np.float64), "relu")
    xa = asc.asarray(block(x, ib) if ib else x)
    rv = block(r, ob) if ob else r
    ra = asc.array(rv)
    args = ([1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1, False, False, "relu", 0.0, "onednn", "conv2d", ib, ob)
    y = _C.nn.conv(xa, asc.array(w), asc.array(b), ra, *args, True)
    got = np.asarray(y)
    np.testing.assert_allclose(unblock(got) if ob else got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(np.asarray(ra), got)  # written in place
    big = np.zeros(rv.shape[:-1] + (2 * rv.shape[-1],), np.float32)
    big[..., ::2] = rv
    rs = asc.array(big)[..., ::2]  # non-contiguous: copied, left unchanged
    y2 = _C.nn.conv(xa, asc.array(w), asc.array(b), rs, *args, True)
    np.testing.assert_array_equal(np.asarray(y2), got)
    np.testing.assert_array_equal(np.asarray(rs), rv)


def test_residual_inplace_refused_when_it_is_the_input():
    """The residual is the input itself: writing in place would corrupt what the pieces still read."""
    x = RNG.standard_normal((1, 16, 6, 6)).astype(np.float32)
    w = (RNG.standard_normal((16, 16, 3, 3)) * 0.2).astype(np.float32)
    xa = asc.array(block(x, 8))
    y = _C.nn.conv(xa, asc.array(w), None, xa, [1, 1], [1, 1], [1, 1], [1, 1], [0, 0], 1, False, False, "none", 0.0,
                   "onednn", "conv2d", 8, 8, True)
    want = conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), 1, x.astype(np.float64))
    np.testing.assert_allclose(unblock(np.asarray(y)), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(np.asarray(xa), block(x, 8))


@pytest.mark.parametrize("n", [1, 3, 8])
@pytest.mark.parametrize("hw", [14, 16, 7])
def test_pointwise_nchw_gemm_path(n, hw):
    """1x1 / stride 1 / unpadded NCHW convolutions of >= 14x14 positions run oneDNN's GEMM
    convolution on the user's layout (slices of output channels at small batches); 7x7 keeps the
    blocked kernel. Both equal the float64 reference, with bias, residual and relu."""
    x = RNG.standard_normal((n, 48, hw, hw)).astype(np.float32)
    w = (RNG.standard_normal((80, 48, 1, 1)) / 7).astype(np.float32)
    b = RNG.standard_normal(80).astype(np.float32)
    r = RNG.standard_normal((n, 80, hw, hw)).astype(np.float32)
    y = asc.ops.conv2d(asc.asarray(x), asc.array(w), asc.array(b), residual=asc.asarray(r), activation="relu")
    want = conv_ref(x, w, b, (1, 1), (0, 0), (0, 0), 1, r.astype(np.float64), "relu")
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-4, atol=1e-4)
    xs = asc.asarray(np.repeat(x, 2, axis=3))[..., ::2]  # a non-contiguous input
    np.testing.assert_allclose(np.asarray(asc.ops.conv2d(xs, asc.array(w), asc.array(b))),
                               conv_ref(x, w, b, (1, 1), (0, 0), (0, 0), 1), rtol=1e-4, atol=1e-4)
