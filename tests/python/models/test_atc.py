"""pyasc-atc (models/atc.py, _convert.py, _aipp.py): CANN atc's flags, success/failure lines, fixed and
dynamic shapes, out_nodes, --mode=1 JSON, static AIPP against a NumPy transcription of CANN's formulas."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import pyasc as asc  # noqa: E402
from pyasc.models import atc  # noqa: E402

from test_session import X, numpy_reference, small_model  # noqa: E402

OK = "ATC run success, welcome to the next use."
FAILED = "ATC run failed, Please check the detail log, Try 'pyasc-atc --help' for more information"


@pytest.fixture()
def small(tmp_path):
    p = tmp_path / "small.onnx"
    onnx.save(small_model(), str(p))
    return str(p)


def run_atc(capsys, *argv):
    rc = atc.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_convert_and_run(tmp_path, small, capsys):
    out = str(tmp_path / "small")
    rc, o, e = run_atc(capsys, f"--model={small}", "--framework=5", f"--output={out}", "--input_shape=x:2,3,8,8",
                       "--soc_version=Ascend910B", "--input_format=NCHW", "--precision_mode=allow_mix_precision",
                       "--log=info", "--op_select_implmode=high_performance")
    assert rc == 0 and o.splitlines()[-1] == OK, e
    assert "--op_select_implmode=high_performance has no effect" in e
    s = asc.InferenceSession(out + ".om")
    assert s.get_inputs()[0].shape == [2, 3, 8, 8]
    meta = s.om_metadata
    assert meta["producer"] == "pyasc-atc" and meta["soc_version"] == "Ascend910B"
    assert meta["precision_mode"] == "allow_mix_precision" and meta["inputs"][0]["format"] == "NCHW"
    assert meta["atc_options"]["op_select_implmode"] == "high_performance"
    for g, w in zip(s.run(None, {"x": X}), numpy_reference(small_model(), X)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("argv,reason", [
    (["--framework=3"], r"--framework=3 \(TensorFlow\) is not supported"),
    (["--framework=5", "--input_shape=nope:1,3,8,8"], r"\['nope'\] not among the model's inputs \['x'\]"),
    (["--framework=5", "--input_shape=x:1,3,8"], "input 'x' has rank 4, the shape given"),
    (["--framework=5", "--input_shape=x:1,3,9,8"], "axis 2 is fixed at 8 in the model, not 9"),
    (["--framework=5", "--input_shape=x:1,3,a,8"], "dimension 'a' of input 'x'"),
    (["--framework=5", "--precision_mode=fp8"], "--precision_mode: 'fp8' is not one of"),
    (["--framework=5", "--dynamic_batch_size=1,2"], "needs --input_shape with -1"),
    (["--framework=5", "--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2", "--dynamic_dims=1;2"],
     "exclude each other"),
    (["--framework=5", "--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,1"], "a gear is repeated"),
    (["--framework=5", "--out_nodes=nosuch:0"], "no node named 'nosuch'"),
    (["--framework=5", "--bogus=1"], "unknown command line flag"),
    (["--framework=5", "--insert_op_conf=/nonexistent.cfg"], "file '/nonexistent.cfg' does not exist"),
])
def test_failures_print_atc_failure_line_and_reason(tmp_path, small, capsys, argv, reason):
    import re

    rc, o, e = run_atc(capsys, f"--model={small}", f"--output={tmp_path / 'o'}", "--soc_version=Ascend310P3", *argv)
    assert rc == 1 and o.splitlines()[-1] == FAILED
    assert re.search(reason, e), e
    assert not os.path.exists(tmp_path / "o.om")


def test_missing_required_flags(capsys, small):
    rc, o, e = run_atc(capsys, f"--model={small}", "--framework=5", "--output=x")
    assert rc == 1 and "--soc_version is required" in e
    rc, o, e = run_atc(capsys, f"--model={small}.missing", "--framework=5", "--output=x", "--soc_version=A")
    assert rc == 1 and "does not exist" in e


def test_dynamic_batch_gears(tmp_path, small, capsys):
    out = str(tmp_path / "dyn")
    rc, o, e = run_atc(capsys, f"--model={small}", "--framework=5", f"--output={out}", "--soc_version=Ascend910B",
                       "--input_shape=x:-1,3,8,8", "--dynamic_batch_size=1,2,4")
    assert rc == 0, e
    s = asc.load_model(out + ".om")
    assert s.om_metadata["dynamic"]["gears"] == [[1], [2], [4]]
    np.testing.assert_allclose(s.run(None, {"x": X})[0], numpy_reference(small_model(), X)[0], rtol=1e-5, atol=1e-6)
    x3 = np.concatenate([X, X[:1]])
    with pytest.raises(asc.AscendValueError, match=r"select \[3\], which is not one of the gears"):
        s.run(None, {"x": x3})


def test_dynamic_dims_gears(tmp_path, small, capsys):
    out = str(tmp_path / "dd")
    rc, o, e = run_atc(capsys, f"--model={small}", "--framework=5", f"--output={out}", "--soc_version=Ascend910B",
                       "--input_shape=x:-1,3,-1,-1", "--dynamic_dims=2,8,8;1,4,4")
    assert rc == 0, e
    s = asc.load_model(out + ".om")
    s.run(None, {"x": X})
    s.run(None, {"x": X[:1, :, :4, :4]})
    with pytest.raises(asc.AscendValueError, match="not one of the gears"):
        s.run(None, {"x": X[:1]})


def test_out_nodes_and_json(tmp_path, small, capsys):
    out = str(tmp_path / "cut")
    rc, o, e = run_atc(capsys, f"--model={small}", "--framework=5", f"--output={out}", "--soc_version=Ascend910B",
                       "--out_nodes=relu:0")
    assert rc == 0, e
    s = asc.load_model(out + ".om")
    assert [v.name for v in s.get_outputs()] == ["r"]
    from onnx.reference import ReferenceEvaluator

    (want,) = ReferenceEvaluator(small_model()).run(["r"], {"x": X})
    np.testing.assert_allclose(s.run(None, {"x": X})[0], want, rtol=1e-5, atol=1e-6)
    js = str(tmp_path / "cut.json")
    rc, o, e = run_atc(capsys, "--mode=1", f"--om={out}.om", f"--json={js}")
    assert rc == 0 and o.splitlines()[-1] == OK, e
    doc = json.load(open(js))
    assert doc["header"]["format_version"] == 1 and doc["meta"]["out_nodes"] == ["r"]
    # the graph after the passes: Conv + Relu fused, GAP/Reshape/Softmax removed as no output needs them
    assert [n["type"] for n in doc["graph"]["nodes"]] == ["FusedConv"]
    assert doc["graph"]["initializers"][0]["shape"] == [4, 3, 3, 3]
    # an ONNX model dumps with --framework=5
    rc, o, e = run_atc(capsys, "--mode=1", f"--om={small}", "--framework=5", f"--json={js}")
    assert rc == 0 and len(json.load(open(js))["graph"]["nodes"]) == 5
    rc, o, e = run_atc(capsys, "--mode=1", f"--om={small}", f"--json={js}")
    assert rc == 1 and "needs --framework=5" in e


def test_check_mode_writes_nothing(tmp_path, small, capsys):
    rc, o, e = run_atc(capsys, "--mode=3", f"--model={small}", "--framework=5", "--soc_version=Ascend910B")
    assert rc == 0 and o.splitlines()[-1] == OK


def test_console_entry_point_runs(tmp_path, small):
    r = subprocess.run([sys.executable, "-m", "pyasc.models.atc", f"--model={small}", "--framework=5",
                        f"--output={tmp_path / 'cli'}", "--soc_version=Ascend910B"], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == OK, r.stderr
    assert os.path.getsize(tmp_path / "cli.om") > 64


# ------------------------------------------------------------------ AIPP

def identity_model(h, w):
    x = helper.make_tensor_value_info("img", TensorProto.FLOAT, [1, 3, h, w])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, h, w])
    g = helper.make_graph([helper.make_node("Identity", ["img"], ["y"], name="id")], "id", [x], [y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def numpy_aipp(raw, cfg):
    """CANN's AIPP on uint8 input, transcribed directly (integer CSC with >> 8 and clipping)."""
    sh, sw = cfg["src_image_size_h"], cfg["src_image_size_w"]
    x0, y0, cw, ch = cfg["load_start_pos_w"], cfg["load_start_pos_h"], cfg["crop_size_w"], cfg["crop_size_h"]
    if cfg["input_format"] == "RGB888_U8":
        img = raw[:, y0:y0 + ch, x0:x0 + cw, :].astype(np.int64)
        c = [img[..., i] for i in range(3)]
    else:
        yy = raw[:, :sh, :, 0].astype(np.int64)
        uv = raw[:, sh:, :, 0].astype(np.int64).reshape(raw.shape[0], sh // 2, sw // 2, 2)
        u = np.repeat(np.repeat(uv[..., 0], 2, axis=1), 2, axis=2)
        v = np.repeat(np.repeat(uv[..., 1], 2, axis=1), 2, axis=2)
        c = [p[:, y0:y0 + ch, x0:x0 + cw] for p in (yy, u, v)]
    if cfg.get("rbuv_swap_switch"):
        c = [c[0], c[2], c[1]] if cfg["input_format"] != "RGB888_U8" else c[::-1]
    if cfg.get("csc_switch"):
        m = np.array([[cfg[f"matrix_r{i}c{j}"] for j in range(3)] for i in range(3)])
        if cfg["input_format"] != "RGB888_U8":
            b = [cfg[f"input_bias_{j}"] for j in range(3)]
            c = [np.clip((sum(m[i, j] * (c[j] - b[j]) for j in range(3))) >> 8, 0, 255) for i in range(3)]
        else:
            c = [np.clip(((sum(m[i, j] * c[j] for j in range(3))) >> 8) + cfg[f"output_bias_{i}"], 0, 255)
                 for i in range(3)]
    out = [(c[i].astype(np.float64) - cfg[f"mean_chn_{i}"] - cfg[f"min_chn_{i}"]) * cfg[f"var_reci_chn_{i}"]
           for i in range(3)]
    return np.stack(out, axis=1).astype(np.float32)


RGB_CFG = """# classification preprocessing: crop, swap to BGR, mean/std
aipp_op {
    aipp_mode : static
    input_format : RGB888_U8
    src_image_size_w : 12
    src_image_size_h : 10
    crop : true
    load_start_pos_w : 3
    load_start_pos_h : 1
    crop_size_w : 8
    crop_size_h : 6
    rbuv_swap_switch : true
    mean_chn_0 : 104
    mean_chn_1 : 117
    mean_chn_2 : 123
    min_chn_0 : 0.5
    var_reci_chn_0 : 0.017
    var_reci_chn_1 : 0.0175
    var_reci_chn_2 : 0.0171
}
"""

YUV_CFG = """aipp_op {
    aipp_mode: static
    input_format: YUV420SP_U8
    src_image_size_w: 16
    src_image_size_h: 12
    crop: true
    load_start_pos_w: 2
    load_start_pos_h: 4
    crop_size_w: 8
    crop_size_h: 6
    csc_switch: true
    var_reci_chn_0: 0.00392157
    var_reci_chn_1: 0.00392157
    var_reci_chn_2: 0.00392157
}
"""


@pytest.mark.parametrize("cfg,shape,model_hw", [(RGB_CFG, (1, 10, 12, 3), (6, 8)), (YUV_CFG, (1, 18, 16, 1), (6, 8))])
def test_static_aipp_matches_cann_formulas(tmp_path, capsys, cfg, shape, model_hw):
    from pyasc.models import _aipp

    mp = tmp_path / "id.onnx"
    onnx.save(identity_model(*model_hw), str(mp))
    cp = tmp_path / "aipp.cfg"
    cp.write_text(cfg)
    out = str(tmp_path / "aipp")
    rc, o, e = run_atc(capsys, f"--model={mp}", "--framework=5", f"--output={out}", "--soc_version=Ascend310",
                       f"--insert_op_conf={cp}")
    assert rc == 0, e
    s = asc.load_model(out + ".om")
    (i,) = s.get_inputs()
    assert (i.name, i.type, i.shape) == ("img", "tensor(uint8)", list(shape))
    raw = np.random.default_rng(3).integers(0, 256, shape, dtype=np.uint8)
    got = s.run(None, {"img": raw})[0]
    want = numpy_aipp(raw, _aipp.resolved(_aipp.parse_config(cfg)[0]))
    assert got.shape == (1, 3) + model_hw
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    with pytest.raises(asc.AscendTypeError, match="tensor\\(float\\), expected tensor\\(uint8\\)"):
        s.run(None, {"img": raw.astype(np.float32)})


@pytest.mark.parametrize("cfg,reason", [
    ("aipp_op {\n aipp_mode : dynamic\n}\n", "max_src_image_size must be given"),
    ("aipp_op {\n aipp_mode : static\n input_format : RGB888_U8\n}\n", "src_image_size_w must be given"),
    ("aipp_op {\n aipp_mode : static\n input_format : ARGB8888_U8\n src_image_size_w : 8\n src_image_size_h : 8\n}\n",
     "input_format 'ARGB8888_U8'"),
    ("aipp_op {\n aipp_mode : static\n", "not closed"),
    ("aipp_mode : static\n", "line 1: expected 'key : value' inside an aipp_op block"),
    ("aipp_op {\n aipp_mode : static\n resize : true\n}\n", "line 3: 'resize' is not supported"),
    ("aipp_op {\n aipp_mode : static\n colour : 3\n}\n", "unknown key 'colour'"),
    ("aipp_op {\n aipp_mode : static\n src_image_size_w : wide\n}\n", "'wide' is not a valid value"),
    ("aipp_op {\n aipp_mode : static\n input_format : RGB888_U8\n src_image_size_w : 8\n src_image_size_h : 6\n"
     " crop : true\n load_start_pos_w : 4\n crop_size_w : 8\n}\n", "crop window x 4..12"),
    ("aipp_op {\n aipp_mode : static\n input_format : RGB888_U8\n src_image_size_w : 9\n src_image_size_h : 6\n}\n",
     r"the AIPP output is \[N, 3, 6, 9\]"),
])
def test_bad_aipp_configs(tmp_path, capsys, cfg, reason):
    import re

    mp = tmp_path / "id.onnx"
    onnx.save(identity_model(6, 8), str(mp))
    cp = tmp_path / "bad.cfg"
    cp.write_text(cfg)
    rc, o, e = run_atc(capsys, f"--model={mp}", "--framework=5", f"--output={tmp_path / 'o'}",
                       "--soc_version=Ascend310", f"--insert_op_conf={cp}")
    assert rc == 1 and o.splitlines()[-1] == FAILED and re.search(reason, e), e
