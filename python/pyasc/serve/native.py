"""The native gRPC front end: ``inference.GRPCInferenceService`` served by gRPC C++.

:mod:`pyasc._serve_native` (src/serve) owns the completion queues and their threads, parses
``ModelInfer`` in C++ and serialises its response in C++; the GIL is held only for the model
call itself, which gets the inputs as zero-copy NumPy views of ``raw_input_contents``. This
module provides the two Python callables it calls:

* ``_infer`` -- ModelInfer with raw inputs: the checks of :mod:`.grpc_server` (one source for
  the error messages), then :meth:`InferenceCore.infer` (routing, sessions, statistics);
* ``_dispatch`` -- every other RPC (and a ModelInfer with typed ``contents``) as bytes, run by
  the methods of :class:`.grpc_server.GRPCFrontend` unchanged.

So errors, statistics, metrics, sessions and A/B routing are those of the Python front end;
only the transport and the ModelInfer (de)serialisation are native. Without the module (gRPC
C++ absent at build time) :func:`available` is false and the server uses the grpcio front end.
"""

from __future__ import annotations

import atexit
import logging
import weakref

import grpc
import numpy as np

from . import _dtypes, _proto
from .core import InferRequest
from .errors import InvalidArgumentError, ServeError
from .grpc_server import GRPCFrontend, check_input, session_of

try:
    from .. import _serve_native
    _IMPORT_ERROR = None
except ImportError as _e:  # built without gRPC C++
    _serve_native = None
    _IMPORT_ERROR = str(_e)

__all__ = ["NativeGRPCFrontend", "available", "unavailable_reason"]

log = logging.getLogger("pyasc.serve")

_CODES = {name: sc.value[0] for name, sc in grpc.StatusCode.__members__.items()}
_INTERNAL = _CODES["INTERNAL"]
_M = _proto.messages()
_LIVE = weakref.WeakSet()


def available():
    """True when :mod:`pyasc._serve_native` was built (gRPC C++ found at configure time)."""
    return _serve_native is not None


def unavailable_reason():
    """Why the native front end cannot be used (None when it can)."""
    return None if _serve_native is not None else f"pyasc._serve_native is not built ({_IMPORT_ERROR})"


class _Abort(Exception):
    def __init__(self, code, details):
        super().__init__(details)
        self.code = code
        self.details = details


class _Context:
    """The part of ``grpc.ServicerContext`` the handlers of GRPCFrontend use."""

    __slots__ = ("_md",)

    def __init__(self, session_id):
        self._md = (("session-id", session_id),) if session_id is not None else ()

    def invocation_metadata(self):
        return self._md

    def abort(self, code, details):
        raise _Abort(code.value[0], details)


def _raw(arr, datatype):
    # a C-contiguous buffer of the wire bytes; C++ copies it into raw_output_contents
    if datatype == "BYTES":
        return _dtypes.serialize_bytes(arr)
    return np.ascontiguousarray(arr, dtype=_dtypes.np_dtype(datatype))


