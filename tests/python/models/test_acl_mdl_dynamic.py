"""The ACL model API's dynamic image size and dynamic dims calls (acl/acl_mdl.h), through ctypes in
this process: aclmdlGetInputDynamicGearCount / aclmdlGetInputDynamicDims / aclmdlSetInputDynamicDims
on a model converted with pyasc-atc --dynamic_dims, aclmdlGetDynamicHW / aclmdlSetDynamicHWSize on
one converted with --dynamic_image_size. Each model runs at two gears through aclmdlExecute; the
outputs are compared with onnx's reference evaluator on the same inputs (onnxruntime is not in the
lock) and aclmdlGetCurOutputDims with the reference's shapes. The error cases return CANN's codes.
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np
import pytest

import pyasc as asc

ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017
ACL_ERROR_MODEL_NOT_DYNAMIC = 100019
RESERVED = ctypes.c_size_t(-1).value  # the SDK's "index: reserved, -1"


def _dims_model(path):
    """a [N, 6] float32 -> y = Relu(a @ W + c) [N, 5];  b [1, L] int32 -> z = b * 3 [1, L]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(11)
    inits = [numpy_helper.from_array(rng.standard_normal((6, 5)).astype(np.float32), "W"),
             numpy_helper.from_array(rng.standard_normal(5).astype(np.float32), "c"),
             numpy_helper.from_array(np.array(3, np.int32), "three")]
    nodes = [helper.make_node("MatMul", ["a", "W"], ["m"]), helper.make_node("Add", ["m", "c"], ["s"]),
             helper.make_node("Relu", ["s"], ["y"]), helper.make_node("Mul", ["b", "three"], ["z"])]
    g = helper.make_graph(nodes, "dims", [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 6]),
                                          helper.make_tensor_value_info("b", TensorProto.INT32, [1, "L"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5]),
                           helper.make_tensor_value_info("z", TensorProto.INT32, [1, "L"])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return m


