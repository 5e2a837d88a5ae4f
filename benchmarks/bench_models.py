"""Model inference: asc.InferenceSession vs onnxruntime (and OpenVINO when installed), same run.

    python benchmarks/bench_models.py                 # everything below
    python benchmarks/bench_models.py --quick         # ResNet-50 b1, passes on/off, arena on/off, b8 (< 2 min quiet)
    python benchmarks/bench_models.py --quick --arena # ... and the arena on/off at b8 too
    python benchmarks/bench_models.py --no-memory     # skip the peak-memory subprocesses
    python benchmarks/bench_models.py --profile 1     # ResNet-50 b1 node by node vs onnxruntime's profiler
    python benchmarks/bench_models.py --light squeezenet,inception_v1   # light models, blocked joins on/off
    python benchmarks/bench_models.py --head-pool     # the blocked pool kernels alone vs onnxruntime
    python benchmarks/bench_models.py --arena-only --repeat 10   # ResNet-50 arena on/off + allocations per run
    python benchmarks/bench_models.py --memory-only --models shufflenet,bvlc_alexnet,vgg19,squeezenet

Peers come from scripts/bench_setup.sh (build/bench/site: onnxruntime, openvino). Each runtime
uses 2 threads (pyasc: its device cores, ASC_NUM_CORES; onnxruntime: intra_op_num_threads=2,
sequential; OpenVINO: INFERENCE_NUM_THREADS=2, one stream, LATENCY hint). Weights are the
model-zoo light models' with seeded random values (tests/python/models/light_models.py).

Peers and pyasc are timed in interleaved rounds (best of N each; onnxruntime with its intra-op
threads sleeping between runs), then onnxruntime once more with its default spinning threads in
rounds of its own ("onnxruntime[spinning]"). uptime-style load is printed at the start and end.
Prints, per case: latency (best of N, ms), the ratio peer/pyasc (> 1: pyasc faster), the
max relative error of pyasc's output vs onnxruntime's (max |a-b| / max |b|) and top-1 agreement:
* ResNet-50 float32, batch 1 and 8 (onnxruntime, OpenVINO forced to f32)
* ResNet-50 with precision_mode=allow_mix_precision (pyasc's .om via save_as_om) vs OpenVINO's
  bf16 hint; top-1 vs float32 over random inputs
* every light model at batch 1
* graph optimisation on vs off (ResNet-50: the passes' speed-up)
* the executor's memory arena on vs off (ResNet-50 b1; b8 with --arena)
* peak memory (each runtime in its own process: peak RSS minus RSS after its imports -- pyasc,
  pyasc.models and onnx; onnxruntime -- over load + 3 runs)
Benchmarks are not tests: nothing here fails on a slow number.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "python", "models"))
sys.path.append(os.path.join(ROOT, "build", "bench", "site"))
from _timing import best, interleaved  # noqa: E402
from light_models import light_models, with_random_weights  # noqa: E402

THREADS = 2


def _model_bytes(name, batch=1, seed=0):
    """The light model with random weights, its batch fixed (the zoo files say 1)."""
    m = with_random_weights(light_models()[name], seed=seed)
    # compare logits: the zoo models end in Softmax, which random weights saturate to one-hot
    # vectors (every runtime then agrees exactly and the error says nothing)
    if m.graph.node[-1].op_type == "Softmax" and m.graph.node[-1].output[0] == m.graph.output[0].name:
        m.graph.output[0].name = m.graph.node[-1].input[0]
        del m.graph.node[-1]
    i = [v for v in m.graph.input if v.name not in {t.name for t in m.graph.initializer}][0]
    i.type.tensor_type.shape.dim[0].dim_value = batch
    for o in m.graph.output:
        if o.type.tensor_type.HasField("shape") and len(o.type.tensor_type.shape.dim):
            o.type.tensor_type.shape.dim[0].dim_value = batch
    # a Reshape to [1, -1] (the zoo's flatten before the classifier) pins batch 1: make it [batch, -1]
    from onnx import numpy_helper

    for n in m.graph.node:
        if n.op_type == "Reshape":
            for t in m.graph.initializer:
                if t.name == n.input[1]:
                    a = numpy_helper.to_array(t).copy()
                    if a.size == 2 and a[0] == 1:
                        a[0] = batch
                        t.CopyFrom(numpy_helper.from_array(a, t.name))
    return m.SerializeToString(), i.name, [d.dim_value for d in i.type.tensor_type.shape.dim]


def _pyasc(data, optimize=True):
    import pyasc as asc

    so = asc.SessionOptions()
    if not optimize:
        so.graph_optimization_level = asc.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = asc.InferenceSession(data, so)
    return lambda feed: s.run(None, feed)[0]


def _ort(data, spin=False):
    """An onnxruntime session's run. ``spin=False`` (the interleaved rounds): its intra-op threads
    sleep when a run ends -- spinning ones would take the 2 cores from the pyasc run timed next;
    ``spin=True`` is onnxruntime's default, timed in rounds of its own."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    so = ort.SessionOptions()
    if not spin:
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.intra_op_num_threads = THREADS
    so.log_severity_level = 3
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    s = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    return lambda feed: s.run(None, feed)[0]


