"""ONNX import: parse and check a model, resolve opsets, fold constants, run the graph.

The ``onnx`` package parses (protobuf; nothing in a model file is executed or
unpickled) and checks the model; :class:`Model` keeps the nodes in topological
order with typed attributes, the initializers as pyasc arrays, the graph
inputs/outputs with their declared types and shapes, and each value's last use
so a run drops intermediates as soon as nothing reads them (the memory pool
reuses their blocks).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from . import _aipp, _onnx_math, _onnx_nn, _onnx_resize, _onnx_tensor  # noqa: F401 - they register their ops
from . import _passes
from ._registry import NAME_TO_ONNX, ONNX_DTYPES, ORT_TYPE, Node, lookup

MIN_OPSET, MAX_OPSET = 7, 21
# arenas a model keeps for reuse: one per run in flight up to this many (a server running more
# at once allocates the others per run instead of holding their memory for the session's life)
ARENAS_KEPT = 4


def _asc():
    import pyasc

    return pyasc


def _err(cls, msg, code="INVALID_PARAM"):
    from ..ops._util import _err as make

    return make(cls, code, f"[InferenceSession] {msg}")


def _onnx():
    try:
        import onnx
    except ImportError:  # pragma: no cover - onnx is a dependency of the lock
        raise _err("AscendNotImplementedError", "loading ONNX models needs the 'onnx' package "
                   "(pip install 'pyasc[onnx]')", "FEATURE_UNSUPPORTED") from None
    return onnx


def _attr_value(a, node_name):
    onnx = _onnx()
    from onnx import numpy_helper

    t = a.type
    A = onnx.AttributeProto
    if t == A.FLOAT:
        return float(a.f)
    if t == A.INT:
        return int(a.i)
    if t == A.STRING:
        return a.s.decode("utf-8", "replace")
    if t == A.TENSOR:
        return numpy_helper.to_array(a.t)
    if t == A.FLOATS:
        return [float(v) for v in a.floats]
    if t == A.INTS:
        return [int(v) for v in a.ints]
    if t == A.STRINGS:
        return [s.decode("utf-8", "replace") for s in a.strings]
    raise _err("AscendNotImplementedError", f"node '{node_name}': attribute '{a.name}' of type "
               f"{A.AttributeType.Name(t)} (subgraphs, sparse tensors) is not supported", "FEATURE_UNSUPPORTED")


_dump_seq = [0]


def _trim_heap():
    """Hands the heap's free pages back to the system (glibc's malloc_trim). A load and a model's
    first run free many host temporaries (the checker's parsed copy, the passes' float64 folds,
    NumPy views, oneDNN's primitive creation); glibc keeps those pages mapped -- the freed top of
    the heap and, after a large free raised the mmap threshold, chunks that later small blocks
    fragment -- so without a trim they stayed in the process's RSS for its life (ShuffleNet:
    ~6 MiB over 5.5 MiB of weights). Once per load and per first run, never per steady-state run."""
    global _libc
    if _libc is None:
        try:
            import ctypes

            _libc = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):  # not glibc: nothing to trim
            _libc = False
    if _libc:
        _libc(0)


_libc = None


def _dump_dir():
    """ASCEND_DUMP_GRAPH_PATH (default ./graph_dump) when ASCEND_DUMP_GRAPH is set (not '' or '0')."""
    if os.environ.get("ASCEND_DUMP_GRAPH", "") in ("", "0"):
        return None
    return os.environ.get("ASCEND_DUMP_GRAPH_PATH") or os.path.join(os.getcwd(), "graph_dump")


class ValueInfo:
    """A graph input/output: name, ONNX element type, shape (ints, dim_param strings, None)."""

    __slots__ = ("name", "elem_type", "shape")

    def __init__(self, name, elem_type, shape):
        self.name, self.elem_type, self.shape = name, elem_type, shape

    @classmethod
    def from_proto(cls, vi):
        tt = vi.type.tensor_type
        shape = None
        if tt.HasField("shape"):
            shape = []
            for d in tt.shape.dim:
                if d.HasField("dim_value"):
                    shape.append(int(d.dim_value))
                elif d.HasField("dim_param"):
                    shape.append(d.dim_param)
                else:
                    shape.append(None)
        return cls(vi.name, int(tt.elem_type), shape)

    @property
    def type(self):
        return ORT_TYPE.get(self.elem_type, f"tensor(unknown {self.elem_type})")

    @property
    def dtype(self):
        return ONNX_DTYPES.get(self.elem_type)


class Model:
    """A loaded, checked ONNX graph ready to run."""

    def __init__(self, source, optimize=True, where=None):
        onnx = _onnx()
        from . import om

        self.path = None
        self.om_meta = None
        # the run's memory arena (Model.run / _plan_arena): ASC_MODEL_ARENA=0 turns it off
        self.use_arena = os.environ.get("ASC_MODEL_ARENA", "1") != "0"
        self._arena_state = None  # None: not planned yet; False: nothing qualifies; else ArenaLayout
        self._arena_free = []
        self._arena_lock = threading.Lock()
        owned = not isinstance(source, onnx.ModelProto)
        # a pyasc .om (path or bytes): its checked ONNX section is the graph, its META the build record
        packed = om.sniff(source)
        if packed is not None:
            self.om_meta = packed.meta
            if isinstance(source, (str, os.PathLike)):
                self.path = os.fspath(source)
            where = where or self.path
            source = packed.onnx
        # The checker runs on the file's bytes before the Python proto exists: check_model(proto)
        # would serialise the whole model again (weights included) next to the parsed copy, which
        # made the load's peak memory hold the weights four times (AlexNet: 945 MiB).
        checked = None
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            checked = self._check_bytes(data)
            proto, pre, pre_order = self._parse_split(data, where or "<bytes>", checked)
            del data
        elif isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            if not os.path.isfile(path):
                raise _err("AscendValueError", f"model file '{path}' does not exist", "INVALID_FILE")
            self.path = path
            with open(path, "rb") as f:
                data = f.read()
            checked = self._check_bytes(data)
            proto, pre, pre_order = self._parse_split(data, path, checked)
            del data
            if any(t.data_location == onnx.TensorProto.EXTERNAL for t in proto.graph.initializer):
                from onnx.external_data_helper import load_external_data_for_model

                try:
                    load_external_data_for_model(proto, os.path.dirname(os.path.abspath(path)))
                except (OSError, ValueError) as e:
                    raise _err("AscendValueError", f"'{path}': external weights cannot be read ({e})",
                               "INVALID_FILE") from None
        elif isinstance(source, onnx.ModelProto):
            proto, pre, pre_order = source, {}, None
        else:
            raise _err("AscendTypeError", f"a model is a path, bytes or onnx.ModelProto, not {type(source).__name__}")
        self.where = where or self.path or "<bytes>"
        external = any(t.data_location == onnx.TensorProto.EXTERNAL for t in proto.graph.initializer)
        try:
            if checked is None or external:
                onnx.checker.check_model(proto)
            elif isinstance(checked, Exception):
                raise checked
        except onnx.checker.ValidationError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else "invalid model"
            raise _err("AscendValueError", f"'{self.where}' is not a valid ONNX model: {first}", "INVALID_FILE") from None
        self.proto = proto
        self.opsets = {("" if o.domain in ("", "ai.onnx") else o.domain): int(o.version) for o in proto.opset_import}
        main = self.opsets.get("")
        if main is not None and not MIN_OPSET <= main <= MAX_OPSET:
            raise _err("AscendNotImplementedError", f"'{self.where}' uses ONNX opset {main}; opsets {MIN_OPSET}-"
                       f"{MAX_OPSET} are supported", "FEATURE_UNSUPPORTED")
        g = proto.graph
        from onnx import numpy_helper

        asc = _asc()
        self.constants = {}
        for t in g.initializer:
            if t.data_type not in ONNX_DTYPES:
                raise _err("AscendNotImplementedError", f"initializer '{t.name}' has ONNX data type {t.data_type} "
                           "(strings are not supported)", "INVALID_DTYPE")
        # copied into device memory: weights the caller's NumPy cannot change are cached by the
        # kernels (conv reorders their layout once), where external bytes are re-read every run.
        # A proto parsed here hands each tensor's bytes back as soon as it is copied (taken from the
        # end, so the load never holds the weights twice); to_proto() rebuilds initializers.
        order = [t.name for t in g.initializer]
        if pre_order is not None:  # the extracted ones' places among those left in the proto
            rest = iter(order)
            order = [n if n is not None else next(rest) for n in pre_order]
        while pre:  # views of the model's bytes (_onnx_weights): one device copy each, nothing else
            name, arr = pre.popitem()
            self.constants[name] = asc.array(arr, copy=True)
            del arr
        if owned:
            while len(g.initializer):
                t = g.initializer[-1]
                name, arr = t.name, numpy_helper.to_array(t)
                del t, g.initializer[-1]  # the proto's bytes go back before the device copy is made
                self.constants[name] = asc.array(arr, copy=True)
                del arr
            self.constants = {k: self.constants[k] for k in order if k in self.constants}
            # protobuf's arena keeps a parsed message's bytes until the message itself goes: a copy
            # without the initializers replaces it, so the weights are not held twice for the
            # session's life
            slim = onnx.ModelProto()
            slim.CopyFrom(proto)
            self.proto = proto = slim
            g = proto.graph
        else:
            for t in g.initializer:
                self.constants[t.name] = asc.array(numpy_helper.to_array(t), copy=True)
        init = set(self.constants)
        self.inputs = [ValueInfo.from_proto(v) for v in g.input if v.name not in init]
        self.outputs = [ValueInfo.from_proto(v) for v in g.output]
        # initializers also listed as graph inputs: from IR 4 on, inputs a feed may override; before
        # IR 4 every initializer had to be listed, so they are constants there (onnxruntime's rule)
        self.overridable = [ValueInfo.from_proto(v) for v in g.input if v.name in init] if proto.ir_version >= 4 \
            else []
        for vi in self.inputs + self.outputs:
            if vi.elem_type not in ONNX_DTYPES:
                raise _err("AscendNotImplementedError", f"graph value '{vi.name}' has type {vi.type}, which pyasc "
                           "does not hold", "INVALID_DTYPE")
        self.nodes = self._nodes(g)
        self.folded = 0
        self.rewrites = {}
        dump = _dump_dir()
        if dump:
            self._dump(dump, "0_loaded")
        if optimize:
            self._fold_constants()
            self.rewrites = _passes.run_all(self, {v.name for v in self.outputs})
        self._plan()
        # memory: weights the passes replaced (BatchNorm-folded convs' old W/b, statistics) are dropped,
        # and a proto parsed here gives its initializer bytes back (self.constants holds the weights;
        # to_proto() rebuilds initializers from them). A caller's ModelProto is left untouched.
        keep = {x for n in self.nodes for x in n.inputs} | {v.name for v in self.outputs} | \
            {v.name for v in self.overridable}
        self.constants = {k: v for k, v in self.constants.items() if k in keep}
        if dump:
            self._dump(dump, "1_optimized")
        _trim_heap()

    # ---------------------------------------------------------------- load

    @staticmethod
    def _check_bytes(data):
        """onnx.checker on serialized bytes: True when valid, the ValidationError when not, None
        when the bytes do not parse (then _parse names the defect)."""
        onnx = _onnx()
        try:
            onnx.checker.check_model(data)
            return True
        except onnx.checker.ValidationError as e:
            return e
        except Exception:  # noqa: BLE001 - not a protobuf, too large, ...: checked again on the proto
            return None

    @classmethod
    def _parse_split(cls, data, where, checked):
        """(proto, weights, order): a model the checker passed is parsed without its raw-data
        initializers, which come back as views of ``data`` (_onnx_weights.split: protobuf would
        copy them into the message); otherwise (or when the split declines) the ordinary parse
        with weights {} and order None."""
        from . import _onnx_weights

        parts = _onnx_weights.split(data) if checked is True else None
        if parts is None:
            return cls._parse(data, where), {}, None
        slim, weights, order = parts
        return cls._parse(slim, where), weights, order

    @staticmethod
    def _parse(data, where):
        onnx = _onnx()
        from google.protobuf.message import DecodeError

        try:
            proto = onnx.ModelProto()
            proto.ParseFromString(data)
        except (DecodeError, ValueError, RuntimeError) as e:
            raise _err("AscendValueError", f"'{where}' is not an ONNX model (protobuf parse failed: {e})",
                       "INVALID_FILE") from None
        if not proto.HasField("graph"):
            raise _err("AscendValueError", f"'{where}' is not an ONNX model (no graph)", "INVALID_FILE")
        return proto

    def _nodes(self, g):
        nodes, unsupported = [], []
        for i, n in enumerate(g.node):
            name = n.name or f"{n.op_type}_{i}"
            domain = "" if n.domain in ("", "ai.onnx") else n.domain
            opset = self.opsets.get(domain, 0)
            entry = lookup(domain, n.op_type)
            if entry is None or opset < entry[1]:
                unsupported.append(f"node '{name}' (op_type {n.op_type}, domain '{domain or 'ai.onnx'}', "
                                   f"opset {opset})")
                continue
            attrs = {a.name: _attr_value(a, name) for a in n.attribute}
            nodes.append(Node(name, n.op_type, domain, opset, attrs, list(n.input), list(n.output)))
        if unsupported:
            more = f" and {len(unsupported) - 5} more" if len(unsupported) > 5 else ""
            raise _err("AscendNotImplementedError", f"'{self.where}': unsupported operator(s): "
                       + "; ".join(unsupported[:5]) + more, "FEATURE_UNSUPPORTED")
        return nodes

    # ---------------------------------------------------------------- passes

    def _fold_constants(self):
        """Runs once, at load, every node whose inputs are all constants (weights, Shape chains)."""
        asc = _asc()
        keep = []
        graph_inputs = {v.name for v in self.inputs} | {v.name for v in self.overridable}
        for node in self.nodes:
            ins = [x for x in node.inputs if x]
            if node.op_type in ("Dropout",) or any(x not in self.constants or x in graph_inputs for x in ins):
                keep.append(node)
                continue
            outs = self._run_node(node, {k: self.constants[k] for k in ins})
            for name, v in zip(node.outputs, outs):
                if name:
                    self.constants[name] = asc.asarray(v)
            self.folded += 1
        self.nodes = keep

    def _plan(self):
        """Checks that every input is defined before use; records each value's last reader."""
        defined = set(self.constants) | {v.name for v in self.inputs} | {""}
        self.last_use = {}
        for i, node in enumerate(self.nodes):
            for x in node.inputs:
                if x not in defined:
                    raise _err("AscendValueError", f"'{self.where}': {node.where()} reads '{x}', which no earlier node, "
                               "input or initializer defines", "INVALID_FILE")
                self.last_use[x] = i
            defined.update(node.outputs)
        for vi in self.outputs:
            if vi.name not in defined:
                raise _err("AscendValueError", f"'{self.where}': graph output '{vi.name}' is never computed",
                           "INVALID_FILE")

    # ---------------------------------------------------------------- run

    @staticmethod
    def _node_error(node, e):
        """``e`` raised by ``node``'s handler, re-raised with the node named, same class."""
        from ..errors import AscendError

        if isinstance(e, AscendError) and "[InferenceSession]" in str(e):
            return e
        if isinstance(e, AscendError):
            return type(e)(e.code, f"[InferenceSession] {node.where()}: {e.message}")
        return _err("AscendRuntimeError", f"{node.where()}: {type(e).__name__}: {e}", "INTERNAL")

    @classmethod
    def _run_node(cls, node, env):
        handler = lookup(node.domain, node.op_type)[0]
        ins = [env[x] if x else None for x in node.inputs]
        try:
            out = handler(node, ins)
        except Exception as e:  # noqa: BLE001 - re-raised with the node named, same class
            err = cls._node_error(node, e)
            if err is e:
                raise
            raise err from e
        return out if isinstance(out, tuple) else (out,)

    def _steps(self):
        """The run's schedule, resolved once per model: per node its handler, the handler's
        ``prepare`` (or None), and the intermediates to drop after it (last read there, neither a
        constant nor a graph output)."""
        steps = self.__dict__.get("_steps_cache")
        if steps is None:
            keep = set(self.constants) | {v.name for v in self.outputs}
            steps = []
            for i, node in enumerate(self.nodes):
                handler = lookup(node.domain, node.op_type)[0]
                drop = tuple(x for x in dict.fromkeys(node.inputs) if x and self.last_use.get(x) == i and x not in keep)
                steps.append((node, handler, getattr(handler, "prepare", None), drop))
            self._steps_cache = steps
            self._prepared = {}
        return steps

    def run(self, feeds, output_names, sizes=None):
        """Runs the nodes in order. ``sizes`` (a dict), when given, receives every value a node
        computes as ``name -> (bytes, node index)`` (the static memory plan's input).

        A handler with a ``prepare(node, inputs)`` attribute (convolutions) resolves its call once:
        ``prepare`` returns a callable (or None) that runs the node on inputs of the same shapes,
        dtypes and weights, and returns None for others (then the handler runs and prepares again)
        -- so steady-state runs of a model issue prepared calls with nothing re-derived per run.

        The memory arena (:meth:`_arena_for`): after the first run, the outputs of prepared calls
        that can write into a given buffer get planned slots in one buffer per dtype, reused by
        every run with the first run's input shapes (no allocation for them in steady state)."""
        env = dict(self.constants)
        env.update(feeds)
        outputs = {v.name for v in self.outputs}
        extra = [n for n in output_names if n not in outputs]  # intermediates asked for by name
        steps = self._steps()
        prepared = self._prepared
        record = {} if self.use_arena and self._arena_state is None else None
        arena, slots = self._arena_for(feeds, extra) if record is None and self._arena_state else (None, None)
        try:
            for i, (node, handler, prepare, drop) in enumerate(steps):
                ins = [env[x] if x else None for x in node.inputs]
                try:
                    out = None
                    fast = prepared.get(i)
                    if fast is not None:
                        o = slots.get(i) if slots is not None else None
                        out = fast(ins) if o is None else fast(ins, o)
                    if out is None:
                        out = handler(node, ins)
                        if prepare is not None:
                            prepared[i] = prepare(node, ins)
                except Exception as e:  # noqa: BLE001 - re-raised with the node named, same class
                    err = self._node_error(node, e)
                    if err is e:
                        raise
                    raise err from e
                if not isinstance(out, tuple):
                    out = (out,)
                for name, v in zip(node.outputs, out):
                    if name:
                        env[name] = v
                        if sizes is not None:
                            sizes[name] = (int(getattr(v, "nbytes", 0)), i)
                        if record is not None and hasattr(v, "nbytes"):
                            record[name] = (int(v.nbytes), str(v.dtype), tuple(v.shape), i, int(v.itemsize))
                for x in drop:  # drop intermediates nobody reads any more
                    if x not in extra:
                        env.pop(x, None)
            result = [env[n] for n in output_names]
        finally:
            if arena is not None:
                env.clear()  # nothing of this run refers to the arena any more
                with self._arena_lock:
                    if len(self._arena_free) < ARENAS_KEPT:  # more runs in flight: theirs go back to the pool
                        self._arena_free.append((arena, slots))
        if record is not None:
            self._plan_arena(feeds, record)
            _trim_heap()
        return result

    # ---------------------------------------------------------------- memory arena

    @staticmethod
    def _signature(feeds):
        return tuple(sorted((k, tuple(v.shape), str(v.dtype)) for k, v in feeds.items()))

    def _plan_arena(self, feeds, record):
        """After a first run: plans the arena from its values (python/pyasc/models/_memplan.py).
        Writers are the prepared convolutions whose call takes ``out=``; safe readers (inputs read
        completely before they return, a new buffer out) are prepared convolutions and blocked max
        pools; a convolution marked residual_inplace by assign_layouts overwrites its residual."""
        from ._memplan import arena_layout

        nodes = self.nodes
        prepared = self._prepared
        writers = {i for i, f in prepared.items() if f is not None and getattr(f, "accepts_out", False)}
        safe = {i for i, f in prepared.items() if f is not None} | \
            {i for i, n in enumerate(nodes) if n.op_type == "MaxPoolNC1HWC0" and n.domain == "ai.pyasc"}
        inplace = {i: n.inputs[3] for i, n in enumerate(nodes)
                   if n.attr("residual_inplace", 0) and len(n.inputs) > 3 and n.inputs[3]}
        layout = arena_layout(nodes, record, writers, safe, {v.name for v in self.outputs}, inplace,
                              self._signature(feeds))
        with self._arena_lock:
            if self._arena_state is None:
                self._arena_state = layout if layout is not None else False
        if layout is not None:
            # the first run's intermediates that are arena values from now on sit in the pool's
            # cache, in blocks no later run of this model asks for: handed back once, here, so
            # the arena does not come on top of them (ShuffleNet: 5.8 MiB of 13.6 reserved)
            _asc()._C.empty_cache()

    def _arena_for(self, feeds, extra):
        """(arena, {node index: out view}) for this run: a free arena of the layout (or a new one;
        concurrent runs each take their own), or (None, None) when the inputs' shapes are not the
        planned ones or intermediates are asked for by name (one may be an arena value, or a view
        or pending lazy result of one, which the next run would overwrite)."""
        layout = self._arena_state
        if extra or self._signature(feeds) != layout.signature:
            return None, None
        with self._arena_lock:
            if self._arena_free:
                return self._arena_free.pop()
        asc = _asc()
        arena = {dt: asc.empty((n,), dtype=dt) for dt, n in layout.elements.items()}
        views = {}
        for y, (dt, off, shape) in layout.slots.items():
            count = 1
            for d in shape:
                count *= int(d)
            views[y] = arena[dt][off:off + count].reshape(shape)
        return arena, {i: views[y] for i, y in layout.producers.items()}

    @property
    def arena(self):
        """The run's arena plan (an ``ArenaLayout``), or None (not planned yet, no value
        qualifies, or ASC_MODEL_ARENA=0)."""
        return self._arena_state or None

    def _dump(self, directory, stage):
        """Writes the graph at ``stage`` as ONNX (``model_<seq>_<name>_<stage>.onnx``, opens in Netron)
        and a one-line-per-node text listing (``.txt``) into ``directory``."""
        import re

        os.makedirs(directory, exist_ok=True)
        if stage.startswith("0"):
            _dump_seq[0] += 1
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.basename(self.where) or "model")[:64]
        stem = os.path.join(directory, f"model_{_dump_seq[0]:04d}_{base}_{stage}")
        with open(stem + ".onnx", "wb") as f:
            f.write(self.to_proto().SerializeToString())
        with open(stem + ".txt", "w") as f:
            f.write(f"# {self.where}: {len(self.nodes)} nodes, {len(self.constants)} constants, folded {self.folded}, "
                    f"rewrites {self.rewrites}\n")
            for n in self.nodes:
                attrs = {k: v for k, v in n.attrs.items() if not isinstance(v, np.ndarray)}
                f.write(f"{n.domain + '.' if n.domain else ''}{n.op_type} '{n.name}' {n.inputs} -> {n.outputs} {attrs}\n")

    def to_proto(self):
        """The graph as it runs (after the passes) as an onnx.ModelProto: the nodes, the constants they
        read as initializers, the graph's inputs/outputs and opset imports (pyasc's fused nodes are in
        the ``ai.pyasc`` domain, which :func:`lookup` knows)."""
        onnx = _onnx()
        from onnx import helper, numpy_helper

        g = self.proto.graph
        used = {x for n in self.nodes for x in n.inputs} | {v.name for v in self.outputs}
        inits = [numpy_helper.from_array(np.asarray(v), name) for name, v in self.constants.items() if name in used]
        nodes = [helper.make_node(n.op_type, n.inputs, n.outputs, name=n.name, domain=n.domain or None,
                                  **dict(n.attrs)) for n in self.nodes]
        keep = {v.name for v in self.inputs + self.overridable}
        graph = helper.make_graph(nodes, g.name, [vi for vi in g.input if vi.name in keep], list(g.output), inits)
        opsets = list(self.proto.opset_import)
        domains = {o.domain for o in opsets}
        for n in self.nodes:
            if n.domain and n.domain not in domains:
                opsets.append(helper.make_opsetid(n.domain, 1))
                domains.add(n.domain)
        model = helper.make_model(graph, opset_imports=opsets, producer_name="pyasc")
        model.ir_version = self.proto.ir_version
        for p in self.proto.metadata_props:
            model.metadata_props.add(key=p.key, value=p.value)
        model.model_version = self.proto.model_version
        model.doc_string = self.proto.doc_string
        return model

    @staticmethod
    def elem_type_of(dtype):
        return NAME_TO_ONNX.get(str(dtype))
