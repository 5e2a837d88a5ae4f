"""asc.ops: convolution, transposed convolution and dense ops (``torch.nn.functional`` signatures).

``conv1d/2d/3d`` and ``conv_transpose1d/2d/3d`` take (N, C, *spatial) or
unbatched (C, *spatial) inputs (``layout="NHWC"``: (N, *spatial, C)), weights in
torch's layout, float32 / float16 / bfloat16 (float32 accumulation) / float64.
Engine: oneDNN primitives (src/nn/conv.cc; cached per shapes/attrs), float64 a
direct reference loop; ``engine="ascendc"`` runs the Ascend C model path
(img2col + the Mmad engine). ``activation=`` and ``residual=`` (keyword-only,
pyasc extensions) fuse ``act(conv + bias + residual)`` into one primitive.
Dense ops (linear, matmul, mm, bmm, addmm, baddbmm, einsum) reuse
``asc.matmul`` / ``asc.einsum``. See docs/nn.md.
"""

from __future__ import annotations

from ._util import _asc, _err, _tuple  # noqa: F401 - shared helpers

import operator as _operator

import numpy as np

from .. import _C

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "einsum",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Linear",
]


def _layout(layout, op):
    if layout in ("NCHW", "NCL", "NCDHW", "NC"):
        return False
    if layout in ("NHWC", "NLC", "NDHWC"):
        return True
    raise _err("AscendValueError", "INVALID_PARAM", f"[{op}] layout must be 'NCHW' or 'NHWC', got {layout!r}")


