"""Fused argmax/argmin at a group's end and reductions over non-adjacent axis
sets: lazy == eager == NumPy, and the fused ones run as one tile program."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from lazy_helpers import groups_of, lazy_mode  # noqa: F401 - lazy_mode: autouse fixture

FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
BF16 = np.dtype(ml_dtypes.bfloat16)


def np_ref(x):
    """NumPy operand: bfloat16 compared as float32 (exact, NaN kept)."""
    return x.astype(np.float32) if x.dtype == BF16 else x


def special_values(shape, dtype, seed):
    """Many ties; floats also get NaN, +-Inf and +-0 at random places."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_).reshape(shape)
    v = rng.integers(0, 9, n).astype(np.float64)
    if np.dtype(dtype).kind in "fV" or np.dtype(dtype) == BF16:
        for val, frac in ((np.nan, 0.002), (np.inf, 0.003), (-np.inf, 0.003), (0.0, 0.05), (-0.0, 0.05)):
            v[rng.random(n) < frac] = val
    elif np.dtype(dtype).kind == "i":
        v -= 4
    return v.astype(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", FLOATS + INTS + [np.bool_])
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reductions_lazy_eager_numpy(dtype, op):
    for shape in [(3, 4, 130), (130, 3, 4), (5, 1, 66, 2), (70001,)]:
        xs = special_values(shape, dtype, len(shape) + shape[0])
        x = asc.asarray(xs)
        nd = len(shape)
        for axis in [None] + list(range(-nd, nd)):
            for keepdims in (False, True):
                ref = getattr(np, op)(np_ref(xs), axis=axis, keepdims=keepdims)
                got = getattr(asc, op)(x, axis=axis, keepdims=keepdims)
                with asc.lazy.eager():
                    eager = getattr(asc, op)(asc.asarray(xs), axis=axis, keepdims=keepdims)
                got, eager = np.asarray(got), np.asarray(eager)
                assert got.dtype == np.int64 and got.shape == ref.shape, (shape, axis)
                np.testing.assert_array_equal(got, ref, err_msg=f"{shape} axis={axis}")
                np.testing.assert_array_equal(eager, ref, err_msg=f"eager {shape} axis={axis}")


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reduction_fuses_with_its_producer(op):
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(300, 257)).astype(np.float32)
    xs[17, 100] = np.nan
    xs[17, 3] = np.nan
    x = asc.asarray(xs)
    for axis in (None, 0, 1, -1):
        r, n = groups_of(lambda: getattr(asc, op)(asc.exp(x) * 2 - 1, axis=axis).eval())
        assert n == 1, axis
        with np.errstate(all="ignore"):
            ref = getattr(np, op)(np.exp(xs) * 2 - 1, axis=axis)
        np.testing.assert_array_equal(np.asarray(r), ref)
    # One pass for the max, its position and the sum of the same values.
    (i, m, s), n = groups_of(lambda: asc.eval(asc.argmax(x * 3, axis=1), asc.max(x * 3, axis=1),
                                               asc.sum(x * 3, axis=1)))
    assert n == 1
    np.testing.assert_array_equal(np.asarray(i), np.argmax(xs * 3, axis=1))
    np.testing.assert_array_equal(np.asarray(m), np.max(xs * 3, axis=1))


