"""pyasc-serve figures (issue 18), loopback, bounded runs.

1. Per-request overhead for a 1x64 -> 64 linear ONNX model: median / p99 latency of
   in-process ``asc.InferenceSession.run`` (the peer), and of the same request through the
   server's native (gRPC C++) and grpcio gRPC front ends, each with three clients: the lean
   C++ client of pyasc._serve_native (pre-serialised request, no Python: the goal's figure),
   grpcio with pre-serialised bytes, tritonclient.grpc; the transport floors (empty handlers
   of gRPC C++ and of grpcio, lean client); HTTP binary, run on the event loop
   (--http-inline-us) vs handed to a pool thread, with the server's CPU and voluntary
   switches per request. Servers run in subprocesses (their own GIL), as in production; peer and servers are measured in interleaved rounds.
   Overhead = server median - in-process median. Also: the native front end with
   ``--grpc-spin-us`` (queue threads poll before sleeping; ``--spin-us``, default 200) and
   its empty-handler floor; the in-process run after a 300 us idle gap (what a server's model
   call meets: caches and the core given away between requests, vs the warm loop of the
   peer); the server's CPU time and context switches per request (robust to the scheduling
   waits that dominate latencies on a loaded machine).
   The lean client is C++ (gRPC C++ generic stub, request serialised once, no Python on the
   call path, its threads run without the GIL): the role perf_analyzer plays for Triton
   (tritonclient's perf_analyzer binary needs libcudart, absent here).
2. Throughput (requests/s) over gRPC at concurrency 1, 16, 64 (lean client, both front ends),
   and whether the request path serialises on the GIL: InferenceCore.infer from 1 vs 2 threads.
3. Dynamic batching: throughput of an MLP (or ResNet-50 with --resnet) at concurrency 8
   with ``dynamic_batching`` vs without, and the ratio.
4. ``--breakdown``: where the native front end's time goes, four servers in this process measured
   in interleaved rounds with the lean client: the empty C++ handler (transport floor), a
   Python handler that returns a constant answer (+ GIL and the C++ <-> Python conversions),
   the full request path with the model stubbed out (+ pyasc-serve's Python: checks, routing,
   statistics), and the full server (+ the model call).
5. ``--soak SECONDS``: concurrency 16 for SECONDS with a version reload every 30 s (poll
   mode); prints failed requests and the server's RSS / pool at start and end (``make serve-soak``).
6. ``--thread-model``: the native front end's thread models side by side (a completion queue
   per thread, 4 threads sharing one queue, one thread): latency, server CPU and voluntary
   context switches per request, throughput at concurrency 16 / 64.

    python benchmarks/bench_serve.py [--quick] [--resnet] [--breakdown] [--thread-model] [--soak 600] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _linear(path, k, n, seed=0, batch_dim="batch"):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = rng.standard_normal((k, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch_dim, k])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch_dim, n])
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
                          "linear", [x], [y], [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(m, path)


def _mlp(path, dims=(256, 1024, 1024, 256), seed=0):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes, inits, cur = [], [], "x"
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        inits += [numpy_helper.from_array((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), f"w{i}"),
                  numpy_helper.from_array(np.zeros(b, np.float32), f"b{i}")]
        nodes += [helper.make_node("MatMul", [cur, f"w{i}"], [f"m{i}"]), helper.make_node("Add", [f"m{i}", f"b{i}"],
                                                                                          [f"a{i}"])]
        cur = f"a{i}"
        if i < len(dims) - 2:
            nodes.append(helper.make_node("Relu", [cur], [f"r{i}"]))
            cur = f"r{i}"
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", dims[0]])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", dims[-1]])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(m, path)
    return dims[0]


def _resnet(path):
    """ResNet-50 of onnx's light models with generated weights and a free batch dimension."""
    import onnx
    from onnx import numpy_helper

    sys.path.insert(0, os.path.join(HERE, "..", "tests", "python", "models"))
    from light_models import light_models, with_random_weights

    m = with_random_weights(light_models()["resnet50"], seed=0)
    i = [v for v in m.graph.input if v.name not in {t.name for t in m.graph.initializer}][0]
    i.type.tensor_type.shape.dim[0].dim_param = "batch"
    for o in m.graph.output:
        o.type.tensor_type.shape.dim[0].dim_param = "batch"
    for n in m.graph.node:  # the zoo's Reshape to [1, -1] pins batch 1: [0, -1] keeps it
        if n.op_type == "Reshape":
            for t in m.graph.initializer:
                if t.name == n.input[1]:
                    a = numpy_helper.to_array(t).copy()
                    if a.size == 2 and a[0] == 1:
                        a[0] = 0
                        t.CopyFrom(numpy_helper.from_array(a, t.name))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(m, path)
    return i.name, [d.dim_value for d in i.type.tensor_type.shape.dim][1:], m.graph.output[0].name


def _config(name, in_name, out_name, in_dims, out_dims, mbs, batching="", extra=""):
    dims = lambda d: ", ".join(str(x) for x in d)  # noqa: E731
    return (f'name: "{name}"\nplatform: "onnxruntime_onnx"\nmax_batch_size: {mbs}\n'
            f'input [ {{ name: "{in_name}" data_type: TYPE_FP32 dims: [ {dims(in_dims)} ] }} ]\n'
            f'output [ {{ name: "{out_name}" data_type: TYPE_FP32 dims: [ {dims(out_dims)} ] }} ]\n{batching}\n{extra}\n')