def _conv(n, transposed, input, weight, bias, stride, padding, output_padding, groups, dilation, layout,
          activation, negative_slope, residual, engine, out=None):
    op = f"conv_transpose{n}d" if transposed else f"conv{n}d"
    asc = _asc()
    x = asc.asarray(input)
    w = asc.asarray(weight)
    b = None if bias is None else asc.asarray(bias)
    r = None if residual is None else asc.asarray(residual)
    cl = _layout(layout, op)
    s = _tuple(stride, n, "stride", op)
    d = _tuple(dilation, n, "dilation", op)
    try:
        g = _operator.index(groups)
    except TypeError:
        raise _err("AscendTypeError", "INVALID_PARAM", f"[{op}] groups must be an int, got {type(groups).__name__}") from None
    if isinstance(padding, str):
        if transposed:
            raise _err("AscendValueError", "INVALID_PARAM", f"[{op}] padding must be ints, got {padding!r}")
        if padding == "valid":
            pl = pr = [0] * n
        elif padding == "same":
            if any(v != 1 for v in s):
                raise _err("AscendValueError", "INVALID_PARAM",
                           f"[{op}] padding='same' is not supported for strided convolutions (stride={tuple(s)})")
            if w.ndim != n + 2:
                raise _err("AscendValueError", "INVALID_SHAPE",
                           f"[{op}] expected a {n + 2}-D weight, got shape {tuple(w.shape)}")
            tot = [d[i] * (w.shape[2 + i] - 1) for i in range(n)]
            pl = [t // 2 for t in tot]
            pr = [t - t // 2 for t in tot]
        else:
            raise _err("AscendValueError", "INVALID_PARAM",
                       f"[{op}] padding must be 'same', 'valid', an int or a tuple of ints, got {padding!r}")
    else:
        pl = pr = _tuple(padding, n, "padding", op)
    opad = _tuple(output_padding, n, "output_padding", op) if transposed else [0] * n
    unbatched = x.ndim == n + 1
    out0 = out
    if out is not None and not isinstance(out, asc.ndarray):
        raise _err("AscendTypeError", "INVALID_PARAM", f"[{op}] out must be a pyasc.ndarray, got {type(out).__name__}")
    if unbatched:
        x = x[None]
        if r is not None:
            r = r[None]
        if out is not None:
            if out.ndim != n + 1:
                raise _err("AscendValueError", "INVALID_SHAPE",
                           f"[{op}] out must be {n + 1}-D for an unbatched input, got shape {tuple(out.shape)}")
            out = out[None]
    elif x.ndim != n + 2:
        raise _err("AscendValueError", "INVALID_SHAPE",
                   f"[{op}] expected a {n + 1}-D (unbatched) or {n + 2}-D (batched) input, got shape {tuple(x.shape)}")
    act = "none" if activation is None else str(activation)
    y = _C.nn.conv(x, w, b, r, s, pl, pr, d, opad, g, bool(transposed), cl, act, float(negative_slope),
                   str(engine), op, out=out)
    if out0 is not None:
        return out0  # as NumPy's out=: the caller's own array, now holding the result
    return y[0] if unbatched else y


def _doc(n, transposed):
    def deco(f):
        return f
    return deco


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
           activation=None, negative_slope=0.01, residual=None, engine="onednn", out=None):
    """1-D convolution (torch.nn.functional.conv1d); see conv2d for the extensions."""
    return _conv(1, False, input, weight, bias, stride, padding, 0, groups, dilation, layout, activation,
                 negative_slope, residual, engine, out)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
           activation=None, negative_slope=0.01, residual=None, engine="onednn", out=None):
    """2-D convolution (torch.nn.functional.conv2d).

    ``padding``: int, tuple, 'valid' or 'same' (stride 1; an odd total padding puts
    the extra element on the right, as torch). ``layout="NHWC"``: input and output
    are (N, H, W, C); weights stay (C_out, C_in/groups, kH, kW). Keyword-only
    extensions: ``activation`` ("relu", "leaky_relu" (``negative_slope``), "gelu",
    "gelu_tanh", "silu", "sigmoid", "tanh", "elu", "relu6") and ``residual`` (an
    array of the output's shape) fuse as ``act(conv + bias + residual)`` into one
    oneDNN primitive; ``engine="ascendc"`` uses img2col + Mmad. ``out``: a preallocated
    pyasc array the result is written into and returned (e.g. a slice of a model's memory
    arena): the output's shape and dtype, C-contiguous, writeable, sharing no memory with
    input, weight or bias; it may be the residual's own buffer (the result then replaces
    the residual in place). A wrong out raises AscendValueError / AscendTypeError before
    anything is written. Errors:
    AscendValueError naming the op and shapes (channels / groups mismatch, bad
    stride / padding / dilation), AscendTypeError for dtype mismatches.
    """
    return _conv(2, False, input, weight, bias, stride, padding, 0, groups, dilation, layout, activation,
                 negative_slope, residual, engine, out)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
           activation=None, negative_slope=0.01, residual=None, engine="onednn", out=None):
    """3-D convolution (torch.nn.functional.conv3d); see conv2d for the extensions."""
    return _conv(3, False, input, weight, bias, stride, padding, 0, groups, dilation, layout, activation,
                 negative_slope, residual, engine, out)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                     layout="NCHW", activation=None, negative_slope=0.01, residual=None, out=None):
    """1-D transposed convolution (torch.nn.functional.conv_transpose1d); weight (C_in, C_out/groups, k)."""
    return _conv(1, True, input, weight, bias, stride, padding, output_padding, groups, dilation, layout,
                 activation, negative_slope, residual, "onednn", out)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                     layout="NCHW", activation=None, negative_slope=0.01, residual=None, out=None):
    """2-D transposed convolution (torch.nn.functional.conv_transpose2d).

    Output size ``(in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``;
    ``output_padding`` must be smaller than stride or dilation.
    """
    return _conv(2, True, input, weight, bias, stride, padding, output_padding, groups, dilation, layout,
                 activation, negative_slope, residual, "onednn", out)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                     layout="NCHW", activation=None, negative_slope=0.01, residual=None, out=None):
    """3-D transposed convolution (torch.nn.functional.conv_transpose3d)."""
    return _conv(3, True, input, weight, bias, stride, padding, output_padding, groups, dilation, layout,
                 activation, negative_slope, residual, "onednn", out)


# ---- dense -----------------------------------------------------------------------
def _arr(v):
    return _asc().asarray(v)


def _shape_err(op, msg):
    return _err("AscendValueError", "INVALID_SHAPE", f"[{op}] {msg}")


def _same_dtype(op, *arrs):
    ds = {str(a.dtype) for a in arrs}
    if len(ds) > 1:
        raise _err("AscendTypeError", "INVALID_DTYPE", f"[{op}] expected operands of one dtype, got {sorted(ds)}")


