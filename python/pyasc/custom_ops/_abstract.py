"""Abstract shape/dtype inference of registered operators (``op.infer``).

With ``infer_shape`` / ``infer_dtype`` callbacks those are called. Otherwise the forward is traced
over *placeholders*: for each input a stride-0 broadcast of one zero element of the input dtype
(no input memory, whatever the shape). Element-wise and reduction bodies only record lazy-graph
nodes, whose shapes and dtypes are known at once; the results are dropped unobserved, so the
nodes are dead and never run -- no compute, no output memory. Opaque ops in the body (matmul,
conv, a kernel launch) run on the placeholders: give such ops ``infer_shape``/``infer_dtype``.
"""

from __future__ import annotations

import numpy as _np

from ._registry import OpContext, _as_list, _no_needs, _type_error, _value_error


def placeholder(shape, dtype):
    """A zero-memory array of ``shape`` and ``dtype`` (one element broadcast)."""
    import pyasc as asc

    return asc.broadcast_to(asc.zeros((), dtype=dtype), tuple(shape))


def _norm(shapes, dtypes, name):
    if isinstance(shapes, tuple) and all(isinstance(d, int) for d in shapes):
        shapes = [shapes]  # one input given as a bare shape
    shapes = [tuple(int(d) for d in s) for s in shapes]
    if dtypes is None:
        dtypes = ["float32"] * len(shapes)
    elif isinstance(dtypes, (str, _np.dtype, type)):
        dtypes = [dtypes] * len(shapes)
    dtypes = list(dtypes)
    if len(dtypes) != len(shapes):
        raise _value_error(f"[{name}.infer] {len(shapes)} shapes but {len(dtypes)} dtypes")
    try:
        dtypes = [_np.dtype(str(d) if not isinstance(d, (type, _np.dtype)) else d) for d in dtypes]
    except TypeError as e:
        raise _type_error(f"[{name}.infer] bad dtype in {dtypes!r}: {e}", "INVALID_DTYPE") from None
    return shapes, dtypes


def infer(op, shapes, dtypes, attrs):
    shapes, dtypes = _norm(shapes, dtypes, op.name)
    if op.infer_shape is not None and op.infer_dtype is not None:
        out_s = _as_list(op.infer_shape(*shapes, **attrs))
        out_d = _as_list(op.infer_dtype(*dtypes, **attrs))
        res = [(tuple(s), _np.dtype(str(d))) for s, d in zip(out_s, out_d)]
    else:
        args = [placeholder(s, d) for s, d in zip(shapes, dtypes)]
        ctx = OpContext(op.name, _no_needs(len(args)), attrs)
        out = op.forward(ctx, *args, **attrs)
        outs = list(out) if isinstance(out, tuple) else [out]
        res = [(tuple(o.shape), _np.dtype(str(o.dtype))) for o in outs]
        del out, outs, args
        if op.infer_shape is not None:
            res = [(tuple(s), d) for s, (_, d) in zip(_as_list(op.infer_shape(*shapes, **attrs)), res)]
        if op.infer_dtype is not None:
            res = [(s, _np.dtype(str(d))) for (s, _), d in zip(res, _as_list(op.infer_dtype(*dtypes, **attrs)))]
    return res[0] if len(res) == 1 else res
