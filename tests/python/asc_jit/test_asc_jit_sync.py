"""asc.sync_all and the other cross-block waits in @asc.jit kernels, with more
blocks than the CPU device has cores (the runtime keeps such launches' blocks
resident), checked against NumPy; a block that never arrives is a launch error."""

import numpy as np
import pytest

import pyasc

import asc_jit_sync_kernels as K

RNG = np.random.default_rng(19)


@pytest.mark.parametrize("blocks", [1, 3, 16])
def test_sync_all_grid_total(blocks):
    n_per = 37
    x = RNG.random(blocks * n_per, dtype=np.float32)
    part = np.zeros(blocks, np.float32)
    out = np.zeros(blocks, np.float32)
    K.grid_total[blocks](x, part, out, n_per)
    want_part = x.reshape(blocks, n_per).astype(np.float32)
    # the kernel adds in index order in float32
    sums = np.zeros(blocks, np.float32)
    for i in range(n_per):
        sums = (sums + want_part[:, i]).astype(np.float32)
    np.testing.assert_array_equal(part, sums)
    total = np.float32(0)
    for v in sums:
        total = np.float32(total + v)
    np.testing.assert_array_equal(out, np.full(blocks, total, np.float32))


def test_sync_all_soft_form():
    blocks = 6
    v = np.zeros(blocks, np.int32)
    ws = np.zeros(blocks * 8, np.int32)
    out = np.zeros(blocks, np.int32)
    K.soft_neighbour[blocks](v, ws, out)
    np.testing.assert_array_equal(out, (np.arange(blocks) + 1) % blocks + 1)


def test_ib_set_ib_wait_order_blocks():
    blocks = 6
    total = np.zeros(1, np.int64)
    ws = np.zeros(blocks * 8 + 8, np.int32)
    K.ib_chain[blocks](total, ws)
    assert total[0] == 12345  # 0, 1, ..., 5 in block order
    np.testing.assert_array_equal(ws, 0)  # each ib_set consumed by its ib_wait


def test_wait_pre_block_runs_sections_in_block_order():
    blocks, rounds = 5, 3
    log = np.zeros(1 + blocks * rounds, np.int32)
    ws = np.zeros(blocks * 8, np.int32)
    K.in_order[blocks](log, ws, rounds)
    assert log[0] == blocks * rounds
    np.testing.assert_array_equal(log[1:], np.tile(np.arange(blocks), rounds))


def test_cross_core_mode0_barrier():
    blocks = 9
    x = np.zeros(blocks, np.int64)
    out = np.zeros(blocks, np.int64)
    K.mode0_flags[blocks](x, out)
    np.testing.assert_array_equal(out, np.full(blocks, (np.arange(blocks) ** 2).sum()))


def test_block_that_never_arrives_is_a_launch_error():
    x = np.zeros(4, np.float32)
    with pytest.raises(pyasc.AscendError, match=r"deadlock.*block 1 ended without arriving") as e:
        K.missing_block[4](x)
    assert "SyncAll" in str(e.value) and "missing_block" in str(e.value)


def test_mix_kernel_aiv_blocks_meet():
    dim = 3
    x = np.zeros(2 * dim, np.float32)
    out = np.zeros(2 * dim, np.float32)
    K.mix_aiv_barrier[dim](x, out)
    np.testing.assert_array_equal(x, np.arange(2 * dim) + 1)
    np.testing.assert_array_equal(out, np.full(2 * dim, (np.arange(2 * dim) + 1).sum(), np.float32))
