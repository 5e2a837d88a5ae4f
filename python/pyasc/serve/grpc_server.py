"""gRPC front end: ``inference.GRPCInferenceService`` with the message classes of :mod:`._proto`.

Served through ``grpc.method_handlers_generic_handler`` (no generated stubs). Handlers are
synchronous and run on grpcio's thread pool: the C-core threads do the I/O, a pool thread
decodes the request, runs the model (its kernels release the GIL) and encodes the answer.
Message size limits are the server's ``max_request_bytes`` (above gRPC's 4 MiB default).
Errors abort with Triton's status codes (see :mod:`.errors`).
"""

from __future__ import annotations

import logging

import grpc
import numpy as np
from google.protobuf import json_format

from . import _dtypes, _proto
from ._threads import DaemonThreadPool
from .config import validate_name
from .core import InferRequest
from .errors import InvalidArgumentError, RequestTooLargeError, ServeError

__all__ = ["GRPCFrontend", "decode_infer_request", "encode_infer_response", "check_input", "session_of"]

_M = _proto.messages()
_TensorMeta = _M["ModelMetadataResponse.TensorMetadata"]
_OutTensor = _M["ModelInferResponse.InferOutputTensor"]
_InferResponse = _M["ModelInferResponse"]

# datatype -> InferTensorContents field
_CONTENTS = {"BOOL": "bool_contents", "INT8": "int_contents", "INT16": "int_contents", "INT32": "int_contents",
             "INT64": "int64_contents", "UINT8": "uint_contents", "UINT16": "uint_contents",
             "UINT32": "uint_contents", "UINT64": "uint64_contents", "FP32": "fp32_contents",
             "FP64": "fp64_contents", "BYTES": "bytes_contents"}


def _param(p):
    which = p.WhichOneof("parameter_choice")
    return getattr(p, which) if which else None


def check_input(name, datatype, shape, max_tensor_bytes):
    """An input's datatype, shape and size checked before its data is read; returns (dtype, count).

    Shared by this decoder and the native front end's (:mod:`.native`), so both give the same errors."""
    dt = _dtypes.np_dtype(datatype)
    count = 1
    neg = False
    for d in shape:  # one loop, no generator frames: this runs for every input of every request
        count *= d
        neg |= d < 0
    if neg:
        raise InvalidArgumentError(f"input '{name}': shape {list(shape)} has a negative dimension")
    if count * (dt.itemsize if datatype != "BYTES" else 1) > max_tensor_bytes:
        raise RequestTooLargeError(f"input '{name}': {count} elements of {datatype} exceed the tensor limit of "
                                   f"{max_tensor_bytes} bytes")
    return dt, count


def session_of(params, session_md):
    """The request's session: its ``session_id`` parameter, else the ``session-id`` metadata."""
    sid = params.get("session_id", session_md)
    if sid is not None and not isinstance(sid, str):
        raise InvalidArgumentError("parameter 'session_id' must be a string")
    return sid


