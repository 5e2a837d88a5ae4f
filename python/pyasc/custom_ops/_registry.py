"""The custom operator registry: ``@asc.register_op``, ``@asc.register_grad``, ``asc.ops.get``,
``asc.ops.registered``, ``asc.ops.stats``.

A registered op is a :class:`CustomOp` object published as ``asc.ops.<name>``. Calling it runs the
forward body with a fresh :class:`OpContext`; the body is ordinary pyasc code, so every registry
op it calls records into the lazy graph of the current stream and a composite op fuses with its
neighbours exactly like the built-in compositions (``asc.ops.gelu`` is such a composition too).
Nothing is compiled at registration: the lazy graph's program cache compiles one fused loop per
(group, shapes, dtypes) on first use.

Autograd (:mod:`pyasc.autograd`) sees a registered op as one node: its ``grad`` (``backward(ctx,
*grad_outputs)``) when one is registered, otherwise the derivatives of the ops its body calls.
The non-autograd call costs one global read (``_autograd_state.active``) beyond the body.
"""

from __future__ import annotations

import keyword as _keyword
import threading as _threading

__all__ = ["register_op", "register_grad", "unregister_op", "get", "registered", "stats", "reset_stats",
           "CustomOp", "OpContext"]

_lock = _threading.RLock()
_ops: dict = {}           # name -> CustomOp
_builtin_names = None      # asc.ops names that existed before any registration (clash check)


class _AutogradState:
    """Set by pyasc.autograd while a trace is active anywhere in the process: the call fast path
    reads one attribute; only when it is non-zero are arguments checked for traced values."""

    active = 0
    record = None  # pyasc.autograd._tape.record_custom, set on its import


_autograd_state = _AutogradState()

# A registered op's call on an input of memory pyasc does not own (asc.asarray of a NumPy array):
# that memory is volatile (the lazy graph reads it at the recording call), so the body ran node by
# node and the gelu pass could not fire. Within the call, though, the buffer cannot change behind
# the op's back (the call holds the GIL while recording; a NumPy write from another thread during
# the call is the same data race as with NumPy's own ufuncs), so the input is private for the call
# and everything reading it runs before the call returns: a later in-place change of the NumPy array
# never reaches the result. Only for inputs of >= _WINDOW_MIN elements (below that the pybind call
# would be most of the op's cost; the register_op overhead figure is on 16 elements) and only when
# one input qualifies: two imports of overlapping memory are two pyasc storages, which pyasc does
# not order against each other.
_WINDOW_MIN = 1 << 14
_nd_type = None


def _window_input(args):
    """The one large external input to make private for the call, or None."""
    global _nd_type
    if _nd_type is None:
        from .. import _C

        _nd_type = _C.ndarray
    found = None
    for a in args:
        if type(a) is _nd_type and a.size >= _WINDOW_MIN:
            if found is not None:
                return None
            found = a
    return found


def _errors():
    from .. import errors

    return errors


def _value_error(msg, code="INVALID_PARAM"):
    e = _errors()
    return e.AscendValueError(getattr(e.ErrorCode, code), msg)


def _type_error(msg, code="INVALID_PARAM"):
    e = _errors()
    return e.AscendTypeError(getattr(e.ErrorCode, code), msg)


class OpContext:
    """The ``ctx`` of a registered op (``torch.autograd.Function``'s context).

    * ``ctx.save_for_backward(*tensors)`` / ``ctx.saved_tensors``: values the backward needs.
    * ``ctx.needs_input_grad``: one bool per positional input; all False outside autograd, so a
      forward may skip saving.
    * ``ctx.attrs``: the keyword attributes of the call (``op(x, alpha=0.5)`` -> ``{'alpha': 0.5}``);
      any other attribute may be set on ``ctx`` (``ctx.scale = s``) and read in the backward.
    * ``ctx.op_name``: the registered name.
    """

    __slots__ = ("op_name", "needs_input_grad", "attrs", "saved_tensors", "__dict__")

    def __init__(self, op_name, needs_input_grad, attrs):
        self.op_name = op_name
        self.needs_input_grad = needs_input_grad
        self.attrs = attrs
        self.saved_tensors = ()

    def save_for_backward(self, *tensors):
        """Keeps ``tensors`` (arrays or None) for the backward as ``ctx.saved_tensors``."""
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *outputs):
        """torch's name: outputs that get no gradient (accepted for compatibility; pyasc gives
        them zero cotangents)."""
        self.__dict__.setdefault("non_differentiable", []).extend(id(o) for o in outputs)

    def __repr__(self):
        return f"<OpContext of {self.op_name}: attrs={self.attrs!r}, saved={len(self.saved_tensors)}>"


