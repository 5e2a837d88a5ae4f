"""The ONNX operator table of the model importer: one handler per (domain, op_type).

A handler is ``fn(node, inputs) -> output or tuple of outputs``: ``node`` is a
:class:`Node` (name, op type, the model's opset for the node's domain, typed
attributes), ``inputs`` the node's input values in order (pyasc arrays; ``None``
for an omitted optional input). Handlers are written in ``asc`` / ``asc.ops``
calls, so elementwise chains record into the lazy graph and fuse as any pyasc
code does. Each family module (_onnx_nn, _onnx_math, _onnx_tensor) registers its
ops with :func:`op`; ``since`` is the first opset the handler implements (the
importer refuses a model whose opset is older).
"""

from __future__ import annotations

import numpy as np

# (domain, op_type) -> (handler, since)
_OPS: dict[tuple[str, str], tuple] = {}

# ONNX TensorProto.DataType -> NumPy dtype name (STRING = 8 is not a pyasc dtype)
ONNX_DTYPES = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
    10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128", 16: "bfloat16",
}
# onnxruntime's type strings (NodeArg.type)
ORT_TYPE = {
    1: "tensor(float)", 2: "tensor(uint8)", 3: "tensor(int8)", 4: "tensor(uint16)", 5: "tensor(int16)",
    6: "tensor(int32)", 7: "tensor(int64)", 8: "tensor(string)", 9: "tensor(bool)", 10: "tensor(float16)",
    11: "tensor(double)", 12: "tensor(uint32)", 13: "tensor(uint64)", 14: "tensor(complex64)",
    15: "tensor(complex128)", 16: "tensor(bfloat16)",
}
NAME_TO_ONNX = {v: k for k, v in ONNX_DTYPES.items()}


def op(*op_types, since=1, domain=""):
    """Registers the decorated handler for ``op_types`` of ``domain`` from opset ``since``."""

    def deco(fn):
        for t in op_types:
            _OPS[(domain, t)] = (fn, since)
        return fn

    return deco


def lookup(domain, op_type):
    """(handler, since) or None."""
    return _OPS.get(("" if domain in ("", "ai.onnx") else domain, op_type))


def supported_ops(domain=""):
    """Sorted op types the importer implements for ``domain``."""
    return sorted(t for (d, t) in _OPS if d == domain)


class Node:
    """One ONNX node as the handlers see it."""

    __slots__ = ("name", "op_type", "domain", "opset", "attrs", "inputs", "outputs")

    def __init__(self, name, op_type, domain, opset, attrs, inputs, outputs):
        self.name, self.op_type, self.domain, self.opset = name, op_type, domain, opset
        self.attrs, self.inputs, self.outputs = attrs, inputs, outputs

    def attr(self, key, default=None):
        return self.attrs.get(key, default)

    def where(self):
        return f"node '{self.name}' ({self.op_type}, opset {self.opset})"

    def error(self, cls, msg, code="INVALID_PARAM"):
        from ..ops._util import _err

        return _err(cls, code, f"[InferenceSession] {self.where()}: {msg}")


def host(v, dtype=None):
    """A (small) value as a NumPy array: shapes, axes, pads, scales read on the host."""
    a = np.asarray(v)
    return a.astype(dtype) if dtype is not None else a


def host_ints(v):
    """An int64 input (shape, axes, pads, ...) as a list of Python ints."""
    return [int(e) for e in np.asarray(v).reshape(-1)]
