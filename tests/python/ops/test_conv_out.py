"""Convolutions into a caller's buffer (``out=``, what the model executor's memory arena hands in):
every engine path (oneDNN blocked / GEMM, Winograd, depthwise, float64 reference, Ascend C,
transposed, NHWC, NC1HWC0) writes the float64 NumPy reference's values into the given array and
returns it; arena slices at offsets keep their neighbours; bad buffers are refused before anything
is written."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from pyasc import _C, ops

RNG = np.random.default_rng(4242)


def ref(x, w, b, stride, pad, groups=1, residual=None, act=None):
    """float64 direct 2-D convolution, NCHW / OIHW, symmetric pads."""
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for g in range(groups):
        xs = x[:, g * icg:(g + 1) * icg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("nchw,oc->nohw", patch,
                                                           w[g * ocg:(g + 1) * ocg, :, i, j].astype(np.float64))
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    if residual is not None:
        out += residual.astype(np.float64)
    if act == "relu":
        out = np.maximum(out, 0)
    return out


def data(n, c, oc, h, k, groups=1, dtype=np.float32):
    x = RNG.standard_normal((n, c, h, h)).astype(dtype)
    w = (RNG.standard_normal((oc, c // groups, k, k)) * 0.2).astype(dtype)
    b = RNG.standard_normal(oc).astype(dtype)
    return x, w, b


def tol(dtype):
    return {np.float32: 2e-4, np.float64: 1e-10, np.float16: 2e-2, ml_dtypes.bfloat16: 6e-2}[dtype]


# (name, N, C, OC, H, k, stride, pad, groups): one per engine path of src/nn/conv.cc
CASES = [
    ("3x3/2 direct", 1, 16, 16, 15, 3, 2, 1, 1),
    ("3x3/2 batch", 3, 16, 24, 12, 3, 2, 1, 1),
    ("winograd", 1, 16, 16, 16, 3, 1, 1, 1),
    ("winograd batch", 2, 8, 16, 14, 3, 1, 1, 1),
    ("1x1 gemm", 1, 32, 64, 14, 1, 1, 0, 1),
    ("1x1 wide weights", 1, 64, 128, 4, 1, 1, 0, 1),
    # output-channel slices of two images sharing one input reorder per image
    ("oc slices batch 2", 2, 32, 64, 6, 3, 2, 1, 1),
    ("oc slices 3x3/1 7x7", 3, 32, 64, 7, 3, 1, 1, 1),
    ("depthwise", 1, 16, 16, 20, 3, 1, 1, 16),
    ("stem-like", 2, 3, 16, 23, 7, 2, 3, 1),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_out_paths_match_reference(case):
    _, n, c, oc, h, k, s, p, g = case
    x, w, b = data(n, c, oc, h, k, g)
    want = ref(x, w, b, s, p, g)
    out = asc.array(np.full(want.shape, np.nan, np.float32))
    wa = asc.array(w)
    for _ in range(2):  # the second call runs the cached call plan into the same buffer
        y = ops.conv2d(asc.asarray(x), wa, asc.array(b), s, p, 1, g, out=out)
        assert y is out
        np.testing.assert_allclose(np.asarray(out), want, rtol=tol(np.float32), atol=tol(np.float32))
    # a second, different buffer for the same (cached) call
    out2 = asc.empty(want.shape, dtype=np.float32)
    ops.conv2d(asc.asarray(x), wa, asc.array(b), s, p, 1, g, out=out2)
    np.testing.assert_allclose(np.asarray(out2), want, rtol=tol(np.float32), atol=tol(np.float32))


@pytest.mark.parametrize("dtype", [np.float64, np.float16, ml_dtypes.bfloat16])
def test_out_dtypes(dtype):
    x, w, b = data(2, 8, 16, 9, 3, 1, dtype)
    want = ref(x, w, b, 2, 1)
    out = asc.empty(want.shape, dtype=dtype)
    assert ops.conv2d(x, w, b, stride=2, padding=1, out=out) is out
    np.testing.assert_allclose(np.asarray(out).astype(np.float64), want, rtol=tol(dtype), atol=tol(dtype) * 4)


def test_out_ascendc_engine_and_fused_epilogue():
    x, w, b = data(1, 16, 16, 8, 3)
    res = RNG.standard_normal((1, 16, 8, 8)).astype(np.float32)
    want = ref(x, w, b, 1, 1, residual=res, act="relu")
    for engine in ("onednn", "ascendc"):
        out = asc.empty(want.shape, dtype=np.float32)
        ops.conv2d(x, w, b, padding=1, activation="relu", residual=asc.array(res), engine=engine, out=out)
        np.testing.assert_allclose(np.asarray(out), want, rtol=2e-3, atol=2e-3)


def test_out_is_residual_buffer_in_place():
    # The arena's in-place add: out is the residual's own buffer; the result replaces it.
    for (n, c, oc, h, k, s, p) in [(1, 16, 16, 16, 3, 1, 1), (1, 16, 32, 14, 3, 2, 1), (2, 32, 32, 14, 1, 1, 0)]:
        x, w, b = data(n, c, oc, h, k)
        oh = (h + 2 * p - k) // s + 1
        res = RNG.standard_normal((n, oc, oh, oh)).astype(np.float32)
        want = ref(x, w, b, s, p, residual=res, act="relu")
        buf = asc.array(res)
        ops.conv2d(x, w, b, s, p, activation="relu", residual=buf, out=buf)
        np.testing.assert_allclose(np.asarray(buf), want, rtol=2e-4, atol=2e-4)


def test_out_with_separate_residual_leaves_residual():
    x, w, b = data(1, 16, 16, 10, 3)
    res = RNG.standard_normal((1, 16, 5, 5)).astype(np.float32)
    ra = asc.array(res)
    out = asc.empty((1, 16, 5, 5), dtype=np.float32)
    ops.conv2d(x, w, b, stride=2, padding=1, residual=ra, out=out)
    np.testing.assert_allclose(np.asarray(out), ref(x, w, b, 2, 1, residual=res), rtol=2e-4, atol=2e-4)
    np.testing.assert_array_equal(np.asarray(ra), res)


def test_out_arena_slices_keep_neighbours():
    """Input and output as slices of one arena storage (disjoint): only the output's bytes change."""
    x, w, b = data(1, 16, 16, 16, 3)
    want = ref(x, w, b, 2, 1)
    nx, no = x.size, want.size
    arena = asc.array(np.full(7 + nx + 5 + no + 9, -7.0, np.float32))
    xa = arena[7:7 + nx].reshape(x.shape)
    xa[...] = x
    out = arena[7 + nx + 5:7 + nx + 5 + no].reshape(want.shape)
    ops.conv2d(xa, w, b, stride=2, padding=1, out=out)
    a = np.asarray(arena)
    np.testing.assert_allclose(a[7 + nx + 5:7 + nx + 5 + no].reshape(want.shape), want, rtol=2e-4, atol=2e-4)
    np.testing.assert_array_equal(a[7:7 + nx].reshape(x.shape), x)
    for sl in (slice(0, 7), slice(7 + nx, 7 + nx + 5), slice(7 + nx + 5 + no, None)):
        assert (a[sl] == -7.0).all()


