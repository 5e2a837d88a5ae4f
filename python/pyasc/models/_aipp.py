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
into one pass). Not supported (refused with the key named): dynamic AIPP, padding, resize
(``resize``/``padding`` switches), rotation, other input formats.
"""

from __future__ import annotations

import re

from ._registry import op

DOMAIN = "ai.pyasc"
FORMATS = ("RGB888_U8", "YUV420SP_U8")
# CANN's defaults when csc_switch is on and no matrix is given: BT.601 narrow range YUV -> BGR
_DEFAULT_CSC = {"matrix_r0c0": 298, "matrix_r0c1": 516, "matrix_r0c2": 0, "matrix_r1c0": 298,
                "matrix_r1c1": -100, "matrix_r1c2": -208, "matrix_r2c0": 298, "matrix_r2c1": 0,
                "matrix_r2c2": 409, "input_bias_0": 16, "input_bias_1": 128, "input_bias_2": 128,
                "output_bias_0": 16, "output_bias_1": 128, "output_bias_2": 128}
_INT_KEYS = {"related_input_rank", "src_image_size_w", "src_image_size_h", "load_start_pos_w", "load_start_pos_h",
             "crop_size_w", "crop_size_h", "mean_chn_0", "mean_chn_1", "mean_chn_2", "mean_chn_3",
             *(k for k in _DEFAULT_CSC)}
_FLOAT_KEYS = {f"{p}_chn_{i}" for p in ("min", "var_reci") for i in range(4)}
_BOOL_KEYS = {"crop", "csc_switch", "rbuv_swap_switch", "ax_swap_switch", "single_line_mode"}
_ENUM_KEYS = {"aipp_mode", "input_format"}
_REFUSED = {"resize", "padding", "rotation_angle", "resize_output_w", "resize_output_h", "left_padding_size",
            "right_padding_size", "top_padding_size", "bottom_padding_size", "max_src_image_size",
            "support_rotation", "related_input_name", "input_edge_idx"}


def _err(cls, msg, code="INVALID_PARAM"):
    from ..ops._util import _err as make

    return make(cls, code, f"[atc] --insert_op_conf: {msg}")


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
        if b.get("aipp_mode") != "static":
            raise _err("AscendNotImplementedError", f"aipp_mode '{b.get('aipp_mode')}': only 'static' is supported",
                       "FEATURE_UNSUPPORTED")
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
        tt.elem_type = onnx.TensorProto.UINT8
        tt.shape.Clear()
        d0 = tt.shape.dim.add()
        d0.CopyFrom(batch)
        for v in raw:
            tt.shape.dim.add().dim_value = v
        attrs = {k: v for k, v in c.items() if k not in ("aipp_mode", "related_input_rank")}
        node = helper.make_node("Aipp", [name], [inner], name=f"aipp_{name}", domain=DOMAIN, **attrs)
        g.node.insert(0, node)
        if not any(o.domain == DOMAIN for o in proto.opset_import):
            proto.opset_import.append(helper.make_opsetid(DOMAIN, 1))
        c["input"] = name
        c["input_shape"] = ["N"] + raw
        out.append(c)
    return out


def _channels(node, x):
    """CANN's colour-space conversion on int32 channels [N, H, W, 3] (a list of three arrays)."""
    asc = _asc()
    a = node.attrs
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
    asc = _asc()
    x = inputs[0]
    a = node.attrs
    if str(x.dtype) != "uint8" or x.ndim != 4:
        raise node.error("AscendTypeError", f"expected a uint8 [N, H, W, C] image, got {x.dtype} {tuple(x.shape)}",
                         "INVALID_DTYPE")
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
    chans = _channels(node, chans)
    outs = [((c.astype(asc.float32) - float(a[f"mean_chn_{i}"]) - float(a[f"min_chn_{i}"]))
             * float(a[f"var_reci_chn_{i}"])) for i, c in enumerate(chans)]
    return asc.stack(outs, axis=1)
