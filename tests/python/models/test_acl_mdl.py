"""The ACL model API (acl/acl_mdl.h): a standalone C++ program (the interpreter started by libasc)
and the same calls through ctypes inside this Python process.

* examples/resnet50/cpp (CANN's sample flow) is built against the installed package with CMake
  and run on a SqueezeNet .om written by pyasc-atc; its logits and top-5 are compared with the
  onnx reference evaluator's on the same input.
* tests/cpp/acl/mdl_misuse.cc: every misuse case returns its ACL code and a message.
* ctypes: load / describe / execute / dynamic batch / errors from Python, outputs compared with the
  reference evaluator and InferenceSession.
"""

from __future__ import annotations

import ctypes
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import pyasc as asc
from pyasc.models import _acl_mdl

from light_models import light_models, with_random_weights  # noqa: E402 (rootdir conftest puts this directory on sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _tiny_model(path):
    """Conv(3->8, 3x3) + Relu + GlobalAveragePool + Flatten + Gemm(8->10): input x [1,3,8,8]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    fw = numpy_helper.from_array(rng.standard_normal((10, 8)).astype(np.float32), "fw")
    fb = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fb")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1)]
    g = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], [w, b, fw, fb])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return m


def _atc(*args):
    from pyasc.models import atc

    rc = atc.main(list(args))
    assert rc == 0, args


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("acl_mdl")
    onnx_path = str(d / "tiny.onnx")
    proto = _tiny_model(onnx_path)
    _atc(f"--model={onnx_path}", "--framework=5", f"--output={d / 'tiny'}", "--input_shape=x:1,3,8,8",
         "--soc_version=Ascend910B", "--log=error")
    _atc(f"--model={onnx_path}", "--framework=5", f"--output={d / 'tiny_dyn'}", "--input_shape=x:-1,3,8,8",
         "--dynamic_batch_size=1,2,4", "--soc_version=Ascend910B", "--log=error")
    garbage = d / "garbage.om"
    garbage.write_bytes(b"PYASCOM\0" + b"\x01" * 100)
    return {"dir": d, "onnx": onnx_path, "proto": proto, "om": str(d / "tiny.om"), "dyn": str(d / "tiny_dyn.om"),
            "garbage": str(garbage)}


def _reference(proto, feed):
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(proto).run(None, feed)


# ------------------------------------------------------------------ C++ programs

def _cmake_build(src, build, target):
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.fail("cmake is needed to build the C++ programs (scripts/bootstrap.sh installs it)")
    env = dict(os.environ)
    cfg = subprocess.run([cmake, "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                          f"-DCMAKE_PREFIX_PATH={asc.cmake_prefix_path}"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert cfg.returncode == 0, cfg.stdout + cfg.stderr
    bld = subprocess.run([cmake, "--build", build, "--target", target], capture_output=True, text=True, env=env,
                         timeout=300)
    assert bld.returncode == 0, bld.stdout + bld.stderr
    exe = os.path.join(build, target)
    assert os.path.isfile(exe)
    return exe


def _run_env():
    # the standalone program starts its own interpreter; it must find this pyasc (PYTHONPATH) and
    # must not inherit pytest's process state otherwise
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    return env


def test_misuse_program(models, tmp_path):
    exe = _cmake_build(os.path.join(ROOT, "tests", "cpp", "acl"), str(tmp_path / "build"), "acl_mdl_misuse")
    r = subprocess.run([exe, models["om"], models["dyn"], models["garbage"]], capture_output=True, text=True,
                       env=_run_env(), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "failed 0" in r.stdout, r.stdout


def _classifier(path):
    """A small 1000-class classifier (Conv 3->16 stride 2, Relu, GlobalAveragePool, Flatten, Gemm
    16->1000, Softmax) on [1, 3, 32, 32]: the sample's flow at a fraction of SqueezeNet's cost."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    inits = [numpy_helper.from_array((rng.standard_normal((16, 3, 3, 3)) * 0.5).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "b"),
             numpy_helper.from_array(rng.standard_normal((1000, 16)).astype(np.float32), "fw"),
             numpy_helper.from_array(rng.standard_normal(1000).astype(np.float32), "fb")]
    nodes = [helper.make_node("Conv", ["data", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c"], ["r"]), helper.make_node("GlobalAveragePool", ["r"], ["p"]),
             helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Gemm", ["f", "fw", "fb"], ["z"], transB=1),
             helper.make_node("Softmax", ["z"], ["prob"], axis=1)]
    g = helper.make_graph(nodes, "classifier", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 32, 32])],
                          [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 1000])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return m


