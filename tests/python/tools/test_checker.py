"""The kernel checker end to end: `pyasc-cc --check` programs and asc.debug.check_kernels(True)."""
import ctypes
import os
import subprocess
import sys

import pytest

import pyasc as asc

CHECK = 507015  # ACL_ERROR_RT_AICORE_EXCEPTION


def run_cc(args, cwd):
    r = subprocess.run([sys.executable, "-m", "pyasc.tools.cc", *args], cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def run_prog(cwd, env_extra=None):
    env = dict(os.environ)
    env.pop("ASCEND_DEBUG", None)
    env.update(env_extra or {})
    return subprocess.run(["./prog"], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def report_lines(stderr):
    return [l for l in stderr.split("\n") if l.startswith("[kernel check]")]


# A canonical double-buffered add whose host part sizes the buffers for
# 2000 floats while 4 blocks of 512 floats are launched: block 3 reads past x.
ADD = r'''#include <cstdio>
#include "acl/acl.h"
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE = 256, TILES = 2, BLOCK = TILE * TILES;

class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    xGm.SetGlobalBuffer((__gm__ float*)x + BLOCK * AscendC::GetBlockIdx());
    yGm.SetGlobalBuffer((__gm__ float*)y + BLOCK * AscendC::GetBlockIdx());
    zGm.SetGlobalBuffer((__gm__ float*)z + BLOCK * AscendC::GetBlockIdx());
    pipe.InitBuffer(inX, BUFFER_NUM, TILE * sizeof(float));
    pipe.InitBuffer(inY, BUFFER_NUM, TILE * sizeof(float));
    pipe.InitBuffer(outZ, BUFFER_NUM, TILE * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t i = 0; i < TILES; ++i) {
      AscendC::LocalTensor<float> a = inX.AllocTensor<float>(), b = inY.AllocTensor<float>();
      AscendC::DataCopy(a, xGm[i * TILE], TILE);
      AscendC::DataCopy(b, yGm[i * TILE], TILE);
      inX.EnQue(a);
      inY.EnQue(b);
      a = inX.DeQue<float>();
      b = inY.DeQue<float>();
      AscendC::LocalTensor<float> c = outZ.AllocTensor<float>();
      AscendC::Add(c, a, b, TILE);
      outZ.EnQue(c);
      inX.FreeTensor(a);
      inY.FreeTensor(b);
      c = outZ.DeQue<float>();
      AscendC::DataCopy(zGm[i * TILE], c, TILE);
      outZ.FreeTensor(c);
    }
  }

 private:
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inX, inY;
  AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outZ;
  AscendC::GlobalTensor<float> xGm, yGm, zGm;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  KernelAdd op;
  op.Init(x, y, z);
  op.Process();
}

int main() {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  const size_t bytes = 2000 * sizeof(float);
  uint8_t *x, *y, *z;
  aclrtMalloc((void**)&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  for (int i = 0; i < 2000; ++i) ((float*)x)[i] = (float)i, ((float*)y)[i] = 1.0f;
  add_custom<<<3, nullptr, stream>>>(x, y, z);  // 1536 floats: in bounds
  int rc1 = aclrtSynchronizeStream(stream);
  add_custom<<<4, nullptr, stream>>>(x, y, z);  // 2048 floats: block 3 overruns
  int rc2 = aclrtSynchronizeStream(stream);
  std::printf("rc1=%d rc2=%d z1535=%g\n", rc1, rc2, ((float*)z)[1535]);
  std::printf("msg=%s\n", aclGetRecentErrMsg());
  aclrtFree(x);
  aclrtFree(y);
  aclrtFree(z);
  aclrtDestroyStream(stream);
  aclFinalize();
  return 0;
}
'''


def test_pyasc_cc_check_reports_a_gm_overrun(tmp_path):
    (tmp_path / "add.asc").write_text(ADD)
    run_cc(["add.asc", "--check", "-o", "prog"], cwd=tmp_path)
    p = run_prog(tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"rc1=0 rc2={CHECK} z1535=1536" in p.stdout, p.stdout + p.stderr
    line = ("[kernel check] gm-out-of-bounds: kernel 'add_custom' block 3/4: DataCopy: reads GM bytes [7168, 8192) "
            "of a 8000-byte allocation")
    assert report_lines(p.stderr) == [line], p.stderr
    assert line in p.stdout  # aclGetRecentErrMsg() carries the report
    # Built without --check the same program runs unchecked (nothing reported,
    # the overrun reads the pool's slack), and ASCEND_DEBUG=1 turns it back on.
    run_cc(["add.asc", "-o", "prog"], cwd=tmp_path)
    p = run_prog(tmp_path)
    assert "rc1=0 rc2=0" in p.stdout and report_lines(p.stderr) == [], p.stdout + p.stderr
    p = run_prog(tmp_path, {"ASCEND_DEBUG": "1"})
    assert f"rc2={CHECK}" in p.stdout and report_lines(p.stderr) == [line], p.stdout + p.stderr


# Two classic bugs at once: a DataCopy length of 100 floats (400 bytes, not a
# multiple of 32) and an output offset that forgot the block index.
SCALE = r'''#include <cstdio>
#include "acl/acl.h"
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y) {
  constexpr uint32_t N = 100;
  AscendC::GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer((__gm__ float*)x + 128 * AscendC::GetBlockIdx(), 128);
  gy.SetGlobalBuffer((__gm__ float*)y, 128);
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 128 * sizeof(float));
  AscendC::LocalTensor<float> t = q.AllocTensor<float>();
  AscendC::DataCopy(t, gx, N);
  AscendC::Muls(t, t, 2.0f, N);
  AscendC::DataCopy(gy, t, N);
  q.FreeTensor(t);
}

int main() {
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  uint8_t *x, *y;
  aclrtMalloc((void**)&x, 256 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&y, 256 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemset(y, 256 * sizeof(float), 0, 256 * sizeof(float));
  for (int i = 0; i < 256; ++i) ((float*)x)[i] = 1.0f;
  scale<<<2, nullptr, stream>>>(x, y);
  int rc = aclrtSynchronizeStream(stream);
  std::printf("rc=%d y95=%g y96=%g\n", rc, ((float*)y)[95], ((float*)y)[96]);
  aclrtFree(x);
  aclrtFree(y);
  aclrtDestroyStream(stream);
  aclFinalize();
  return 0;
}
'''


def test_pyasc_cc_check_reports_round_down_and_a_race(tmp_path):
    (tmp_path / "scale.asc").write_text(SCALE)
    run_cc(["scale.asc", "--check", "-o", "prog"], cwd=tmp_path)
    p = run_prog(tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    # The kernel ran to its end with the hardware's rounding (96 floats).
    assert f"rc={CHECK} y95=2 y96=0" in p.stdout, p.stdout + p.stderr
    round_down = ("[kernel check] copy-round-down: kernel 'scale' block {}/2: DataCopy: 100 elements of 4 bytes = 400 "
                  "bytes is not a multiple of 32: the hardware copies only 384 bytes (use DataCopyPad for unaligned "
                  "lengths)")
    race = ("[kernel check] gm-write-race: kernel 'scale' block 1/2: DataCopy: writes GM bytes [0, 384) of a 1024-byte "
            "allocation that block 0 also writes (DataCopy), without atomics")
    lines = report_lines(p.stderr)
    # The blocks run concurrently: their own reports come in either order; the
    # race is found when the launch ends.
    assert sorted(lines[:2]) == [round_down.format(0), round_down.format(1)], p.stderr
    assert lines[2:] == [race], p.stderr


LEAKY = r'''#include "acl/acl.h"
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void leaky(GM_ADDR x) {
  AscendC::TPipe pipe;
  AscendC::TQue<AscendC::TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 512);
  AscendC::GlobalTensor<float> g;
  g.SetGlobalBuffer((__gm__ float*)x, 128);
  AscendC::LocalTensor<float> t = q.AllocTensor<float>();
  AscendC::DataCopy(t, g, 128);
  q.EnQue(t);  // never dequeued
}

extern "C" int run_leaky() {
  aclrtStream s = nullptr;
  if (aclrtCreateStream(&s)) return -1;
  void* x = nullptr;
  aclrtMalloc(&x, 512, ACL_MEM_MALLOC_HUGE_FIRST);
  leaky<<<1, nullptr, s>>>((uint8_t*)x);
  int rc = aclrtSynchronizeStream(s);
  aclrtFree(x);
  aclrtDestroyStream(s);
  return rc;
}
'''


@pytest.fixture
def leaky_lib(tmp_path):
    (tmp_path / "leaky.asc").write_text(LEAKY)
    run_cc(["-shared", "-fPIC", "leaky.asc", "-o", "libleaky.so"], cwd=tmp_path)  # no --check
    lib = ctypes.CDLL(str(tmp_path / "libleaky.so"))
    lib.run_leaky.restype = ctypes.c_int
    return lib


def test_check_kernels_from_python(leaky_lib, capfd):
    was = asc.debug.kernel_checks_enabled()
    asc.debug.check_kernels(False)
    asc.debug.clear_check_reports()
    assert leaky_lib.run_leaky() == 0  # unchecked: the leak goes unnoticed
    assert asc.debug.check_reports() == []
    asc.debug.check_kernels(True)
    try:
        assert asc.debug.kernel_checks_enabled()
        rc = leaky_lib.run_leaky()
    finally:
        asc.debug.check_kernels(was)
    assert rc == CHECK
    text = ("[kernel check] tensor-leak: kernel 'leaky' block 0/1: kernel exit: the VECIN queue at UB offset 0 (2 "
            "buffers of 512 bytes) still holds 0 allocated and 1 enqueued tensor (every AllocTensor needs a "
            "FreeTensor, every EnQue a DeQue)")
    assert asc.debug.check_reports() == [{
        "finding": "tensor-leak",
        "kernel": "leaky",
        "block": 0,
        "block_num": 1,
        "instruction": "kernel exit",
        "detail": text.split("kernel exit: ", 1)[1],
        "text": text,
    }]
    assert report_lines(capfd.readouterr().err) == [text]
    asc.debug.clear_check_reports()
    assert asc.debug.check_reports() == []