def test_out_nhwc_unbatched_and_transposed():
    x, w, b = data(2, 8, 16, 9, 3)
    want = ref(x, w, b, 1, 1)
    out = asc.empty((2, 9, 9, 16), dtype=np.float32)
    ops.conv2d(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w, b, padding=1, layout="NHWC", out=out)
    np.testing.assert_allclose(np.asarray(out), want.transpose(0, 2, 3, 1), rtol=2e-4, atol=2e-4)
    # unbatched: out without the batch axis; the caller's own object comes back
    out1 = asc.empty((16, 9, 9), dtype=np.float32)
    assert ops.conv2d(x[0], w, b, padding=1, out=out1) is out1
    np.testing.assert_allclose(np.asarray(out1), want[0], rtol=2e-4, atol=2e-4)
    # transposed: compared with the plain op (tests/python/ops/test_conv.py checks that against NumPy)
    wt = (RNG.standard_normal((8, 4, 3, 3)) * 0.2).astype(np.float32)
    plain = np.asarray(ops.conv_transpose2d(x, wt, None, stride=2, padding=1, output_padding=1))
    outt = asc.empty(plain.shape, dtype=np.float32)
    ops.conv_transpose2d(x, wt, None, stride=2, padding=1, output_padding=1, out=outt)
    np.testing.assert_array_equal(np.asarray(outt), plain)
    x1, w1, _ = data(1, 4, 4, 11, 3)
    o1 = asc.empty((1, 4, 11), dtype=np.float32)
    ops.conv1d(x1[:, :, 0], w1[:, :, 0], None, padding=1, out=o1)
    np.testing.assert_allclose(np.asarray(o1), np.asarray(ops.conv1d(x1[:, :, 0], w1[:, :, 0], None, padding=1)),
                               rtol=1e-6, atol=1e-6)


