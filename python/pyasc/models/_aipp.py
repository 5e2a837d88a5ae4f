"""Static AIPP (CANN's AI pre-processing) as a fused preprocessing stage of a model.

``pyasc-atc --insert_op_conf=aipp.cfg`` reads CANN's configuration (protobuf text: ``aipp_op { ... }``
blocks of ``key : value`` lines; parsed here line by line, nothing is evaluated) and puts one
``ai.pyasc.Aipp`` node in front of the input it names (``related_input_rank``, default 0). The
model's input becomes the raw image: uint8 ``[N, src_h, src_w, 3]`` for ``RGB888_U8``,
``[N, src_h * 3 / 2, src_w, 1]`` (NV12: the Y plane, then interleaved U,V at half resolution) for
``YUV420SP_U8``. The node computes, as the AIPP unit does:

1. crop: ``load_start_pos_h/w``, ``crop_size_h/w`` (0: to the image's edge)
2. colour-space conversion (``csc_switch``) with CANN's integer formulas and 8-bit clipping:
   YUV->RGB ``out_i = clip((sum_j matrix_rIcJ * (in_j - input_bias_j)) >> 8)``,
   RGB->YUV ``out_i = clip(((sum_j matrix_rIcJ * in_j) >> 8) + output_bias_i)``;
   ``rbuv_swap_switch`` swaps R/B (RGB input) or U/V (YUV input) first
3. per channel ``(x - mean_chn_i - min_chn_i) * var_reci_chn_i``, NCHW float32 out.

All of it is one chain of pyasc elementwise ops on the cropped image (the lazy graph fuses it
into one pass). Not supported in static configurations (refused with the key named): padding,
resize (``resize``/``padding`` switches), rotation, other input formats.

Dynamic AIPP (``aipp_mode : dynamic`` with ``max_src_image_size`` bytes, ``related_input_rank``):
the image input becomes uint8 ``[N, max_src_image_size]`` and a second input,
``ascend_dynamic_aipp_data`` (ACL_DYNAMIC_AIPP_NAME, uint8 ``[DYN_HEADER.size + N * DYN_BATCH.size]``),
directly follows it. The application fills that buffer per run with the ACL setters
(``aclmdlCreateAIPP``/``aclmdlSetAIPP*``/``aclmdlSetInputAIPP``, src/runtime/acl_mdl_aipp.cc); its
layout is ours (CANN's is internal to the runtime): the little-endian records ``DYN_HEADER`` (shared
by the batch: format, source size, CSC) and ``DYN_BATCH`` per batch entry (crop, scf, padding,
mean/min/var_reci). The node applies the same formulas as the static stage, per batch entry, then
pads with zeros (padding is applied to the normalised output); the crop plus padding must give the
model input's H x W. Resize (scf) is refused.
"""

from __future__ import annotations

import re
import struct

from ._registry import op

DOMAIN = "ai.pyasc"
DYNAMIC_NAME = "ascend_dynamic_aipp_data"  # ACL_DYNAMIC_AIPP_NAME
DYN_MAGIC = b"AIPP"
# magic, batch, input_format, src_w, src_h, csc, rbuv_swap, ax_swap, matrix r0c0..r2c2,
# output_bias 0..2, input_bias 0..2, reserved  (96 bytes; mirrored by acl_mdl_aipp.cc)
DYN_HEADER = struct.Struct("<4sI22i")
# crop switch/x/y/w/h, scf switch/in_w/in_h/out_w/out_h, padding switch/top/bottom/left/right,
# mean 0..3 (int), min 0..3 (float), var_reci 0..3 (float), reserved  (112 bytes)
DYN_BATCH = struct.Struct("<15i4i4f4f1i")
ACL_FORMATS = {1: "YUV420SP_U8", 3: "RGB888_U8"}  # aclAippInputFormat values
FORMATS = ("RGB888_U8", "YUV420SP_U8")
# CANN's defaults when csc_switch is on and no matrix is given: BT.601 narrow range YUV -> BGR
_DEFAULT_CSC = {"matrix_r0c0": 298, "matrix_r0c1": 516, "matrix_r0c2": 0, "matrix_r1c0": 298,
                "matrix_r1c1": -100, "matrix_r1c2": -208, "matrix_r2c0": 298, "matrix_r2c1": 0,
                "matrix_r2c2": 409, "input_bias_0": 16, "input_bias_1": 128, "input_bias_2": 128,
                "output_bias_0": 16, "output_bias_1": 128, "output_bias_2": 128}
