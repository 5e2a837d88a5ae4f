"""``@asc.hybrid_operator``: a Python function + an Ascend C kernel, with derived inference.

The decorated function is the op's *reference composition* (pyasc code). Its outputs' shapes
and dtypes are derived by abstract tracing (:mod:`._abstract`: the function runs over zero-memory
placeholders; element-wise/reduction bodies only record lazy nodes that are dropped unrun), or given
by ``infer_shape=`` / ``infer_dtype=``. With ``kernel=`` (a callable such as a cpp_extension
function ``kernel(*inputs, *outputs, **attrs)``) a call:

1. checks each input's dtype against the op's table (``dtypes=``; default: the type-mapping table
   below) and makes it C-contiguous and aligned (``np.ascontiguousarray``'s documented copy for
   strided views or misaligned offsets, counted in ``op.copies``);
2. infers the outputs (cached per input shapes/dtypes/attrs) and allocates them from the pool
   *before* the kernel runs, each with 64 guard bytes on both sides filled with a canary;
3. runs the kernel, then checks the guards: a kernel that wrote outside an inferred output raises
   AscendRuntimeError naming the op, the output, its shape and the side and extent of the overrun.

Without ``kernel`` the function itself is the op (like :func:`register_op`, plus the checks).

Dynamic shapes: ``static_shapes=[shapes...]`` with ``kernel_factory(shapes, dtypes) -> kernel``:
the listed input shapes are built when the op is decorated (ahead of time); any other shape builds
its specialised kernel on first use (synchronously: a cpp_extension build is cached on disk, so a
shape costs one compile per machine, and running a generic kernel meanwhile would give the same
results slower -- there is none to fall back on for a shape-specialised Ascend C kernel). Hits and
misses are counted in ``asc.ops.stats()``.
"""

from __future__ import annotations

import threading

import numpy as _np

from ._registry import CustomOp, _publish, _type_error, _value_error

__all__ = ["hybrid_operator", "DTYPE_TABLE"]

#: The type-mapping table: dtype -> (Ascend C type, bytes, required alignment of the data pointer).
DTYPE_TABLE = {
    "float32": ("float", 4, 4),
    "float16": ("half", 2, 2),
    "bfloat16": ("bfloat16_t", 2, 2),
    "float64": ("double", 8, 8),
    "int8": ("int8_t", 1, 1),
    "uint8": ("uint8_t", 1, 1),
    "int16": ("int16_t", 2, 2),
    "uint16": ("uint16_t", 2, 2),
    "int32": ("int32_t", 4, 4),
    "uint32": ("uint32_t", 4, 4),
    "int64": ("int64_t", 8, 8),
    "uint64": ("uint64_t", 8, 8),
    "bool": ("bool", 1, 1),
}

_GUARD = 64          # bytes on each side of an output


def _host_dtype(d):
    return _np.dtype("uint16") if str(d) == "bfloat16" else _np.dtype(str(d))


def _itemsize(d):
    return _host_dtype(d).itemsize


def _canary(d):
    """A guard value a kernel is unlikely to write (and, for floats, not NaN: compared bytewise)."""
    k = _host_dtype(d).kind
    if str(d) == "bfloat16" or k == "f":
        return -1.2345e-19 if str(d) not in ("float16",) else -0.0001234
    if k == "b":
        return True
    return 0x5A if _itemsize(d) == 1 else 0x5A5A


def _asc():
    import pyasc

    return pyasc


def _runtime_error(msg):
    e = _asc().errors
    return e.AscendRuntimeError(e.ErrorCode.FAILURE, msg)


