"""CANN's set-up on the CPU: `pyasc-info --cann-home`, its set_env.sh,
find_package(ASC) with the CMake language ASC, run modes, architectures and
the ascendc_* helpers, exercised by a small CMake project built and run the
way the asc-devkit samples' READMEs do it.

Time: the one full build (configure + one kernel TU + link) is shared by the
module (`built` fixture) and compiled at -O0 (the test checks the tool
chain's wiring, not code generation); the other CMake runs stop in the
configure step, and the driver runs no longer import the pyasc package."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("make") is None,
                                reason="needs cmake and make")

KERNEL = r"""
#include <cstdio>
#include <cstdint>
#include <vector>
#include "acl/acl.h"
#include "kernel_operator.h"
#include "tiling/platform/platform_ascendc.h"
#ifdef ASCENDC_CPU_DEBUG
#include "cpu_debug_launch.h"
#endif

constexpr uint32_t N = 64;
constexpr uint32_t BLOCKS = 4;

__global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    AscendC::GlobalTensor<float> xg, yg, zg;
    uint32_t off = AscendC::GetBlockIdx() * N;
    xg.SetGlobalBuffer((__gm__ float*)x + off, N);
    yg.SetGlobalBuffer((__gm__ float*)y + off, N);
    zg.SetGlobalBuffer((__gm__ float*)z + off, N);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * N * sizeof(float));
    AscendC::LocalTensor<float> a = buf.Get<float>();
    AscendC::LocalTensor<float> b = a[N];
    AscendC::LocalTensor<float> c = a[2 * N];
    AscendC::DataCopy(a, xg, N);
    AscendC::DataCopy(b, yg, N);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(a, a, (float)SCENARIO_NUM, N);
    AscendC::Add(c, a, b, N);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(zg, c, N);
}

