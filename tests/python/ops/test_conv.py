"""asc.ops convolution / dense ops vs an independent NumPy reference (direct sliding-window loops)."""

import itertools
import os
import sys

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from pyasc import ops

RNG = np.random.default_rng(1234)


def ref_conv(x, w, b, stride, pad_l, pad_r, dil, groups):
    """Direct convolution in float64: x (N, C, *sp), w (OC, C/g, *k)."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad_l[i], pad_r[i]) for i in range(n)])
    N, C = x.shape[:2]
    OC = w.shape[0]
    k = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    out = np.zeros((N, OC, *out_sp))
    icg, ocg = C // groups, OC // groups
    for g in range(groups):
        xs = xp[:, g * icg:(g + 1) * icg]
        ws = w[g * ocg:(g + 1) * ocg]
        for kk in itertools.product(*[range(v) for v in k]):
            sl = tuple(slice(kk[i] * dil[i], kk[i] * dil[i] + stride[i] * (out_sp[i] - 1) + 1, stride[i]) for i in range(n))
            patch = xs[(slice(None), slice(None)) + sl]
            out[:, g * ocg:(g + 1) * ocg] += np.einsum("nc...,oc->no...", patch, ws[(slice(None), slice(None)) + kk])
    if b is not None:
        out += b.astype(np.float64).reshape((1, OC) + (1,) * n)
    return out


def ref_conv_t(x, w, b, stride, pad, opad, dil, groups):
    """Direct transposed convolution (scatter) in float64: w (C, OC/g, *k)."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n = x.ndim - 2
    N, C = x.shape[:2]
    ocg = w.shape[1]
    OC = ocg * groups
    k = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * stride[i] + dil[i] * (k[i] - 1) + 1 + opad[i] for i in range(n)]
    out = np.zeros((N, OC, *full))
    icg = C // groups
    for g in range(groups):
        for kk in itertools.product(*[range(v) for v in k]):
            contrib = np.einsum("nc...,co->no...", x[:, g * icg:(g + 1) * icg],
                                w[(slice(g * icg, (g + 1) * icg), slice(None)) + kk])
            sl = tuple(slice(kk[i] * dil[i], kk[i] * dil[i] + stride[i] * (x.shape[2 + i] - 1) + 1, stride[i])
                       for i in range(n))
            out[(slice(None), slice(g * ocg, (g + 1) * ocg)) + sl] += contrib
    sl = tuple(slice(pad[i], full[i] - pad[i]) for i in range(n))
    out = out[(slice(None), slice(None)) + sl]
    if b is not None:
        out += b.astype(np.float64).reshape((1, OC) + (1,) * n)
    return out


def tol(dt):
    return {np.float64: 1e-10, np.float32: 2e-4, np.float16: 2e-2}.get(dt, 5e-2)


DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]


def _rand(shape, dt):
    return RNG.standard_normal(shape).astype(dt)


def check(got, want, dt, scale=1.0):
    got = np.asarray(got).astype(np.float64)
    t = tol(dt)
    np.testing.assert_allclose(got, want, rtol=t, atol=t * max(1.0, scale))


