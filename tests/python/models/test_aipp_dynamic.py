"""Dynamic AIPP (aipp_mode : dynamic): pyasc-atc adds the ACL_DYNAMIC_AIPP_NAME input, the
application sets the parameters per run through the ACL setters (ctypes into libasc here), and
aclmdlExecute's output is bit-equal to the same model converted with the equivalent static AIPP
configuration and matches a NumPy transcription of CANN's formulas (test_atc.numpy_aipp)."""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import pyasc as asc
from pyasc.models import _aipp, atc

from test_atc import RGB_CFG, YUV_CFG, numpy_aipp  # noqa: E402 (this directory is on sys.path)

N, H, W = 2, 6, 8  # the model input [2, 3, 6, 8]
CAP = 16 * 12 * 3  # max_src_image_size: the largest image used below (RGB 16x12)
DYN_CFG = f"aipp_op {{\n aipp_mode : dynamic\n related_input_rank : 0\n max_src_image_size : {CAP}\n}}\n"
INVALID, UNSUPPORTED = 100000, 200006


def _identity(path):
    x = helper.make_tensor_value_info("img", TensorProto.FLOAT, [N, 3, H, W])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [N, 3, H, W])
    g = helper.make_graph([helper.make_node("Identity", ["img"], ["y"])], "id", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def _convert(d, name, cfg):
    _identity(str(d / "id.onnx"))
    (d / f"{name}.cfg").write_text(cfg)
    rc = atc.main([f"--model={d / 'id.onnx'}", "--framework=5", f"--output={d / name}", "--soc_version=Ascend310",
                   f"--insert_op_conf={d / name}.cfg", "--log=error"])
    assert rc == 0
    return str(d / f"{name}.om")


@pytest.fixture(scope="module")
def oms(tmp_path_factory):
    d = tmp_path_factory.mktemp("aipp_dyn")
    return {"dyn": _convert(d, "dyn", DYN_CFG), "rgb": _convert(d, "rgb", RGB_CFG), "yuv": _convert(d, "yuv", YUV_CFG),
            "plain_dir": str(d)}


@pytest.fixture(scope="module")
def acl():
    cands = sorted(glob.glob(os.path.join(os.path.dirname(asc.__file__), "lib", "libasc.so*")))
    assert cands
    lib = ctypes.CDLL(cands[0])
    vp, sz, u32, u64, i8, i16, i32, f = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint64,
                                         ctypes.c_int8, ctypes.c_int16, ctypes.c_int32, ctypes.c_float)
    sig = {
        "aclmdlLoadFromFile": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(u32)]),
        "aclmdlUnload": (ctypes.c_int, [u32]),
        "aclmdlCreateDesc": (vp, []), "aclmdlDestroyDesc": (ctypes.c_int, [vp]),
        "aclmdlGetDesc": (ctypes.c_int, [vp, u32]),
        "aclmdlGetNumInputs": (sz, [vp]),
        "aclmdlGetInputSizeByIndex": (sz, [vp, sz]),
        "aclmdlGetInputIndexByName": (ctypes.c_int, [vp, ctypes.c_char_p, ctypes.POINTER(sz)]),
        "aclmdlCreateDataset": (vp, []), "aclmdlDestroyDataset": (ctypes.c_int, [vp]),
        "aclmdlAddDatasetBuffer": (ctypes.c_int, [vp, vp]),
        "aclCreateDataBuffer": (vp, [vp, sz]), "aclDestroyDataBuffer": (ctypes.c_int, [vp]),
        "aclmdlExecute": (ctypes.c_int, [u32, vp, vp]),
        "aclGetRecentErrMsg": (ctypes.c_char_p, []),
        "aclmdlCreateAIPP": (vp, [u64]), "aclmdlDestroyAIPP": (ctypes.c_int, [vp]),
        "aclmdlSetAIPPSrcImageSize": (ctypes.c_int, [vp, i32, i32]),
        "aclmdlSetAIPPInputFormat": (ctypes.c_int, [vp, ctypes.c_int]),
        "aclmdlSetAIPPCscParams": (ctypes.c_int, [vp, i8] + [i16] * 9 + [ctypes.c_uint8] * 6),
        "aclmdlSetAIPPRbuvSwapSwitch": (ctypes.c_int, [vp, i8]),
        "aclmdlSetAIPPAxSwapSwitch": (ctypes.c_int, [vp, i8]),
        "aclmdlSetAIPPScfParams": (ctypes.c_int, [vp, i8, i32, i32, i32, i32, u64]),
        "aclmdlSetAIPPCropParams": (ctypes.c_int, [vp, i8, i32, i32, i32, i32, u64]),
        "aclmdlSetAIPPPaddingParams": (ctypes.c_int, [vp, i8, i32, i32, i32, i32, u64]),
        "aclmdlSetAIPPDtcPixelMean": (ctypes.c_int, [vp, i16, i16, i16, i16, u64]),
        "aclmdlSetAIPPDtcPixelMin": (ctypes.c_int, [vp, f, f, f, f, u64]),
        "aclmdlSetAIPPPixelVarReci": (ctypes.c_int, [vp, f, f, f, f, u64]),
        "aclmdlSetInputAIPP": (ctypes.c_int, [u32, vp, sz, vp]),
        "aclmdlSetAIPPByInputIndex": (ctypes.c_int, [u32, vp, sz, vp]),
        "aclmdlGetAippType": (ctypes.c_int, [u32, sz, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(sz)]),
        "aclmdlGetAippDataSize": (ctypes.c_int, [u64, ctypes.POINTER(sz)]),
        "aclmdlGetFirstAippInfo": (ctypes.c_int, [u32, sz, vp]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def _msg(acl):
    return (acl.aclGetRecentErrMsg() or b"").decode()


def _set_common(acl, s, c):
    """The static configuration's shared part through the setters."""
    assert acl.aclmdlSetAIPPInputFormat(s, 3 if c["input_format"] == "RGB888_U8" else 1) == 0, _msg(acl)
    assert acl.aclmdlSetAIPPSrcImageSize(s, c["src_image_size_w"], c["src_image_size_h"]) == 0, _msg(acl)
    m = [c[f"matrix_r{i}c{j}"] for i in range(3) for j in range(3)]
    ob = [c[f"output_bias_{i}"] for i in range(3)]
    ib = [c[f"input_bias_{i}"] for i in range(3)]
    assert acl.aclmdlSetAIPPCscParams(s, int(c["csc_switch"]), *m, *ob, *ib) == 0, _msg(acl)
    assert acl.aclmdlSetAIPPRbuvSwapSwitch(s, int(c["rbuv_swap_switch"])) == 0, _msg(acl)
    assert acl.aclmdlSetAIPPAxSwapSwitch(s, 0) == 0


def _set_batch(acl, s, c, bi, pad=(0, 0, 0, 0)):
    assert acl.aclmdlSetAIPPCropParams(s, 1, c["load_start_pos_w"], c["load_start_pos_h"], c["crop_size_w"],
                                       c["crop_size_h"], bi) == 0, _msg(acl)
    assert acl.aclmdlSetAIPPPaddingParams(s, int(any(pad)), *pad, bi) == 0, _msg(acl)
    assert acl.aclmdlSetAIPPScfParams(s, 0, 0, 0, 0, 0, bi) == 0, _msg(acl)
    assert acl.aclmdlSetAIPPDtcPixelMean(s, *[c[f"mean_chn_{i}"] for i in range(3)], 0, bi) == 0
    assert acl.aclmdlSetAIPPDtcPixelMin(s, *[c[f"min_chn_{i}"] for i in range(3)], 0.0, bi) == 0
    assert acl.aclmdlSetAIPPPixelVarReci(s, *[c[f"var_reci_chn_{i}"] for i in range(3)], 1.0, bi) == 0


class _Model:
    def __init__(self, acl, path):
        self.acl, self.id = acl, ctypes.c_uint32()
        assert acl.aclmdlLoadFromFile(path.encode(), ctypes.byref(self.id)) == 0, _msg(acl)
        self.desc = acl.aclmdlCreateDesc()
        assert acl.aclmdlGetDesc(self.desc, self.id) == 0

    def datasets(self, inputs, outputs):
        acl, keep = self.acl, []
        sets = []
        for arrs in (inputs, outputs):
            d = acl.aclmdlCreateDataset()
            for a in arrs:
                b = acl.aclCreateDataBuffer(a.ctypes.data, a.nbytes)
                keep.append(b)
                assert acl.aclmdlAddDatasetBuffer(d, b) == 0
            sets.append(d)
        return sets[0], sets[1], keep

    def close(self):
        assert self.acl.aclmdlDestroyDesc(self.desc) == 0
        assert self.acl.aclmdlUnload(self.id) == 0


def _run_static(acl, path, raw):
    m = _Model(acl, path)
    y = np.full((N, 3, H, W), np.nan, np.float32)
    i, o, keep = m.datasets([np.ascontiguousarray(raw)], [y])
    assert acl.aclmdlExecute(m.id, i, o) == 0, _msg(acl)
    for b in keep:
        acl.aclDestroyDataBuffer(b)
    acl.aclmdlDestroyDataset(i), acl.aclmdlDestroyDataset(o)
    m.close()
    return y


def _flat(raw):
    out = np.zeros((N, CAP), np.uint8)
    out[:, :raw[0].size] = raw.reshape(N, -1)
    return out


@pytest.mark.parametrize("kind", ["rgb", "yuv"])
def test_dynamic_matches_static_and_numpy(acl, oms, kind):
    cfg = _aipp.resolved(_aipp.parse_config(RGB_CFG if kind == "rgb" else YUV_CFG)[0])
    sh, sw = cfg["src_image_size_h"], cfg["src_image_size_w"]
    shape = (N, sh, sw, 3) if kind == "rgb" else (N, sh * 3 // 2, sw, 1)
    raw = np.random.default_rng(7).integers(0, 256, shape, dtype=np.uint8)
    static = _run_static(acl, oms[kind], raw)

    m = _Model(acl, oms["dyn"])
    acl_ = acl
    assert acl.aclmdlGetNumInputs(m.desc) == 2
    idx = ctypes.c_size_t()
    assert acl.aclmdlGetInputIndexByName(m.desc, b"ascend_dynamic_aipp_data", ctypes.byref(idx)) == 0
    assert idx.value == 1 and acl.aclmdlGetInputSizeByIndex(m.desc, 0) == N * CAP
    t, att = ctypes.c_int(), ctypes.c_size_t()
    assert acl.aclmdlGetAippType(m.id, 0, ctypes.byref(t), ctypes.byref(att)) == 0
    assert (t.value, att.value) == (2, 1)  # ACL_DATA_WITH_DYNAMIC_AIPP, attached input 1
    assert acl.aclmdlGetAippType(m.id, 1, ctypes.byref(t), ctypes.byref(att)) == 0 and t.value == 3
    params = np.zeros(acl.aclmdlGetInputSizeByIndex(m.desc, 1), np.uint8)
    img = _flat(raw)
    y = np.full((N, 3, H, W), np.nan, np.float32)
    i, o, keep = m.datasets([img, params], [y])
    s = acl.aclmdlCreateAIPP(N)
    assert s
    _set_common(acl, s, cfg)
    _set_batch(acl, s, cfg, 0)
    # batch 1: a smaller crop padded back to the model's H x W, other mean/var_reci
    c1 = dict(cfg, load_start_pos_w=2, load_start_pos_h=2, crop_size_w=W - 2, crop_size_h=H - 3,
              mean_chn_0=10, mean_chn_1=20, mean_chn_2=30, var_reci_chn_0=0.5, var_reci_chn_1=0.25,
              var_reci_chn_2=2.0)
    pad = (1, 2, 0, 2)  # top, bottom, left, right
    _set_batch(acl, s, c1, 1, pad)
    assert acl_.aclmdlSetInputAIPP(m.id, i, 1, s) == 0, _msg(acl)
    assert acl.aclmdlExecute(m.id, i, o) == 0, _msg(acl)
    np.testing.assert_array_equal(y[0], static[0])  # bit-equal to the static conversion
    np.testing.assert_allclose(y[0], numpy_aipp(raw[:1], cfg)[0], rtol=1e-6, atol=1e-6)
    want1 = np.pad(numpy_aipp(raw[1:], c1)[0], ((0, 0), (1, 2), (0, 2)))
    np.testing.assert_allclose(y[1], want1, rtol=1e-6, atol=1e-6)
    # per run: new parameters through the image input's index give batch 1 the static result too
    _set_batch(acl, s, cfg, 1)
    assert acl.aclmdlSetAIPPByInputIndex(m.id, i, 0, s) == 0, _msg(acl)
    assert acl.aclmdlExecute(m.id, i, o) == 0, _msg(acl)
    np.testing.assert_array_equal(y, static)
    assert acl.aclmdlDestroyAIPP(s) == 0
    for b in keep:
        acl.aclDestroyDataBuffer(b)
    acl.aclmdlDestroyDataset(i), acl.aclmdlDestroyDataset(o)
    m.close()


def test_dynamic_misuse(acl, oms):
    m = _Model(acl, oms["dyn"])
    static = _Model(acl, oms["rgb"])
    img = np.zeros((N, CAP), np.uint8)
    params = np.zeros(acl.aclmdlGetInputSizeByIndex(m.desc, 1), np.uint8)
    y = np.zeros((N, 3, H, W), np.float32)
    i, o, keep = m.datasets([img, params], [y])
    try:
        # executing before the parameters are set
        assert acl.aclmdlExecute(m.id, i, o) != 0 and "aclmdlSetInputAIPP" in _msg(acl)
        assert acl.aclmdlCreateAIPP(0) is None and "batchSize 0" in _msg(acl)
        assert acl.aclmdlDestroyAIPP(None) == INVALID and "null" in _msg(acl)
        assert acl.aclmdlSetAIPPSrcImageSize(None, 8, 8) == INVALID and "aclmdlSetAIPPSrcImageSize" in _msg(acl)
        s = acl.aclmdlCreateAIPP(N)
        assert acl.aclmdlSetAIPPCropParams(s, 1, 0, 0, 4, 4, 2) == INVALID and "batchIndex 2" in _msg(acl)
        assert acl.aclmdlSetAIPPDtcPixelMean(s, 0, 0, 0, 0, N) == INVALID
        assert acl.aclmdlSetAIPPPixelVarReci(s, 1, 1, 1, 1, 99) == INVALID and "batchIndex 99" in _msg(acl)
        assert acl.aclmdlSetAIPPCropParams(s, 2, 0, 0, 4, 4, 0) == INVALID and "cropSwitch 2" in _msg(acl)
        assert acl.aclmdlSetAIPPCropParams(s, 1, -1, 0, 4, 4, 0) == INVALID and "[0, 4095]" in _msg(acl)
        assert acl.aclmdlSetAIPPCropParams(s, 1, 0, 0, 4097, 4, 0) == INVALID
        assert acl.aclmdlSetAIPPPaddingParams(s, 1, 0, 33, 0, 0, 0) == INVALID and "bottom 33" in _msg(acl)
        assert acl.aclmdlSetAIPPSrcImageSize(s, 0, 8) == INVALID and "srcImageSizeW 0" in _msg(acl)
        assert acl.aclmdlSetAIPPPaddingParams(s, 1, -1, 0, 0, 0, 0) == INVALID
        assert "top -1, bottom 0, left 0, right 0: each must be in [0, 32]" in _msg(acl)  # the message is read once
        assert acl.aclmdlSetAIPPDtcPixelMin(s, float("nan"), 0, 0, 0, 0) == INVALID
        # unsupported modes, named
        assert acl.aclmdlSetAIPPInputFormat(s, 2) == UNSUPPORTED and "inputFormat 2" in _msg(acl)
        assert acl.aclmdlSetAIPPInputFormat(s, 77) == INVALID
        assert acl.aclmdlSetAIPPScfParams(s, 1, 8, 8, 4, 4, 0) == UNSUPPORTED and "resize" in _msg(acl)
        assert acl.aclmdlSetAIPPAxSwapSwitch(s, 1) == UNSUPPORTED
        # unset format / size
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s) == INVALID and "aclmdlSetAIPPInputFormat" in _msg(acl)
        assert acl.aclmdlSetAIPPInputFormat(s, 3) == 0
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s) == INVALID and "aclmdlSetAIPPSrcImageSize" in _msg(acl)
        assert acl.aclmdlSetAIPPSrcImageSize(s, 8, 6) == 0
        # crop outside the image
        assert acl.aclmdlSetAIPPCropParams(s, 1, 4, 0, 6, 6, 1) == 0
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s) == INVALID and "not inside the 8x6" in _msg(acl)
        assert acl.aclmdlSetAIPPCropParams(s, 0, 0, 0, 0, 0, 1) == 0
        # an image larger than max_src_image_size
        assert acl.aclmdlSetAIPPSrcImageSize(s, 100, 100) == 0
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s) == INVALID and "max_src_image_size" in _msg(acl)
        assert acl.aclmdlSetAIPPSrcImageSize(s, W, H) == 0
        # wrong index, wrong model, wrong batch, null dataset, bad model id
        assert acl.aclmdlSetInputAIPP(m.id, i, 0, s) == INVALID and "input 1" in _msg(acl)
        assert acl.aclmdlSetAIPPByInputIndex(m.id, i, 1, s) == INVALID and "input 0" in _msg(acl)
        assert acl.aclmdlSetInputAIPP(static.id, i, 1, s) == INVALID and "no dynamic AIPP" in _msg(acl)
        assert acl.aclmdlSetInputAIPP(m.id, None, 1, s) == INVALID and "dataset" in _msg(acl)
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, None) == INVALID
        assert acl.aclmdlSetInputAIPP(987654, i, 1, s) == 100011
        s1 = acl.aclmdlCreateAIPP(1)
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s1) == INVALID and "batch 1" in _msg(acl)
        assert acl.aclmdlDestroyAIPP(s1) == 0
        # a valid set runs; the crop (none: whole 8x6 image) fits the model input
        assert acl.aclmdlSetAIPPCropParams(s, 0, 0, 0, 0, 0, 0) == 0
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s) == 0, _msg(acl)
        assert acl.aclmdlExecute(m.id, i, o) == 0, _msg(acl)
        # crop + padding not giving the model's H x W: refused at execution, named
        assert acl.aclmdlSetAIPPPaddingParams(s, 1, 1, 0, 0, 0, 1) == 0
        assert acl.aclmdlSetInputAIPP(m.id, i, 1, s) == 0
        assert acl.aclmdlExecute(m.id, i, o) != 0 and "not the model input's 8x6" in _msg(acl)
        assert acl.aclmdlDestroyAIPP(s) == 0
        assert acl.aclmdlDestroyAIPP(s) == INVALID and "destroyed" in _msg(acl)
        assert acl.aclmdlSetAIPPRbuvSwapSwitch(s, 0) == INVALID
        t, att = ctypes.c_int(), ctypes.c_size_t()
        # the static model's image input: ACL_DATA_WITH_STATIC_AIPP, nothing attached
        assert acl.aclmdlGetAippType(static.id, 0, ctypes.byref(t), ctypes.byref(att)) == 0
        assert (t.value, att.value) == (1, ctypes.c_size_t(-1).value)
        assert acl.aclmdlGetAippType(m.id, 5, ctypes.byref(t), ctypes.byref(att)) == INVALID
    finally:
        for b in keep:
            acl.aclDestroyDataBuffer(b)
        acl.aclmdlDestroyDataset(i), acl.aclmdlDestroyDataset(o)
        m.close()
        static.close()


