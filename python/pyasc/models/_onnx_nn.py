"""ONNX neural-network ops over ``asc.ops``: convolution, pooling, normalisation, activations.

ONNX pads are (begin_1, ..., begin_n, end_1, ..., end_n) and may be asymmetric or
come from ``auto_pad``; torch-style ``asc.ops`` take one symmetric padding per
axis, so asymmetric (or over-large) pads are applied to the input first.
"""

from __future__ import annotations

import math

import numpy as np

from ._registry import Node, op


def _asc():
    import pyasc

    return pyasc


def _spatial(x, node):
    n = x.ndim - 2
    if n < 1 or n > 3:
        raise node.error("AscendValueError", f"input of shape {tuple(x.shape)} needs 1 to 3 spatial axes "
                                             "(N, C, D1, ...)", "INVALID_SHAPE")
    return n


def _auto_pad(node):
    p = node.attr("auto_pad", "NOTSET")
    return p.decode() if isinstance(p, bytes) else p


def _pads(node, in_sizes, kernel, strides, dilations):
    """(begins, ends) of a Conv/Pool node from ``pads`` / ``auto_pad``."""
    n = len(in_sizes)
    mode = _auto_pad(node)
    if mode in ("SAME_UPPER", "SAME_LOWER"):
        begins, ends = [], []
        for i in range(n):
            out = -(-in_sizes[i] // strides[i])
            total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in_sizes[i])
            small = total // 2
            b = small if mode == "SAME_UPPER" else total - small
            begins.append(b)
            ends.append(total - b)
        return begins, ends
    if mode == "VALID":
        return [0] * n, [0] * n
    if mode != "NOTSET":
        raise node.error("AscendValueError", f"auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got {mode!r}")
    pads = list(node.attr("pads", [0] * (2 * n)))
    if len(pads) != 2 * n:
        raise node.error("AscendValueError", f"pads {pads} must have 2 x {n} entries")
    return pads[:n], pads[n:]


def _pad_input(x, begins, ends, value=0.0):
    """x padded on its trailing spatial axes (begins/ends in axis order)."""
    if not any(begins) and not any(ends):
        return x
    width = [(0, 0), (0, 0)] + list(zip(begins, ends))
    if value == 0.0:
        return _asc().pad(x, width)
    return _asc().pad(x, width, constant_values=value)


def _ints(node, key, n, default):
    v = node.attr(key)
    return [default] * n if v is None else [int(e) for e in v]


# ------------------------------------------------------------------ convolution


