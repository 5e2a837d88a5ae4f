"""asc.load_op_library: ASC_REGISTER_OP declarations (include/asc/op_library.h) become asc.ops.<name>
with shape inference; unload, reload of a rebuilt library, explicit paths only, errors."""
import shutil

import numpy as np
import pytest

import pyasc as asc
from pyasc.utils import cpp_extension

from ext_helpers import KERNELS, build_env


@pytest.fixture
def lib(op_library, tmp_path):
    path = tmp_path / "libmy_ops.so"
    shutil.copyfile(op_library, path)
    lib = asc.load_op_library(str(path))
    yield lib
    if lib.loaded:
        lib.unload()


def test_ops_are_published_and_compute(lib):
    assert sorted(lib.ops) == ["Fail", "RowMax", "ScaledAdd"]
    assert {"Fail", "RowMax", "ScaledAdd"} <= set(asc.ops.registered())
    assert "z = x + alpha * y" in asc.ops.ScaledAdd.__doc__ and "alpha: float" in asc.ops.ScaledAdd.__doc__
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        x, y = rng.standard_normal((3, 5)).astype(dt), rng.standard_normal((3, 5)).astype(dt)
        z = asc.ops.ScaledAdd(asc.array(x), asc.array(y), alpha=0.5)
        assert z.dtype == asc.asarray(x).dtype and z.shape == (3, 5)
        np.testing.assert_allclose(z.numpy(), x + 0.5 * y, rtol=1e-6)
    # non-contiguous inputs are made contiguous first
    big = rng.standard_normal((6, 8)).astype(np.float32)
    m = asc.ops.RowMax(asc.asarray(big)[::2, ::-1])
    np.testing.assert_array_equal(m.numpy(), big[::2, ::-1].max(axis=-1))
    # empty leading axis
    assert asc.ops.RowMax(asc.zeros((0, 4), dtype=asc.float32)).shape == (0,)


def test_shape_inference(lib):
    assert asc.ops.RowMax.infer((2, 3, 4), "float32") == ((2, 3), np.dtype("float32"))
    assert asc.ops.ScaledAdd.infer([(7,), (7,)], ["float64", "float64"], alpha=1.0) == ((7,), np.dtype("float64"))
    with pytest.raises(asc.AscendValueError, match=r"\[ScaledAdd\] InferShape failed.*shapes differ"):
        asc.ops.ScaledAdd(asc.ones(3), asc.ones(4), alpha=1.0)
    with pytest.raises(asc.AscendValueError, match="float32 only"):
        asc.ops.RowMax(asc.ones((2, 2), dtype=asc.float64))


def test_errors(lib):
    with pytest.raises(asc.AscendRuntimeError, match=r"\[Fail\] kernel failed: deliberate failure"):
        asc.ops.Fail(asc.ones(2))
    with pytest.raises(asc.AscendTypeError, match="missing attribute 'alpha'"):
        asc.ops.ScaledAdd(asc.ones(2), asc.ones(2))
    with pytest.raises(asc.AscendTypeError, match="unknown attribute"):
        asc.ops.ScaledAdd(asc.ones(2), asc.ones(2), alpha=1.0, beta=2)
    with pytest.raises(asc.AscendTypeError, match="must be a float"):
        asc.ops.ScaledAdd(asc.ones(2), asc.ones(2), alpha="x")
    with pytest.raises(asc.AscendTypeError, match="takes 2 inputs"):
        asc.ops.ScaledAdd(asc.ones(2), alpha=1.0)
    with pytest.raises(asc.AscendTypeError, match="dtype complex128"):
        asc.ops.RowMax(asc.ones(2, dtype=asc.complex128))
    with pytest.raises(asc.AscendNotImplementedError, match="no gradient"):
        asc.grad(lambda x: asc.ops.RowMax(x).sum())(np.ones((2, 2), np.float32))


def test_unload_and_reload(lib, op_library, tmp_path, ext_cache):
    op = asc.ops.ScaledAdd
    lib.unload()
    assert not lib.loaded and not hasattr(asc.ops, "ScaledAdd") and "RowMax" not in asc.ops.registered()
    with pytest.raises(asc.AscendRuntimeError, match="was unloaded"):
        op(asc.ones(2), asc.ones(2), alpha=1.0)
    with pytest.raises(asc.AscendValueError, match="not loaded"):
        lib.unload()
    # a rebuilt library at the same path (alpha scaled by MY_OPS_VERSION=3) is new code after reload
    with build_env(ext_cache):
        v3 = cpp_extension.load("my_ops", [str(KERNELS / "my_ops.cpp")], extra_cflags=["-DMY_OPS_VERSION=3"],
                                is_python_module=False)
    shutil.copyfile(v3, lib.path)
    lib.reload()
    z = asc.ops.ScaledAdd(asc.ones(2), asc.ones(2), alpha=1.0)
    np.testing.assert_array_equal(z.numpy(), [4.0, 4.0])
    shutil.copyfile(op_library, lib.path)
    lib.reload()
    np.testing.assert_array_equal(asc.ops.ScaledAdd(asc.ones(2), asc.ones(2), alpha=1.0).numpy(), [2.0, 2.0])
    # loading a loaded path returns the same library
    assert asc.load_op_library(lib.path) is lib


def test_clash_with_a_registered_name(op_library, tmp_path):
    @asc.register_op("RowMax")
    def row_max(ctx, x):
        return asc.max(x, axis=-1)

    try:
        path = tmp_path / "lib2.so"
        shutil.copyfile(op_library, path)
        with pytest.raises(asc.AscendValueError, match="'RowMax' is already registered"):
            asc.load_op_library(str(path))
        # nothing of the failed library stays registered
        assert "ScaledAdd" not in asc.ops.registered() and asc.ops.RowMax is row_max
    finally:
        asc.ops.unregister("RowMax")


def test_explicit_paths_only(tmp_path):
    with pytest.raises(asc.AscendValueError, match="not an explicit path"):
        asc.load_op_library("libm.so.6")
    with pytest.raises(asc.AscendValueError, match="no such file"):
        asc.load_op_library(str(tmp_path / "none.so"))
    bad = tmp_path / "notalib.so"
    bad.write_bytes(b"not an ELF file")
    with pytest.raises(asc.AscendValueError, match="cannot load"):
        asc.load_op_library(str(bad))
    with pytest.raises(asc.AscendTypeError):
        asc.load_op_library(3)


def test_a_library_without_ops_symbols(ext_cache, tmp_path):
    src = tmp_path / "plain.cpp"
    src.write_text('extern "C" int plain() { return 1; }\n')
    with build_env(ext_cache):
        path = cpp_extension.load("plain_lib", [str(src)], is_python_module=False)
    with pytest.raises(asc.AscendValueError, match="not an operator library"):
        asc.load_op_library(path)