@pytest.mark.parametrize("cfg,reason", [
    ("aipp_op {\n aipp_mode : dynamic\n}\n", "max_src_image_size must be given"),
    ("aipp_op {\n aipp_mode : dynamic\n max_src_image_size : 10\n crop : true\n}\n", "takes only"),
    ("aipp_op {\n aipp_mode : other\n}\n", "supported are 'static' and 'dynamic'"),
])
def test_dynamic_config_errors(cfg, reason):
    with pytest.raises(asc.AscendError, match=reason):
        _aipp.parse_config(cfg)


# ------------------------------------------------------------------ aclmdlGetFirstAippInfo / GetAippDataSize

class _IODims(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 128), ("dimCount", ctypes.c_size_t), ("dims", ctypes.c_int64 * 128)]


class _AippDims(ctypes.Structure):
    _fields_ = [("srcDims", _IODims), ("srcSize", ctypes.c_size_t), ("aippOutdims", _IODims),
                ("aippOutSize", ctypes.c_size_t)]


# CANN's aclAippInfo, field by field (acl/acl_mdl.h): C's alignment rules make the ctypes layout the same
_I8, _I32, _F = ctypes.c_int8, ctypes.c_int32, ctypes.c_float
_AIPP_FIELDS = ([("inputFormat", ctypes.c_int), ("srcImageSizeW", _I32), ("srcImageSizeH", _I32),
                 ("cropSwitch", _I8), ("loadStartPosW", _I32), ("loadStartPosH", _I32), ("cropSizeW", _I32),
                 ("cropSizeH", _I32), ("resizeSwitch", _I8), ("resizeOutputW", _I32), ("resizeOutputH", _I32),
                 ("paddingSwitch", _I8), ("leftPaddingSize", _I32), ("rightPaddingSize", _I32),
                 ("topPaddingSize", _I32), ("bottomPaddingSize", _I32), ("cscSwitch", _I8), ("rbuvSwapSwitch", _I8),
                 ("axSwapSwitch", _I8), ("singleLineMode", _I8)]
                + [(f"matrixR{i}C{j}", _I32) for i in range(3) for j in range(3)]
                + [(f"outputBias{i}", _I32) for i in range(3)] + [(f"inputBias{i}", _I32) for i in range(3)]
                + [(f"meanChn{i}", _I32) for i in range(4)] + [(f"minChn{i}", _F) for i in range(4)]
                + [(f"varReciChn{i}", _F) for i in range(4)]
                + [("srcFormat", ctypes.c_int), ("srcDatatype", ctypes.c_int), ("srcDimNum", ctypes.c_size_t),
                   ("shapeCount", ctypes.c_size_t), ("outDims", _AippDims * 128), ("aippExtend", ctypes.c_void_p)])