def _hw_model(path):
    """x [1, 3, H, W] -> Relu(Conv 3->4, 3x3, pads 1) [1, 4, H, W]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(12)
    inits = [numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "bias")]
    nodes = [helper.make_node("Conv", ["x", "w", "bias"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"])]
    g = helper.make_graph(nodes, "hw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "H", "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, "H", "W"])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return m


def _atc(*args):
    from pyasc.models import atc

    assert atc.main(list(args)) == 0, args


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("acl_mdl_dynamic")
    dims_onnx, hw_onnx = str(d / "dims.onnx"), str(d / "hw.onnx")
    dims_proto, hw_proto = _dims_model(dims_onnx), _hw_model(hw_onnx)
    common = ["--framework=5", "--soc_version=Ascend910B", "--log=error"]
    _atc(f"--model={dims_onnx}", f"--output={d / 'dims'}", "--input_shape=a:-1,6;b:1,-1",
         "--dynamic_dims=2,3;4,7", *common)
    _atc(f"--model={hw_onnx}", f"--output={d / 'hw'}", "--input_shape=x:1,3,-1,-1",
         "--dynamic_image_size=8,8;12,10", *common)
    _atc(f"--model={hw_onnx}", f"--output={d / 'static'}", "--input_shape=x:1,3,8,8", *common)
    return {"dims": str(d / "dims.om"), "hw": str(d / "hw.om"), "static": str(d / "static.om"),
            "dims_proto": dims_proto, "hw_proto": hw_proto}


def _reference(proto, feed):
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(proto).run(None, feed)


class _IODims(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 128), ("dimCount", ctypes.c_size_t), ("dims", ctypes.c_int64 * 128)]


class _HW(ctypes.Structure):
    _fields_ = [("hwCount", ctypes.c_size_t), ("hw", (ctypes.c_uint64 * 2) * 128)]


@pytest.fixture(scope="module")
def acl():
    libdir = os.path.join(os.path.dirname(asc.__file__), "lib")
    cands = sorted(glob.glob(os.path.join(libdir, "libasc.so*")))
    assert cands, libdir
    lib = ctypes.CDLL(cands[0])  # the libasc pyasc._C already loaded: one runtime
    vp, sz, u32, u64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint64
    dims_p = ctypes.POINTER(_IODims)
    sig = {
        "aclmdlLoadFromFile": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(u32)]),
        "aclmdlUnload": (ctypes.c_int, [u32]),
        "aclmdlCreateDesc": (vp, []),
        "aclmdlDestroyDesc": (ctypes.c_int, [vp]),
        "aclmdlGetDesc": (ctypes.c_int, [vp, u32]),
        "aclmdlGetNumInputs": (sz, [vp]),
        "aclmdlGetInputSizeByIndex": (sz, [vp, sz]),
        "aclmdlGetOutputSizeByIndex": (sz, [vp, sz]),
        "aclmdlGetInputIndexByName": (ctypes.c_int, [vp, ctypes.c_char_p, ctypes.POINTER(sz)]),
        "aclmdlGetInputDims": (ctypes.c_int, [vp, sz, dims_p]),
        "aclmdlGetOutputDims": (ctypes.c_int, [vp, sz, dims_p]),
        "aclmdlGetCurOutputDims": (ctypes.c_int, [vp, sz, dims_p]),
        "aclmdlGetInputDynamicGearCount": (ctypes.c_int, [vp, sz, ctypes.POINTER(sz)]),
        "aclmdlGetInputDynamicDims": (ctypes.c_int, [vp, sz, dims_p, sz]),
        "aclmdlSetInputDynamicDims": (ctypes.c_int, [u32, vp, sz, dims_p]),
        "aclmdlGetDynamicHW": (ctypes.c_int, [vp, sz, ctypes.POINTER(_HW)]),
        "aclmdlSetDynamicHWSize": (ctypes.c_int, [u32, vp, sz, u64, u64]),
        "aclmdlCreateDataset": (vp, []),
        "aclmdlDestroyDataset": (ctypes.c_int, [vp]),
        "aclmdlAddDatasetBuffer": (ctypes.c_int, [vp, vp]),
        "aclCreateDataBuffer": (vp, [vp, sz]),
        "aclDestroyDataBuffer": (ctypes.c_int, [vp]),
        "aclmdlExecute": (ctypes.c_int, [u32, vp, vp]),
        "aclmdlExecuteAsync": (ctypes.c_int, [u32, vp, vp, vp]),
        "aclmdlQuerySize": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(sz), ctypes.POINTER(sz)]),
        "aclrtCreateStream": (ctypes.c_int, [ctypes.POINTER(vp)]),
        "aclrtSynchronizeStream": (ctypes.c_int, [vp]),
        "aclrtDestroyStream": (ctypes.c_int, [vp]),
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


class _Loaded:
    def __init__(self, lib, path):
        self.lib, self.id = lib, ctypes.c_uint32()
        assert lib.aclmdlLoadFromFile(path.encode(), ctypes.byref(self.id)) == 0, lib.aclGetRecentErrMsg()
        self.desc = lib.aclmdlCreateDesc()
        assert lib.aclmdlGetDesc(self.desc, self.id) == 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        assert self.lib.aclmdlDestroyDesc(self.desc) == 0
        assert self.lib.aclmdlUnload(self.id) == 0


def _dims(lib, fn, desc, index):
    d = _IODims()
    assert fn(desc, index, ctypes.byref(d)) == 0, lib.aclGetRecentErrMsg()
    return list(d.dims[:d.dimCount])


def _iodims(values):
    d = _IODims()
    d.dimCount = len(values)
    for i, v in enumerate(values):
        d.dims[i] = v
    return d


def _err(lib, code, call):
    got = call()
    msg = lib.aclGetRecentErrMsg()
    assert got == code, (got, msg)
    return msg


def test_dynamic_dims_describe(acl, models):
    with _Loaded(acl, models["dims"]) as m:
        idx = ctypes.c_size_t()
        assert acl.aclmdlGetInputIndexByName(m.desc, b"ascend_mbatch_shape_data", ctypes.byref(idx)) == 0
        assert idx.value == 2 == acl.aclmdlGetNumInputs(m.desc) - 1
        n = ctypes.c_size_t()
        assert acl.aclmdlGetInputDynamicGearCount(m.desc, RESERVED, ctypes.byref(n)) == 0
        assert n.value == 2
        gears = (_IODims * 2)()
        assert acl.aclmdlGetInputDynamicDims(m.desc, RESERVED, gears, 2) == 0, acl.aclGetRecentErrMsg()
        # every input's dims at the gear, concatenated (CANN's layout): a (N, 6) + b (1, L)
        assert [list(g.dims[:g.dimCount]) for g in gears] == [[2, 6, 1, 3], [4, 6, 1, 7]]
        assert gears[0].name == b""
        # sizes: the largest gear's; dims: -1 where the gears differ
        assert acl.aclmdlGetInputSizeByIndex(m.desc, 0) == 4 * 6 * 4
        assert acl.aclmdlGetInputSizeByIndex(m.desc, 1) == 7 * 4
        assert acl.aclmdlGetInputSizeByIndex(m.desc, 2) == 2 * 8
        assert acl.aclmdlGetOutputSizeByIndex(m.desc, 0) == 4 * 5 * 4
        assert acl.aclmdlGetOutputSizeByIndex(m.desc, 1) == 7 * 4
        assert _dims(acl, acl.aclmdlGetInputDims, m.desc, 0) == [-1, 6]
        assert _dims(acl, acl.aclmdlGetInputDims, m.desc, 1) == [1, -1]
        assert _dims(acl, acl.aclmdlGetOutputDims, m.desc, 0) == [-1, 5]
        assert _dims(acl, acl.aclmdlGetOutputDims, m.desc, 1) == [1, -1]
        hw = _HW()
        assert acl.aclmdlGetDynamicHW(m.desc, RESERVED, ctypes.byref(hw)) == 0 and hw.hwCount == 0


def test_dynamic_dims_two_gears_vs_reference(acl, models):
    rng = np.random.default_rng(21)
    with _Loaded(acl, models["dims"]) as m:
        runs = []
        for gear, (n, length) in ((0, (2, 3)), (1, (4, 7))):
            a = np.zeros((4, 6), np.float32)  # buffers of the largest gear's size, as CANN's samples allocate
            a[:n] = rng.standard_normal((n, 6))
            b = np.zeros((1, 7), np.int32)
            b[0, :length] = rng.integers(-1000, 1000, length)
            dyn = np.zeros(2, np.int64)
            y, z = np.full((4, 5), np.nan, np.float32), np.full((1, 7), -7, np.int32)
            runs.append((n, length, a, b, dyn, y, z, _Sets(acl, [a, b, dyn], [y, z])))
        # both datasets alive: each carries its own gear
        for n, length, a, b, dyn, y, z, sets in runs:
            assert acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 2, ctypes.byref(_iodims([n, 6, 1, length]))) == 0, \
                acl.aclGetRecentErrMsg()
            assert list(dyn) == [n, length]
        for n, length, a, b, dyn, y, z, sets in runs + runs[:1]:
            y[...] = np.nan
            assert acl.aclmdlExecute(m.id, sets.inp, sets.out) == 0, acl.aclGetRecentErrMsg()
            # the model ran at the gear: the data is read from the buffers' start in the gear's shape
            ya, za = np.ascontiguousarray(a.reshape(-1)[:n * 6].reshape(n, 6)), b.reshape(-1)[:length].reshape(1, length)
            ref_y, ref_z = _reference(models["dims_proto"], {"a": ya, "b": za})
            np.testing.assert_allclose(y.reshape(-1)[:n * 5].reshape(n, 5), ref_y, rtol=1e-5, atol=1e-5)
            np.testing.assert_array_equal(z.reshape(-1)[:length].reshape(1, length), ref_z)
            assert np.isnan(y.reshape(-1)[n * 5:]).all() and (z.reshape(-1)[length:] == -7).all()  # not written
            assert _dims(acl, acl.aclmdlGetCurOutputDims, m.desc, 0) == [n, 5]
            assert _dims(acl, acl.aclmdlGetCurOutputDims, m.desc, 1) == [1, length]
        for r in runs:
            r[-1].close()


def test_dynamic_dims_errors(acl, models):
    with _Loaded(acl, models["dims"]) as m:
        a, b, dyn = np.zeros((4, 6), np.float32), np.zeros((1, 7), np.int32), np.zeros(2, np.int64)
        y, z = np.zeros((4, 5), np.float32), np.zeros((1, 7), np.int32)
        sets = _Sets(acl, [a, b, dyn], [y, z])
        try:
            # no gear set: the zeros are no gear of the model
            msg = _err(acl, ACL_ERROR_MODEL_INPUT_NOT_MATCH, lambda: acl.aclmdlExecute(m.id, sets.inp, sets.out))
            assert b"aclmdlSetInputDynamicDims" in msg and b"(0,0)" in msg
            # dims that are no gear (a mixed gear, a wrong static dim, a wrong count)
            for bad in ([2, 6, 1, 7], [2, 5, 1, 3], [2, 6, 1], []):
                msg = _err(acl, ACL_ERROR_INVALID_PARAM,
                           lambda: acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 2, ctypes.byref(_iodims(bad))))
                assert msg.startswith(b"[aclmdlSetInputDynamicDims]") and b"2,6,1,3; 4,6,1,7" in msg
            assert list(dyn) == [0, 0]  # nothing written by the failed calls
            ok = _iodims([2, 6, 1, 3])
            msg = _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 0, ok))
            assert b"not the dynamic input" in msg and b"input 2" in msg
            _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 2, None))
            _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlSetInputDynamicDims(m.id, None, 2, ok))
            _err(acl, 100011, lambda: acl.aclmdlSetInputDynamicDims(4242, sets.inp, 2, ok))
            # a dims model has no image sizes
            msg = _err(acl, ACL_ERROR_MODEL_NOT_DYNAMIC, lambda: acl.aclmdlSetDynamicHWSize(m.id, sets.inp, 2, 8, 8))
            assert b"dynamic image size" in msg
            # getters: gearCount must match, index is reserved
            gears = (_IODims * 3)()
            msg = _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlGetInputDynamicDims(m.desc, RESERVED, gears, 3))
            assert b"gearCount is 3" in msg
            n = ctypes.c_size_t()
            msg = _err(acl, ACL_ERROR_INVALID_PARAM,
                       lambda: acl.aclmdlGetInputDynamicGearCount(m.desc, 0, ctypes.byref(n)))
            assert b"reserved" in msg
            assert acl.aclmdlGetInputDynamicGearCount(m.desc, 2, ctypes.byref(n)) == 0 and n.value == 2
            _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlGetInputDynamicGearCount(m.desc, RESERVED, None))
            _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlGetInputDynamicGearCount(None, RESERVED,
                                                                                          ctypes.byref(n)))
            # a too-small dynamic input buffer
            small = np.zeros(1, np.int64)
            s2 = _Sets(acl, [a, b, small], [y, z])
            _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlSetInputDynamicDims(m.id, s2.inp, 2, ok))
            msg = _err(acl, ACL_ERROR_MODEL_INPUT_NOT_MATCH, lambda: acl.aclmdlExecute(m.id, s2.inp, s2.out))
            assert b"16 bytes" in msg
            s2.close()
            # an input buffer smaller than the gear's bytes
            assert acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 2, ctypes.byref(_iodims([4, 6, 1, 7]))) == 0
            a3 = np.zeros((3, 6), np.float32)
            s3 = _Sets(acl, [a3, b, dyn], [y, z])
            msg = _err(acl, ACL_ERROR_MODEL_INPUT_NOT_MATCH, lambda: acl.aclmdlExecute(m.id, s3.inp, s3.out))
            assert b"at least 96" in msg
            s3.close()
        finally:
            sets.close()


def test_dynamic_hw_two_gears_vs_reference(acl, models):
    rng = np.random.default_rng(22)
    with _Loaded(acl, models["hw"]) as m:
        hw = _HW()
        assert acl.aclmdlGetDynamicHW(m.desc, RESERVED, ctypes.byref(hw)) == 0, acl.aclGetRecentErrMsg()
        assert [list(hw.hw[i]) for i in range(hw.hwCount)] == [[8, 8], [12, 10]]
        idx = ctypes.c_size_t()
        assert acl.aclmdlGetInputIndexByName(m.desc, b"ascend_mbatch_shape_data", ctypes.byref(idx)) == 0
        assert idx.value == 1
        assert acl.aclmdlGetInputSizeByIndex(m.desc, 0) == 3 * 12 * 10 * 4
        assert acl.aclmdlGetOutputSizeByIndex(m.desc, 0) == 4 * 12 * 10 * 4
        assert _dims(acl, acl.aclmdlGetInputDims, m.desc, 0) == [1, 3, -1, -1]
        assert _dims(acl, acl.aclmdlGetOutputDims, m.desc, 0) == [1, 4, -1, -1]
        n = ctypes.c_size_t()
        assert acl.aclmdlGetInputDynamicGearCount(m.desc, RESERVED, ctypes.byref(n)) == 0 and n.value == 0
        gears = (_IODims * 1)()
        _err(acl, ACL_ERROR_MODEL_NOT_DYNAMIC, lambda: acl.aclmdlGetInputDynamicDims(m.desc, RESERVED, gears, 1))
        x, dyn = np.zeros(3 * 12 * 10, np.float32), np.zeros(2, np.int64)
        y = np.full(4 * 12 * 10, np.nan, np.float32)
        sets = _Sets(acl, [x, dyn], [y])
        try:
            msg = _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlSetDynamicHWSize(m.id, sets.inp, 1, 10, 12))
            assert b"[8,8; 12,10]" in msg
            _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlSetDynamicHWSize(m.id, sets.inp, 0, 8, 8))
            msg = _err(acl, ACL_ERROR_MODEL_NOT_DYNAMIC,
                       lambda: acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 1, ctypes.byref(_iodims([1, 3, 8, 8]))))
            assert b"--dynamic_dims" in msg
            for h, w in ((12, 10), (8, 8)):
                x[:3 * h * w] = rng.standard_normal(3 * h * w)
                y[...] = np.nan
                assert acl.aclmdlSetDynamicHWSize(m.id, sets.inp, 1, h, w) == 0, acl.aclGetRecentErrMsg()
                assert list(dyn) == [h, w]
                assert acl.aclmdlExecute(m.id, sets.inp, sets.out) == 0, acl.aclGetRecentErrMsg()
                ref = _reference(models["hw_proto"], {"x": x[:3 * h * w].reshape(1, 3, h, w)})[0]
                np.testing.assert_allclose(y[:4 * h * w].reshape(1, 4, h, w), ref, rtol=1e-4, atol=1e-5)
                assert np.isnan(y[4 * h * w:]).all()
                assert _dims(acl, acl.aclmdlGetCurOutputDims, m.desc, 0) == [1, 4, h, w]
        finally:
            sets.close()


def test_static_model_is_not_dynamic(acl, models):
    with _Loaded(acl, models["static"]) as m:
        assert acl.aclmdlGetNumInputs(m.desc) == 1  # no ACL_DYNAMIC_TENSOR_NAME input
        n, hw = ctypes.c_size_t(7), _HW()
        assert acl.aclmdlGetInputDynamicGearCount(m.desc, RESERVED, ctypes.byref(n)) == 0 and n.value == 0
        assert acl.aclmdlGetDynamicHW(m.desc, RESERVED, ctypes.byref(hw)) == 0 and hw.hwCount == 0
        _err(acl, ACL_ERROR_INVALID_PARAM, lambda: acl.aclmdlGetDynamicHW(m.desc, 0, ctypes.byref(hw)))
        gears = (_IODims * 1)()
        _err(acl, ACL_ERROR_MODEL_NOT_DYNAMIC, lambda: acl.aclmdlGetInputDynamicDims(m.desc, RESERVED, gears, 0))
        x, y = np.zeros((1, 3, 8, 8), np.float32), np.zeros((1, 4, 8, 8), np.float32)
        sets = _Sets(acl, [x], [y])
        try:
            _err(acl, ACL_ERROR_MODEL_NOT_DYNAMIC, lambda: acl.aclmdlSetDynamicHWSize(m.id, sets.inp, 0, 8, 8))
            _err(acl, ACL_ERROR_MODEL_NOT_DYNAMIC,
                 lambda: acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 0, ctypes.byref(_iodims([1, 3, 8, 8]))))
        finally:
            sets.close()


def test_dynamic_dims_async_and_query_size(acl, models):
    work, weight = ctypes.c_size_t(), ctypes.c_size_t()
    assert acl.aclmdlQuerySize(models["dims"].encode(), ctypes.byref(work), ctypes.byref(weight)) == 0
    assert weight.value == (6 * 5 + 5 + 1) * 4  # W, c, the int32 three
    assert work.value >= 4 * 5 * 4  # at least the largest gear's float output
    rng = np.random.default_rng(23)
    with _Loaded(acl, models["dims"]) as m:
        a = rng.standard_normal((4, 6)).astype(np.float32)
        b = rng.integers(-50, 50, (1, 7)).astype(np.int32)
        dyn = np.zeros(2, np.int64)
        y, z = np.full((4, 5), np.nan, np.float32), np.zeros((1, 7), np.int32)
        sets = _Sets(acl, [a, b, dyn], [y, z])
        stream = ctypes.c_void_p()
        assert acl.aclrtCreateStream(ctypes.byref(stream)) == 0
        try:
            assert acl.aclmdlSetInputDynamicDims(m.id, sets.inp, 2, ctypes.byref(_iodims([4, 6, 1, 7]))) == 0
            assert acl.aclmdlExecuteAsync(m.id, sets.inp, sets.out, stream) == 0, acl.aclGetRecentErrMsg()
            assert acl.aclrtSynchronizeStream(stream) == 0, acl.aclGetRecentErrMsg()
            ref_y, ref_z = _reference(models["dims_proto"], {"a": a, "b": b})
            np.testing.assert_allclose(y, ref_y, rtol=1e-5, atol=1e-5)
            np.testing.assert_array_equal(z, ref_z)
            # the gear is checked at the call, before anything is queued
            dyn[:] = [3, 3]
            _err(acl, ACL_ERROR_MODEL_INPUT_NOT_MATCH, lambda: acl.aclmdlExecuteAsync(m.id, sets.inp, sets.out, stream))
        finally:
            assert acl.aclrtDestroyStream(stream) == 0
            sets.close()
