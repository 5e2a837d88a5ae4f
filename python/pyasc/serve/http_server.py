"""HTTP/REST front end (KServe v2 + Triton's extensions) on aiohttp, and the metrics endpoint.

The event loop parses and answers; ``InferenceCore.infer`` runs in a thread pool (the
model kernels release the GIL), so a slow model never stalls other connections. A request
for a model that runs at once and quickly (``InferenceCore.runs_quickly``: a free instance
slot, no batcher, recent mean execution under ``inline_us``; 0, the default, turns it off)
runs on the loop itself, saving the hand-off to a pool thread and back (two thread switches;
run-to-completion, as the native gRPC front end's queue threads run the call that they
read). Off by default: on the oversubscribed 2-core VM where it was measured, the one busy
loop thread got a smaller share of the CPU than the briefly waking pool threads and the
median rose (docs/serve.md, session 5); it is meant for a machine with spare cores.
Bodies above ``max_request_bytes`` get 413 before they are read; every malformed request
gets 400 with ``{"error": "<reason>"}``; nothing in a request is evaluated.

Binary tensor extension: with the header ``Inference-Header-Content-Length: N`` the
first N bytes of the body are the JSON header and the rest holds the raw tensors of the
inputs that carry ``"parameters": {"binary_data_size": n}``, in input order. Outputs
asked for with ``"binary_data": true`` (or every output, with the request parameter
``"binary_data_output": true``) come back the same way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading

from aiohttp import web

from . import _dtypes
from .config import config_to_dict, validate_name
from .core import InferRequest
from .errors import InvalidArgumentError, RequestTooLargeError, ServeError

log = logging.getLogger("pyasc.serve")

__all__ = ["HTTPFrontend", "decode_infer_request", "encode_infer_response"]

_HDR = "Inference-Header-Content-Length"


def _error(status, message):
    return web.json_response({"error": message}, status=status)


def _json_body(raw, what):
    try:
        j = json.loads(raw) if raw else {}
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"failed to parse the request JSON buffer: {e}") from None
    except RecursionError:
        raise InvalidArgumentError("failed to parse the request JSON buffer: nested too deeply") from None
    if not isinstance(j, dict):
        raise InvalidArgumentError(f"{what}: the JSON body must be an object, not {type(j).__name__}")
    return j


def _shape(value, name):
    if not isinstance(value, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                              for d in value):
        raise InvalidArgumentError(f"input '{name}': 'shape' must be a list of non-negative integers, got {value!r}")
    return value


def decode_infer_request(body, header_length, model, version, max_tensor_bytes, session_header=None):
    """An HTTP infer body -> InferRequest, plus which outputs to send binary (a set) and the default."""
    if header_length is not None:
        try:
            hlen = int(header_length)
        except ValueError:
            raise InvalidArgumentError(f"{_HDR} '{header_length}' is not an integer") from None
        if not 0 <= hlen <= len(body):
            raise InvalidArgumentError(f"{_HDR} {hlen} is outside the body of {len(body)} bytes")
        head, binary = body[:hlen], memoryview(body)[hlen:]
    else:
        head, binary = body, memoryview(b"")
    j = _json_body(head, "infer")
    params = j.get("parameters") or {}
    if not isinstance(params, dict):
        raise InvalidArgumentError("'parameters' must be an object")
    raw_inputs = j.get("inputs")
    if not isinstance(raw_inputs, list):
        raise InvalidArgumentError("the request must have an 'inputs' list")
    inputs = {}
    pos = 0
    for t in raw_inputs:
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise InvalidArgumentError("every input must be an object with a string 'name'")
        name = t["name"]
        if name in inputs:
            raise InvalidArgumentError(f"input '{name}' appears twice")
        datatype = t.get("datatype")
        dt = _dtypes.np_dtype(datatype)
        shape = _shape(t.get("shape"), name)
        count = 1
        for d in shape:
            count *= d
        if count * max(dt.itemsize if datatype != "BYTES" else 1, 1) > max_tensor_bytes:
            raise RequestTooLargeError(f"input '{name}': {count} elements of {datatype} exceed the tensor limit of "
                                       f"{max_tensor_bytes} bytes")
        tp = t.get("parameters") or {}
        if not isinstance(tp, dict):
            raise InvalidArgumentError(f"input '{name}': 'parameters' must be an object")
        size = tp.get("binary_data_size")
        if size is not None:
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise InvalidArgumentError(f"input '{name}': binary_data_size must be a non-negative integer")
            if pos + size > len(binary):
                raise InvalidArgumentError(f"input '{name}': binary_data_size {size} runs past the {len(binary)} "
                                           f"bytes of binary data")
            arr = _dtypes.from_raw(binary[pos:pos + size], datatype, shape, name)
            pos += size
        elif "data" in t:
            arr = _dtypes.from_json_data(t["data"], datatype, shape, name)
        else:
            raise InvalidArgumentError(f"input '{name}' has neither 'data' nor binary_data_size")
        inputs[name] = (datatype, arr)
    if pos != len(binary):
        raise InvalidArgumentError(f"{len(binary) - pos} bytes of binary data belong to no input")
    binary_default = bool(params.get("binary_data_output", False))
    outputs, binary_set = [], set()
    raw_outputs = j.get("outputs") or []
    if not isinstance(raw_outputs, list):
        raise InvalidArgumentError("'outputs' must be a list")
    for o in raw_outputs:
        if not isinstance(o, dict) or not isinstance(o.get("name"), str):
            raise InvalidArgumentError("every requested output must be an object with a string 'name'")
        op = o.get("parameters") or {}
        if not isinstance(op, dict):
            raise InvalidArgumentError(f"output '{o['name']}': 'parameters' must be an object")
        if op.get("classification"):
            raise InvalidArgumentError(f"output '{o['name']}': the classification extension is not supported")
        outputs.append(o["name"])
        if op.get("binary_data", binary_default):
            binary_set.add(o["name"])
    rid = j.get("id", "")
    if not isinstance(rid, str):
        raise InvalidArgumentError("'id' must be a string")
    sid = params.get("session_id", session_header)
    if sid is not None and not isinstance(sid, str):
        raise InvalidArgumentError("parameter 'session_id' must be a string")
    req = InferRequest(model, version, rid, inputs, outputs, params, sid)
    return req, binary_set, binary_default and not raw_outputs


def encode_infer_response(resp, binary_set, all_binary):
    """InferResponse -> (body bytes, headers)."""
    outs, parts = [], []
    for name, datatype, arr in resp.outputs:
        o = {"name": name, "datatype": datatype, "shape": [int(d) for d in arr.shape]}
        if all_binary or name in binary_set:
            raw = _dtypes.to_raw(arr, datatype)
            o["parameters"] = {"binary_data_size": len(raw)}
            parts.append(raw)
        else:
            o["data"] = _dtypes.to_json_data(arr, datatype)
        outs.append(o)
    head = {"model_name": resp.model_name, "model_version": resp.model_version, "outputs": outs}
    if resp.id:
        head["id"] = resp.id
    hb = json.dumps(head, separators=(",", ":")).encode()
    if not parts:
        return hb, {"Content-Type": "application/json"}
    return hb + b"".join(parts), {"Content-Type": "application/octet-stream", _HDR: str(len(hb))}


class HTTPFrontend:
    """The HTTP server (and optionally the metrics server) on one event loop thread."""

    def __init__(self, core, host="127.0.0.1", port=8000, metrics_port=None, max_request_bytes=64 << 20,
                 executor=None, inline_us=0):
        self.core = core
        # requests of models whose mean execution is below this run on the loop (0: never)
        self.inline_ns = int(float(inline_us) * 1000)
        if self.inline_ns < 0:
            raise InvalidArgumentError(f"http inline limit must be >= 0 microseconds, not {inline_us}")
        self.host = host
        self.port = port
        self.metrics_port = metrics_port
        self.max_request_bytes = int(max_request_bytes)
        self._executor = executor
        self._loop = None
        self._thread = None
        self._runners = []
        self.bound = {}

    # ---------------------------------------------------------------- handlers

    async def _call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def _app(self):
        app = web.Application(client_max_size=self.max_request_bytes, middlewares=[self._errors])
        r = app.router
        r.add_get("/v2/health/live", self._live)
        r.add_get("/v2/health/ready", self._ready)
        r.add_get("/v2", self._server_meta)
        r.add_get("/v2/models/stats", self._stats)
        for prefix in ("/v2/models/{model}", "/v2/models/{model}/versions/{version}"):
            r.add_get(prefix, self._model_meta)
            r.add_get(prefix + "/ready", self._model_ready)
            r.add_get(prefix + "/config", self._model_config)
            r.add_get(prefix + "/stats", self._stats)
            r.add_post(prefix + "/infer", self._infer)
        r.add_post("/v2/repository/index", self._index)
        r.add_post("/v2/repository/models/{model}/load", self._load)
        r.add_post("/v2/repository/models/{model}/unload", self._unload)
        return app

    @web.middleware
    async def _errors(self, request, handler):
        try:
            return await handler(request)
        except ServeError as e:
            return _error(e.http_status, e.message)
        except web.HTTPRequestEntityTooLarge as e:
            return _error(413, f"request body larger than the limit of {self.max_request_bytes} bytes ({e.text})")
        except web.HTTPException as e:
            return _error(e.status, e.reason)
        except Exception as e:  # noqa: BLE001 - an unexpected failure is a 500 with its reason, never a crash
            return _error(500, f"{type(e).__name__}: {e}")

    async def _live(self, request):
        return web.Response(status=200 if self.core.live else 400)

    async def _ready(self, request):
        return web.Response(status=200 if self.core.ready() else 400)

    async def _server_meta(self, request):
        return web.json_response(self.core.server_metadata())

    def _mv(self, request):
        name = request.match_info["model"]
        validate_name(name)
        return name, request.match_info.get("version", "")

    async def _model_meta(self, request):
        return web.json_response(self.core.model_metadata(*self._mv(request)))

    async def _model_ready(self, request):
        return web.Response(status=200 if self.core.model_ready(*self._mv(request)) else 400)

    async def _model_config(self, request):
        return web.json_response(config_to_dict(self.core.model_config(*self._mv(request))))

    async def _stats(self, request):
        if "model" in request.match_info:
            return web.json_response(self.core.model_statistics(*self._mv(request)))
        return web.json_response(self.core.model_statistics())

    async def _infer(self, request):
        name, version = self._mv(request)
        if request.content_length is not None and request.content_length > self.max_request_bytes:
            raise RequestTooLargeError(f"request body of {request.content_length} bytes exceeds the limit of "
                                       f"{self.max_request_bytes} bytes")
        body = await request.read()
        sid = request.headers.get("session-id")
        req, binary_set, all_binary = decode_infer_request(body, request.headers.get(_HDR), name, version,
                                                           self.core.max_tensor_bytes, sid)
        if self.inline_ns and self.core.runs_quickly(name, version, self.inline_ns):
            resp = self.core.infer(req)
        else:
            resp = await self._call(self.core.infer, req)
        data, headers = encode_infer_response(resp, binary_set, all_binary)
        return web.Response(body=data, headers=headers)

    async def _index(self, request):
        j = _json_body(await request.read(), "repository index")
        ready = j.get("ready", False)
        if not isinstance(ready, bool):
            raise InvalidArgumentError("'ready' must be a boolean")
        return web.json_response(self.core.repository_index(ready))

    async def _load(self, request):
        name = request.match_info["model"]
        validate_name(name)
        j = _json_body(await request.read(), "repository load")
        params = j.get("parameters") or {}
        if not isinstance(params, dict):
            raise InvalidArgumentError("'parameters' must be an object")
        cfg = params.get("config")
        if cfg is not None and not isinstance(cfg, str):
            raise InvalidArgumentError("parameter 'config' must be a string (the model config as JSON)")
        files = [k for k in params if k.startswith("file:")]
        if files:
            raise InvalidArgumentError(f"load '{name}': model files in the request ({files[0]}) are not accepted")
        await self._call(self.core.load_model, name, cfg)
        return web.Response(status=200)

    async def _unload(self, request):
        name = request.match_info["model"]
        validate_name(name)
        _json_body(await request.read(), "repository unload")
        await self._call(self.core.unload_model, name)
        return web.Response(status=200)

    async def _metrics(self, request):
        text = await self._call(self.core.metrics_text)
        return web.Response(text=text, content_type="text/plain", charset="utf-8",
                            headers={"X-Content-Type-Options": "nosniff"})

    # ---------------------------------------------------------------- lifecycle

    async def _start(self):
        runner = web.AppRunner(self._app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=False)
        await site.start()
        self._runners.append(runner)
        self.bound["http"] = runner.addresses[0][1]
        if self.metrics_port is not None:
            mapp = web.Application()
            mapp.router.add_get("/metrics", self._metrics)
            mrunner = web.AppRunner(mapp, access_log=None)
            await mrunner.setup()
            await web.TCPSite(mrunner, self.host, self.metrics_port, reuse_address=False).start()
            self._runners.append(mrunner)
            self.bound["metrics"] = mrunner.addresses[0][1]

    def start(self):
        """Starts the loop thread and binds; returns {'http': port, 'metrics': port}."""
        ready = threading.Event()
        err = []

        def run():
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            try:
                self._loop.run_until_complete(self._start())
            except BaseException as e:  # noqa: BLE001 - handed to the starting thread
                err.append(e)
                ready.set()
                return
            ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="pyasc-serve-http", daemon=True)
        self._thread.start()
        ready.wait(30)
        if err:
            raise err[0]
        return dict(self.bound)

    def stop(self, grace=15.0, abandon=1.0):
        """Stops (idempotent) within about ``grace`` + ``abandon`` s: requests still running after
        ``grace`` s are cancelled (their connections close; a pool thread in a model call is left
        to it); a loop blocked in a model call (a request run on the loop) is abandoned, logged."""
        if self._loop is None:
            return
        loop = self._loop
        self._loop = None

        async def shutdown():
            for r in self._runners:
                # aiohttp takes its handler timeout at construction; the stop's grace rules
                if hasattr(r, "_shutdown_timeout"):
                    r._shutdown_timeout = grace
                await r.cleanup()

        fut = asyncio.run_coroutine_threadsafe(shutdown(), loop)
        try:
            fut.result(grace + abandon)
        except Exception as e:  # noqa: BLE001 - the stop goes on; say why it was not clean
            log.warning("pyasc-serve: HTTP stop did not finish its shutdown within %.1f s (%s: %s)", grace + abandon,
                        type(e).__name__, e)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(abandon)
        if self._thread.is_alive():
            log.warning("pyasc-serve: HTTP stop: the event loop thread is still in a call %.1f s after the grace "
                        "period; abandoned (a daemon thread)", abandon)
            return
        loop.close()
