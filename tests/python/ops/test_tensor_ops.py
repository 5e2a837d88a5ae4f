"""asc.ops tensor ops vs direct-loop NumPy references of torch's definitions."""

import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64]
TOL = {np.float32: 1e-5, np.float16: 4e-3, ml_dtypes.bfloat16: 3e-2, np.float64: 1e-12}


def _close(got, ref, dt=np.float64, tol=None):
    got = np.asarray(got).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    t = TOL[dt] if tol is None else tol
    np.testing.assert_allclose(got, ref, rtol=t, atol=t, equal_nan=True)


@pytest.mark.parametrize("mode,npmode", [("constant", "constant"), ("reflect", "reflect"),
                                         ("replicate", "edge"), ("circular", "wrap")])
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pad(mode, npmode, dt):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(dt)
    x[0, 0, 0, 0] = np.nan
    y = F.pad(asc.asarray(x), (1, 2, 3, 0), mode=mode)
    ref = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (3, 0), (1, 2)), mode=npmode)
    assert str(y.dtype) == np.dtype(dt).name
    _close(y, ref, dt, tol=0)


def test_pad_constant_value_crop_noncontig():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    _close(F.pad(x, (1, 1), value=-1.0), np.pad(x, ((0, 0), (1, 1)), constant_values=-1))
    _close(F.pad(x, (-1, 2, 0, -2)), np.pad(x[:2, 1:], ((0, 0), (0, 2))))
    xa = asc.asarray(x)[:, ::2]
    _close(F.pad(xa, (2, 2), mode="reflect"), np.pad(x[:, ::2], ((0, 0), (2, 2)), mode="reflect"))
    with pytest.raises(ValueError, match="pad"):
        F.pad(x, (5, 0), mode="reflect")
    with pytest.raises(ValueError, match="pad"):
        F.pad(x, (1, 2, 3))


def _ref_linear_1d(n_in, n_out, align):
    W = np.zeros((n_out, n_in))
    for i in range(n_out):
        if align:
            src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            src = max((i + 0.5) * n_in / n_out - 0.5, 0.0)
        i0 = min(int(math.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        lam = src - i0
        W[i, i0] += 1 - lam
        W[i, i1] += lam
    return W


def _cubic_w(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def _ref_resize2d(x, oh, ow, kind, align):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            if kind == "nearest":
                si = min(int(math.floor(i * (h / oh))), h - 1)
                sj = min(int(math.floor(j * (w / ow))), w - 1)
                out[:, :, i, j] = x[:, :, si, sj]
            elif kind == "nearest-exact":
                si = min(int(math.floor((i + 0.5) * (h / oh))), h - 1)
                sj = min(int(math.floor((j + 0.5) * (w / ow))), w - 1)
                out[:, :, i, j] = x[:, :, si, sj]
            elif kind == "bilinear":
                wi = _ref_linear_1d(h, oh, align)[i]
                wj = _ref_linear_1d(w, ow, align)[j]
                out[:, :, i, j] = np.einsum("ncab,a,b->nc", x, wi, wj)
            else:  # bicubic
                def src(k, n_in, n_out):
                    return k * (n_in - 1) / (n_out - 1) if align else (k + 0.5) * n_in / n_out - 0.5
                si, sj = src(i, h, oh), src(j, w, ow)
                fi, fj = math.floor(si), math.floor(sj)
                acc = 0
                for a in range(-1, 3):
                    for b in range(-1, 3):
                        acc = acc + _cubic_w(si - fi - a) * _cubic_w(sj - fj - b) * \
                            x[:, :, min(max(fi + a, 0), h - 1), min(max(fj + b, 0), w - 1)]
                out[:, :, i, j] = acc
    return out


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(7, 9), (3, 2)])
def test_interpolate_2d(mode, align, size):
    if mode.startswith("nearest") and align:
        with pytest.raises(ValueError, match="align_corners"):
            F.interpolate(np.ones((1, 1, 2, 2), np.float32), size=size, mode=mode, align_corners=True)
        return
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 4))
    kw = {} if mode.startswith("nearest") else {"align_corners": align}
    y = F.interpolate(asc.asarray(x), size=size, mode=mode, **kw)
    _close(y, _ref_resize2d(x, size[0], size[1], mode, align))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_interpolate_dtypes_scale_noncontig(dt):
    x = np.random.default_rng(2).standard_normal((1, 2, 4, 6)).astype(dt)
    y = F.interpolate(asc.asarray(x), scale_factor=2, mode="bilinear")
    assert str(y.dtype) == np.dtype(dt).name and y.shape == (1, 2, 8, 12)
    _close(y, _ref_resize2d(x.astype(np.float64), 8, 12, "bilinear", False), dt)
    xa = asc.asarray(x)[:, :, :, ::2]
    _close(F.interpolate(xa, size=(4, 3), mode="nearest"), x[:, :, :, ::2].astype(np.float64), dt, tol=0)