@pytest.fixture(scope="module")
def example_exe(tmp_path_factory):
    d = tmp_path_factory.mktemp("resnet50_cpp")
    return _cmake_build(os.path.join(ROOT, "examples", "resnet50", "cpp"), str(d / "build"), "resnet50_acl")


def _top5_lines(stdout):
    return [int(line.split("index[")[1].split("]")[0]) for line in stdout.splitlines() if line.startswith("top ")]


def test_cpp_example_classifier(example_exe, tmp_path):
    """examples/resnet50/cpp, unmodified, on a generated 1000-class model's .om: its 1000 outputs
    and top-5 equal onnx's reference evaluator's."""
    proto = _classifier(str(tmp_path / "classifier.onnx"))
    _atc(f"--model={tmp_path / 'classifier.onnx'}", "--framework=5", f"--output={tmp_path / 'classifier'}",
         "--input_shape=data:1,3,32,32", "--soc_version=Ascend910B", "--log=error")
    x = np.random.default_rng(4).standard_normal((1, 3, 32, 32)).astype(np.float32)
    (tmp_path / "input.bin").write_bytes(x.tobytes())
    r = subprocess.run([example_exe, str(tmp_path / "classifier.om"), str(tmp_path / "input.bin"), "--output",
                        str(tmp_path / "prob.bin")], capture_output=True, text=True, env=_run_env(), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1000 classes" in r.stdout
    got = np.frombuffer((tmp_path / "prob.bin").read_bytes(), np.float32)
    ref = np.asarray(_reference(proto, {"data": x})[0], np.float32).reshape(-1)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-6 * np.abs(ref).max())
    assert _top5_lines(r.stdout) == [int(i) for i in np.argsort(-ref, kind="stable")[:5]], r.stdout
    # a wrong-sized input file is refused by the sample (sized by the description), not run
    (tmp_path / "short.bin").write_bytes(x.tobytes()[:-4])
    r = subprocess.run([example_exe, str(tmp_path / "classifier.om"), str(tmp_path / "short.bin")],
                       capture_output=True, text=True, env=_run_env(), timeout=300)
    assert r.returncode == 1 and "needs 12288" in r.stderr, r.stderr


