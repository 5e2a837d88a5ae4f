"""The native gelu kernel (src/nn/activation.cc) behind asc.ops.gelu for float32 / float16 /
bfloat16, against float64 references built from math.erfc / exp (no mpmath): dense points over
the whole range (the negative tail's relative accuracy included), special values, every
float16 and bfloat16 bit pattern, empty and non-contiguous inputs, the parallel path, and the
float64 chain. Bounds (docs/nn.md): exact form <= 6 ulp of the float32 result (for |result|
>= FLT_MIN); tanh form <= 4 ulp + 4 |2v| ulp (2v = the sigmoid argument, whose float32 rounding is
amplified by the exponential in the negative tail); half dtypes: the float32 result rounded
once (<= 1 ulp of the half dtype)."""

import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

F = asc.ops
BF16 = ml_dtypes.bfloat16
TINY = float(np.finfo(np.float32).tiny)
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _ref(x, approximate):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        if approximate == "none":
            r = 0.5 * x * _erfc(-x / math.sqrt(2.0))
        else:
            v2 = 2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
            r = x / (1.0 + np.exp(-v2))
        r = np.where(np.isneginf(x), np.nan, r)
        r = np.where(np.isposinf(x), np.inf, r)
    return r


def _ulp_err(got, ref):
    """|got - ref| in float32 ulps of ref, for finite refs of at least FLT_MIN."""
    ok = np.isfinite(ref) & (np.abs(ref) >= TINY)
    ulp = np.spacing(np.abs(ref[ok]).astype(np.float32)).astype(np.float64)
    return np.abs(got[ok].astype(np.float64) - ref[ok]) / ulp, ok


def _tanh_bound(x):
    # the float32 rounding of the sigmoid argument 2v (~1.5 ulp relative) is multiplied by
    # |2v| through the exponential in the negative tail
    x = np.asarray(x, dtype=np.float64)
    return 4.0 + 4.0 * np.abs(2.0 * math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))


def _dense():
    x = np.linspace(-16.0, 16.0, 400001, dtype=np.float32)
    rng = np.random.default_rng(0)
    return np.concatenate([x, rng.standard_normal(100000).astype(np.float32),
                           rng.uniform(-0.8, 0.8, 50000).astype(np.float32)])


def test_exact_dense_ulp_bound():
    x = _dense()
    got = np.asarray(F.gelu(asc.asarray(x)))
    assert got.dtype == np.float32
    ref = _ref(x, "none")
    e, ok = _ulp_err(got, ref)
    assert e.max() <= 6.0, (e.max(), x[ok][np.argmax(e)])
    # the tail below FLT_MIN: absolute error within a few denormal steps
    small = np.isfinite(ref) & ~ok
    assert np.all(np.abs(got[small] - ref[small]) <= 4 * 2.0 ** -149)
    # negative tail keeps relative accuracy (the erf form would give 0 or garbage here)
    t = np.float32([-5.0, -8.0, -10.0, -12.0, -13.0])
    gt, rt = np.asarray(F.gelu(asc.asarray(t))).astype(np.float64), _ref(t, "none")
    np.testing.assert_allclose(gt, rt, rtol=1e-6)


def test_tanh_dense_bound():
    x = _dense()
    got = np.asarray(F.gelu(asc.asarray(x), approximate="tanh"))
    ref = _ref(x, "tanh")
    e, ok = _ulp_err(got, ref)
    assert np.all(e <= _tanh_bound(x[ok])), (e / _tanh_bound(x[ok])).max()
    assert e[np.abs(x[ok]) <= 3].max() <= 16.0


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_special_values(approximate):
    x = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 3.4e38, -3.4e38, 1e-40, -1e-40, 1e-30])
    got = np.asarray(F.gelu(asc.asarray(x), approximate=approximate))
    assert got[0] == 0 and not np.signbit(got[0])
    assert got[1] == 0 and np.signbit(got[1])
    assert got[2] == np.inf
    assert np.isnan(got[3]) and np.isnan(got[4])
    assert got[5] == np.float32(1e30) and got[7] == np.float32(3.4e38)
    assert got[6] == 0 and got[8] == 0
    # gelu(x) ~ x / 2 near 0
    np.testing.assert_allclose(got[9:].astype(np.float64), x[9:].astype(np.float64) / 2, rtol=1e-6, atol=2e-45)


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_every_half_pattern(dt, approximate):
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = bits.view(dt)
    got = np.asarray(F.gelu(asc.asarray(x), approximate=approximate))
    assert got.dtype == np.dtype(dt)
    with np.errstate(all="ignore"):
        ref = _ref(x.astype(np.float64), approximate)
    g = got.astype(np.float64)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(g), nan)
    fin = ~nan
    # the float32 result rounded once to the half dtype: within one half ulp of ref (plus the
    # float32 error), i.e. at most 1 ulp of the half dtype
    r16 = ref[fin].astype(dt)
    with np.errstate(all="ignore"):
        sp = np.abs(np.spacing(np.abs(r16).astype(dt)).astype(np.float64))
    inf = np.isinf(ref[fin])
    assert np.array_equal(g[fin][inf], ref[fin][inf])
    err = np.abs(g[fin][~inf] - ref[fin][~inf])
    assert np.all(err <= sp[~inf] * 1.0 + 1e-45), np.max(err / sp[~inf])