class ServerProc:
    """pyasc-serve in a subprocess on free ports."""

    def __init__(self, repo, *extra):
        self.http, self.grpc, self.metrics = _free_port(), _free_port(), _free_port()
        cmd = [sys.executable, "-m", "pyasc.serve.cli", "--model-repository", repo, "--http-port", str(self.http),
               "--grpc-port", str(self.grpc), "--metrics-port", str(self.metrics), *extra]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        import tritonclient.http as httpclient

        import tritonclient.grpc as grpcclient

        c = httpclient.InferenceServerClient(f"127.0.0.1:{self.http}")
        gc_ = grpcclient.InferenceServerClient(f"127.0.0.1:{self.grpc}")
        t0 = time.time()
        while True:
            try:
                if c.is_server_ready() and gc_.is_server_ready():
                    break
            except Exception:  # noqa: BLE001 - not up yet
                pass
            if self.p.poll() is not None or time.time() - t0 > 120:
                raise RuntimeError("server did not start: " + (self.p.stdout.read() if self.p.stdout else ""))
            time.sleep(0.1)

    def cpu_secs(self):
        """User + system CPU seconds of the server process so far."""
        with open(f"/proc/{self.p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def switches(self):
        """(voluntary, involuntary) context switches of all the server's threads so far."""
        vol = nv = 0
        for t in os.listdir(f"/proc/{self.p.pid}/task"):
            try:
                with open(f"/proc/{self.p.pid}/task/{t}/status") as f:
                    st = f.read()
            except OSError:  # the thread ended
                continue
            vol += int(st.split("voluntary_ctxt_switches:")[1].split()[0])
            nv += int(st.split("nonvoluntary_ctxt_switches:")[1].split()[0])
        return vol, nv

    def rss(self):
        with open(f"/proc/{self.p.pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def metric(self, name):
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics}/metrics", timeout=10) as r:
            for ln in r.read().decode().splitlines():
                if ln.startswith(name + " ") or ln.startswith(name + "{"):
                    return float(ln.rsplit(" ", 1)[1])
        return float("nan")

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def _stats(ts):
    a = np.array(ts) * 1e6
    return float(np.median(a)), float(np.percentile(a, 99))


def _lat(fn, n, warm=50, raw=False):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return np.array(ts) * 1e6 if raw else _stats(ts)


def _bare_stub(port, req_bytes):
    import grpc

    ch = grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.max_receive_message_length", 1 << 30),
                                                             ("grpc.max_send_message_length", 1 << 30)])
    call = ch.unary_unary("/inference.GRPCInferenceService/ModelInfer", request_serializer=None,
                          response_deserializer=None)
    return ch, lambda: call(req_bytes, timeout=60)


def _request_bytes(model, in_name, x):
    from pyasc.serve import _proto

    M = _proto.messages()
    r = M["ModelInferRequest"](model_name=model)
    r.inputs.add(name=in_name, datatype="FP32", shape=list(x.shape))
    r.raw_input_contents.append(x.tobytes())
    return r.SerializeToString()


def _throughput(port, req, conc, secs):
    done = [0] * conc
    errs = [0] * conc
    first_error = []
    stop = threading.Event()

    def worker(i):
        ch, call = _bare_stub(port, req)
        while not stop.is_set():
            try:
                call()
                done[i] += 1
            except Exception as e:  # noqa: BLE001 - counted, the first one printed
                errs[i] += 1
                if not first_error:
                    first_error.append(e)
                    print(f"first error: {e}", file=sys.stderr)
        ch.close()

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(conc)]
    for t in ts:
        t.start()
    time.sleep(0.3)  # warm up
    d0 = sum(done)
    t0 = time.perf_counter()
    time.sleep(secs)
    n = sum(done) - d0
    dt = time.perf_counter() - t0
    stop.set()
    for t in ts:
        t.join(60)
    return n / dt, sum(errs)


def _floor_server(port):
    """A grpcio sync server whose handler does nothing (the framework's own cost per RPC)."""
    from concurrent import futures

    import grpc

    h = grpc.method_handlers_generic_handler("floor.S", {"M": grpc.unary_unary_rpc_method_handler(lambda r, c: b"ok")})
    s = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    s.add_generic_rpc_handlers((h,))
    s.add_insecure_port(f"127.0.0.1:{port}")
    s.start()
    s.wait_for_termination()


def _native_floor_server(port, spin_us=0):
    """The native front end with its empty ModelInfer handler (no Python on the call): the
    transport floor of gRPC C++ on this machine."""
    import signal

    from pyasc.serve.native import NativeGRPCFrontend

    fe = NativeGRPCFrontend(None, port=port, workers=4, empty_infer=True, spin_us=spin_us)
    fe.start()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    while not done.wait(1.0):
        pass
    fe.stop(0.5)


