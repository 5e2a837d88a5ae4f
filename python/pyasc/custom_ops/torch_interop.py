"""PyTorch interop (``asc.torch``): pyasc operators inside ``torch.autograd``, zero-copy tensors.

* :func:`op` ``(name_or_fn)`` returns a function of ``torch.Tensor`` arguments: a
  ``torch.autograd.Function`` whose forward runs the pyasc operator (a registered ``asc.ops`` name,
  a built-in ``asc.ops`` name, a :class:`~pyasc.custom_ops.CustomOp`, or any function of pyasc
  arrays) and whose backward runs its registered gradient -- or, without one, the backward of
  :func:`pyasc.vjp` over the forward. Calling a registered op on a ``torch.Tensor``
  (``asc.ops.CustomGeLU(t)``) does the same. The seed's training scheme -- forward in pyasc,
  ``loss.backward()`` and ``optimizer.step()`` in PyTorch -- works unchanged.
* :func:`to_torch` / :func:`from_torch`: DLPack both ways, no copy (the tensor and the array share
  memory, strides included; a write through one is seen by the other).

Semantics follow torch's own host-memory bridge (``Tensor.numpy()`` / ``torch.from_numpy``):
``from_torch`` refuses a tensor that requires grad (``from_torch(t.detach())``), one with the
conjugate or negative bit set, a non-CPU device, a non-strided layout and the dtypes pyasc does not
hold (complex32, float8, quantized) -- each an AscendError subclass of what ``Tensor.numpy()``
raises; ``to_torch`` refuses negative strides (as ``torch.from_numpy``) and warns for a read-only
array, as ``torch.from_numpy`` does, since torch tensors cannot be read-only.

Autocast: inside ``with pyasc.autocast(...)`` the forward runs in that region (it runs on the
calling thread). Without one, torch's CPU autocast maps onto pyasc's:
``torch.autocast("cpu", dtype=torch.bfloat16)`` runs the forward in ``pyasc.autocast("bfloat16")``
(torch's CPU lower-precision and float32 op lists are pyasc.amp's). The backward runs outside any
autocast region, in the dtypes the forward saved (torch's rule for backward passes).

torch is imported on first use only (a test-only dependency of pyasc): ``import pyasc`` does not
import it, and this module costs nothing until a tensor crosses.
"""

from __future__ import annotations

import functools
import warnings

__all__ = ["op", "to_torch", "from_torch", "SHARED_DTYPES"]

#: dtypes torch and pyasc both hold (the names of both libraries); a tensor of any other torch dtype
#: (complex32, the float8 and bits types, quantized dtypes) cannot be viewed as a pyasc array.
SHARED_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
                 "float16", "bfloat16", "float32", "float64", "complex64", "complex128")
_SHARED = frozenset(SHARED_DTYPES)
_DIFFERENTIABLE = frozenset(("float16", "bfloat16", "float32", "float64", "complex64", "complex128"))


def _asc():
    import pyasc

    return pyasc


def _error(cls_name, code, msg):
    e = _asc().errors
    return getattr(e, cls_name)(getattr(e.ErrorCode, code), msg)


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise _error("AscendNotImplementedError", "API_NOT_SUPPORT",
                     "[asc.torch] PyTorch is not installed (pip install torch)") from e
    return torch


def _describe(t):
    return f"shape {tuple(t.shape)}, dtype {t.dtype}, device {t.device}"


