"""asc.load_op_library(path, namespace=...): two versions of one operator library (same op names,
different code) loaded side by side as asc.ops.<namespace>.<op>, unloaded independently."""
import shutil

import numpy as np
import pytest

import pyasc as asc
from pyasc.utils import cpp_extension

from ext_helpers import KERNELS, build_env


@pytest.fixture
def v1_v3(op_library, tmp_path, ext_cache):
    """The test library twice: version 1 (alpha as given) and MY_OPS_VERSION=3 (alpha scaled by 3)."""
    with build_env(ext_cache):
        v3 = cpp_extension.load("my_ops", [str(KERNELS / "my_ops.cpp")], extra_cflags=["-DMY_OPS_VERSION=3"],
                                is_python_module=False)
    p1, p3 = tmp_path / "libops_v1.so", tmp_path / "libops_v3.so"
    shutil.copyfile(op_library, p1)
    shutil.copyfile(v3, p3)
    return str(p1), str(p3)


def test_two_versions_side_by_side(v1_v3):
    p1, p3 = v1_v3
    a = asc.load_op_library(p1, namespace="myops_v1")
    b = asc.load_op_library(p3, namespace="myops_v3")
    try:
        assert a.namespace == "myops_v1" and sorted(a.op_names) == ["Fail", "RowMax", "ScaledAdd"]
        assert sorted(b.ops) == ["myops_v3::Fail", "myops_v3::RowMax", "myops_v3::ScaledAdd"]
        assert "myops_v1::ScaledAdd" in asc.ops.registered() and not hasattr(asc.ops, "ScaledAdd")
        assert asc.ops.get("myops_v3::RowMax") is asc.ops.myops_v3.RowMax is b.op("RowMax")
        rng = np.random.default_rng(0)
        x, y = rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal((3, 5)).astype(np.float32)
        z1 = asc.ops.myops_v1.ScaledAdd(asc.asarray(x), asc.asarray(y), alpha=0.5)
        z3 = asc.ops.myops_v3.ScaledAdd(asc.asarray(x), asc.asarray(y), alpha=0.5)
        np.testing.assert_allclose(z1.numpy(), x + 0.5 * y, rtol=1e-6)
        np.testing.assert_allclose(z3.numpy(), x + 1.5 * y, rtol=1e-6)
        # the same file under a second namespace is a second, independent load
        c = asc.load_op_library(p1, namespace="myops_again")
        assert c is not a and asc.load_op_library(p1, namespace="myops_v1") is a
        np.testing.assert_allclose(asc.ops.myops_again.RowMax(asc.asarray(x)).numpy(), x.max(axis=-1))
        c.unload()
        assert not hasattr(asc.ops, "myops_again")
        # unloading one version leaves the other serving
        a.unload()
        assert not hasattr(asc.ops, "myops_v1") and "myops_v1::ScaledAdd" not in asc.ops.registered()
        np.testing.assert_allclose(asc.ops.myops_v3.ScaledAdd(asc.ones(2), asc.ones(2), alpha=1.0).numpy(), [4, 4])
        # reload keeps the namespace
        b.reload()
        assert b.namespace == "myops_v3" and asc.ops.myops_v3.ScaledAdd is b.op("ScaledAdd")
    finally:
        for lib in (a, b):
            if lib.loaded:
                lib.unload()
    assert not hasattr(asc.ops, "myops_v3")


def test_namespace_errors(v1_v3):
    p1, _ = v1_v3
    for bad in ("", "1abc", "_private", "with space", "a::b", "class"):
        with pytest.raises(asc.AscendValueError, match="namespace"):
            asc.load_op_library(p1, namespace=bad)
    with pytest.raises(asc.AscendTypeError, match="namespace must be a str"):
        asc.load_op_library(p1, namespace=3)
    # a namespace may not shadow a built-in asc.ops name
    with pytest.raises(asc.AscendValueError, match="namespace 'relu' clashes"):
        asc.load_op_library(p1, namespace="relu")
    assert "relu::ScaledAdd" not in asc.ops.registered() and callable(asc.ops.relu)
    lib = asc.load_op_library(p1, namespace="ns_ok")
    try:
        with pytest.raises(asc.AscendValueError, match="has no operator 'Nope'"):
            lib.op("Nope")
    finally:
        lib.unload()
