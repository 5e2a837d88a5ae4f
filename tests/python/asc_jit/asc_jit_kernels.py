"""Kernels written in the asc language, used by the tests (module level, as @asc.jit needs their source)."""

from typing import Tuple

import asc

BUFFER_NUM = 2


@asc.jit
def add_direct(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
               tile: asc.ConstExpr[int]):
    """Explicit UB addresses and flags (tutorial 01 style); block_length a multiple of tile."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    size = tile * x.dtype.sizeof()
    x_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    y_local = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, size, tile)
    z_local = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 2 * size, tile)
    for i in range(block_length // tile):
        asc.data_copy(x_local, x_gm[i * tile:], tile)
        asc.data_copy(y_local, y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.add(z_local, x_local, y_local, tile)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm[i * tile:], z_local, tile)


@asc.jit
def vadd_pipe(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
              tile_length: asc.ConstExpr[int], buffer_num: asc.ConstExpr[int]):
    """Double-buffered add with TPipe/TQue and helper functions (tutorial 02 style)."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, buffer_num)
    in_y = asc.TQue(asc.TPosition.VECIN, buffer_num)
    out_z = asc.TQue(asc.TPosition.VECOUT, buffer_num)
    pipe.init_buffer(in_x, buffer_num, tile_length * x.dtype.sizeof())
    pipe.init_buffer(in_y, buffer_num, tile_length * y.dtype.sizeof())
    pipe.init_buffer(que=out_z, num=buffer_num, len=tile_length * z.dtype.sizeof())
    for i in range(block_length // tile_length):
        copy_in(i, x_gm, y_gm, in_x, in_y, tile_length)
        compute(z_gm, in_x, in_y, out_z, tile_length)
        copy_out(i, z_gm, out_z, tile_length)


@asc.jit
def copy_in(i: int, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_x.alloc_tensor(x_gm.dtype)
    y_local = in_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], count=tile_length)
    in_x.enque(x_local)
    in_y.enque(y_local)


@asc.jit
def compute(z_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue, out_z: asc.TQue,
            tile_length: asc.ConstExpr[int]):
    x_local = in_x.deque(z_gm.dtype)
    y_local = in_y.deque(z_gm.dtype)
    z_local = out_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_z.enque(z_local)
    in_x.free_tensor(x_local)
    in_y.free_tensor(y_local)


@asc.jit
def copy_out(i: int, z_gm: asc.GlobalTensor, out_z: asc.TQue, tile_length: asc.ConstExpr[int]):
    z_local = out_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_z.free_tensor(z_local)


