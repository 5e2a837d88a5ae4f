"""Model repositories for the pyasc-serve tests: ONNX models generated with onnx.helper, model.py
files, config.pbtxt (a module of its own name: several test directories have a conftest.py)."""

from __future__ import annotations

import os
import textwrap

import numpy as np

import onnx
from onnx import TensorProto, helper, numpy_helper


def linear_model(path, w, b, opset=17):
    """y = x @ w + b with a free batch dimension; returns (w, b)."""
    k, n = w.shape
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", k])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", n])
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
                          "linear", [x], [y], [numpy_helper.from_array(w.astype(np.float32), "w"),
                                                numpy_helper.from_array(b.astype(np.float32), "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(m, path)
    return w, b


def two_input_model(path):
    """sum = a + b (INT32, shape [batch, 4]) and prod = a * b."""
    a = helper.make_tensor_value_info("a", TensorProto.INT32, ["batch", 4])
    b = helper.make_tensor_value_info("b", TensorProto.INT32, ["batch", 4])
    s = helper.make_tensor_value_info("sum", TensorProto.INT32, ["batch", 4])
    p = helper.make_tensor_value_info("prod", TensorProto.INT32, ["batch", 4])
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["sum"]), helper.make_node("Mul", ["a", "b"], ["prod"])],
                          "addmul", [a, b], [s, p])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(m, path)


LINEAR_CONFIG = """
name: "{name}"
platform: "onnxruntime_onnx"
max_batch_size: {mbs}
input [ {{ name: "x" data_type: TYPE_FP32 dims: [ {k} ] }} ]
output [ {{ name: "y" data_type: TYPE_FP32 dims: [ {n} ] }} ]
{extra}
"""

ECHO_PY = textwrap.dedent('''
    import json
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def initialize(self, args):
            self.config = json.loads(args["model_config"])
            self.version = args["model_version"]
            self.batches = []

        def execute(self, requests):
            self.batches.append(len(requests))
            out = []
            for r in requests:
                t = pb_utils.get_input_tensor_by_name(r, "IN")
                x = t.as_numpy()
                if x.dtype != np.object_ and x.size and x.reshape(-1)[0] == 13:
                    out.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("unlucky input 13")))
                    continue
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x),
                                                       pb_utils.Tensor("VERSION", np.array([int(self.version)],
                                                                                           dtype=np.int32))]))
            return out

        def finalize(self):
            pass
''')

ECHO_CONFIG = """
name: "{name}"
backend: "python"
max_batch_size: 0
input [ {{ name: "IN" data_type: {dtype} dims: [ -1 ] }} ]
output [ {{ name: "OUT" data_type: {dtype} dims: [ -1 ] }}, {{ name: "VERSION" data_type: TYPE_INT32 dims: [ 1 ] }} ]
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def add_linear(repo, name, version, w, b, mbs=8, extra=""):
    linear_model(os.path.join(repo, name, str(version), "model.onnx"), w, b)
    write(os.path.join(repo, name, "config.pbtxt"),
          LINEAR_CONFIG.format(name=name, mbs=mbs, k=w.shape[0], n=w.shape[1], extra=extra))


def add_echo(repo, name, dtype="TYPE_FP32", versions=(1,)):
    for v in versions:
        write(os.path.join(repo, name, str(v), "model.py"), ECHO_PY)
    write(os.path.join(repo, name, "config.pbtxt"), ECHO_CONFIG.format(name=name, dtype=dtype))


