"""Model conversion as ``pyasc-atc`` and ``asc.save_as_om`` do it: ATC's options applied to an ONNX graph.

:func:`convert` takes an ONNX model (path, bytes, ``onnx.ModelProto``) and ATC's options, rewrites
the graph before it is loaded -- fixed or dynamic input shapes (``input_shape``, the dynamic
gears), output nodes (``out_nodes``, with the nodes no output needs removed), a static AIPP stage
(``insert_op_conf``, models/_aipp.py) -- then loads and optimises it
(:class:`~pyasc.models._onnx_model.Model`: constant folding, BatchNorm folding, conv fusion) and
returns ``(meta, onnx bytes)`` for :func:`pyasc.models.om.pack`.

Errors are ``AscendValueError`` / ``AscendNotImplementedError`` naming the option and the value,
worded so ``pyasc-atc`` can print them after ATC's failure line.
"""

from __future__ import annotations

import os
import re

PRECISION_MODES = ("force_fp32", "force_fp16", "allow_mix_precision", "allow_fp32_to_fp16", "must_keep_origin_dtype")
# the dtype the float operators compute in, per mode. This CPU device keeps float32 for every
# mode: its conv/matmul kernels (oneDNN) have no faster float16/bfloat16 path without AVX-512
# BF16/FP16 or AMX, so a lower precision would be slower and less exact. The mode is recorded in
# the .om and reported; docs/models.md ("precision_mode") says so.
_COMPUTE = {m: "float32" for m in PRECISION_MODES}


def _err(cls, msg, code="INVALID_PARAM"):
    from ..ops._util import _err as make

    return make(cls, code, f"[atc] {msg}")


def precision_dtype(mode):
    """The compute dtype of ``mode`` (one of ATC's --precision_mode values)."""
    if mode not in _COMPUTE:
        raise _err("AscendValueError", f"--precision_mode: '{mode}' is not one of {', '.join(PRECISION_MODES)}")
    return _COMPUTE[mode]


# ------------------------------------------------------------------ input shapes

_DIM = re.compile(r"^(-1|\d+|\d+~\d+)$")


def parse_input_shape(text):
    """ATC's ``"name:1,3,224,224;name2:1,10"`` -> {name: [dims]}: ints, -1 (dynamic) or "lo~hi" (a range,
    kept as a symbolic dim). A name may itself contain ':' (the last one separates the dims)."""
    if isinstance(text, dict):
        return {str(k): [d if isinstance(d, str) else int(d) for d in v] for k, v in text.items()}
    out = {}
    for part in str(text).split(";"):
        part = part.strip()
        if not part:
            continue
        if ":" not in part:
            raise _err("AscendValueError", f"--input_shape: '{part}' is not name:dims (e.g. \"input:1,3,224,224\")")
        name, dims = part.rsplit(":", 1)
        vals = []
        for d in dims.split(","):
            d = d.strip()
            if not _DIM.match(d):
                raise _err("AscendValueError", f"--input_shape: dimension '{d}' of input '{name}' is not a "
                           "non-negative integer, -1 or a range lo~hi")
            vals.append(d if "~" in d else int(d))
        if name in out:
            raise _err("AscendValueError", f"--input_shape: input '{name}' is given twice")
        out[name] = vals
    if not out:
        raise _err("AscendValueError", "--input_shape is empty")
    return out


def format_input_shape(shapes):
    """{name: [dims]} -> ATC's string."""
    return ";".join(f"{k}:{','.join(str(d) for d in v)}" for k, v in shapes.items())


def _gears(text, option, width=None):
    """'1,2,4' (width None: one value per gear) or '224,224;448,448' -> list of gears (lists of ints)."""
    gears = []
    for g in str(text).split(";" if width != 1 else ","):
        g = g.strip()
        if not g:
            continue
        try:
            vals = [int(v) for v in g.split(",")] if width != 1 else [int(g)]
        except ValueError:
            raise _err("AscendValueError", f"--{option}: '{g}' is not a list of integers") from None
        if any(v <= 0 for v in vals):
            raise _err("AscendValueError", f"--{option}: gear '{g}' has a value <= 0")
        gears.append(vals)
    if not gears:
        raise _err("AscendValueError", f"--{option} is empty")
    if len({tuple(g) for g in gears}) != len(gears):
        raise _err("AscendValueError", f"--{option}: a gear is repeated in '{text}'")
    if len({len(g) for g in gears}) != 1:
        raise _err("AscendValueError", f"--{option}: the gears of '{text}' have different lengths")
    if len(gears) > 100:
        raise _err("AscendValueError", f"--{option}: {len(gears)} gears, at most 100")
    return gears


