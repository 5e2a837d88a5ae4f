#!/usr/bin/env python3
"""@asc.jit vs the same kernel as a .asc file, same process, same run.

The kernel is the tutorials' double-buffered vadd (TPipe, two-deep TQues,
copy_in / compute / copy_out helpers, 4096-element tiles). The ``.asc`` twin
is written in Ascend C, built with ``pyasc-cc -shared`` and launched through
a ``kernel<<<blocks, nullptr, stream>>>`` + ``aclrtSynchronizeStream``
function called with ctypes; the jit kernel is launched as
``kernel[blocks, stream](x, y, z, ...)`` (which also waits for the kernel).

Prints:

* throughput on 2^24 float32 (median of alternating rounds) and the ratio
  asc_time / jit_time (issue goal >= 0.95);
* the first call of a kernel: translation + C++ compile (cold cache with the
  precompiled prelude built once, and a new kernel with the prelude ready;
  goal <= 3 s), and a cached call's translation-free path;
* the launch overhead of a cached jit call over the .asc launch on a one-tile
  problem (goal <= 20 us), both measured through their Python entry points.

    python benchmarks/bench_jit.py [--log2n 24] [--rounds 11] [--blocks N] [--calls 2000]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import statistics
import sys
import tempfile
import time

import numpy as np

TILE = 4096

ASC_SOURCE = r'''
#include "kernel_operator.h"
#include "acl/acl.h"

constexpr int64_t TILE = %(tile)d;

extern "C" __global__ __aicore__ void vadd_asc(GM_ADDR x, GM_ADDR y, GM_ADDR z, int64_t blockLength) {
  const int64_t off = AscendC::GetBlockIdx() * blockLength;
  AscendC::GlobalTensor<float> xg, yg, zg;
  xg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + off, blockLength);
  yg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + off, blockLength);
  zg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + off, blockLength);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> qx, qy;
  AscendC::TQue<AscendC::TPosition::VECOUT, 2> qz;
  pipe.InitBuffer(qx, 2, TILE * sizeof(float));
  pipe.InitBuffer(qy, 2, TILE * sizeof(float));
  pipe.InitBuffer(qz, 2, TILE * sizeof(float));
  for (int64_t i = 0; i < blockLength / TILE; ++i) {
    AscendC::LocalTensor<float> xl = qx.AllocTensor<float>();
    AscendC::LocalTensor<float> yl = qy.AllocTensor<float>();
    AscendC::DataCopy(xl, xg[i * TILE], TILE);
    AscendC::DataCopy(yl, yg[i * TILE], TILE);
    qx.EnQue(xl);
    qy.EnQue(yl);
    AscendC::LocalTensor<float> xa = qx.DeQue<float>();
    AscendC::LocalTensor<float> ya = qy.DeQue<float>();
    AscendC::LocalTensor<float> zl = qz.AllocTensor<float>();
    AscendC::Add(zl, xa, ya, TILE);
    qz.EnQue(zl);
    qx.FreeTensor(xa);
    qy.FreeTensor(ya);
    AscendC::LocalTensor<float> zo = qz.DeQue<float>();
    AscendC::DataCopy(zg[i * TILE], zo, TILE);
    qz.FreeTensor(zo);
  }
}

extern "C" int run_vadd(uint32_t blocks, void* stream, void* x, void* y, void* z, int64_t blockLength) {
  vadd_asc<<<blocks, nullptr, stream>>>(reinterpret_cast<GM_ADDR>(x), reinterpret_cast<GM_ADDR>(y),
                                        reinterpret_cast<GM_ADDR>(z), blockLength);
  return aclrtSynchronizeStream(stream);
}
'''

JIT_SOURCE = '''
import asc

TILE = %(tile)d


@asc.jit
def vadd_jit(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    in_x = asc.TQue(asc.TPosition.VECIN, 2)
    in_y = asc.TQue(asc.TPosition.VECIN, 2)
    out_z = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(in_x, 2, TILE * x.dtype.sizeof())
    pipe.init_buffer(in_y, 2, TILE * y.dtype.sizeof())
    pipe.init_buffer(out_z, 2, TILE * z.dtype.sizeof())
    for i in range(block_length // TILE):
        copy_in(i, x_gm, y_gm, in_x, in_y)
        compute(z_gm, in_x, in_y, out_z)
        copy_out(i, z_gm, out_z)


@asc.jit
def copy_in(i: int, x_gm: asc.GlobalTensor, y_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue):
    x_local = in_x.alloc_tensor(x_gm.dtype)
    y_local = in_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * TILE:], TILE)
    asc.data_copy(y_local, y_gm[i * TILE:], TILE)
    in_x.enque(x_local)
    in_y.enque(y_local)


@asc.jit
def compute(z_gm: asc.GlobalTensor, in_x: asc.TQue, in_y: asc.TQue, out_z: asc.TQue):
    x_local = in_x.deque(z_gm.dtype)
    y_local = in_y.deque(z_gm.dtype)
    z_local = out_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, TILE)
    out_z.enque(z_local)
    in_x.free_tensor(x_local)
    in_y.free_tensor(y_local)


@asc.jit
def copy_out(i: int, z_gm: asc.GlobalTensor, out_z: asc.TQue):
    z_local = out_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * TILE:], z_local, TILE)
    out_z.free_tensor(z_local)
'''


def build_asc(tmp):
    src = os.path.join(tmp, "vadd_asc.asc")
    with open(src, "w") as f:
        f.write(ASC_SOURCE % {"tile": TILE})
    so = os.path.join(tmp, "libvadd_asc.so")
    from pyasc.tools import cc  # noqa: PLC0415 - pyasc-cc, in this process
    rc = cc.main(["-shared", "-fPIC", src, "-o", so])
    if rc != 0:
        sys.exit(f"pyasc-cc -shared {src} failed with status {rc}")
    lib = ctypes.CDLL(so)
    lib.run_vadd.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_int64]
    lib.run_vadd.restype = ctypes.c_int
    return lib


def load_jit_module(tmp, name):
    path = os.path.join(tmp, f"{name}.py")
    with open(path, "w") as f:
        f.write(JIT_SOURCE % {"tile": TILE})
    sys.path.insert(0, tmp)
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--blocks", type=int, default=0, help="blocks (default: the device's cores)")
    p.add_argument("--calls", type=int, default=2000, help="launches for the overhead measurement")
    args = p.parse_args()

    tmp = tempfile.mkdtemp(prefix="bench-jit-")
    os.environ["PYASC_CACHE_DIR"] = os.path.join(tmp, "cache")   # a cold kernel cache for this run
    import pyasc
    import asc  # noqa: F401
    import asc.lib.runtime as rt

    blocks = args.blocks or pyasc.get_device_properties().num_cores
    load = os.getloadavg()
    print(f"bench_jit: {blocks} blocks, {os.cpu_count()} CPUs, load average {load[0]:.1f} / {load[1]:.1f} "
          f"(1 / 5 min)")

    # ---- first calls: translation + compile
    m1 = load_jit_module(tmp, "jit_cold")
    n_small = blocks * TILE
    xs = np.ones(n_small, np.float32)
    ys = np.ones(n_small, np.float32)
    zs = np.zeros(n_small, np.float32)
    stream = rt.current_stream()
    t0 = time.perf_counter()
    m1.vadd_jit[blocks, stream](xs, ys, zs, TILE)
    cold = time.perf_counter() - t0
    assert (zs == 2).all()
    # A second kernel (different source) with the precompiled prelude already built.
    m2 = load_jit_module(tmp, "jit_warm")
    m2.TILE = TILE  # same constant; the module name and line numbers make the C++ differ
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    m2.vadd_jit[blocks, stream](xs, ys, zs, TILE)
    first = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    first_cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    ck = m2.vadd_jit.last_compiled
    # The same kernel in a new JITFunction: translation + disk-cache hit (what a new process pays).
    again = type(m2.vadd_jit)(m2.vadd_jit.fn)
    t0 = time.perf_counter()
    again[blocks, stream](xs, ys, zs, TILE)
    disk_hit = time.perf_counter() - t0
    assert again.last_compiled.compiled_now is False and again.last_compiled.lib_path == ck.lib_path

    lib = build_asc(tmp)
    handle = stream.handle

    # ---- throughput on 2^log2n float32
    n = 1 << args.log2n
    block_len = n // blocks // TILE * TILE
    n_used = block_len * blocks
    x = np.random.default_rng(0).random(n_used, dtype=np.float32)
    y = np.random.default_rng(1).random(n_used, dtype=np.float32)
    z1 = np.zeros_like(x)
    z2 = np.zeros_like(x)
    kern = m2.vadd_jit[blocks, stream]
    xp, yp, z2p = x.ctypes.data, y.ctypes.data, z2.ctypes.data
    t_jit, t_asc = [], []
    kern(x, y, z1, block_len)
    lib.run_vadd(blocks, handle, xp, yp, z2p, block_len)
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        kern(x, y, z1, block_len)
        t_jit.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rc = lib.run_vadd(blocks, handle, xp, yp, z2p, block_len)
        t_asc.append(time.perf_counter() - t0)
        assert rc == 0
    ok = np.array_equal(z1, x + y) and np.array_equal(z2, x + y)
    mj, ma = statistics.median(t_jit), statistics.median(t_asc)
    gbs = 3 * n_used * 4 / mj / 1e9
    print(f"vadd 2^{args.log2n} float32 ({n_used} elements, {TILE}-element tiles): jit {mj * 1e3:.3f} ms "
          f"({gbs:.1f} GB/s), .asc {ma * 1e3:.3f} ms; ratio asc/jit {ma / mj:.3f} (goal >= 0.95)"
          f"{'' if ok else '  RESULTS DIFFER'}  [best {min(t_jit) * 1e3:.3f} / {min(t_asc) * 1e3:.3f} ms]")

    # ---- launch overhead on one tile per block
    xo = np.ones(TILE, np.float32)
    zo = np.zeros(TILE, np.float32)
    xop, zop = xo.ctypes.data, zo.ctypes.data
    one = m2.vadd_jit[1, stream]
    for _ in range(50):
        one(xo, xo, zo, TILE)
        lib.run_vadd(1, handle, xop, xop, zop, TILE)
    jit_us, asc_us, jit_cpu, asc_cpu = [], [], [], []
    per = max(1, args.calls // 10)
    for _ in range(10):   # interleaved batches: both see the same machine load
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(per):
            one(xo, xo, zo, TILE)
        jit_us.append((time.perf_counter() - t0) / per * 1e6)
        jit_cpu.append((time.thread_time() - c0) / per * 1e6)
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(per):
            lib.run_vadd(1, handle, xop, xop, zop, TILE)
        asc_us.append((time.perf_counter() - t0) / per * 1e6)
        asc_cpu.append((time.thread_time() - c0) / per * 1e6)
    oj, oa = statistics.median(jit_us), statistics.median(asc_us)
    cj, ca = statistics.median(jit_cpu), statistics.median(asc_cpu)
    print(f"first call (translate + compile): cold cache {cold:.2f} s (includes building the precompiled "
          f"prelude), new kernel {first:.2f} s wall, {first_cpu:.2f} s compiler CPU (goal <= 3 s); new process "
          f"(translate + disk hit) "
          f"{disk_hit * 1e3:.1f} ms")
    print(f"launch of a cached kernel, 1 block x {TILE} floats, launch + wait (median of 10 interleaved batches): "
          f"jit {oj:.1f} us, .asc {oa:.1f} us wall, overhead {oj - oa:.1f} us (goal <= 20 us); calling thread's CPU "
          f"per call: jit {cj:.1f} us, .asc {ca:.1f} us, overhead {cj - ca:.1f} us")


if __name__ == "__main__":
    main()
