"""asc.ops losses vs direct NumPy references of torch's definitions."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64]
TOL = {np.float32: 1e-5, np.float16: 3e-3, ml_dtypes.bfloat16: 2e-2, np.float64: 1e-12}


def _close(got, ref, dt=np.float64):
    got = np.asarray(got).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    np.testing.assert_allclose(got, ref, rtol=TOL[dt], atol=TOL[dt], equal_nan=True)


def _red(v, r):
    return v if r == "none" else (v.sum() if r == "sum" else v.mean())


def _logsm(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _ref_ce_idx(x, t, w, ignore, r, eps):
    """Loop reference: x (N, C, *), t (N, *)."""
    n, c = x.shape[:2]
    lp = _logsm(x.astype(np.float64), 1)
    lp = np.moveaxis(lp, 1, -1).reshape(-1, c)
    tt = t.reshape(-1)
    w = np.ones(c) if w is None else w.astype(np.float64)
    losses, wsum = [], 0.0
    for i in range(len(tt)):
        if tt[i] == ignore:
            losses.append(0.0)
            continue
        nll = -w[tt[i]] * lp[i, tt[i]]
        smooth = -(w * lp[i]).sum()
        losses.append((1 - eps) * nll + eps / c * smooth)
        wsum += w[tt[i]]
    losses = np.array(losses).reshape(t.shape)
    if r == "none":
        return losses
    if r == "sum":
        return losses.sum()
    return losses.sum() / wsum


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("r", ["mean", "sum", "none"])
@pytest.mark.parametrize("eps", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_indices(dt, r, eps, weighted):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((6, 5, 3)) * 3).astype(dt)
    t = rng.integers(0, 5, (6, 3))
    t[0, 0] = -100
    w = rng.uniform(0.5, 2, 5).astype(dt) if weighted else None
    got = F.cross_entropy(asc.asarray(x), t, weight=w, reduction=r, label_smoothing=eps)
    assert str(got.dtype) == np.dtype(dt).name
    _close(got, _ref_ce_idx(x, t, None if w is None else w.astype(np.float64), -100, r, eps), dt)
    # nll_loss on log-probabilities equals cross_entropy without smoothing
    if eps == 0.0:
        lp = _logsm(x.astype(np.float64), 1)
        _close(F.nll_loss(lp, t, weight=None if w is None else w.astype(np.float64), reduction=r),
               _ref_ce_idx(x, t, None if w is None else w.astype(np.float64), -100, r, 0.0))


@pytest.mark.parametrize("eps", [0.0, 0.1])
@pytest.mark.parametrize("r", ["mean", "sum", "none"])
def test_cross_entropy_probabilities(eps, r):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6))
    p = rng.uniform(size=(4, 6))
    p /= p.sum(1, keepdims=True)
    w = rng.uniform(0.5, 2, 6)
    tp = p * (1 - eps) + eps / 6
    ref = -(w * tp * _logsm(x, 1)).sum(1)
    _close(F.cross_entropy(x, p, weight=w, reduction=r, label_smoothing=eps), _red(ref, r))


def test_cross_entropy_unbatched_empty_errors():
    x = np.array([1.0, 2.0, 0.5])
    _close(F.cross_entropy(x, np.array(1)), -_logsm(x, 0)[1])
    with pytest.raises(IndexError, match="cross_entropy"):
        F.cross_entropy(np.ones((2, 3)), np.array([0, 3]))
    with pytest.raises(ValueError, match="cross_entropy"):
        F.cross_entropy(np.ones((2, 3)), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(np.ones((2, 3)), np.array([0, 1]), reduction="avg")
    # all targets ignored: torch's mean is 0/0 = NaN
    assert np.isnan(float(F.cross_entropy(np.ones((2, 3)), np.array([-100, -100]))))
    assert F.cross_entropy(np.ones((0, 3)), np.zeros((0,), np.int64), reduction="none").shape == (0,)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("r", ["mean", "sum", "none"])
def test_regression_losses(dt, r):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((3, 7)) * 2).astype(dt)
    y = (rng.standard_normal((3, 7)) * 2).astype(dt)
    a, b = x.astype(np.float64), y.astype(np.float64)
    d = a - b
    _close(F.mse_loss(x, y, reduction=r), _red(d * d, r), dt)
    _close(F.l1_loss(x, y, reduction=r), _red(np.abs(d), r), dt)
    _close(F.smooth_l1_loss(x, y, reduction=r, beta=0.5),
           _red(np.where(np.abs(d) < 0.5, 0.5 * d * d / 0.5, np.abs(d) - 0.25), r), dt)
    _close(F.huber_loss(x, y, reduction=r, delta=0.7),
           _red(np.where(np.abs(d) < 0.7, 0.5 * d * d, 0.7 * (np.abs(d) - 0.35)), r), dt)
    # non-contiguous
    xa = asc.asarray(x)[:, ::2]
    _close(F.mse_loss(xa, y[:, ::2], reduction=r), _red(d[:, ::2] ** 2, r), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_bce(dt):
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, (4, 5)).astype(dt)
    p[0, 0], p[0, 1] = 0, 1  # log clamped at -100
    t = rng.integers(0, 2, (4, 5)).astype(dt)
    pp, tt = p.astype(np.float64), t.astype(np.float64)
    with np.errstate(divide="ignore"):
        ref = -(tt * np.maximum(np.log(pp), -100) + (1 - tt) * np.maximum(np.log(1 - pp), -100))
    _close(F.binary_cross_entropy(p, t, reduction="none"), ref, dt)
    _close(F.binary_cross_entropy(p, t), ref.mean(), dt)
    with pytest.raises(ValueError, match="binary_cross_entropy"):
        F.binary_cross_entropy(np.array([1.5], np.float32), np.array([1.0], np.float32))
    x = (rng.standard_normal((4, 5)) * 30).astype(dt)
    pw = rng.uniform(0.5, 3, 5).astype(dt)
    xx, pwd = x.astype(np.float64), pw.astype(np.float64)
    logsig = lambda v: np.minimum(v, 0) - np.log1p(np.exp(-np.abs(v)))  # noqa: E731
    ref2 = -(pwd * tt * logsig(xx) + (1 - tt) * logsig(-xx))
    _close(F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none"), ref2, dt)
    ref3 = -(tt * logsig(xx) + (1 - tt) * logsig(-xx))
    _close(F.binary_cross_entropy_with_logits(x, t, reduction="sum"), ref3.sum(), dt)


def test_kl_div():
    rng = np.random.default_rng(4)
    x = np.log(rng.uniform(0.1, 1, (3, 4)))
    t = rng.uniform(0, 1, (3, 4))
    t[0, 0] = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = np.where(t == 0, 0, t * (np.log(t) - x))
    _close(F.kl_div(x, t, reduction="none"), ref)
    _close(F.kl_div(x, t, reduction="batchmean"), ref.sum() / 3)
    _close(F.kl_div(x, np.log(t + 0.1), reduction="sum", log_target=True),
           ((t + 0.1) * (np.log(t + 0.1) - x)).sum())
