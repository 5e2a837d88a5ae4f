"""pyasc.random: reproducibility (seeds, core counts), distributions, ranges, dtypes, errors."""

import hashlib
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import pyasc as asc
from pyasc import random as ar


def ks_statistic(sample, cdf):
    """Kolmogorov-Smirnov D of a 1-D sample against a vectorised CDF."""
    x = np.sort(np.asarray(sample, dtype=np.float64))
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


# D > 1.95 / sqrt(n) has probability < 0.1 % for a correct sampler (fixed seeds: deterministic).
def ks_ok(sample, cdf):
    return ks_statistic(sample, cdf) < 1.95 / math.sqrt(np.asarray(sample).size)


normal_cdf = np.vectorize(lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2))))


# ------------------------------------------------------------------ reproducibility


def _draws(seed):
    g = ar.default_rng(seed)
    return [g.random(70001), g.standard_normal((300, 301)), g.integers(-5, 1 << 40, 100003),
            g.random(65536 * 3 + 5, dtype=np.float32), g.exponential(2.0, 80000), g.permutation(1000),
            g.integers(0, 7, 90000, dtype=np.uint8), g.uniform(-3, 3, 5)]


def _digest(arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a)).tobytes())
    return h.hexdigest()


def test_same_seed_same_values_different_seed_different():
    a, b, c = _draws(1234), _draws(1234), _draws(1235)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert _digest(a) != _digest(c)
    # successive draws of one generator differ
    g = ar.default_rng(7)
    assert not np.array_equal(np.asarray(g.random(100)), np.asarray(g.random(100)))


@pytest.mark.parametrize("cores", ["1", "3"])
def test_independent_of_core_count(cores):
    """The same seed gives the same bits with 1 or 3 device cores (other block splits)."""
    code = ("import sys; sys.path.insert(0, %r); import test_random as t; print(t._digest(t._draws(99)))"
            % os.path.dirname(__file__))
    env = dict(os.environ, ASC_NUM_CORES=cores)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == _digest(_draws(99))


def test_seed_forms_and_errors():
    np.testing.assert_array_equal(np.asarray(ar.default_rng([1, 2]).random(5)),
                                  np.asarray(ar.default_rng((1, 2)).random(5)))
    assert not np.array_equal(np.asarray(ar.default_rng([1, 2]).random(5)),
                              np.asarray(ar.default_rng([2, 1]).random(5)))
    assert not np.array_equal(np.asarray(ar.default_rng(2 ** 70).random(5)), np.asarray(ar.default_rng(0).random(5)))
    g = ar.default_rng(3)
    assert ar.default_rng(g) is g
    a, b = ar.default_rng(), ar.default_rng()  # OS entropy
    assert not np.array_equal(np.asarray(a.random(8)), np.asarray(b.random(8)))
    with pytest.raises(ValueError):
        ar.default_rng(-1)
    with pytest.raises(TypeError):
        ar.default_rng(1.5)


def test_state_and_spawn():
    g = ar.default_rng(5)
    g.random(10)
    st = g.get_state()
    x = np.asarray(g.normal(size=20))
    g.set_state(st)
    np.testing.assert_array_equal(np.asarray(g.normal(size=20)), x)
    kids = ar.default_rng(5).spawn(3)
    vals = [np.asarray(k.random(50)) for k in kids]
    assert len({v.tobytes() for v in vals}) == 3
    again = [np.asarray(k.random(50)) for k in ar.default_rng(5).spawn(3)]
    for v, w in zip(vals, again):
        np.testing.assert_array_equal(v, w)
    parent = np.asarray(ar.default_rng(5).random(50))
    assert all(not np.array_equal(parent, v) for v in vals)
    assert ar.default_rng(1).spawn(0) == []


