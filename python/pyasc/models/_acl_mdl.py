"""The Python half of the ACL model API (``acl/acl_mdl.h``).

libasc's ``aclmdl*`` functions (src/runtime/acl_mdl.cc) check handles, datasets and buffer sizes
themselves and call the bridge (src/acl_mdl_python/bridge.cc), which calls the functions here under
the interpreter's lock. Each returns ``(code, message, value)``: no exception crosses back into C;
the code is an aclError (ACL's numbers) and the message goes to ``aclGetRecentErrMsg()``.

Models run on :class:`pyasc.InferenceSession`, the one executor of ONNX and ``.om`` models (its
optimised graph, passes and oneDNN kernels). Buffers arrive as memoryviews over the caller's
memory: inputs are read in place, outputs written in place.

Thread-safety: the functions may be called from any thread; the model table is guarded by a lock
and a session may run on several threads at once.
"""

from __future__ import annotations

import os
import threading

import numpy as np

# aclError numbers (acl_base.h / acl_mdl.h).
ACL_SUCCESS = 0
ACL_ERROR_INVALID_PARAM = 100000
ACL_ERROR_INVALID_MODEL_ID = 100011
ACL_ERROR_PARSE_MODEL = 100013
ACL_ERROR_READ_MODEL_FAILURE = 100014
ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017
ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018
ACL_ERROR_BAD_ALLOC = 200000
ACL_ERROR_INTERNAL_ERROR = 500000
ACL_ERROR_GE_FAILURE = 500002

DYNAMIC_TENSOR_NAME = "ascend_mbatch_shape_data"

# numpy dtype name -> aclDataType
ACL_DTYPE = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6, "uint16": 7, "uint32": 8,
             "int64": 9, "uint64": 10, "float64": 11, "bool": 12, "complex64": 16, "complex128": 17,
             "bfloat16": 27}
# aclFormat
ACL_FORMAT = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NCDHW": 30, "NDHWC": 27}


