"""asc.ops.gelu_backward (torch's aten::gelu_backward): the native float32/float16/bfloat16 kernel
of src/nn/activation.cc and the float64 chain, against float64 references built from math.erfc /
math.exp / math.tanh (independent of pyasc's own math), the derivative asc.grad uses for
asc.ops.gelu, torch's gelu_backward where torch is installed, and a registered CustomGeLU whose
gradient calls it inside torch.autograd.

Bound (docs/nn.md): the derivative d = gelu'(x) is the sum of Phi(x) and x phi(x); its error is
stated in float32 ulps of the scale S = Phi(x) + |x| phi(x) (d itself crosses 0 near x = -0.7518,
where no relative bound exists): exact form <= 4 ulp(S), tanh form <= 4 + 4 |2v| ulp(S) (as the
forward, the float32 rounding of 2v is amplified by the exponential), then dy * d rounded once;
plus |dy| least denormals in the tail (tanh form: |dy| (1 + |x| (2v)') where exp(-|2v|) < FLT_MIN). Half
dtypes: the float32 result rounded once.
"""

import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
BF16 = ml_dtypes.bfloat16
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
C = 1.0 / math.sqrt(2.0 * math.pi)


def _ref(x, approximate="none"):
    """(d, S): float64 gelu'(x) and the error scale S (see the module doc)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        if approximate == "none":
            cdf = 0.5 * _erfc(-x / math.sqrt(2.0))
            pdf = np.exp(-0.5 * x * x) * C
            d, s = cdf + x * pdf, cdf + np.abs(x) * pdf
        else:
            v2 = 2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
            sg = 1.0 / (1.0 + np.exp(-v2))
            w = 2.0 * math.sqrt(2.0 / math.pi) * (1.0 + 3 * 0.044715 * x * x)
            t = x * sg * (1.0 - sg) * w
            d, s = sg + t, sg + np.abs(t)
        d = np.where(np.isinf(x), np.nan, d)  # torch's inf * 0
    return d, s


_REF_CACHE = {}


def _ref_cached(x, approximate):
    """_ref of the shared dense points, computed once per form (math.erfc per point is slow)."""
    key = (approximate, x.size)
    if key not in _REF_CACHE:
        _REF_CACHE[key] = _ref(x, approximate)
    return _REF_CACHE[key]


def _dense():
    x = np.linspace(-16.0, 16.0, 400001, dtype=np.float32)
    rng = np.random.default_rng(0)
    return np.concatenate([x, rng.standard_normal(100000).astype(np.float32),
                           rng.uniform(-1.0, 1.0, 50000).astype(np.float32), np.float32([-0.7518, -0.75, 12.5, -12.5,
                                                                                          14.49, -14.49, 14.5, -14.5])])


def _check(got, x, dy, approximate, bound, cached=False):
    d, s = _ref_cached(x, approximate) if cached else _ref(x, approximate)
    ref = np.asarray(dy, np.float64) * d
    scale = np.abs(np.asarray(dy, np.float64)) * s
    ulp = np.spacing(scale.astype(np.float32)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - ref)
    # d's error below FLT_MIN is one least denormal, which dy then scales
    lim = bound * ulp + 2.0 ** -149 * np.maximum(1.0, np.abs(np.asarray(dy, np.float64)))
    bad = ~(err <= lim)
    assert not bad.any(), (x[bad][:5], got[bad][:5], ref[bad][:5], (err / ulp)[bad][:5])
    return (err / np.maximum(ulp, 2.0 ** -149)).max()


@pytest.mark.parametrize("dy_kind", ["ones", "random"])
def test_exact_float32_bound(dy_kind):
    x = _dense()
    dy = np.ones_like(x) if dy_kind == "ones" else \
        np.random.default_rng(1).standard_normal(x.size).astype(np.float32) * 3
    got = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x)))
    assert got.dtype == np.float32 and got.shape == x.shape
    _check(got, x, dy, "none", 4.0, cached=True)


def test_exact_tail_and_zero_crossing():
    # the negative tail keeps relative accuracy (no 1 + erf cancellation): x phi(x) dominates
    t = np.float32([-3.0, -5.0, -8.0, -10.0, -12.0, -13.0])
    got = np.asarray(F.gelu_backward(asc.asarray(np.ones_like(t)), asc.asarray(t))).astype(np.float64)
    np.testing.assert_allclose(got, _ref(t)[0], rtol=4e-6)
    assert np.all(got < 0)
    # the zero of gelu' near -0.7518: the sign changes there
    z = np.float32([-0.76, -0.74])
    g = np.asarray(F.gelu_backward(asc.asarray(np.ones_like(z)), asc.asarray(z)))
    assert g[0] < 0 < g[1]


@pytest.mark.parametrize("dy_kind", ["ones", "random"])
def test_tanh_float32_bound(dy_kind):
    x = _dense()
    dy = np.ones_like(x) if dy_kind == "ones" else \
        np.random.default_rng(2).standard_normal(x.size).astype(np.float32)
    got = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x), approximate="tanh"))
    d, s = _ref_cached(x, "tanh")
    ref = dy.astype(np.float64) * d
    ulp = np.spacing((np.abs(dy.astype(np.float64)) * s).astype(np.float32)).astype(np.float64)
    v2 = np.abs(2.0 * math.sqrt(2.0 / math.pi) * (x.astype(np.float64) + 0.044715 * x.astype(np.float64) ** 3))
    err = np.abs(got.astype(np.float64) - ref)
    # where e = exp(-|2v|) is below FLT_MIN (|x| >~ 9.5) its denormal rounding is scaled by x (2v)'
    xw = np.abs(x.astype(np.float64)) * (1.6 + 0.22 * x.astype(np.float64) ** 2)
    lim = (4.0 + 4.0 * v2) * ulp + 2.0 ** -149 * (1 + xw) * np.maximum(1.0, np.abs(dy.astype(np.float64)))
    assert np.all(err <= lim), (x[err > lim][:5], ((err / ulp) / (4 + 4 * v2))[err > lim][:5])
    small = np.abs(x) <= 3
    assert (err[small] / ulp[small]).max() <= 16.0


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_special_values(approximate):
    x = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 20.0, -20.0, 1e20, -1e20, 3.4e38, -3.4e38, 1e-45, -1e-45])
    got = np.asarray(F.gelu_backward(asc.asarray(np.ones_like(x)), asc.asarray(x), approximate=approximate))
    assert got[0] == 0.5 and got[1] == 0.5
    assert np.isnan(got[2]) and np.isnan(got[3]) and np.isnan(got[4])  # torch's formulas: inf * 0
    np.testing.assert_array_equal(got[5:11:2], 1.0)
    assert np.all(got[6:11:2] == 0.0)
    if approximate == "none":  # -0: x phi(x) < 0 underflowed; the tanh form gives torch's +0 (s + t, s = +0)
        assert np.all(np.signbit(got[6:11:2]))
    np.testing.assert_allclose(got[11:], 0.5, rtol=1e-6)
    # dy's specials propagate: NaN dy -> NaN, inf dy * nonzero -> inf
    dy = np.float32([np.nan, np.inf, -np.inf, 0.0])
    g = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(np.float32([1.0, 1.0, 1.0, 1.0])),
                                   approximate=approximate))
    assert np.isnan(g[0]) and g[1] == np.inf and g[2] == -np.inf and g[3] == 0.0


@pytest.mark.parametrize("dt", [np.float16, BF16])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_half_dtypes_round_once(dt, approximate):
    x = np.linspace(-12.0, 12.0, 20001).astype(dt)
    dy = np.random.default_rng(3).standard_normal(x.size).astype(dt)
    got = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x), approximate=approximate))
    assert got.dtype == np.dtype(dt)
    # the float32 kernel on the same (exactly representable) values, rounded once to dt
    f32 = np.asarray(F.gelu_backward(asc.asarray(dy.astype(np.float32)), asc.asarray(x.astype(np.float32)),
                                     approximate=approximate))
    np.testing.assert_array_equal(got.view(np.uint16), f32.astype(dt).view(np.uint16))
    d, s = _ref(x.astype(np.float64), approximate)
    ref = dy.astype(np.float64) * d
    # one ulp of dt of the scale (plus the float32 part, far below it)
    ulp = np.spacing(np.abs(dy.astype(np.float64) * s).astype(np.float32)).astype(np.float64) * \
        (2.0 ** 13 if dt is np.float16 else 2.0 ** 16)
    tiny = 2.0 ** -24 if dt is np.float16 else 2.0 ** -133
    assert np.all(np.abs(got.astype(np.float64) - ref) <= ulp + tiny)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_float64_chain(approximate):
    x = np.concatenate([np.linspace(-30, 30, 6001), [0.0, -0.0]])
    dy = np.random.default_rng(4).standard_normal(x.size)
    got = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x), approximate))
    assert got.dtype == np.float64
    d, s = _ref(x, approximate)
    # the chain's float64 device ops; in the tanh form the rounding of 2v is amplified by |2v|, as
    # in float32
    v2 = np.abs(2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)) if approximate == "tanh" else 0.0
    assert np.all(np.abs(got - dy * d) <= (64 + 64 * v2) * 2.0 ** -52 * np.abs(dy) * s + 1e-300)


@pytest.mark.parametrize("dt", [np.float32, np.float16, BF16])
def test_views_empty_and_0d(dt):
    rng = np.random.default_rng(5)
    base = rng.standard_normal((37, 65)).astype(dt)
    gb = rng.standard_normal((65, 37)).astype(dt)
    x, dy = base[:, ::2], gb.T[:, ::2]  # non-contiguous, different strides
    got = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x)))
    want = np.asarray(F.gelu_backward(asc.asarray(np.ascontiguousarray(dy)), asc.asarray(np.ascontiguousarray(x))))
    np.testing.assert_array_equal(got.view(np.uint16 if dt != np.float32 else np.uint32),
                                  want.view(np.uint16 if dt != np.float32 else np.uint32))
    e = np.asarray(F.gelu_backward(asc.asarray(np.zeros((0, 3), dt)), asc.asarray(np.zeros((0, 3), dt))))
    assert e.shape == (0, 3) and e.dtype == np.dtype(dt)
    z = np.asarray(F.gelu_backward(asc.asarray(np.array(2.0, dt)), asc.asarray(np.array(0.0, dt))))
    assert z.shape == () and float(z) == 1.0


def test_lengths_and_parallel_split():
    # every tail length around the vector widths, and a size split over the workers
    rng = np.random.default_rng(6)
    for n in list(range(1, 70)) + [1 << 20, (1 << 20) + 13]:
        x = rng.standard_normal(n).astype(np.float32) * 4
        dy = rng.standard_normal(n).astype(np.float32)
        got = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x)))
        _check(got, x, dy, "none", 4.0)


def test_errors():
    x = asc.asarray(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="gelu_backward"):
        F.gelu_backward(x, asc.asarray(np.ones(4, np.int32)))
    with pytest.raises(TypeError, match="gelu_backward"):
        F.gelu_backward(asc.asarray(np.ones(4, np.int32)), x)
    with pytest.raises(ValueError, match="approximate"):
        F.gelu_backward(x, x, approximate="fast")
    with pytest.raises(ValueError):
        F.gelu_backward(asc.asarray(np.ones(3, np.float32)), x)  # shapes that do not broadcast
    # the native entry refuses what the wrapper would route to the chain
    with pytest.raises(TypeError, match=r"gelu_backward.*one dtype"):
        asc._C.nn.gelu_backward(asc.asarray(np.ones(4, np.float16)), x)
    with pytest.raises(ValueError, match=r"gelu_backward.*one shape"):
        asc._C.nn.gelu_backward(asc.asarray(np.ones((4, 1), np.float32)), x)
    with pytest.raises(TypeError, match=r"gelu_backward.*float64"):
        asc._C.nn.gelu_backward(asc.asarray(np.ones(4)), asc.asarray(np.ones(4)))
    # broadcasting grad_output / mixed dtypes: the chain, as torch's TensorIterator broadcasts
    g = np.asarray(F.gelu_backward(asc.asarray(np.float32([2.0])), x))
    np.testing.assert_allclose(g, 2 * _ref(np.ones(4))[0], rtol=1e-6)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_grad_of_builtin_gelu_uses_it(approximate):
    x = np.linspace(-6, 6, 1001).astype(np.float32)
    g = np.asarray(asc.grad(lambda v: F.gelu(v, approximate=approximate).sum())(asc.asarray(x)))
    want = np.asarray(F.gelu_backward(asc.asarray(np.ones_like(x)), asc.asarray(x), approximate))
    np.testing.assert_array_equal(g, want)
    # float64: the chain, checked by finite differences
    asc.testing.gradcheck(lambda v: F.gelu(v, approximate=approximate),
                          (asc.asarray(np.linspace(-3, 3, 13)),))


def test_matches_torch_gelu_backward():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(100000) * 3, np.linspace(-15, 15, 3001),
                        [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    dy = rng.standard_normal(x.size).astype(np.float32)
    for approximate in ("none", "tanh"):
        ours = np.asarray(F.gelu_backward(asc.asarray(dy), asc.asarray(x), approximate))
        theirs = torch.ops.aten.gelu_backward(torch.from_numpy(dy), torch.from_numpy(x),
                                              approximate=approximate).numpy()
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        d, s = _ref(x, approximate)
        ok = np.isfinite(d)
        # torch's own error: 0.5 (1 + erf) loses absolute 2^-24 near cdf = 0 (x << 0), and tanh's
        # |2v|-amplified rounding; ours is within the bounds of the tests above
        g = np.abs(dy[ok].astype(np.float64))
        v2 = np.abs(2.0 * math.sqrt(2.0 / math.pi) * (x[ok] + 0.044715 * x[ok].astype(np.float64) ** 3))
        lim = (8 + 8 * v2) * 2.0 ** -23 * g * s[ok] + 32 * 2.0 ** -24 * g + 1e-37
        diff = np.abs(ours[ok].astype(np.float64) - theirs[ok])
        assert np.all(diff <= lim), (x[ok][diff > lim][:5], (diff / lim).max())


def test_registered_gelu_gradient_in_torch_autograd():
    torch = pytest.importorskip("torch")
    name = "CustomGeLU_gelu_backward_test"

    @asc.register_op(name, replace=True)
    def fwd(ctx, x):
        ctx.save_for_backward(x)
        return x * 0.5 * (1.0 + asc.ops.erf(x / math.sqrt(2.0)))

    @asc.register_grad(name)
    def bwd(ctx, g):
        (x,) = ctx.saved_tensors
        return asc.ops.gelu_backward(g, x)

    gen = torch.Generator().manual_seed(0)
    for shape in ((4096,), (33, 65)):
        x = torch.randn(shape, generator=gen, requires_grad=True)
        gy = torch.randn(shape, generator=gen)
        asc.torch.op(name)(x).backward(gy)
        ours = x.grad.clone()
        x.grad = None
        torch.nn.functional.gelu(x).backward(gy)
        torch.testing.assert_close(ours, x.grad, rtol=2e-6, atol=2e-6)
    # a transposed (non-contiguous) torch input
    xt = torch.randn(65, 33, generator=gen).t().requires_grad_(True)
    gy = torch.randn(33, 65, generator=gen)
    asc.torch.op(name)(xt).backward(gy)
    ours = xt.grad.clone()
    xt.grad = None
    torch.nn.functional.gelu(xt).backward(gy)
    torch.testing.assert_close(ours, xt.grad, rtol=2e-6, atol=2e-6)
