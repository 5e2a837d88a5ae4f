"""The ONNX model-zoo CNN architectures the onnx package ships (onnx/backend/test/data/light:
ResNet-50, DenseNet-121, Inception v1/v2, ShuffleNet, SqueezeNet, VGG-19, AlexNet, ZFNet-512)
with generated weights: their initializers were replaced by ConstantOfShape nodes (every weight
one value), which makes outputs degenerate; :func:`with_random_weights` puts seeded random
weights back (He-scaled for conv/gemm weights, positive variances for BatchNormalization) so a
comparison with another runtime means something. Nothing is downloaded."""

from __future__ import annotations

import glob
import os

import numpy as np


def light_dir():
    import onnx

    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def light_models():
    """{short name: path} of the shipped light models."""
    out = {}
    for p in sorted(glob.glob(os.path.join(light_dir(), "light_*.onnx"))):
        out[os.path.basename(p)[len("light_"):-len(".onnx")]] = p
    return out


def with_random_weights(path, seed=0):
    """The model at ``path`` with each ConstantOfShape weight replaced by a random initializer."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(path)
    g = m.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    # how each value is used: (op_type, input position) of its readers
    uses = {}
    for n in g.node:
        for i, x in enumerate(n.input):
            uses.setdefault(x, []).append((n.op_type, i))
    rng = np.random.default_rng(seed)
    keep, new_inits = [], []
    for n in g.node:
        if n.op_type != "ConstantOfShape" or n.input[0] not in inits:
            keep.append(n)
            continue
        shape = tuple(int(v) for v in inits[n.input[0]])
        name = n.output[0]
        role = uses.get(name, [("", -1)])[0]
        if role[0] in ("Conv", "Gemm", "MatMul") and role[1] == 1 and len(shape) >= 2:
            fan_in = int(np.prod(shape[1:])) if role[0] != "MatMul" else shape[0]
            a = rng.standard_normal(shape) * np.sqrt(2.0 / max(fan_in, 1))
        elif role[0] == "BatchNormalization" and role[1] == 4:  # variance
            a = rng.uniform(0.5, 1.5, shape)
        elif role[0] == "BatchNormalization" and role[1] == 1:  # scale
            a = rng.uniform(0.5, 1.5, shape)
        else:  # biases, shifts, means
            a = rng.uniform(-0.1, 0.1, shape)
        new_inits.append(numpy_helper.from_array(a.astype(np.float32), name))
        if m.ir_version < 4:  # IR 3 lists every initializer as a graph input
            g.input.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, list(shape)))
    del g.node[:]
    g.node.extend(keep)
    g.initializer.extend(new_inits)
    return m
