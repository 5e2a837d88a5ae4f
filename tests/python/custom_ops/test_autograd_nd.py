"""Gradients of the N-d asc.ops operators (python/pyasc/autograd/_nd_rules.py) and of the ops written in
pyasc that differentiate through their bodies (losses, interpolate, normalize): each checked against
central differences of the forward itself with asc.testing.gradcheck (float64)."""
import numpy as np
import pytest

import pyasc as asc
from pyasc.testing import gradcheck

rng = np.random.default_rng(4321)
F = asc.ops


def R(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape)


def distinct(*shape):
    # pooling inputs with well separated values: no ties, so max pooling is differentiable there
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.37 - n * 0.1).astype(np.float64)


# -- pooling -------------------------------------------------------------------------------------

@pytest.mark.parametrize("nd,kw", [
    (1, dict(kernel_size=3)), (1, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (1, dict(kernel_size=2, stride=2, dilation=2)),
    (2, dict(kernel_size=2)), (2, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (2, dict(kernel_size=(2, 3), stride=(2, 1), dilation=(1, 2))),
    (3, dict(kernel_size=2)), (3, dict(kernel_size=2, stride=2, padding=1, ceil_mode=True)),
])
def test_max_pool(nd, kw):
    shape = (2, 2) + (7, 6, 5)[:nd]
    name = f"max_pool{nd}d"  # looked up at call time: asc.ops.<name> is recorded only then
    gradcheck(lambda x: getattr(F, name)(x, **kw), (distinct(*shape),))
    gradcheck(lambda x: getattr(F, name)(x, return_indices=True, **kw)[0], (distinct(*shape),))


def test_max_pool_unbatched():
    gradcheck(lambda x: F.max_pool2d(x, 2, ceil_mode=True), (distinct(3, 5, 5),))


@pytest.mark.parametrize("nd,kw", [
    (1, dict(kernel_size=3)), (1, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (1, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    (2, dict(kernel_size=3, stride=2, padding=1)),
    (2, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (2, dict(kernel_size=(3, 2), stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    (2, dict(kernel_size=2, ceil_mode=True, divisor_override=3)),
    (3, dict(kernel_size=2)), (3, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
])
def test_avg_pool(nd, kw):
    shape = (2, 2) + (7, 6, 5)[:nd]
    name = f"avg_pool{nd}d"
    gradcheck(lambda x: getattr(F, name)(x, **kw), (R(*shape),))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_pools(nd):
    shape = (1, 2) + (7, 5, 4)[:nd]
    out = (3, 4, 2)[:nd]
    gradcheck(lambda x: getattr(F, f"adaptive_avg_pool{nd}d")(x, out), (R(*shape),))
    gradcheck(lambda x: getattr(F, f"adaptive_max_pool{nd}d")(x, out), (distinct(*shape),))
    gradcheck(lambda x: getattr(F, f"adaptive_max_pool{nd}d")(x, out, True)[0], (distinct(*shape),))


# -- convolutions --------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1), dict(stride=(1, 2, 1), padding=(1, 0, 1), dilation=(1, 1, 2)),
    dict(groups=2, padding="same"), dict(padding="valid", dilation=2),
])
def test_conv3d(kw):
    # small: gradcheck runs the forward twice per input element
    x, w, b = R(1, 2, 4, 3, 5), R(2, 2 // kw.get("groups", 1), 2, 2, 3), R(2)
    gradcheck(lambda x, w, b: F.conv3d(x, w, b, **kw), (x, w, b), atol=1e-4)


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1), dict(stride=2, padding=1, output_padding=1),
    dict(stride=2, groups=2, dilation=2), dict(stride=1, dilation=3, output_padding=2, padding=2),
])
def test_conv_transpose1d(kw):
    x, w, b = R(2, 4, 6), R(4, 6 // kw.get("groups", 1), 3), R(6)
    gradcheck(lambda x, w, b: F.conv_transpose1d(x, w, b, **kw), (x, w, b), atol=1e-4)


def test_conv_transpose1d_unbatched():
    gradcheck(lambda x, w: F.conv_transpose1d(x, w, stride=2), (R(3, 5), R(3, 2, 3)))


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1, output_padding=1), dict(stride=(2, 1, 1), groups=2, dilation=(1, 2, 1)),
])
def test_conv_transpose3d(kw):
    x, w, b = R(1, 2, 2, 3, 3), R(2, 2 // kw.get("groups", 1), 2, 2, 2), R(2)
    gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, **kw), (x, w, b), atol=1e-4)


def test_conv3d_unbatched():
    gradcheck(lambda x, w: F.conv3d(x, w, padding=1), (R(2, 4, 3, 4), R(3, 2, 2, 2, 2)), atol=1e-4)


# -- norms ---------------------------------------------------------------------------------------

def test_instance_norm():
    x, w, b = R(2, 3, 4, 5), R(3), R(3)
    gradcheck(lambda x, w, b: F.instance_norm(x, None, None, w, b), (x, w, b), atol=1e-4)
    gradcheck(lambda x: F.instance_norm(x), (R(2, 3, 7),), atol=1e-4)
    rm, rv = R(3), rng.uniform(0.5, 2.0, 3)
    gradcheck(lambda x, w: F.instance_norm(x, rm, rv, w, None, False), (x, w))


def test_rms_norm():
    x, w = R(3, 4, 5), R(4, 5)
    gradcheck(lambda x, w: F.rms_norm(x, (4, 5), w), (x, w), atol=1e-4)
    gradcheck(lambda x: F.rms_norm(x, 5, eps=1e-3), (x,), atol=1e-4)
    gradcheck(lambda x: F.rms_norm(x, [5]), (x,), atol=1e-4)


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_local_response_norm(size):
    gradcheck(lambda x: F.local_response_norm(x, size, alpha=0.3, beta=0.6, k=1.5), (R(2, 5, 3, 2),), atol=1e-4)


# -- pad -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,pad", [
    ("reflect", (2, 1)), ("reflect", (1, 2, 2, 0)), ("replicate", (3, 1, 0, 2)), ("circular", (2, 3, 1, 1)),
    ("constant", (1, 2, 0, 1)), ("constant", (-1, 2, 1, -2)),
])
def test_ops_pad(mode, pad):
    gradcheck(lambda x: F.pad(x, pad, mode=mode), (R(2, 3, 4, 5),))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_asc_pad(mode):
    gradcheck(lambda x: asc.pad(x, ((1, 2), (3, 0)), mode=mode), (R(4, 3),))
    gradcheck(lambda x: asc.pad(x, 2, mode=mode), (R(3, 4),))