def linear(input, weight, bias=None, *, out=None):
    """``input @ weight.T + bias`` (torch.nn.functional.linear); weight (out, in), bias (out,).

    ``out`` (keyword-only, as conv2d's): a preallocated pyasc array the result is written into
    and returned (e.g. a slice of a model's memory arena). It must have the result's shape
    (``input.shape[:-1] + (out_features,)``) and dtype, be C-contiguous and writeable, and share
    no memory with input, weight or bias; otherwise AscendValueError / AscendTypeError before
    anything is written.
    """
    asc = _asc()
    x, w = _arr(input), _arr(weight)
    if w.ndim not in (1, 2) or x.ndim < 1 or x.shape[-1] != w.shape[-1]:
        raise _shape_err("linear", f"input {tuple(x.shape)} and weight {tuple(w.shape)} do not match "
                                   f"(expected input.shape[-1] == weight.shape[-1])")
    _same_dtype("linear", x, w)
    b = _arr(bias) if bias is not None else None
    if out is None:
        y = asc.matmul(x, w.T)
        return y + b if b is not None else y
    if not isinstance(out, asc.ndarray):
        raise _err("AscendTypeError", "INVALID_PARAM", f"[linear] out must be a pyasc.ndarray, got {type(out).__name__}")
    shape = tuple(x.shape[:-1]) + ((w.shape[0],) if w.ndim == 2 else ())
    if b is not None:  # the bias must broadcast to the product without growing it (torch's rule)
        try:
            grown = tuple(np.broadcast_shapes(shape, tuple(b.shape)))
        except ValueError:
            grown = None
        if grown != shape:
            raise _shape_err("linear", f"bias {tuple(b.shape)} does not broadcast to the output {shape}")
    if tuple(out.shape) != shape:
        raise _shape_err("linear", f"out has shape {tuple(out.shape)}; input {tuple(x.shape)} and weight "
                                   f"{tuple(w.shape)} give {shape}")
    want = np.result_type(x.dtype, b.dtype) if b is not None else x.dtype
    if out.dtype != want:
        raise _err("AscendTypeError", "INVALID_DTYPE", f"[linear] out has dtype {out.dtype}; the result is {want}")
    if not out.flags.c_contiguous:
        raise _err("AscendValueError", "INVALID_PARAM", "[linear] out must be C-contiguous")
    if not out.flags.writeable:
        raise _err("AscendValueError", "INVALID_PARAM", "[linear] out is read-only")
    for name, a in (("input", x), ("weight", w), ("bias", b)):
        if a is not None and asc.may_share_memory(out, a):
            raise _err("AscendValueError", "INVALID_PARAM", f"[linear] out shares memory with {name}")
    asc.matmul(x, w.T, out=out)
    if b is not None:
        asc.add(out, b, out=out)
    return out


def matmul(input, other):
    """torch.matmul (NumPy matmul semantics): asc.matmul."""
    return _asc().matmul(_arr(input), _arr(other))


def mm(input, mat2):
    """2-D matrix product (torch.mm): (n, m) @ (m, p)."""
    a, b = _arr(input), _arr(mat2)
    if a.ndim != 2 or b.ndim != 2:
        raise _shape_err("mm", f"expected 2-D matrices, got shapes {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[1] != b.shape[0]:
        raise _shape_err("mm", f"shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied "
                               f"({a.shape[1]} != {b.shape[0]})")
    _same_dtype("mm", a, b)
    return _asc().matmul(a, b)


def bmm(input, mat2):
    """Batched matrix product (torch.bmm): (b, n, m) @ (b, m, p)."""
    a, b = _arr(input), _arr(mat2)
    if a.ndim != 3 or b.ndim != 3:
        raise _shape_err("bmm", f"expected 3-D batches, got shapes {tuple(a.shape)} and {tuple(b.shape)}")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise _shape_err("bmm", f"shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied")
    _same_dtype("bmm", a, b)
    return _asc().matmul(a, b)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` (torch.addmm)."""
    p = mm(mat1, mat2)
    c = _arr(input)
    return (c if beta == 1 else c * beta) + (p if alpha == 1 else p * alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)`` (torch.baddbmm)."""
    p = bmm(batch1, batch2)
    c = _arr(input)
    return (c if beta == 1 else c * beta) + (p if alpha == 1 else p * alpha)


def einsum(equation, *operands):
    """torch.einsum: asc.einsum (operands may also be given as one list)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _asc().einsum(equation, *[_arr(o) for o in operands])


from ._conv_modules import (  # noqa: E402  (module classes need the functions above)
    Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, Linear)
