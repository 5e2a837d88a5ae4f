"""@asc.jit kernels that synchronise across blocks (tests/python/asc_jit/test_asc_jit_sync.py)."""

import asc


@asc.jit
def grid_total(x: asc.GlobalAddress, part: asc.GlobalAddress, out: asc.GlobalAddress, n_per: int):
    """Each block sums its slice into part[b]; after sync_all every block adds all
    partials and writes the total to out[b]."""
    b = asc.get_block_idx()
    xg = asc.GlobalTensor()
    pg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    pg.set_global_buffer(part)
    og.set_global_buffer(out)
    s = 0.0
    for i in range(n_per):
        s = s + xg.get_value(b * n_per + i)
    pg.set_value(b, s)
    asc.sync_all()
    t = 0.0
    for j in range(asc.get_block_num()):
        t = t + pg.get_value(j)
    og.set_value(b, t)


@asc.jit
def soft_neighbour(v: asc.GlobalAddress, ws: asc.GlobalAddress, out: asc.GlobalAddress):
    """The soft form: v[b] = b + 1, sync_all(gm, ub), out[b] = v[(b + 1) % n]."""
    b = asc.get_block_idx()
    n = asc.get_block_num()
    vg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    vg.set_global_buffer(v)
    wg.set_global_buffer(ws)
    og.set_global_buffer(out)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 8 * 64)
    vg.set_value(b, b + 1)
    asc.sync_all(wg, ub, used_cores=0)
    og.set_value(b, vg.get_value((b + 1) % n))


@asc.jit
def ib_chain(total: asc.GlobalAddress, ws: asc.GlobalAddress):
    """Block b waits for block b-1's ib_set: total = total * 10 + b in block order."""
    b = asc.get_block_idx()
    n = asc.get_block_num()
    tg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    tg.set_global_buffer(total)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 8)
    if b > 0:
        asc.ib_wait(wg, ub, b - 1, 0)
    tg.set_value(0, tg.get_value(0) * 10 + b)
    if b + 1 < n:
        asc.ib_set(wg, ub, b, 0)


@asc.jit
def in_order(log: asc.GlobalAddress, ws: asc.GlobalAddress, rounds: int):
    """wait_pre_block / notify_next_block: log[k] = the k-th block to run its section."""
    b = asc.get_block_idx()
    n = asc.get_block_num()
    lg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    lg.set_global_buffer(log)
    wg.set_global_buffer(ws)
    ub = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 8 * 16 + 8)  # up to 16 blocks
    for r in range(rounds):
        asc.wait_pre_block(wg, ub)
        k = lg.get_value(0)
        lg.set_value(k + 1, b)
        lg.set_value(0, k + 1)
        asc.notify_next_block(wg, ub)


@asc.jit
def mode0_flags(x: asc.GlobalAddress, out: asc.GlobalAddress):
    """cross_core_set_flag mode 0 + cross_core_wait_flag: a barrier of all blocks."""
    b = asc.get_block_idx()
    n = asc.get_block_num()
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    xg.set_value(b, b * b)
    asc.cross_core_set_flag(3, 0, asc.PipeID.PIPE_MTE3)
    asc.cross_core_wait_flag(3)
    s = 0
    for j in range(n):
        s = s + xg.get_value(j)
    og.set_value(b, s)


@asc.jit
def missing_block(x: asc.GlobalAddress):
    """Block 1 returns before the barrier: a deadlock on the NPU, a launch error here."""
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    if asc.get_block_idx() == 1:
        return
    asc.sync_all()
    g.set_value(asc.get_block_idx(), 1.0)


@asc.jit(kernel_type=asc.runtime.config.KernelType.MIX_AIC_1_2)
def mix_aiv_barrier(x: asc.GlobalAddress, out: asc.GlobalAddress):
    """MIX kernel: the AIV blocks meet at sync_all(); the AIC part passes it."""
    g = asc.GlobalTensor()
    o = asc.GlobalTensor()
    g.set_global_buffer(x)
    o.set_global_buffer(out)
    if asc.ascend_is_aiv():
        b = asc.get_block_idx()
        g.set_value(b, b + 1.0)
    asc.sync_all()
    if asc.ascend_is_aiv():
        b = asc.get_block_idx()
        n = asc.get_block_num() * 2
        s = 0.0
        for j in range(n):
            s = s + g.get_value(j)
        o.set_value(b, s)
