"""examples/resnet50 end to end (make_model.py -> pyasc-atc -> classify.py): the .om's top-5 equals
the .onnx session's on the same preprocessed JPEG, and onnxruntime's when it is installed
(scripts/bench_setup.sh). ResNet-50-sized: runs with PYASC_MODELS_LONG=1 (not in the quick suite)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EX = os.path.join(ROOT, "examples", "resnet50")

pytestmark = pytest.mark.skipif(os.environ.get("PYASC_MODELS_LONG") != "1",
                                reason="ResNet-50 example: set PYASC_MODELS_LONG=1")


def _run(*argv):
    r = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_resnet50_example_top5(tmp_path):
    pytest.importorskip("onnx")
    _run(os.path.join(EX, "make_model.py"), "--out", str(tmp_path))
    out = _run("-m", "pyasc.models.atc", f"--model={tmp_path / 'resnet50.onnx'}", "--framework=5",
               f"--output={tmp_path / 'resnet50'}", "--input_shape=gpu_0/data_0:1,3,224,224",
               "--soc_version=Ascend910B")
    assert out.splitlines()[-1] == "ATC run success, welcome to the next use."
    jpg = str(tmp_path / "sample.jpg")
    om_top = _run(os.path.join(EX, "classify.py"), str(tmp_path / "resnet50.om"), jpg).split("pyasc")[1].split()
    onnx_top = _run(os.path.join(EX, "classify.py"), str(tmp_path / "resnet50.onnx"), jpg).split("pyasc")[1].split()
    assert [t.split(":")[0] for t in om_top] == [t.split(":")[0] for t in onnx_top]
    try:
        sys.path.append(os.path.join(ROOT, "build", "bench", "site"))
        import onnxruntime  # noqa: F401
    except ImportError:
        return
    lines = _run(os.path.join(EX, "classify.py"), str(tmp_path / "resnet50.om"), jpg, "--onnxruntime").splitlines()
    ours = [t.split(":")[0] for t in lines[0].split()[2:]]
    theirs = [t.split(":")[0] for t in lines[1].split()[2:]]
    assert ours == theirs