def test_pad_mode_without_rule_is_refused():
    with pytest.raises(asc.errors.AscendNotImplementedError, match="asc.pad's gradient"):
        asc.grad(lambda x: asc.pad(x, 1, mode="mean").sum())(R(3))


# -- ops that differentiate through their pyasc bodies -------------------------------------------

@pytest.mark.parametrize("mode,shape,kw", [
    ("nearest", (1, 2, 5), dict(scale_factor=2)), ("nearest-exact", (1, 2, 4, 5), dict(size=(7, 3))),
    ("linear", (2, 2, 5), dict(size=8)), ("linear", (2, 2, 5), dict(size=3, align_corners=True)),
    ("bilinear", (1, 2, 4, 5), dict(scale_factor=1.5)),
    ("bilinear", (1, 2, 6, 6), dict(size=(3, 4), antialias=True)),
    ("bicubic", (1, 1, 4, 5), dict(size=(6, 7), align_corners=True)),
    ("trilinear", (1, 1, 3, 4, 3), dict(scale_factor=2)), ("area", (1, 2, 7, 6), dict(size=(3, 4))),
])
def test_interpolate(mode, shape, kw):
    gradcheck(lambda x: F.interpolate(x, mode=mode, **kw), (R(*shape),))


def test_losses_through_their_bodies():
    x, t = R(4, 3), R(4, 3)
    for red in ("mean", "sum", "none"):
        gradcheck(lambda x, t: F.smooth_l1_loss(x, t, reduction=red, beta=0.7), (x, t))
        gradcheck(lambda x, t: F.huber_loss(x, t, reduction=red, delta=0.8), (x, t))
        gradcheck(lambda x, t: F.soft_margin_loss(x, t, reduction=red), (x, t))
        gradcheck(lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction=red), (x, rng.uniform(0, 1, (4, 3))))
    p, q = rng.uniform(0.05, 0.95, (4, 3)), rng.uniform(0, 1, (4, 3))
    gradcheck(lambda p, q: F.binary_cross_entropy(p, q), (p, q))
    w, pw = asc.asarray(R(3)), asc.asarray(rng.uniform(0.5, 2, 3))
    gradcheck(lambda p: F.binary_cross_entropy(p, q, weight=w), (p,))
    gradcheck(lambda x: F.binary_cross_entropy_with_logits(x, q, pos_weight=pw), (x,))
    lp = np.log(rng.dirichlet(np.ones(3), 4))
    gradcheck(lambda x, t: F.kl_div(x, t, reduction="batchmean"), (lp, rng.dirichlet(np.ones(3), 4)))
    gradcheck(lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True), (lp, lp[::-1].copy()))
    gradcheck(lambda x: F.normalize(x, dim=1), (R(3, 4),))
    gradcheck(lambda x: F.nll_loss(F.log_softmax(x, dim=1), asc.asarray(np.array([0, 2, 1, 2]))), (x,))
    gradcheck(lambda x, t: F.l1_loss(x, t, reduction="sum"), (x, t))