@asc.jit
def block_sums(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int, block_length: int, tile: asc.ConstExpr[int]):
    """out[b] = sum of block b's slice of x[:n]: ReduceSum per tile, a loop-carried scalar, a runtime if for
    the last, shorter slice and the partial last tile."""
    b = asc.get_block_idx()
    start = b * block_length
    length = block_length
    if start + length > n:
        length = n - start
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    o_gm = asc.GlobalTensor()
    o_gm.set_global_buffer(out)
    src = asc.LocalTensorAuto(x.dtype, tile)
    work = asc.LocalTensorAuto(x.dtype, tile)
    dst = asc.LocalTensorAuto(x.dtype, 32 // x.dtype.sizeof())
    acc = 0.0
    done = 0
    while done < length:
        cnt = tile
        if length - done < tile:
            cnt = length - done
            asc.duplicate(src, 0.0, tile)  # the copy below rounds down to 32 bytes: clear first
            for j in range(cnt):
                src.set_value(j, x_gm.get_value(start + done + j))
        else:
            asc.data_copy(src, x_gm[start + done:], tile)
        asc.reduce_sum(dst, src, work, tile)
        acc += dst.get_value(0)
        done += cnt
    o_gm.set_value(b, acc)


@asc.jit
def scale_shift(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], scale: asc.ConstExpr[float],
                relu: asc.ConstExpr[bool], passes: asc.ConstExpr[int]):
    """z = x * scale (+1 per pass, unrolled), then relu when the constant says so: one block, n elements."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, n)
    t = asc.LocalTensorAuto(x.dtype, n)
    asc.data_copy(t, x_gm, n)
    asc.muls(t, t, scale, n)
    for _ in asc.static_range(passes):
        asc.adds(t, t, 1.0, n)
    if relu:
        asc.relu(t, t, n)
    asc.data_copy(z_gm, t, n)


@asc.jit
def matmul_leakyrelu(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                     alpha: float, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress):
    """C = leaky_relu(A @ B + bias): the Matmul (cube) per block, LeakyRelu on each piece in the UB (MIX)."""
    offset_a, offset_b, offset_c, offset_bias = mm_offsets(tiling)
    a_global = asc.GlobalTensor()
    b_global = asc.GlobalTensor()
    c_global = asc.GlobalTensor()
    bias_global = asc.GlobalTensor()
    a_global.set_global_buffer(a + offset_a)
    b_global.set_global_buffer(b + offset_b)
    c_global.set_global_buffer(c + offset_c)
    bias_global.set_global_buffer(bias + offset_bias)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=out_q, num=1, len=tiling.base_m * tiling.base_n * c.dtype.sizeof())
    mm = asc.adv.Matmul(
        a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, a_global.dtype),
        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, b_global.dtype),
        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, c_global.dtype),
        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bias_global.dtype),
    )
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(a_global)
        mm.set_tensor_b(b_global)
        mm.set_bias(bias_global)
        with mm.iterate() as count:
            t = out_q.alloc_tensor(c.dtype)
            mm.get_tensor_c(t, en_sequential_write=True)
            asc.leaky_relu(t, t, alpha, count=tiling.base_m * tiling.base_n)
            out_q.enque(t)
            t = out_q.deque(c.dtype)
            round_m = tiling.single_core_m // tiling.base_m
            start = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
            params = asc.DataCopyParams(block_count=tiling.base_m,
                                        block_len=tiling.base_n * c.dtype.sizeof() // 32,
                                        src_stride=0,
                                        dst_stride=(tiling.n - tiling.base_n) * c.dtype.sizeof() // 32)
            asc.data_copy(c_global[start:], t, repeat_params=params)
            out_q.free_tensor(t)
        mm.end()


@asc.jit
def mm_offsets(tiling: asc.adv.TCubeTiling) -> Tuple[int, int, int, int]:
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_index = asc.get_block_idx() % m_blocks
    n_index = asc.get_block_idx() // m_blocks
    offset_a = m_index * tiling.k_a * tiling.single_core_m
    offset_b = n_index * tiling.single_core_n
    offset_c = m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n
    return offset_a, offset_b, offset_c, n_index * tiling.single_core_n


@asc.jit
def checked_positive(x: asc.GlobalAddress, n: int):
    """Fails at run time when n <= 0 (an assert the kernel evaluates)."""
    assert n > 0, "n must be positive"
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    x_gm.set_value(0, n)


@asc.jit
def out_of_bounds(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Copies 64 elements from a GlobalTensor bound to n: out of bounds when n < 64 (kernel checker)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, n)
    z_gm.set_global_buffer(z, 64)
    t = asc.LocalTensorAuto(x.dtype, 64)
    asc.data_copy(t, x_gm, 64)
    asc.data_copy(z_gm, t, 64)


@asc.jit
def quant_rows(src: asc.GlobalAddress, dst: asc.GlobalAddress, n: asc.ConstExpr[int], scale: float, offset: float,
               flip: int):
    """dst = int8(rint(src * scale + offset)) (AscendQuant), or of -src when flip is odd: names assigned in both
    branches of a runtime if are declared before it."""
    s_gm = asc.GlobalTensor()
    d_gm = asc.GlobalTensor()
    s_gm.set_global_buffer(src, n)
    d_gm.set_global_buffer(dst, n)
    x = asc.LocalTensorAuto(src.dtype, n)
    q = asc.LocalTensorAuto(asc.int8, n)
    asc.data_copy(x, s_gm, n)
    if flip % 2 == 1:
        factor = -1.0
        shift = offset
    else:
        factor = 1.0
        shift = offset
    asc.muls(x, x, factor, n)
    asc.adv.quant(q, x, scale, shift, n)
    asc.data_copy(d_gm, q, n)


@asc.jit
def row_softmax(src: asc.GlobalAddress, dst: asc.GlobalAddress, rows: asc.ConstExpr[int], width: asc.ConstExpr[int]):
    """dst = softmax over each row of a rows x width tile (asc.adv.softmax)."""
    s_gm = asc.GlobalTensor()
    d_gm = asc.GlobalTensor()
    s_gm.set_global_buffer(src)
    d_gm.set_global_buffer(dst)
    x = asc.LocalTensorAuto(src.dtype, rows * width)
    sums = asc.LocalTensorAuto(src.dtype, rows * 8)
    maxs = asc.LocalTensorAuto(src.dtype, rows * 8)
    asc.data_copy(x, s_gm, rows * width)
    x.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (rows, width))))
    asc.adv.softmax(x, sums, maxs, x, asc.adv.SoftmaxTiling())
    asc.data_copy(d_gm, x, rows * width)


@asc.jit
def adv_math(src: asc.GlobalAddress, pos: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """out[k] = the k-th asc.adv math function of src (pos for lgamma/digamma/log/power); one
    LocalTensor per result, each written back to its row of out."""
    s_gm = asc.GlobalTensor()
    p_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    s_gm.set_global_buffer(src)
    p_gm.set_global_buffer(pos)
    o_gm.set_global_buffer(out)
    x = asc.LocalTensorAuto(src.dtype, n)
    p = asc.LocalTensorAuto(src.dtype, n)
    y = asc.LocalTensorAuto(src.dtype, n)
    tmp = asc.LocalTensorAuto(asc.uint8, 1024)
    asc.data_copy(x, s_gm, n)
    asc.data_copy(p, p_gm, n)
    asc.adv.sin(y, x, n)
    asc.data_copy(o_gm[0:n], y, n)
    asc.adv.erf(y, x, n, tmp)
    asc.data_copy(o_gm[n:2 * n], y, n)
    asc.adv.atanh(y, x)
    asc.data_copy(o_gm[2 * n:3 * n], y, n)
    asc.adv.round(y, x, n)
    asc.data_copy(o_gm[3 * n:4 * n], y, n)
    asc.adv.lgamma(y, p, n)
    asc.data_copy(o_gm[4 * n:5 * n], y, n)
    asc.adv.digamma(y, p, n)
    asc.data_copy(o_gm[5 * n:6 * n], y, n)
    asc.adv.power(y, p, x, n)
    asc.data_copy(o_gm[6 * n:7 * n], y, n)
    asc.adv.exp(y, x, n, 0)
    asc.data_copy(o_gm[7 * n:8 * n], y, n)
    asc.adv.log(y, p, n)
    asc.data_copy(o_gm[8 * n:9 * n], y, n)


@asc.jit
def adv_rmsnorm(src: asc.GlobalAddress, gamma: asc.GlobalAddress, dst: asc.GlobalAddress, eps: float,
                tiling: asc.adv.RmsNormTiling, rows: asc.ConstExpr[int], h: asc.ConstExpr[int]):
    """dst = asc.adv.rmsnorm(src, gamma) over rows x h (the lengths read from the tiling struct)."""
    s_gm = asc.GlobalTensor()
    g_gm = asc.GlobalTensor()
    d_gm = asc.GlobalTensor()
    s_gm.set_global_buffer(src)
    g_gm.set_global_buffer(gamma)
    d_gm.set_global_buffer(dst)
    x = asc.LocalTensorAuto(src.dtype, rows * h)
    g = asc.LocalTensorAuto(src.dtype, h)
    y = asc.LocalTensorAuto(src.dtype, rows * h)
    asc.data_copy(x, s_gm, rows * h)
    asc.data_copy(g, g_gm, h)
    asc.adv.rmsnorm(y, x, g, eps, tiling)
    asc.data_copy(d_gm, y, rows * h)


@asc.jit
def _clamp_index(i: int, lo: int, hi: int) -> int:
    """A helper returning from inside runtime ifs (and a loop): the result variable + jump form."""
    if i < lo:
        return lo
    if i > hi:
        return hi
    return i


@asc.jit
def _first_at_least(x_gm: asc.GlobalTensor, n: int, thr: float):
    """(index, value) of the first element >= thr, (-1, 0.0) if none: a return inside a runtime for + if."""
    for j in range(n):
        v = x_gm.get_value(j)
        if v >= thr:
            return j, v
    return -1, 0.0


@asc.jit
def helper_returns(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int, thr: float):
    """out[0..n) = x[clamp(i - 2, 0, n - 5)]; out[n], out[n + 1] = _first_at_least(x, n, thr)."""
    x_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    o_gm.set_global_buffer(out)
    for i in range(n):
        o_gm.set_value(i, x_gm.get_value(_clamp_index(i - 2, 0, n - 5)))
    k, v = _first_at_least(x_gm, n, thr)
    o_gm.set_value(n, k)
    o_gm.set_value(n + 1, v)


@asc.jit
def sync_all_twice(x: asc.GlobalAddress, n: int):
    """x[i] += 1, a grid barrier, x[i] *= 2 (one block: the barrier is a fence)."""
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    for i in range(n):
        g.set_value(i, g.get_value(i) + 1.0)
    asc.sync_all()
    for i in range(n):
        g.set_value(i, g.get_value(i) * 2.0)


@asc.jit
def adv_exp_taylor(src: asc.GlobalAddress, out: asc.GlobalAddress, n: asc.ConstExpr[int],
                   level: asc.ConstExpr[int]):
    """out = asc.adv.exp(src) with the given Taylor expansion level (0: the exponential)."""
    s_gm = asc.GlobalTensor()
    o_gm = asc.GlobalTensor()
    s_gm.set_global_buffer(src)
    o_gm.set_global_buffer(out)
    x = asc.LocalTensorAuto(src.dtype, n)
    y = asc.LocalTensorAuto(src.dtype, n)
    asc.data_copy(x, s_gm, n)
    asc.adv.exp(y, x, n, level)
    asc.data_copy(o_gm, y, n)