def test_first_nan_and_first_occurrence_across_blocks():
    n = 1 << 18
    for dtype in (np.float32, np.float64, np.float16):
        xs = np.zeros(n, dtype)
        xs[[5, n - 1]] = 7  # ties: the first wins
        xs[[9, n // 2 + 3]] = -7
        x = asc.asarray(xs)
        assert int(asc.argmax(x + 0)) == 5 and int(asc.argmin(x + 0)) == 9
        xs[[n // 2 + 11, n - 5]] = np.nan
        x = asc.asarray(xs)
        assert int(asc.argmax(x * 1)) == n // 2 + 11 and int(asc.argmin(x * 1)) == n // 2 + 11
        xs[0] = np.nan
        assert int(asc.argmax(asc.asarray(xs) * 1)) == 0


def test_signed_zero_and_infinities():
    xs = np.array([-0.0, 0.0, -np.inf, np.inf, np.inf, -np.inf, 0.0], np.float32)
    x = asc.asarray(xs)
    for op in ("argmax", "argmin"):
        assert int(getattr(asc, op)(x * 1)) == int(getattr(np, op)(xs))
        assert int(getattr(asc, op)(x[:2] * 1)) == int(getattr(np, op)(xs[:2]))


def test_arg_reductions_of_views():
    base = special_values((40, 66), np.float64, 3)
    x = asc.asarray(base)
    views = [lambda z: z[::-1], lambda z: z[:, ::-3], lambda z: z.T, lambda z: z[3:30:2, 60:1:-2]]
    for v in views:
        for axis in (None, 0, 1):
            for op in ("argmax", "argmin"):
                np.testing.assert_array_equal(np.asarray(getattr(asc, op)(v(x), axis=axis)),
                                              getattr(np, op)(v(base), axis=axis))


def test_arg_empty_and_0d():
    for op in ("argmax", "argmin"):
        with pytest.raises(ValueError):
            getattr(asc, op)(asc.asarray(np.zeros((0,), np.float32)) + 1)
        with pytest.raises(ValueError):
            getattr(asc, op)(asc.asarray(np.zeros((3, 0), np.float32)), axis=1)
        r = getattr(asc, op)(asc.asarray(np.zeros((0, 5), np.float32)) + 1, axis=1)
        assert np.asarray(r).shape == (0,) and np.asarray(r).dtype == np.int64
        assert int(getattr(asc, op)(asc.asarray(np.float32(3)) * 2)) == 0
        with pytest.raises(ValueError, match="out of bounds"):
            getattr(asc, op)(asc.asarray(np.ones((2, 3), np.float32)) + 1, axis=2)


# ---------------------------------------------------------------- non-adjacent axis sets

# several runs of reduced axes fuse when the last run has >= 256 elements
NON_RUN = [((5, 7, 300), (0, 2)), ((4, 6, 5, 300), (0, 2)), ((4, 6, 5, 300), (1, 3)), ((4, 6, 5, 300), (0, 1, 3)),
           ((4, 6, 5, 300), (0, 2, 3)), ((3, 1, 4, 1, 20), (0, 2)), ((64, 3, 300), (0, -1))]


@pytest.mark.parametrize("shape,axes", NON_RUN)
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "mean", "all", "any"])
def test_non_adjacent_axes_fuse(shape, axes, op):
    rng = np.random.default_rng(len(shape))
    xs = rng.uniform(0.5, 1.5, size=shape)
    x = asc.asarray(xs)

    def run(xp, arr, keepdims):
        t = arr * 2 - 1 if op not in ("all", "any") else (arr * 2 - 1) > 0.6
        return getattr(xp, op)(t, axis=axes, keepdims=keepdims)

    for keepdims in (False, True):
        ref = run(np, xs, keepdims)
        got, n = groups_of(lambda: run(asc, x, keepdims).eval())
        # mean divides the sum afterwards: a second (small) group
        assert n == (2 if op == "mean" else 1), (op, keepdims)
        with asc.lazy.eager():
            eager = run(asc, asc.asarray(xs), keepdims)
        got = np.asarray(got)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=1e-9)
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(eager).astype(np.float64), rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_non_adjacent_axes_all_dtypes_and_specials(dtype):
    xs = special_values((6, 5, 4, 260), dtype, 7)
    x = asc.asarray(xs)
    for axes in [(0, 2), (1, 3), (0, 2, 3), (-4, -2)]:
        for op in ("sum", "max", "min"):
            half = np.dtype(dtype) in (BF16, np.dtype(np.float16))
            if op == "sum" and half and axes in [(1, 3), (0, 2, 3)]:
                continue  # >1000 terms accumulated in 8/11-bit mantissas: not comparable to NumPy's pairwise sum
            r, n = groups_of(lambda: getattr(asc, op)(x[::-1] + 0 if np.dtype(dtype).kind != "b" else x,
                                                       axis=axes).eval())
            assert n == 1, (op, axes)
            with np.errstate(all="ignore"):
                ref = getattr(np, op)(np_ref(xs[::-1] + 0), axis=axes)
            got = np.asarray(r)
            if (np.dtype(dtype) == BF16 or np.dtype(dtype).kind == "f") and op == "sum":
                # float16/bfloat16 sums accumulate in their own dtype here
                tol = {BF16: 5e-2, np.dtype(np.float16): 1e-2}.get(np.dtype(dtype), 1e-6)
                np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol * 20)
            else:
                np.testing.assert_array_equal(got.astype(ref.dtype), ref)