def test_module_functions_seeded():
    ar.seed(42)
    a = [np.asarray(ar.rand(3, 4)), np.asarray(ar.randn(5)), np.asarray(ar.randint(0, 10, 6)),
         np.asarray(ar.integers(5, size=4)), np.asarray(ar.random((2, 2))), np.asarray(ar.random_sample(3)),
         np.asarray(ar.uniform(1, 2, 3)), np.asarray(ar.normal(0, 2, 3)), np.asarray(ar.choice(10, 4)),
         np.asarray(ar.permutation(6)), ar.bytes(7)]
    state = ar.get_state()
    after = np.asarray(ar.rand(4))
    ar.seed(42)
    b = [np.asarray(ar.rand(3, 4)), np.asarray(ar.randn(5)), np.asarray(ar.randint(0, 10, 6)),
         np.asarray(ar.integers(5, size=4)), np.asarray(ar.random((2, 2))), np.asarray(ar.random_sample(3)),
         np.asarray(ar.uniform(1, 2, 3)), np.asarray(ar.normal(0, 2, 3)), np.asarray(ar.choice(10, 4)),
         np.asarray(ar.permutation(6)), ar.bytes(7)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    ar.set_state(state)
    np.testing.assert_array_equal(np.asarray(ar.rand(4)), after)
    assert isinstance(ar.rand(), float) and 0 <= ar.rand() < 1
    assert isinstance(ar.randn(), float)
    assert asc.random is ar
    x = asc.arange(10)
    ar.shuffle(x)
    np.testing.assert_array_equal(np.sort(np.asarray(x)), np.arange(10))


# ------------------------------------------------------------------ floats


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random_uniform_distribution(dtype):
    g = ar.default_rng(11)
    x = g.random(200000, dtype=dtype)
    assert isinstance(x, asc.ndarray) and x.dtype == dtype and x.shape == (200000,)
    a = np.asarray(x)
    assert a.min() >= 0 and a.max() < 1
    assert abs(a.mean() - 0.5) < 5 * math.sqrt(1 / 12 / a.size)
    assert abs(a.var() - 1 / 12) < 0.002
    assert ks_ok(a, lambda v: v)
    u = np.asarray(g.uniform(-2.0, 6.0, (400, 500)))
    assert u.shape == (400, 500) and u.dtype == np.float64 and u.min() >= -2 and u.max() < 6
    assert ks_ok(u.ravel()[:100000], lambda v: (v + 2) / 8)


def test_uniform_array_parameters_broadcast():
    g = ar.default_rng(12)
    lo = asc.asarray(np.array([0.0, 10.0, 100.0]))
    r = np.asarray(g.uniform(lo, 101.0, size=(1000, 3)))
    assert r.shape == (1000, 3)
    assert (r >= np.array([0, 10, 100])).all() and (r < 101).all()
    r2 = g.uniform(np.zeros((2, 1)), np.ones(3))
    assert r2.shape == (2, 3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_normal_distribution(dtype):
    g = ar.default_rng(13)
    z = np.asarray(g.standard_normal(200001, dtype=dtype))
    assert z.dtype == dtype
    assert abs(z.mean()) < 0.01 and abs(z.var() - 1) < 0.01
    assert ks_ok(z[:50000], normal_cdf)
    n = np.asarray(g.normal(3.0, 0.5, 100000))
    assert abs(n.mean() - 3) < 0.01 and abs(n.std() - 0.5) < 0.01
    m = np.asarray(g.normal(asc.asarray(np.array([0.0, 100.0])), 1.0, size=(50000, 2)))
    assert abs(m[:, 1].mean() - 100) < 0.05


def test_exponential_distribution():
    g = ar.default_rng(14)
    e = np.asarray(g.exponential(2.0, 100000))
    assert e.min() >= 0 and abs(e.mean() - 2) < 0.03
    assert ks_ok(e[:50000], lambda v: 1 - np.exp(-v / 2))
    s = np.asarray(g.standard_exponential((300, 4), dtype=np.float32))
    assert s.dtype == np.float32 and s.shape == (300, 4)


def test_float_sizes_and_out():
    g = ar.default_rng(15)
    assert isinstance(g.random(), float)
    assert g.random(0).shape == (0,)
    assert g.random((2, 0, 3)).shape == (2, 0, 3)
    assert g.normal(size=()).shape == ()
    assert g.random(np.int64(4)).shape == (4,)
    out = asc.empty((3, 3), np.float64)
    assert g.random(out=out) is out
    assert 0 <= np.asarray(out).min() and np.asarray(out).max() < 1
    with pytest.raises(ValueError):
        g.random(-1)
    with pytest.raises(ValueError):
        g.normal(0, -1.0, 3)
    with pytest.raises(ValueError):
        g.exponential(-1.0)
    with pytest.raises(TypeError):
        g.random(3, dtype=np.int32)
    with pytest.raises(TypeError):
        g.standard_normal(3, dtype=np.float16)


# ------------------------------------------------------------------ integers


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                                   np.bool_])
def test_integers_dtype_and_full_range(dtype):
    g = ar.default_rng(16)
    if dtype is np.bool_:
        lo, hi = 0, 1
    else:
        info = np.iinfo(dtype)
        lo, hi = int(info.min), int(info.max)
    x = np.asarray(g.integers(lo, hi, 50000, dtype=dtype, endpoint=True))
    assert x.dtype == dtype
    assert int(x.min()) >= lo and int(x.max()) <= hi
    if np.dtype(dtype).itemsize == 1:
        assert int(x.min()) == lo and int(x.max()) == hi  # all 256 (or 2) values appear
    mid = (lo + hi) / 2
    assert abs(x.astype(np.float64).mean() - mid) < 0.02 * (hi - lo + 1)