class _OpStats:
    __slots__ = ("calls", "grad_calls", "compile_hits", "compile_misses")

    def __init__(self):
        self.calls = 0
        self.grad_calls = 0
        self.compile_hits = 0
        self.compile_misses = 0

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}


_NO_NEEDS = {}  # arity -> all-False needs_input_grad tuple (shared; tuples are immutable)


def _no_needs(n):
    t = _NO_NEEDS.get(n)
    if t is None:
        t = _NO_NEEDS[n] = (False,) * n
    return t


class CustomOp:
    """A registered operator (``asc.ops.<name>``): call it like a function.

    Attributes: ``name``, ``forward``, ``backward`` (None when no gradient is registered),
    ``infer_shape``, ``infer_dtype``, ``fusable``, ``kind`` ('composite', 'hybrid' or 'library').
    ``op.infer(shapes, dtypes, **attrs)`` returns the output shapes and dtypes without computing.
    """

    def __init__(self, name, forward, *, grad=None, infer_shape=None, infer_dtype=None, fusable=True,
                 kind="composite", doc=None):
        self.name = name
        self.forward = forward
        self.backward = grad
        self.infer_shape = infer_shape
        self.infer_dtype = infer_dtype
        self.fusable = bool(fusable)
        self.kind = kind
        self._stats = _OpStats()
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc if doc is not None else (getattr(forward, "__doc__", None) or
                                                    f"Registered operator {name!r}.")
        self.__module__ = "pyasc.ops"
        self.__wrapped__ = forward
        self._shape_keys = None  # composite ops with static_shapes: the (shapes, dtypes) seen so far

    def __call__(self, *args, **attrs):
        # Fast path (no autograd trace anywhere): forward with an all-False ctx.
        if _autograd_state.active:
            rec = _autograd_state.record(self, args, attrs)
            if rec is not NotImplemented:
                return rec
        if args and type(args[0]).__module__[:5] == "torch":
            # a torch.Tensor (or Parameter): the torch.autograd.Function of asc.torch.op
            fn = self.__dict__.get("_torch_fn")
            if fn is None:
                from . import torch_interop

                fn = self._torch_fn = torch_interop.op(self)
            return fn(*args, **attrs)
        self._stats.calls += 1
        if self._shape_keys is not None:
            self._note_shapes(args)
        ctx = OpContext(self.name, _no_needs(len(args)), attrs)
        win = _window_input(args) if args else None
        if win is not None:
            from .. import _C

            if _C._private_window(win, True):
                try:
                    out = self.forward(ctx, *args, **attrs)
                    if not self.fusable:
                        from .. import lazy

                        lazy.eval(*out) if isinstance(out, tuple) else lazy.eval(out)
                except BaseException:
                    try:
                        _C._private_window(win, False)
                    except BaseException:  # noqa: BLE001 - the forward's error is the one to see
                        pass
                    raise
                _C._private_window(win, False)  # runs what reads the input, then clears the mark
                return out
        out = self.forward(ctx, *args, **attrs)
        if not self.fusable:
            # A fusion boundary: the op's result is computed here, as its own group(s).
            from .. import lazy

            lazy.eval(*out) if isinstance(out, tuple) else lazy.eval(out)
        return out

    def _note_shapes(self, args):
        """Counts a specialisation hit (shapes/dtypes warmed up or seen before) or miss (first use:
        the lazy graph compiles the fused program for it when it first runs)."""
        key = tuple((tuple(a.shape), str(a.dtype)) for a in args if hasattr(a, "shape"))
        if key in self._shape_keys:
            self._stats.compile_hits += 1
        else:
            self._shape_keys.add(key)
            self._stats.compile_misses += 1

    def _warm_up(self, entries):
        """Runs the body once per static (shapes, dtypes) entry on zero inputs and evaluates it, so
        the lazy graph compiles and caches the fused programs before the first real call."""
        from .. import lazy
        import pyasc as asc

        self._shape_keys = set()
        for shapes, dtypes in entries:
            args = [asc.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
            try:
                out = self.forward(OpContext(self.name, _no_needs(len(args)), {}), *args)
                lazy.eval(*out) if isinstance(out, tuple) else lazy.eval(out)
            except Exception as e:
                raise _value_error(f"[register_op] {self.name}: the ahead-of-time run for static shapes "
                                   f"{list(shapes)} dtypes {list(dtypes)} failed: {type(e).__name__}: {e}") from e
            self._shape_keys.add(tuple((tuple(s), str(_dtype_name(d))) for s, d in zip(shapes, dtypes)))

    def run_forward(self, ctx, args, attrs):
        """The forward with a given ctx (autograd and hybrid wrappers call this)."""
        self._stats.calls += 1
        out = self.forward(ctx, *args, **attrs)
        if not self.fusable:
            from .. import lazy

            lazy.eval(*out) if isinstance(out, tuple) else lazy.eval(out)
        return out

    def infer(self, shapes, dtypes=None, **attrs):
        """Output shape(s) and dtype(s) for inputs of ``shapes`` and ``dtypes`` (no compute).

        Uses the registered ``infer_shape`` / ``infer_dtype`` callbacks; otherwise traces the
        forward abstractly over lazy placeholders (:mod:`pyasc.custom_ops._abstract`). Returns
        ``(shape, dtype)`` for one output, a list of them for several.
        """
        from . import _abstract

        return _abstract.infer(self, shapes, dtypes, attrs)

    def __repr__(self):
        g = "with grad" if self.backward is not None else "no grad"
        return f"<asc.ops.{self.name}: {self.kind} operator, {g}, fusable={self.fusable}>"


def _ops_module():
    from .. import ops

    return ops


def _check_name(name, where):
    if not isinstance(name, str):
        raise _type_error(f"[{where}] the operator name must be a str, got {type(name).__name__}")
    if not name.isidentifier() or _keyword.iskeyword(name) or name.startswith("_"):
        raise _value_error(f"[{where}] operator name {name!r} must be a Python identifier not starting "
                           "with '_' (it becomes asc.ops.<name>)")


def _builtins():
    global _builtin_names
    if _builtin_names is None:
        mod = _ops_module()
        _builtin_names = frozenset(n for n in dir(mod) if not n.startswith("_")) - frozenset(_ops)
    return _builtin_names


class OpNamespace:
    """``asc.ops.<namespace>``: the operators of a library loaded with
    ``load_op_library(path, namespace=...)`` (as ``torch.ops.<namespace>.<op>``), so that two
    versions of one library serve side by side. Registered as ``"<namespace>::<op>"``."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        ops = sorted(k for k in vars(self) if not k.startswith("_"))
        return f"<asc.ops.{self._name}: namespace, ops={ops}>"


def _publish_ns(op, replace, where):
    # (lock held) "<namespace>::<op>": the op is an attribute of asc.ops.<namespace>
    ns, short = op.name.split("::", 1)
    mod = _ops_module()
    builtins = _builtins()
    holder = getattr(mod, ns, None)
    if ns in builtins or ns in _ops or (holder is not None and not isinstance(holder, OpNamespace)):
        raise _value_error(f"[{where}] namespace {ns!r} clashes with asc.ops.{ns}; pick another namespace")
    old = _ops.get(op.name)
    if old is not None and not replace:
        raise _value_error(f"[{where}] operator {op.name!r} is already registered ({old.kind}, from "
                           f"{_origin(old.forward)}); unload its library or pick another namespace")
    if holder is None:
        holder = OpNamespace(ns)
        setattr(mod, ns, holder)
    _ops[op.name] = op
    setattr(holder, short, op)
    return op


def _unpublish_ns(name, op):
    # (lock held) removes asc.ops.<ns>.<op>, and the namespace once empty
    ns, short = name.split("::", 1)
    mod = _ops_module()
    holder = getattr(mod, ns, None)
    if isinstance(holder, OpNamespace):
        if getattr(holder, short, None) is op:
            delattr(holder, short)
        if not any(not k.startswith("_") for k in vars(holder)):
            delattr(mod, ns)


def _publish(op, replace, where):
    """Adds ``op`` to the registry and to asc.ops; the clash rules live here (one copy)."""
    with _lock:
        if "::" in op.name:
            return _publish_ns(op, replace, where)
        if op.name in _builtins():
            raise _value_error(f"[{where}] {op.name!r} is a built-in asc.ops name; pick another name "
                               "(built-ins cannot be replaced)")
        old = _ops.get(op.name)
        if old is not None and not replace:
            raise _value_error(f"[{where}] operator {op.name!r} is already registered ({old.kind}, from "
                               f"{_origin(old.forward)}); pass replace=True to replace it or "
                               f"asc.ops.unregister({op.name!r}) first")
        # replace=True replaces the whole op: a gradient registered for the old forward is dropped
        # (it may not match the new body); register it again with register_grad.
        _ops[op.name] = op
        setattr(_ops_module(), op.name, op)
    return op


def _origin(fn):
    code = getattr(fn, "__code__", None)
    if code is not None:
        return f"{code.co_filename}:{code.co_firstlineno}"
    return getattr(fn, "__qualname__", repr(fn))


def _check_callable(fn, what, where):
    if fn is not None and not callable(fn):
        raise _type_error(f"[{where}] {what} must be callable, got {type(fn).__name__}")


def _dtype_name(d):
    import numpy as _np

    return "bfloat16" if str(d) == "bfloat16" else str(_np.dtype(str(d) if not isinstance(d, (type, _np.dtype))
                                                                 else d))


def _static_entries(static_shapes, where):
    """``static_shapes`` -> [(shapes, dtypes)]: each entry lists one shape per input, or one
    ``(shape, dtype)`` pair per input (a bare shape means float32)."""
    entries = []
    for entry in static_shapes:
        if not isinstance(entry, (list, tuple)) or not entry:
            raise _type_error(f"[{where}] each static_shapes entry lists the input shapes, got {entry!r}")
        if all(isinstance(d, int) for d in entry):
            entry = [entry]  # a one-input op given as a bare shape
        shapes, dtypes = [], []
        for item in entry:
            if (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], (list, tuple))
                    and not isinstance(item[1], (list, tuple, int))):
                shape, dt = item
            else:
                shape, dt = item, "float32"
            try:
                shapes.append(tuple(int(v) for v in shape))
                dtypes.append(_dtype_name(dt))
            except (TypeError, ValueError):
                raise _type_error(f"[{where}] bad static_shapes entry {entry!r}: expected shapes or "
                                  "(shape, dtype) pairs") from None
        entries.append((tuple(shapes), tuple(dtypes)))
    return entries


def register_op(name, fn=None, *, grad=None, infer_shape=None, infer_dtype=None, fusable=True, replace=False,
                static_shapes=None):
    """Registers a custom operator ``asc.ops.<name>`` (decorator).

    ``@asc.register_op("CustomGeLU")`` over ``def forward(ctx, x, *, alpha=...)``: the body is pyasc
    code (``asc.*`` / ``asc.ops.*`` calls, arithmetic) and is traced into the lazy graph, so an
    elementwise composition runs as one fused kernel with its neighbours.

    Args:
        name: the operator name, a Python identifier not clashing with a built-in ``asc.ops`` name.
        grad: ``backward(ctx, *grad_outputs) -> grad per positional input`` (None entries for inputs
            without gradient); may also be registered later with :func:`register_grad`. Without one,
            autograd differentiates the body.
        infer_shape: ``fn(*input_shapes, **attrs) -> shape`` (or a list of shapes for several outputs);
            checked against the forward's result and used by ``op.infer``.
        infer_dtype: ``fn(*input_dtypes, **attrs) -> dtype`` (or a list).
        fusable: False makes the op a fusion boundary (its result is computed at the call).
        replace: True replaces an already registered op of that name (default: an error).
        static_shapes: input shapes compiled ahead of time: ``[[(16,), (16,)], [((8, 4), "float16")]]``
            (one shape, or ``(shape, dtype)`` pair, per input; float32 by default). The body runs once
            per entry on zero inputs at registration, so the lazy graph compiles and caches its fused
            programs then; calls count ``compile_hits`` (a warmed-up or already seen shape/dtype set)
            and ``compile_misses`` (a new one: its program compiles when the graph first runs it;
            programs are keyed by structure, so a new shape often reuses one) in ``asc.ops.stats()``.

    Returns the :class:`CustomOp` (so the decorated name is the operator).
    Raises AscendValueError for a bad or clashing name, AscendTypeError for non-callables.
    """
    _check_name(name, "register_op")
    for what, f in (("grad", grad), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
        _check_callable(f, what, "register_op")
    entries = None if static_shapes is None else _static_entries(static_shapes, "register_op")

    def deco(forward):
        _check_callable(forward, "the forward function", "register_op")
        if forward is None:
            raise _type_error("[register_op] the forward function must be callable, got None")
        fwd = forward
        if infer_shape is not None or infer_dtype is not None:
            fwd = _checked_forward(name, forward, infer_shape, infer_dtype)
        op = CustomOp(name, fwd, grad=grad, infer_shape=infer_shape, infer_dtype=infer_dtype, fusable=fusable,
                      doc=getattr(forward, "__doc__", None))
        op.__wrapped__ = forward
        if entries is not None:
            op._warm_up(entries)
        return _publish(op, replace, "register_op")

    return deco if fn is None else deco(fn)


def _as_list(v):
    return list(v) if isinstance(v, list) else [v]


def _checked_forward(name, forward, infer_shape, infer_dtype):
    """The forward followed by a check of its outputs against the declared inference (shapes and
    dtypes of lazy results are known without computing, so this costs no materialisation)."""
    import numpy as _np

    def fwd(ctx, *args, **attrs):
        out = forward(ctx, *args, **attrs)
        outs = list(out) if isinstance(out, tuple) else [out]
        if infer_shape is not None:
            want = _as_list(infer_shape(*[tuple(getattr(a, "shape", ())) for a in args], **attrs))
            got = [tuple(o.shape) for o in outs]
            if [tuple(w) for w in want] != got:
                raise _value_error(f"[{name}] the forward returned shape(s) {got} but infer_shape gives "
                                   f"{[tuple(w) for w in want]} for inputs "
                                   f"{[tuple(getattr(a, 'shape', ())) for a in args]}", "INVALID_SHAPE")
        if infer_dtype is not None:
            want = [_np.dtype(str(d)) for d in _as_list(infer_dtype(*[getattr(a, "dtype", None) for a in args],
                                                                    **attrs))]
            got = [_np.dtype(str(o.dtype)) for o in outs]
            if want != got:
                raise _type_error(f"[{name}] the forward returned dtype(s) {[str(g) for g in got]} but "
                                  f"infer_dtype gives {[str(w) for w in want]}", "INVALID_DTYPE")
        return out

    fwd.__doc__ = forward.__doc__
    return fwd


def register_grad(name, fn=None, *, replace=False):
    """Registers the backward of the registered operator ``name`` (decorator).

    ``@asc.register_grad("CustomGeLU")`` over ``def backward(ctx, grad_output)``: returns one
    gradient per positional input of the forward (a tuple, or a single array for one input; None
    for an input without gradient). ``ctx`` is the forward's context (``ctx.saved_tensors``,
    ``ctx.attrs``, ``ctx.needs_input_grad``).

    Raises AscendValueError when ``name`` is not registered, or already has a gradient and
    ``replace`` is False.
    """
    _check_name(name, "register_grad")

    def deco(backward):
        if not callable(backward):
            raise _type_error(f"[register_grad] the backward of {name!r} must be callable, "
                              f"got {type(backward).__name__}")
        with _lock:
            op = _ops.get(name)
            if op is None:
                raise _value_error(f"[register_grad] no operator {name!r} is registered "
                                   f"(register it with @asc.register_op({name!r}) first)")
            if op.backward is not None and not replace:
                raise _value_error(f"[register_grad] operator {name!r} already has a gradient "
                                   f"({_origin(op.backward)}); pass replace=True to replace it")
            op.backward = backward
        return backward

    return deco if fn is None else deco(fn)


def unregister_op(name):
    """Removes the registered operator ``name`` from ``asc.ops`` (AscendValueError if unknown)."""
    with _lock:
        op = _ops.pop(name, None)
        if op is None:
            raise _value_error(f"[unregister] no operator {name!r} is registered")
        if "::" in name:
            _unpublish_ns(name, op)
            return op
        mod = _ops_module()
        if getattr(mod, name, None) is op:
            delattr(mod, name)
    return op


def get(name):
    """The registered operator ``name`` (AscendValueError listing the registered names if unknown)."""
    op = _ops.get(name)
    if op is None:
        raise _value_error(f"[asc.ops.get] no operator {name!r} is registered; registered: "
                           f"{sorted(_ops) or 'none'}")
    return op


def registered():
    """Sorted names of the registered custom operators."""
    return sorted(_ops)


def stats(name=None):
    """Call counters of the registered operators: ``{name: {'calls', 'grad_calls', 'compile_hits',
    'compile_misses'}}`` (one dict for ``name``). Compile counters count specialised kernels of
    dynamic-shape operators (``static_shapes=``): a hit reuses a built kernel, a miss builds one."""
    if name is not None:
        return get(name)._stats.as_dict()
    return {n: op._stats.as_dict() for n, op in sorted(_ops.items())}


def reset_stats():
    """Zeroes every operator's counters."""
    for op in list(_ops.values()):
        op._stats = _OpStats()