class _FloorProc:
    """An empty-handler server in a subprocess: ``native`` (gRPC C++) or ``grpcio``."""

    def __init__(self, kind, spin_us=0):
        import grpc

        self.port = _free_port()
        flag = "--native-floor-server" if kind == "native" else "--floor-server"
        self.method = "/inference.GRPCInferenceService/ModelInfer" if kind == "native" else "/floor.S/M"
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), flag, str(self.port),
                                   "--spin-us", str(spin_us)])
        ch = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        call = ch.unary_unary(self.method)
        t0 = time.time()
        while True:
            try:
                call(b"", timeout=5)
                break
            except grpc.RpcError:
                if time.time() - t0 > 60 or self.p.poll() is not None:
                    raise RuntimeError(f"{kind} floor server did not start") from None
                time.sleep(0.1)
        ch.close()

    def stop(self):
        self.p.terminate()
        self.p.wait(30)


def _lean(port, method, payload, n, conc=1):
    """The lean C++ client (pyasc._serve_native.bench_unary): latencies in us, req/s, errors."""
    from pyasc import _serve_native

    lat, wall, errors, first = _serve_native.bench_unary(f"127.0.0.1:{port}", method, payload, conc, n,
                                                         min(50, n))
    if errors:
        print(f"lean client: {errors} errors, first: {first}", file=sys.stderr)
    return np.array(lat) / 1e3, len(lat) / (wall / 1e9), errors


# the native front end's run-to-completion configuration: one queue thread that runs quick
# models' calls itself, 16 offload threads for the others; the inline limit is far above the
# model's cost so that load, which inflates its measured time, cannot switch it off mid-run
RTC = ("--grpc-workers", "1", "--grpc-offload-threads", "16", "--grpc-inline-us", "100000")


