"""Fusion: fused vs eager vs NumPy on random expression trees (hypothesis),
reductions over every axis combination, tile tails, group counts."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyasc as asc

from lazy_helpers import groups_of, lazy_mode  # noqa: F401 - lazy_mode: autouse fixture

FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def tol(dtype):
    d = np.dtype(dtype)
    if d == np.dtype(ml_dtypes.bfloat16):
        return 3e-2
    return {np.dtype(np.float16): 5e-3, np.dtype(np.float32): 1e-5}.get(d, 1e-12)


def close(got, ref, rtol=None):
    got = np.asarray(got)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    if ref.dtype.kind == "f" or ref.dtype == np.dtype(ml_dtypes.bfloat16):
        t = tol(ref.dtype) if rtol is None else rtol
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=t, atol=t, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, ref)


# ---------------------------------------------------------------- group counts

def test_triad_is_one_group():
    a, b, c = (asc.array(np.random.default_rng(i).random(10007, np.float32)) for i in range(3))
    r, n = groups_of(lambda: (a * b + c).eval())
    assert n == 1
    close(r, np.asarray(a) * np.asarray(b) + np.asarray(c))


def test_broadcast_outer_sum_is_one_group():
    x = asc.array(np.arange(1024, dtype=np.float32).reshape(1024, 1))
    y = asc.array(np.arange(1024, dtype=np.float32).reshape(1, 1024))
    r, n = groups_of(lambda: (x + y).eval())
    assert n == 1
    close(r, np.asarray(x) + np.asarray(y))


def test_reduction_at_group_end_and_shared_inputs():
    rng = np.random.default_rng(3)
    a_np, b_np = rng.random(70001, np.float32), rng.random(70001, np.float32)
    a, b = asc.array(a_np), asc.array(b_np)
    r, n = groups_of(lambda: asc.sum(a * b).eval())
    assert n == 1
    np.testing.assert_allclose(float(r), float(np.sum(a_np.astype(np.float64) * b_np)), rtol=1e-5)
    (s, m), n = groups_of(lambda: asc.eval(asc.sum(a * b), asc.max(a * b)))
    assert n == 1  # two reductions, one pass
    assert float(m) == float(np.max(a_np * b_np))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_row_softmax_is_one_group(dtype):
    x_np = np.random.default_rng(0).normal(size=(129, 517)).astype(dtype)
    x = asc.array(x_np)

    def softmax():
        e = asc.exp(x - x.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).eval()

    r, n = groups_of(softmax)
    assert n == 1
    xf = x_np.astype(np.float64)
    e = np.exp(xf - xf.max(1, keepdims=True))
    np.testing.assert_allclose(np.asarray(r).astype(np.float64), e / e.sum(1, keepdims=True),
                               rtol=tol(dtype) * 4, atol=tol(dtype))


def test_casts_of_broadcast_inputs_fuse():
    x = asc.array(np.arange(64, dtype=np.int32).reshape(64, 1))
    y = asc.array(np.linspace(0, 1, 48).astype(np.float16).reshape(1, 48))
    r, n = groups_of(lambda: ((x + y) * np.float32(2)).eval())
    assert n == 1
    close(r, (np.asarray(x) + np.asarray(y)) * np.float32(2))


def test_mean_and_var_fuse_with_their_producers():
    xs = np.random.default_rng(5).normal(size=(300, 200)).astype(np.float32)
    x = asc.array(xs)
    r, n = groups_of(lambda: asc.mean(x * 2, axis=1).eval())
    assert n == 1
    close(r, np.mean(xs * 2, axis=1), rtol=1e-5)
    r, n = groups_of(lambda: x.var(axis=1).eval() if hasattr(x, "var") else asc.var(x, axis=1).eval())
    assert n == 1  # sum, mean, centre, square, sum, divide: one row-fused pass
    close(r, np.var(xs, axis=1), rtol=1e-4)


# ---------------------------------------------------------------- reductions

@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "mean", "var", "argmax", "all", "any"])
@pytest.mark.parametrize("shape", [(3, 4, 130), (130, 3, 4), (5, 1, 66, 2)])
def test_every_axis_combination(op, shape):
    rng = np.random.default_rng(len(shape))
    xs = rng.uniform(0.5, 1.5, size=shape).astype(np.float64)
    x = asc.array(xs)
    nd = len(shape)
    combos = [None] + [c for k in range(1, nd + 1) for c in itertools.combinations(range(nd), k)]
    for axes in combos:
        if op == "argmax" and axes is not None and len(axes) != 1:
            continue
        ax = axes[0] if (op == "argmax" and axes is not None) else axes
        for keepdims in (False, True):
            def run(xp, arr):
                t = arr * 2 - 1 if op not in ("all", "any") else (arr * 2 - 1) > 0.5
                return getattr(xp, op)(t, axis=ax, keepdims=keepdims)

            ref = run(np, xs)
            got = run(asc, x)
            with asc.lazy.eager():
                eager = run(asc, asc.array(xs))
            close(got, ref, rtol=1e-9 if op != "prod" else 1e-8)
            np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.asarray(eager).astype(np.float64),
                                       rtol=1e-12)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537, 200003])
def test_tails_around_simd_width_and_tile(n):
    rng = np.random.default_rng(n)
    a_np = rng.uniform(-2, 2, n).astype(np.float32)
    b_np = rng.uniform(-2, 2, n).astype(np.float32)
    a, b = asc.array(a_np), asc.array(b_np)
    close(asc.exp(a) * 2 + asc.sin(b), np.exp(a_np) * 2 + np.sin(b_np), rtol=1e-5)
    np.testing.assert_allclose(float(asc.sum(a * b)), float(np.sum(a_np.astype(np.float64) * b_np)), rtol=1e-4,
                               atol=1e-4)
    rv = a[::-1] * b[::-1] + 1  # negative strides
    close(rv, a_np[::-1] * b_np[::-1] + 1)


def test_non_contiguous_and_negative_stride_inputs_all_dtypes():
    for dt in FLOATS + INTS + [np.bool_]:
        base = (np.arange(6 * 40) % 11).astype(dt).reshape(6, 40)
        x = asc.array(base)
        views = [lambda z: z[::2, ::-3], lambda z: z.T[5:1:-1], lambda z: z[:, 7]]
        for v in views:
            with np.errstate(all="ignore"):
                ref = np.maximum(v(base), v(base)[..., :1]) if dt != np.bool_ else np.logical_or(v(base), v(base))
            got = asc.maximum(v(x), v(x)[..., :1]) if dt != np.bool_ else asc.logical_or(v(x), v(x))
            close(got, ref)


# ---------------------------------------------------------------- random expression trees

UNARY = ["negative", "absolute", "exp", "sin", "tanh", "square", "sqrt_abs"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide_safe"]
SHAPES = [(), (1,), (7,), (3, 1), (1, 7), (3, 7), (2, 3, 7), (2, 1, 7)]


def apply(xp, op, *args):
    if op == "sqrt_abs":
        return xp.sqrt(xp.absolute(args[0]))
    if op == "true_divide_safe":
        return xp.true_divide(args[0], xp.absolute(args[1]) + 1)
    return getattr(xp, op)(*args)


@st.composite
def expr_tree(draw, depth=0):
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return ("leaf", draw(st.integers(0, 3)), draw(st.sampled_from(SHAPES)), draw(st.booleans()))
    if draw(st.booleans()):
        return ("u", draw(st.sampled_from(UNARY)), draw(expr_tree(depth + 1)))
    return ("b", draw(st.sampled_from(BINARY)), draw(expr_tree(depth + 1)), draw(expr_tree(depth + 1)))


def shape_of(t):
    if t[0] == "leaf":
        return t[2]
    if t[0] == "u":
        return shape_of(t[2])
    return np.broadcast_shapes(shape_of(t[2]), shape_of(t[3]))


def evaluate(xp, t, leaves):
    if t[0] == "leaf":
        _, k, shape, rev = t
        v = leaves[k][tuple(slice(0, s) for s in shape)] if shape else leaves[k][0, 0, 0, ...]  # 0-d view
        if rev and shape:
            v = v[..., ::-1]
        return v
    if t[0] == "u":
        return apply(xp, t[1], evaluate(xp, t[2], leaves))
    return apply(xp, t[1], evaluate(xp, t[2], leaves), evaluate(xp, t[3], leaves))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=expr_tree(), dtype=st.sampled_from([np.float32, np.float64, np.float16]),
       reduce_axis=st.sampled_from([None, -1, 0, "none"]), inplace=st.booleans())
def test_random_trees_fused_eager_numpy(tree, dtype, reduce_axis, inplace):
    try:
        np.broadcast_shapes(shape_of(tree))
    except ValueError:
        return
    rng = np.random.default_rng(0)
    base = [rng.uniform(-2, 2, size=(2, 3, 7)).astype(dtype) for _ in range(4)]

    def run(xp, leaves):
        r = evaluate(xp, tree, leaves)
        if inplace:
            leaves[0][0, 0, :2] = 0.5  # a write between recording and observing
            r = r + leaves[0][0, 0, 0]
        if reduce_axis != "none" and len(r.shape) > 0:
            r = xp.sum(r, axis=reduce_axis)
        return r

    with np.errstate(all="ignore"):
        ref = run(np, [b.copy() for b in base])
    got = run(asc, [asc.array(b.copy()) for b in base])
    with asc.lazy.eager():
        eager = run(asc, [asc.array(b.copy()) for b in base])
    ref = np.asarray(ref)
    t = {np.dtype(np.float16): 2e-2, np.dtype(np.float32): 1e-4}.get(np.dtype(dtype), 1e-10)
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), ref.astype(np.float64), rtol=t, atol=t)
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.asarray(eager).astype(np.float64),
                               rtol=t, atol=t)