def test_integers_uniformity_and_ranges():
    g = ar.default_rng(17)
    x = np.asarray(g.integers(3, 13, 100000))
    assert x.dtype == np.int64 and x.min() == 3 and x.max() == 12
    counts = np.bincount(x - 3)
    chi2 = ((counts - 10000) ** 2 / 10000).sum()
    assert chi2 < 27.9  # 9 degrees of freedom, 0.1 % level
    y = np.asarray(g.integers(-(2 ** 40), 2 ** 40, 100000))
    assert y.min() >= -(2 ** 40) and y.max() < 2 ** 40 and abs(y.mean()) < 2 ** 40 * 0.02
    assert np.asarray(g.integers(5, 6, 10)).tolist() == [5] * 10
    assert np.asarray(g.integers(5, 5, 10, endpoint=True)).tolist() == [5] * 10
    assert isinstance(g.integers(10), np.int64)
    assert g.integers(0, 10, (2, 3)).shape == (2, 3)
    assert g.integers(0, 10, 0).shape == (0,)
    z = np.asarray(g.integers(0, 2 ** 64, 1000, dtype=np.uint64))
    assert z.max() > 2 ** 62


def test_integers_errors():
    g = ar.default_rng(18)
    with pytest.raises(ValueError):
        g.integers(5, 5)
    with pytest.raises(ValueError):
        g.integers(5, 4, endpoint=True)
    with pytest.raises(ValueError):
        g.integers(0, 300, dtype=np.uint8)
    with pytest.raises(ValueError):
        g.integers(-1, 3, dtype=np.uint8)
    with pytest.raises(ValueError):
        g.integers(0, 3, size=(-2,))
    with pytest.raises(TypeError):
        g.integers(0, 3, dtype=np.float64)
    with pytest.raises(ValueError):
        ar.randint(3, 3)


# ------------------------------------------------------------------ permutations, choice, bytes