def test_empty_noncontiguous_parallel_shapes():
    e = F.gelu(asc.asarray(np.zeros((0, 3), np.float32)))
    assert np.asarray(e).shape == (0, 3)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((300, 257)) * 4).astype(np.float32)
    for view in (x[::2, 1:200:3], x.T):
        got = np.asarray(F.gelu(asc.asarray(x)[::2, 1:200:3] if view.shape != x.T.shape else asc.asarray(x).T))
        assert got.shape == view.shape
        e, _ = _ulp_err(got, _ref(view, "none"))
        assert e.max() <= 6.0
    # lengths around the vector widths and the 64-element chunks of the parallel split
    for n in (1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4097, 100003):
        xs = (rng.standard_normal(n) * 5).astype(np.float32)
        for approximate in ("none", "tanh"):
            got = np.asarray(F.gelu(asc.asarray(xs), approximate=approximate))
            e, ok = _ulp_err(got, _ref(xs, approximate))
            bound = 6.0 if approximate == "none" else _tanh_bound(xs[ok])
            assert np.all(e <= bound), (n, approximate, e.max())


def test_float64_chain_and_errors():
    x = np.linspace(-10, 10, 2001)
    got = np.asarray(F.gelu(asc.asarray(x)))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, _ref(x, "none"), rtol=1e-13, atol=1e-300)
    with pytest.raises(asc.errors.AscendError, match="gelu"):
        F.gelu(asc.asarray(np.arange(4, dtype=np.int32)))
    with pytest.raises(asc.errors.AscendError, match="approximate"):
        F.gelu(asc.asarray(x), approximate="fast")


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_specials_mixed_into_vectors(approximate):
    # a NaN / inf / |x| >= 12.5 lane sends its whole vector down the second path: the ordinary
    # lanes beside it (every lane position) must keep the bound
    rng = np.random.default_rng(3)
    specials = np.float32([np.nan, np.inf, -np.inf, 13.0, -13.0, -12.5, -14.0, -14.6, -20.0, 1e30])
    base = (rng.standard_normal(16 * 64) * 3).astype(np.float32)
    x = base.copy()
    pos = np.arange(0, x.size, 7)
    x[pos] = specials[np.arange(pos.size) % specials.size]
    got = np.asarray(F.gelu(asc.asarray(x), approximate=approximate))
    ref = _ref(x, approximate)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(got), nan)
    e, ok = _ulp_err(got, ref)
    bound = 6.0 if approximate == "none" else _tanh_bound(x[ok])
    assert np.all(e <= bound), e.max()
    small = np.isfinite(ref) & ~ok
    assert np.all(np.abs(got[small] - ref[small]) <= 4 * 2.0 ** -149)
    assert np.all(got[np.isposinf(x)] == np.inf)


def test_large_streamed_output():
    # >= 4 MiB of float32 output takes the streaming-store path, split over the core workers
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((1 << 20) + 37) * 4).astype(np.float32)
    x[::9973] = -13.5
    x[5::100003] = np.nan
    for approximate in ("none", "tanh"):
        got = np.asarray(F.gelu(asc.asarray(x), approximate=approximate))
        ref = _ref(x, approximate)
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        e, ok = _ulp_err(got, ref)
        bound = 6.0 if approximate == "none" else _tanh_bound(x[ok])
        assert np.all(e <= bound), (approximate, e.max())
    # a view whose output is contiguous but whose input is not
    xv = asc.asarray(x)[1:]
    got = np.asarray(F.gelu(xv))
    e, _ = _ulp_err(got, _ref(x[1:], "none"))
    assert e.max() <= 6.0