def _check_tensor(t, where):
    """The checks Tensor.numpy() makes, with pyasc's error classes (each the builtin torch raises)."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise _error("AscendTypeError", "INVALID_PARAM", f"[{where}] expected a torch.Tensor, got {type(t).__name__}")
    if t.layout != torch.strided:
        raise _error("AscendTypeError", "INVALID_PARAM",
                     f"[{where}] cannot view a {t.layout} tensor ({_describe(t)}) as a pyasc array; "
                     "use Tensor.to_dense() first")
    if t.device.type != "cpu":
        raise _error("AscendTypeError", "INVALID_DEVICE",
                     f"[{where}] the tensor ({_describe(t)}) is not in host memory: pyasc arrays live on the "
                     "CPU; use Tensor.cpu() to copy it first")
    name = str(t.dtype)[6:]  # 'torch.float32' -> 'float32'
    if name not in _SHARED:
        raise _error("AscendTypeError", "INVALID_DTYPE",
                     f"[{where}] unsupported dtype {t.dtype} ({_describe(t)}): pyasc and torch share "
                     f"{', '.join(SHARED_DTYPES)}")
    if t.is_conj():
        raise _error("AscendRuntimeError", "INVALID_PARAM",
                     f"[{where}] the tensor ({_describe(t)}) has the conjugate bit set; use "
                     "tensor.resolve_conj() first")
    if t.is_neg():
        raise _error("AscendRuntimeError", "INVALID_PARAM",
                     f"[{where}] the tensor ({_describe(t)}) has the negative bit set; use "
                     "tensor.resolve_neg() first")


def _view(t, where):
    """A pyasc array over the (already detached) tensor's memory, after the checks.

    The capsule comes from torch's C exporter and goes straight to pyasc's importer: the checks
    above are the ones ``Tensor.__dlpack__`` makes in Python for a CPU tensor (with the device
    known, no stream to pass), and skipping its Python wrappers and ``__dlpack_device__`` saves
    about 30 us per tensor (1 us vs 30 us at load 20), twice per forward+backward step. A tensor
    that requires grad takes the protocol path, which raises torch's own error as before."""
    _check_tensor(t, where)
    if t.requires_grad:
        return _asc().from_dlpack(t)
    from .. import _C

    return _C._from_capsule(_TORCH_EXPORT[0](t) if _TORCH_EXPORT else _torch_exporter()(t))


_TORCH_EXPORT = []


def _torch_exporter():
    """torch's C DLPack exporter: the versioned one when torch has it (>= 2.9), else the legacy one."""
    torch = _torch()
    _TORCH_EXPORT.append(getattr(torch._C, "_to_dlpack_versioned", None) or torch._C._to_dlpack)
    return _TORCH_EXPORT[0]


def from_torch(t):
    """A pyasc array viewing the CPU tensor ``t`` (DLPack, no copy: same memory, same strides).

    Raises (as ``Tensor.numpy()``): AscendRuntimeError when ``t`` requires grad (view
    ``t.detach()``) or has the conjugate/negative bit set; AscendTypeError for a non-CPU device, a
    sparse or other non-strided layout, or a dtype not in :data:`SHARED_DTYPES`.
    """
    where = "asc.torch.from_torch"
    _check_tensor(t, where)
    if t.requires_grad:
        raise _error("AscendRuntimeError", "INVALID_PARAM",
                     f"[{where}] can't view a tensor that requires grad ({_describe(t)}) outside autograd; "
                     "use from_torch(tensor.detach()) (as Tensor.numpy())")
    return _asc().from_dlpack(t)


def _prepare(a, where):
    asc = _asc()
    if not isinstance(a, asc.ndarray):
        a = asc.asarray(a)
    asc.eval(a)
    if str(a.dtype) not in _SHARED:
        raise _error("AscendTypeError", "INVALID_DTYPE",
                     f"[{where}] pyasc dtype {a.dtype} (shape {tuple(a.shape)}) has no torch equivalent")
    return a


def _negative_strides(a):
    return any(s < 0 and n > 1 for s, n in zip(a.strides, a.shape))