@pytest.mark.skipif(not os.environ.get("PYASC_MODELS_LONG"), reason="SqueezeNet end to end: PYASC_MODELS_LONG=1")
def test_cpp_example_squeezenet(example_exe, tmp_path):
    """examples/resnet50/cpp on SqueezeNet (random weights): the logits and top-5 equal the reference
    evaluator's."""
    import onnx

    proto = with_random_weights(light_models()["squeezenet"], seed=1)
    onnx_path = str(tmp_path / "squeezenet.onnx")
    onnx.save(proto, onnx_path)
    inits = {t.name for t in proto.graph.initializer}
    name = next(v.name for v in proto.graph.input if v.name not in inits)
    _atc(f"--model={onnx_path}", "--framework=5", f"--output={tmp_path / 'squeezenet'}",
         f"--input_shape={name}:1,3,224,224", "--soc_version=Ascend910B", "--log=error")
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    (tmp_path / "input.bin").write_bytes(x.tobytes())
    r = subprocess.run([example_exe, str(tmp_path / "squeezenet.om"), str(tmp_path / "input.bin"), "--output",
                        str(tmp_path / "logits.bin")], capture_output=True, text=True, env=_run_env(), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    got = np.frombuffer((tmp_path / "logits.bin").read_bytes(), np.float32)
    # onnx's reference evaluator applies an opset-9 Softmax per element (it ignores the coercion to
    # 2-D that onnxruntime and pyasc follow): evaluate up to the Softmax's input, then NumPy's
    # softmax over the flattened [1, 1000, 1, 1]
    last = proto.graph.node[-1]
    assert last.op_type == "Softmax"
    pre = onnx.ModelProto()
    pre.CopyFrom(proto)
    del pre.graph.output[:]
    pre.graph.output.append(onnx.helper.make_tensor_value_info(last.input[0], onnx.TensorProto.FLOAT, None))
    z = np.asarray(_reference(pre, {name: x})[0], np.float64).reshape(-1)
    ref = (np.exp(z - z.max()) / np.exp(z - z.max()).sum()).astype(np.float32)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-6 * np.abs(ref).max())
    assert _top5_lines(r.stdout) == [int(i) for i in np.argsort(-ref, kind="stable")[:5]], r.stdout


# ------------------------------------------------------------------ ctypes, in this process

class _IODims(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 128), ("dimCount", ctypes.c_size_t), ("dims", ctypes.c_int64 * 128)]


class _Batch(ctypes.Structure):
    _fields_ = [("batchCount", ctypes.c_size_t), ("batch", ctypes.c_uint64 * 128)]


@pytest.fixture(scope="module")
def acl():
    libdir = os.path.join(os.path.dirname(asc.__file__), "lib")
    cands = sorted(glob.glob(os.path.join(libdir, "libasc.so*")))
    assert cands, libdir
    lib = ctypes.CDLL(cands[0])  # the libasc pyasc._C already loaded: one runtime
    vp, sz, u32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32
    sig = {
        "aclmdlLoadFromFile": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(u32)]),
        "aclmdlLoadFromMem": (ctypes.c_int, [vp, sz, ctypes.POINTER(u32)]),
        "aclmdlUnload": (ctypes.c_int, [u32]),
        "aclmdlCreateDesc": (vp, []),
        "aclmdlDestroyDesc": (ctypes.c_int, [vp]),
        "aclmdlGetDesc": (ctypes.c_int, [vp, u32]),
        "aclmdlGetNumInputs": (sz, [vp]),
        "aclmdlGetNumOutputs": (sz, [vp]),
        "aclmdlGetInputSizeByIndex": (sz, [vp, sz]),
        "aclmdlGetOutputSizeByIndex": (sz, [vp, sz]),
        "aclmdlGetInputNameByIndex": (ctypes.c_char_p, [vp, sz]),
        "aclmdlGetInputDims": (ctypes.c_int, [vp, sz, ctypes.POINTER(_IODims)]),
        "aclmdlGetOutputDims": (ctypes.c_int, [vp, sz, ctypes.POINTER(_IODims)]),
        "aclmdlGetCurOutputDims": (ctypes.c_int, [vp, sz, ctypes.POINTER(_IODims)]),
        "aclmdlGetInputDataType": (ctypes.c_int, [vp, sz]),
        "aclmdlGetOutputDataType": (ctypes.c_int, [vp, sz]),
        "aclmdlGetDynamicBatch": (ctypes.c_int, [vp, ctypes.POINTER(_Batch)]),
        "aclmdlCreateDataset": (vp, []),
        "aclmdlDestroyDataset": (ctypes.c_int, [vp]),
        "aclmdlAddDatasetBuffer": (ctypes.c_int, [vp, vp]),
        "aclCreateDataBuffer": (vp, [vp, sz]),
        "aclDestroyDataBuffer": (ctypes.c_int, [vp]),
        "aclmdlExecute": (ctypes.c_int, [u32, vp, vp]),
        "aclmdlSetDynamicBatchSize": (ctypes.c_int, [u32, vp, sz, ctypes.c_uint64]),
        "aclmdlQuerySize": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(sz), ctypes.POINTER(sz)]),
        "aclGetRecentErrMsg": (ctypes.c_char_p, []),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


