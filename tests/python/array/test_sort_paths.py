"""The fast paths of sort/unique (src/ops/sort.cc, sets.cc) against NumPy's stable sort:
the raw-key float sort and its fallbacks (NaN payloads, negative NaN, both zero signs),
the fused input copy (contiguous vs strided input), chunk/merge boundaries for 1, 2 and
3 cores, and the parallel unique passes."""

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import assert_same
from test_sorting import bits, stable_sort, stable_argsort

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INTS = [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
# Around the chunk size (2^15), two chunks (2^16, the parallel threshold) and more.
SIZES = [32767, 32768, 65535, 65536, 65537, 98305, 131075, 300001]


def _nan_with_payload(dtype, payload, negative=False):
    dt = np.dtype(dtype)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    exp_bits = {np.dtype(np.float16): 0x7C00, BF16: 0x7F80, np.dtype(np.float32): 0x7F800000,
                np.dtype(np.float64): 0x7FF0000000000000}[dt]
    sign = 1 << (8 * dt.itemsize - 1)
    return np.array([exp_bits | (exp_bits >> 1 & ~exp_bits) | payload | (sign if negative else 0)], u).view(dt)[0]


def _floats(dtype, n, seed, case):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 100).astype(dtype)
    pos = rng.permutation(n)
    if case == "plain":
        return a
    if case == "inf_nan":  # one NaN bit pattern, infinities, one zero sign
        a[pos[:50]] = np.nan
        a[pos[50:60]] = np.inf
        a[pos[60:70]] = -np.inf
        a[pos[70:90]] = 0.0
        return a
    if case == "neg_zero_only":
        a[pos[:40]] = -0.0
        a[pos[40:45]] = np.inf
        return a
    if case == "both_zeros":  # -0.0 early, +0.0 late: in different chunks
        a[: n // 10] = np.where(np.arange(n // 10) % 3 == 0, -0.0, a[: n // 10])
        a[-(n // 10):] = np.where(np.arange(n // 10) % 5 == 0, 0.0, a[-(n // 10):])
        a[pos[:7]] = np.nan
        return a
    if case == "nan_payloads":
        k = min(30, n // 3)
        a[pos[:k]] = np.nan
        a[pos[k]] = _nan_with_payload(dtype, 1)
        a[pos[k + 1]] = _nan_with_payload(dtype, 3)
        return a
    if case == "negative_nan":
        a[pos[:30]] = _nan_with_payload(dtype, 0, negative=True)
        a[pos[30:40]] = -np.inf
        return a
    raise AssertionError(case)


CASES = ["plain", "inf_nan", "neg_zero_only", "both_zeros", "nan_payloads", "negative_nan"]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("n", [17, 40000, 65537, 300001])
def test_float_sort_paths_bit_exact(dtype, case, n):
    a = _floats(dtype, n, n, case)
    ref = bits(stable_sort(a))
    np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(a)))), ref)
    # strided input: the copy path
    b = np.repeat(a, 2)[::2]
    np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(np.repeat(a, 2))[::2]))), bits(stable_sort(b)))
    # descending (array API): flip(sort(flip))
    ref_d = bits(np.flip(stable_sort(np.flip(a))))
    np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(a), descending=True))), ref_d)
    # the input is not modified by the fused copy
    c = a.copy()
    asc.sort(asc.asarray(c))
    np.testing.assert_array_equal(bits(c), bits(a))


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_int_sort_sizes(dtype, n):
    info = np.iinfo(dtype)
    a = np.random.default_rng(n).integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    a[:2] = [info.max, info.min]
    np.testing.assert_array_equal(np.asarray(asc.sort(asc.asarray(a))), np.sort(a))
    np.testing.assert_array_equal(np.asarray(asc.sort(asc.asarray(a)[::-1])), np.sort(a))


@pytest.mark.parametrize("n", SIZES)
def test_float32_sort_sizes(n):
    a = _floats(np.float32, n, 3 * n, "inf_nan")
    np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(a)))), bits(stable_sort(a)))
    assert_same(np.unique(a), asc.unique(asc.asarray(a)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16, np.uint8, np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 4095, 4096, 65537, 200003])
def test_unique_parallel_passes(dtype, n):
    rng = np.random.default_rng(n)
    a = rng.integers(0, max(2, n // 7), n).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[rng.permutation(n)[: max(1, n // 100)]] = np.nan
        a[rng.permutation(n)[: max(1, n // 50)]] = -0.0
    x = asc.asarray(a)
    assert_same(np.unique(a), asc.unique(x))
    for eq in (True, False):
        assert_same(np.unique(a, equal_nan=eq), asc.unique(x, equal_nan=eq))
        assert_same(np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq),
                    asc.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq))
    # strided input
    assert_same(np.unique(a[::-3]), asc.unique(x[::-3]))


def _digest_script():
    return r"""
import hashlib, numpy as np, pyasc as asc
rng = np.random.default_rng(0)
h = hashlib.sha256()
for n in (65537, 98305, 300001):
    a = (rng.standard_normal(n) * 50).astype(np.float32)
    a[rng.permutation(n)[:9]] = np.nan
    a[:n // 9] = np.where(np.arange(n // 9) % 4 == 0, -0.0, a[:n // 9])
    a[-(n // 9):] = np.where(np.arange(n // 9) % 4 == 0, 0.0, a[-(n // 9):])
    b = a.copy(); b[:n // 9] = np.abs(b[:n // 9])
    i = rng.integers(-(1 << 40), 1 << 40, n)
    for r in (asc.sort(asc.asarray(a)), asc.sort(asc.asarray(b)), asc.sort(asc.asarray(i)), asc.argsort(asc.asarray(a)),
              asc.unique(asc.asarray(np.round(a))), *asc.unique(asc.asarray(np.round(a)), return_index=True,
              return_inverse=True, return_counts=True)):
        h.update(np.ascontiguousarray(np.asarray(r)).tobytes())
    ref = [np.take_along_axis(a, np.argsort(a, kind="stable"), 0), np.sort(b, kind="stable"), np.sort(i)]
    for got, exp in zip((asc.sort(asc.asarray(a)), asc.sort(asc.asarray(b)), asc.sort(asc.asarray(i))), ref):
        assert (np.asarray(got).view(np.uint8) == exp.view(np.uint8)).all()
print(h.hexdigest())
"""


def test_sort_and_unique_any_core_count():
    """1, 2 and 3 cores: one chunk, one merge round (scratch first), two rounds (output first)."""
    outs = set()
    for cores in ("1", "2", "3"):
        r = subprocess.run([sys.executable, "-c", _digest_script()], env=dict(os.environ, ASC_NUM_CORES=cores),
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout.strip())
    assert len(outs) == 1


def test_argsort_still_stable_with_fast_sort():
    a = _floats(np.float32, 300001, 9, "both_zeros")
    np.testing.assert_array_equal(np.asarray(asc.argsort(asc.asarray(a))), stable_argsort(a))