class NativeGRPCFrontend:
    """The gRPC server on gRPC C++; same constructor and ``start``/``stop`` as :class:`GRPCFrontend`.

    ``workers`` is the number of completion-queue threads (each runs one call at a time, and
    holds the GIL only inside the model call). ``empty_infer=True`` answers every ModelInfer
    with an empty response without calling Python: the transport floor, for benchmarks.
    ``spin_us`` > 0: after each event a queue's thread polls for that many microseconds
    before it sleeps (``--grpc-spin-us``; 0, blocking at once, is the default). ``queues``: the
    completion queues the ``workers`` threads share (0, the default: one per thread; 1: a single
    queue polled by every thread, ``--grpc-queues``). ``channel_args``: [(name, int)] extra gRPC
    channel arguments of the server (e.g. ``("grpc.http2.bdp_probe", 0)``), set after its own.
    ``offload_threads`` > 0 (``--grpc-offload-threads``): a queue thread runs a ModelInfer
    itself only when that model's recent handler time is under ``inline_us``
    (``--grpc-inline-us``, default 200); unknown or slower models go to that many worker
    threads while the queue thread polls on. With ``workers=1`` this is run-to-completion for
    quick models with a way out for slow ones. ``trace=True`` timestamps the stages of every
    unary ModelInfer in C++ (:meth:`take_traces`)."""

    takes_spin = True

    def __init__(self, core, host="127.0.0.1", port=8001, max_request_bytes=64 << 20, workers=64,
                 empty_infer=False, spin_us=0, channel_args=(), queues=0, offload_threads=0, inline_us=200,
                 trace=False):
        if _serve_native is None:
            raise RuntimeError(unavailable_reason())
        self.core = core
        self.host = host
        self.port = port
        self.max_request_bytes = int(max_request_bytes)
        self.workers = max(1, int(workers))
        self.empty_infer = bool(empty_infer)
        self.spin_us = int(spin_us)
        if not 0 <= self.spin_us <= 1_000_000:
            raise InvalidArgumentError(f"grpc spin must be 0 to 1000000 microseconds, not {spin_us}")
        self.channel_args = [(str(k), int(v)) for k, v in channel_args]
        self.queues = int(queues)
        self.offload_threads = int(offload_threads)
        self.inline_us = int(inline_us)
        self.trace = bool(trace)
        if not 0 <= self.offload_threads <= 4096:
            raise InvalidArgumentError(f"grpc offload threads must be 0 to 4096, not {offload_threads}")
        if self.inline_us < 0:
            raise InvalidArgumentError(f"grpc inline limit must be >= 0 microseconds, not {inline_us}")
        if not 0 <= self.queues <= self.workers:
            raise InvalidArgumentError(f"grpc queues must be 0 (one per worker) to the {self.workers} workers, "
                                       f"not {queues}")
        self._py = GRPCFrontend(core, host, port, max_request_bytes, workers)
        self._rpcs = {}
        for rpc, (req, _resp, cs, ss) in _proto.METHODS.items():
            if not (cs or ss):
                self._rpcs[rpc] = (_M[req].FromString, self._py._wrap(getattr(self._py, rpc)))
        self._server = None
        self.bound_port = None

    def _dispatch(self, method, body, session_id):
        """(method, request bytes, session) -> (status code, message, response bytes)."""
        entry = self._rpcs.get(method)
        if entry is None:
            return _CODES["UNIMPLEMENTED"], "Method not found!", b""
        parse, handler = entry
        try:
            req = parse(body)
        except Exception:  # noqa: BLE001 - what grpcio answers for undecodable bytes
            return _INTERNAL, "Exception deserializing request!", b""
        try:
            return 0, "", handler(req, _Context(session_id)).SerializeToString()
        except _Abort as a:
            return a.code, a.details, b""
        except Exception as e:  # noqa: BLE001 - INTERNAL with the reason, never a dead call
            return _INTERNAL, f"{type(e).__name__}: {e}", b""

    def _infer(self, model_name, model_version, rid, inputs, outputs, params, session_id):
        """ModelInfer with one raw buffer per input: inputs are (name, datatype, shape, uint8 view)."""
        try:
            limit = self.core.max_tensor_bytes
            feeds = {}
            for name, datatype, shape, raw in inputs:
                if name in feeds:
                    raise InvalidArgumentError(f"input '{name}' appears twice")
                check_input(name, datatype, shape, limit)
                feeds[name] = (datatype, _dtypes.from_raw(raw, datatype, shape, name))
            req = InferRequest(model_name, model_version, rid, feeds, outputs, params, session_of(params, session_id))
            resp = self.core.infer(req)
            return 0, "", (resp.model_name, resp.model_version, resp.id,
                           [(n, dt, a.shape, _raw(a, dt)) for n, dt, a in resp.outputs])
        except ServeError as e:
            return _CODES[e.grpc_code], e.message, None
        except Exception as e:  # noqa: BLE001
            return _INTERNAL, f"{type(e).__name__}: {e}", None

    def start(self):
        """Binds and starts; returns the bound port."""
        self._server = _serve_native.NativeServer(self._infer, self._dispatch, f"{self.host}:{self.port}",
                                                  self.max_request_bytes, self.workers, self.empty_infer,
                                                  self.spin_us, self.channel_args, self.queues,
                                                  self.offload_threads, self.inline_us, self.trace)
        port = self._server.start()
        if port == 0:
            self._server = None
            raise RuntimeError(f"gRPC: cannot bind {self.host}:{self.port}")
        self.bound_port = port
        _LIVE.add(self)
        return port

    def take_traces(self):
        """With ``trace=True``: an (N, 8) int64 array, one row per unary ModelInfer served since
        the last take, of the nanoseconds between its stages in the server: read -> parsed ->
        GIL held -> inputs converted -> Python returned -> response built -> serialised -> write
        issued -> write completed (the benchmark's breakdown)."""
        if self._server is None:
            return np.zeros((0, 8), np.int64)
        return np.asarray(self._server.take_traces(), dtype=np.int64).reshape(-1, 8)

    def stop(self, grace=2.0, abandon=1.0):
        """Stops (idempotent): calls still running after ``grace`` s are cancelled with gRPC's
        status; a thread still inside a model call ``abandon`` s later is left running,
        detached (logged), and the native server's memory is kept for it. Returns the number
        of threads abandoned."""
        n = 0
        if self._server is not None:
            n = self._server.stop(grace, abandon)
            if n:
                log.warning("pyasc-serve: gRPC stop: %d thread(s) still in a model call %.1f s after the %.1f s grace "
                            "period and the cancellation of their calls; abandoned (detached)", n, abandon, grace)
            self._server = None
        _LIVE.discard(self)
        return n


@atexit.register
def _stop_all():
    # the server threads take the GIL: stop them before the interpreter goes away
    for fe in list(_LIVE):
        fe.stop(0.0)