_INT_KEYS = {"related_input_rank", "src_image_size_w", "src_image_size_h", "load_start_pos_w", "load_start_pos_h",
             "crop_size_w", "crop_size_h", "max_src_image_size", "mean_chn_0", "mean_chn_1", "mean_chn_2", "mean_chn_3",
             *(k for k in _DEFAULT_CSC)}
_FLOAT_KEYS = {f"{p}_chn_{i}" for p in ("min", "var_reci") for i in range(4)}
_BOOL_KEYS = {"crop", "csc_switch", "rbuv_swap_switch", "ax_swap_switch", "single_line_mode"}
_ENUM_KEYS = {"aipp_mode", "input_format"}
_REFUSED = {"resize", "padding", "rotation_angle", "resize_output_w", "resize_output_h", "left_padding_size",
            "right_padding_size", "top_padding_size", "bottom_padding_size",
            "support_rotation", "related_input_name", "input_edge_idx"}


def _err(cls, msg, code="INVALID_PARAM"):
    from ..ops._util import _err as make

    return make(cls, code, f"[atc] --insert_op_conf: {msg}")


def _rerr(cls, msg, code="INVALID_PARAM"):
    from ..ops._util import _err as make

    return make(cls, code, f"[Aipp] dynamic AIPP ({DYNAMIC_NAME}): {msg}")