def _apply_shapes(proto, shapes, dynamic):
    """Fixes the graph inputs' dims to ``shapes``; -1/range dims become symbolic. Returns the dynamic
    record ({kind, gears, dims: [(input, axis)]}) or None; checks the gears against the -1 dims."""
    g = proto.graph
    inits = {t.name for t in g.initializer}
    inputs = {vi.name: vi for vi in g.input if vi.name not in inits}
    unknown = [n for n in shapes if n not in inputs]
    if unknown:
        raise _err("AscendValueError", f"--input_shape: {unknown} not among the model's inputs {sorted(inputs)}")
    dyn_dims = []  # (input, axis) of each -1 in order
    for name, dims in shapes.items():
        vi = inputs[name]
        tt = vi.type.tensor_type
        have = len(tt.shape.dim) if tt.HasField("shape") else None
        if have is not None and have != len(dims):
            raise _err("AscendValueError", f"--input_shape: input '{name}' has rank {have}, the shape given "
                       f"({','.join(map(str, dims))}) rank {len(dims)}")
        old = list(tt.shape.dim) if have is not None else [None] * len(dims)
        for axis, (d, o) in enumerate(zip(dims, old)):
            if isinstance(d, int) and d >= 0 and o is not None and o.HasField("dim_value") and o.dim_value != d:
                raise _err("AscendValueError", f"--input_shape: input '{name}' axis {axis} is fixed at "
                           f"{o.dim_value} in the model, not {d}")
        tt.shape.Clear()
        for axis, d in enumerate(dims):
            dim = tt.shape.dim.add()
            if isinstance(d, int) and d >= 0:
                dim.dim_value = d
            else:
                dim.dim_param = f"{name}_dim{axis}"
                if d == -1:
                    dyn_dims.append((name, axis))
    if not dynamic:
        return None
    kind, text = dynamic
    if kind == "batch":
        gears = [[v] for v in sum(_gears(text, "dynamic_batch_size", 1), [])]
        bad = [(n, a) for n, a in dyn_dims if a != 0]
        if not dyn_dims or bad:
            raise _err("AscendValueError", "--dynamic_batch_size needs --input_shape with -1 as the batch (first) "
                       f"dimension and nowhere else (-1 at {dyn_dims or 'no dimension'})")
        width = 1
    elif kind == "image":
        gears = _gears(text, "dynamic_image_size", 2)
        names = {n for n, _ in dyn_dims}
        if len(gears[0]) != 2 or not dyn_dims or any(sorted(a for m, a in dyn_dims if m == n) != [2, 3]
                                                     for n in names):
            raise _err("AscendValueError", "--dynamic_image_size needs --input_shape with -1 as the H and W "
                       f"dimensions (axes 2 and 3) of NCHW inputs, and gears 'h,w;h,w' (-1 at {dyn_dims})")
        width = 2
    else:
        gears = _gears(text, "dynamic_dims", None)
        width = len(dyn_dims)
        if not dyn_dims or len(gears[0]) != width:
            raise _err("AscendValueError", f"--dynamic_dims: each gear gives one value per -1 of --input_shape "
                       f"({width} of them), got {len(gears[0])}")
    return {"kind": kind, "gears": gears, "dims": [[n, a] for n, a in dyn_dims], "width": width}


def gear_of(dynamic, feeds_shapes):
    """The gear (list) that the fed shapes ({input: shape}) select, or raises naming the shapes."""
    dims = dynamic["dims"]
    vals = [int(feeds_shapes[n][a]) for n, a in dims if n in feeds_shapes]
    if dynamic["kind"] == "batch":
        key = [vals[0]] if vals else []
        if vals and len(set(vals)) != 1:
            raise _err("AscendValueError", f"dynamic batch: the inputs' batch sizes differ ({vals})", "INVALID_SHAPE")
    elif dynamic["kind"] == "image":
        key = vals[:2]
        if len(set(map(tuple, zip(vals[0::2], vals[1::2])))) > 1:
            raise _err("AscendValueError", f"dynamic image size: the inputs' H,W differ ({vals})", "INVALID_SHAPE")
    else:
        key = vals
    if key not in dynamic["gears"]:
        raise _err("AscendValueError", f"dynamic {dynamic['kind']}: the input shapes select {key}, which is not "
                   f"one of the gears the model was built with {dynamic['gears']}", "INVALID_SHAPE")
    return key


# ------------------------------------------------------------------ outputs

