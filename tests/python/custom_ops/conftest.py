"""Shared by the custom-operator tests: the test extensions are built once per session into a
temporary cache directory (C++ builds are slow on a small machine); ccache, when installed, makes
a later session's builds cheap (objects are compiled separately from the link for that)."""
import contextlib
import os
import shutil
from pathlib import Path

import pytest

KERNELS = Path(__file__).parent / "kernels"


@contextlib.contextmanager
def build_env(cache_dir):
    """PYASC_EXTENSIONS_DIR=cache_dir and, when ccache exists and CXX is unset, CXX="ccache g++"
    while building (both restored after)."""
    saved = {k: os.environ.get(k) for k in ("CXX", "PYASC_EXTENSIONS_DIR")}
    os.environ["PYASC_EXTENSIONS_DIR"] = str(cache_dir)
    if saved["CXX"] is None and shutil.which("ccache"):
        os.environ["CXX"] = "ccache g++"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def ext_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("pyasc_extensions")


@pytest.fixture(scope="session")
def scale_add_ext(ext_cache):
    """The scale_add Ascend C kernel + pybind11 launcher (kernels/scale_add.asc), built once."""
    from pyasc.utils import cpp_extension

    with build_env(ext_cache):
        return cpp_extension.load("scale_add_ext", [str(KERNELS / "scale_add.asc")])


@pytest.fixture(scope="session")
def op_library(ext_cache):
    """kernels/my_ops.cpp built as an operator library (a plain shared library), once."""
    from pyasc.utils import cpp_extension

    with build_env(ext_cache):
        return cpp_extension.load("my_ops", [str(KERNELS / "my_ops.cpp")], is_python_module=False)