def parse_config(text):
    """The ``aipp_op`` blocks of an AIPP configuration as a list of dicts (typed values)."""
    blocks, cur = [], None
    for lineno, raw in enumerate(str(text).splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if re.fullmatch(r"aipp_op\s*\{", line):
            if cur is not None:
                raise _err("AscendValueError", f"line {lineno}: 'aipp_op {{' inside another aipp_op block")
            cur = {}
            continue
        if line == "}":
            if cur is None:
                raise _err("AscendValueError", f"line {lineno}: '}}' without an open aipp_op block")
            blocks.append(cur)
            cur = None
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(\S+)", line)
        if m is None or cur is None:
            raise _err("AscendValueError", f"line {lineno}: expected 'key : value' inside an aipp_op block, got "
                       f"{raw.strip()!r}")
        key, val = m.group(1), m.group(2).strip('"')
        if key in _REFUSED:
            if key in ("resize", "padding", "support_rotation") and val.lower() in ("false", "0"):
                continue
            raise _err("AscendNotImplementedError", f"line {lineno}: '{key}' is not supported (static crop, "
                       "colour conversion and normalisation are)", "FEATURE_UNSUPPORTED")
        if key not in _INT_KEYS | _FLOAT_KEYS | _BOOL_KEYS | _ENUM_KEYS:
            raise _err("AscendValueError", f"line {lineno}: unknown key '{key}'")
        try:
            if key in _INT_KEYS:
                cur[key] = int(val)
            elif key in _FLOAT_KEYS:
                cur[key] = float(val)
            elif key in _BOOL_KEYS:
                if val.lower() not in ("true", "false", "1", "0"):
                    raise ValueError
                cur[key] = val.lower() in ("true", "1")
            else:
                cur[key] = val
        except ValueError:
            raise _err("AscendValueError", f"line {lineno}: '{val}' is not a valid value for '{key}'") from None
    if cur is not None:
        raise _err("AscendValueError", "an aipp_op block is not closed ('}' missing)")
    if not blocks:
        raise _err("AscendValueError", "no aipp_op block")
    for b in blocks:
        if b.get("aipp_mode") == "dynamic":
            extra = sorted(set(b) - {"aipp_mode", "related_input_rank", "max_src_image_size"})
            if extra:
                raise _err("AscendValueError", f"aipp_mode dynamic takes only related_input_rank and "
                           f"max_src_image_size (the rest is set per run by aclmdlSetAIPP*): got {', '.join(extra)}")
            if b.get("max_src_image_size", 0) <= 0:
                raise _err("AscendValueError", "max_src_image_size must be given and > 0 for dynamic AIPP (bytes of "
                           "the largest source image)")
            continue
        if b.get("aipp_mode") != "static":
            raise _err("AscendNotImplementedError", f"aipp_mode '{b.get('aipp_mode')}': supported are 'static' and "
                       "'dynamic'", "FEATURE_UNSUPPORTED")
        if b.get("input_format") not in FORMATS:
            raise _err("AscendNotImplementedError", f"input_format '{b.get('input_format')}': supported are "
                       f"{', '.join(FORMATS)}", "FEATURE_UNSUPPORTED")
        for k in ("src_image_size_w", "src_image_size_h"):
            if b.get(k, 0) <= 0:
                raise _err("AscendValueError", f"{k} must be given and > 0 for static AIPP")
        if b["input_format"] == "YUV420SP_U8" and (b["src_image_size_w"] % 2 or b["src_image_size_h"] % 2):
            raise _err("AscendValueError", "YUV420SP_U8 needs an even src_image_size_w and src_image_size_h")
    return blocks


def resolved(cfg):
    """The block with every default filled in (crop window, matrix, channel parameters)."""
    c = dict(cfg)
    if c.get("aipp_mode") == "dynamic":
        c.setdefault("related_input_rank", 0)
        return c
    sw, sh = c["src_image_size_w"], c["src_image_size_h"]
    c.setdefault("crop", False)
    x0, y0 = (c.get("load_start_pos_w", 0), c.get("load_start_pos_h", 0)) if c["crop"] else (0, 0)
    cw = c.get("crop_size_w", 0) if c["crop"] else 0
    ch = c.get("crop_size_h", 0) if c["crop"] else 0
    cw, ch = cw or sw - x0, ch or sh - y0
    if x0 < 0 or y0 < 0 or cw <= 0 or ch <= 0 or x0 + cw > sw or y0 + ch > sh:
        raise _err("AscendValueError", f"crop window x {x0}..{x0 + cw}, y {y0}..{y0 + ch} is not inside the "
                   f"{sw}x{sh} source image")
    if c["input_format"] == "YUV420SP_U8" and (x0 % 2 or y0 % 2):
        raise _err("AscendValueError", "YUV420SP_U8 crops start at even load_start_pos_w/h")
    c.update(load_start_pos_w=x0, load_start_pos_h=y0, crop_size_w=cw, crop_size_h=ch)
    c.setdefault("csc_switch", False)
    c.setdefault("rbuv_swap_switch", False)
    for k, v in _DEFAULT_CSC.items():
        c.setdefault(k, v)
    for i in range(3):
        c.setdefault(f"mean_chn_{i}", 0)
        c.setdefault(f"min_chn_{i}", 0.0)
        c.setdefault(f"var_reci_chn_{i}", 1.0)
    c.setdefault("related_input_rank", 0)
    return c


def insert(proto, blocks):
    """Puts an Aipp node in front of each block's input (the graph's real inputs in order); returns the
    resolved configurations (with the input name) for the .om metadata."""
    import onnx
    from onnx import helper

    g = proto.graph
    inits = {t.name for t in g.initializer}
    real = [vi for vi in g.input if vi.name not in inits]
    out, seen = [], set()
    for b in blocks:
        c = resolved(b)
        rank = c["related_input_rank"]
        if not 0 <= rank < len(real) or rank in seen:
            raise _err("AscendValueError", f"related_input_rank {rank}: the model has {len(real)} input(s)"
                       + (", and that one has an aipp_op already" if rank in seen else ""))
        seen.add(rank)
        vi = real[rank]
        tt = vi.type.tensor_type
        if tt.elem_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16):
            raise _err("AscendValueError", f"input '{vi.name}' is {onnx.TensorProto.DataType.Name(tt.elem_type)}; "
                       "AIPP feeds float inputs")
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim] if tt.HasField("shape") \
            else None
        if dims is None or len(dims) != 4:
            raise _err("AscendValueError", f"input '{vi.name}' must be a 4-D NCHW tensor for AIPP (shape {dims})")
        if c.get("aipp_mode") == "dynamic":
            out.append(_insert_dynamic(proto, g, vi, dims, c))
            continue
        if dims[1] not in (None, 3) or (dims[2] not in (None, c["crop_size_h"])) or \
                (dims[3] not in (None, c["crop_size_w"])):
            raise _err("AscendValueError", f"input '{vi.name}' has shape {dims}; the AIPP output is "
                       f"[N, 3, {c['crop_size_h']}, {c['crop_size_w']}] (crop_size_h/w or src_image_size_h/w)")
        name = vi.name
        inner = f"{name}__aipp"
        for n in g.node:
            for i, x in enumerate(n.input):
                if x == name:
                    n.input[i] = inner
        for o in g.output:
            if o.name == name:
                raise _err("AscendNotImplementedError", f"input '{name}' is also a graph output", "FEATURE_UNSUPPORTED")
        batch = tt.shape.dim[0]
        sh, sw = c["src_image_size_h"], c["src_image_size_w"]
        raw = [sh, sw, 3] if c["input_format"] == "RGB888_U8" else [sh * 3 // 2, sw, 1]
        # the stage's output type (the model's input type before AIPP): aclmdlGetFirstAippInfo's srcDatatype
        c["output_dtype"] = "float16" if tt.elem_type == onnx.TensorProto.FLOAT16 else "float32"
        tt.elem_type = onnx.TensorProto.UINT8
        tt.shape.Clear()
        d0 = tt.shape.dim.add()
        d0.CopyFrom(batch)
        for v in raw:
            tt.shape.dim.add().dim_value = v
        attrs = {k: v for k, v in c.items() if k not in ("aipp_mode", "related_input_rank", "output_dtype")}
        node = helper.make_node("Aipp", [name], [inner], name=f"aipp_{name}", domain=DOMAIN, **attrs)
        g.node.insert(0, node)
        if not any(o.domain == DOMAIN for o in proto.opset_import):
            proto.opset_import.append(helper.make_opsetid(DOMAIN, 1))
        c["input"] = name
        c["input_shape"] = ["N"] + raw
        out.append(c)
    return out


def _insert_dynamic(proto, g, vi, dims, c):
    """The dynamic form: image input uint8 [N, max_src_image_size], then the parameter input."""
    import onnx
    from onnx import helper

    if any(d is None for d in dims) or dims[1] != 3:
        raise _err("AscendValueError", f"input '{vi.name}' has shape {dims}; dynamic AIPP needs a fixed "
                   "[N, 3, H, W] input (no dynamic batch or image size: the parameter buffer is sized by N)")
    if any(v.name == DYNAMIC_NAME for v in g.input):
        raise _err("AscendNotImplementedError", "one dynamic AIPP input per model is supported", "FEATURE_UNSUPPORTED")
    name = vi.name
    for o in g.output:
        if o.name == name:
            raise _err("AscendNotImplementedError", f"input '{name}' is also a graph output", "FEATURE_UNSUPPORTED")
    inner = f"{name}__aipp"
    for n in g.node:
        for i, x in enumerate(n.input):
            if x == name:
                n.input[i] = inner
    n, h, w = dims[0], dims[2], dims[3]
    tt = vi.type.tensor_type
    tt.elem_type = onnx.TensorProto.UINT8
    tt.shape.Clear()
    for v in (n, c["max_src_image_size"]):
        tt.shape.dim.add().dim_value = v
    psize = DYN_HEADER.size + n * DYN_BATCH.size
    pvi = helper.make_tensor_value_info(DYNAMIC_NAME, onnx.TensorProto.UINT8, [psize])
    pos = list(g.input).index(vi) + 1
    rest = [x for x in g.input[pos:]]
    del g.input[pos:]
    g.input.append(pvi)
    g.input.extend(rest)
    node = helper.make_node("Aipp", [name, DYNAMIC_NAME], [inner], name=f"aipp_{name}", domain=DOMAIN,
                            aipp_mode="dynamic", max_src_image_size=c["max_src_image_size"], batch=n, out_h=h,
                            out_w=w)
    g.node.insert(0, node)
    if not any(o.domain == DOMAIN for o in proto.opset_import):
        proto.opset_import.append(helper.make_opsetid(DOMAIN, 1))
    c["input"] = name
    c["input_shape"] = [n, c["max_src_image_size"]]
    c["params_input"] = DYNAMIC_NAME
    c["params_bytes"] = psize
    return c


def decode_dynamic(buf, batch):
    """The parameter buffer as a list of per-batch static-style configurations (resolved keys) plus
    padding; raises AscendValueError naming the bad field."""
    import numpy as np

    raw = np.ascontiguousarray(np.asarray(buf, dtype=np.uint8)).tobytes()
    need = DYN_HEADER.size + batch * DYN_BATCH.size
    if len(raw) != need:
        raise _rerr("AscendValueError", f"{DYNAMIC_NAME}: {len(raw)} bytes, expected {need} for batch {batch}")
    h = DYN_HEADER.unpack_from(raw, 0)
    if h[0] != DYN_MAGIC:
        raise _rerr("AscendValueError", f"{DYNAMIC_NAME} holds no parameters: set them with aclmdlSetInputAIPP "
                   "(or aclmdlSetAIPPByInputIndex) before executing")
    if h[1] != batch:
        raise _rerr("AscendValueError", f"{DYNAMIC_NAME}: parameters for batch {h[1]}, the model's batch is {batch}")
    fmt = ACL_FORMATS.get(h[2])
    if fmt is None:
        raise _rerr("AscendNotImplementedError", f"dynamic AIPP input format {h[2]}: supported are "
                   "ACL_YUV420SP_U8 (1) and ACL_RGB888_U8 (3)", "FEATURE_UNSUPPORTED")
    common = {"input_format": fmt, "src_image_size_w": h[3], "src_image_size_h": h[4], "csc_switch": bool(h[5]),
              "rbuv_swap_switch": bool(h[6]), "ax_swap_switch": bool(h[7])}
    keys = ["matrix_r0c0", "matrix_r0c1", "matrix_r0c2", "matrix_r1c0", "matrix_r1c1", "matrix_r1c2", "matrix_r2c0",
            "matrix_r2c1", "matrix_r2c2", "output_bias_0", "output_bias_1", "output_bias_2", "input_bias_0",
            "input_bias_1", "input_bias_2"]
    common.update(zip(keys, h[8:23]))
    out = []
    for i in range(batch):
        b = DYN_BATCH.unpack_from(raw, DYN_HEADER.size + i * DYN_BATCH.size)
        if b[5]:
            raise _rerr("AscendNotImplementedError", f"batch {i}: scf (resize) is not supported", "FEATURE_UNSUPPORTED")
        c = dict(common, aipp_mode="static", crop=bool(b[0]), load_start_pos_w=b[1], load_start_pos_h=b[2],
                 crop_size_w=b[3], crop_size_h=b[4])
        for j in range(3):
            c[f"mean_chn_{j}"], c[f"min_chn_{j}"], c[f"var_reci_chn_{j}"] = b[15 + j], b[19 + j], b[23 + j]
        for k in ("src_image_size_w", "src_image_size_h"):
            if c[k] <= 0:
                raise _rerr("AscendValueError", f"{k} {c[k]}: set it with aclmdlSetAIPPSrcImageSize")
        try:
            r = resolved(c)
        except Exception as e:  # the same check as static AIPP's, reported as a run-time error
            raise _rerr(type(e).__name__, f"batch {i}: {str(e).split('--insert_op_conf: ', 1)[-1]}") from None
        r["padding"] = (b[11], b[12], b[13], b[14]) if b[10] else (0, 0, 0, 0)
        out.append(r)
    return out


def _channels(a, x):
    """CANN's colour-space conversion on int32 channels [N, H, W, 3] (a list of three arrays)."""
    asc = _asc()
    ch = list(x)
    yuv_in = a["input_format"] == "YUV420SP_U8"
    if a.get("rbuv_swap_switch"):
        ch = [ch[0], ch[2], ch[1]] if yuv_in else [ch[2], ch[1], ch[0]]
    if not a.get("csc_switch"):
        return ch
    m = [[int(a[f"matrix_r{i}c{j}"]) for j in range(3)] for i in range(3)]
    res = []
    for i in range(3):
        if yuv_in:
            acc = sum(m[i][j] * (ch[j] - int(a[f"input_bias_{j}"])) for j in range(3))
            v = asc.right_shift(acc, 8)
        else:
            v = asc.right_shift(sum(m[i][j] * ch[j] for j in range(3)), 8) + int(a[f"output_bias_{i}"])
        res.append(asc.clip(v, 0, 255))
    return res


def _asc():
    import pyasc

    return pyasc


@op("Aipp", domain=DOMAIN)
def _aipp(node, inputs):
    """uint8 image [N, H, W, C] (NV12: [N, 1.5 H, W, 1]) -> the model's float32 NCHW input."""
    x = inputs[0]
    a = node.attrs
    if a.get("aipp_mode") == "dynamic":
        return _dynamic(node, inputs)
    if str(x.dtype) != "uint8" or x.ndim != 4:
        raise node.error("AscendTypeError", f"expected a uint8 [N, H, W, C] image, got {x.dtype} {tuple(x.shape)}",
                         "INVALID_DTYPE")
    return _static(x, a)


def _dynamic(node, inputs):
    """uint8 [N, max_src_image_size] + the parameter buffer -> float32 [N, 3, out_h, out_w]."""
    asc = _asc()
    x, p = inputs[0], inputs[1]
    a = node.attrs
    n, cap = int(a["batch"]), int(a["max_src_image_size"])
    oh, ow = int(a["out_h"]), int(a["out_w"])
    if str(x.dtype) != "uint8" or tuple(x.shape) != (n, cap):
        raise node.error("AscendTypeError", f"expected the uint8 image buffer [{n}, {cap}], got {x.dtype} "
                         f"{tuple(x.shape)}", "INVALID_DTYPE")
    cfgs = decode_dynamic(p, n)
    outs = []
    for i, c in enumerate(cfgs):
        sh, sw = c["src_image_size_h"], c["src_image_size_w"]
        rgb = c["input_format"] == "RGB888_U8"
        need = sh * sw * 3 if rgb else sh * sw * 3 // 2
        if c["input_format"] == "YUV420SP_U8" and (sh % 2 or sw % 2):
            raise _rerr("AscendValueError", f"batch {i}: YUV420SP_U8 needs an even source size, got {sw}x{sh}")
        if need > cap:
            raise _rerr("AscendValueError", f"batch {i}: a {sw}x{sh} {c['input_format']} image is {need} bytes, more "
                       f"than max_src_image_size {cap}")
        top, bottom, left, right = c["padding"]
        if (c["crop_size_h"] + top + bottom, c["crop_size_w"] + left + right) != (oh, ow):
            raise _rerr("AscendValueError", f"batch {i}: crop {c['crop_size_w']}x{c['crop_size_h']} plus padding "
                       f"(top {top}, bottom {bottom}, left {left}, right {right}) is not the model input's {ow}x{oh}")
        img = x[i:i + 1, :need].reshape((1, sh, sw, 3) if rgb else (1, sh * 3 // 2, sw, 1))
        y = _static(img, c)
        if top or bottom or left or right:
            y = asc.pad(y, ((0, 0), (0, 0), (top, bottom), (left, right)))
        outs.append(y)
    return outs[0] if n == 1 else asc.concatenate(outs, axis=0)


def _static(x, a):
    asc = _asc()
    sh, sw = int(a["src_image_size_h"]), int(a["src_image_size_w"])
    x0, y0 = int(a["load_start_pos_w"]), int(a["load_start_pos_h"])
    cw, ch = int(a["crop_size_w"]), int(a["crop_size_h"])
    n = x.shape[0]
    if a["input_format"] == "RGB888_U8":
        img = x[:, y0:y0 + ch, x0:x0 + cw, :].astype(asc.int32)
        chans = [img[..., 0], img[..., 1], img[..., 2]]
    else:
        y = x[:, :sh, :, 0][:, y0:y0 + ch, x0:x0 + cw].astype(asc.int32)
        uv = x[:, sh:, :, 0].reshape(n, sh // 2, sw // 2, 2)
        uv = uv[:, y0 // 2:(y0 + ch + 1) // 2, x0 // 2:(x0 + cw + 1) // 2, :].astype(asc.int32)
        h2, w2 = uv.shape[1], uv.shape[2]
        # each chroma sample covers a 2x2 block of luma samples
        up = asc.broadcast_to(uv[:, :, None, :, None, :], (n, h2, 2, w2, 2, 2)).reshape(n, 2 * h2, 2 * w2, 2)
        up = up[:, :ch, :cw, :]
        chans = [y, up[..., 0], up[..., 1]]
    chans = _channels(a, chans)
    outs = [((c.astype(asc.float32) - float(a[f"mean_chn_{i}"]) - float(a[f"min_chn_{i}"]))
             * float(a[f"var_reci_chn_{i}"])) for i, c in enumerate(chans)]
    return asc.stack(outs, axis=1)
