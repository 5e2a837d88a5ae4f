import importlib.metadata
import inspect
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

import pyasc as asc

ROOT = Path(__file__).resolve().parents[2]


def test_version():
    assert asc.__version__ == "0.1.0"
    assert asc.__version__ == asc._C.__version__
    assert asc.__version__ == importlib.metadata.version("pyasc")
    cmake = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\(pyasc VERSION ([0-9.]+)", cmake)
    assert m and m.group(1) == asc.__version__


def _public_objects():
    for name in asc.__all__:
        if name == "__version__":
            continue
        yield f"pyasc.{name}", getattr(asc, name)
    for mod in (asc.errors, asc.stream, asc.memory, asc.device, asc._log):
        for name in mod.__all__:
            yield f"{mod.__name__}.{name}", getattr(mod, name)


def test_every_public_name_has_a_docstring():
    missing = []
    for qualname, obj in _public_objects():
        if isinstance(obj, (str, int, tuple)):
            continue
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(qualname)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not callable(member) and not isinstance(member, property):
                    continue
                if not (getattr(member, "__doc__", None) or "").strip():
                    missing.append(f"{qualname}.{attr}")
    assert not missing, missing


def test_include_and_cmake_dirs():
    inc = Path(asc.get_include())
    assert (inc / "asc" / "core" / "status.h").is_file()
    cmake_dir = Path(asc.get_cmake_dir())
    assert (cmake_dir / "pyascConfig.cmake").is_file()
    assert (cmake_dir / "pyascConfigVersion.cmake").is_file()
    assert Path(asc.cmake_prefix_path) == cmake_dir.parents[2]
    lib = Path(asc.get_library_dir())
    assert any(p.name.startswith("libasc.so") for p in lib.iterdir())


def _find_cmake():
    exe = shutil.which("cmake")
    if exe:
        return exe
    try:
        import cmake  # the PyPI cmake package

        return os.path.join(cmake.CMAKE_BIN_DIR, "cmake")
    except ImportError:
        return None


@pytest.mark.skipif(_find_cmake() is None, reason="cmake not available")
def test_find_package_builds_and_runs(tmp_path):
    """A C++ program builds against the installed package via find_package(pyasc)."""
    (tmp_path / "CMakeLists.txt").write_text(textwrap.dedent("""
        cmake_minimum_required(VERSION 3.18)
        project(uses_pyasc LANGUAGES CXX)
        find_package(pyasc 0.1 REQUIRED)
        add_executable(probe probe.cc)
        target_link_libraries(probe PRIVATE pyasc::asc)
        target_compile_features(probe PRIVATE cxx_std_17)
    """))
    (tmp_path / "probe.cc").write_text(textwrap.dedent("""
        #include <cstdio>
        #include "asc/core/status.h"
        int main() {
          std::printf("%s %s\\n", ASC_VERSION_STRING,
                      asc::error_code_name(asc::ErrorCode::kRtMemoryAllocation));
          return 0;
        }
    """))
    cmake = _find_cmake()
    build = tmp_path / "build"
    cfg = subprocess.run(
        [cmake, "-S", str(tmp_path), "-B", str(build), f"-DCMAKE_PREFIX_PATH={asc.cmake_prefix_path}"],
        capture_output=True, text=True, timeout=300,
    )
    assert cfg.returncode == 0, cfg.stdout + cfg.stderr
    b = subprocess.run([cmake, "--build", str(build)], capture_output=True, text=True, timeout=300)
    assert b.returncode == 0, b.stdout + b.stderr
    exe = build / "probe"
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [asc.__version__, "ACL_ERROR_RT_MEMORY_ALLOCATION"]