def test_non_adjacent_axes_large_parallel():
    rng = np.random.default_rng(9)
    xs = rng.normal(size=(64, 33, 8, 260)).astype(np.float32)
    x = asc.asarray(xs)
    for axes in [(0, 2), (1, 3), (0, 2, 3)]:
        r, n = groups_of(lambda: asc.sum(x * x, axis=axes).eval())
        assert n == 1
        np.testing.assert_allclose(np.asarray(r), np.sum(xs.astype(np.float64) ** 2, axis=axes), rtol=1e-4)
        r, n = groups_of(lambda: asc.max(x - 1, axis=axes, keepdims=True).eval())
        assert n == 1
        np.testing.assert_array_equal(np.asarray(r), np.max(xs - 1, axis=axes, keepdims=True))


def test_every_axis_combination_is_one_group():
    xs = np.random.default_rng(2).uniform(-1, 1, size=(4, 5, 6, 256))
    x = asc.asarray(xs)
    for k in range(1, 5):
        for axes in itertools.combinations(range(4), k):
            r, n = groups_of(lambda: asc.sum(x * 3, axis=axes).eval())
            np.testing.assert_allclose(np.asarray(r), np.sum(xs * 3, axis=axes), rtol=1e-12, atol=1e-12)
            assert n == 1, axes


@pytest.mark.parametrize("shape,axes", [((5, 7, 33), (0, 2)), ((4, 6, 5, 40), (1, 3)), ((130, 3, 4), (0, 2))])
def test_non_adjacent_axes_with_short_last_run_stay_correct(shape, axes):
    xs = np.random.default_rng(4).uniform(-1, 1, size=shape)
    x = asc.asarray(xs)
    for op in ("sum", "max", "min", "mean"):
        for keepdims in (False, True):
            got = np.asarray(getattr(asc, op)(x * 2 - 1, axis=axes, keepdims=keepdims))
            np.testing.assert_allclose(got, getattr(np, op)(xs * 2 - 1, axis=axes, keepdims=keepdims), rtol=1e-12,
                                       atol=1e-12)


@pytest.mark.parametrize("shape,axis", [((300, 4099), 0), ((5000, 65), 0), ((2, 64, 4100), 1),
                                        ((40, 2048), 0), ((17, 4096 + 64 + 1), 0), ((3, 700, 129), 1)])
@pytest.mark.parametrize("op", ["sum", "max", "min", "mean"])
def test_column_reductions_split_columns_over_cores(shape, axis, op):
    # fewer outer slices than cores: the column chunks narrow so each core owns columns;
    # integer-valued float64 data makes every fold order exact
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-1000, 1000, size=shape).astype(np.float64)
    x.flat[::97] = -0.0
    expected = getattr(np, op)(x * 2 + 1, axis=axis)
    got = getattr(asc, op)(asc.asarray(x) * 2 + 1, axis=axis)
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert np.asarray(got).dtype == expected.dtype