class _Sets:
    """Input/output datasets over NumPy arrays (kept alive here)."""

    def __init__(self, lib, inputs, outputs):
        self.lib, self.arrays, self.bufs = lib, list(inputs) + list(outputs), []
        self.inp, self.out = lib.aclmdlCreateDataset(), lib.aclmdlCreateDataset()
        for d, arrs in ((self.inp, inputs), (self.out, outputs)):
            for a in arrs:
                b = lib.aclCreateDataBuffer(a.ctypes.data, a.nbytes)
                self.bufs.append(b)
                assert lib.aclmdlAddDatasetBuffer(d, b) == 0

    def close(self):
        for b in self.bufs:
            assert self.lib.aclDestroyDataBuffer(b) == 0
        assert self.lib.aclmdlDestroyDataset(self.inp) == 0
        assert self.lib.aclmdlDestroyDataset(self.out) == 0


def test_ctypes_flow_matches_reference(acl, models):
    mid = ctypes.c_uint32()
    assert acl.aclmdlLoadFromFile(models["om"].encode(), ctypes.byref(mid)) == 0, acl.aclGetRecentErrMsg()
    desc = acl.aclmdlCreateDesc()
    try:
        assert acl.aclmdlGetDesc(desc, mid) == 0
        assert (acl.aclmdlGetNumInputs(desc), acl.aclmdlGetNumOutputs(desc)) == (1, 1)
        assert acl.aclmdlGetInputNameByIndex(desc, 0) == b"x"
        assert acl.aclmdlGetInputSizeByIndex(desc, 0) == 3 * 8 * 8 * 4
        assert acl.aclmdlGetOutputSizeByIndex(desc, 0) == 10 * 4
        assert acl.aclmdlGetInputDataType(desc, 0) == 0 and acl.aclmdlGetOutputDataType(desc, 0) == 0  # ACL_FLOAT
        dims = _IODims()
        assert acl.aclmdlGetInputDims(desc, 0, ctypes.byref(dims)) == 0
        assert dims.name == b"x" and list(dims.dims[:dims.dimCount]) == [1, 3, 8, 8]
        x = np.random.default_rng(5).standard_normal((1, 3, 8, 8)).astype(np.float32)
        y = np.full((1, 10), np.nan, np.float32)
        sets = _Sets(acl, [x], [y])
        assert acl.aclmdlExecute(mid, sets.inp, sets.out) == 0, acl.aclGetRecentErrMsg()
        sets.close()
        ref = _reference(models["proto"], {"x": x})[0]
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(y, asc.InferenceSession(models["om"]).run(None, {"x": x})[0])
        work, weight = ctypes.c_size_t(), ctypes.c_size_t()
        assert acl.aclmdlQuerySize(models["om"].encode(), ctypes.byref(work), ctypes.byref(weight)) == 0
        assert weight.value == (8 * 3 * 3 * 3 + 8 + 10 * 8 + 10) * 4
        assert work.value >= 10 * 4  # at least the output
    finally:
        assert acl.aclmdlDestroyDesc(desc) == 0
        assert acl.aclmdlUnload(mid) == 0


