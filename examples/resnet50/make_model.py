"""Writes resnet50.onnx (the ONNX model-zoo ResNet-50 architecture that the onnx package ships,
with seeded random weights: nothing is downloaded) and a synthetic 1920x1080 JPEG, sample.jpg.

    python examples/resnet50/make_model.py [--out DIR] [--seed 0]
"""

from __future__ import annotations

import argparse
import os

import numpy as np


def resnet50_with_weights(seed=0):
    import onnx
    from onnx import numpy_helper

    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", "light_resnet50.onnx")
    m = onnx.load(path)
    g = m.graph
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    role = {}
    for n in g.node:
        for i, x in enumerate(n.input):
            role.setdefault(x, (n.op_type, i))
    rng = np.random.default_rng(seed)
    keep, weights = [], []
    # the shipped file holds ConstantOfShape nodes instead of weights: replace each by random values
    for n in g.node:
        if n.op_type != "ConstantOfShape" or n.input[0] not in consts:
            keep.append(n)
            continue
        shape = tuple(int(v) for v in consts[n.input[0]])
        op, pos = role.get(n.output[0], ("", -1))
        if op in ("Conv", "Gemm") and pos == 1:
            a = rng.standard_normal(shape) * np.sqrt(2.0 / max(1, int(np.prod(shape[1:]))))
        elif op == "BatchNormalization" and pos in (1, 4):
            a = rng.uniform(0.5, 1.5, shape)
        else:
            a = rng.uniform(-0.1, 0.1, shape)
        weights.append(numpy_helper.from_array(a.astype(np.float32), n.output[0]))
        if m.ir_version < 4:  # IR 3 lists every initializer among the graph inputs
            g.input.append(onnx.helper.make_tensor_value_info(n.output[0], onnx.TensorProto.FLOAT, list(shape)))
    del g.node[:]
    g.node.extend(keep)
    used = {x for n in keep for x in n.input}
    live = [t for t in g.initializer if t.name in used]  # the replaced nodes' shape constants go
    del g.initializer[:]
    g.initializer.extend(live + weights)
    keep_in = [v for v in g.input if v.name in used or v.name not in consts]
    del g.input[:]
    g.input.extend(keep_in)
    # top-5 is read from the logits: drop the final Softmax (random weights saturate it)
    if g.node[-1].op_type == "Softmax":
        g.output[0].name = g.node[-1].input[0]
        del g.node[-1]
    return m


def sample_jpeg(h=1080, w=1920):
    import pyasc as asc

    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.stack([128 + 100 * np.sin(x / 40) * np.cos(y / 60), 255 * x / w, 255 * y / h], -1)
    return asc.image.encode_jpeg(np.clip(img, 0, 255).astype(np.uint8), quality=90)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    import onnx

    os.makedirs(a.out, exist_ok=True)
    onnx.save(resnet50_with_weights(a.seed), os.path.join(a.out, "resnet50.onnx"))
    with open(os.path.join(a.out, "sample.jpg"), "wb") as f:
        f.write(sample_jpeg())
    print(f"wrote {a.out}/resnet50.onnx and {a.out}/sample.jpg")


if __name__ == "__main__":
    main()