def to_torch(a):
    """A ``torch.Tensor`` viewing the pyasc array ``a`` (DLPack, no copy; pending values are computed
    first). Anything else array-like is converted with ``asc.asarray`` first.

    Raises AscendValueError for negative strides (``a[::-1]``: torch tensors cannot have them, as
    ``torch.from_numpy``; ``to_torch(a.copy())``). A read-only array gives a writable tensor over
    the same memory with torch's UserWarning (torch tensors cannot be read-only; writing through
    it is undefined behaviour, as for ``torch.from_numpy`` of a read-only NumPy array).
    """
    torch = _torch()
    where = "asc.torch.to_torch"
    if isinstance(a, torch.Tensor):
        raise _error("AscendTypeError", "INVALID_PARAM", f"[{where}] the argument is already a torch.Tensor")
    a = _prepare(a, where)
    if _negative_strides(a):
        raise _error("AscendValueError", "INVALID_PARAM",
                     f"[{where}] at least one stride of the array (shape {tuple(a.shape)}, strides "
                     f"{tuple(a.strides)}) is negative, and torch tensors with negative strides are not "
                     "supported; use to_torch(a.copy())")
    if not a.flags.writeable:
        warnings.warn(f"[{where}] the given pyasc array is not writable, and PyTorch does not support non-writable "
                      "tensors: writing to this tensor is undefined behaviour (copy the array to protect its data)",
                      UserWarning, stacklevel=2)
    return torch.from_dlpack(a)


def _result_to_torch(torch, a, where):
    """A forward output or gradient as a tensor: a view when torch can hold one, else a copy (negative
    strides; read-only results, so that torch writes cannot reach memory pyasc treats as constant).

    The capsule goes from pyasc's exporter straight to torch's importer, without
    ``torch.from_dlpack``'s Python (device query, protocol negotiation: 3 us vs 10 us at load 20),
    and as the legacy (unversioned) struct, which pyasc refuses to fill for a read-only array -- the
    read-only test without building ``a.flags`` (20 us)."""
    from .. import _C

    a = _prepare(a, where)
    if not _negative_strides(a):
        try:
            cap = _C._to_dlpack(a, None, None, None)
        except BufferError:  # read-only: copied below
            pass
        else:
            return torch._C._from_dlpack(cap)
    return torch._C._from_dlpack(_C._to_dlpack(_asc().array(a, copy=True), None, None, None))


def _torch_autocast_dtype(torch):
    """The pyasc dtype name for torch's enabled CPU autocast, else None."""
    try:
        enabled = torch.is_autocast_enabled("cpu")
        dt = torch.get_autocast_dtype("cpu") if enabled else None
    except TypeError:  # torch < 2.4: the per-device functions
        enabled = torch.is_autocast_cpu_enabled()
        dt = torch.get_autocast_cpu_dtype() if enabled else None
    return str(dt)[6:] if enabled else None


class _PrivateWindow:
    """The call window of asc.torch.op: the pyasc views of its tensors count as private memory.

    Memory torch owns may change behind pyasc's back, so the lazy graph normally runs every node
    reading a view of it at the recording call (Storage::volatile_bytes) -- a composite body then
    runs op by op and graph passes (the gelu pass) cannot fire. Inside the forward (or backward) of
    the autograd Function, though, torch cannot touch those tensors: the call owns them. So the views
    are marked private (``_C._private_window``) for the call only, and when the window closes every
    pending node reading or writing them runs first, then the mark goes: no deferred read of torch
    memory outlives the call (torch may change the tensor right after; saved inputs are guarded by
    torch's version counter, which the backward checks before reopening the window on them).

    Tensors that share a torch storage with another tensor of the same window are left volatile:
    two imports of one memory are two pyasc storages, and pyasc orders reads and writes per storage.
    """

    __slots__ = ("_views",)

    def __init__(self, pairs):
        # pairs: (_storage_key(tensor), pyasc view of the tensor); a shared storage stays volatile
        count = {}
        for k, _ in pairs:
            count[k] = count.get(k, 0) + 1
        self._views = [v for k, v in pairs if count[k] == 1]

    def __enter__(self):
        from .. import _C

        opened = []
        try:
            for v in self._views:
                if _C._private_window(v, True):
                    opened.append(v)
        finally:
            self._views = opened
        return self

    def __exit__(self, exc_type, exc, tb):
        from .. import _C

        first = None
        for v in self._views:  # every mark is cleared, even when pending work fails
            try:
                _C._private_window(v, False)
            except BaseException as e:  # noqa: BLE001 - re-raised below unless the call already failed
                if first is None:
                    first = e
        self._views = []
        if first is not None and exc_type is None:
            raise first
        return False


