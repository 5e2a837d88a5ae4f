"""PyTorch interop (``asc.torch``): pyasc operators inside ``torch.autograd``.

``asc.torch.op(name_or_fn)`` returns a function of ``torch.Tensor`` arguments: a
``torch.autograd.Function`` whose forward runs the pyasc operator (a registered ``asc.ops``
name, a :class:`~pyasc.custom_ops.CustomOp`, or any function of pyasc arrays) and whose backward
runs its registered gradient -- or, without one, :func:`pyasc.vjp` of the forward. Tensors cross
with DLPack both ways (``asc.from_dlpack(t)`` / ``torch.from_dlpack(a)``: no copy for CPU
tensors; non-contiguous tensors are passed as strided views). The seed's training scheme --
forward in pyasc, ``loss.backward()`` and ``optimizer.step()`` in PyTorch -- works unchanged.

When torch's CPU autocast is enabled (``torch.autocast("cpu", dtype=torch.bfloat16)``) the forward
runs inside ``pyasc.autocast(dtype)`` with the same dtype.

torch is imported on first use only (it is not a dependency of pyasc). NOTE: this module is
written against torch's documented API (torch.autograd.Function, torch.from_dlpack,
torch.is_autocast_enabled / get_autocast_dtype); torch cannot be installed in pyasc's development
environment, so it is exercised only where torch is installed (tests skip without it).
"""

from __future__ import annotations

import functools

__all__ = ["op", "to_torch", "from_torch"]


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the environment
        import pyasc

        raise pyasc.errors.AscendNotImplementedError(
            pyasc.ErrorCode.API_NOT_SUPPORT, "[asc.torch] PyTorch is not installed (pip install torch)") from e
    return torch


def to_torch(a):
    """A ``torch.Tensor`` viewing the pyasc array ``a`` (DLPack, no copy; pending values are computed)."""
    import pyasc as asc

    torch = _torch()
    if not isinstance(a, asc.ndarray):
        a = asc.asarray(a)
    asc.eval(a)
    return torch.from_dlpack(a)


def from_torch(t):
    """A pyasc array viewing the CPU tensor ``t`` (DLPack, no copy; ``t`` is detached first)."""
    import pyasc as asc

    return asc.from_dlpack(t.detach())


def _autocast_dtype(torch):
    try:
        if torch.is_autocast_enabled("cpu"):
            return str(torch.get_autocast_dtype("cpu")).replace("torch.", "")
    except TypeError:  # torch < 2.4: the per-device functions
        if torch.is_autocast_cpu_enabled():
            return str(torch.get_autocast_cpu_dtype()).replace("torch.", "")
    return None


def _resolve(name_or_fn):
    import pyasc as asc

    if isinstance(name_or_fn, str):
        return asc.ops.get(name_or_fn)
    if callable(name_or_fn):
        return name_or_fn
    raise asc.errors.AscendTypeError(asc.ErrorCode.INVALID_PARAM,
                                     f"[asc.torch.op] expects an op name or a function, got {type(name_or_fn).__name__}")


def op(name_or_fn):
    """A torch-callable version of a pyasc operator (see the module doc). Keyword arguments of the
    call are the op's attributes; positional arguments are tensors (or numbers)."""
    import pyasc as asc
    from ._registry import CustomOp, OpContext

    torch = _torch()
    target = _resolve(name_or_fn)

    class _PyascFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, attrs, *tensors):
            xs = [from_torch(t) if isinstance(t, torch.Tensor) else t for t in tensors]
            amp = _autocast_dtype(torch)
            scope = asc.autocast(amp) if amp else _null()
            differentiable = [isinstance(t, torch.Tensor) and t.requires_grad for t in tensors]
            with scope:
                if isinstance(target, CustomOp) and target.backward is not None:
                    octx = OpContext(target.name, tuple(differentiable), attrs)
                    out = target.run_forward(octx, xs, attrs)
                    ctx.pyasc = ("registered", octx)
                elif any(differentiable):
                    idx = [i for i, d in enumerate(differentiable) if d]

                    def f(*diff):
                        args = list(xs)
                        for i, v in zip(idx, diff):
                            args[i] = v
                        return target(*args, **attrs)

                    out, vjp_fn = asc.vjp(f, *[xs[i] for i in idx])
                    ctx.pyasc = ("vjp", vjp_fn, idx)
                else:
                    out = target(*xs, **attrs)
                    ctx.pyasc = None
            ctx.n_inputs = len(tensors)
            if isinstance(out, tuple):
                return tuple(to_torch(o) for o in out)
            return to_torch(out)

        @staticmethod
        def backward(ctx, *grads):
            gs = [from_torch(g.contiguous()) for g in grads]
            grads_in = [None] * ctx.n_inputs
            kind = ctx.pyasc[0] if ctx.pyasc else None
            if kind == "registered":
                octx = ctx.pyasc[1]
                res = target.backward(octx, *gs)
                res = res if isinstance(res, (tuple, list)) else (res,)
                grads_in = list(res[: ctx.n_inputs]) + [None] * (ctx.n_inputs - len(res))
            elif kind == "vjp":
                _, vjp_fn, idx = ctx.pyasc
                res = vjp_fn(tuple(gs) if len(gs) > 1 else gs[0])
                for i, r in zip(idx, res):
                    grads_in[i] = r
            return (None,) + tuple(to_torch(g) if g is not None else None for g in grads_in)

    @functools.wraps(target)
    def call(*tensors, **attrs):
        return _PyascFunction.apply(attrs, *tensors)

    return call


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