def _openvino(data, precision="f32"):
    try:
        import openvino as ov
    except Exception:  # noqa: BLE001 - not installed or not loadable here
        return None
    core = ov.Core()
    model = core.read_model(data) if isinstance(data, str) else core.read_model(model=data, weights=b"")
    cfg = {"INFERENCE_NUM_THREADS": THREADS, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
           "INFERENCE_PRECISION_HINT": precision}
    try:
        c = core.compile_model(model, "CPU", cfg)
    except Exception:  # noqa: BLE001 - e.g. bf16 refused on a CPU without it
        return None
    req = c.create_infer_request()
    out = c.outputs[0]
    return lambda feed: req.infer(feed)[out]


def _rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def _line(label, ours, peers):
    parts = [f"{label:<34} pyasc {ours:8.2f} ms"]
    for name, t in peers:
        parts.append(f"{name} {t:8.2f} ms ({t / ours:5.2f}x)" if t is not None else f"{name}      n/a")
    print("  ".join(parts), flush=True)


def bench_case(label, data, in_name, shape, repeat, openvino=True, precision="f32"):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    feed = {in_name: x}
    ours = _pyasc(data)
    names, fns, err = [], [lambda: ours(feed)], {}
    ort = _ort(data)
    if ort is not None:
        names.append("onnxruntime")
        fns.append(lambda: ort(feed))
        a, b = ours(feed), ort(feed)
        err = {"rel_err": _rel(a, b), "top1_equal": bool((a.reshape(a.shape[0], -1).argmax(1) ==
                                                          b.reshape(b.shape[0], -1).argmax(1)).all())}
    ov = _openvino(data, precision) if openvino else None
    if ov is not None:
        names.append(f"openvino[{precision}]")
        fns.append(lambda: ov(feed))
    ts = interleaved(fns, repeat)
    t_ours = ts[0]
    peers = list(zip(names, ts[1:]))
    if ort is not None:
        del ort
        spin = _ort(data, spin=True)
        peers.insert(1, ("onnxruntime[spinning]", best(lambda: spin(feed), repeat)))
        del spin
    if openvino and ov is None:
        peers.append((f"openvino[{precision}]", None))
    _line(label, t_ours, peers)
    if err:
        print(f"{'':<34} rel. error vs onnxruntime {err['rel_err']:.2e}, top-1 equal {err['top1_equal']}", flush=True)
    return {"case": label, "pyasc_ms": t_ours, **{f"{n}_ms": t for n, t in peers}, **err}