def test_ctypes_dynamic_batch(acl, models):
    mid = ctypes.c_uint32()
    assert acl.aclmdlLoadFromFile(models["dyn"].encode(), ctypes.byref(mid)) == 0, acl.aclGetRecentErrMsg()
    desc = acl.aclmdlCreateDesc()
    try:
        assert acl.aclmdlGetDesc(desc, mid) == 0
        batch = _Batch()
        assert acl.aclmdlGetDynamicBatch(desc, ctypes.byref(batch)) == 0
        assert list(batch.batch[:batch.batchCount]) == [1, 2, 4]
        assert acl.aclmdlGetInputNameByIndex(desc, 1) == b"ascend_mbatch_shape_data"
        assert acl.aclmdlGetInputSizeByIndex(desc, 0) == 4 * 3 * 8 * 8 * 4
        x = np.zeros((4, 3, 8, 8), np.float32)
        x[:2] = np.random.default_rng(6).standard_normal((2, 3, 8, 8))
        dyn = np.zeros(1, np.int64)
        y = np.full((4, 10), np.nan, np.float32)
        sets = _Sets(acl, [x, dyn], [y])
        assert acl.aclmdlExecute(mid, sets.inp, sets.out) == 100017  # batch not set
        assert b"aclmdlSetDynamicBatchSize" in acl.aclGetRecentErrMsg()
        assert acl.aclmdlSetDynamicBatchSize(mid, sets.inp, 1, 3) == 100000
        assert b"not one of the model's gears" in acl.aclGetRecentErrMsg()
        assert acl.aclmdlSetDynamicBatchSize(mid, sets.inp, 1, 2) == 0
        assert dyn[0] == 2
        assert acl.aclmdlExecute(mid, sets.inp, sets.out) == 0, acl.aclGetRecentErrMsg()
        sets.close()
        ref = _reference(models["proto"], {"x": x[:2]})[0]
        np.testing.assert_allclose(y[:2], ref, rtol=1e-5, atol=1e-5)
        assert np.isnan(y[2:]).all()  # only the batch's rows are written
        dims = _IODims()
        assert acl.aclmdlGetCurOutputDims(desc, 0, ctypes.byref(dims)) == 0
        assert list(dims.dims[:dims.dimCount]) == [2, 10]
        assert acl.aclmdlGetOutputDims(desc, 0, ctypes.byref(dims)) == 0
        assert list(dims.dims[:dims.dimCount]) == [-1, 10]
    finally:
        assert acl.aclmdlDestroyDesc(desc) == 0
        assert acl.aclmdlUnload(mid) == 0


def test_ctypes_errors(acl, models):
    mid = ctypes.c_uint32()
    assert acl.aclmdlLoadFromFile(models["garbage"].encode(), ctypes.byref(mid)) == 100013
    msg = acl.aclGetRecentErrMsg()
    assert msg.startswith(b"[aclmdlLoadFromFile]") and b"garbage.om" in msg
    assert acl.aclGetRecentErrMsg() == b""  # reading clears it
    assert acl.aclmdlLoadFromFile(b"/nonexistent.om", ctypes.byref(mid)) == 100014
    data = open(models["om"], "rb").read()[:-10]  # truncated
    buf = ctypes.create_string_buffer(data, len(data))
    assert acl.aclmdlLoadFromMem(buf, len(data), ctypes.byref(mid)) == 100013
    assert acl.aclGetRecentErrMsg().startswith(b"[aclmdlLoadFromMem]")
    assert acl.aclmdlUnload(4242) == 100011
    assert acl.aclmdlExecute(4242, None, None) == 100011
    assert acl.aclmdlGetNumInputs(None) == 0
    # a wrong dtype/size: input of float64 bytes
    assert acl.aclmdlLoadFromFile(models["om"].encode(), ctypes.byref(mid)) == 0
    try:
        x = np.zeros((1, 3, 8, 8), np.float64)
        y = np.zeros((1, 10), np.float32)
        sets = _Sets(acl, [x], [y])
        assert acl.aclmdlExecute(mid, sets.inp, sets.out) == 100017
        assert b"expects 768" in acl.aclGetRecentErrMsg()
        sets.close()
        assert _acl_mdl.loaded_models().count(mid.value) == 1
    finally:
        assert acl.aclmdlUnload(mid) == 0
    assert mid.value not in _acl_mdl.loaded_models()