def _storage_key(t):
    try:
        return t.untyped_storage().data_ptr()
    except (AttributeError, RuntimeError, NotImplementedError):  # storage-less tensors: their own key
        return ("id", id(t))


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NULL = _Null()


def _late(ns, name):
    """Calls ``ns.<name>`` looked up at each call, not the function object of now: asc.vjp swaps
    recording wrappers into asc / asc.ops while it traces, and amp's policy wrappers sit there too."""

    def call(*args, **kwargs):
        return getattr(ns, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = getattr(getattr(ns, name), "__doc__", None)
    call.__wrapped_op__ = getattr(ns, name)  # its signature binds keyword tensors (_positional_binder)
    return call


def _resolve(name_or_fn):
    asc = _asc()
    from ._registry import CustomOp

    if isinstance(name_or_fn, str):
        if name_or_fn in asc.ops.registered():
            return asc.ops.get(name_or_fn)
        fn = getattr(asc.ops, name_or_fn, None) if not name_or_fn.startswith("_") else None
        if callable(fn) and not isinstance(fn, type):
            return _late(asc.ops, name_or_fn)  # a built-in asc.ops operator: its derivative rule
        return asc.ops.get(name_or_fn)  # the registry's error, listing the registered names
    if isinstance(name_or_fn, CustomOp):
        return name_or_fn
    if callable(name_or_fn):
        name = getattr(name_or_fn, "__name__", None)
        for ns in (asc.ops, asc):
            if isinstance(name, str) and getattr(ns, name, None) is name_or_fn:
                return _late(ns, name)  # asc.ops.linear / asc.tanh passed as objects
        return name_or_fn
    raise _error("AscendTypeError", "INVALID_PARAM",
                 f"[asc.torch.op] expects an op name or a function, got {type(name_or_fn).__name__}")


def _label(target):
    return f"asc.torch.op({getattr(target, '__name__', type(target).__name__)})"


def _function_class(target, stage=False):
    """The torch.autograd.Function running ``target`` (one class per target and staging mode)."""
    torch = _torch()
    asc = _asc()
    from torch.autograd.function import once_differentiable

    from ._registry import CustomOp, OpContext

    label = _label(target)
    registered = isinstance(target, CustomOp)

    def _forward_body(ctx, attrs, kw_keys, needs, npos, xs, args, torch_amp):
        kw = dict(attrs, **dict(zip(kw_keys, xs[npos:]))) if kw_keys else attrs
        pos = xs[:npos]
        amp = None if asc.is_autocast_enabled() else torch_amp
        state = None
        with asc.autocast(amp) if amp else _NULL:
            if not any(needs):
                out = target(*pos, **kw)
            elif registered and target.backward is not None:
                if any(needs[npos:]):
                    raise _error("AscendTypeError", "INVALID_PARAM",
                                 f"[{label}] keyword tensor(s) {[k for k, n in zip(kw_keys, needs[npos:]) if n]} "
                                 "require grad, but a registered gradient covers the positional inputs only; "
                                 "pass them positionally")
                octx = OpContext(target.name, tuple(needs[:npos]), kw)
                out = target.run_forward(octx, pos, kw)
                state = ("registered", octx)
            else:
                if registered and target.kind == "library":
                    raise _error("AscendNotImplementedError", "API_NOT_SUPPORT",
                                 f"[{label}] operator {target.name!r} has no gradient, but input(s) "
                                 f"{[i for i, n in enumerate(needs) if n]} require grad: register one with "
                                 f"asc.register_grad({target.name!r}), or call it under torch.no_grad() "
                                 "or on detached tensors")
                idx = [i for i, n in enumerate(needs) if n]

                def f(*diff):
                    vals = list(xs)
                    for i, v in zip(idx, diff):
                        vals[i] = v
                    k = dict(attrs, **dict(zip(kw_keys, vals[npos:]))) if kw_keys else attrs
                    return target(*vals[:npos], **k)

                try:
                    out, vjp_fn = asc.vjp(f, *[xs[i] for i in idx])
                except asc.errors.AscendTypeError as e:
                    if "without a derivative rule" not in e.message:
                        raise
                    what = (f"operator {target.name!r} has no registered gradient and its body"
                            if registered else "the function")
                    raise _error("AscendNotImplementedError", "API_NOT_SUPPORT",
                                 f"[{label}] {what} cannot be differentiated, but input(s) {idx} require grad: "
                                 f"{e.message}" + (f"; register one with asc.register_grad({target.name!r})"
                                                   if registered else "") +
                                 ", or call it under torch.no_grad() or on detached tensors") from e
                state = ("vjp", vjp_fn, idx)
        multi = isinstance(out, tuple)
        res = tuple(_result_to_torch(torch, o, label) for o in (out if multi else (out,)))
        if state is not None:
            frozen = [r for r in res if str(r.dtype)[6:] not in _DIFFERENTIABLE]
            if frozen:
                ctx.mark_non_differentiable(*frozen)
            # torch's version counters: the backward raises torch's own error if an input was
            # modified in place after the forward (the pyasc views alias the inputs' memory)
            ctx.save_for_backward(*[a for a in args if isinstance(a, torch.Tensor)])
        ctx.pyasc_state = state
        ctx.pyasc_n = (len(args), multi)
        # the backward reopens the window on the views its state may read (torch's version check first)
        ctx.pyasc_views = [(_storage_key(a), v) for a, v in zip(args, xs) if isinstance(a, torch.Tensor)
                           and isinstance(v, asc.ndarray)] if state is not None and not stage else []
        return res if multi else res[0]

    def _backward_body(ctx, gs, n, multi, state):
        grads_in = [None] * n
        if state[0] == "registered":
            octx = state[1]
            target._stats.grad_calls += 1
            res = target.backward(octx, *gs)
            res = list(res) if isinstance(res, (tuple, list)) else [res]
            grads_in[: len(res)] = res[:n]
        else:
            _, vjp_fn, idx = state
            res = vjp_fn(tuple(gs) if multi else gs[0])
            for i, r in zip(idx, res):
                grads_in[i] = r
        needs = ctx.needs_input_grad[1:]  # (backward runs only where grad mode was on at the forward)
        return (None,) + tuple(_result_to_torch(torch, g, label) if g is not None and needs[i] else None
                               for i, g in enumerate(grads_in))

    class PyascFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, spec, *args):
            attrs, kw_keys, grad_mode, torch_amp = spec
            npos = len(args) - len(kw_keys)
            # needs_input_grad follows requires_grad even under torch.no_grad(): gate on the caller's mode
            needs = ctx.needs_input_grad[1:] if grad_mode else (False,) * len(args)
            xs = [_view(a.detach(), label) if isinstance(a, torch.Tensor) else a for a in args]
            if stage:
                xs = [asc.array(v) if isinstance(v, asc.ndarray) else v for v in xs]
                pairs = []
            else:
                pairs = [(_storage_key(a), v) for a, v in zip(args, xs) if isinstance(a, torch.Tensor)]
            with _PrivateWindow(pairs):
                return _forward_body(ctx, attrs, kw_keys, needs, npos, xs, args, torch_amp)

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            ctx.saved_tensors  # noqa: B018 - raises if a saved input was modified in place
            n, multi = ctx.pyasc_n
            state = ctx.pyasc_state
            # detached: an incoming gradient may itself require grad (torch.autograd.grad(out, x,
            # g) with such a g); the backward is once differentiable and only reads its values
            gs = [_view(g.detach(), label) if g is not None else None for g in grads]
            if stage:
                gs = [asc.array(g) if g is not None else None for g in gs]
                pairs = []
            else:
                pairs = ctx.pyasc_views + [(_storage_key(g), v) for g, v in zip(grads, gs) if g is not None]
            with _PrivateWindow(pairs):
                return _backward_body(ctx, gs, n, multi, state)

    PyascFunction.__name__ = PyascFunction.__qualname__ = f"PyascFunction[{label[13:-1]}]"
    return PyascFunction


