"""``pyasc-serve``: a Triton-compatible (KServe v2 / Open Inference Protocol) model server.

HTTP/REST and gRPC (``inference.GRPCInferenceService``) over a Triton-style model
repository of ONNX models (``asc.InferenceSession``), ``.om`` models (``asc.load_model``,
when the build has it) and Python ``model.py`` models; hot reload, version policies,
dynamic batching, A/B splits, per-session quotas and Prometheus metrics. Modules:

* ``_proto``       the protocol's protobuf messages, built without protoc
* ``_dtypes``      datatypes and tensor (de)serialisation
* ``config``       config.pbtxt parsing, names, ab_split
* ``backends``     ONNX / .om / Python model runners; ``pb_utils`` for model.py
* ``batcher``      instance slots and the dynamic batcher
* ``repository``   load / reload / unload / poll
* ``sessions``     per-session streams and quotas
* ``stats``        statistics and /metrics
* ``core``         routing, validation, execution
* ``http_server``, ``grpc_server``, ``server``, ``cli``

See docs/serve.md.
"""

from __future__ import annotations

from .core import InferenceCore, InferRequest, InferResponse
from .errors import (InternalServerError, InvalidArgumentError, NotFoundError, QuotaExceededError,
                     RequestTooLargeError, ServeError, UnavailableError, UnsupportedError)
from .server import Server

__all__ = ["Server", "InferenceCore", "InferRequest", "InferResponse", "ServeError", "InvalidArgumentError",
           "NotFoundError", "UnavailableError", "QuotaExceededError", "RequestTooLargeError", "InternalServerError",
           "UnsupportedError", "main"]


def main(argv=None):
    """The ``pyasc-serve`` command (see :mod:`pyasc.serve.cli`)."""
    from .cli import main as _main

    return _main(argv)
