"""The protocol-independent server: metadata, routing, validation, sessions and execution.

The HTTP and gRPC front ends decode a request into :class:`InferRequest` (tensors already
NumPy arrays), call :meth:`InferenceCore.infer` and encode the :class:`InferResponse`.
Validation happens here once: input names, datatypes, shapes against the model's config
(``-1`` free, the batch dimension bounded by ``max_batch_size``), requested output names.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time

import numpy as np

from . import _dtypes
from . import config as _config
from .errors import InternalServerError, InvalidArgumentError, NotFoundError, QuotaExceededError, ServeError
from .repository import ModelRepository
from .routing import RoutingTable
from .sessions import SessionManager
from .stats import StatsRegistry, render_metrics

__all__ = ["InferRequest", "InferResponse", "InferenceCore", "SERVER_NAME", "EXTENSIONS"]

SERVER_NAME = "pyasc"
EXTENSIONS = ["classification", "model_repository", "model_repository(unload_dependents)", "schedule_policy",
              "model_configuration", "statistics", "binary_tensor_data", "parameters"]


class InferRequest:
    """A decoded inference request."""

    __slots__ = ("model_name", "model_version", "id", "inputs", "outputs", "parameters", "session_id")

    def __init__(self, model_name, model_version="", id="", inputs=None, outputs=None, parameters=None,  # noqa: A002
                 session_id=None):
        self.model_name = model_name
        self.model_version = model_version or ""
        self.id = id or ""
        self.inputs = inputs or {}  # name -> (datatype, ndarray)
        self.outputs = outputs or []  # requested output names ([] = all)
        self.parameters = parameters or {}
        self.session_id = session_id


class InferResponse:
    """The result: model name/version, request id, outputs as [(name, datatype, ndarray)]."""

    __slots__ = ("model_name", "model_version", "id", "outputs", "parameters")

    def __init__(self, model_name, model_version, id, outputs, parameters=None):  # noqa: A002
        self.model_name = model_name
        self.model_version = model_version
        self.id = id
        self.outputs = outputs
        self.parameters = parameters or {}


class InferenceCore:
    """Model repository + execution; thread-safe, shared by every front end."""

    def __init__(self, model_repository, control_mode="none", load_models=(), max_tensor_bytes=64 << 20,
                 session_quota_bytes=0, session_idle_secs=300.0, strict_load=False, ab_routing_file=None):
        if control_mode not in ("none", "poll", "explicit"):
            raise InvalidArgumentError(f"model control mode must be none, poll or explicit, not '{control_mode}'")
        self.control_mode = control_mode
        self.max_tensor_bytes = int(max_tensor_bytes)
        self.stats = StatsRegistry()
        self.sessions = SessionManager(session_quota_bytes, session_idle_secs)
        self.repository = ModelRepository(model_repository, self.stats)
        # splits of the A/B routing file override the configs' ab_split (serve/routing.py)
        self.routing = RoutingTable(ab_routing_file) if ab_routing_file else None
        self._rng = random.Random()
        self._rng_lock = threading.Lock()
        self.live = True
        self.load_errors = {}
        names = self.repository.names()
        if control_mode == "explicit":
            wanted = names if "*" in load_models else list(load_models)
        else:
            wanted = names
        for n in wanted:
            try:
                self.repository.load(n)
            except ServeError as e:
                self.load_errors[n] = e.message
                if strict_load:
                    raise

    # ---------------------------------------------------------------- server

    def server_metadata(self):
        from .. import __version__

        return {"name": SERVER_NAME, "version": __version__, "extensions": list(EXTENSIONS)}

    def ready(self):
        """Ready: live, and every model it was asked to load at start loaded (Triton's strict readiness)."""
        return self.live and not any(n not in self.repository.loaded() for n in self.load_errors)

    # ---------------------------------------------------------------- models

    def model_ready(self, name, version=""):
        try:
            self.repository.get_version(name, version)
            return True
        except ServeError:
            return False

    def model_metadata(self, name, version=""):
        mv = self.repository.get_version(name, version)
        entry = self.repository.get(name)
        cfg = mv.config
        batch = [-1] if cfg.max_batch_size > 0 else []

        def tensors(items):
            return [{"name": t.name, "datatype": _dtypes.config_to_datatype(_type_name(t.data_type)),
                     "shape": batch + [int(d) for d in t.dims]} for t in items]

        versions = [str(v) for v in sorted(entry.versions)] if not version else [str(mv.version)]
        return {"name": name, "versions": versions, "platform": cfg.platform or cfg.backend,
                "inputs": tensors(cfg.input), "outputs": tensors(cfg.output)}

    def model_config(self, name, version=""):
        return self.repository.get_version(name, version).config

    def model_statistics(self, name="", version=""):
        if name:
            if version:
                mvs = [self.repository.get_version(name, version)]
            else:
                mvs = list(self.repository.get(name).versions.values())
        else:
            mvs = [mv for e in self.repository.loaded().values() for mv in e.versions.values()]
        out = []
        for mv in sorted(mvs, key=lambda m: (m.name, m.version)):
            s = mv.stats.snapshot()
            s.pop("pending")
            s.pop("load_secs")
            out.append(s)
        return {"model_stats": out}

    def repository_index(self, ready=False):
        return self.repository.index(ready_only=ready)

    def load_model(self, name, config_text=None):
        if self.control_mode != "explicit":
            raise InvalidArgumentError("explicit model load / unload is not allowed if polling is enabled"
                                       if self.control_mode == "poll" else
                                       "explicit model load / unload is not allowed in model control mode 'none'")
        self.repository.load(name, config_text)
        self.load_errors.pop(name, None)

    def unload_model(self, name):
        if self.control_mode != "explicit":
            raise InvalidArgumentError("explicit model load / unload is not allowed if polling is enabled"
                                       if self.control_mode == "poll" else
                                       "explicit model load / unload is not allowed in model control mode 'none'")
        _config.validate_name(name)
        self.repository.unload(name)
        self.load_errors.pop(name, None)

    def metrics_text(self):
        return render_metrics(self.stats, self.sessions)

    # ---------------------------------------------------------------- inference

    def runs_quickly(self, name, version="", limit_ns=200_000):
        """Whether a request for ``name`` (``version``) would run on the calling thread at once
        and in under ``limit_ns``: one version to route to (no A/B split), no dynamic batcher
        (a batch waits for other requests), a free instance slot, and a recent mean execution
        time below the limit (``VersionStats.mean_exec_ns``). The HTTP front end then runs the request on its
        event loop instead of handing it to a worker thread and back (two thread switches,
        each a scheduling wait on a loaded machine, for a model call shorter than either).
        False for anything unknown: the caller takes the general path, which reports errors."""
        try:
            entry = self.repository.get(name)
            if version:
                mv = self.repository.get_version(name, version)
            else:
                if entry.arms or (self.routing is not None and self.routing.arms(name) is not None):
                    return False
                mv = entry.latest
        except ServeError:
            return False
        sched = mv.scheduler
        free = getattr(sched, "has_free_slot", None)
        if free is None or not free():
            return False
        mean = mv.stats.mean_exec_ns()
        return mean is not None and mean < limit_ns

    def _route(self, req):
        """The ModelVersion to run: the requested version, or an ab_split arm, or the latest."""
        if req.model_version:
            return self.repository.get_version(req.model_name, req.model_version)
        entry = self.repository.get(req.model_name)
        arms = entry.arms
        if self.routing is not None:
            override = self.routing.arms(req.model_name)
            if override is not None:
                arms = override
        if not arms:
            return entry.latest
        total = sum(w for _, w in arms)
        if req.session_id:  # sticky: the same session always lands on the same arm
            h = hashlib.blake2b(f"{req.model_name}\0{req.session_id}".encode(), digest_size=8).digest()
            x = int.from_bytes(h, "little") / 2.0 ** 64 * total
        else:
            with self._rng_lock:
                x = self._rng.random() * total
        for (model, version), w in arms:
            if x < w:
                break
            x -= w
        arm = (model or req.model_name) + (f"/{version}" if version else "")
        self.stats.count_arm(req.model_name, arm)
        if model and model != req.model_name:
            return self.repository.get_version(model, version)
        return self.repository.get_version(req.model_name, version)

    def _check_inputs(self, mv, req):
        cfg = mv.config
        max_batch = cfg.max_batch_size
        known = mv.input_specs
        feeds = {}
        batch = None
        for name, (datatype, arr) in req.inputs.items():
            spec = known.get(name)
            if spec is None:
                raise InvalidArgumentError(f"unexpected inference input '{name}' for model '{mv.name}': its inputs "
                                           f"are {sorted(known)}")
            want, dims, _, fixed = spec
            if datatype != want:
                raise InvalidArgumentError(f"inference input '{name}' data-type is '{datatype}', but model "
                                           f"'{mv.name}' expects '{want}'")
            shape = arr.shape
            if max_batch > 0:
                if not shape:
                    raise InvalidArgumentError(f"inference input '{name}' of model '{mv.name}' needs a batch "
                                               f"dimension (max_batch_size {max_batch})")
                b = shape[0]
                if b > max_batch or b < 1:
                    raise InvalidArgumentError(f"inference request batch-size {b} must be in [1, "
                                               f"{max_batch}] for model '{mv.name}'")
                if batch is not None and b != batch:
                    raise InvalidArgumentError(f"inputs of one request have different batch sizes ({batch} and {b})")
                batch = b
                item = shape[1:]
            else:
                item = shape
            # fixed dims (no -1, the common case): one tuple comparison
            if (item != fixed) if fixed is not None else (
                    len(item) != len(dims) or any(d != -1 and d != s for d, s in zip(dims, item))):
                full = ([-1] if max_batch > 0 else []) + dims
                raise InvalidArgumentError(f"unexpected shape for input '{name}' for model '{mv.name}'. Expected "
                                           f"{full}, got {list(shape)}")
            feeds[name] = arr
        if len(feeds) != len(known):
            missing = [n for n, s in known.items() if n not in feeds and not s[2]]
            if missing:
                raise InvalidArgumentError(f"expected {len(known)} inputs but got {len(feeds)} inputs for model "
                                           f"'{mv.name}': missing {missing}")
        return feeds, (batch if max_batch > 0 else 1)

    def infer(self, req):
        """Runs one request; returns an InferResponse or raises a ServeError."""
        t_start = time.perf_counter_ns()
        mv = self._route(req)
        stats = mv.stats
        mv.enter()
        stats.add_pending(1)
        session = None
        charged = 0
        ok = False
        queue_ns = exec_ns = in_ns = out_ns = 0
        size = 1
        try:
            feeds, size = self._check_inputs(mv, req)
            names = list(req.outputs)
            if names:
                bad = [n for n in names if n not in mv.output_set]
                if bad:
                    raise InvalidArgumentError(f"unexpected inference output '{bad[0]}' for model '{mv.name}': its "
                                               f"outputs are {sorted(mv.output_set)}")
            stream = pool = None
            if req.session_id:
                charged = sum(int(a.nbytes) for _, a in req.inputs.values())
                session = self.sessions.charge(req.session_id, charged)
                stream = self.sessions.stream(session)
                pool = self.sessions.pool(session)
            t_in = time.perf_counter_ns()
            in_ns = t_in - t_start
            result, queue_ns, exec_ns = mv.scheduler.submit(feeds, names, size, stream, pool)
            if isinstance(result, BaseException):
                err = _as_serve_error(result, mv, session)
                if session is not None and isinstance(err, QuotaExceededError):
                    self.sessions.count_failure(session)
                raise err
            t_out = time.perf_counter_ns()
            order = names or mv.output_names
            outputs = []
            for n in order:
                a = result.get(n)
                if a is None:
                    raise InternalServerError(f"model '{mv.name}' produced no output '{n}'")
                a = np.asarray(a)
                outputs.append((n, _dtypes.datatype_of(a.dtype), a))
            if session is not None:
                nb = sum(int(a.nbytes) for _, _, a in outputs)
                self.sessions.add(session, nb)
                charged += nb
            out_ns = time.perf_counter_ns() - t_out
            ok = True
            return InferResponse(mv.name, str(mv.version), req.id, outputs)
        finally:
            if session is not None:
                self.sessions.release(session, charged)
            mv.leave()
            stats.request_done(ok, time.perf_counter_ns() - t_start, queue_ns, in_ns, exec_ns, out_ns, size, -1)

    def close(self, timeout=60.0):
        """Not live; retires every model, waiting at most ``timeout`` s for calls in flight."""
        self.live = False
        self.repository.close(timeout)
        self.sessions.close()


def _as_serve_error(e, mv, session=None):
    if isinstance(e, ServeError):
        return e
    from ..errors import AscendError, AscendMemoryError

    if session is not None and isinstance(e, AscendMemoryError) and "sub-pool" in str(e):
        # The session's own pool hit its quota: this request fails alone (429 / RESOURCE_EXHAUSTED).
        return QuotaExceededError(f"session '{session.id}': model '{mv.name}' version {mv.version} exceeded the "
                                  f"session's memory pool: {e}")

    if isinstance(e, (ValueError, TypeError, IndexError)) and isinstance(e, AscendError):
        return InvalidArgumentError(f"model '{mv.name}' version {mv.version}: {e}")
    if isinstance(e, KeyError):
        return NotFoundError(f"model '{mv.name}' version {mv.version}: {e}")
    return InternalServerError(f"model '{mv.name}' version {mv.version} failed: {type(e).__name__}: {e}")


def _type_name(value):
    from . import _proto

    return _proto.data_type_enum().values_by_number[value].name