def test_out_blocked_layout_through_c_entry():
    """The executor's entry (_C.nn.conv with NC1HWC0 operands) with out= in the blocked layout."""
    c0 = _C.nn.preferred_block() or 8
    x, w, b = data(1, 16, 32, 14, 3)
    want = ref(x, w, b, 2, 1)
    xb = asc.array(np.ascontiguousarray(x.reshape(1, 16 // c0, c0, 14, 14).transpose(0, 1, 3, 4, 2)))
    out = asc.empty((1, 32 // c0, 7, 7, c0), dtype=np.float32)
    y = _C.nn.conv(xb, asc.array(w), asc.array(b), None, [2, 2], [1, 1], [1, 1], [1, 1], [0, 0], 1, False, False,
                   "none", 0.0, "onednn", "conv2d", c0, c0, False, out=out)
    got = np.asarray(out).transpose(0, 1, 4, 2, 3).reshape(1, 32, 7, 7)
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(out))


def test_out_empty_batch():
    x = np.zeros((0, 4, 6, 6), np.float32)
    w = np.ones((8, 4, 3, 3), np.float32)
    out = asc.empty((0, 8, 4, 4), dtype=np.float32)
    assert ops.conv2d(x, w, out=out) is out
    with pytest.raises(asc.AscendValueError, match=r"conv2d.*out must have the output's shape \(0, 8, 4, 4\)"):
        ops.conv2d(x, w, out=asc.empty((0, 8, 5, 5), dtype=np.float32))


def _errs():
    x, w, b = data(1, 8, 8, 6, 3)
    return x, w, b


def test_out_errors_name_the_problem_and_write_nothing():
    x, w, b = _errs()
    xa = asc.array(x)

    def fresh(shape=(1, 8, 4, 4), dtype=np.float32):
        return asc.array(np.full(shape, 3.0, dtype))

    cases = [
        (fresh((1, 8, 5, 5)), asc.AscendValueError, r"\[conv2d\] out must have the output's shape \(1, 8, 4, 4\), got \(1, 8, 5, 5\)"),
        (fresh(dtype=np.float64), asc.AscendTypeError, r"\[conv2d\] out dtype float64 does not match the output's float32"),
        (fresh((1, 8, 4, 8))[..., ::2], asc.AscendValueError, r"\[conv2d\] out must be C-contiguous"),
        (fresh().transpose(0, 1, 3, 2), asc.AscendValueError, r"\[conv2d\] out must be C-contiguous"),
    ]
    for out, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            ops.conv2d(xa, w, b, out=out)
        np.testing.assert_array_equal(np.asarray(out), 3.0)
    ro = fresh()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ops.conv2d(xa, w, b, out=ro)
    np.testing.assert_array_equal(np.asarray(ro), 3.0)
    with pytest.raises(asc.AscendTypeError, match=r"\[conv2d\] out must be a pyasc.ndarray, got ndarray"):
        ops.conv2d(xa, w, b, out=np.zeros((1, 8, 4, 4), np.float32))
    with pytest.raises(asc.AscendTypeError, match=r"\[conv2d\] out must be a pyasc.ndarray, got list"):
        _C.nn.conv(xa, asc.array(w), None, None, [1, 1], [0, 0], [0, 0], [1, 1], [0, 0], 1, False, False, "none",
                   0.0, "onednn", "conv2d", out=[0.0])
    with pytest.raises(asc.AscendValueError, match=r"\[conv2d\] out must be 3-D for an unbatched input"):
        ops.conv2d(x[0], w, b, out=fresh())


def test_out_overlap_refused():
    x, w, b = _errs()
    # the output overlapping the input: the pieces would read what others already wrote
    arena = asc.array(np.zeros(x.size + 64, np.float32))
    xa = arena[:x.size].reshape(x.shape)
    xa[...] = x
    before = np.asarray(arena).copy()
    with pytest.raises(asc.AscendValueError, match=r"\[conv2d\] out shares memory with the input \(shape \(1, 8, 6, 6\)\)"):
        ops.conv2d(xa, w, b, out=arena[32:32 + 128].reshape(1, 8, 4, 4))
    np.testing.assert_array_equal(np.asarray(arena), before)
    wa = asc.array(np.zeros(w.size + 128, np.float32))
    wv = wa[:w.size].reshape(w.shape)
    wv[...] = w
    with pytest.raises(asc.AscendValueError, match=r"out shares memory with the weight"):
        ops.conv2d(x, wv, b, out=wa[w.size - 8:w.size + 120].reshape(1, 8, 4, 4))
    ba = asc.array(np.zeros(8 + 128, np.float32))
    with pytest.raises(asc.AscendValueError, match=r"out shares memory with the bias"):
        ops.conv2d(x, w, ba[:8], out=ba[:128].reshape(1, 8, 4, 4))
    # a residual overlapping out without being its buffer
    rb = asc.array(np.zeros(128 + 16, np.float32))
    with pytest.raises(asc.AscendValueError, match=r"out overlaps the residual without being its buffer"):
        ops.conv2d(x, w, b, residual=rb[:128].reshape(1, 8, 4, 4), out=rb[16:].reshape(1, 8, 4, 4))


@pytest.mark.parametrize("ppc", ["1", "2", "3"])
def test_piece_split_and_shared_input_reorder_agree(ppc):
    """The same calls with the input reordered once per image (default) and per slice
    (ASC_CONV_SHARED_SRC=0), at 1-3 pieces per core: equal to each other and to the reference."""
    import os

    x, w, b = data(2, 32, 64, 9, 3)
    want = ref(x, w, b, 2, 1)
    xa, wa, ba = asc.array(x), asc.array(w), asc.array(b)
    got = {}
    for share in ("1", "0"):
        os.environ["ASC_CONV_SHARED_SRC"] = share
        os.environ["ASC_CONV_PIECES_PER_CORE"] = ppc
        try:
            got[share] = np.asarray(ops.conv2d(xa, wa, ba, 2, 1))
        finally:
            del os.environ["ASC_CONV_SHARED_SRC"], os.environ["ASC_CONV_PIECES_PER_CORE"]
    np.testing.assert_array_equal(got["1"], got["0"])
    np.testing.assert_allclose(got["1"], want, rtol=2e-4, atol=2e-4)
