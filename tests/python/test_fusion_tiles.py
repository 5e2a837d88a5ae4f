"""Tile-program execution paths of map groups (src/graph/program.cc):

* sub-tiled execution (several instructions, or outputs staged for
  non-temporal stores): inputs read in place or gathered once per tile into
  slots of their own, instructions run over sub-tiles of 384 elements;
* tiles within one line of the domain's last axis when an operand would
  otherwise be gathered (broadcast rows/columns read in place);
* chunked launches (more blocks than cores) for large groups;
* non-temporal stores for outputs of 8 MiB and more.

Every result is compared with NumPy bit for bit where NumPy computes the same
rounded operations (float32/float64/integers), and with eager mode."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from lazy_helpers import groups_of, lazy_mode  # noqa: F401 - lazy_mode: autouse fixture

SUB = 384          # elements per sub-tile (kSubTile)
TILE = 4096        # elements per tile (kMaxTile)
PARALLEL = 1 << 16  # groups from this size run on all cores
CHUNK = 1 << 18     # elements per block of a chunked launch
STREAM_F32 = (8 << 20) // 4  # float32 outputs from this many elements use non-temporal stores

EXACT = [np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8, np.uint16]


def rand(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    d = np.dtype(dtype)
    if d.kind in "iu":
        info = np.iinfo(d)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(d)
    return rng.standard_normal(shape).astype(d)


def specials(x):
    """Puts +-0, +-inf and NaN at the ends of a float array (tails of tiles)."""
    if x.dtype.kind != "f" or x.size < 6:
        return x
    f = x.reshape(-1)
    f[:3] = [0.0, -0.0, np.inf]
    f[-3:] = [-np.inf, np.nan, -0.0]
    return x


def same(got, ref):
    got = np.asarray(got)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


def triad(a, b, c):
    return a * b + c


LENGTHS = [1, 15, 16, 17, 63, 64, 65, SUB - 1, SUB, SUB + 1, 2 * SUB + 7, TILE - 1, TILE, TILE + 1,
           TILE + SUB + 3, 3 * TILE + 5, PARALLEL - 1, PARALLEL + 13, 2 * CHUNK + 4099]


@pytest.mark.parametrize("n", LENGTHS)
def test_triad_lengths_around_sub_tile_tile_and_chunk(n):
    a_np, b_np, c_np = (specials(rand(n, np.float32, s)) for s in range(3))
    a, b, c = asc.array(a_np), asc.array(b_np), asc.array(c_np)
    r, groups = groups_of(lambda: triad(a, b, c).eval())
    assert groups == 1
    with np.errstate(all="ignore"):
        same(r, triad(a_np, b_np, c_np))


@pytest.mark.parametrize("dtype", EXACT)
def test_triad_dtypes_bitwise(dtype):
    n = 3 * TILE + SUB + 5
    a_np, b_np, c_np = (specials(rand(n, dtype, s)) for s in range(3))
    a, b, c = asc.array(a_np), asc.array(b_np), asc.array(c_np)
    with np.errstate(all="ignore"):
        ref = triad(a_np, b_np, c_np)
    same(triad(a, b, c).numpy(), ref)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_triad_half_dtypes(dtype):
    n = 2 * TILE + SUB - 1
    a_np, b_np, c_np = (specials(rand(n, dtype, s)) for s in range(3))
    got = np.asarray(triad(asc.array(a_np), asc.array(b_np), asc.array(c_np)).numpy()).astype(np.float64)
    with np.errstate(all="ignore"):
        ref = ((a_np * b_np) + c_np).astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-2, atol=1e-2, equal_nan=True)


def test_large_output_streams_with_sub_tiles_and_tail():
    # > 8 MiB of float32 output: staged in the sub-tile area, non-temporal stores;
    # an odd length leaves a tail in the last sub-tile of the last block.
    n = STREAM_F32 + 2 * CHUNK + 77
    a_np, b_np, c_np = (specials(rand(n, np.float32, s)) for s in range(3))
    a, b, c = asc.array(a_np), asc.array(b_np), asc.array(c_np)
    with np.errstate(all="ignore"):
        same(triad(a, b, c).numpy(), triad(a_np, b_np, c_np))
    # Unaligned destination views of the inputs: offset by one element.
    with np.errstate(all="ignore"):
        same(triad(a[1:], b[1:], c[:-1]).numpy(), triad(a_np[1:], b_np[1:], c_np[:-1]))


def test_two_outputs_sharing_inputs_one_pass_streamed():
    n = STREAM_F32 + 1001
    x_np, y_np, z_np = (rand(n, np.float32, s) for s in range(3))
    x, y, z = asc.array(x_np), asc.array(y_np), asc.array(z_np)
    (p, q), groups = groups_of(lambda: asc.eval(x * y, x * y + z))
    assert groups == 1
    same(p.numpy(), x_np * y_np)
    same(q.numpy(), x_np * y_np + z_np)


@pytest.mark.parametrize("n", [SUB + 1, TILE + 3, PARALLEL + 5, 2 * CHUNK + 1])
def test_strided_and_negative_stride_inputs_gathered_once_per_tile(n):
    # Three distinct gathered inputs live in every sub-tile: they must not share
    # a UB slot (liveness slots would let them overwrite each other).
    base = [rand(2 * n + 4, np.float32, s) for s in range(3)]
    a_np, b_np, c_np = base[0][::2][:n], base[1][::-1][:n], base[2][1::2][:n]
    a, b, c = (asc.array(x) for x in base)
    a, b, c = a[::2][:n], b[::-1][:n], c[1::2][:n]
    expr = lambda a, b, c: (a - b) * c + a * 0.5 - b  # noqa: E731
    same(expr(a, b, c).numpy(), expr(a_np, b_np, c_np))
    # Disjoint live ranges (a only in the first instruction, b only in the
    # second, c in the third): a program by liveness would give them one slot.
    expr = lambda a, b, c: ((a * 0.5) + b) * 3.0 - c  # noqa: E731
    same(expr(a, b, c).numpy(), expr(a_np, b_np, c_np))


def test_transposed_and_contiguous_mix():
    x_np = rand((700, 900), np.float32, 1)
    y_np = rand((900, 700), np.float32, 2)
    z_np = rand((700, 900), np.float32, 3)
    x, y, z = asc.array(x_np), asc.array(y_np), asc.array(z_np)
    same((x * y.T + z - y.T).numpy(), x_np * y_np.T + z_np - y_np.T)


@pytest.mark.parametrize("line", [7, 511, 512, 513, 1024, TILE - 1, TILE, TILE + 1, 2 * TILE + 300])
def test_broadcast_row_and_column_by_line(line):
    rows = max(3, (PARALLEL + 999) // line)
    col_np = specials(rand((rows, 1), np.float32, 1))
    row_np = specials(rand((1, line), np.float32, 2))
    col, row = asc.array(col_np), asc.array(row_np)
    r, groups = groups_of(lambda: (col + row).eval())
    assert groups == 1
    with np.errstate(all="ignore"):
        same(r, col_np + row_np)
        # Several instructions (sub-tiled) over broadcast operands.
        same((col * row - col + row * 2.0).numpy(), col_np * row_np - col_np + row_np * np.float32(2.0))


def test_broadcast_3d_and_scalar_and_cast():
    a_np = rand((37, 1, 1030), np.float32, 1)
    b_np = rand((1, 29, 1030), np.float64, 2)
    c_np = rand((37, 29, 1), np.int32, 3)
    a, b, c = asc.array(a_np), asc.array(b_np), asc.array(c_np)
    same((a * b + c - 3.0).numpy(), a_np * b_np + c_np - 3.0)
    # A cast of a broadcast input recomputed over the domain, feeding a row broadcast.
    same((a.astype(np.float64) * b).numpy(), a_np.astype(np.float64) * b_np)


def test_broadcast_of_negative_stride_row_gathers():
    row_base = rand((1, 2048), np.float32, 4)
    col_np = rand((300, 1), np.float32, 5)
    row_np = row_base[:, ::-1]
    row = asc.array(row_base)[:, ::-1]
    col = asc.array(col_np)
    same((row * col + row).numpy(), row_np * col_np + row_np)


def test_in_place_on_pending_values_and_reversed_self():
    n = PARALLEL + SUB + 1
    a_np, b_np = rand(n, np.float32, 1), rand(n, np.float32, 2)
    a, b = asc.array(a_np), asc.array(b_np)
    c = a * b
    c += a          # recorded into c's pending storage
    c *= 0.5
    c += c[::-1]    # reads the old value (NumPy buffering)
    ref = (a_np * b_np + a_np) * np.float32(0.5)
    ref = ref + ref[::-1]
    same(c.numpy(), ref)


def test_fused_equals_eager_bitwise():
    n = 2 * CHUNK + SUB + 9
    a_np, b_np, c_np = (specials(rand(n, np.float32, s)) for s in range(3))
    a, b, c = asc.array(a_np), asc.array(b_np), asc.array(c_np)
    expr = lambda a, b, c: asc.exp(a * 0.01) * 2 + asc.sin(b) - c * c  # noqa: E731
    lazy = expr(a, b, c).numpy()
    asc.set_eager(True)
    try:
        eager = expr(a, b, c).numpy()
    finally:
        asc.set_eager(False)
    np.testing.assert_array_equal(lazy, eager)
    with np.errstate(all="ignore"):
        ref = np.exp(a_np.astype(np.float64) * 0.01) * 2 + np.sin(b_np.astype(np.float64)) - c_np.astype(np.float64) ** 2
    np.testing.assert_allclose(lazy.astype(np.float64), ref, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_empty_and_zero_dim():
    e = asc.array(np.zeros((0, 5), np.float32))
    same((e * e + e).numpy(), np.zeros((0, 5), np.float32))
    s_np = np.array(2.5, np.float32)
    s = asc.array(s_np)
    same((s * s + s).numpy(), s_np * s_np + s_np)


def test_reduction_after_chunked_product_is_deterministic():
    n = 4 * CHUNK + 12345
    a_np, b_np = rand(n, np.float32, 7), rand(n, np.float32, 8)
    a, b = asc.array(a_np), asc.array(b_np)
    first = float(asc.sum(a * b))
    for _ in range(3):
        assert float(asc.sum(a * b)) == first
    np.testing.assert_allclose(first, float(np.dot(a_np.astype(np.float64), b_np.astype(np.float64))), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint16, np.int64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [5, SUB + 1, TILE + SUB + 1, PARALLEL + 7])
def test_scalar_operands_expanded_in_sub_tiles(dtype, n):
    # Stride-0 operands of sub-tiled programs are expanded into a sub-tile of
    # copies (once per value) so that the ops' contiguous loops run.
    d = np.dtype(dtype)
    a_np = rand(n, np.float64, 1).astype(d) if d.kind == "c" else rand(n, dtype, 1)
    if d.kind == "c":
        a_np = a_np + 1j * rand(n, np.float64, 2).astype(d)
    s_np = np.asarray(3 if d.kind in "iu" else 1.5, dtype=d)
    a, s = asc.array(a_np), asc.array(s_np)
    with np.errstate(all="ignore"):
        same((a * s + s - a).numpy(), a_np * s_np + s_np - a_np)
        same((s * a * s).numpy(), s_np * a_np * s_np)


def test_column_operand_gathered_then_in_place_in_the_tail():
    # Lines of 300 (< 512): tiles span lines and the column is gathered; the
    # last tile (12 elements) lies in one line and reads it with stride 0 -- the
    # expanded copies must not be stale values of the gather.
    col_np = rand((41, 1), np.float32, 1)
    row_np = rand((1, 300), np.float32, 2)
    col, row = asc.array(col_np), asc.array(row_np)
    same((col * row + col - row).numpy(), col_np * row_np + col_np - row_np)
    same((row * col * 2.0 + col).numpy(), row_np * col_np * np.float32(2.0) + col_np)