int main(int argc, char** argv)
{
    const size_t n = N * BLOCKS, bytes = n * sizeof(float);
    std::vector<float> hx(n), hy(n), hz(n);
    FILE* f = std::fopen("input.bin", "rb");
    if (!f || std::fread(hx.data(), 1, bytes, f) != bytes || std::fread(hy.data(), 1, bytes, f) != bytes) return 3;
    std::fclose(f);
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream;
    aclrtCreateStream(&stream);
    void *x, *y, *z;
    aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(x, bytes, hx.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(y, bytes, hy.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    scale_add<<<BLOCKS, nullptr, stream>>>((GM_ADDR)x, (GM_ADDR)y, (GM_ADDR)z);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(hz.data(), bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    f = std::fopen("output.bin", "wb");
    std::fwrite(hz.data(), 1, bytes, f);
    std::fclose(f);
    aclrtFree(x); aclrtFree(y); aclrtFree(z);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    std::printf("npu_arch=%d extra=%d\n", (int)__NPU_ARCH__, (int)EXTRA_DEF);
    // The samples' host-side platform query (no customSocVersion: the SoC of
    // the architecture this file is compiled for).
    auto* plat = platform_ascendc::PlatformAscendCManager::GetInstance();
    uint64_t ub = 0;
    plat->GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    std::printf("soc=%s version=%d aiv=%u ub=%llu\n", plat->GetSocName().c_str(), (int)plat->GetSocVersion(),
                plat->GetCoreNumAiv(), (unsigned long long)ub);
    return 0;
}
"""

CMAKELISTS = """
cmake_minimum_required(VERSION 3.16)
set(CMAKE_ASC_ARCHITECTURES "dav-2201" CACHE STRING "NPU architecture: dav-2201, dav-3510")
find_package(ASC REQUIRED)
project(kernel_samples LANGUAGES ASC CXX)
set(SCENARIO_NUM "1" CACHE STRING "Scenario number")
add_definitions(-DSCENARIO_NUM=${SCENARIO_NUM})
add_executable(demo scale_add.asc)
ascendc_compile_definitions(demo PRIVATE EXTRA_DEF=7)
target_link_libraries(demo PRIVATE tiling_api register platform m)
target_compile_options(demo PRIVATE $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${CMAKE_ASC_ARCHITECTURES}>)
"""


@pytest.fixture(scope="module")
def cann_home():
    p = subprocess.run([sys.executable, "-m", "pyasc.tools.info", "--cann-home"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    home = p.stdout.strip()
    assert os.path.isfile(os.path.join(home, "set_env.sh"))
    return home


def _bash(cmd, cwd, home, timeout=240):
    script = f'source "{home}/set_env.sh"\n{cmd}\n'
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _project(tmp_path):
    (tmp_path / "scale_add.asc").write_text(KERNEL)
    (tmp_path / "CMakeLists.txt").write_text(textwrap.dedent(CMAKELISTS))
    return tmp_path


def test_set_env_exports(cann_home, tmp_path):
    p = _bash('echo "H=$ASCEND_HOME_PATH"; echo "C=$CMAKE_PREFIX_PATH"; echo "P=$PATH"; '
              'echo "L=$LD_LIBRARY_PATH"; echo "Y=$PYTHONPATH"; command -v asc-cc; '
              f'"$ASC_PYTHON" -c "import pyasc.tools.cc as c, os; print(\'I=\' + c.package_dirs()[1])"; '
              f'source "{cann_home}/set_env.sh"; echo "P2=$PATH"', tmp_path, cann_home)
    assert p.returncode == 0, p.stderr
    out = dict(l.split("=", 1) for l in p.stdout.splitlines() if "=" in l)
    assert out["H"] == cann_home
    assert out["C"].split(":")[0] == cann_home
    assert os.path.isfile(os.path.join(cann_home, "lib", "cmake", "ASC", "ASCConfig.cmake"))
    assert out["P"].split(":")[0] == os.path.join(cann_home, "bin")
    assert os.path.join(cann_home, "bin", "asc-cc") in p.stdout
    lib = out["I"]
    assert out["L"].split(":")[0] == lib and os.path.isfile(os.path.join(lib, "libasc.so"))
    assert out["Y"].split(":")[0] == os.path.dirname(os.path.dirname(cann_home))
    # Sourcing twice does not grow PATH.
    assert out["P2"] == out["P"]


def _flat(text):
    """CMake wraps long messages: compare with the whitespace collapsed."""
    return " ".join(text.split())


# One full build for the module (the non-default architecture; dav-2201's
# __NPU_ARCH__ is checked through the driver below).
BUILD_ARCH, BUILD_NUMBER, BUILD_SCENARIO = "dav-3510", 3510, 2


@pytest.fixture(scope="module")
def built(cann_home, tmp_path_factory):
    proj = _project(tmp_path_factory.mktemp("cann_project"))
    p = _bash(f"mkdir -p build && cd build && cmake .. -DCMAKE_ASC_RUN_MODE=cpu "
              f"-DCMAKE_ASC_ARCHITECTURES={BUILD_ARCH} -DSCENARIO_NUM={BUILD_SCENARIO} -DCMAKE_ASC_FLAGS=-O0 "
              f"> cmake.log && make -j2", proj, cann_home, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rng = np.random.default_rng(BUILD_NUMBER)
    x = rng.standard_normal(256).astype(np.float32)
    y = rng.standard_normal(256).astype(np.float32)
    (proj / "build" / "input.bin").write_bytes(x.tobytes() + y.tobytes())
    return proj, x, y


def test_cmake_project_builds_and_runs(built):
    built, x, y = built
    r = subprocess.run(["./demo"], cwd=built / "build", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"npu_arch={BUILD_NUMBER} extra=7" in r.stdout
    z = np.frombuffer((built / "build" / "output.bin").read_bytes(), dtype=np.float32)
    np.testing.assert_allclose(z, x * np.float32(BUILD_SCENARIO) + y, rtol=1e-6)


def test_platform_ascendc_answers_for_the_built_architecture(built):
    built = built[0]
    r = subprocess.run(["./demo"], cwd=built / "build", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    line = next(l for l in r.stdout.splitlines() if l.startswith("soc="))
    out = dict(kv.split("=", 1) for kv in line.split())
    # dav-3510 is the Ascend 950 (SocVersion::ASCEND950 == 4 in CANN's enum).
    assert out["soc"].startswith("Ascend950") and out["version"] == "4"
    import pyasc

    # The same device (and ASC_NUM_CORES) as the demo's.
    assert int(out["aiv"]) == pyasc.device.get_device_properties().num_cores
    assert 0 < int(out["ub"]) <= 248 * 1024


@pytest.mark.parametrize("mode,needs", [("npu", "needs an Ascend NPU"), ("sim", "needs the CANN simulator"),
                                        ("gpu", "is not one of cpu, npu, sim")])
def test_run_modes_other_than_cpu_fail_clearly(cann_home, tmp_path, mode, needs):
    proj = _project(tmp_path)
    p = _bash(f"mkdir -p build && cd build && cmake .. -DCMAKE_ASC_RUN_MODE={mode}", proj, cann_home)
    assert p.returncode != 0
    assert needs in _flat(p.stderr)


def test_default_run_mode_is_npu_as_in_cann(cann_home, tmp_path):
    proj = _project(tmp_path)
    p = _bash("mkdir -p build && cd build && cmake ..", proj, cann_home)
    assert p.returncode != 0 and "CMAKE_ASC_RUN_MODE=npu needs an Ascend NPU" in _flat(p.stderr)


def test_unknown_architecture(cann_home, tmp_path):
    proj = _project(tmp_path)
    p = _bash("mkdir -p build && cd build && cmake .. -DCMAKE_ASC_RUN_MODE=cpu -DCMAKE_ASC_ARCHITECTURES=dav-9999",
              proj, cann_home)
    assert p.returncode != 0 and "dav-9999" in _flat(p.stderr) and "dav-2201 or dav-3510" in _flat(p.stderr)


@pytest.mark.parametrize("arch,number", [("dav-2201", 2201), ("dav-3510", 3510)])
def test_driver_npu_arch_option(cann_home, tmp_path, arch, number):
    src = tmp_path / "a.asc"
    src.write_text(f'static_assert(__NPU_ARCH__ == {number}, "arch");\nint main() {{ return 0; }}\n')
    p = _bash(f"asc-cc --npu-arch={arch} -c {src} -o {tmp_path}/a.o", tmp_path, cann_home)
    assert p.returncode == 0, p.stderr


def test_driver_rejects_unknown_npu_arch(cann_home, tmp_path):
    src = tmp_path / "a.asc"
    src.write_text("int main() { return 0; }\n")
    p = _bash(f"asc-cc --npu-arch=dav-1234 -c {src} -o {tmp_path}/a.o", tmp_path, cann_home)
    assert p.returncode == 2 and "--npu-arch=dav-1234 is not supported" in p.stderr


def test_driver_does_not_import_the_package(cann_home, tmp_path):
    """asc-cc runs cc.py as a file: the pyasc package (NumPy, the C extension)
    costs each compile command ~1.5 s of CPU, and the driver needs none of it."""
    log = tmp_path / "imports.log"
    py = tmp_path / "py"
    py.write_text(f'#!/bin/sh\nexec "{sys.executable}" -X importtime "$@" 2>"{log}"\n')
    py.chmod(0o755)
    p = _bash(f'ASC_PYTHON="{py}" asc-cc --print-include-dir', tmp_path, cann_home)
    assert p.returncode == 0, p.stderr
    assert os.path.isfile(os.path.join(p.stdout.strip(), "kernel_operator.h"))
    mods = [l.rsplit("|", 1)[-1].strip() for l in log.read_text().splitlines() if "|" in l]
    assert "asc_translate" in mods
    assert not [m for m in mods if m.split(".")[0] in ("pyasc", "numpy")], mods


def test_kernel_named_like_a_libc_function(cann_home, tmp_path):
    """Samples name kernels `abs` or `select`, next to ::abs(int) and POSIX
    ::select: the <<<>>> launch picks the kernel out of the overload set."""
    src = tmp_path / "abs.asc"
    src.write_text(r"""
#include <cstdlib>
#include <cstdio>
#include <sys/select.h>
#include "acl/acl.h"
#include "kernel_operator.h"
__global__ __aicore__ void abs(GM_ADDR x, GM_ADDR y) { ((int*)y)[0] = -((int*)x)[0]; }
__global__ __aicore__ void select(GM_ADDR x) { ((int*)x)[0] += 1; }
int main() {
  aclInit(nullptr); aclrtSetDevice(0); aclrtStream s; aclrtCreateStream(&s);
  void *x, *y; aclrtMalloc(&x, 64, ACL_MEM_MALLOC_HUGE_FIRST); aclrtMalloc(&y, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  int v = -5; aclrtMemcpy(x, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE);
  abs<<<1, nullptr, s>>>((GM_ADDR)x, (GM_ADDR)y);
  select<<<1, nullptr, s>>>((GM_ADDR)y);
  aclrtSynchronizeStream(s);
  int r = 0; aclrtMemcpy(&r, 4, y, 4, ACL_MEMCPY_DEVICE_TO_HOST);
  std::printf("r=%d libc=%d\n", r, std::abs(-3));
  return 0;
}
""")
    p = _bash(f"asc-cc -O0 {src} -o {tmp_path}/abs_demo && {tmp_path}/abs_demo", tmp_path, cann_home)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "r=6 libc=3" in p.stdout


def test_mix_kernels_launch_one_aic_and_their_aivs_per_block(cann_home, tmp_path):
    """`__mix__(1, 2)` kernels (a template declared in a local header, and a
    plain one) launch blockDim groups of one AIC and two AIVs, each with
    CANN's indices; a mode-2 flag hands GM data from the AIC to its AIVs."""
    (tmp_path / "mix_kernel.h").write_text(r"""
#pragma once
#include "kernel_operator.h"
template <int SCALE>
__global__ __mix__(1, 2) __aicore__ void mix_scale(GM_ADDR buf, GM_ADDR out) {
  auto* b = (__gm__ int64_t*)buf;
  auto* o = (__gm__ int64_t*)out;
  if ASCEND_IS_AIC {
    b[AscendC::GetBlockIdx()] = (AscendC::GetBlockIdx() + 1) * SCALE;
    AscendC::CrossCoreSetFlag<2, PIPE_FIX>(1);
  }
  if ASCEND_IS_AIV {
    AscendC::CrossCoreWaitFlag(1);
    const int64_t i = AscendC::GetBlockIdx();
    o[i] = b[i / 2] * 10 + AscendC::GetSubBlockIdx() + 100 * AscendC::GetTaskRatio();
  }
}
""")
    src = tmp_path / "mix.asc"
    src.write_text(r"""
#include <cstdio>
#include "acl/acl.h"
#include "mix_kernel.h"
__global__ __mix__(1, 2) void mix_count(GM_ADDR out) {
  if ASCEND_IS_AIV { ((int64_t*)out)[AscendC::GetBlockIdx()] = AscendC::GetBlockNum(); }
}
int main() {
  aclInit(nullptr); aclrtSetDevice(0); aclrtStream s; aclrtCreateStream(&s);
  int64_t buf[3] = {0}, out[6] = {0}, cnt[6] = {0};
  mix_scale<7><<<3, nullptr, s>>>((GM_ADDR)buf, (GM_ADDR)out);
  mix_count<<<3, nullptr, s>>>((GM_ADDR)cnt);
  if (aclrtSynchronizeStream(s) != 0) return 1;
  for (int i = 0; i < 6; ++i) std::printf("%lld/%lld ", (long long)out[i], (long long)cnt[i]);
  std::printf("\n");
  return 0;
}
""")
    p = _bash(f"asc-cc -O0 {src} -o {tmp_path}/mix_demo && {tmp_path}/mix_demo", tmp_path, cann_home)
    assert p.returncode == 0, p.stdout + p.stderr
    # AIV i reads its AIC's (i / 2 + 1) * 7; sub-block i % 2; ratio 2; 6 AIVs over 3 blocks.
    want = " ".join(f"{((i // 2 + 1) * 7) * 10 + i % 2 + 200}/3" for i in range(6))
    assert want in p.stdout, p.stdout


def test_translator_finds_mix_declarations():
    from pyasc.tools import asc_translate as t
    src = ("// __mix__(1, 2) void commented(\n"
           "template <int N> __global__ __mix__( 1 , 1 ) __aicore__ void k1(GM_ADDR x);\n"
           "__global__ __mix__(0, 1) void k2(GM_ADDR x) {}\n"
           "__global__ __aicore__ void k3(GM_ADDR x) {}\n"
           "void h() { k1<4><<<2, nullptr, s>>>(x); ns::k2<<<1, 0, s>>>(x); k3<<<1, 0, s>>>(x); }\n")
    assert t.mix_kernels(src) == {"k1": (1, 1), "k2": (0, 1)}
    out = t.translate(src, prologue=False)
    assert '::asc::detail::chevron_launch_mix<1, 1>("k1<4>", k1<4>, 2, nullptr, s)(x)' in out
    assert '::asc::detail::chevron_launch_mix<0, 1>("ns::k2", ns::k2, 1, 0, s)(x)' in out
    assert '::asc::detail::chevron_launch("k3", k3, 1, 0, s)(x)' in out
    assert out.count("\n") == src.count("\n")