class _Fail(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


# ModelInfo::dyn_kind (src/runtime/acl_mdl_internal.h): the .om's dynamic kind -> code
DYN_KIND = {"image": 1, "dims": 2}


class _Model:
    __slots__ = ("session", "inputs", "outputs", "gears", "dyn")

    def __init__(self, session, inputs, outputs, gears, dyn=None):
        self.session, self.inputs, self.outputs, self.gears, self.dyn = session, inputs, outputs, gears, dyn


class _Dynamic:
    """A dynamic-image-size / dynamic-dims model's gears (pyasc-atc --dynamic_image_size/--dynamic_dims):
    ``gears`` as ATC was given them, ``axes`` the (input, axis) of each -1 of --input_shape in order."""
    __slots__ = ("kind", "gears", "axes")

    def __init__(self, record):
        self.kind = record["kind"]
        self.gears = [[int(v) for v in g] for g in record["gears"]]
        self.axes = [(str(n), int(a)) for n, a in record["dims"]]

    def values(self, gear):
        """{(input, axis): size} of a gear: an image size (h, w) applies to every dynamic input's H, W."""
        if self.kind == "image":
            return {(n, a): gear[0] if a == 2 else gear[1] for n, a in self.axes}
        return dict(zip(self.axes, gear))

    def dims_at(self, t, gear):
        vals = self.values(gear)
        return [vals.get((t.name, k), d) for k, d in enumerate(t.dims)]


class _Tensor:
    """One input/output as the C side sees it."""

    __slots__ = ("name", "dims", "dtype", "acl_dtype", "format", "size", "batch_axis", "sample_bytes", "aipp")

    def as_tuple(self):
        return (self.name, list(self.dims), self.acl_dtype, self.format, self.size,
                -1 if self.batch_axis is None else self.batch_axis, self.sample_bytes, list(self.aipp or ()))


# aclAippInputFormat of the static AIPP formats pyasc-atc builds
_AIPP_FORMAT = {"YUV420SP_U8": 1, "RGB888_U8": 3}


def static_aipp_record(c):
    """A static AIPP block (resolved, as the .om's metadata keeps it) as the flat numbers the C side
    reads into aclAippInfo, in this order (src/runtime/acl_mdl.cc kAipp* indices): input format,
    src w, h, crop switch, load start w, h, crop size w, h, csc switch, rbuv swap, ax swap, single
    line mode, matrix r0c0..r2c2, output bias 0..2, input bias 0..2, mean 0..3, min 0..3, var_reci
    0..3, the stage's output aclDataType."""
    rec = [_AIPP_FORMAT.get(c.get("input_format"), 0xffff), c["src_image_size_w"], c["src_image_size_h"],
           int(bool(c.get("crop"))), c.get("load_start_pos_w", 0), c.get("load_start_pos_h", 0),
           c.get("crop_size_w", c["src_image_size_w"]), c.get("crop_size_h", c["src_image_size_h"]),
           int(bool(c.get("csc_switch"))), int(bool(c.get("rbuv_swap_switch"))), int(bool(c.get("ax_swap_switch"))),
           int(bool(c.get("single_line_mode")))]
    rec += [c.get(f"matrix_r{i}c{j}", 0) for i in range(3) for j in range(3)]
    rec += [c.get(f"output_bias_{i}", 0) for i in range(3)] + [c.get(f"input_bias_{i}", 0) for i in range(3)]
    rec += [c.get(f"mean_chn_{i}", 0) for i in range(4)]
    rec += [c.get(f"min_chn_{i}", 0.0) for i in range(4)]
    rec += [c.get(f"var_reci_chn_{i}", 1.0) for i in range(4)]
    rec.append(ACL_DTYPE[c.get("output_dtype", "float32")])
    return [float(v) for v in rec]


_models = {}
_lock = threading.Lock()


def _np_dtype(name):
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _guarded(default_code):
    """Turns the function's result into (0, '', value) and any exception into (code, message, None)."""

    def deco(fn):
        def wrapper(*args):
            try:
                return ACL_SUCCESS, "", fn(*args)
            except _Fail as e:
                return e.code, str(e), None
            except MemoryError as e:
                return ACL_ERROR_BAD_ALLOC, f"out of memory: {e}", None
            except Exception as e:  # noqa: BLE001 - every failure becomes an ACL code, never crosses into C
                msg = getattr(e, "message", None) or str(e)
                return default_code, f"{type(e).__name__}: {msg}", None

        wrapper.__name__ = fn.__name__
        wrapper.__doc__ = fn.__doc__
        return wrapper

    return deco


def _open_session(path, data):
    from .session import InferenceSession

    if path is not None:
        if not os.path.exists(path):
            raise _Fail(ACL_ERROR_READ_MODEL_FAILURE, f"model file '{path}' does not exist")
        if os.path.isdir(path) or not os.access(path, os.R_OK):
            raise _Fail(ACL_ERROR_READ_MODEL_FAILURE, f"model file '{path}' is not a readable file")
        source = path
    else:
        source = bytes(data)
    try:
        return InferenceSession(source)
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - malformed / unsupported model: the session names the defect
        msg = getattr(e, "message", None) or str(e)
        raise _Fail(ACL_ERROR_PARSE_MODEL, msg) from None


def _describe(sess):
    """The inputs/outputs as the C side sees them (a dynamic-batch model gets the extra input)."""
    meta = sess.om_metadata or {}
    dynamic = meta.get("dynamic") or None
    gears, batch_axes = [], {}
    if dynamic and dynamic.get("kind") == "batch":
        gears = [int(g[0]) for g in dynamic["gears"]]
        batch_axes = {n: int(a) for n, a in dynamic["dims"]}
    formats = {i.get("name"): i.get("format") for i in meta.get("inputs", []) if isinstance(i, dict)}
    statics = {c.get("input"): c for c in (meta.get("aipp") or []) if isinstance(c, dict) and c.get("aipp_mode",
                                                                                                    "static") == "static"}
    top = max(gears) if gears else 0
    batch_syms = set()
    for vi in sess._model.inputs:
        ax = batch_axes.get(vi.name)
        if ax is not None and vi.shape is not None and ax < len(vi.shape) and isinstance(vi.shape[ax], str):
            batch_syms.add(vi.shape[ax])

    def tensor(vi, is_input):
        t = _Tensor()
        t.name = vi.name
        t.dtype = vi.dtype
        t.acl_dtype = ACL_DTYPE.get(vi.dtype, -1)
        shape = vi.shape if vi.shape is not None else []
        t.dims = [d if isinstance(d, int) else -1 for d in shape]
        t.batch_axis = None
        st = statics.get(vi.name) if is_input else None
        t.aipp = static_aipp_record(st) if st is not None and "src_image_size_w" in st else []
        if gears:
            if is_input:
                t.batch_axis = batch_axes.get(vi.name)
            elif shape and not isinstance(shape[0], int) and (shape[0] in batch_syms or shape[0] is None):
                t.batch_axis = 0  # the outputs follow the inputs' batch symbol
        fmt = formats.get(vi.name) if is_input else None
        t.format = ACL_FORMAT.get(fmt or ("NCHW" if len(t.dims) == 4 else "ND"), ACL_FORMAT["ND"])
        item = _np_dtype(vi.dtype).itemsize if vi.dtype else 0
        rest = [d for i, d in enumerate(t.dims) if i != t.batch_axis]
        known = vi.shape is not None and all(d >= 0 for d in rest)
        t.sample_bytes = int(np.prod(rest, dtype=np.int64)) * item if known and t.batch_axis is not None else 0
        if t.batch_axis is not None and known:
            t.size = t.sample_bytes * top
        elif known and all(d >= 0 for d in t.dims):
            t.size = int(np.prod(t.dims, dtype=np.int64)) * item
        else:
            t.size = 0  # symbolic: sized by the caller's buffer
        return t

    inputs = [tensor(vi, True) for vi in sess._model.inputs]
    outputs = [tensor(vi, False) for vi in sess._model.outputs]
    dyn = _Dynamic(dynamic) if dynamic and dynamic.get("kind") in DYN_KIND else None
    if dyn is not None:  # each input's size: its largest gear's
        for t in inputs:
            sizes = [_nbytes(dyn.dims_at(t, g), t.dtype) for g in dyn.gears]
            t.size = max(sizes) if all(n is not None for n in sizes) else 0
    if gears or dyn is not None:
        width = len(dyn.gears[0]) if dyn is not None else 1
        d = _Tensor()
        d.name, d.dims, d.dtype, d.acl_dtype = DYNAMIC_TENSOR_NAME, [width], "int64", ACL_DTYPE["int64"]
        d.format, d.size, d.batch_axis, d.sample_bytes, d.aipp = ACL_FORMAT["ND"], 8 * width, None, 0, []
        inputs.append(d)
    return inputs, outputs, gears, dyn


def _nbytes(dims, dtype):
    """Bytes of a tensor, None while a dim is unknown."""
    if any(d < 0 for d in dims):
        return None
    return int(np.prod(dims, dtype=np.int64)) * _np_dtype(dtype).itemsize


def _dyn_record(inputs, dyn):
    """(kind, gears, per gear every data input's dims concatenated) for ModelInfo (bridge.cc parse_dynamic)."""
    if dyn is None:
        return (0, [], [])
    data = [t for t in inputs if t.name != DYNAMIC_TENSOR_NAME]
    return (DYN_KIND[dyn.kind], dyn.gears, [sum((dyn.dims_at(t, g) for t in data), []) for g in dyn.gears])


def _sizes_dynamic(sess, inputs, outputs, dyn, weight):
    """(work, weight) of a dynamic-image-size / dims model: the model runs once per gear on zeros; an
    output's size is its largest gear's, its dims -1 where the gears differ."""
    names = [v.name for v in sess._model.outputs]
    data = [t for t in inputs if t.name != DYNAMIC_TENSOR_NAME]
    from ._memplan import plan

    seen, work = [[] for _ in outputs], 0
    for g in dyn.gears:
        feed = {}
        for t in data:
            dims = dyn.dims_at(t, g)
            if any(d < 0 for d in dims):
                return 0, weight  # a dim the gears do not fix: no plan ahead of the first run
            feed[t.name] = np.zeros(dims, _np_dtype(t.dtype))
        sizes = {}
        for k, o in enumerate(sess._model.run(sess._feeds(feed), names, sizes)):
            seen[k].append([int(d) for d in o.shape])
        # the work memory: the largest gear's static plan (the session's own plan stays the first run's)
        m = sess._model
        work = max(work, plan(sizes, m.last_use, len(m.nodes), set(names)).peak_bytes)
    for t, shapes in zip(outputs, seen):
        if len({len(sh) for sh in shapes}) != 1:
            continue
        t.dims = [c[0] if len(set(c)) == 1 else -1 for c in zip(*shapes)]
        t.size = max(_nbytes(sh, t.dtype) for sh in shapes)
    return int(work), weight


def _sizes(sess, inputs, outputs, gears, dyn=None):
    """(work, weight) bytes. Runs the model once on zeros (the largest gear) when the inputs' dims
    are known: the static memory plan comes from that run, and outputs whose dims the graph leaves
    symbolic take the run's dims (a dim equal to the largest gear where the graph has a symbol is
    the batch axis)."""
    weight = int(sum(np.asarray(v).nbytes for v in sess._model.constants.values()))
    if dyn is not None:
        return _sizes_dynamic(sess, inputs, outputs, dyn, weight)
    top = max(gears) if gears else 0
    feed = _zeros(inputs, top)
    if feed is None:
        return 0, weight
    sizes = {}
    names = [v.name for v in sess._model.outputs]
    results = sess._model.run(sess._feeds(feed), names, sizes)
    sess._set_plan(sizes)
    for t, o in zip(outputs, results):
        shape = [int(d) for d in o.shape]
        if t.size or len(shape) != len(t.dims):
            continue
        item = _np_dtype(t.dtype).itemsize
        if gears and t.dims and t.dims[0] < 0 and shape[0] == top:
            t.batch_axis = 0
            t.sample_bytes = int(np.prod(shape[1:], dtype=np.int64)) * item
            t.dims = [-1] + [d if d >= 0 else shape[k + 1] for k, d in enumerate(t.dims[1:])]
            t.size = t.sample_bytes * top
        elif not gears:
            t.dims = shape
            t.size = int(np.prod(shape, dtype=np.int64)) * item
    return int(sess.peak_bytes), weight


def _zeros(inputs, batch):
    feed = {}
    for t in inputs:
        if t.name == DYNAMIC_TENSOR_NAME:
            continue
        if t.name == "ascend_dynamic_aipp_data":
            return None  # dynamic AIPP: zeros are no valid parameters (set per run); no plan ahead
        dims = list(t.dims)
        if t.batch_axis is not None:
            dims[t.batch_axis] = batch
        if any(d < 0 for d in dims):
            return None  # symbolic dims: no plan ahead of the first run
        feed[t.name] = np.zeros(dims, _np_dtype(t.dtype))
    return feed


@_guarded(ACL_ERROR_PARSE_MODEL)
def load(path, data, model_id):
    """Loads a model for id ``model_id``; returns (inputs, outputs, gears, work, weight) with each
    tensor as (name, dims, aclDataType, aclFormat, bytes, batch axis or -1, bytes per batch entry), and
    the dynamic image size / dims record (_dyn_record)."""
    sess = _open_session(path, data)
    inputs, outputs, gears, dyn = _describe(sess)
    work, weight = _sizes(sess, inputs, outputs, gears, dyn)
    with _lock:
        _models[int(model_id)] = _Model(sess, inputs, outputs, gears, dyn)
    return ([t.as_tuple() for t in inputs], [t.as_tuple() for t in outputs], gears, work, weight,
            _dyn_record(inputs, dyn))


@_guarded(ACL_ERROR_PARSE_MODEL)
def query_size(path, data):
    """(work bytes, weight bytes) of a model file / image: its static memory plan's peak for the largest
    gear and its constants."""
    sess = _open_session(path, data)
    return _sizes(sess, *_describe(sess))


@_guarded(ACL_ERROR_INTERNAL_ERROR)
def unload(model_id):
    """Forgets the model (its session's memory goes back to the pool)."""
    with _lock:
        if _models.pop(int(model_id), None) is None:
            raise _Fail(ACL_ERROR_INVALID_MODEL_ID, f"model id {model_id} is not loaded")


@_guarded(ACL_ERROR_GE_FAILURE)
def execute(model_id, inputs, outputs, batch):
    """Runs the model on the input memoryviews (exactly the bytes to read) into the output
    memoryviews (their whole capacity); returns the outputs' dims."""
    with _lock:
        m = _models.get(int(model_id))
    if m is None:
        raise _Fail(ACL_ERROR_INVALID_MODEL_ID, f"model id {model_id} is not loaded")
    feed = {}
    data_inputs = [t for t in m.inputs if t.name != DYNAMIC_TENSOR_NAME]
    # dynamic image size / dims: the last view is the dynamic input (the gear, checked by aclmdlExecute)
    gear = np.frombuffer(inputs[-1], np.int64, count=len(m.dyn.gears[0])).tolist() if m.dyn is not None else None
    for i, (t, mv) in enumerate(zip(data_inputs, inputs)):
        dt = _np_dtype(t.dtype)
        dims = list(t.dims) if gear is None else m.dyn.dims_at(t, gear)
        if t.batch_axis is not None and batch:
            dims[t.batch_axis] = int(batch)
        unknown = [k for k, d in enumerate(dims) if d < 0]
        if len(unknown) > 1:
            raise _Fail(ACL_ERROR_MODEL_INPUT_NOT_MATCH, f"input {i} ('{t.name}') has dims {t.dims} with more than "
                        "one unknown: convert the model with pyasc-atc --input_shape to fix them")
        known = int(np.prod([d for d in dims if d >= 0], dtype=np.int64)) * dt.itemsize
        if unknown:
            if known == 0 or len(mv) % known:
                raise _Fail(ACL_ERROR_MODEL_INPUT_NOT_MATCH, f"input {i} ('{t.name}'): {len(mv)} bytes do not "
                            f"fill dims {t.dims} of {dt.name}")
            dims[unknown[0]] = len(mv) // known
        count = int(np.prod(dims, dtype=np.int64))
        feed[t.name] = np.frombuffer(mv, dtype=dt, count=count).reshape(dims)
    results = m.session.run(None, feed)
    dims_out = []
    for i, (o, mv) in enumerate(zip(results, outputs)):
        o = np.ascontiguousarray(o)
        if o.nbytes > len(mv):
            raise _Fail(ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, f"output {i} ('{m.outputs[i].name}') is {o.nbytes} bytes "
                        f"(dims {list(o.shape)}); its buffer holds {len(mv)}")
        if o.nbytes:
            np.frombuffer(mv, dtype=np.uint8, count=o.nbytes)[...] = o.reshape(-1).view(np.uint8)
        dims_out.append([int(d) for d in o.shape])
    return dims_out


def loaded_models():
    """Ids of the models loaded through the C API (for tests and diagnostics)."""
    with _lock:
        return sorted(_models)