def bench_overhead(a, out):
    """Latency and throughput of the 1x64 linear through both gRPC front ends, in one run.

    Clients: the lean C++ client (pre-serialised request, no Python: the figure for the goal),
    grpcio with pre-serialised bytes, tritonclient. Floors: empty handlers of gRPC C++ and of
    grpcio, same client. Peer and servers are measured in interleaved rounds so that load
    changes hit all of them alike."""
    import pyasc as asc
    import tritonclient.grpc as grpcclient
    import tritonclient.http as httpclient
    from pyasc.serve import native

    if not native.available():
        print(f"native front end: {native.unavailable_reason()}; only the grpcio front end is measured")
    repo = tempfile.mkdtemp(prefix="bench_serve_")
    path = os.path.join(repo, "linear", "1", "model.onnx")
    _linear(path, 64, 64)
    with open(os.path.join(repo, "linear", "config.pbtxt"), "w") as f:
        f.write(_config("linear", "x", "y", [64], [64], 64))
    x = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    rounds, per = (4, 200) if a.quick else (10, 500)
    sess = asc.InferenceSession(path)
    want = sess.run(None, {"x": x})[0]
    req = _request_bytes("linear", "x", x)
    infer = "/inference.GRPCInferenceService/ModelInfer"
    spin = ("--grpc-spin-us", str(a.spin_us))
    # the grpcio server also serves HTTP with every request handed to a pool thread
    # (--http-inline-us 0, the default): the peer of the run-to-completion HTTP path
    # (the native server's HTTP runs every request of this model on the loop: --http-inline-us
    # far above its cost, so that load, which inflates the model's measured time, cannot turn
    # the path off in the middle of the comparison)
    kinds = {"native": ("--grpc-frontend", "native", "--http-inline-us", "1000000"),
             "native run-to-completion": ("--grpc-frontend", "native", *RTC),
             f"native spin {a.spin_us}": ("--grpc-frontend", "native", *spin),
             "python": ("--grpc-frontend", "python", "--http-inline-us", "0")}
    if not native.available():
        kinds = {"python": kinds["python"]}
    srv = {k: ServerProc(repo, *v) for k, v in kinds.items()}
    kinds = list(kinds)
    floors = {"grpcio": _FloorProc("grpcio")}
    if native.available():
        floors = {"native": _FloorProc("native"), f"native spin {a.spin_us}": _FloorProc("native", a.spin_us), **floors}
    samples = {}
    gap_s = 300e-6

    def add(name, arr):
        samples.setdefault(name, []).append(np.asarray(arr, dtype=np.float64))

    try:
        clients = {}
        for k, sp in srv.items():
            if "spin" in k or "completion" in k:  # lean client only (keeps --quick short)
                continue
            g = grpcclient.InferenceServerClient(f"127.0.0.1:{sp.grpc}")
            gi = grpcclient.InferInput("x", [1, 64], "FP32")
            gi.set_data_from_numpy(x)
            np.testing.assert_allclose(g.infer("linear", [gi]).as_numpy("y"), want, rtol=1e-5, atol=1e-5)
            ch, bare = _bare_stub(sp.grpc, req)
            clients[k] = (g, gi, ch, bare)
        for _ in range(rounds):
            ts = []
            for _ in range(per):
                t0 = time.perf_counter()
                sess.run(None, {"x": x})
                ts.append((time.perf_counter() - t0) * 1e6)
            add("in-process InferenceSession.run", ts)
            # the same call after an idle gap as long as a server round trip: what a server's
            # model call meets (caches and the core given to others meanwhile), not the warm loop
            ts = []
            for _ in range(per // 2):
                time.sleep(gap_s)
                t0 = time.perf_counter()
                sess.run(None, {"x": x})
                ts.append((time.perf_counter() - t0) * 1e6)
            add("in-process run after a 300 us idle gap", ts)
            for k, sp in srv.items():
                add(f"{k} front end, lean C++ client", _lean(sp.grpc, infer, req, per)[0])
            for k, fp in floors.items():
                add(f"{k} empty handler, lean C++ client", _lean(fp.port, fp.method, req, per)[0])
            for k, (g, gi, ch, bare) in clients.items():
                for name, fn in ((f"{k} front end, grpcio bytes client", bare),
                                 (f"{k} front end, tritonclient", lambda: g.infer("linear", [gi]))):
                    ts = []
                    for _ in range(per // 2):
                        t0 = time.perf_counter()
                        fn()
                        ts.append((time.perf_counter() - t0) * 1e6)
                    add(name, ts)
        # server CPU per request (robust to scheduling waits): lean client, sequential
        m = 1000 if a.quick else 4000
        cpu = {}
        for k, sp in srv.items():
            c0, s0 = sp.cpu_secs(), sp.switches()
            _lean(sp.grpc, infer, req, m)
            s1 = sp.switches()
            cpu[k] = ((sp.cpu_secs() - c0) / (m + 50) * 1e6, (s1[0] - s0[0]) / (m + 50), (s1[1] - s0[1]) / (m + 50))
        p0 = time.process_time()
        for _ in range(m):
            sess.run(None, {"x": x})
        inproc_cpu = (time.process_time() - p0) / m * 1e6
        # HTTP, tritonclient.http binary: the default server (quick models run on the event loop)
        # vs the grpcio-front-end server started with --http-inline-us 0 (every request handed to
        # a pool thread and back), interleaved rounds
        hb = httpclient.InferInput("x", [1, 64], "FP32")
        hb.set_data_from_numpy(x, binary_data=True)
        ob = [httpclient.InferRequestedOutput("y", binary_data=True)]
        http_kinds = {"on the event loop": srv[kinds[0]]}
        if "python" in srv and kinds[0] != "python":
            http_kinds["via a pool thread"] = srv["python"]
        hcs = {k: httpclient.InferenceServerClient(f"127.0.0.1:{sp.http}") for k, sp in http_kinds.items()}
        http_ts = {k: [] for k in hcs}
        http_cost = {k: [0.0, 0, 0] for k in hcs}  # server CPU s, voluntary switches, requests
        for _ in range(rounds):
            for k, h in hcs.items():
                sp = http_kinds[k]
                c0, s0 = sp.cpu_secs(), sp.switches()
                http_ts[k].append(_lat(lambda: h.infer("linear", [hb], outputs=ob), per // 4, warm=10, raw=True))
                c1, s1 = sp.cpu_secs(), sp.switches()
                http_cost[k][0] += c1 - c0
                http_cost[k][1] += s1[0] - s0[0]
                http_cost[k][2] += per // 4 + 10
        http_res = {k: _stats(np.concatenate(v) / 1e6) for k, v in http_ts.items()}
        for h in hcs.values():
            h.close()
        # throughput, lean client, interleaved by concurrency
        tput = {}
        n_t = 300 if a.quick else 1500
        for c in (1, 16, 64):
            for k, sp in srv.items():
                _, rps, errs = _lean(sp.grpc, infer, req, max(20, n_t // c), c)
                tput[(k, c)] = (rps, errs)
        for g, gi, ch, bare in clients.values():
            ch.close()
    finally:
        for sp in srv.values():
            sp.stop()
        for fp in floors.values():
            fp.stop()
    la = os.getloadavg()
    print(f"load average {la[0]:.2f} / {la[1]:.2f} on {os.cpu_count()} CPUs; {rounds} interleaved rounds")
    peer = np.concatenate(samples["in-process InferenceSession.run"])
    pmed = float(np.median(peer))
    print(f"{'1x64->64 linear, one request at a time':<48} {'median us':>10} {'p99 us':>10} {'- in-proc':>10}")
    for name, parts in samples.items():
        v = np.concatenate(parts)
        med, p99 = float(np.median(v)), float(np.percentile(v, 99))
        print(f"{name:<48} {med:10.1f} {p99:10.1f} {med - pmed:10.1f}")
        out[name] = {"median_us": med, "p99_us": p99, "overhead_us": med - pmed}
    for k, (hm, hp) in http_res.items():
        cs, vs, n = http_cost[k]
        print(f"{'HTTP tritonclient binary, ' + k:<48} {hm:10.1f} {hp:10.1f} {hm - pmed:10.1f}   server CPU "
              f"{cs / n * 1e6:.0f} us, {vs / n:.2f} voluntary switches per request")
        out[f"HTTP tritonclient binary, {k}"] = {"median_us": hm, "p99_us": hp, "server_cpu_us": cs / n * 1e6,
                                                 "voluntary_switches": vs / n}
    if len(http_res) == 2:
        (_, (m1, _)), (_, (m2, _)) = http_res.items()
        print(f"HTTP run-to-completion vs pool hand-off: {m2 / m1:.2f}x lower median latency")
        out["http_inline_ratio"] = m2 / m1
        k1, k2 = list(http_ts)
        ratios = [float(np.median(a_) / np.median(b_)) for a_, b_ in zip(http_ts[k1], http_ts[k2])]
        print(f"DEFAULTS HTTP: on the event loop / via a pool thread median latency, per round: median "
              f"{np.median(ratios):.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}); below 1: the loop was faster")
        out["http_loop_over_pool_per_round"] = ratios
    if "native" in srv:
        nat = out["native front end, lean C++ client"]["median_us"]
        flo = out["native empty handler, lean C++ client"]["median_us"]
        print(f"GOAL (overhead <= 100 us median over gRPC): native front end, lean client {nat:.1f} us - in-process "
              f"{pmed:.1f} us = {nat - pmed:.1f} us -> {'MET' if nat - pmed <= 100 else 'NOT met'}; of it the "
              f"transport floor (empty native handler) is {flo:.1f} us, the server's Python + model call "
              f"{nat - flo:.1f} us")
        rk = "native run-to-completion front end, lean C++ client"
        if rk in out:
            r_ = out[rk]["median_us"]
            print(f"run-to-completion ({' '.join(RTC)}): {r_:.1f} us - in-process {pmed:.1f} us = {r_ - pmed:.1f} us "
                  f"-> {'MET' if r_ - pmed <= 100 else 'NOT met'}")
            out["goal_overhead_us_run_to_completion"] = r_ - pmed
            # the defaults' question, per interleaved round (robust to load drifting between
            # rounds): below 1 means run-to-completion answered faster in that round
            ratios = [float(np.median(r) / np.median(d)) for r, d in
                      zip(samples[rk], samples["native front end, lean C++ client"])]
            cr = cpu["native run-to-completion"][0] / cpu["native"][0]
            print(f"DEFAULTS gRPC: run-to-completion / default median latency, per round: median {np.median(ratios):.2f} "
                  f"(rounds {min(ratios):.2f}-{max(ratios):.2f}); server CPU per request {cr:.2f}x")
            out["rtc_over_default_latency_per_round"] = ratios
            out["rtc_over_default_cpu"] = cr
        sk = f"native spin {a.spin_us} front end, lean C++ client"
        if sk in out:
            sp_ = out[sk]["median_us"]
            print(f"with --grpc-spin-us {a.spin_us}: {sp_:.1f} us - in-process {pmed:.1f} us = {sp_ - pmed:.1f} us -> "
                  f"{'MET' if sp_ - pmed <= 100 else 'NOT met'} (floor {out[f'native spin {a.spin_us} empty handler, lean C++ client']['median_us']:.1f} us)")
            out["goal_overhead_us_spin"] = sp_ - pmed
        if "python" in srv:
            py_ = out["python front end, lean C++ client"]["median_us"]
            print(f"native vs grpcio front end (lean client): {py_ / nat:.2f}x lower median latency")
        out["goal_overhead_us"] = nat - pmed
    for k, (v, vcs, ivcs) in cpu.items():
        print(f"server CPU per request ({k} front end, lean client, {m} requests): {v:.1f} us, context switches "
              f"{vcs:.2f} voluntary + {ivcs:.2f} involuntary (all server threads); in-process run {inproc_cpu:.1f} us CPU")
        out[f"cpu_per_request_us_{k}"] = v
        out[f"switches_per_request_{k}"] = [vcs, ivcs]
    out["cpu_inprocess_us"] = inproc_cpu
    for (k, c), (rps, errs) in tput.items():
        print(f"throughput gRPC {k:>6} front end, lean client, concurrency {c:>2}: {rps:9.0f} req/s "
              f"(errors {errs}); in-process serial {1e6 / pmed:9.0f} runs/s")
        out[f"throughput_{k}_c{c}"] = {"rps": rps, "errors": errs}


def bench_breakdown(a, out):
    """The native front end's latency, layer by layer (see the module docstring, item 4)."""
    from pyasc.serve import native
    from pyasc.serve.core import InferenceCore

    if not native.available():
        print(f"breakdown: {native.unavailable_reason()}")
        return
    repo = tempfile.mkdtemp(prefix="bench_serve_bd_")
    _linear(os.path.join(repo, "linear", "1", "model.onnx"), 64, 64)
    with open(os.path.join(repo, "linear", "config.pbtxt"), "w") as f:
        f.write(_config("linear", "x", "y", [64], [64], 64))
    x = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    y = np.zeros((1, 64), np.float32)
    req = _request_bytes("linear", "x", x)
    infer = "/inference.GRPCInferenceService/ModelInfer"

    class _StubModel:
        def run_batch(self, items):
            return [{"y": y} for _ in items]

        def run_one(self, feeds, names):
            return {"y": y}

    const = native.NativeGRPCFrontend(InferenceCore(repo), port=0, workers=4)
    answer = (0, "", ("linear", "1", "", [("y", "FP32", (1, 64), y)]))
    const._infer = lambda *args: answer
    stubbed = native.NativeGRPCFrontend(InferenceCore(repo), port=0, workers=4)
    stubbed.core.repository.get_version("linear").scheduler._backend = _StubModel()
    servers = [("empty C++ handler (transport floor)", native.NativeGRPCFrontend(None, port=0, workers=4,
                                                                                 empty_infer=True)),
               ("+ GIL, constant Python answer", const),
               ("+ pyasc-serve Python, model stubbed", stubbed),
               ("+ the model (full server)", native.NativeGRPCFrontend(InferenceCore(repo), port=0, workers=4))]
    ports = [fe.start() for _, fe in servers]
    rounds, per = (5, 300) if a.quick else (10, 1000)
    med = {name: [] for name, _ in servers}
    try:
        for _ in range(rounds):
            for (name, _), port in zip(servers, ports):
                med[name].append(float(np.median(_lean(port, infer, req, per)[0])))
    finally:
        for _, fe in servers:
            fe.stop(0.5)
    la = os.getloadavg()
    print(f"native front end breakdown (servers in this process, lean client, median of {rounds} round medians; "
          f"load {la[0]:.1f})")
    prev = None
    for name, _ in servers:
        m = float(np.median(med[name]))
        step = "" if prev is None else f"  step {m - prev:+8.1f}"
        print(f"  {name:<40} {m:8.1f} us{step}")
        out[f"breakdown {name}"] = m
        prev = m
    _stage_breakdown(a, out, repo, req, rounds, per)


_STAGES = ("parse request (C++)", "wait for the GIL", "inputs -> NumPy views", "Python: checks, routing, stats + model",
           "response built (outputs copied)", "serialise + GIL release", "issue the write",
           "write completion reported (after the answer left)")


def _stage_breakdown(a, out, repo, req, rounds, per):
    """Timestamps inside the native server (NativeGRPCFrontend(trace=True)): the 8 stages of each
    call, their medians beside the lean client's median round trip; the rest is the client and
    the transport (gRPC's read before the first stage, its write after the last, loopback
    TCP, the client). Also the Python step split by the core's own timers (model execution vs
    pyasc-serve's checks / routing / statistics), and the offload hop (a server whose every call
    goes to a worker thread, --grpc-inline-us 0)."""
    from pyasc.serve import native
    from pyasc.serve.core import InferenceCore

    infer = "/inference.GRPCInferenceService/ModelInfer"
    cfgs = {"queue thread runs the call (default)": {"workers": 4},
            "offload hop: every call on a worker": {"workers": 1, "offload_threads": 4, "inline_us": 0}}
    fes = {k: native.NativeGRPCFrontend(InferenceCore(repo), port=0, trace=True, **kw) for k, kw in cfgs.items()}
    ports = {k: fe.start() for k, fe in fes.items()}
    lat = {k: [] for k in fes}
    st = {k: [] for k in fes}
    def counters(fe):
        d = fe.core.repository.get_version("linear").stats.snapshot()["inference_stats"]
        return {n: (d[n]["count"], d[n]["ns"]) for n in ("success", "compute_infer")}

    try:
        before = {}
        for k, fe in fes.items():
            _lean(fe.bound_port, infer, req, 50)
            fe.take_traces()
            before[k] = counters(fe)  # the core's timers from here on
        for _ in range(rounds):
            for k, fe in fes.items():
                lat[k].append(_lean(ports[k], infer, req, per)[0])
                st[k].append(fe.take_traces())
        core_ns = {}
        for k, fe in fes.items():
            now = counters(fe)
            core_ns[k] = {n: (now[n][1] - before[k][n][1]) / max(1, now[n][0] - before[k][n][0]) for n in now}
    finally:
        for fe in fes.values():
            fe.stop(0.5)
    la = os.getloadavg()
    print(f"native front end, stage timestamps inside the server (trace=True, lean client, {rounds} rounds, "
          f"load {la[0]:.1f}); medians in us")
    for k in fes:
        t = np.concatenate(st[k]) / 1e3
        total = float(np.median(np.concatenate(lat[k])))
        # read -> write issued: gRPC reports the write's completion only after the bytes left (the
        # client may have its answer by then), so the last stage is not on the request's path
        inside = float(np.median(t[:, :7].sum(axis=1)))
        print(f"  {k}: client round trip {total:.1f}, inside the server (message read -> write issued) "
              f"{inside:.1f}, client + gRPC transport {total - inside:.1f}  ({len(t)} calls)")
        for i, name in enumerate(_STAGES):
            print(f"    {name:<42} {float(np.median(t[:, i])):8.1f}   (mean {float(np.mean(t[:, i])):8.1f})")
        c = core_ns[k]
        print(f"    of the Python step (means): model execution {c['compute_infer'] / 1e3:.1f}, "
              f"InferenceCore.infer {c['success'] / 1e3:.1f}")
        out[f"stages {k}"] = {"client_us": total, "inside_us": inside,
                              **{n: float(np.median(t[:, i])) for i, n in enumerate(_STAGES)},
                              "core_infer_mean_us": c["success"] / 1e3, "model_exec_mean_us": c["compute_infer"] / 1e3}


def bench_thread_model(a, out):
    """``--thread-model``: the native front end's thread models side by side (subprocess
    servers, lean client, interleaved rounds): one completion queue per thread (the default,
    64 threads), one queue shared by 4 threads (a leader/follower pool), one thread, and one
    thread that runs quick calls itself with 16 offload threads for slow ones (RTC). Per model:
    median / p99 at concurrency 1, the server's CPU time and voluntary context switches per
    request (counts robust to load), and requests/s at concurrency 16 and 64."""
    repo = tempfile.mkdtemp(prefix="bench_serve_tm_")
    _linear(os.path.join(repo, "linear", "1", "model.onnx"), 64, 64)
    with open(os.path.join(repo, "linear", "config.pbtxt"), "w") as f:
        f.write(_config("linear", "x", "y", [64], [64], 64))
    x = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
    req = _request_bytes("linear", "x", x)
    infer = "/inference.GRPCInferenceService/ModelInfer"
    models = {"64 threads, a queue each (default)": ("--grpc-workers", "64"),
              "4 threads sharing 1 queue": ("--grpc-workers", "4", "--grpc-queues", "1"),
              "1 thread, 1 queue": ("--grpc-workers", "1"),
              "1 thread + 16 offload (quick inline)": RTC}
    srv = {k: ServerProc(repo, "--allow-http", "false", *v) for k, v in models.items()}
    rounds, per = (3, 200) if a.quick else (8, 500)
    lat = {k: [] for k in srv}
    cost = {k: [0.0, 0, 0] for k in srv}
    rps = {}
    try:
        for sp in srv.values():
            _lean(sp.grpc, infer, req, 50)
        for _ in range(rounds):
            for k, sp in srv.items():
                c0, s0 = sp.cpu_secs(), sp.switches()
                lat[k].append(_lean(sp.grpc, infer, req, per)[0])
                c1, s1 = sp.cpu_secs(), sp.switches()
                cost[k][0] += c1 - c0
                cost[k][1] += s1[0] - s0[0]
                cost[k][2] += per + min(50, per)
        for c in (16, 64):
            for k, sp in srv.items():
                rps[(k, c)] = _lean(sp.grpc, infer, req, max(10, (300 if a.quick else 1500) // c), c)[1]
    finally:
        for sp in srv.values():
            sp.stop()
    la = os.getloadavg()
    print(f"native front end thread models (lean C++ client, {rounds} interleaved rounds, load {la[0]:.1f})")
    for k in srv:
        v = np.concatenate(lat[k])
        cs, vs, n = cost[k]
        med, p99 = float(np.median(v)), float(np.percentile(v, 99))
        print(f"  {k:<36} c1 median {med:7.1f} us p99 {p99:8.1f} us | server CPU {cs / n * 1e6:6.1f} us, "
              f"{vs / n:.2f} voluntary switches per request | c16 {rps[(k, 16)]:6.0f} req/s, c64 {rps[(k, 64)]:6.0f} req/s")
        out[f"thread model {k}"] = {"median_us": med, "p99_us": p99, "server_cpu_us": cs / n * 1e6,
                                    "voluntary_switches": vs / n, "rps_c16": rps[(k, 16)], "rps_c64": rps[(k, 64)]}


def bench_batching(a, out):
    repo = tempfile.mkdtemp(prefix="bench_serve_db_")
    if a.resnet:
        in_name, in_dims, out_name = _resnet(os.path.join(repo, "m_nb", "1", "model.onnx"))
        out_dims = [1000]
        label = "ResNet-50"
    else:
        k = _mlp(os.path.join(repo, "m_nb", "1", "model.onnx"))
        in_name, in_dims, out_name, out_dims = "x", [k], "y", [256]
        label = "MLP 256-1024-1024-256"
    os.makedirs(os.path.join(repo, "m_db", "1"))
    os.link(os.path.join(repo, "m_nb", "1", "model.onnx"), os.path.join(repo, "m_db", "1", "model.onnx"))
    inst = "instance_group [ { count: 2 kind: KIND_CPU } ]"
    with open(os.path.join(repo, "m_nb", "config.pbtxt"), "w") as f:
        f.write(_config("m_nb", in_name, out_name, in_dims, out_dims, 8, "", inst))
    with open(os.path.join(repo, "m_db", "config.pbtxt"), "w") as f:
        f.write(_config("m_db", in_name, out_name, in_dims, out_dims, 8,
                        "dynamic_batching { preferred_batch_size: [ 8 ] max_queue_delay_microseconds: 2000 }", inst))
    x = np.random.default_rng(1).standard_normal([1] + in_dims).astype(np.float32)
    srv = ServerProc(repo)
    try:
        secs = (6.0 if a.resnet else 2.0) if a.quick else (20.0 if a.resnet else 5.0)
        nb, e1 = _throughput(srv.grpc, _request_bytes("m_nb", in_name, x), 8, secs)
        db, e2 = _throughput(srv.grpc, _request_bytes("m_db", in_name, x), 8, secs)
    finally:
        srv.stop()
    print(f"{label} concurrency 8: without batching {nb:8.1f} req/s, with dynamic batching {db:8.1f} req/s, "
          f"ratio {db / nb:5.2f}x (errors {e1 + e2})")
    out["batching"] = {"model": label, "no_batching_rps": nb, "dynamic_batching_rps": db, "ratio": db / nb}


def bench_gil(a, out):
    """Does the request path serialise on the GIL? InferenceCore.infer (decode-free, no network)
    from 1 and 2 threads: a GEMM-heavy request (MLP, batch 8) and a tiny one (1x64 linear).
    With the kernels running without the GIL the heavy case scales with free cores; the tiny
    case is mostly Python and cannot."""
    from pyasc.serve import InferenceCore, InferRequest

    repo = tempfile.mkdtemp(prefix="bench_serve_gil_")
    k = _mlp(os.path.join(repo, "mlp", "1", "model.onnx"))
    _linear(os.path.join(repo, "lin", "1", "model.onnx"), 64, 64)
    for name, i, o in (("mlp", [k], [256]), ("lin", [64], [64])):
        with open(os.path.join(repo, name, "config.pbtxt"), "w") as f:
            f.write(_config(name, "x", "y", i, o, 8, "", "instance_group [ { count: 4 } ]"))
    core = InferenceCore(repo)
    secs = 1.5 if a.quick else 4.0
    try:
        for name, shape in (("mlp", (8, k)), ("lin", (1, 64))):
            x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
            req = InferRequest(name, inputs={"x": ("FP32", x)})
            rates = {}
            for nthreads in (1, 2):
                stop = threading.Event()
                counts = [0] * nthreads

                def work(i):
                    while not stop.is_set():
                        core.infer(req)
                        counts[i] += 1

                ts = [threading.Thread(target=work, args=(i,)) for i in range(nthreads)]
                for t in ts:
                    t.start()
                time.sleep(0.3)
                c0, t0 = sum(counts), time.perf_counter()
                time.sleep(secs)
                rates[nthreads] = (sum(counts) - c0) / (time.perf_counter() - t0)
                stop.set()
                for t in ts:
                    t.join()
            print(f"in-process InferenceCore.infer {name:>3} {shape}: 1 thread {rates[1]:8.1f} req/s, 2 threads "
                  f"{rates[2]:8.1f} req/s ({rates[2] / rates[1]:4.2f}x)")
            out[f"gil_{name}"] = {"t1_rps": rates[1], "t2_rps": rates[2], "ratio": rates[2] / rates[1]}
    finally:
        core.close()


def bench_soak(a, out):
    """Concurrency 16 for a.soak seconds, a new version every 30 s (poll mode)."""
    repo = tempfile.mkdtemp(prefix="bench_serve_soak_")
    _linear(os.path.join(repo, "soak", "1", "model.onnx"), 64, 64, seed=1)
    with open(os.path.join(repo, "soak", "config.pbtxt"), "w") as f:
        f.write(_config("soak", "x", "y", [64], [64], 64))
    srv = ServerProc(repo, "--model-control-mode", "poll", "--repository-poll-secs", "1")
    x = np.random.default_rng(2).standard_normal((1, 64)).astype(np.float32)
    req = _request_bytes("soak", "x", x)
    try:
        _throughput(srv.grpc, req, 16, 5.0)  # warm-up: pools and caches reach their steady state
        rss0, pool0 = srv.rss(), srv.metric("pyasc_pool_reserved_bytes")
        stop = threading.Event()
        result = {}

        def load():
            result["rps"], result["errors"] = _throughput(srv.grpc, req, 16, a.soak)
            stop.set()

        t = threading.Thread(target=load)
        t.start()
        version, t0 = 1, time.time()
        while not stop.wait(30):
            version += 1
            old = os.path.join(repo, "soak", str(version - 1))
            # written aside and renamed in: the poller never sees a half-written version
            tmp = os.path.join(repo, f".v{version}")
            _linear(os.path.join(tmp, "model.onnx"), 64, 64, seed=version)
            os.rename(tmp, os.path.join(repo, "soak", str(version)))
            time.sleep(3)
            # keep the directory small: the old version is unloaded once the new one serves
            import shutil

            shutil.rmtree(old, ignore_errors=True)
        t.join()
        time.sleep(3)
        rss1, pool1 = srv.rss(), srv.metric("pyasc_pool_reserved_bytes")
        fails = srv.metric("nv_inference_request_failure")
    finally:
        srv.stop()
    print(f"soak {a.soak:.0f} s concurrency 16, {version - 1} reloads: {result['rps']:.0f} req/s, client errors "
          f"{result['errors']}, server failures {fails:.0f}; RSS {rss0 / 2**20:.1f} -> {rss1 / 2**20:.1f} MiB "
          f"({(rss1 - rss0) / rss0 * 100:+.1f}%), pool reserved {pool0 / 2**20:.2f} -> {pool1 / 2**20:.2f} MiB")
    out["soak"] = {"secs": a.soak, "reloads": version - 1, "rps": result["rps"], "client_errors": result["errors"],
                   "rss_start": rss0, "rss_end": rss1, "pool_start": pool0, "pool_end": pool1}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="short runs")
    p.add_argument("--resnet", action="store_true", help="dynamic batching ratio on ResNet-50 (slow)")
    p.add_argument("--soak", type=float, default=0, help="run only the soak for this many seconds")
    p.add_argument("--breakdown", action="store_true", help="run only the native front end's latency breakdown")
    p.add_argument("--thread-model", action="store_true",
                   help="run only the native front end's thread models side by side (--grpc-queues)")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--floor-server", type=int, help=argparse.SUPPRESS)
    p.add_argument("--native-floor-server", type=int, help=argparse.SUPPRESS)
    p.add_argument("--spin-us", type=int, default=200,
                   help="the native front end's --grpc-spin-us for its spinning variant (default 200)")
    a = p.parse_args()
    if a.floor_server:
        _floor_server(a.floor_server)
        return
    if a.native_floor_server:
        _native_floor_server(a.native_floor_server, a.spin_us)
        return
    out = {}
    if a.soak:
        bench_soak(a, out)
    elif a.breakdown:
        bench_breakdown(a, out)
    elif a.thread_model:
        bench_thread_model(a, out)
    else:
        bench_overhead(a, out)
        bench_gil(a, out)
        bench_batching(a, out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
