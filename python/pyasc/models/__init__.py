"""Model inference: ONNX models on pyasc's device with onnxruntime's session interface.

``asc.InferenceSession`` (also ``asc.models.InferenceSession``) loads an ``.onnx``
model (a path, bytes or an ``onnx.ModelProto``), checks it, folds its constant
subgraphs and runs it node by node through ``asc`` / ``asc.ops`` (elementwise
chains fuse in the lazy graph). Modules:

* ``_registry``     the operator table (one handler per ONNX op type)
* ``_onnx_math``    elementwise, comparison, reduction, TopK/CumSum/Einsum, MatMul/Gemm
* ``_onnx_nn``      Conv/ConvTranspose, pooling, normalisation, activations, softmax
* ``_onnx_tensor``  shape and data-movement ops, constants
* ``_onnx_resize``  Resize / Upsample
* ``_onnx_model``   parsing, checking, constant folding, the run loop
* ``_passes``       graph passes: BatchNorm folding, Conv + activation (+ residual) fusion
* ``_aipp``         static AIPP (CANN's image pre-processing) as a model stage
* ``_convert``      ATC's options applied to a graph (input shapes, gears, out_nodes, AIPP)
* ``om``            the .om container, ``save_as_om`` / ``load_model``
* ``atc``           the ``pyasc-atc`` command line
* ``session``       InferenceSession, SessionOptions, NodeArg, ...

See docs/models.md for the supported operators and opsets.
"""

from __future__ import annotations

from ._registry import supported_ops
from .om import load_model, save_as_om
from .session import (
    GraphOptimizationLevel,
    InferenceSession,
    ModelMetadata,
    NodeArg,
    RunOptions,
    SessionOptions,
    get_available_providers,
)

__all__ = ["InferenceSession", "SessionOptions", "RunOptions", "NodeArg", "ModelMetadata", "GraphOptimizationLevel",
           "get_available_providers", "supported_ops", "save_as_om", "load_model"]