def test_interpolate_linear_trilinear():
    x = np.random.default_rng(3).standard_normal((2, 3, 5))
    _close(F.interpolate(x, size=8, mode="linear"), np.einsum("ncl,ol->nco", x, _ref_linear_1d(5, 8, False)))
    x3 = np.random.default_rng(4).standard_normal((1, 1, 3, 4, 5))
    Wd, Wh, Ww = (_ref_linear_1d(3, 6, True), _ref_linear_1d(4, 2, True), _ref_linear_1d(5, 7, True))
    ref = np.einsum("ncdhw,xd,yh,zw->ncxyz", x3, Wd, Wh, Ww)
    _close(F.interpolate(x3, size=(6, 2, 7), mode="trilinear", align_corners=True), ref)
    with pytest.raises(ValueError, match="interpolate"):
        F.interpolate(x, size=8, mode="bilinear")


def test_interpolate_antialias():
    """Bilinear antialias 2x downsampling = PIL's triangle filter: weights 1/8, 3/8, 3/8, 1/8
    (renormalised at the borders)."""
    x = np.random.default_rng(5).standard_normal((1, 1, 1, 16))
    y = np.asarray(F.interpolate(x, size=(1, 8), mode="bilinear", antialias=True))[0, 0, 0]
    r = x[0, 0, 0]
    for i in range(1, 7):
        assert abs(y[i] - (r[2 * i - 1] + 3 * r[2 * i] + 3 * r[2 * i + 1] + r[2 * i + 2]) / 8) < 1e-12
    assert abs(y[0] - (3 * r[0] + 3 * r[1] + r[2]) / 7) < 1e-12
    # upsampling with antialias is plain bilinear in the interior
    up = np.asarray(F.interpolate(x, size=(1, 32), mode="bilinear", antialias=True))[0, 0, 0]
    _close(up[2:-2], (_ref_linear_1d(16, 32, False) @ r)[2:-2])


def test_pixel_shuffle():
    x = np.random.default_rng(6).standard_normal((2, 8, 3, 4)).astype(np.float32)
    r = 2
    ref = np.zeros((2, 2, 6, 8), np.float32)
    for c in range(2):
        for i in range(6):
            for j in range(8):
                ref[:, c, i, j] = x[:, c * 4 + (i % r) * r + (j % r), i // r, j // r]
    y = F.pixel_shuffle(x, 2)
    _close(y, ref, tol=0)
    _close(F.pixel_unshuffle(y, 2), x, tol=0)
    with pytest.raises(ValueError, match="pixel_shuffle"):
        F.pixel_shuffle(np.ones((1, 3, 2, 2)), 2)


def test_embedding_one_hot():
    w = np.random.default_rng(7).standard_normal((5, 3)).astype(np.float32)
    idx = np.array([[0, 4], [2, 2]])
    _close(F.embedding(idx, w), w[idx], tol=0)
    wa = asc.asarray(w.copy())
    y = F.embedding(idx, wa, max_norm=0.5)
    norms = np.linalg.norm(np.asarray(y).reshape(-1, 3), axis=1)
    assert (norms <= 0.5 + 1e-5).all()
    assert np.allclose(np.asarray(wa)[1], w[1])  # unreferenced row unchanged
    with pytest.raises(IndexError, match="embedding"):
        F.embedding(np.array([5]), w)
    oh = F.one_hot(np.array([0, 3, 1]))
    assert oh.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(oh), np.eye(4, dtype=np.int64)[[0, 3, 1]])
    assert F.one_hot(np.array([1]), num_classes=5).shape == (1, 5)
    with pytest.raises(ValueError, match="one_hot"):
        F.one_hot(np.array([5]), num_classes=3)


def test_dropout():
    x = np.ones((200, 500), np.float32)
    assert np.asarray(F.dropout(x, 0.3, training=False)).tolist() == x.tolist()
    asc.random.seed(0)
    y = np.asarray(F.dropout(x, 0.3))
    frac = (y == 0).mean()
    assert abs(frac - 0.3) < 0.01
    np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)
    y2 = np.asarray(F.dropout2d(np.ones((4, 64, 3, 3), np.float32), 0.5))
    per_ch = y2.reshape(4, 64, 9)
    assert ((per_ch == 0).all(-1) | (per_ch == 2).all(-1)).all()
    assert np.asarray(F.dropout(x, 1.0)).max() == 0
    with pytest.raises(ValueError, match="dropout"):
        F.dropout(x, 1.5)


def test_flatten():
    x = np.zeros((2, 3, 4, 5))
    assert F.flatten(x).shape == (120,)
    assert F.flatten(x, 1).shape == (2, 60)
    assert F.flatten(x, 1, 2).shape == (2, 12, 5)
    with pytest.raises(ValueError, match="flatten"):
        F.flatten(x, 2, 1)


