"""Builds and runs every Ascend C example in examples/ascendc against the installed pyasc.

An example is a directory of examples/ascendc with exactly one ``*.asc``
file, a ``gen_data.py`` and a ``verify_result.py`` (see ../README.md). For
each one this test copies the directory to a temporary place, builds the
program with ``pyasc-cc`` (extra flags from an optional ``pyasc-cc.flags``),
runs ``gen_data.py``, the program (its stdout and stderr also go to
``output/run.log``), and ``verify_result.py``; every step must exit with 0.
Adding a directory adds a test. Two more tests build the ``add`` and
``matmul`` examples with CMake and ``asc_add_executable`` from the installed
package config.
"""
import os
import shlex
import shutil
import subprocess
import sys

import pytest

import pyasc

EXAMPLES_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example_dirs():
    out = []
    for name in sorted(os.listdir(EXAMPLES_DIR)):
        d = os.path.join(EXAMPLES_DIR, name)
        if not os.path.isdir(d):
            continue
        if [f for f in os.listdir(d) if f.endswith(".asc")]:
            out.append(name)
    return out


def _run(cmd, cwd, timeout=600, log=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if log is not None:
        with open(log, "w") as f:
            f.write(r.stdout)
            f.write(r.stderr)
    assert r.returncode == 0, (f"{' '.join(map(str, cmd))} exited with {r.returncode}\n"
                               f"--- stdout\n{r.stdout[-6000:]}\n--- stderr\n{r.stderr[-6000:]}")
    return r


def _prepare(name, tmp_path):
    src = os.path.join(EXAMPLES_DIR, name)
    work = tmp_path / name
    shutil.copytree(src, work, ignore=shutil.ignore_patterns("build", "input", "output", "__pycache__"))
    ascs = [f for f in os.listdir(work) if f.endswith(".asc")]
    assert len(ascs) == 1, f"{name}: an example has exactly one .asc file, found {ascs}"
    for script in ("gen_data.py", "verify_result.py"):
        assert (work / script).is_file(), f"{name}: {script} is missing"
    return work, ascs[0]


def _run_example(work, prog):
    _run([sys.executable, "gen_data.py"], work)
    os.makedirs(work / "output", exist_ok=True)
    _run([str(prog)], work, log=work / "output" / "run.log")
    _run([sys.executable, "verify_result.py"], work)


def test_there_are_examples():
    names = example_dirs()
    for required in ("add", "cast", "duplicate", "data_copy_pad", "double_buffer", "printf_dump_assert",
                     "cpu_debug", "vector_repeat", "compare_select", "reduce", "gather_sort",
                     "local_mem_allocator", "matmul_mmad", "matmul", "matmul_leakyrelu"):
        assert required in names


@pytest.mark.parametrize("name", example_dirs())
def test_example_with_pyasc_cc(name, tmp_path):
    work, asc = _prepare(name, tmp_path)
    flags = []
    if (work / "pyasc-cc.flags").is_file():
        flags = shlex.split((work / "pyasc-cc.flags").read_text())
    prog = work / "build" / os.path.splitext(asc)[0]
    os.makedirs(prog.parent, exist_ok=True)
    _run([sys.executable, "-m", "pyasc.tools.cc", *flags, asc, "-o", str(prog)], work)
    _run_example(work, prog)


def test_add_example_with_cmake(tmp_path):
    cmake = shutil.which("cmake")
    assert cmake, "cmake is needed to build the examples with asc_add_executable"
    work, _ = _prepare("add", tmp_path)
    build = work / "build"
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run([cmake, "-S", str(work), "-B", str(build), *gen, "-DCMAKE_BUILD_TYPE=Release",
          f"-DCMAKE_PREFIX_PATH={pyasc.cmake_prefix_path}", f"-DPython3_EXECUTABLE={sys.executable}"], work)
    _run([cmake, "--build", str(build)], work)
    prog = build / "add"
    assert prog.is_file()
    _run_example(work, prog)
    # Editing the .asc re-translates and rebuilds it; nothing else rebuilds.
    gen_cpp = build / "asc_gen" / "add" / "add.asc.cpp"
    assert gen_cpp.is_file()
    text = gen_cpp.read_text()
    assert text.startswith(f'#include "asc/kernel/debug_launch.h"\n#line 1 "{work / "add.asc"}"\n')
    assert '::asc::detail::chevron_launch("add_custom", add_custom, USE_CORE_NUM, nullptr, stream)(' in text
    r = _run([cmake, "--build", str(build)], work)
    assert "Translating" not in r.stdout
    src = (work / "add.asc").read_text()
    (work / "add.asc").write_text(src.replace('std::printf("add_custom: %d elements',
                                              'std::printf("edited add_custom: %d elements'))
    r = _run([cmake, "--build", str(build)], work)
    assert "Translating Ascend C source add.asc" in r.stdout
    out = _run([str(prog)], work)
    assert "edited add_custom: 16384 elements on 8 blocks done" in out.stdout


def test_matmul_example_with_cmake(tmp_path):
    """A kernel that includes the SDK's lib/ and tiling/ headers builds with asc_add_executable."""
    cmake = shutil.which("cmake")
    assert cmake, "cmake is needed to build the examples with asc_add_executable"
    work, _ = _prepare("matmul", tmp_path)
    build = work / "build"
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run([cmake, "-S", str(work), "-B", str(build), *gen, "-DCMAKE_BUILD_TYPE=Release",
          f"-DCMAKE_PREFIX_PATH={pyasc.cmake_prefix_path}", f"-DPython3_EXECUTABLE={sys.executable}"], work)
    _run([cmake, "--build", str(build)], work)
    prog = build / "matmul"
    assert prog.is_file()
    _run_example(work, prog)