class HybridOp(CustomOp):
    """A hybrid operator (see :func:`hybrid_operator`); ``op.infer(shapes, dtypes)`` gives the outputs'
    shapes and dtypes, ``op.copies`` counts inputs made contiguous, ``op.kernels`` the built
    shape-specialised kernels."""

    def __init__(self, name, fn, kernel, infer_shape, infer_dtype, dtypes, static_shapes, kernel_factory, grad,
                 check_bounds):
        super().__init__(name, self._forward, grad=grad, infer_shape=infer_shape, infer_dtype=infer_dtype,
                         fusable=kernel is None and kernel_factory is None, kind="hybrid", doc=fn.__doc__)
        self.fn = fn
        self.kernel = kernel
        self.kernel_factory = kernel_factory
        self.dtypes = None if dtypes is None else [str(_np.dtype(d)) if d != "bfloat16" else d for d in dtypes]
        self.check_bounds = check_bounds
        self.copies = 0
        self.kernels = {}
        self._infer_cache = {}
        self._klock = threading.Lock()
        self.__wrapped__ = fn
        for shapes in static_shapes or ():
            shapes = [tuple(s) for s in (shapes if isinstance(shapes[0], (list, tuple)) else [shapes])]
            self._kernel_for(tuple(shapes), tuple("float32" for _ in shapes), ahead=True)

    # -- inference --------------------------------------------------------------------------------
    def _reference(self, ctx, *args, **attrs):
        return self.fn(*args, **attrs)

    def _infer(self, shapes, dtypes, attrs):
        key = (shapes, dtypes, tuple(sorted(attrs.items())) if attrs else ())
        try:
            hit = self._infer_cache.get(key)
        except TypeError:  # unhashable attribute values: no caching
            hit, key = None, None
        if hit is not None:
            return hit
        ref = CustomOp(self.name, self._reference, infer_shape=self.infer_shape, infer_dtype=self.infer_dtype)
        res = ref.infer(list(shapes), list(dtypes), **attrs)
        res = res if isinstance(res, list) else [res]
        if key is not None:
            self._infer_cache[key] = res
        return res

    def infer(self, shapes, dtypes=None, **attrs):
        """Output ``(shape, dtype)`` (a list for several outputs) for inputs of ``shapes``/``dtypes``."""
        if isinstance(shapes, tuple) and all(isinstance(d, int) for d in shapes):
            shapes = [shapes]
        dtypes = ["float32"] * len(shapes) if dtypes is None else (
            [dtypes] * len(shapes) if isinstance(dtypes, str) else list(dtypes))
        res = self._infer(tuple(tuple(s) for s in shapes), tuple(str(d) for d in dtypes), attrs)
        return res[0] if len(res) == 1 else res

    # -- kernels ----------------------------------------------------------------------------------
    def _kernel_for(self, shapes, dtypes, ahead=False):
        if self.kernel_factory is None:
            return self.kernel
        key = (shapes, dtypes)
        k = self.kernels.get(key)
        if k is not None:
            self._stats.compile_hits += 1
            return k
        with self._klock:
            k = self.kernels.get(key)
            if k is None:
                k = self.kernel_factory([list(s) for s in shapes], list(dtypes))
                if not callable(k):
                    raise _type_error(f"[{self.name}] kernel_factory returned a non-callable for {shapes}")
                self.kernels[key] = k
                if not ahead:
                    self._stats.compile_misses += 1
            elif not ahead:
                self._stats.compile_hits += 1
        return k

    # -- a call -----------------------------------------------------------------------------------
    def _prepare(self, x, i):
        asc = _asc()
        a = x if isinstance(x, asc.ndarray) else asc.asarray(x)
        dt = str(a.dtype)
        allowed = self.dtypes if self.dtypes is not None else list(DTYPE_TABLE)
        if dt not in allowed:
            raise _type_error(f"[{self.name}] input {i} has dtype {dt}; this operator takes {allowed}",
                              "INVALID_DTYPE")
        align = DTYPE_TABLE.get(dt, (None, 1, 1))[2]
        if not a.flags["C_CONTIGUOUS"] or (a.size and a.__array_interface__["data"][0] % align):
            a = asc.ascontiguousarray(a)  # the documented copy: kernels read dense, aligned memory
            self.copies += 1
        return a

    def _forward(self, ctx, *args, **attrs):
        if self.kernel is None and self.kernel_factory is None:
            return self.fn(*args, **attrs)
        asc = _asc()
        xs = [self._prepare(x, i) for i, x in enumerate(args)]
        shapes = tuple(tuple(a.shape) for a in xs)
        dtypes = tuple(str(a.dtype) for a in xs)
        metas = self._infer(shapes, dtypes, attrs)
        kernel = self._kernel_for(shapes, dtypes)
        bufs, outs = [], []
        for s, d in metas:
            n = int(_np.prod(s, dtype=_np.int64))
            if self.check_bounds:
                # one pool buffer: guard | output | guard, guards filled with the canary value
                g = -(-_GUARD // _itemsize(d))
                buf = asc.full((n + 2 * g,), _canary(d), dtype=d)
                outs.append(buf[g:g + n].reshape(s))
                bufs.append((buf, g, n))
            else:
                outs.append(asc.empty(s, dtype=d))
        kernel(*xs, *outs, **attrs)
        if self.check_bounds:
            for k, ((buf, g, n), (s, d)) in enumerate(zip(bufs, metas)):
                size = _itemsize(d)
                h = _np.ascontiguousarray(buf.numpy()).view(_np.uint8)
                want = _np.ascontiguousarray(asc.full((g,), _canary(d), dtype=d).numpy()).view(_np.uint8)
                before = _np.flatnonzero(h[:g * size] != want)
                after = _np.flatnonzero(h[(g + n) * size:] != want)
                if before.size or after.size:
                    where = []
                    if before.size:
                        where.append(f"{g * size - before[0]} bytes before its start")
                    if after.size:
                        where.append(f"up to {after[-1] + 1} bytes past its end")
                    raise _runtime_error(f"[{self.name}] the kernel wrote outside output {k} (shape {tuple(s)}, "
                                         f"dtype {d}, {n * size} bytes): {' and '.join(where)}; check its tiling "
                                         "against the inferred output shape")
        return outs[0] if len(outs) == 1 else tuple(outs)


def hybrid_operator(fn=None, *, name=None, kernel=None, infer_shape=None, infer_dtype=None, dtypes=None,
                    static_shapes=None, kernel_factory=None, grad=None, check_bounds=True, replace=False):
    """Declares a hybrid operator ``asc.ops.<name>`` (decorator; ``@asc.hybrid_operator`` or with arguments).

    Args:
        name: the op name (default: the function's name).
        kernel: ``kernel(*inputs, *outputs, **attrs)`` writing the pool-allocated outputs (an Ascend C
            kernel launcher from :mod:`pyasc.utils.cpp_extension`). Without it, the function runs.
        infer_shape / infer_dtype: explicit inference (default: abstract tracing of the function).
        dtypes: the input dtypes the kernel takes (default: every dtype of :data:`DTYPE_TABLE`).
        static_shapes / kernel_factory: dynamic shapes (see the module doc).
        grad: ``backward(ctx, *grad_outputs)`` (else autograd differentiates the reference function).
        check_bounds: guard bytes around outputs and the out-of-bounds write check (default True).
    """
    def deco(f):
        if not callable(f):
            raise _type_error(f"[hybrid_operator] expects a function, got {type(f).__name__}")
        if kernel is not None and not callable(kernel):
            raise _type_error(f"[hybrid_operator] kernel must be callable, got {type(kernel).__name__}")
        if static_shapes and kernel_factory is None:
            raise _value_error("[hybrid_operator] static_shapes needs kernel_factory (it builds a kernel per shape)")
        op_name = name or f.__name__
        from ._registry import _check_name

        _check_name(op_name, "hybrid_operator")
        op = HybridOp(op_name, f, kernel, infer_shape, infer_dtype, dtypes, static_shapes, kernel_factory, grad,
                      check_bounds)
        return _publish(op, replace, "hybrid_operator")

    return deco if fn is None else deco(fn)

