"""The whole server: core + HTTP + gRPC + metrics + repository polling + session expiry."""

from __future__ import annotations

import logging
import threading
import time

from ._threads import DaemonThreadPool
from .core import InferenceCore
from .grpc_server import GRPCFrontend
from .http_server import HTTPFrontend

__all__ = ["Server"]

log = logging.getLogger("pyasc.serve")

# after the grace period and the cancellation of the calls still running, how long a thread
# still inside a model call is waited for before it is abandoned
_ABANDON_S = 1.0


def _left(end):
    return max(0.0, end - time.monotonic())


def _limit_arenas(n):
    """Caps glibc's malloc arenas for the threads created from here on (the server's pools).

    Loads and requests run on whichever pool thread took them, and glibc gives each thread
    its own arena (up to 8 per core); an unloaded model's host memory then stays mapped in
    the arena that held it, so RSS after load/unload cycles grows to the high-water mark of
    every arena (measured: +30-45 MiB for an 8 MiB model over 12 cycles with 16 workers, flat
    with 2 arenas after the first cycle). A no-op off glibc."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, n)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def _grpc_frontend(kind):
    """The gRPC front-end class for ``kind`` ('native' falls back to 'python' when not built)."""
    if kind not in ("native", "python"):
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(f"grpc_frontend must be 'native' or 'python', not '{kind}'")
    if kind == "native":
        from . import native

        if native.available():
            return native.NativeGRPCFrontend
        logging.getLogger("pyasc.serve").warning("pyasc-serve: native gRPC front end unavailable (%s); using the "
                                                 "grpcio front end", native.unavailable_reason())
    return GRPCFrontend


class Server:
    """``Server(model_repository, ...)``; ``start()`` binds (port 0 picks a free one, see
    ``ports``), ``stop()`` shuts everything down and frees the models. Also a context manager.

    Arguments are the command-line flags of ``pyasc-serve`` (docs/serve.md); ``grpc_frontend``
    is ``native`` (gRPC C++, :mod:`.native`; the default, falling back to ``python`` with a log
    line when the module is not built) or ``python`` (grpcio, :mod:`.grpc_server`)."""

    def __init__(self, model_repository, host="127.0.0.1", http_port=8000, grpc_port=8001, metrics_port=8002,
                 model_control_mode="none", repository_poll_secs=15.0, load_models=(), max_request_bytes=64 << 20,
                 max_tensor_bytes=None, grpc_workers=64, http_workers=64, session_quota_bytes=0,
                 session_idle_secs=300.0, allow_http=True, allow_grpc=True, allow_metrics=True, strict_load=False,
                 malloc_arena_max=2, grpc_frontend="native", ab_routing_file=None, grpc_spin_us=0,
                 http_inline_us=0, grpc_queues=0,
                 grpc_offload_threads=0, grpc_inline_us=200, exit_timeout_secs=30.0):
        if malloc_arena_max:
            _limit_arenas(int(malloc_arena_max))
        self.core = InferenceCore(model_repository, model_control_mode, load_models,
                                  max_tensor_bytes if max_tensor_bytes is not None else max_request_bytes,
                                  session_quota_bytes, session_idle_secs, strict_load, ab_routing_file)
        self.exit_timeout_secs = float(exit_timeout_secs)
        if not self.exit_timeout_secs >= 0:
            from .errors import InvalidArgumentError

            raise InvalidArgumentError(f"exit timeout must be >= 0 seconds, not {exit_timeout_secs}")
        # daemon threads with a bounded shutdown: a model call that never returns cannot hold
        # stop() or the interpreter's exit (ThreadPoolExecutor joins its threads at both)
        self._pool = DaemonThreadPool(max_workers=http_workers, thread_name_prefix="pyasc-serve-http")
        self.http = HTTPFrontend(self.core, host, http_port, metrics_port if allow_metrics else None,
                                 max_request_bytes, self._pool, http_inline_us) if (allow_http or allow_metrics) else None
        self._http_enabled = allow_http
        fe = _grpc_frontend(grpc_frontend)
        # spin and queues are the native front end's; the grpcio front end ignores them
        native_kw = {"spin_us": grpc_spin_us, "queues": grpc_queues, "offload_threads": grpc_offload_threads,
                     "inline_us": grpc_inline_us} if getattr(fe, "takes_spin", False) else {}
        self.grpc = fe(self.core, host, grpc_port, max_request_bytes, grpc_workers, **native_kw) if allow_grpc else None
        self.poll_secs = float(repository_poll_secs)
        self._stop = threading.Event()
        self._threads = []
        self.ports = {}

    def start(self):
        # gRPC first: a client that sees HTTP ready may use gRPC at once
        if self.grpc is not None:
            self.ports["grpc"] = self.grpc.start()
        if self.http is not None:
            bound = self.http.start()
            if self._http_enabled:
                self.ports["http"] = bound["http"]
            if "metrics" in bound:
                self.ports["metrics"] = bound["metrics"]
        if self.core.control_mode == "poll":
            self._spawn(self._poll, "pyasc-serve-poll")
        self._spawn(self._janitor, "pyasc-serve-sessions")
        if self.core.routing is not None:
            self._spawn(self._routing, "pyasc-serve-routing")
        return self.ports

    def _spawn(self, fn, name):
        t = threading.Thread(target=fn, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def _poll(self):
        while not self._stop.wait(self.poll_secs):
            try:
                self.core.repository.poll_once()
            except Exception:  # noqa: BLE001 - a scan that fails is retried at the next poll
                pass

    def _routing(self):
        while not self._stop.wait(1.0):
            self.core.routing.refresh()  # a bad file keeps the previous routing (and logs why)

    def _janitor(self):
        while not self._stop.wait(min(30.0, max(0.5, self.core.sessions.idle_secs / 4))):
            self.core.sessions.expire()

    def stop(self, grace=None):
        """Stops serving and frees the models; returns within about ``grace`` + 1 s + the models'
        retirement, whatever the calls in flight do.

        ``grace`` (default ``exit_timeout_secs``, Triton's ``--exit-timeout-secs``, 30 s): calls
        in flight may finish within it; then the ones still running are cancelled (gRPC:
        CANCELLED / UNAVAILABLE, HTTP: the connection closes) and, one second later, threads
        still inside a model call (a call that never returns) are abandoned: left running as
        daemon threads, their model not freed, each case logged on ``pyasc.serve``."""
        grace = self.exit_timeout_secs if grace is None else max(0.0, float(grace))
        end = time.monotonic() + grace + _ABANDON_S
        self._stop.set()
        self.core.live = False
        # gRPC and HTTP drain at the same time: each has the whole grace period
        http = None
        if self.http is not None:
            http = threading.Thread(target=self.http.stop, args=(grace, _ABANDON_S), name="pyasc-serve-stop-http",
                                    daemon=True)
            http.start()
        if self.grpc is not None:
            self.grpc.stop(grace)
        if http is not None:
            http.join(_left(end) + 5.0)  # http.stop bounds itself; the 5 s: a loaded machine
        for t in self._threads:
            t.join(_left(end) + 1.0)
        left = self._pool.shutdown(wait=True, timeout=_left(end))
        if left:
            log.warning("pyasc-serve: stop: %d HTTP worker thread(s) still in a model call %.1f s after the grace "
                        "period; abandoned (daemon threads)", len(left), _ABANDON_S)
        self.core.close(timeout=_left(end))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
