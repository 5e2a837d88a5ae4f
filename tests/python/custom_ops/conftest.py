"""Shared by the custom-operator tests: the test extensions are built once per session into a
temporary cache directory (C++ builds are slow on a small machine); ccache, when installed, makes
a later session's builds cheap (objects are compiled separately from the link for that)."""
import pytest

from ext_helpers import KERNELS, build_env


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
