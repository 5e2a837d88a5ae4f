"""ONNX shape, indexing, data-movement and constant ops.

Shape-valued inputs (Reshape's shape, Slice's starts, Pad's pads, ...) are read
on the host; the importer folds constant subgraphs (Shape -> Gather -> Concat
chains) once at load, so a steady-state run reads no shape from the device.
"""

from __future__ import annotations

import math

import numpy as np

from ._registry import ONNX_DTYPES, host, host_ints, op


def _asc():
    import pyasc

    return pyasc


def _axis(node, a, ndim, what="axis"):
    if not -ndim <= a < max(ndim, 1):
        raise node.error("AscendValueError", f"{what} {a} is out of range for rank {ndim}")
    return a + ndim if a < 0 else a


@op("Identity")
def _identity(node, inputs):
    return inputs[0]


@op("Reshape", since=5)
def _reshape(node, inputs):
    x = inputs[0]
    shape = host_ints(inputs[1])
    if not node.attr("allowzero", 0):
        shape = [x.shape[i] if s == 0 and i < x.ndim else s for i, s in enumerate(shape)]
    try:
        return x.reshape(tuple(shape))
    except ValueError as e:
        raise node.error("AscendValueError", f"cannot reshape {tuple(x.shape)} to {tuple(shape)} ({e})",
                         "INVALID_SHAPE") from None


@op("Transpose")
def _transpose(node, inputs):
    x = inputs[0]
    perm = node.attr("perm")
    return _asc().transpose(x, tuple(perm) if perm is not None else None)