def test_permutation_and_shuffle():
    g = ar.default_rng(19)
    p = np.asarray(g.permutation(10000))
    np.testing.assert_array_equal(np.sort(p), np.arange(10000))
    assert not np.array_equal(p, np.arange(10000))
    a = np.arange(24.0).reshape(6, 4)
    q = np.asarray(g.permutation(asc.asarray(a)))
    np.testing.assert_array_equal(np.sort(q[:, 0]), a[:, 0])
    np.testing.assert_array_equal(q[:, 1] - q[:, 0], np.ones(6))  # rows move whole
    r = np.asarray(g.permutation(asc.asarray(a), axis=1))
    np.testing.assert_array_equal(np.sort(r, axis=1), a)
    x = asc.array(a)
    g.shuffle(x)
    np.testing.assert_array_equal(np.sort(np.asarray(x)[:, 0]), a[:, 0])
    x2 = asc.array(a)
    g.shuffle(x2, axis=1)
    np.testing.assert_array_equal(np.sort(np.asarray(x2), axis=1), a)
    assert g.permutation(0).shape == (0,)
    # positions are uniform: element 0 lands everywhere
    firsts = np.array([np.asarray(g.permutation(5))[0] for _ in range(2000)])
    assert set(firsts.tolist()) == set(range(5)) and np.bincount(firsts).min() > 300
    with pytest.raises(IndexError):
        g.permutation(asc.asarray(np.float64(1.0)))
    with pytest.raises(TypeError):
        g.shuffle(np.arange(3))


def test_choice():
    g = ar.default_rng(20)
    c = np.asarray(g.choice(5, 100000))
    assert c.min() == 0 and c.max() == 4 and np.bincount(c).min() > 19000
    p = [0.1, 0.0, 0.6, 0.3]
    w = np.asarray(g.choice(4, 100000, p=p))
    freq = np.bincount(w, minlength=4) / 100000
    np.testing.assert_allclose(freq, p, atol=0.01)
    assert freq[1] == 0
    s = np.asarray(g.choice(10, 10, replace=False))
    np.testing.assert_array_equal(np.sort(s), np.arange(10))
    s2 = np.asarray(g.choice(4, 3, replace=False, p=[0.4, 0.3, 0.2, 0.1]))
    assert len(set(s2.tolist())) == 3
    # without replacement the first pick follows p
    first = np.array([np.asarray(g.choice(3, 2, replace=False, p=[0.7, 0.2, 0.1]))[0] for _ in range(3000)])
    np.testing.assert_allclose(np.bincount(first, minlength=3) / 3000, [0.7, 0.2, 0.1], atol=0.03)
    arr = asc.asarray(np.array([10.0, 20.0, 30.0]))
    v = np.asarray(g.choice(arr, (4, 5)))
    assert v.shape == (4, 5) and set(v.ravel().tolist()) <= {10.0, 20.0, 30.0}
    m = np.asarray(g.choice(asc.asarray(np.arange(12).reshape(4, 3)), 6))
    assert m.shape == (6, 3) and ((m[:, 1] - m[:, 0]) == 1).all()
    assert isinstance(g.choice(5), np.int64)
    assert g.choice(arr) in (10.0, 20.0, 30.0)
    assert g.choice(5, 0).shape == (0,)
    assert g.choice(0, 0).shape == (0,)


@pytest.mark.parametrize("kwargs", [dict(p=[0.5, 0.6]), dict(p=[-0.5, 1.5]), dict(p=[1.0]), dict(p=[[0.5, 0.5]]),
                                    dict(p=[np.nan, 1.0]), dict(size=3, replace=False),
                                    dict(size=2, replace=False, p=[1.0, 0.0])])
def test_choice_errors(kwargs):
    with pytest.raises(ValueError):
        ar.default_rng(0).choice(2, **kwargs)


def test_choice_empty_population_and_bytes():
    g = ar.default_rng(21)
    with pytest.raises(ValueError):
        g.choice(0, 3)
    with pytest.raises(ValueError):
        g.choice(-1)
    b = g.bytes(13)
    assert isinstance(b, bytes) and len(b) == 13
    assert g.bytes(0) == b""
    big = np.frombuffer(g.bytes(100000), np.uint8)
    assert abs(big.mean() - 127.5) < 2
    assert ar.default_rng(21).bytes(13) == b
