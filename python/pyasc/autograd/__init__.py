"""Reverse-mode automatic differentiation of pyasc code: ``asc.grad``, ``asc.vjp``,
``asc.value_and_grad`` (JAX's names and semantics).

``fn`` is ordinary pyasc code: NumPy-style functions called as ``asc.<name>``, the ``asc.ops`` NN
operators called as ``asc.ops.<name>``, array operators, indexing, ``.T``/``reshape``/``sum``... and
registered custom operators (their ``grad`` when one is registered, else their body). The
differentiated arguments reach ``fn`` as :class:`Traced` values; every call with a traced operand
records one node on a tape (python/pyasc/autograd/_tape.py) and runs the op as usual, so the
forward records into the lazy graph and fuses; the backward applies each node's VJP rule in reverse
(rules are pyasc ops too: the backward fuses as well).

Cost: the recording wrappers are swapped into ``pyasc`` / ``pyasc.ops`` only while a trace runs;
outside one, calls are the plain functions. Functions without a rule raise AscendTypeError when they
meet a traced value; :func:`differentiable` lists those with one. Higher-order derivatives nest: ``asc.grad`` of a function
that calls ``asc.grad`` (each trace has a level; a node of an enclosing trace is a value for an inner
one, and the inner backward's rules, being pyasc code, record on the enclosing tape). Gradients are
checked by :func:`pyasc.testing.gradcheck`.
"""

from __future__ import annotations

import functools as _functools
import threading as _threading

from . import _tape
from ._tape import Traced

__all__ = ["grad", "vjp", "value_and_grad", "differentiable", "Traced", "leaf_grad_hook"]

_built = False


def _build():
    """Builds the recording wrappers once (pyasc must be importable: done at first use)."""
    global _built
    if _built:
        return
    with _tape._lock:
        if _built:
            return
        import pyasc as asc

        from ..custom_ops import _registry
        from . import _nd_rules, _nn_rules, _rules

        special = {
            "_getitem": lambda x, idx: x[idx],
            "_astype": lambda x, dt: x.astype(dt),
            "_copy": lambda x: x.copy(),
        }
        for name, rule in {**_rules.asc_rules(), **_nd_rules.asc_nd_rules()}.items():
            orig = special.get(name) or getattr(asc, name, None)
            if orig is not None:
                _tape.WRAPPERS[("asc", name)] = _tape.make_wrapper(rule, orig)
        for name in _nd_rules.CONSTANT_FNS:
            orig = getattr(asc, name, None)
            if orig is not None:
                _tape.WRAPPERS[("asc", name)] = _tape.make_constant_wrapper(orig)
        for name, rule in _nn_rules.ops_rules().items():
            orig = getattr(asc.ops, name, None)
            if orig is not None:
                _tape.WRAPPERS[("ops", name)] = _tape.make_wrapper(rule, orig)
        _registry._autograd_state.record = _tape.record_custom
        _built = True


def differentiable():
    """Sorted names with a derivative rule: ``asc.<name>`` and ``asc.ops.<name>``."""
    _build()
    from ._nd_rules import CONSTANT_FNS

    return sorted(("asc." if s == "asc" else "asc.ops.") + n for s, n in _tape.WRAPPERS
                  if not n.startswith("_") and not (s == "asc" and n in CONSTANT_FNS))


def _asc():
    import pyasc

    return pyasc


def _err(cls, msg, code="INVALID_PARAM"):
    e = _asc().errors
    return getattr(e, cls)(getattr(e.ErrorCode, code), msg)


_depth = _threading.local()  # nesting depth of the traces running on this thread (grad of grad)


def _leaf(x, where, level):
    asc = _asc()
    # a node of an enclosing trace (grad of grad) stays one: this trace's leaf wraps it
    a = x if isinstance(x, (asc.ndarray, Traced)) else asc.asarray(x)
    import numpy as np

    if np.dtype(str(a.dtype)).kind not in "fc":
        raise _err("AscendTypeError", f"[{where}] can only differentiate with respect to floating arrays, got "
                   f"{a.dtype} (shape {tuple(a.shape)})", "INVALID_DTYPE")
    return Traced(a, level=level)


def _argnums(argnums, n, where):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    for i in nums:
        if not isinstance(i, int) or not -n <= i < n:
            raise _err("AscendValueError", f"[{where}] argnums {argnums!r} out of range for {n} positional arguments")
    return tuple(i % n for i in nums), single


def _trace(fn, args, nums, where, kwargs):
    _build()
    level = getattr(_depth, "n", 0) + 1
    leaves = {i: _leaf(args[i], where, level) for i in nums}
    targs = [leaves.get(i, a) for i, a in enumerate(args)]
    _tape.install()
    _depth.n = level
    try:
        out = fn(*targs, **kwargs)
    finally:
        _depth.n = level - 1
        _tape.uninstall()
    return out, leaves


#: Per-thread hook for a gradient that is complete during the backward (see leaf_grad_hook).
_hook = _threading.local()