def _axes_of(node, inputs, until=13):
    if node.opset < until:
        a = node.attr("axes")
        return list(a) if a is not None else None
    return host_ints(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else None


@op("Squeeze")
def _squeeze(node, inputs):
    x = inputs[0]
    axes = _axes_of(node, inputs)
    if axes is None:
        return _asc().squeeze(x)
    axes = tuple(_axis(node, a, x.ndim) for a in axes)
    for a in axes:
        if x.shape[a] != 1:
            raise node.error("AscendValueError", f"cannot squeeze axis {a} of size {x.shape[a]} "
                                                 f"(shape {tuple(x.shape)})", "INVALID_SHAPE")
    return _asc().squeeze(x, axis=axes)


@op("Unsqueeze")
def _unsqueeze(node, inputs):
    x = inputs[0]
    axes = _axes_of(node, inputs)
    out_rank = x.ndim + len(axes)
    axes = sorted(_axis(node, a, out_rank) for a in axes)
    if len(set(axes)) != len(axes):
        raise node.error("AscendValueError", f"repeated axes {axes}")
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return x.reshape(tuple(shape))


@op("Concat", since=4)
def _concat(node, inputs):
    xs = [v for v in inputs if v is not None]
    axis = _axis(node, node.attr("axis"), xs[0].ndim)
    return _asc().concatenate(xs, axis=axis)


@op("Split", since=2)
def _split(node, inputs):
    asc = _asc()
    x = inputs[0]
    axis = _axis(node, node.attr("axis", 0), x.ndim)
    n = len(node.outputs)
    if node.opset < 13:
        split = node.attr("split")
        split = list(split) if split is not None else None
    else:
        split = host_ints(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else None
    size = x.shape[axis]
    if split is None:
        k = node.attr("num_outputs", n)
        chunk = -(-size // k)  # opset 18: the last chunk is smaller when size does not divide
        split = [min(chunk, max(0, size - i * chunk)) for i in range(k)]
    if sum(split) != size:
        raise node.error("AscendValueError", f"split {split} does not sum to the axis size {size}")
    offs = np.cumsum([0] + split)
    idx = [slice(None)] * x.ndim
    outs = []
    for i in range(len(split)):
        idx[axis] = slice(int(offs[i]), int(offs[i + 1]))
        outs.append(x[tuple(idx)])
    return tuple(outs)


@op("Slice")
def _slice(node, inputs):
    x = inputs[0]
    if node.opset < 10:
        starts, ends = list(node.attr("starts")), list(node.attr("ends"))
        axes = node.attr("axes")
        axes = list(axes) if axes is not None else list(range(len(starts)))
        steps = [1] * len(starts)
    else:
        starts, ends = host_ints(inputs[1]), host_ints(inputs[2])
        axes = host_ints(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else list(range(len(starts)))
        steps = host_ints(inputs[4]) if len(inputs) > 4 and inputs[4] is not None else [1] * len(starts)
    idx = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        if st == 0:
            raise node.error("AscendValueError", "steps must not be 0")
        a = _axis(node, a, x.ndim)
        # INT64_MAX / INT64_MIN mean "to the end" in ONNX; Python slices clamp the same way
        idx[a] = slice(s, e, st)
    return x[tuple(idx)]


@op("Gather")
def _gather(node, inputs):
    asc = _asc()
    x, ind = inputs
    axis = _axis(node, node.attr("axis", 0), x.ndim)
    # take wraps negative indices as ONNX does and raises AscendIndexError (named with the node by the
    # run loop) for out-of-range ones
    return asc.take(x, ind.astype("int64"), axis=axis)


@op("GatherElements", since=11)
def _gather_elements(node, inputs):
    asc = _asc()
    x, ind = inputs
    axis = _axis(node, node.attr("axis", 0), x.ndim)
    n = x.shape[axis]
    ind = ind.astype("int64")
    ind = asc.where(ind < 0, ind + n, ind)
    if ind.ndim != x.ndim:
        raise node.error("AscendValueError", f"indices of rank {ind.ndim} for data of rank {x.ndim}", "INVALID_SHAPE")
    # ONNX lets the other axes of indices be shorter than the data's (the output takes indices' shape)
    x = x[tuple(slice(None) if a == axis else slice(0, ind.shape[a]) for a in range(x.ndim))]
    return asc.take_along_axis(x, ind, axis=axis)


@op("GatherND", since=11)
def _gather_nd(node, inputs):
    asc = _asc()
    x, ind = inputs
    b = node.attr("batch_dims", 0)
    if b:
        raise node.error("AscendNotImplementedError", "batch_dims > 0 is not supported", "FEATURE_UNSUPPORTED")
    k = ind.shape[-1]
    ih = host(ind).astype(np.int64)
    ih = np.where(ih < 0, ih + np.array(x.shape[:k]), ih)
    return x[tuple(asc.asarray(ih[..., j]) for j in range(k))]


@op("ScatterND", since=11)
def _scatter_nd(node, inputs):
    asc = _asc()
    x, ind, upd = inputs
    red = node.attr("reduction", "none")
    red = red.decode() if isinstance(red, bytes) else red
    ih = host(ind).astype(np.int64)
    k = ih.shape[-1]
    ih = np.where(ih < 0, ih + np.array(x.shape[:k]), ih).reshape(-1, k)
    u = upd.reshape((ih.shape[0],) + tuple(x.shape[k:]))
    y = x.copy()
    if red == "none":
        y[tuple(ih[:, j] for j in range(k))] = u
        return y
    # reductions apply update by update, in order (duplicates accumulate)
    fn = {"add": asc.add, "mul": asc.multiply, "max": asc.maximum, "min": asc.minimum}.get(red)
    if fn is None:
        raise node.error("AscendValueError", f"reduction must be none, add, mul, max or min, got {red!r}")
    for r in range(ih.shape[0]):
        key = tuple(int(v) for v in ih[r])
        y[key] = fn(y[key], u[r])
    return y


@op("ScatterElements", since=11)
def _scatter_elements(node, inputs):
    asc = _asc()
    x, ind, upd = inputs
    axis = _axis(node, node.attr("axis", 0), x.ndim)
    red = node.attr("reduction", "none")
    red = red.decode() if isinstance(red, bytes) else red
    if red != "none":
        raise node.error("AscendNotImplementedError", f"reduction {red!r} is not supported", "FEATURE_UNSUPPORTED")
    ind = ind.astype("int64")
    ind = asc.where(ind < 0, ind + x.shape[axis], ind)
    if ind.ndim != x.ndim:
        raise node.error("AscendValueError", f"indices of rank {ind.ndim} for data of rank {x.ndim}", "INVALID_SHAPE")
    y = x.copy()
    # indices may be shorter than the data on the other axes: scatter into that corner (a view)
    view = y[tuple(slice(None) if a == axis else slice(0, ind.shape[a]) for a in range(x.ndim))]
    asc.put_along_axis(view, ind, upd, axis=axis)
    return y


@op("Expand", since=8)
def _expand(node, inputs):
    x = inputs[0]
    shape = host_ints(inputs[1])
    try:
        out = np.broadcast_shapes(tuple(x.shape), tuple(shape))
    except ValueError:
        raise node.error("AscendValueError", f"shape {tuple(x.shape)} cannot be expanded to {tuple(shape)}",
                         "INVALID_SHAPE") from None
    return _asc().broadcast_to(x, out).copy()


@op("Tile", since=6)
def _tile(node, inputs):
    return _asc().tile(inputs[0], tuple(host_ints(inputs[1])))


@op("Pad", since=2)
def _pad(node, inputs):
    asc = _asc()
    x = inputs[0]
    mode = node.attr("mode", "constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if node.opset < 11:
        pads, value, axes = list(node.attr("pads")), float(node.attr("value", 0.0)), None
    else:
        pads = host_ints(inputs[1])
        value = host(inputs[2]).reshape(-1)[0] if len(inputs) > 2 and inputs[2] is not None and inputs[2].size else 0
        axes = host_ints(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else None
    axes = [_axis(node, a, x.ndim) for a in axes] if axes is not None else list(range(x.ndim))
    n = len(axes)
    if len(pads) != 2 * n:
        raise node.error("AscendValueError", f"pads {pads} must have 2 x {n} entries")
    width = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        width[a] = (pads[i], pads[i + n])
    # negative pads crop
    crop = tuple(slice(max(0, -b), x.shape[a] - max(0, -e)) for a, (b, e) in enumerate(width))
    x = x[crop]
    width = [(max(0, b), max(0, e)) for b, e in width]
    np_mode = {"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "wrap"}.get(mode)
    if np_mode is None:
        raise node.error("AscendValueError", f"mode must be constant, reflect, edge or wrap, got {mode!r}")
    if np_mode == "constant":
        return asc.pad(x, width, constant_values=value)
    return asc.pad(x, width, mode=np_mode)


def _space_depth(node, x, to_depth):
    b = int(node.attr("blocksize"))
    n, c, h, w = x.shape
    if to_depth:
        if h % b or w % b:
            raise node.error("AscendValueError", f"spatial size {h}x{w} is not divisible by blocksize {b}",
                             "INVALID_SHAPE")
        y = x.reshape((n, c, h // b, b, w // b, b)).transpose((0, 3, 5, 1, 2, 4))
        return y.reshape((n, c * b * b, h // b, w // b))
    if c % (b * b):
        raise node.error("AscendValueError", f"{c} channels are not divisible by blocksize^2 = {b * b}",
                         "INVALID_SHAPE")
    mode = node.attr("mode", "DCR")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode == "DCR":
        y = x.reshape((n, b, b, c // (b * b), h, w)).transpose((0, 3, 4, 1, 5, 2))
    else:  # CRD
        y = x.reshape((n, c // (b * b), b, b, h, w)).transpose((0, 1, 4, 2, 5, 3))
    return y.reshape((n, c // (b * b), h * b, w * b))


@op("DepthToSpace")
def _d2s(node, inputs):
    return _space_depth(node, inputs[0], False)


@op("SpaceToDepth")
def _s2d(node, inputs):
    return _space_depth(node, inputs[0], True)


@op("Shape")
def _shape(node, inputs):
    shape = list(inputs[0].shape)
    r = len(shape)
    start, end = node.attr("start", 0), node.attr("end", r)
    start = min(max(start + r if start < 0 else start, 0), r)
    end = min(max(end + r if end < 0 else end, 0), r)
    return _asc().asarray(np.array(shape[start:end], dtype=np.int64))


@op("Size")
def _size(node, inputs):
    return _asc().asarray(np.int64(math.prod(inputs[0].shape)))


@op("ConstantOfShape", since=9)
def _constant_of_shape(node, inputs):
    v = node.attr("value")
    v = np.zeros(1, np.float32) if v is None else np.asarray(v).reshape(-1)
    return _asc().full(tuple(host_ints(inputs[0])), v[0], dtype=v.dtype)


@op("Constant")
def _constant(node, inputs):
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if key in node.attrs:
            v = node.attrs[key]
            if key in ("value_float", "value_floats"):
                v = np.asarray(v, dtype=np.float32)
            elif key in ("value_int", "value_ints"):
                v = np.asarray(v, dtype=np.int64)
            return _asc().asarray(np.asarray(v))
    raise node.error("AscendNotImplementedError", f"Constant with attributes {sorted(node.attrs)} is not supported",
                     "FEATURE_UNSUPPORTED")


@op("Range", since=11)
def _range(node, inputs):
    start, limit, delta = (host(v).reshape(()) for v in inputs)
    if delta == 0:
        raise node.error("AscendValueError", "delta must not be 0")
    n = max(int(np.ceil((limit - start) / delta)), 0)
    return _asc().asarray((start + delta * np.arange(n)).astype(start.dtype))


@op("NonZero", since=9)
def _nonzero(node, inputs):
    x = inputs[0]
    if x.ndim == 0:
        return _asc().asarray(np.zeros((0, int(bool(host(x)))), np.int64))
    return _asc().stack(_asc().nonzero(x)).astype("int64")


@op("OneHot", since=9)
def _one_hot(node, inputs):
    asc = _asc()
    ind, depth, values = inputs
    d = int(host(depth).reshape(-1)[0])
    axis = node.attr("axis", -1)
    ind = ind.astype("int64")
    ind = asc.where(ind < 0, ind + d, ind)
    out_rank = ind.ndim + 1
    axis = _axis(node, axis, out_rank)
    shape = [1] * out_rank
    shape[axis] = d
    pos = asc.arange(d, dtype="int64").reshape(tuple(shape))
    hot = asc.expand_dims(ind, axis) == pos
    off, on = values[0], values[1]
    return asc.where(hot, on, off)


@op("EyeLike", since=9)
def _eye_like(node, inputs):
    x = inputs[0]
    dt = node.attr("dtype")
    dtype = ONNX_DTYPES[dt] if dt is not None else x.dtype
    return _asc().eye(x.shape[0], x.shape[1], k=node.attr("k", 0), dtype=dtype)


@op("Trilu", since=14)
def _trilu(node, inputs):
    asc = _asc()
    k = host_ints(inputs[1])[0] if len(inputs) > 1 and inputs[1] is not None else 0
    return asc.triu(inputs[0], k) if node.attr("upper", 1) else asc.tril(inputs[0], k)