FWD_CASES = [
    # (n, N, C, OC, sp, k, stride, padding, dilation, groups)
    (1, 2, 4, 6, (11,), (3,), 1, 0, 1, 1),
    (1, 1, 4, 4, (9,), (3,), 2, 1, 2, 2),
    (2, 2, 3, 5, (7, 8), (3, 3), 1, 1, 1, 1),
    (2, 1, 4, 8, (9, 7), (3, 2), (2, 1), (1, 0), (1, 2), 2),
    (2, 2, 6, 6, (8, 8), (3, 3), 1, 1, 1, 6),   # depthwise
    (2, 1, 3, 4, (10, 10), (7, 7), 2, 3, 1, 1),  # stem-like
    (2, 1, 16, 32, (5, 5), (1, 1), 1, 0, 1, 1),  # 1x1
    (3, 1, 2, 3, (5, 6, 4), (3, 2, 2), 1, (1, 0, 1), 1, 1),
    (3, 2, 4, 4, (4, 5, 5), (2, 3, 3), (1, 2, 1), 1, (2, 1, 1), 2),
]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", FWD_CASES)
def test_conv_forward(case, dt):
    n, N, C, OC, sp, k, s, p, d, g = case
    x = _rand((N, C, *sp), dt)
    w = _rand((OC, C // g, *k), dt)
    b = _rand((OC,), dt)
    fn = getattr(ops, f"conv{n}d")
    tp = lambda v: [v] * n if isinstance(v, int) else list(v)
    want = ref_conv(x, w, b, tp(s), tp(p), tp(p), tp(d), g)
    got = fn(asc.asarray(x), asc.asarray(w), asc.asarray(b), stride=s, padding=p, dilation=d, groups=g)
    assert got.dtype == np.dtype(dt)
    check(got.numpy(), want, dt, scale=np.abs(want).max())
    # no bias
    want0 = ref_conv(x, w, None, tp(s), tp(p), tp(p), tp(d), g)
    check(fn(x, w, None, s, p, d, g).numpy(), want0, dt, scale=np.abs(want0).max())


@pytest.mark.parametrize("dt", [np.float32, ml_dtypes.bfloat16, np.float64])
@pytest.mark.parametrize("case", FWD_CASES[2:6])
def test_conv_nhwc(case, dt):
    n, N, C, OC, sp, k, s, p, d, g = case
    x = _rand((N, C, *sp), dt)
    w = _rand((OC, C // g, *k), dt)
    xl = np.moveaxis(x, 1, -1).copy()
    tp = lambda v: [v] * n if isinstance(v, int) else list(v)
    want = np.moveaxis(ref_conv(x, w, None, tp(s), tp(p), tp(p), tp(d), g), 1, -1)
    got = ops.conv2d(xl, w, None, s, p, d, g, layout="NHWC")
    check(got.numpy(), want, dt, scale=np.abs(want).max())


@pytest.mark.parametrize("engine", ["onednn", "ascendc"])
@pytest.mark.parametrize("dt", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_conv_engines_fused(engine, dt):
    x = _rand((2, 8, 9, 9), dt)
    w = _rand((16, 4, 3, 3), dt)
    b = _rand((16,), dt)
    r = _rand((2, 16, 5, 5), dt)
    lin = ref_conv(x, w, b, [2, 2], [1, 1], [1, 1], [1, 1], 2) + r.astype(np.float64)
    for act, f in [("relu", lambda v: np.maximum(v, 0)), ("leaky_relu", lambda v: np.where(v > 0, v, 0.1 * v)),
                   ("sigmoid", lambda v: 1 / (1 + np.exp(-v))), ("tanh", np.tanh),
                   ("silu", lambda v: v / (1 + np.exp(-v))), ("relu6", lambda v: np.clip(v, 0, 6))]:
        got = ops.conv2d(x, w, b, 2, 1, 1, 2, activation=act, negative_slope=0.1, residual=r, engine=engine)
        check(got.numpy(), f(lin), dt, scale=np.abs(lin).max())


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", [
    # n, N, C, OC, sp, k, stride, padding, output_padding, dilation, groups
    (1, 2, 4, 6, (7,), (3,), 2, 1, 1, 1, 1),
    (1, 1, 4, 4, (5,), (3,), 3, 0, 2, 1, 2),    # output_padding > padding: reference path
    (2, 2, 4, 6, (5, 6), (3, 3), 2, 1, 1, 1, 2),
    (2, 1, 3, 2, (4, 4), (2, 3), (1, 2), (0, 1), (0, 1), (2, 1), 1),
    (3, 1, 2, 4, (3, 4, 3), (2, 2, 3), 2, (0, 1, 1), (1, 1, 0), 1, 2),
])
def test_conv_transpose(case, dt):
    n, N, C, OC, sp, k, s, p, op_, d, g = case
    x = _rand((N, C, *sp), dt)
    w = _rand((C, OC // g, *k), dt)
    b = _rand((OC,), dt)
    tp = lambda v: [v] * n if isinstance(v, int) else list(v)
    want = ref_conv_t(x, w, b, tp(s), tp(p), tp(op_), tp(d), g)
    fn = getattr(ops, f"conv_transpose{n}d")
    got = fn(x, w, b, stride=s, padding=p, output_padding=op_, groups=g, dilation=d)
    assert got.shape == want.shape
    check(got.numpy(), want, dt, scale=np.abs(want).max())


def test_padding_same_valid_unbatched_empty_noncontig():
    x = _rand((2, 3, 8, 9), np.float32)
    w = _rand((4, 3, 4, 3), np.float32)
    want = ref_conv(x, w, None, [1, 1], [1, 1], [2, 1], [1, 1], 1)   # total 3 -> (1, 2), 2 -> (1, 1)
    check(ops.conv2d(x, w, padding="same").numpy(), want, np.float32, np.abs(want).max())
    want = ref_conv(x, w, None, [1, 1], [3, 2], [3, 2], [2, 2], 1)
    check(ops.conv2d(x, w, padding="same", dilation=2).numpy(), want, np.float32, np.abs(want).max())
    want = ref_conv(x, w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
    check(ops.conv2d(x, w, padding="valid").numpy(), want, np.float32, np.abs(want).max())
    # unbatched
    got = ops.conv2d(x[0], w, padding=1)
    check(got.numpy(), ref_conv(x[:1], w, None, [1, 1], [1, 1], [1, 1], [1, 1], 1)[0], np.float32, 10)
    # empty batch
    e = ops.conv2d(np.zeros((0, 3, 8, 9), np.float32), w, padding=1)
    assert e.shape == (0, 4, 7, 9)
    # non-contiguous input and weight views
    xa = asc.asarray(_rand((2, 8, 9, 3), np.float32))
    xv = asc.transpose(xa, (0, 3, 1, 2))
    wv = asc.asarray(np.ascontiguousarray(w[:, :, ::-1]))[:, :, ::-1]
    want = ref_conv(np.transpose(xa.numpy(), (0, 3, 1, 2)), w, None, [2, 1], [0, 0], [0, 0], [1, 1], 1)
    check(ops.conv2d(xv, wv, stride=(2, 1)).numpy(), want, np.float32, np.abs(want).max())


def test_errors():
    E = asc.errors
    x = np.zeros((1, 4, 5, 5), np.float32)
    with pytest.raises(E.AscendValueError, match=r"conv2d.*groups"):
        ops.conv2d(x, np.zeros((4, 3, 3, 3), np.float32))
    with pytest.raises(E.AscendValueError, match=r"conv2d.*stride"):
        ops.conv2d(x, np.zeros((4, 4, 3, 3), np.float32), stride=0)
    with pytest.raises(E.AscendValueError, match=r"conv2d.*padding"):
        ops.conv2d(x, np.zeros((4, 4, 3, 3), np.float32), padding=-1)
    with pytest.raises(E.AscendValueError, match=r"same"):
        ops.conv2d(x, np.zeros((4, 4, 3, 3), np.float32), stride=2, padding="same")
    with pytest.raises(E.AscendValueError, match=r"conv2d.*groups"):
        ops.conv2d(x, np.zeros((6, 2, 3, 3), np.float32), groups=3)
    with pytest.raises(E.AscendValueError, match=r"conv2d.*empty"):
        ops.conv2d(x, np.zeros((4, 4, 7, 7), np.float32))
    with pytest.raises(E.AscendTypeError, match=r"conv2d.*dtype"):
        ops.conv2d(x, np.zeros((4, 4, 3, 3), np.float64))
    with pytest.raises(E.AscendValueError, match=r"conv_transpose2d.*output_padding"):
        ops.conv_transpose2d(x, np.zeros((4, 4, 3, 3), np.float32), stride=1, output_padding=1)
    with pytest.raises(E.AscendValueError, match=r"conv1d.*3-D"):
        ops.conv1d(x, np.zeros((4, 4, 3), np.float32))
    with pytest.raises(E.AscendValueError, match=r"bias"):
        ops.conv2d(x, np.zeros((4, 4, 3, 3), np.float32), np.zeros(3, np.float32))
    with pytest.raises(E.AscendValueError) as ei:
        ops.mm(np.zeros((3, 4), np.float32), np.zeros((5, 6), np.float32))
    assert "mm" in ei.value.message and "(3, 4)" in ei.value.message
    assert ei.value.code == E.ErrorCode.INVALID_SHAPE
    with pytest.raises(E.AscendValueError, match=r"bmm"):
        ops.bmm(np.zeros((2, 3, 4)), np.zeros((3, 4, 5)))
    with pytest.raises(E.AscendValueError, match=r"linear"):
        ops.linear(np.zeros((2, 3)), np.zeros((4, 5)))


def test_cache_hits():
    x = _rand((1, 8, 6, 6), np.float32)
    w = _rand((8, 8, 3, 3), np.float32)
    ops.conv2d(x, w, padding=1)
    h0, m0 = asc._C.nn.cache_stats()
    for _ in range(3):
        ops.conv2d(x, w, padding=1)
    h1, m1 = asc._C.nn.cache_stats()
    assert h1 - h0 >= 3 and m1 == m0


def test_dense():
    a = _rand((3, 4), np.float32)
    b = _rand((4, 5), np.float32)
    c = _rand((3, 5), np.float32)
    np.testing.assert_allclose(ops.mm(a, b).numpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(ops.addmm(c, a, b, beta=0.5, alpha=2).numpy(), 0.5 * c + 2 * (a @ b), rtol=1e-5)
    A = _rand((2, 3, 4), np.float32)
    B = _rand((2, 4, 5), np.float32)
    C = _rand((2, 3, 5), np.float32)
    np.testing.assert_allclose(ops.bmm(A, B).numpy(), A @ B, rtol=1e-5)
    np.testing.assert_allclose(ops.baddbmm(C, A, B).numpy(), C + A @ B, rtol=1e-5)
    np.testing.assert_allclose(ops.matmul(A, b).numpy(), A @ b, rtol=1e-5)
    np.testing.assert_allclose(ops.einsum("bij,bjk->bik", A, B).numpy(), np.einsum("bij,bjk->bik", A, B), rtol=1e-5)
    w = _rand((6, 4), np.float32)
    bias = _rand((6,), np.float32)
    np.testing.assert_allclose(ops.linear(A, w, bias).numpy(), A @ w.T + bias, rtol=1e-5, atol=1e-6)


def test_modules():
    m = ops.Conv2d(4, 8, 3, stride=2, padding=1, groups=2)
    assert m.weight.shape == (8, 2, 3, 3) and m.bias.shape == (8,)
    assert np.abs(m.weight.numpy()).max() <= 1 / np.sqrt(18)
    x = _rand((1, 4, 7, 7), np.float32)
    want = ref_conv(x, m.weight.numpy(), m.bias.numpy(), [2, 2], [1, 1], [1, 1], [1, 1], 2)
    check(m(x).numpy(), want, np.float32, np.abs(want).max())
    t = ops.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
    assert t.weight.shape == (4, 6, 3, 3)
    want = ref_conv_t(x, t.weight.numpy(), t.bias.numpy(), [2, 2], [1, 1], [1, 1], [1, 1], 1)
    check(t(x).numpy(), want, np.float32, np.abs(want).max())
    lin = ops.Linear(7, 3)
    np.testing.assert_allclose(lin(x).numpy(), x @ lin.weight.numpy().T + lin.bias.numpy(), rtol=1e-5, atol=1e-6)
    assert ops.Conv1d(2, 2, 3, bias=False).bias is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_after_conv():
    x = _rand((2, 16, 20, 20), np.float32)
    w = _rand((16, 16, 3, 3), np.float32)
    want = ops.conv2d(x, w, padding=1).numpy()
    pid = os.fork()
    if pid == 0:  # child: conv must not hang on the parent's OpenMP team
        code = 1
        try:
            got = ops.conv2d(x, w, padding=1).numpy()
            code = 0 if np.allclose(got, want, rtol=1e-5, atol=1e-5) else 2
        finally:
            os._exit(code)
    import time
    deadline = time.time() + 60
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("conv2d hung in a forked child")