class leaf_grad_hook:  # noqa: N801 - a context manager, named like a function
    """``with leaf_grad_hook(fn):`` calls ``fn(argnum, grad)`` during the backward of
    :func:`grad`/:func:`value_and_grad` (one loss) as soon as the gradient with respect to
    positional argument ``argnum`` is complete, before the rest of the backward runs (how
    :class:`pyasc.distributed.DataParallel` starts a bucket's all-reduce early). ``grad`` has
    the argument's shape and dtype; the same arrays are returned by the call. The hook is
    per thread; without one the backward does no extra work."""

    def __init__(self, fn):
        self.fn = fn
        self._prev = None

    def __enter__(self):
        self._prev = getattr(_hook, "fn", None)
        _hook.fn = self.fn
        return self

    def __exit__(self, *exc):
        _hook.fn = self._prev
        return False


def _grads_from(outs, cots, leaves):
    asc = _asc()
    total = {}
    hook = getattr(_hook, "fn", None) if len(outs) == 1 else None
    done = {}
    leaf_done = None
    if hook is not None:
        argnum = {id(leaf): i for i, leaf in leaves.items()}

        def leaf_done(leaf, gi):
            i = argnum.get(id(leaf))
            if i is not None and i not in done:
                if gi is None:
                    gi = asc.zeros(leaf.value.shape, dtype=leaf.value.dtype)
                done[i] = _tape._match(gi, leaf.value)
                hook(i, done[i])
    for o, c in zip(outs, cots):
        if not isinstance(o, Traced):
            continue
        g = _tape.backward(o, c, leaf_done)
        for i, leaf in leaves.items():
            gi = g.get(id(leaf))
            if gi is not None:
                total[i] = gi if i not in total else total[i] + gi
    res = {}
    for i, leaf in leaves.items():
        if i in done:  # handed to the hook: return the same arrays
            res[i] = done[i]
            continue
        gi = total.get(i)
        if gi is None:
            gi = asc.zeros(leaf.value.shape, dtype=leaf.value.dtype)
        res[i] = _tape._match(gi, leaf.value)
    return res


def _value(o):
    return o.value if isinstance(o, Traced) else o


def value_and_grad(fn, argnums=0, has_aux=False):
    """``fn``'s value and its gradient with respect to ``args[argnums]`` (JAX's value_and_grad).

    ``fn`` must return a one-element array (the loss; with ``has_aux``, a pair ``(loss, aux)``).
    Returns ``wrapped(*args, **kwargs) -> (value, grad)`` (``((value, aux), grad)`` with has_aux);
    ``grad`` is a tuple when ``argnums`` is a tuple. Gradients have the arguments' shapes and dtypes.
    Raises AscendValueError for a non-scalar output, AscendTypeError for integer arguments.
    """
    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        asc = _asc()
        nums, single = _argnums(argnums, len(args), "value_and_grad")
        out, leaves = _trace(fn, args, nums, "value_and_grad", kwargs)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise _err("AscendValueError", "[value_and_grad] has_aux=True needs fn to return (loss, aux)")
            out, aux = out
        val = _value(out)
        if not isinstance(val, asc.ndarray):
            val = asc.asarray(val)
        if val.size != 1:
            raise _err("AscendValueError", f"[grad] fn must return a one-element array (a loss), got shape "
                       f"{tuple(val.shape)}; use asc.vjp for other outputs", "INVALID_SHAPE")
        g = _grads_from([out], [asc.ones(tuple(val.shape), dtype=val.dtype)], leaves)
        grads = g[nums[0]] if single else tuple(g[i] for i in nums)
        if has_aux:
            aux = _tree_value(aux)
            return (val, aux), grads
        return val, grads

    return wrapped


def _tree_value(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_tree_value(v) for v in x)
    if isinstance(x, dict):
        return {k: _tree_value(v) for k, v in x.items()}
    return _value(x)


def grad(fn, argnums=0, has_aux=False):
    """The gradient function of ``fn`` (JAX's grad): ``asc.grad(loss)(x)`` is d loss / d x.
    See :func:`value_and_grad` for the arguments."""
    vg = value_and_grad(fn, argnums, has_aux)

    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        (val, g) = vg(*args, **kwargs)
        if has_aux:
            return g, val[1]
        return g

    return wrapped


def vjp(fn, *primals, has_aux=False):
    """``(out, vjp_fn)``: ``fn(*primals)`` and the function mapping an output cotangent to one
    cotangent per primal (JAX's vjp). ``out`` may be an array or a tuple of arrays (then the
    cotangent is a tuple); ``vjp_fn`` may be called several times."""
    asc = _asc()
    nums = tuple(range(len(primals)))
    out, leaves = _trace(fn, primals, nums, "vjp", {})
    aux = None
    if has_aux:
        out, aux = out
    multi = isinstance(out, tuple)
    outs = list(out) if multi else [out]
    vals = tuple(_value(o) for o in outs)

    def vjp_fn(cotangent):
        cots = list(cotangent) if multi else [cotangent]
        if len(cots) != len(outs):
            raise _err("AscendValueError", f"[vjp] {len(outs)} outputs but {len(cots)} cotangents")
        cs = []
        for c, v in zip(cots, vals):
            c = c if isinstance(c, asc.ndarray) else asc.asarray(c, dtype=v.dtype)
            if tuple(c.shape) != tuple(v.shape):
                raise _err("AscendValueError", f"[vjp] cotangent shape {tuple(c.shape)} does not match the "
                           f"output shape {tuple(v.shape)}", "INVALID_SHAPE")
            cs.append(c)
        g = _grads_from(outs, cs, leaves)
        return tuple(g[i] for i in nums)

    result = vals if multi else vals[0]
    if has_aux:
        return result, vjp_fn, _tree_value(aux)
    return result, vjp_fn