def _ref_unfold(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for ci in range(c):
        for ki in range(k[0]):
            for kj in range(k[1]):
                row = (ci * k[0] + ki) * k[1] + kj
                for oi in range(oh):
                    for oj in range(ow):
                        out[:, row, oi * ow + oj] = xp[:, ci, oi * s[0] + ki * d[0], oj * s[1] + kj * d[1]]
    return out


def _ref_fold(cols, size, k, d, p, s):
    n, ck, L = cols.shape
    c = ck // (k[0] * k[1])
    H, W = size
    oh = (H + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (W + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, H + 2 * p[0], W + 2 * p[1]))
    for ci in range(c):
        for ki in range(k[0]):
            for kj in range(k[1]):
                row = (ci * k[0] + ki) * k[1] + kj
                for oi in range(oh):
                    for oj in range(ow):
                        out[:, ci, oi * s[0] + ki * d[0], oj * s[1] + kj * d[1]] += cols[:, row, oi * ow + oj]
    return out[:, :, p[0]:p[0] + H, p[1]:p[1] + W]


@pytest.mark.parametrize("k,d,p,s", [((2, 3), (1, 1), (1, 0), (2, 1)), ((3, 3), (2, 1), (1, 1), (1, 2))])
def test_unfold_fold(k, d, p, s):
    x = np.random.default_rng(8).standard_normal((2, 3, 7, 6))
    u = F.unfold(x, k, dilation=d, padding=p, stride=s)
    ref = _ref_unfold(x, k, d, p, s)
    _close(u, ref)
    _close(F.fold(u, (7, 6), k, dilation=d, padding=p, stride=s), _ref_fold(ref, (7, 6), k, d, p, s))
    with pytest.raises(ValueError, match="fold"):
        F.fold(u, (9, 9), k, dilation=d, padding=p, stride=s)


def test_interpolate_bicubic_antialias():
    """Bicubic antialias 2x downsampling = PIL's bicubic filter (a = -0.5) stretched by 2: eight
    taps at (j - 3.5) / 2, normalised; interior outputs only (the borders renormalise)."""
    def pil_cubic(t, a=-0.5):
        t = abs(t)
        if t < 1:
            return ((a + 2) * t - (a + 3)) * t * t + 1
        if t < 2:
            return (((t - 5) * t + 8) * t - 4) * a
        return 0.0
    w = np.array([pil_cubic((j - 3.5) / 2) for j in range(8)])
    w /= w.sum()
    x = np.random.default_rng(9).standard_normal((1, 1, 1, 24))
    y = np.asarray(F.interpolate(x, size=(1, 12), mode="bicubic", antialias=True))[0, 0, 0]
    r = x[0, 0, 0]
    for i in range(2, 10):
        assert abs(y[i] - w @ r[2 * i - 3:2 * i + 5]) < 1e-12


def test_error_codes():
    with pytest.raises(asc.AscendValueError) as e:
        F.pixel_shuffle(np.ones((1, 3, 2, 2), np.float32), 2)
    assert e.value.code == asc.errors.ErrorCode.INVALID_SHAPE and "pixel_shuffle" in e.value.message
    with pytest.raises(asc.AscendValueError) as e:
        F.pad(np.ones((2, 2), np.float32), (1, 1), mode="wrap")
    assert e.value.code == asc.errors.ErrorCode.INVALID_PARAM


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_dtypes_movement_ops(dt):
    """Data-movement ops keep the dtype and the values exactly (NaN/Inf included)."""
    x = np.random.default_rng(10).standard_normal((2, 4, 4, 6)).astype(dt)
    x[0, 0, 0, :3] = [np.nan, np.inf, -np.inf]
    x[0, 1, 0, 0] = -0.0
    xa = asc.asarray(x)
    y = F.pixel_shuffle(xa, 2)
    assert str(y.dtype) == np.dtype(dt).name
    np.testing.assert_array_equal(np.asarray(F.pixel_unshuffle(y, 2)).astype(np.float64), x.astype(np.float64))
    u = F.unfold(xa, (2, 2), stride=2)
    assert str(u.dtype) == np.dtype(dt).name
    np.testing.assert_array_equal(np.asarray(u).astype(np.float64), _ref_unfold(x.astype(np.float64), (2, 2), (1, 1),
                                                                                 (0, 0), (2, 2)))
    f = F.fold(u, (4, 6), (2, 2), stride=2)  # non-overlapping: fold inverts unfold exactly
    np.testing.assert_array_equal(np.asarray(f).astype(np.float64), x.astype(np.float64))
    e = F.embedding(np.array([3, 0]), xa[0, 0])
    assert str(e.dtype) == np.dtype(dt).name
    np.testing.assert_array_equal(np.asarray(e).astype(np.float64), x[0, 0][[3, 0]].astype(np.float64))
    d = F.dropout(xa, 0.5, training=True)
    assert str(d.dtype) == np.dtype(dt).name
    dn = np.asarray(d).astype(np.float64)
    kept = dn != 0
    finite = np.isfinite(x.astype(np.float64)) & kept & (x.astype(np.float64) != 0)
    np.testing.assert_allclose(dn[finite], 2 * x.astype(np.float64)[finite], rtol=TOL[dt])
    assert np.signbit(np.asarray(F.pad(xa, (1, 1)))[0, 1, 0, 1])  # -0.0 kept by constant pad