class _AippInfo(ctypes.Structure):
    _fields_ = _AIPP_FIELDS


GE_AIPP_NOT_EXIST, INVALID_MODEL_ID = 145015, 100011


def _info(acl, model_id, index):
    a = _AippInfo()
    ctypes.memset(ctypes.byref(a), 0x5A, ctypes.sizeof(a))  # every field the call leaves alone shows
    rc = acl.aclmdlGetFirstAippInfo(model_id, index, ctypes.byref(a))
    return rc, a


@pytest.mark.parametrize("kind", ["rgb", "yuv"])
def test_first_aipp_info_is_the_static_config(acl, oms, kind):
    """Every field against the configuration file (resolved by _aipp as pyasc-atc resolves it)."""
    cfg = _aipp.resolved(_aipp.parse_config(RGB_CFG if kind == "rgb" else YUV_CFG)[0])
    m = _Model(acl, oms[kind])
    try:
        t, att = ctypes.c_int(), ctypes.c_size_t()
        assert acl.aclmdlGetAippType(m.id, 0, ctypes.byref(t), ctypes.byref(att)) == 0, _msg(acl)
        assert (t.value, att.value) == (1, ctypes.c_size_t(-1).value)  # ACL_DATA_WITH_STATIC_AIPP
        rc, a = _info(acl, m.id, 0)
        assert rc == 0, _msg(acl)
        assert a.inputFormat == (3 if kind == "rgb" else 1)  # ACL_RGB888_U8 / ACL_YUV420SP_U8
        sw, sh = cfg["src_image_size_w"], cfg["src_image_size_h"]
        assert (a.srcImageSizeW, a.srcImageSizeH) == (sw, sh)
        assert (a.cropSwitch, a.loadStartPosW, a.loadStartPosH, a.cropSizeW, a.cropSizeH) == (
            int(cfg["crop"]), cfg["load_start_pos_w"], cfg["load_start_pos_h"], cfg["crop_size_w"], cfg["crop_size_h"])
        assert (a.resizeSwitch, a.paddingSwitch) == (0, 0)
        assert (a.cscSwitch, a.rbuvSwapSwitch, a.axSwapSwitch) == (int(cfg["csc_switch"]),
                                                                  int(cfg["rbuv_swap_switch"]), 0)
        for i in range(3):
            for j in range(3):
                assert getattr(a, f"matrixR{i}C{j}") == cfg[f"matrix_r{i}c{j}"]
            assert getattr(a, f"outputBias{i}") == cfg[f"output_bias_{i}"]
            assert getattr(a, f"inputBias{i}") == cfg[f"input_bias_{i}"]
            assert getattr(a, f"meanChn{i}") == cfg[f"mean_chn_{i}"]
            assert getattr(a, f"minChn{i}") == np.float32(cfg[f"min_chn_{i}"])
            assert getattr(a, f"varReciChn{i}") == np.float32(cfg[f"var_reci_chn_{i}"])
        assert (a.srcFormat, a.srcDatatype, a.srcDimNum, a.shapeCount) == (0, 0, 4, 1)  # NCHW float32
        d = a.outDims[0]
        raw = [N, sh, sw, 3] if kind == "rgb" else [N, sh * 3 // 2, sw, 1]
        assert list(d.srcDims.dims[:d.srcDims.dimCount]) == raw and d.srcSize == int(np.prod(raw))
        assert d.srcSize == acl.aclmdlGetInputSizeByIndex(m.desc, 0)
        assert list(d.aippOutdims.dims[:d.aippOutdims.dimCount]) == [N, 3, H, W] and d.aippOutSize == N * 3 * H * W * 4
        assert d.srcDims.name == b"img" and a.aippExtend is None
    finally:
        m.close()


def test_first_aipp_info_errors_and_data_size(acl, oms):
    """Inputs without static AIPP, bad ids/indices/pointers; the dynamic input's size formula."""
    m = _Model(acl, oms["dyn"])
    try:
        # dynamic AIPP: parameters come per run, no static configuration
        rc, _ = _info(acl, m.id, 0)
        assert rc == GE_AIPP_NOT_EXIST and "dynamic" in _msg(acl)
        rc, _ = _info(acl, m.id, 1)
        assert rc == GE_AIPP_NOT_EXIST and "ascend_dynamic_aipp_data" in _msg(acl)
        rc, _ = _info(acl, m.id, 2)
        assert rc == INVALID and "out of range" in _msg(acl)
        assert acl.aclmdlGetFirstAippInfo(m.id, 0, None) == INVALID and "null" in _msg(acl)
        # aclmdlGetAippDataSize is the ACL_DYNAMIC_AIPP_NAME input's size for the model's batch
        size = ctypes.c_size_t()
        assert acl.aclmdlGetAippDataSize(N, ctypes.byref(size)) == 0
        assert size.value == acl.aclmdlGetInputSizeByIndex(m.desc, 1) == 96 + N * 112
        for b in (1, 7, 65536):
            assert acl.aclmdlGetAippDataSize(b, ctypes.byref(size)) == 0 and size.value == 96 + b * 112
        assert acl.aclmdlGetAippDataSize(0, ctypes.byref(size)) == INVALID and "batchSize 0" in _msg(acl)
        assert acl.aclmdlGetAippDataSize(65537, ctypes.byref(size)) == INVALID
        assert acl.aclmdlGetAippDataSize(1, None) == INVALID and "null" in _msg(acl)
    finally:
        m.close()
    bad = ctypes.c_uint32(0xFFFF0)
    rc, _ = _info(acl, bad.value, 0)
    assert rc == INVALID_MODEL_ID
    # a model without any AIPP
    d = oms["plain_dir"]
    _identity(os.path.join(d, "id.onnx"))
    assert atc.main([f"--model={os.path.join(d, 'id.onnx')}", "--framework=5", f"--output={os.path.join(d, 'id')}",
                     "--soc_version=Ascend310", "--log=error"]) == 0
    plain = _Model(acl, os.path.join(d, "id.om"))
    try:
        rc, _ = _info(acl, plain.id, 0)
        assert rc == GE_AIPP_NOT_EXIST and "no static AIPP" in _msg(acl)
        t, att = ctypes.c_int(), ctypes.c_size_t()
        assert acl.aclmdlGetAippType(plain.id, 0, ctypes.byref(t), ctypes.byref(att)) == 0 and t.value == 0
    finally:
        plain.close()
