"""``asc.InferenceSession``: onnxruntime's session interface over pyasc's device.

Code written for onnxruntime switches by changing the import::

    import pyasc as ort            # was: import onnxruntime as ort
    sess = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    (probs,) = sess.run(None, {name: batch})

``run`` returns NumPy arrays as onnxruntime does; ``run_async`` without a
callback returns pyasc arrays still pending on the current stream (chain more
pyasc code on them, read them when needed); with a callback it follows
onnxruntime (the callback gets ``(outputs, user_data, error_string)`` on a worker
thread).

Thread-safety: a session may be run from several threads at once (each run
keeps its own values; the model is read-only after load).
"""

from __future__ import annotations

import enum
import os
import threading
import time
import warnings

import numpy as np

from ._onnx_model import Model, _err

__all__ = ["InferenceSession", "SessionOptions", "RunOptions", "NodeArg", "ModelMetadata", "GraphOptimizationLevel",
           "get_available_providers"]

_PROVIDERS = ["CPUExecutionProvider"]


def get_available_providers():
    """Execution providers a session can use: pyasc's CPU device (every core an AI core)."""
    return list(_PROVIDERS)


class GraphOptimizationLevel(enum.IntEnum):
    """onnxruntime's levels. Below ORT_ENABLE_BASIC no pass runs (not even constant folding)."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class SessionOptions:
    """onnxruntime's SessionOptions: the fields pyasc honours (others are accepted and ignored).

    graph_optimization_level: GraphOptimizationLevel (default ORT_ENABLE_ALL).
    intra_op_num_threads: 0 = all device cores; the device's core count is fixed per process
        (ASC_NUM_CORES), so another value only warns.
    enable_profiling / profile_file_prefix: a Chrome trace of the runs (pyasc's profiler),
        written by InferenceSession.end_profiling().
    optimized_model_filepath: the optimised graph (constants folded) saved as ONNX at load.
    log_severity_level, inter_op_num_threads, execution_mode: accepted, no effect.
    """

    def __init__(self):
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.enable_profiling = False
        self.profile_file_prefix = "pyasc_profile"
        self.optimized_model_filepath = ""
        self.log_severity_level = 2
        self.execution_mode = 0


class RunOptions:
    """onnxruntime's RunOptions (accepted; ``run_tag`` names the run in the profile)."""

    def __init__(self):
        self.run_tag = ""
        self.log_severity_level = 2
        self.terminate = False


class NodeArg:
    """A graph input or output: ``name``, ``shape`` (ints; strings for symbolic dims; None when
    unknown) and ``type`` (onnxruntime's string, e.g. ``'tensor(float)'``)."""

    __slots__ = ("name", "shape", "type")

    def __init__(self, name, shape, type):  # noqa: A002 - onnxruntime's attribute name
        self.name, self.shape, self.type = name, shape, type

    def __repr__(self):
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


class ModelMetadata:
    """onnxruntime's ModelMetadata of the loaded model."""

    def __init__(self, proto):
        self.producer_name = proto.producer_name
        self.graph_name = proto.graph.name
        self.domain = proto.domain
        self.description = proto.doc_string
        self.graph_description = proto.graph.doc_string
        self.version = int(proto.model_version)
        self.custom_metadata_map = {p.key: p.value for p in proto.metadata_props}


class InferenceSession:
    """Loads a model (an ONNX path, bytes or onnx.ModelProto, or a pyasc ``.om`` path or bytes
    written by ``pyasc-atc`` / ``asc.save_as_om``) and runs it on pyasc's device.

    Errors: a missing or malformed file, an invalid model, an opset outside 7-21 or an unsupported
    operator raise at construction (AscendValueError / AscendNotImplementedError naming the file,
    and for operators every offending node with its op type and opset); wrong input names, types
    or shapes raise at ``run`` (AscendValueError / AscendTypeError naming the input).
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        self._options = sess_options if sess_options is not None else SessionOptions()
        if providers:
            names = [p[0] if isinstance(p, tuple) else p for p in providers]
            unknown = [p for p in names if p not in _PROVIDERS]
            if unknown:
                warnings.warn(f"InferenceSession: provider(s) {unknown} are not available here; using "
                              f"{_PROVIDERS}", RuntimeWarning, stacklevel=2)
        threads = int(getattr(self._options, "intra_op_num_threads", 0) or 0)
        if threads:
            from .. import device

            cores = device.get_device_properties().num_cores if hasattr(device, "get_device_properties") else None
            if cores is not None and threads != cores:
                warnings.warn(f"InferenceSession: intra_op_num_threads={threads} is ignored: the device runs on its "
                              f"{cores} cores (set ASC_NUM_CORES before importing pyasc)", RuntimeWarning,
                              stacklevel=2)
        optimize = int(self._options.graph_optimization_level) > 0
        t0 = time.perf_counter()
        self._model = Model(path_or_bytes, optimize=optimize)
        self._load_ms = (time.perf_counter() - t0) * 1e3
        self._model_path = self._model.path
        out_path = getattr(self._options, "optimized_model_filepath", "")
        if out_path:
            self._save_optimized(out_path)
        self._profiling = bool(getattr(self._options, "enable_profiling", False))
        self._events = []
        self._lock = threading.Lock()
        self._plan = None

    # ---------------------------------------------------------------- metadata

    def _args(self, infos):
        return [NodeArg(v.name, list(v.shape) if v.shape is not None else None, v.type) for v in infos]

    def get_inputs(self):
        """The graph's inputs (initializers excluded), as NodeArg."""
        return self._args(self._model.inputs)

    def get_outputs(self):
        """The graph's outputs, as NodeArg."""
        return self._args(self._model.outputs)

    def get_overridable_initializers(self):
        """Initializers also listed as graph inputs (a feed may replace them)."""
        return self._args(self._model.overridable)

    def get_modelmeta(self):
        """The model's metadata (producer, graph name, domain, version, custom map)."""
        return ModelMetadata(self._model.proto)

    def get_providers(self):
        """The execution providers this session runs on."""
        return list(_PROVIDERS)

    def get_provider_options(self):
        """Each provider's options (none are configurable)."""
        return {p: {} for p in _PROVIDERS}

    def get_session_options(self):
        """The SessionOptions the session was created with."""
        return self._options

    @property
    def om_metadata(self):
        """For a session on a pyasc ``.om`` file: its metadata (how it was built: ATC options,
        precision mode, dynamic gears, AIPP, the graph's size); None for an ONNX model."""
        return self._model.om_meta

    @property
    def graph_rewrites(self):
        """{pass name: rewrites} of the graph passes at load (BatchNorm folding, conv fusion)."""
        return dict(self._model.rewrites)

    @property
    def folded_nodes(self):
        """How many nodes constant folding removed at load."""
        return self._model.folded

    @property
    def peak_bytes(self):
        """The static memory plan's arena size in bytes: the working memory one run needs for the
        values the graph computes (intermediates and outputs; inputs and weights excluded), with
        buffers reused by lifetime (python/pyasc/models/_memplan.py). Planned from the shapes of
        the first run (or :meth:`memory_plan`); None before."""
        return None if self._plan is None else self._plan.peak_bytes

    @property
    def arena_bytes(self):
        """The bytes of the executor's memory arena: after the first run, the convolutions' outputs
        are written into planned slots of one buffer (per dtype) that every later run with the same
        input shapes reuses, so steady-state runs allocate nothing for them. None before the first
        run, when no value qualifies, or with ASC_MODEL_ARENA=0 (see docs/models.md)."""
        lay = self._model.arena
        return None if lay is None else lay.peak_bytes

    def memory_plan(self, input_feed=None):
        """The static memory plan (a ``MemoryPlan``: ``buffers`` {value: (offset, bytes, first node,
        last node)}, ``peak_bytes``, ``naive_bytes`` without reuse, ``live_peak_bytes``). With
        ``input_feed`` the model runs once on it to learn the shapes and the plan is made for them;
        without, the plan of the first run (None before one)."""
        if input_feed is not None:
            names = [v.name for v in self._model.outputs]
            sizes = {}
            self._model.run(self._feeds(input_feed), names, sizes)
            self._set_plan(sizes)
        return self._plan

    def _set_plan(self, sizes):
        from ._memplan import plan

        p = plan(sizes, self._model.last_use, len(self._model.nodes), {v.name for v in self._model.outputs})
        with self._lock:
            self._plan = p

    # ---------------------------------------------------------------- run

    def _feeds(self, input_feed):
        import pyasc as asc

        if not isinstance(input_feed, dict):
            raise _err("AscendTypeError", f"input_feed must be a dict of input name -> array, not "
                       f"{type(input_feed).__name__}")
        known = {v.name: v for v in self._model.inputs}
        over = {v.name: v for v in self._model.overridable}
        feeds = {}
        for name, value in input_feed.items():
            vi = known.get(name) or over.get(name)
            if vi is None:
                raise _err("AscendValueError", f"invalid input name '{name}': the model's inputs are "
                           f"{sorted(known)}")
            a = value if isinstance(value, asc.ndarray) else asc.asarray(np.asarray(value))
            want = vi.dtype
            if str(a.dtype) != want:
                raise _err("AscendTypeError", f"input '{name}': unexpected data type {self._ort_type(a.dtype)}, "
                           f"expected {vi.type}", "INVALID_DTYPE")
            if vi.shape is not None:
                if a.ndim != len(vi.shape):
                    raise _err("AscendValueError", f"input '{name}': rank {a.ndim} (shape {tuple(a.shape)}), "
                               f"expected rank {len(vi.shape)} (shape {vi.shape})", "INVALID_SHAPE")
                bad = [i for i, d in enumerate(vi.shape) if isinstance(d, int) and a.shape[i] != d]
                if bad:
                    raise _err("AscendValueError", f"input '{name}': invalid dimensions at index {bad}: got "
                               f"{tuple(a.shape)}, expected {vi.shape}", "INVALID_SHAPE")
            feeds[name] = a
        missing = [n for n in known if n not in feeds]
        if missing:
            raise _err("AscendValueError", f"missing input(s) {missing}: the model's inputs are {sorted(known)}")
        dynamic = (self._model.om_meta or {}).get("dynamic")
        if dynamic:  # an .om built with dynamic gears runs only at those (ACL's rule)
            from ._convert import gear_of

            gear_of(dynamic, {n: tuple(a.shape) for n, a in feeds.items()})
        return feeds

    @staticmethod
    def _ort_type(dtype):
        from ._registry import NAME_TO_ONNX, ORT_TYPE

        return ORT_TYPE.get(NAME_TO_ONNX.get(str(dtype)), str(dtype))

    def _names(self, output_names):
        outs = [v.name for v in self._model.outputs]
        if not output_names:
            return outs
        for n in output_names:
            if n not in outs:
                raise _err("AscendValueError", f"invalid output name '{n}': the model's outputs are {outs}")
        return list(output_names)

    def _run_device(self, output_names, input_feed, run_options=None):
        names = self._names(output_names)
        feeds = self._feeds(input_feed)
        t0 = time.perf_counter()
        sizes = {} if self._plan is None else None
        outs = self._model.run(feeds, names, sizes)
        if sizes is not None:
            self._set_plan(sizes)
        if self._profiling:
            import pyasc as asc

            asc.eval(*outs)
            t1 = time.perf_counter()
            with self._lock:
                self._events.append({"name": getattr(run_options, "run_tag", "") or "model_run", "ph": "X",
                                     "ts": t0 * 1e6, "dur": (t1 - t0) * 1e6, "pid": os.getpid(),
                                     "tid": threading.get_ident(), "cat": "Session"})
        return outs

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model; returns the requested outputs (all when ``output_names`` is None or
        empty) as NumPy arrays, in order."""
        outs = self._run_device(output_names, input_feed, run_options)
        return [np.array(o) for o in outs]

    def run_async(self, output_names, input_feed, callback=None, user_data=None, run_options=None):
        """Without ``callback``: the outputs as pyasc arrays, pending on the current stream.
        With ``callback``: onnxruntime's form, ``callback(outputs, user_data, err)`` on a worker
        thread (``err`` is '' on success, the error message otherwise)."""
        if callback is None:
            return self._run_device(output_names, input_feed, run_options)

        def work():
            try:
                outs = self.run(output_names, input_feed, run_options)
                callback(outs, user_data, "")
            except Exception as e:  # noqa: BLE001 - reported to the callback as onnxruntime does
                callback(None, user_data, str(e))

        threading.Thread(target=work, daemon=True).start()
        return None

    # ---------------------------------------------------------------- profiling / export

    def end_profiling(self):
        """Writes the Chrome trace of the runs so far; returns its file name ('' when profiling is off)."""
        if not self._profiling:
            return ""
        import json

        path = f"{self._options.profile_file_prefix}_{time.strftime('%Y-%m-%d_%H-%M-%S')}.json"
        with self._lock:
            events, self._events = self._events, []
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)
        return path

    def _save_optimized(self, path):
        import onnx

        onnx.save(self._model.to_proto(), path)