def test_asarray_of_traced_keeps_the_gradient():
    g = asc.grad(lambda x: (asc.asarray(x, dtype=asc.float32) * 2.0).sum())(np.ones(3))
    np.testing.assert_allclose(g.numpy(), 2.0)
    assert str(g.dtype) == "float64"


# -- higher-order derivatives --------------------------------------------------------------------

def test_second_and_third_derivatives_elementwise():
    x = np.linspace(-1.5, 1.5, 7)
    d2 = asc.grad(lambda x: asc.grad(lambda y: asc.sin(y).sum())(x).sum())(x)
    np.testing.assert_allclose(d2.numpy(), -np.sin(x), rtol=1e-12, atol=1e-12)
    d3 = asc.grad(lambda x: asc.grad(lambda y: asc.grad(lambda z: (z ** 4).sum())(y).sum())(x).sum())(x)
    np.testing.assert_allclose(d3.numpy(), 24 * x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,f", [
    ("exp-mean-var", lambda y: (asc.exp(y) * y).mean() + y.var()),
    ("tanh", lambda y: asc.tanh(y).sum()),
    ("softmax", lambda y: (asc.ops.softmax(y, dim=1) ** 2).sum()),
    ("logsumexp-ish", lambda y: asc.log(asc.sum(asc.exp(y), axis=1)).sum()),
    ("layer_norm", lambda y: (asc.ops.layer_norm(y, (4,)) * asc.arange(4.0)).sum()),
])
def test_grad_of_grad_is_gradchecked(name, f):
    gradcheck(lambda x: asc.grad(f)(x), (R(3, 4),), atol=1e-4)


def test_grad_of_grad_matmul_with_a_closure_operand():
    w = R(5, 3)
    gradcheck(lambda x: asc.grad(lambda y: ((y @ w) ** 2).sum())(x), (R(2, 5),))
    # the outer trace differentiates the weight the inner function closes over
    gradcheck(lambda x, w: asc.grad(lambda y: asc.tanh(y @ w).sum())(x), (R(2, 5), w))


def test_hessian_vector_product_via_vjp():
    a = R(4, 4)
    a = a @ a.T

    def f(x):
        return 0.5 * (x @ (a @ x)) + asc.sum(asc.cos(x))

    x, v = R(4), R(4)
    _, vjp_fn = asc.vjp(lambda x: asc.grad(f)(x), x)
    (hv,) = vjp_fn(asc.asarray(v))
    hess = a - np.diag(np.cos(x))
    np.testing.assert_allclose(hv.numpy(), hess @ v, rtol=1e-10, atol=1e-10)


def test_host_side_rules_refuse_second_order():
    x = distinct(1, 1, 4, 4)
    with pytest.raises(asc.errors.AscendNotImplementedError, match="max pooling"):
        asc.grad(lambda x: asc.grad(lambda y: (F.max_pool2d(y, 2) ** 2).sum())(x).sum())(x)


@pytest.mark.parametrize("nd,p,kw", [
    (1, 2.0, dict(kernel_size=3)), (1, 3.0, dict(kernel_size=2, stride=1, ceil_mode=True)),
    (2, 2.0, dict(kernel_size=2)), (2, 1.5, dict(kernel_size=(2, 3), stride=2, ceil_mode=True)),
    (3, 2.0, dict(kernel_size=2, stride=1)),
])
def test_lp_pool(nd, p, kw):
    shape = (1, 2) + (5, 4, 3)[:nd]
    name = f"lp_pool{nd}d"
    gradcheck(lambda x: getattr(F, name)(x, p, **kw), (rng.uniform(0.5, 2.0, shape),))
