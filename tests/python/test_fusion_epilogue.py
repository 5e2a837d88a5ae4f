"""Opaque ops end a group; the elementwise work after them fuses into one
epilogue pass: relu(x @ w + bias) = matmul + ONE tile program."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc as asc

from lazy_helpers import groups_of, lazy_mode  # noqa: F401 - lazy_mode: autouse fixture


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 5, 3), (64, 33, 130), (300, 64, 257)])
def test_matmul_relu_epilogue_is_one_group(dtype, shape):
    m, k, n = shape
    rng = np.random.default_rng(m + k + n)
    nx = rng.standard_normal((m, k)).astype(dtype)
    nw = rng.standard_normal((k, n)).astype(dtype)
    nb = rng.standard_normal(n).astype(dtype)
    x, w, b = asc.asarray(nx), asc.asarray(nw), asc.asarray(nb)
    tol = 1e-4 if dtype == np.float32 else 1e-12

    r, groups = groups_of(lambda: asc.maximum(x @ w + b, 0).eval())
    assert groups == 1
    np.testing.assert_allclose(np.asarray(r), np.maximum(nx @ nw + nb, 0), rtol=tol, atol=tol)

    def leaky():
        y = x @ w + b
        return asc.where(y > 0, y, y * dtype(0.01)).eval()

    r, groups = groups_of(leaky)
    assert groups == 1
    y = nx @ nw + nb
    np.testing.assert_allclose(np.asarray(r), np.where(y > 0, y, y * dtype(0.01)), rtol=tol, atol=tol)


def test_epilogue_on_transposed_and_batched_matmul():
    rng = np.random.default_rng(3)
    nx = rng.standard_normal((4, 50, 20)).astype(np.float32)
    nw = rng.standard_normal((20, 40)).astype(np.float32)
    nb = rng.standard_normal((1, 1, 40)).astype(np.float32)
    x, w, b = asc.asarray(nx), asc.asarray(nw), asc.asarray(nb)
    r, groups = groups_of(lambda: asc.tanh(asc.matmul(x, w) * 0.5 + b).eval())
    assert groups == 1
    np.testing.assert_allclose(np.asarray(r), np.tanh((nx @ nw) * 0.5 + nb), rtol=1e-5, atol=1e-5)
    r, groups = groups_of(lambda: asc.maximum(w.T @ x[0].T - 1, 0).eval())
    assert groups == 1
    np.testing.assert_allclose(np.asarray(r), np.maximum(nw.T @ nx[0].T - 1, 0), rtol=1e-4, atol=1e-4)