def decode_infer_request(msg, max_tensor_bytes, session_md=None):
    """ModelInferRequest -> InferRequest."""
    raw = msg.raw_input_contents
    if raw and len(raw) != len(msg.inputs):
        raise InvalidArgumentError(f"expected {len(msg.inputs)} raw_input_contents (one per input), got {len(raw)}")
    inputs = {}
    for i, t in enumerate(msg.inputs):
        name = t.name
        if name in inputs:
            raise InvalidArgumentError(f"input '{name}' appears twice")
        shape = list(t.shape)
        dt, count = check_input(name, t.datatype, shape, max_tensor_bytes)
        if raw:
            arr = _dtypes.from_raw(raw[i], t.datatype, shape, name)
        elif t.HasField("contents"):
            field = _CONTENTS.get(t.datatype)
            if field is None:
                raise InvalidArgumentError(f"input '{name}': {t.datatype} data must be sent in raw_input_contents")
            values = getattr(t.contents, field)
            if len(values) != count:
                raise InvalidArgumentError(f"input '{name}': {len(values)} values in contents, expected {count} for "
                                           f"shape {shape}")
            if t.datatype == "BYTES":
                arr = np.empty(count, dtype=object)
                arr[:] = list(values)
                arr = arr.reshape(shape)
            else:
                vals = np.array(values, dtype=np.int64 if dt.kind in "iu" and dt != np.uint64 else None)
                if dt.kind in "iu":
                    info = np.iinfo(dt)
                    if vals.size and (vals.min() < info.min or vals.max() > info.max):
                        raise InvalidArgumentError(f"input '{name}': a value is out of range for {t.datatype}")
                arr = vals.astype(dt).reshape(shape)
        else:
            raise InvalidArgumentError(f"input '{name}' has no data (contents or raw_input_contents)")
        inputs[name] = (t.datatype, arr)
    # (empty containers are skipped: iterating a upb map/repeated field costs microseconds)
    params = {k: _param(v) for k, v in msg.parameters.items()} if len(msg.parameters) else {}
    outputs = []
    if len(msg.outputs):
        for o in msg.outputs:
            if "classification" in o.parameters:
                raise InvalidArgumentError(f"output '{o.name}': the classification extension is not supported")
            outputs.append(o.name)
    return InferRequest(msg.model_name, msg.model_version, msg.id, inputs, outputs, params,
                        session_of(params, session_md))


def encode_infer_response(resp):
    """InferResponse -> ModelInferResponse (tensors in raw_output_contents, as Triton sends them)."""
    return _InferResponse(
        model_name=resp.model_name, model_version=resp.model_version, id=resp.id,
        outputs=[_OutTensor(name=n, datatype=dt, shape=a.shape) for n, dt, a in resp.outputs],
        raw_output_contents=[_dtypes.to_raw(a, dt) for _, dt, a in resp.outputs])