def _apply_out_nodes(proto, text):
    """ATC's ``--out_nodes="node:0;node2:1"`` (a node name and output index; a bare name is a tensor
    name) -> the graph's outputs; removes the nodes no output needs."""
    import onnx
    from onnx import helper

    g = proto.graph
    by_node = {n.name: n for n in g.node if n.name}
    produced = {o for n in g.node for o in n.output if o}
    wanted = []
    for part in str(text).split(";"):
        part = part.strip()
        if not part:
            continue
        name, _, idx = part.rpartition(":")
        if name and idx.isdigit():
            node = by_node.get(name)
            if node is None:
                raise _err("AscendValueError", f"--out_nodes: no node named '{name}' in the model")
            if int(idx) >= len(node.output) or not node.output[int(idx)]:
                raise _err("AscendValueError", f"--out_nodes: node '{name}' has {len(node.output)} output(s), "
                           f"no output {idx}")
            wanted.append(node.output[int(idx)])
        else:
            if part not in produced:
                raise _err("AscendValueError", f"--out_nodes: '{part}' is neither node:index nor a tensor the model "
                           "computes")
            wanted.append(part)
    if not wanted:
        raise _err("AscendValueError", "--out_nodes is empty")
    try:
        inferred = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # noqa: BLE001 - only types are wanted; without them the outputs are float
        inferred = proto
    types = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    outs = []
    for w in dict.fromkeys(wanted):
        vi = types.get(w)
        outs.append(vi if vi is not None else helper.make_tensor_value_info(w, onnx.TensorProto.FLOAT, None))
    del g.output[:]
    g.output.extend(outs)
    # keep only what the outputs need (walk back from them)
    need = set(wanted)
    keep = []
    for n in reversed(list(g.node)):
        if any(o in need for o in n.output):
            keep.append(n)
            need.update(x for x in n.input if x)
    keep.reverse()
    del g.node[:]
    g.node.extend(keep)
    used = {x for n in keep for x in n.input} | set(wanted)
    live = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(live)
    return list(dict.fromkeys(wanted))


# ------------------------------------------------------------------ conversion

def load_proto(source):
    """An onnx.ModelProto from a path, bytes or ModelProto (errors as InferenceSession's)."""
    import onnx

    from ._onnx_model import Model

    if isinstance(source, onnx.ModelProto):
        p = onnx.ModelProto()
        p.CopyFrom(source)
        return p
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise _err("AscendValueError", f"--model: file '{path}' does not exist", "INVALID_FILE")
        with open(path, "rb") as f:
            proto = Model._parse(f.read(), path)
        if any(t.data_location == onnx.TensorProto.EXTERNAL for t in proto.graph.initializer):
            from onnx.external_data_helper import load_external_data_for_model

            load_external_data_for_model(proto, os.path.dirname(os.path.abspath(path)))
        return proto
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Model._parse(bytes(source), "<bytes>")
    raise _err("AscendTypeError", f"a model is a path, bytes or onnx.ModelProto, not {type(source).__name__}")


def convert(source, *, source_name, producer, options=None, input_shape=None, precision_mode=None,
            soc_version=None, input_format=None, dynamic=None, aipp_config=None, out_nodes=None):
    """(meta, onnx bytes) of the optimised model with ATC's options applied (see the module docstring).

    ``dynamic``: None or (kind, text) with kind 'batch' | 'image' | 'dims' and ATC's gear string.
    ``aipp_config``: the text of an --insert_op_conf file (static or dynamic AIPP).
    """
    from . import _aipp, om
    from ._onnx_model import Model

    mode = precision_mode or "must_keep_origin_dtype"
    precision_dtype(mode)
    proto = load_proto(source)
    shapes = parse_input_shape(input_shape) if input_shape is not None else None
    if dynamic and shapes is None:
        raise _err("AscendValueError", f"--dynamic_{'batch_size' if dynamic[0] == 'batch' else dynamic[0] + '_size' if dynamic[0] == 'image' else 'dims'} "
                   "needs --input_shape with -1 for the dynamic dimensions")
    dyn = _apply_shapes(proto, shapes, dynamic) if shapes is not None else None
    outs = _apply_out_nodes(proto, out_nodes) if out_nodes else None
    aipp = None
    if aipp_config is not None:
        if dyn is not None and dyn["kind"] == "image":
            raise _err("AscendNotImplementedError", "--insert_op_conf with --dynamic_image_size (dynamic AIPP) is "
                       "not supported", "FEATURE_UNSUPPORTED")
        aipp = _aipp.insert(proto, _aipp.parse_config(aipp_config))
    fmt = None
    if input_format:
        if input_format not in ("NCHW", "NHWC", "ND", "NCDHW", "NDHWC"):
            raise _err("AscendValueError", f"--input_format: '{input_format}' is not one of NCHW, NHWC, ND, NCDHW, "
                       "NDHWC")
        fmt = {vi.name: input_format for vi in proto.graph.input}
    if aipp:
        fmt = dict(fmt or {})
        for a in aipp:
            fmt[a["input"]] = "NHWC"
    model = Model(proto, optimize=True, where=source_name)
    return om.build(model, producer=producer, source_name=source_name, options=options, precision_mode=mode,
                    soc_version=soc_version, input_format=fmt, dynamic=dyn, aipp=aipp, out_nodes=outs)