def _positional_binder(target):
    """For a plain function: moves keyword tensors that the signature also accepts positionally
    (``linear(x, w, bias=b)``) into the positional arguments, filling skipped parameters with their
    defaults -- asc.vjp differentiates positional operands only. None when not applicable."""
    import inspect

    from ._registry import CustomOp

    if isinstance(target, CustomOp):
        return None
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None

    def bind(args, kwargs, is_tensor):
        args, kwargs = list(args), dict(kwargs)
        for p in params[len(args):]:
            if p.kind is not p.POSITIONAL_OR_KEYWORD or not any(is_tensor(v) for v in kwargs.values()):
                break
            if p.name in kwargs:
                args.append(kwargs.pop(p.name))
            elif p.default is not p.empty:
                args.append(p.default)
            else:
                break
        return args, kwargs

    return bind


def _caller(target, fn_cls):
    torch = _torch()
    apply = fn_cls.apply
    tensor = torch.Tensor
    binder = _positional_binder(getattr(target, "__wrapped_op__", target))

    grad_enabled = torch.is_grad_enabled

    @functools.wraps(target)
    def call(*args, **kwargs):
        # the caller's grad mode and torch autocast state are read here: the forward runs with grad
        # mode off, and its view of torch's autocast state is not the caller's in every torch version
        mode, amp = grad_enabled(), _torch_autocast_dtype(torch)
        kw_keys = tuple(k for k, v in kwargs.items() if isinstance(v, tensor))
        if kw_keys and binder is not None:
            args, kwargs = binder(args, kwargs, lambda v: isinstance(v, tensor))
            kw_keys = tuple(k for k, v in kwargs.items() if isinstance(v, tensor))
        if kw_keys:
            attrs = {k: v for k, v in kwargs.items() if k not in kw_keys}
            return apply((attrs, kw_keys, mode, amp), *args, *(kwargs[k] for k in kw_keys))
        return apply((kwargs, (), mode, amp), *args)

    call.Function = fn_cls
    return call