class GRPCFrontend:
    """The gRPC server."""

    def __init__(self, core, host="127.0.0.1", port=8001, max_request_bytes=64 << 20, workers=64):
        self.core = core
        self.host = host
        self.port = port
        self.max_request_bytes = int(max_request_bytes)
        self.workers = int(workers)
        self._server = None
        self._pool = None
        self.bound_port = None

    def _abort(self, context, e):
        context.abort(getattr(grpc.StatusCode, e.grpc_code), e.message)

    def _wrap(self, fn):
        def handler(request, context):
            try:
                return fn(request, context)
            except ServeError as e:
                self._abort(context, e)
            except grpc.RpcError:
                raise
            except Exception as e:  # noqa: BLE001 - INTERNAL with the reason, never a dead thread
                context.abort(grpc.StatusCode.INTERNAL, f"{type(e).__name__}: {e}")

        return handler

    @staticmethod
    def _session_md(context):
        for k, v in context.invocation_metadata() or ():
            if k == "session-id":
                return v
        return None

    # ---------------------------------------------------------------- rpcs

    def ServerLive(self, req, ctx):
        return _M["ServerLiveResponse"](live=self.core.live)

    def ServerReady(self, req, ctx):
        return _M["ServerReadyResponse"](ready=self.core.ready())

    def ModelReady(self, req, ctx):
        validate_name(req.name)
        return _M["ModelReadyResponse"](ready=self.core.model_ready(req.name, req.version))

    def ServerMetadata(self, req, ctx):
        return _M["ServerMetadataResponse"](**self.core.server_metadata())

    def ModelMetadata(self, req, ctx):
        validate_name(req.name)
        md = self.core.model_metadata(req.name, req.version)
        return _M["ModelMetadataResponse"](
            name=md["name"], versions=md["versions"], platform=md["platform"],
            inputs=[_TensorMeta(**t) for t in md["inputs"]], outputs=[_TensorMeta(**t) for t in md["outputs"]])

    def ModelConfig(self, req, ctx):
        validate_name(req.name)
        resp = _M["ModelConfigResponse"]()
        resp.config.CopyFrom(self.core.model_config(req.name, req.version))
        return resp

    def ModelStatistics(self, req, ctx):
        if req.name:
            validate_name(req.name)
        stats = self.core.model_statistics(req.name, req.version)
        return json_format.ParseDict(stats, _M["ModelStatisticsResponse"]())

    def RepositoryIndex(self, req, ctx):
        rows = self.core.repository_index(req.ready)
        return _M["RepositoryIndexResponse"](models=[_M["RepositoryIndexResponse.ModelIndex"](**r) for r in rows])

    def RepositoryModelLoad(self, req, ctx):
        validate_name(req.model_name)
        cfg = None
        for k, v in req.parameters.items():
            if k == "config":
                cfg = _param(v)
                if not isinstance(cfg, str):
                    raise InvalidArgumentError("parameter 'config' must be a string (the model config as JSON)")
            elif k.startswith("file:"):
                raise InvalidArgumentError(f"load '{req.model_name}': model files in the request ({k}) are not "
                                           f"accepted")
        self.core.load_model(req.model_name, cfg)
        return _M["RepositoryModelLoadResponse"]()

    def RepositoryModelUnload(self, req, ctx):
        validate_name(req.model_name)
        self.core.unload_model(req.model_name)
        return _M["RepositoryModelUnloadResponse"]()

    def ModelInfer(self, req, ctx):
        r = decode_infer_request(req, self.core.max_tensor_bytes, self._session_md(ctx))
        return encode_infer_response(self.core.infer(r))

    def ModelStreamInfer(self, request_iterator, ctx):
        sid = self._session_md(ctx)
        for req in request_iterator:
            try:
                r = decode_infer_request(req, self.core.max_tensor_bytes, sid)
                yield _M["ModelStreamInferResponse"](infer_response=encode_infer_response(self.core.infer(r)))
            except ServeError as e:
                yield _M["ModelStreamInferResponse"](error_message=e.message)
            except Exception as e:  # noqa: BLE001 - the stream goes on; this request's error is reported
                yield _M["ModelStreamInferResponse"](error_message=f"{type(e).__name__}: {e}")

    # ---------------------------------------------------------------- lifecycle

    def _handlers(self):
        handlers = {}
        for rpc, (req, resp, cs, ss) in _proto.METHODS.items():
            req_cls, resp_cls = _M[req], _M[resp]
            fn = getattr(self, rpc)
            if cs and ss:
                handlers[rpc] = grpc.stream_stream_rpc_method_handler(
                    fn, request_deserializer=req_cls.FromString, response_serializer=resp_cls.SerializeToString)
            else:
                handlers[rpc] = grpc.unary_unary_rpc_method_handler(
                    self._wrap(fn), request_deserializer=req_cls.FromString,
                    response_serializer=resp_cls.SerializeToString)
        return grpc.method_handlers_generic_handler(_proto.SERVICE, handlers)

    def start(self):
        """Binds and starts; returns the bound port."""
        opts = [("grpc.max_send_message_length", self.max_request_bytes),
                ("grpc.max_receive_message_length", self.max_request_bytes),
                ("grpc.so_reuseport", 0)]
        # daemon threads with a bounded shutdown (stop): a model call that never returns cannot
        # hold the stop or the interpreter's exit
        self._pool = DaemonThreadPool(max_workers=self.workers, thread_name_prefix="pyasc-serve-grpc")
        self._server = grpc.server(self._pool, options=opts)
        self._server.add_generic_rpc_handlers((self._handlers(),))
        port = self._server.add_insecure_port(f"{self.host}:{self.port}")
        if port == 0:
            raise RuntimeError(f"gRPC: cannot bind {self.host}:{self.port}")
        self._server.start()
        self.bound_port = port
        return port

    def stop(self, grace=2.0, abandon=1.0):
        """Stops (idempotent): calls still running after ``grace`` s are cancelled; handler
        threads still inside a model call ``abandon`` s later are abandoned (daemon threads,
        logged). Returns their number."""
        n = 0
        if self._server is not None:
            self._server.stop(grace).wait(grace + abandon)
            left = self._pool.shutdown(wait=True, timeout=abandon)
            n = len(left)
            if n:
                logging.getLogger("pyasc.serve").warning(
                    "pyasc-serve: gRPC stop: %d handler thread(s) still in a model call %.1f s after the %.1f s grace "
                    "period and the cancellation of their calls; abandoned (daemon threads)", n, abandon, grace)
            self._server = None
        return n