def bench_head_pool(batch, repeat):
    """ResNet-50's head GlobalAveragePool over its (N, 2048, 7, 7) activation: pyasc's blocked kernel
    on the NC1HWC0 value (what the session runs), the lazy spatial mean it replaced, and onnxruntime's
    GlobalAveragePool on the NCHW value (a one-node model), interleaved; best of ``repeat`` x 20 calls."""
    import pyasc as asc
    from pyasc import _C

    c0 = int(_C.nn.preferred_block()) or 8
    x = np.random.default_rng(2).standard_normal((batch, 2048, 7, 7)).astype(np.float32)
    xb = asc.asarray(np.ascontiguousarray(x.reshape(batch, 2048 // c0, c0, 7, 7).transpose(0, 1, 3, 4, 2)))

    def kernel():
        for _ in range(20):
            y = _C.nn.avg_pool_blocked(xb, [7, 7], [1, 1], [0, 0], [0, 0], True, "GlobalAveragePool")
        return y

    def mean():
        for _ in range(20):
            y = asc.mean(xb, axis=(2, 3)).astype(xb.dtype)
            asc.eval(y)
        return y

    fns, names = [kernel, mean], ["blocked kernel", "lazy mean (before)"]
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper

        g = helper.make_graph([helper.make_node("GlobalAveragePool", ["x"], ["y"])], "gap",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        so = ort.SessionOptions()
        so.intra_op_num_threads = THREADS
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8  # what the installed onnxruntime reads
        o = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])

        def peer():
            for _ in range(20):
                y = o.run(None, {"x": x})[0]
            return y

        fns.append(peer)
        names.append("onnxruntime")
        err = _rel(np.asarray(kernel()).reshape(batch, -1), peer().reshape(batch, -1))
    except ImportError:
        err = float("nan")
    ts = [t / 20 * 1e3 for t in interleaved(fns, repeat)]  # us per call
    line = f"head GlobalAveragePool b{batch}: " + ", ".join(f"{n} {t:7.1f} us" for n, t in zip(names, ts))
    line += f"; mean / kernel {ts[1] / ts[0]:.2f}x"
    if len(ts) > 2:
        line += f", onnxruntime / kernel {ts[2] / ts[0]:.2f}x"
    print(line + f", rel. error {err:.1e}", flush=True)
    return {"case": f"head pool b{batch}", **{f"{n}_us": t for n, t in zip(names, ts)}, "rel_err": err}


def bench_stem_max_pool(batch, repeat):
    """ResNet-50's stem MaxPool (3x3/2, pads 1) over its (N, 64, 112, 112) activation: pyasc's blocked
    kernel on the NC1HWC0 value vs onnxruntime's MaxPool on NCHW (a one-node model), interleaved."""
    import pyasc as asc
    from pyasc import _C

    c0 = int(_C.nn.preferred_block()) or 8
    x = np.random.default_rng(3).standard_normal((batch, 64, 112, 112)).astype(np.float32)
    xb = asc.asarray(np.ascontiguousarray(x.reshape(batch, 64 // c0, c0, 112, 112).transpose(0, 1, 3, 4, 2)))

    def kernel():
        for _ in range(5):
            y = _C.nn.max_pool_blocked(xb, [3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "MaxPool")
        return y

    fns, names, err = [kernel], ["blocked kernel"], float("nan")
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper

        g = helper.make_graph([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                                pads=[1, 1, 1, 1])], "mp",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        so = ort.SessionOptions()
        so.intra_op_num_threads = THREADS
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        o = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])

        def peer():
            for _ in range(5):
                y = o.run(None, {"x": x})[0]
            return y

        fns.append(peer)
        names.append("onnxruntime")
        got = np.asarray(kernel())
        got = got.transpose(0, 1, 4, 2, 3).reshape(peer().shape)
        err = _rel(got, peer())
    except ImportError:
        pass
    ts = [t / 5 * 1e3 for t in interleaved(fns, repeat)]
    line = f"stem MaxPool b{batch}: " + ", ".join(f"{n} {t:7.1f} us" for n, t in zip(names, ts))
    if len(ts) > 1:
        line += f"; onnxruntime / kernel {ts[1] / ts[0]:.2f}x"
    print(line + f", rel. error {err:.1e}", flush=True)
    return {"case": f"stem max pool b{batch}", **{f"{n}_us": t for n, t in zip(names, ts)}, "rel_err": err}


def bench_joins(name, data, in_name, shape, repeat):
    """pyasc with the blocked layout through Concat / elementwise / channel-affine nodes and inner
    average pools (the default) vs without (ASC_LAYOUT_JOINS=0 at load), interleaved."""
    import pyasc as asc

    x = {in_name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    on = _pyasc(data, True)
    os.environ["ASC_LAYOUT_JOINS"] = "0"
    try:
        off = _pyasc(data, True)
    finally:
        del os.environ["ASC_LAYOUT_JOINS"]
    blocked = asc.InferenceSession(data).graph_rewrites["assign_layouts"]
    t_on, t_off = interleaved([lambda: on(x), lambda: off(x)], repeat)
    err = _rel(on(x), off(x))
    print(f"{name + ' blocked joins on/off':<34} pyasc {t_on:8.2f} ms  without {t_off:8.2f} ms ({t_off / t_on:5.2f}x)"
          f"  {blocked} blocked values, rel. diff {err:.1e}", flush=True)
    return {"case": f"{name} joins", "on_ms": t_on, "off_ms": t_off, "blocked": blocked, "rel_diff": err}


def bench_opt(data, in_name, shape, repeat):
    x = {in_name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    on, off = _pyasc(data, True), _pyasc(data, False)
    t_on, t_off = interleaved([lambda: on(x), lambda: off(x)], repeat)
    print(f"{'resnet50 b1 passes on vs off':<34} on {t_on:8.2f} ms  off {t_off:8.2f} ms  ({t_off / t_on:5.2f}x); "
          f"rel. diff {_rel(on(x), off(x)):.2e}", flush=True)
    return {"case": "resnet50 passes on/off", "on_ms": t_on, "off_ms": t_off, "speedup": t_off / t_on}


def bench_arena(label, data, in_name, shape, repeat):
    """The executor's memory arena on (the default: convolution outputs written into planned slots
    of one buffer reused by every run) vs off (ASC_MODEL_ARENA=0 at load: each output a new block
    from the memory pool), interleaved in one process. Also the mean of the rounds, since the
    arena's effect (the same addresses every run, cache-warm) is a few percent at most."""
    import pyasc as asc

    x = {in_name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    on = asc.InferenceSession(data)
    os.environ["ASC_MODEL_ARENA"] = "0"
    try:
        off = asc.InferenceSession(data)
    finally:
        del os.environ["ASC_MODEL_ARENA"]
    f_on, f_off = (lambda: on.run(None, x)[0]), (lambda: off.run(None, x)[0])
    f_on(), f_off()
    sums, best_ = [0.0, 0.0], [float("inf")] * 2
    for r in range(repeat):
        order = ((0, f_on), (1, f_off)) if r % 2 == 0 else ((1, f_off), (0, f_on))
        for k, f in order:
            t0 = time.perf_counter()
            f()
            dt = time.perf_counter() - t0
            sums[k] += dt
            best_[k] = min(best_[k], dt)
    t_on, t_off = best_[0] * 1e3, best_[1] * 1e3
    m_on, m_off = sums[0] / repeat * 1e3, sums[1] / repeat * 1e3
    kb = (on.arena_bytes or 0) / 1024
    # device-pool allocations per steady-state run (the output's own block included)
    allocs = []
    for f in (f_on, f_off):
        a0 = asc.memory_stats()["allocation_count"]
        for _ in range(3):
            f()
        allocs.append((asc.memory_stats()["allocation_count"] - a0) / 3)
    print(f"{label + ' arena on/off':<34} on {t_on:8.2f} ms  off {t_off:8.2f} ms ({t_off / t_on:5.2f}x best, "
          f"{m_off / m_on:5.2f}x mean); arena {kb:.0f} KiB, {len(on._model.arena.slots) if on._model.arena else 0} "
          f"values; allocations per run {allocs[0]:g} / {allocs[1]:g}; rel. diff {_rel(f_on(), f_off()):.1e}",
          flush=True)
    return {"case": f"{label} arena", "on_ms": t_on, "off_ms": t_off, "on_mean_ms": m_on, "off_mean_ms": m_off,
            "arena_bytes": on.arena_bytes, "allocs_on": allocs[0], "allocs_off": allocs[1]}


def bench_mix(data, in_name, shape, repeat, samples):
    """allow_mix_precision: pyasc's .om (save_as_om) vs OpenVINO bf16; top-1 vs float32 over inputs."""
    import pyasc as asc

    with tempfile.TemporaryDirectory() as d:
        p = asc.save_as_om(data, os.path.join(d, "m.om"), precision_mode="allow_mix_precision")
        s = asc.load_model(p)
    f32 = asc.InferenceSession(data)
    x = {in_name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    t = best(lambda: s.run(None, x), repeat)
    ov = _openvino(data, "bf16")
    t_ov = best(lambda: ov(x), repeat) if ov else None
    _line("resnet50 b1 allow_mix_precision", t, [("openvino[bf16]", t_ov)])
    rng = np.random.default_rng(2)
    agree, worst = 0, 0.0
    for _ in range(samples):
        xi = {in_name: rng.standard_normal(shape).astype(np.float32)}
        a, b = s.run(None, xi)[0], f32.run(None, xi)[0]
        agree += int(a.argmax() == b.argmax())
        worst = max(worst, _rel(a, b))
    print(f"{'':<34} top-1 equal to float32 on {agree}/{samples} inputs, max rel. error {worst:.2e} "
          f"(compute dtype {s.om_metadata['compute_dtype']})", flush=True)
    return {"case": "resnet50 allow_mix_precision", "pyasc_ms": t, "openvino_bf16_ms": t_ov,
            "top1_agree": agree / samples, "max_rel_err": worst}


# ------------------------------------------------------------------ peak memory (one process per runtime)

def _child(runtime, path, in_name, shape):
    """Runs one model in this (fresh) process: prints the peak RSS growth over the RSS after imports."""
    import gc

    if runtime == "pyasc":
        # the runtime's whole import, as onnxruntime's below (its protobuf parser is inside its
        # own library): pyasc's model loader parses with the onnx package, ~7 MiB of RSS that
        # used to count as the model's
        import onnx  # noqa: F401

        import pyasc  # noqa: F401
        import pyasc.models  # noqa: F401
    else:
        import onnxruntime  # noqa: F401
    shape = [int(v) for v in shape.split(",")]
    x = {in_name: np.random.default_rng(1).standard_normal(shape).astype(np.float32)}
    gc.collect()
    base = _rss_kib()
    with open(path, "rb") as f:
        data = f.read()
    fn = _pyasc(data) if runtime == "pyasc" else _ort(data)
    del data
    for _ in range(3):
        fn(x)
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork + exec
    print(json.dumps({"peak_mib": (_rss_kib("VmHWM:") - base) / 1024}))


def _rss_kib(field="VmRSS:"):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def bench_memory(data, in_name, shape):
    """Peak memory of each runtime on the model, each in its own process (the model file written
    here first, so generating its weights does not count)."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        with open(path, "wb") as f:
            f.write(data)
        for rt in ("pyasc", "onnxruntime"):
            r = subprocess.run([sys.executable, __file__, "--child", rt, path, in_name, ",".join(map(str, shape))],
                               capture_output=True, text=True, timeout=900)
            try:
                out[rt] = json.loads(r.stdout.strip().splitlines()[-1])["peak_mib"]
            except (IndexError, ValueError, KeyError):
                out[rt] = None
    p, o = out.get("pyasc"), out.get("onnxruntime")
    if p is not None and o is not None:
        print(f"{'':<34} peak memory (RSS growth from load to 3 runs): pyasc {p:7.1f} MiB, onnxruntime "
              f"{o:7.1f} MiB (onnxruntime / pyasc {o / max(p, 1e-9):4.2f})", flush=True)
    return out


def profile_nodes(batch, repeat):
    """``--profile``: ResNet-50's nodes one by one, pyasc (each node's outputs read before the
    next, so the time is the node's) next to onnxruntime's own profiler (its ``*_kernel_time``
    events), best of ``repeat`` interleaved runs each. onnxruntime names its NCHWc nodes
    ``r<i>_nchwc`` and fuses differently, so the rows are matched by position among the
    convolutions / pools (both graphs keep the model's order); the ratio is ort / pyasc."""
    import collections

    import pyasc as asc
    from pyasc.models import _onnx_model

    data, in_name, shape = _model_bytes("resnet50", batch)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    sess = asc.InferenceSession(data)
    # the whole run first (prepared calls, arena): its wall time minus the sum of the nodes' own
    # times is what runs between kernels (executor Python, argument checks, allocation, wake-ups)
    run_wall = best(lambda: sess.run(None, {in_name: x}), repeat) * 1e-3
    ours = collections.defaultdict(lambda: float("inf"))
    desc = {}
    model = sess._model
    steps = model._steps()
    wrapped = []
    for node, handler, prepare, drop in steps:
        def timed(nd, ins, handler=handler):
            t0 = time.perf_counter()
            out = handler(nd, ins)
            asc.eval(*[o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, asc.ndarray)])
            ours[nd.name] = min(ours[nd.name], time.perf_counter() - t0)
            desc[nd.name] = (nd.op_type, tuple(ins[0].shape) if ins and ins[0] is not None else ())
            return out
        wrapped.append((node, timed, None, drop))  # no prepared calls: every node through its handler
    model._steps_cache = wrapped
    model._prepared = {}
    o = None
    try:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.intra_op_num_threads = THREADS
        so.log_severity_level = 3
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.enable_profiling = True
        so.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "ort")
        o = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    except ImportError:
        pass
    for _ in range(repeat):
        sess.run(None, {in_name: x})
        if o is not None:
            o.run(None, {in_name: x})
    theirs = []
    if o is not None:
        fastest, kind = collections.OrderedDict(), {}
        ort_runs = []
        with open(o.end_profiling()) as f:
            for e in json.load(f):
                if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
                    n = e["name"][:-len("_kernel_time")]
                    fastest[n] = min(fastest.get(n, float("inf")), e["dur"] * 1e-6)
                    kind[n] = e.get("args", {}).get("op_name", "")
                elif e.get("cat") == "Session" and e.get("name") == "model_run":
                    ort_runs.append(e["dur"] * 1e-6)
        theirs = [(n, kind[n], t) for n, t in fastest.items() if "Conv" in kind[n] or "Pool" in kind[n]]
        ort_nodes = sum(fastest.values())
    rows = [(n, desc[n], t) for n, t in ours.items() if "Conv" in desc[n][0] or "Pool" in desc[n][0]]
    print(f"per-node profile, ResNet-50 b{batch}, best of {repeat} (ms; ratio ort/pyasc):")
    tot_o = tot_t = 0.0
    for i, (n, (op, shp), t) in enumerate(rows):
        th = theirs[i][2] if i < len(theirs) else float("nan")
        tot_o += t
        tot_t += th if th == th else 0.0
        print(f"  {n[:20]:20s} {op[:24]:24s} {str(shp):24s} pyasc {t * 1e3:7.3f}  ort {th * 1e3:7.3f}  {th / t:5.2f}x")
    print(f"  conv+pool total: pyasc {tot_o * 1e3:.2f} ms, onnxruntime {tot_t * 1e3:.2f} ms; all pyasc nodes "
          f"{sum(ours.values()) * 1e3:.2f} ms")
    nodes = sum(ours.values())
    print(f"  whole run (best): pyasc {run_wall * 1e3:.2f} ms = nodes {nodes * 1e3:.2f} + between nodes "
          f"{(run_wall - nodes) * 1e3:.2f} ms", end="")
    if o is not None and ort_runs:
        print(f"; onnxruntime model_run {min(ort_runs) * 1e3:.2f} ms = nodes {ort_nodes * 1e3:.2f} + between "
              f"{(min(ort_runs) - ort_nodes) * 1e3:.2f} ms", end="")
    print(" (a negative gap: the node minima come from different runs)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", type=int, default=0, metavar="BATCH",
                    help="per-node times of ResNet-50 at this batch, pyasc vs onnxruntime's profiler")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--samples", type=int, default=200, help="inputs for the mixed-precision top-1 check")
    ap.add_argument("--memory-only", action="store_true", help="only the peak-memory comparison")
    ap.add_argument("--models", default="", help="comma-separated light model names for --memory-only (default all)")
    ap.add_argument("--light", default="", metavar="NAMES",
                    help="only these light models at b1 (comma-separated, e.g. squeezenet,inception_v1,densenet121): "
                         "pyasc vs onnxruntime / OpenVINO, and blocked joins on vs off (ASC_LAYOUT_JOINS)")
    ap.add_argument("--head-pool", action="store_true",
                    help="ResNet-50's head pool and stem max pool alone: the blocked kernels vs onnxruntime "
                         "(and the head's lazy mean it replaced)")
    ap.add_argument("--arena", action="store_true",
                    help="also the memory arena on vs off at batch 8 (batch 1 is always measured)")
    ap.add_argument("--arena-only", action="store_true",
                    help="only ResNet-50's arena on vs off (b1; b8 too with --arena) and its allocations per run")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return _child(*a.child)
    import pyasc as asc

    if a.profile:
        print(f"bench_models --profile: load {os.getloadavg()[0]:.2f}", flush=True)
        profile_nodes(a.profile, a.repeat)
        print(f"load at the end {os.getloadavg()[0]:.2f}")
        return
    print(f"bench_models: pyasc {asc.__version__}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, "
          f"{THREADS} threads per runtime", flush=True)
    results = []
    if a.arena_only:
        for batch in (1, 8) if a.arena else (1,):
            results.append(bench_arena(f"resnet50 b{batch}", *_model_bytes("resnet50", batch), max(a.repeat, 10)))
        print(json.dumps(results))
        print(f"load at the end {os.getloadavg()[0]:.2f}")
        return
    if a.memory_only:
        wanted = [m for m in a.models.split(",") if m]
        for name in light_models():
            if wanted and name not in wanted:
                continue
            print(name, flush=True)
            results.append({"case": name, "memory": bench_memory(*_model_bytes(name, 1))})
        print(json.dumps(results))
        return
    if a.head_pool:
        for batch in (1, 8):
            results.append(bench_head_pool(batch, max(a.repeat, 20)))
        results.append(bench_stem_max_pool(1, max(a.repeat, 20)))
        print(f"load at the end {os.getloadavg()[0]:.2f}")
        return
    if a.light:
        for name in a.light.split(","):
            d, n, s = _model_bytes(name, 1)
            results.append(bench_case(f"{name} b1 float32", d, n, s, a.repeat))
            results.append(bench_joins(name, d, n, s, a.repeat))
        print(f"load at the end {os.getloadavg()[0]:.2f}")
        print(json.dumps(results))
        return
    data, in_name, shape = _model_bytes("resnet50", 1)
    results.append(bench_case("resnet50 b1 float32", data, in_name, shape, a.repeat))
    results.append(bench_opt(data, in_name, shape, a.repeat))
    results.append(bench_arena("resnet50 b1", data, in_name, shape, a.repeat))
    data8, in8, shape8 = _model_bytes("resnet50", 8)
    results.append(bench_case("resnet50 b8 float32", data8, in8, shape8, max(3, a.repeat // 3)))
    if a.arena:
        results.append(bench_arena("resnet50 b8", data8, in8, shape8, max(3, a.repeat // 3)))
    if a.quick:
        print(f"load at the end {os.getloadavg()[0]:.2f}")
        return
    results.append(bench_mix(data, in_name, shape, a.repeat, a.samples))
    for name in light_models():
        d, n, s = _model_bytes(name, 1)
        r = bench_case(f"{name} b1 float32", d, n, s, a.repeat, openvino=False)
        if not a.no_memory:
            r["memory"] = bench_memory(d, n, s)
        results.append(r)
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