def op(name_or_fn, *, stage=False):
    """A torch-callable version of a pyasc operator (see the module doc).

    ``name_or_fn``: a registered op name, a built-in ``asc.ops`` name, a CustomOp, or any function of
    pyasc arrays. Positional arguments are tensors (or numbers, None...); keyword tensors are inputs
    too (differentiated through ``asc.vjp``; a registered gradient covers positional inputs only),
    other keyword arguments are the op's attributes. Returns a ``torch.Tensor`` (a tuple for several
    outputs; integer/bool outputs are marked non-differentiable). The backward is once
    differentiable (double backward raises torch's error). ``call.Function`` is the
    ``torch.autograd.Function`` class.

    Zero-copy inputs still fuse: memory torch owns may change behind pyasc's back, so the lazy graph
    normally runs every node reading a view of it at the call, but inside the forward and backward
    torch cannot touch those tensors, so their views count as private for the call only (a
    composite body fuses whole; CustomGeLU's gelu pass fires), and everything pending on them runs
    before the call returns (no later read of torch memory; inputs sharing one torch storage stay
    volatile). ``stage=True`` copies each input tensor (and each incoming gradient) into pyasc memory
    first instead of viewing it: one memory pass each, no longer needed for fusion; kept for callers
    that want the op's pyasc state independent of torch's memory.

    Raises AscendNotImplementedError at the forward when an input requires grad and the op has no
    way to differentiate: a loaded library op without a registered gradient, or a body calling a
    function without a derivative rule (the message names the op and ``asc.register_grad``).
    """
    target = _resolve(name_or_fn)
    from ._registry import CustomOp

    if isinstance(target, CustomOp) and not stage:
        cached = target.__dict__.get("_torch_fn")
        if cached is not None and cached.__wrapped__ is target:
            return cached
        target._torch_fn = _caller(target, _function_class(target))
        return target._torch_fn
    return _caller(target, _function_class(target, stage))
