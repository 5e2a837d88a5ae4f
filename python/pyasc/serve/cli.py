"""``pyasc-serve`` command line (flags as Triton's ``tritonserver`` where they exist)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

__all__ = ["main", "build_parser", "parse_size"]


def parse_size(text):
    """'64M', '1G', '4096' -> bytes."""
    t = str(text).strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    num = t[:-1] if t[-1:] in "KMG" else t
    try:
        value = int(float(num) * mult)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid size '{text}' (e.g. 4096, 64M, 1G)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid size '{text}': negative")
    return value


def _bool(text):
    v = str(text).lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got '{text}'")


def build_parser():
    p = argparse.ArgumentParser(prog="pyasc-serve", description="Triton-compatible (KServe v2) HTTP + gRPC model "
                                "server for pyasc (docs/serve.md).")
    p.add_argument("--model-repository", "--model-store", required=True, help="the model repository directory")
    p.add_argument("--host", "--http-address", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; 0.0.0.0 exposes the server to the network)")
    p.add_argument("--http-port", type=int, default=8000, help="HTTP port (0 = a free one; default 8000)")
    p.add_argument("--grpc-port", type=int, default=8001, help="gRPC port (0 = a free one; default 8001)")
    p.add_argument("--metrics-port", type=int, default=8002, help="Prometheus /metrics port (default 8002)")
    p.add_argument("--allow-http", type=_bool, default=True, help="serve HTTP (default true)")
    p.add_argument("--allow-grpc", type=_bool, default=True, help="serve gRPC (default true)")
    p.add_argument("--allow-metrics", type=_bool, default=True, help="serve /metrics (default true)")
    p.add_argument("--model-control-mode", choices=("none", "poll", "explicit"), default="none",
                   help="none: load all at start, no changes; poll: rescan the repository; explicit: load/unload "
                        "through the repository API")
    p.add_argument("--repository-poll-secs", type=float, default=15.0, help="poll interval in seconds (poll mode)")
    p.add_argument("--load-model", action="append", default=[],
                   help="model to load at start in explicit mode (repeatable; '*' = all)")
    p.add_argument("--strict-readiness", type=_bool, default=True,
                   help="ready only when every model loaded at start is ready (default true)")
    p.add_argument("--exit-on-error", type=_bool, default=False, help="exit if a model fails to load at start")
    p.add_argument("--max-request-bytes", type=parse_size, default=64 << 20,
                   help="largest HTTP body / gRPC message (default 64M)")
    p.add_argument("--max-tensor-bytes", type=parse_size, default=None,
                   help="largest single input tensor (default: --max-request-bytes)")
    p.add_argument("--grpc-workers", type=int, default=64, help="gRPC handler threads (default 64)")
    p.add_argument("--http-workers", type=int, default=64, help="HTTP inference threads (default 64)")
    p.add_argument("--session-quota-bytes", type=parse_size, default=0,
                   help="bytes of tensors one session's in-flight requests may hold (0 = no limit)")
    p.add_argument("--session-idle-secs", type=float, default=300.0, help="drop sessions idle this long")
    p.add_argument("--malloc-arena-max", type=int, default=2,
                   help="cap glibc malloc arenas of the server threads so unloaded models give their host memory "
                        "back (default 2; 0 leaves glibc's default)")
    p.add_argument("--ab-routing-file", default=None,
                   help="JSON file of model -> A/B split overriding the configs' ab_split; re-read when it "
                        "changes (docs/serve.md)")
    p.add_argument("--grpc-spin-us", type=int, default=0,
                   help="native front end: microseconds a completion-queue thread polls without sleeping after "
                        "each event before it blocks (0 = block at once, the default; see docs/serve.md)")
    p.add_argument("--grpc-queues", type=int, default=0,
                   help="native front end: completion queues shared by the --grpc-workers threads (0 = one per "
                        "thread, the default; 1 = one queue polled by all threads; see docs/serve.md)")
    p.add_argument("--grpc-offload-threads", type=int, default=0,
                   help="native front end: worker threads for ModelInfer calls of models not known to be quick; "
                        "the queue threads run quick ones themselves (0 = queue threads run every call, the "
                        "default; see docs/serve.md)")
    p.add_argument("--grpc-inline-us", type=int, default=200,
                   help="with --grpc-offload-threads: a model is quick when its recent handler time is under "
                        "this many microseconds (default 200)")
    p.add_argument("--http-inline-us", type=float, default=0.0,
                   help="HTTP: run a request on the event loop (no hand-off to a worker thread) when its model "
                        "has a free instance, no dynamic batcher and a mean execution below this many "
                        "microseconds (default 0 = always hand off; see docs/serve.md)")
    p.add_argument("--exit-timeout-secs", type=float, default=30.0,
                   help="on exit, how long calls in flight may run before they are cancelled and the threads "
                        "still in a model call are abandoned (Triton's flag; default 30)")
    p.add_argument("--grpc-frontend", choices=("native", "python"), default="native",
                   help="native: gRPC C++ front end (default; falls back to python, with a log line, when not "
                        "built); python: the grpcio front end")
    return p


def main(argv=None):
    """Runs the server until SIGINT/SIGTERM; returns the exit status."""
    args = build_parser().parse_args(argv)
    from .errors import ServeError
    from .server import Server

    try:
        server = Server(args.model_repository, host=args.host, http_port=args.http_port, grpc_port=args.grpc_port,
                        metrics_port=args.metrics_port, model_control_mode=args.model_control_mode,
                        repository_poll_secs=args.repository_poll_secs, load_models=args.load_model,
                        max_request_bytes=args.max_request_bytes, max_tensor_bytes=args.max_tensor_bytes,
                        grpc_workers=args.grpc_workers, http_workers=args.http_workers,
                        session_quota_bytes=args.session_quota_bytes, session_idle_secs=args.session_idle_secs,
                        allow_http=args.allow_http, allow_grpc=args.allow_grpc, allow_metrics=args.allow_metrics,
                        strict_load=args.exit_on_error, malloc_arena_max=args.malloc_arena_max,
                        grpc_frontend=args.grpc_frontend, ab_routing_file=args.ab_routing_file,
                        grpc_spin_us=args.grpc_spin_us, http_inline_us=args.http_inline_us,
                        grpc_queues=args.grpc_queues, grpc_offload_threads=args.grpc_offload_threads,
                        grpc_inline_us=args.grpc_inline_us, exit_timeout_secs=args.exit_timeout_secs)
    except ServeError as e:
        print(f"pyasc-serve: {e.message}", file=sys.stderr)
        return 1
    if not args.strict_readiness:
        server.core.load_errors.clear()
    for name, reason in server.core.load_errors.items():
        print(f"pyasc-serve: model '{name}' failed to load: {reason}", file=sys.stderr)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):  # before binding: a client may stop us as soon as we answer
        signal.signal(sig, lambda *_: done.set())
    try:
        ports = server.start()
    except OSError as e:
        print(f"pyasc-serve: {e}", file=sys.stderr)
        server.stop()
        return 1
    for kind, port in ports.items():
        extra = ""
        if kind == "grpc":
            extra = " (native front end)" if type(server.grpc).__name__ == "NativeGRPCFrontend" else " (grpcio front end)"
        print(f"pyasc-serve: {kind} on {args.host}:{port}{extra}", flush=True)
    while not done.wait(1.0):
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