def _conv_node(node, inputs, activation=None, alpha=0.0, residual=None):
    asc = _asc()
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    n = _spatial(x, node)
    kernel = list(w.shape[2:])
    strides, dil = _ints(node, "strides", n, 1), _ints(node, "dilations", n, 1)
    begins, ends = _pads(node, list(x.shape[2:]), kernel, strides, dil)
    if residual is not None:
        sp = [(x.shape[2 + i] + begins[i] + ends[i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1
              for i in range(n)]
        if tuple(residual.shape) != (x.shape[0], w.shape[0], *sp) or residual.dtype != x.dtype:
            # the residual Add broadcasts (or promotes): run the ops the pass fused, one by one
            y = _conv_node(node, inputs)
            return _apply_act(y + residual, activation, alpha)
    padding = begins
    if begins != ends:
        x, padding = _pad_input(x, begins, ends), [0] * n
    fn = (asc.ops.conv1d, asc.ops.conv2d, asc.ops.conv3d)[n - 1]
    kw = {}
    if activation is not None:
        kw["activation"] = activation
        if activation in ("leaky_relu", "elu"):
            kw["negative_slope"] = alpha
    if residual is not None:
        kw["residual"] = residual
    return fn(x, w, b, stride=strides, padding=padding, dilation=dil, groups=node.attr("group", 1), **kw)


def _apply_act(y, activation, alpha):
    asc = _asc()
    if activation is None:
        return y
    if activation == "relu":
        return asc.ops.relu(y)
    if activation == "relu6":
        return asc.ops.relu6(y)
    if activation == "leaky_relu":
        return asc.ops.leaky_relu(y, alpha)
    if activation == "elu":
        return asc.ops.elu(y, alpha)
    if activation in ("gelu", "gelu_tanh"):
        return asc.ops.gelu(y, approximate="tanh" if activation == "gelu_tanh" else "none")
    return getattr(asc.ops, activation)(y)


@op("Conv")
def _conv(node, inputs):
    return _conv_node(node, inputs)


@op("FusedConv", domain="ai.pyasc")
def _fused_conv(node, inputs):
    """act(Conv(x, W, b) + residual): Conv's attributes plus ``activation`` / ``activation_alpha``;
    inputs (X, W, B or '', residual or '') -- written by the fuse_conv pass (models/_passes.py).
    ``in_block`` / ``out_block`` (assign_layouts): C0 when X / the output (and the residual) are in
    the channel-blocked NC1HWC0 layout (N, C / C0, H, W, C0), 0 for NCHW."""
    ins = list(inputs[:3])
    if ins[2] is None:
        ins = ins[:2]
    res = inputs[3] if len(inputs) > 3 else None
    act, alpha = node.attr("activation"), node.attr("activation_alpha", 0.0)
    if node.attr("in_block", 0) or node.attr("out_block", 0):
        return _conv_blocked(node, ins, act, alpha, res)
    return _conv_node(node, ins, act, alpha, res)


def _fused_conv_prepare(node, inputs):
    """FusedConv's prepared call (Model.run): for a node with an NC1HWC0 operand, the oneDNN call
    with every argument derived once from these inputs' shapes (pads, strides, activation, ...).
    It runs while the data input has the same shape and dtype, the weights and bias are the same
    arrays and the residual has the output's shape; otherwise it returns None (the handler runs)."""
    from .. import _C

    if not (node.attr("in_block", 0) or node.attr("out_block", 0)):
        return None
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    res = inputs[3] if len(inputs) > 3 else None
    rshape, tail = _blocked_conv_args(node, x, w, node.attr("activation"), node.attr("activation_alpha", 0.0),
                                      res is not None)
    xshape, xdtype = tuple(x.shape), x.dtype
    if res is not None and (tuple(res.shape) != rshape or res.dtype != xdtype):
        return None  # the broadcasting residual's fallback
    conv = _C.nn.conv
    with_res = res is not None

    def run(ins, out=None):
        xx = ins[0]
        r = ins[3] if len(ins) > 3 else None
        if (ins[1] is not w or (ins[2] if len(ins) > 2 else None) is not b or (r is not None) != with_res
                or xx.shape != xshape or xx.dtype != xdtype or (with_res and (r.shape != rshape or r.dtype != xdtype))):
            return None
        if out is not None:  # the run's arena slot (Model.run; only when conv_accepts_out())
            return conv(xx, w, b, r, *tail, out)
        return conv(xx, w, b, r, *tail)

    run.accepts_out = conv_accepts_out()
    return run


def conv_accepts_out():
    """Whether this build's ``_C.nn.conv`` takes a preallocated output (``out=``): the executor's
    memory arena writes convolution outputs into planned slots only then."""
    import re

    from .. import _C

    return re.search(r"\bout: ", getattr(_C.nn.conv, "__doc__", "") or "") is not None


_fused_conv.prepare = _fused_conv_prepare


def to_blocked(x, c0):
    """(N, C, *sp) -> NC1HWC0 (N, C / c0, *sp, c0), contiguous."""
    asc = _asc()
    n, c, sp = x.shape[0], x.shape[1], tuple(x.shape[2:])
    y = x.reshape((n, c // c0, c0) + sp)
    return asc.ascontiguousarray(y.transpose((0, 1) + tuple(range(3, 3 + len(sp))) + (2,)))


def from_blocked(x):
    """NC1HWC0 (N, C1, *sp, C0) -> (N, C1 * C0, *sp), contiguous."""
    asc = _asc()
    n, c1, c0, sp = x.shape[0], x.shape[1], x.shape[-1], tuple(x.shape[2:-1])
    y = x.transpose((0, 1, len(sp) + 2) + tuple(range(2, 2 + len(sp))))
    return asc.ascontiguousarray(y).reshape((n, c1 * c0) + sp)


def _conv_blocked(node, ins, activation, alpha, residual):
    """A convolution with an NC1HWC0 input and/or output: one oneDNN call with the node's (possibly
    asymmetric) pads and no layout reorder when C0 is the CPU's block."""
    from .. import _C

    x, w = ins[0], ins[1]
    b = ins[2] if len(ins) > 2 else None
    rshape, tail = _blocked_conv_args(node, x, w, activation, alpha, residual is not None)
    if residual is not None and (tuple(residual.shape) != rshape or residual.dtype != x.dtype):
        # the residual Add broadcasts or promotes: the plain ops, then back to the assigned layout
        ib, ob = int(node.attr("in_block", 0)), int(node.attr("out_block", 0))
        y = _conv_node(node, [from_blocked(x) if ib else x] + list(ins[1:]), activation, alpha,
                       from_blocked(residual) if ob else residual)
        return to_blocked(y, ob) if ob else y
    return _C.nn.conv(x, w, b, residual, *tail)


def _blocked_conv_args(node, x, w, activation, alpha, with_residual):
    """A blocked convolution's geometry from the node and these operands' shapes: the shape a
    same-layout residual must have, and _C.nn.conv's arguments after (x, w, bias, residual)."""
    ib, ob = int(node.attr("in_block", 0)), int(node.attr("out_block", 0))
    sp = list(x.shape[2:-1]) if ib else list(x.shape[2:])
    n = len(sp)
    kernel = list(w.shape[2:])
    strides, dil = _ints(node, "strides", n, 1), _ints(node, "dilations", n, 1)
    begins, ends = _pads(node, sp, kernel, strides, dil)
    osp = [(sp[i] + begins[i] + ends[i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(n)]
    oc = int(w.shape[0])
    rshape = (x.shape[0], oc // ob, *osp, ob) if ob else (x.shape[0], oc, *osp)
    act = "none" if activation is None else str(activation)
    # residual_inplace (assign_layouts): this node is the residual's last reader, which a
    # convolution or pool of this run wrote: the output may take its buffer
    tail = (strides, begins, ends, dil, [0] * n, int(node.attr("group", 1)), False, False, act, float(alpha),
            "onednn", f"conv{n}d", ib, ob, bool(node.attr("residual_inplace", 0)) and with_residual)
    return rshape, tail


@op("ConvTranspose")
def _conv_transpose(node, inputs):
    asc = _asc()
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    n = _spatial(x, node)
    group = node.attr("group", 1)
    kernel = list(w.shape[2:])
    strides, dil = _ints(node, "strides", n, 1), _ints(node, "dilations", n, 1)
    out_pad = _ints(node, "output_padding", n, 0)
    ins = list(x.shape[2:])
    full = [(ins[i] - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 for i in range(n)]
    out_shape = node.attr("output_shape")
    mode = _auto_pad(node)
    if out_shape is not None or mode in ("SAME_UPPER", "SAME_LOWER"):
        target = list(out_shape)[-n:] if out_shape is not None else [ins[i] * strides[i] for i in range(n)]
        begins = []
        for i in range(n):
            total = full[i] + out_pad[i] - target[i]
            # SAME_UPPER puts the odd pad at the end; SAME_LOWER and an explicit output_shape at the start
            # (onnxruntime's rule, which the ONNX spec text states for output_shape too)
            begins.append(total // 2 if mode == "SAME_UPPER" else total - total // 2)
    else:
        pb, pe = _pads(node, ins, kernel, strides, dil) if mode == "NOTSET" else ([0] * n, [0] * n)
        begins = pb
        target = [full[i] + out_pad[i] - pb[i] - pe[i] for i in range(n)]
    fn = (asc.ops.conv_transpose1d, asc.ops.conv_transpose2d, asc.ops.conv_transpose3d)[n - 1]
    y = fn(x, w, None, stride=strides, padding=0, groups=group, dilation=dil)
    # crop [begin, begin + target) of the unpadded result; rows past it (output_padding) get bias only
    lo = [max(0, bi) for bi in begins]
    grow = [(max(0, -begins[i]), max(0, begins[i] + target[i] - full[i])) for i in range(n)]
    if any(g != (0, 0) for g in grow):
        y = asc.pad(y, [(0, 0), (0, 0)] + grow)
        lo = [begins[i] + grow[i][0] for i in range(n)]
    y = y[(slice(None), slice(None)) + tuple(slice(lo[i], lo[i] + target[i]) for i in range(n))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * n)
    return y


# ------------------------------------------------------------------ pooling


def _pool_geometry(node, x):
    n = _spatial(x, node)
    kernel = [int(k) for k in node.attr("kernel_shape")]
    strides, dil = _ints(node, "strides", n, 1), _ints(node, "dilations", n, 1)
    begins, ends = _pads(node, list(x.shape[2:]), kernel, strides, dil)
    return n, kernel, strides, dil, begins, ends


def _max_pool_blocked_args(node, x):
    n = x.ndim - 3
    kernel = [int(k) for k in node.attr("kernel_shape")]
    strides, dil = _ints(node, "strides", n, 1), _ints(node, "dilations", n, 1)
    begins, ends = _pads(node, list(x.shape[2:-1]), kernel, strides, dil)
    return kernel, strides, begins, ends, dil


@op("MaxPoolNC1HWC0", domain="ai.pyasc")
def _max_pool_blocked(node, inputs):
    """MaxPool (floor mode, no Indices) of an NC1HWC0 input, written by the assign_layouts pass."""
    from .. import _C

    x = inputs[0]
    return _C.nn.max_pool_blocked(x, *_max_pool_blocked_args(node, x), "MaxPool")


def blocked_pool_accepts_out():
    """Whether this build's blocked pool kernels take ``out=`` (the arena writes pool outputs
    into planned slots only then)."""
    import re

    from .. import _C

    return all(re.search(r"\bout: ", getattr(f, "__doc__", "") or "") is not None
               for f in (_C.nn.max_pool_blocked, _C.nn.avg_pool_blocked))


def _max_pool_blocked_prepare(node, inputs):
    """The prepared call (Model.run): the kernel's arguments derived once; runs while the input has
    the same shape and dtype, writing into ``out`` (an arena slot) when one comes."""
    from .. import _C

    x = inputs[0]
    args = _max_pool_blocked_args(node, x)
    shape, dtype, mp = tuple(x.shape), x.dtype, _C.nn.max_pool_blocked

    def run(ins, out=None):
        xx = ins[0]
        if tuple(xx.shape) != shape or xx.dtype != dtype:
            return None
        return mp(xx, *args, "MaxPool") if out is None else mp(xx, *args, "MaxPool", out)

    run.accepts_out = blocked_pool_accepts_out()
    return run


_max_pool_blocked.prepare = _max_pool_blocked_prepare


@op("MaxPool")
def _max_pool(node, inputs):
    asc = _asc()
    x = inputs[0]
    n, kernel, strides, dil, begins, ends = _pool_geometry(node, x)
    ceil = bool(node.attr("ceil_mode", 0))
    want_idx = len(node.outputs) > 1 and node.outputs[1] != ""
    if want_idx and node.attr("storage_order", 0):
        raise node.error("AscendNotImplementedError", "Indices with storage_order=1 are not supported",
                         "FEATURE_UNSUPPORTED")
    fn = (asc.ops.max_pool1d, asc.ops.max_pool2d, asc.ops.max_pool3d)[n - 1]
    sym = begins == ends and all(begins[i] <= kernel[i] // 2 for i in range(n))
    xp, padding = (x, begins) if sym else (_pad_input(x, begins, ends, -np.inf if x.dtype.kind == "f" else
                                                      np.iinfo(x.dtype).min), [0] * n)
    if not want_idx:
        return fn(xp, kernel, stride=strides, padding=padding, dilation=dil, ceil_mode=ceil)
    y, idx = fn(xp, kernel, stride=strides, padding=padding, dilation=dil, ceil_mode=ceil, return_indices=True)
    idx = idx.astype("int64")
    sp = list(x.shape[2:])
    if not sym:  # plane index of the padded input -> of the input
        psp = list(xp.shape[2:])
        coords, rest = [], idx
        for i in reversed(range(n)):
            coords.append(rest % psp[i] - begins[i])
            rest = rest // psp[i]
        coords.reverse()
        idx = coords[0]
        for i in range(1, n):
            idx = idx * sp[i] + coords[i]
    # onnxruntime's Indices index the whole (N, C, spatial...) tensor, row-major
    plane = int(np.prod(sp))
    nc = asc.arange(x.shape[0] * x.shape[1], dtype="int64").reshape((x.shape[0], x.shape[1]) + (1,) * n) * plane
    return y, idx + nc


@op("AveragePool")
def _avg_pool(node, inputs):
    asc = _asc()
    x = inputs[0]
    n, kernel, strides, dil, begins, ends = _pool_geometry(node, x)
    if any(d != 1 for d in dil):
        raise node.error("AscendNotImplementedError", f"dilations {dil} are not supported by AveragePool",
                         "FEATURE_UNSUPPORTED")
    ceil = bool(node.attr("ceil_mode", 0))
    include = bool(node.attr("count_include_pad", 0))
    fn = (asc.ops.avg_pool1d, asc.ops.avg_pool2d, asc.ops.avg_pool3d)[n - 1]
    if not ceil and begins == ends and all(begins[i] <= kernel[i] // 2 for i in range(n)):
        return fn(x, kernel, stride=strides, padding=begins, count_include_pad=include)
    if ceil:
        # windows that hang past the end: onnxruntime divides them by the whole kernel with
        # count_include_pad=1 (torch does not), so pad them explicitly and pool without ceil_mode
        ends = list(ends)
        for i in range(n):
            span = x.shape[2 + i] + begins[i] + ends[i]
            out = -(-(span - kernel[i]) // strides[i]) + 1
            if (out - 1) * strides[i] >= x.shape[2 + i] + begins[i]:  # the last window starts in the end pad
                out -= 1
            ends[i] += max(0, (out - 1) * strides[i] + kernel[i] - span)
    xp = _pad_input(x, begins, ends)
    s = fn(xp, kernel, stride=strides)
    if include:  # the explicit pads count, and so does the ceil_mode extension (onnxruntime)
        return s
    # average over the real elements only: the window mean of a 1/0 mask rescales
    mask = _pad_input(asc.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype), begins, ends)
    return s / fn(mask, kernel, stride=strides)


@op("LpPool")
def _lp_pool(node, inputs):
    asc = _asc()
    x = inputs[0]
    n, kernel, strides, dil, begins, ends = _pool_geometry(node, x)
    p = float(node.attr("p", 2))
    if any(d != 1 for d in dil):
        raise node.error("AscendNotImplementedError", f"dilations {dil} are not supported by LpPool",
                         "FEATURE_UNSUPPORTED")
    fn = (asc.ops.avg_pool1d, asc.ops.avg_pool2d, asc.ops.avg_pool3d)[n - 1]
    xp = _pad_input(asc.abs(x) ** p, begins, ends)
    s = fn(xp, kernel, stride=strides, ceil_mode=bool(node.attr("ceil_mode", 0))) * float(np.prod(kernel))
    return s ** (1.0 / p)


def _spatial_axes(x):
    return tuple(range(2, x.ndim))


@op("AveragePoolNC1HWC0", "GlobalAveragePoolNC1HWC0", domain="ai.pyasc")
def _avg_pool_blocked(node, inputs):
    """AveragePool / GlobalAveragePool (2-D) of an NC1HWC0 input with an NCHW output, written by the
    assign_layouts pass so that the last blocks of a CNN stay blocked up to the classifier head.
    One pass of the blocked kernel (``_C.nn.avg_pool_blocked``: the C0 channels of a position are
    one vector) pools the blocked input; a 1x1 result (ResNet's 7x7 head pool, a global pool) is
    already NCHW's (N, C, 1, 1) memory, a larger one is reordered once (C0 times fewer bytes than
    reordering the input). ceil_mode, dilations and pads of a whole kernel or more run the plain
    operator on the reordered input."""
    from .. import _C

    x = inputs[0]
    n, c1, h, w, c0 = x.shape
    plain, kernel, strides, begins, ends, include, ok = _avg_pool_blocked_args(node, x)
    ob = int(node.attr("out_block", 0))  # assign_layouts: every reader takes NC1HWC0
    if not ok:
        y = from_blocked(x)
        y = _avg_pool(plain, [y]) if plain.op_type == "AveragePool" else _gap(plain, [y])
        return to_blocked(y, ob) if ob else y
    y = _C.nn.avg_pool_blocked(x, kernel, strides, begins, ends, include, plain.op_type)
    if ob:
        return y
    if y.shape[2] == 1 and y.shape[3] == 1:
        return y.reshape((n, c1 * c0, 1, 1))
    return from_blocked(y)


def _avg_pool_blocked_args(node, x):
    """(plain node, kernel, strides, begins, ends, count_include_pad, whether the blocked kernel
    computes it) of a blocked average pool over ``x``."""
    n, c1, h, w, c0 = x.shape
    plain = Node(node.name, node.op_type[:-len("NC1HWC0")], "", node.opset, node.attrs, node.inputs, node.outputs)
    if plain.op_type == "GlobalAveragePool":
        kernel, strides, begins, ends, include, ok = [h, w], [1, 1], [0, 0], [0, 0], True, h * w > 0
    else:
        kernel = [int(k) for k in node.attr("kernel_shape")]
        strides, dil = _ints(node, "strides", 2, 1), _ints(node, "dilations", 2, 1)
        begins, ends = _pads(node, [h, w], kernel, strides, dil)
        include = bool(node.attr("count_include_pad", 0))
        ok = (dil == [1, 1] and not node.attr("ceil_mode", 0) and h * w > 0 and
              all(0 <= p < k for p, k in zip(begins + ends, kernel + kernel)) and
              all(h_ + b + e >= k for h_, b, e, k in zip((h, w), begins, ends, kernel)))
    return plain, kernel, strides, begins, ends, include, ok


def _avg_pool_blocked_prepare(node, inputs):
    """The prepared call (Model.run) of the blocked kernel's cases whose result needs no reorder
    (a blocked output, or the head's 1x1 pool whose blocked memory is NCHW's): arguments derived
    once, ``out`` (an arena slot of the node's output shape) written when one comes. None for the
    others (the handler runs)."""
    from .. import _C

    x = inputs[0]
    n, c1, h, w, c0 = x.shape
    plain, kernel, strides, begins, ends, include, ok = _avg_pool_blocked_args(node, x)
    ob = int(node.attr("out_block", 0))
    if not ok:
        return None
    oh, ow = ((h + begins[0] + ends[0] - kernel[0]) // strides[0] + 1,
              (w + begins[1] + ends[1] - kernel[1]) // strides[1] + 1)
    if not ob and (oh, ow) != (1, 1):
        return None
    shape, dtype, ap, name = tuple(x.shape), x.dtype, _C.nn.avg_pool_blocked, plain.op_type
    args = (kernel, strides, begins, ends, include, name)

    def run(ins, out=None):
        xx = ins[0]
        if tuple(xx.shape) != shape or xx.dtype != dtype:
            return None
        if out is None:
            y = ap(xx, *args)
            return y if ob else y.reshape((n, c1 * c0, 1, 1))
        if ob:
            return ap(xx, *args, out)
        ap(xx, *args, out.reshape((n, c1, 1, 1, c0)))  # NCHW (N, C, 1, 1) is this memory
        return out

    run.accepts_out = blocked_pool_accepts_out()
    return run


_avg_pool_blocked.prepare = _avg_pool_blocked_prepare


@op("ChannelAffineNC1HWC0", domain="ai.pyasc")
def _channel_affine_blocked(node, inputs):
    """``x * scale + shift`` over an NC1HWC0 activation with per-channel constants already in the
    blocked layout ``(1, C1, 1, 1, C0)`` (or scalars); inputs (X, scale or '', shift or ''). Written
    by assign_layouts for an inference BatchNormalization or a Mul / Add / Sub by a channel
    constant between blocked values (DenseNet's BatchNormalization -> Mul -> Add, composed into
    one). The channel count is checked: a broadcast over C1 would silently misread the model."""
    x = inputs[0]
    for c in inputs[1:3]:
        if c is not None and c.ndim == 5 and (x.ndim != 5 or c.shape[1] != x.shape[1] or c.shape[4] != x.shape[4]):
            raise node.error("AscendValueError", f"per-channel constant of blocked shape {tuple(c.shape)} does not "
                             f"match the activation's {tuple(x.shape)}")
    y = x
    if inputs[1] is not None:
        y = y * inputs[1]
    if len(inputs) > 2 and inputs[2] is not None:
        y = y + inputs[2]
    return y


@op("GlobalAveragePool")
def _gap(node, inputs):
    x = inputs[0]
    return _asc().mean(x, axis=_spatial_axes(x), keepdims=True).astype(x.dtype)


@op("GlobalMaxPool")
def _gmp(node, inputs):
    x = inputs[0]
    return _asc().max(x, axis=_spatial_axes(x), keepdims=True)


@op("GlobalLpPool", since=2)
def _glp(node, inputs):
    asc = _asc()
    x = inputs[0]
    p = float(node.attr("p", 2))
    return (asc.sum(asc.abs(x) ** p, axis=_spatial_axes(x), keepdims=True) ** (1.0 / p)).astype(x.dtype)


# ------------------------------------------------------------------ normalisation


@op("BatchNormalization")
def _batch_norm(node, inputs):
    asc = _asc()
    x, scale, bias, mean, var = inputs[:5]
    if node.opset >= 14 and node.attr("training_mode", 0):
        raise node.error("AscendNotImplementedError", "training_mode=1 is not supported in an inference session",
                         "FEATURE_UNSUPPORTED")
    eps = float(node.attr("epsilon", 1e-5))
    if x.ndim < 2:
        raise node.error("AscendValueError", f"input of shape {tuple(x.shape)} needs a channel axis",
                         "INVALID_SHAPE")
    shape = (1, -1) + (1,) * (x.ndim - 2)
    inv = asc.reciprocal(asc.sqrt(var.astype("float32") + eps))
    a = (scale.astype("float32") * inv)
    c = bias.astype("float32") - mean.astype("float32") * a
    y = x * a.reshape(shape).astype(x.dtype) + c.reshape(shape).astype(x.dtype)
    outs = [y]
    if len(node.outputs) > 1:  # opset < 14 may name running mean / var outputs: the inputs pass through
        outs += [mean, var, mean, var][: len(node.outputs) - 1]
    return tuple(outs) if len(outs) > 1 else y


@op("InstanceNormalization", since=6)
def _instance_norm(node, inputs):
    x, scale, bias = inputs
    return _asc().ops.instance_norm(x, weight=scale, bias=bias, eps=float(node.attr("epsilon", 1e-5)))


@op("LayerNormalization", since=17)
def _layer_norm(node, inputs):
    asc = _asc()
    x = inputs[0]
    scale = inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    axis = node.attr("axis", -1)
    axis = axis + x.ndim if axis < 0 else axis
    eps = float(node.attr("epsilon", 1e-5))
    axes = tuple(range(axis, x.ndim))
    xf = x.astype("float32") if x.dtype.kind == "f" and x.itemsize < 4 else x
    mean = asc.mean(xf, axis=axes, keepdims=True)
    d = xf - mean
    inv = asc.reciprocal(asc.sqrt(asc.mean(d * d, axis=axes, keepdims=True) + eps))
    y = d * inv * scale.astype(xf.dtype)
    if bias is not None:
        y = y + bias.astype(xf.dtype)
    y = y.astype(x.dtype)
    outs = [y]
    if len(node.outputs) > 1:
        outs += [mean, inv][: len(node.outputs) - 1]
    return tuple(outs) if len(outs) > 1 else y


@op("GroupNormalization", since=18)
def _group_norm(node, inputs):
    asc = _asc()
    x, scale, bias = inputs
    g = int(node.attr("num_groups"))
    c = x.shape[1]
    if c % g:
        raise node.error("AscendValueError", f"{c} channels are not divisible into {g} groups")
    eps = float(node.attr("epsilon", 1e-5))
    if node.opset < 21 and scale.shape == (g,) and g != c:  # opset 18: one scale/bias per group
        scale, bias = asc.repeat(scale, c // g), asc.repeat(bias, c // g)
    return asc.ops.group_norm(x, g, weight=scale, bias=bias, eps=eps)


@op("LRN")
def _lrn(node, inputs):
    asc = _asc()
    x = inputs[0]
    size = int(node.attr("size"))
    if size < 1 or size % 2 == 0:  # onnxruntime's rule (the window is centred)
        raise node.error("AscendValueError", f"size must be a positive odd number, got {size}")
    alpha, beta, bias = float(node.attr("alpha", 1e-4)), float(node.attr("beta", 0.75)), float(node.attr("bias", 1.0))
    # window over channels [c - floor((size-1)/2), c + ceil((size-1)/2)] (ONNX; torch's differs for even size)
    lo = (size - 1) // 2
    sq = asc.pad(x * x, [(0, 0), (lo, size - 1 - lo)] + [(0, 0)] * (x.ndim - 2))
    c = x.shape[1]
    s = sq[:, 0:c]
    for k in range(1, size):
        s = s + sq[:, k:k + c]
    return x / (bias + (alpha / size) * s) ** beta


# ------------------------------------------------------------------ activations


@op("Relu")
def _relu(node, inputs):
    return _asc().ops.relu(inputs[0])


@op("LeakyRelu")
def _leaky(node, inputs):
    return _asc().ops.leaky_relu(inputs[0], float(node.attr("alpha", 0.01)))


@op("PRelu")
def _prelu(node, inputs):
    asc = _asc()
    x, slope = inputs
    return asc.where(x < 0, x * slope.astype(x.dtype), x)


@op("Elu")
def _elu(node, inputs):
    return _asc().ops.elu(inputs[0], float(node.attr("alpha", 1.0)))


@op("Celu", since=12)
def _celu(node, inputs):
    return _asc().ops.celu(inputs[0], float(node.attr("alpha", 1.0)))


@op("Selu")
def _selu(node, inputs):
    asc = _asc()
    x = inputs[0]
    alpha = float(node.attr("alpha", 1.67326319217681884765625))
    gamma = float(node.attr("gamma", 1.05070102214813232421875))
    return asc.where(x > 0, x * gamma, (asc.exp(x) - 1) * (alpha * gamma))


@op("ThresholdedRelu", since=10)
def _thresholded_relu(node, inputs):
    asc = _asc()
    x = inputs[0]
    return asc.where(x > float(node.attr("alpha", 1.0)), x, asc.zeros_like(x))


@op("Sigmoid")
def _sigmoid(node, inputs):
    return _asc().ops.sigmoid(inputs[0])


@op("HardSigmoid")
def _hard_sigmoid(node, inputs):
    asc = _asc()
    x = inputs[0]
    a, b = float(node.attr("alpha", 0.2)), float(node.attr("beta", 0.5))
    return asc.clip(x * a + b, 0, 1).astype(x.dtype)


@op("HardSwish", since=14)
def _hard_swish(node, inputs):
    asc = _asc()
    x = inputs[0]
    return x * asc.clip(x * (1 / 6) + 0.5, 0, 1).astype(x.dtype)


@op("Softplus")
def _softplus(node, inputs):
    asc = _asc()
    x = inputs[0]
    # log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|)
    return asc.maximum(x, 0).astype(x.dtype) + asc.log1p(asc.exp(-asc.abs(x)))


@op("Softsign")
def _softsign(node, inputs):
    asc = _asc()
    x = inputs[0]
    return x / (asc.abs(x) + 1)


@op("Mish", since=18)
def _mish(node, inputs):
    return _asc().ops.mish(inputs[0])


@op("Gelu", since=20)
def _gelu(node, inputs):
    a = node.attr("approximate", "none")
    a = a.decode() if isinstance(a, bytes) else a
    return _asc().ops.gelu(inputs[0], approximate=a)


@op("Shrink", since=9)
def _shrink(node, inputs):
    asc = _asc()
    x = inputs[0]
    lambd, bias = float(node.attr("lambd", 0.5)), float(node.attr("bias", 0.0))
    return asc.where(x < -lambd, x + bias, asc.where(x > lambd, x - bias, asc.zeros_like(x))).astype(x.dtype)


def _softmax_like(kind):
    def run(node, inputs):
        asc = _asc()
        x = inputs[0]
        if node.opset < 13:  # the input is coerced to 2-D at axis (default 1)
            axis = node.attr("axis", 1)
            axis = axis + x.ndim if axis < 0 else axis
            rows = int(np.prod(x.shape[:axis]))
            x2 = x.reshape((rows, -1))
            return run_axis(x2, 1).reshape(x.shape)
        return run_axis(x, node.attr("axis", -1))

    def run_axis(x, axis):
        asc = _asc()
        if kind == "Softmax":
            return asc.ops.softmax(x, dim=axis)
        if kind == "LogSoftmax":
            return asc.ops.log_softmax(x, dim=axis)
        # Hardmax: one-hot of the first maximum
        idx = asc.argmax(x, axis=axis, keepdims=True)
        pos = asc.arange(x.shape[axis]).reshape([-1 if i == (axis % x.ndim) else 1 for i in range(x.ndim)])
        return (pos == idx).astype(x.dtype)

    return run


op("Softmax")(_softmax_like("Softmax"))
op("LogSoftmax")(_softmax_like("LogSoftmax"))
op("Hardmax")(_softmax_like("Hardmax"))


@op("Dropout")
def _dropout(node, inputs):
    asc = _asc()
    x = inputs[0]
    if node.opset >= 12 and len(inputs) > 2 and inputs[2] is not None and bool(np.asarray(inputs[2])):
        raise node.error("AscendNotImplementedError", "training_mode=True is not supported in an inference session",
                         "FEATURE_UNSUPPORTED")
    if len(node.outputs) > 1 and node.outputs[1]:
        return x.copy(), asc.ones(x.shape, dtype=bool)
    return x.copy()


@op("Flatten")
def _flatten(node, inputs):
    x = inputs[0]
    axis = node.attr("axis", 1)
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis <= x.ndim:
        raise node.error("AscendValueError", f"axis {node.attr('axis', 1)} is out of range for rank {x.ndim}")
    rows = math.prod(x.shape[:axis])
    return x.reshape((rows, math.prod(x.shape[axis:])))

