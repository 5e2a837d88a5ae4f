"""JPEG files -> asc.image preprocessing -> asc.InferenceSession (an .onnx or a pyasc-atc .om) -> top-5.

    python examples/resnet50/make_model.py
    pyasc-atc --model=examples/resnet50/resnet50.onnx --framework=5 --output=examples/resnet50/resnet50 \\
              --input_shape="gpu_0/data_0:1,3,224,224" --soc_version=Ascend910B
    python examples/resnet50/classify.py examples/resnet50/resnet50.om examples/resnet50/sample.jpg [--onnxruntime]

With --onnxruntime (installed by scripts/bench_setup.sh into build/bench/site) the same input
tensor also runs through onnxruntime on the .onnx next to the model and its top-5 is printed
below ours: the two lists are the same.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import pyasc as asc


def top5(logits):
    v = np.asarray(logits, np.float64).reshape(-1)
    idx = np.argsort(-v, kind="stable")[:5]
    return [(int(i), float(v[i])) for i in idx]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", help="resnet50.onnx or resnet50.om")
    ap.add_argument("images", nargs="+")
    ap.add_argument("--onnxruntime", action="store_true", help="also print onnxruntime's top-5")
    a = ap.parse_args()
    sess = asc.InferenceSession(a.model)
    inp = sess.get_inputs()[0]
    batch = asc.image.preprocess(a.images, resize=256, crop=224)  # [N, 3, 224, 224] float32
    ort = None
    if a.onnxruntime:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        sys.path.append(os.path.join(root, "build", "bench", "site"))
        import onnxruntime

        onnx_path = os.path.splitext(a.model)[0] + ".onnx"
        so = onnxruntime.SessionOptions()
        so.log_severity_level = 3
        ort = onnxruntime.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
    for i, name in enumerate(a.images):
        x = np.asarray(batch[i:i + 1])
        (logits,) = sess.run(None, {inp.name: x})
        print(f"{name}: pyasc       " + "  ".join(f"{k}:{v:.4f}" for k, v in top5(logits)))
        if ort is not None:
            (want,) = ort.run(None, {ort.get_inputs()[0].name: x})
            print(f"{name}: onnxruntime " + "  ".join(f"{k}:{v:.4f}" for k, v in top5(want)))


if __name__ == "__main__":
    main()
