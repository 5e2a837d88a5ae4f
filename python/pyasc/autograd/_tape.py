"""The tape: traced values, the recording wrappers and the reverse pass.

A :class:`Traced` wraps a pyasc array (``.value``) and remembers the op that produced it (its
rule, the unwrapped operands and attributes, its traced parents). ``asc.grad``/``asc.vjp`` wrap
their inputs in leaves and run the user function while the *recording wrappers* are installed
in ``pyasc`` and ``pyasc.ops`` (a process-wide, reference-counted swap of the module attributes
that have a rule). A wrapper called without traced operands calls the original at once; with
traced operands it runs the original on the values (so the forward records into the lazy graph
and fuses as usual) and returns a new Traced node. Outside any trace the module attributes are the
originals: the normal path pays nothing.

The reverse pass visits nodes in reverse topological order and calls each node's VJP rule once
(``rule(g, out, *operand_values, needs=..., **attrs)`` -> one cotangent per positional operand,
a list for a sequence operand, None where no gradient flows); cotangents of a node used several
times are summed.
"""

from __future__ import annotations

import threading as _threading

import numpy as _np

_lock = _threading.RLock()
_installed = 0
_saved: list = []           # (module, name, original) restored on uninstall
WRAPPERS: dict = {}         # (namespace, name) -> recording wrapper (built once)
RULES: dict = {}            # (namespace, name) -> (rule, original-getter)


def _asc():
    import pyasc

    return pyasc


def _err(cls, msg, code="INVALID_PARAM"):
    e = _asc().errors
    return getattr(e, cls)(getattr(e.ErrorCode, code), msg)


class Traced:
    """A value being differentiated (what ``asc.grad``'s function receives instead of an array).

    It supports the ndarray operators, indexing, ``.T``, ``shape``/``dtype``/``ndim``/``size`` and
    the methods ``reshape, transpose, sum, mean, max, min, prod, var, std, astype, ravel, flatten,
    squeeze, swapaxes, dot, clip, copy``; pyasc functions called as ``asc.<name>`` /
    ``asc.ops.<name>`` record it. ``.value`` is the underlying pyasc array (reading it does not
    stop the trace of later ops; its derivative is not tracked).
    """

    __slots__ = ("value", "rule", "vals", "attrs", "parents", "level", "__weakref__")
    __array_priority__ = 10000
    # NumPy's operators return NotImplemented for us (np_array * traced -> Traced.__rmul__)
    __array_ufunc__ = None

    def __init__(self, value, rule=None, vals=(), attrs=None, parents=(), level=1):
        self.value = value
        self.rule = rule
        self.vals = vals
        self.attrs = attrs
        self.parents = parents  # tuple of (path, Traced): path is (i,) or (i, j) for a sequence operand
        # nesting depth of the trace that owns this node (grad of grad): a node's value is a plain
        # array at level 1, a node of the enclosing trace at level 2, ...
        self.level = level

    # -- array-like attributes ----------------------------------------------------------------
    shape = property(lambda self: self.value.shape)
    dtype = property(lambda self: self.value.dtype)
    ndim = property(lambda self: self.value.ndim)
    size = property(lambda self: self.value.size)
    T = property(lambda self: _call("transpose", self))
    mT = property(lambda self: _call("swapaxes", self, -1, -2))

    def __len__(self):
        return len(self.value)

    def __repr__(self):
        return f"Traced({self.value!r})"

    def __array__(self, *a, **k):
        raise _err("AscendTypeError", "[asc.grad] a traced value reached a function without a derivative "
                   "rule (or one imported as a bare name instead of called as asc.<name>/asc.ops.<name>); "
                   "see asc.autograd.differentiable() for the functions with rules, or take .value to "
                   "stop the gradient")

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        return float(self.value)

    def item(self):
        return self.value.item()

    def numpy(self):
        return self.value.numpy()

    # -- operators ----------------------------------------------------------------------------
    def __add__(self, o): return _call("add", self, o)
    def __radd__(self, o): return _call("add", o, self)
    def __sub__(self, o): return _call("subtract", self, o)
    def __rsub__(self, o): return _call("subtract", o, self)
    def __mul__(self, o): return _call("multiply", self, o)
    def __rmul__(self, o): return _call("multiply", o, self)
    def __truediv__(self, o): return _call("divide", self, o)
    def __rtruediv__(self, o): return _call("divide", o, self)
    def __pow__(self, o): return _call("power", self, o)
    def __rpow__(self, o): return _call("power", o, self)
    def __matmul__(self, o): return _call("matmul", self, o)
    def __rmatmul__(self, o): return _call("matmul", o, self)
    def __neg__(self): return _call("negative", self)
    def __pos__(self): return self
    def __abs__(self): return _call("abs", self)
    def __getitem__(self, idx): return _call("_getitem", self, idx)
    # comparisons give plain (non-differentiable) arrays
    def __lt__(self, o): return self.value < _v(o)
    def __le__(self, o): return self.value <= _v(o)
    def __gt__(self, o): return self.value > _v(o)
    def __ge__(self, o): return self.value >= _v(o)
    def __eq__(self, o): return self.value == _v(o)  # noqa: E704
    def __ne__(self, o): return self.value != _v(o)
    __hash__ = object.__hash__

    # -- methods ------------------------------------------------------------------------------
    def reshape(self, *shape, **kw):
        shape = shape[0] if len(shape) == 1 else shape
        return _call("reshape", self, shape, **kw)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 else (axes or None)
        return _call("transpose", self, axes)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kw): return _call("sum", self, axis=axis, keepdims=keepdims)
    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kw): return _call("mean", self, axis=axis, keepdims=keepdims)
    def max(self, axis=None, out=None, keepdims=False, **kw): return _call("max", self, axis=axis, keepdims=keepdims)
    def min(self, axis=None, out=None, keepdims=False, **kw): return _call("min", self, axis=axis, keepdims=keepdims)
    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kw): return _call("prod", self, axis=axis, keepdims=keepdims)
    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw): return _call("var", self, axis=axis, ddof=ddof, keepdims=keepdims)
    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw): return _call("std", self, axis=axis, ddof=ddof, keepdims=keepdims)
    def astype(self, dtype, *a, **k): return _call("_astype", self, dtype)
    def ravel(self, order="C"): return _call("ravel", self)
    def flatten(self, order="C"): return _call("ravel", self)
    def squeeze(self, axis=None): return _call("squeeze", self, axis)
    def swapaxes(self, a, b): return _call("swapaxes", self, a, b)
    def dot(self, o): return _call("dot", self, o)
    def clip(self, a_min=None, a_max=None): return _call("clip", self, a_min, a_max)
    def copy(self): return _call("_copy", self)
    def eval(self):
        _asc().eval(self.value)
        return self


def _v(x):
    return x.value if type(x) is Traced else x


def _strip(x):
    """The plain array under any number of trace levels (sequences element-wise)."""
    while type(x) is Traced:
        x = x.value
    if type(x) in (list, tuple) and any(type(b) is Traced for b in x):
        return type(x)(_strip(b) for b in x)
    return x


def _has_traced(args):
    for a in args:
        if type(a) is Traced:
            return True
        if type(a) in (list, tuple):
            for b in a:
                if type(b) is Traced:
                    return True
    return False


def _top_level(args):
    lvl = 0
    for a in args:
        if type(a) is Traced:
            lvl = max(lvl, a.level)
        elif type(a) in (list, tuple):
            for b in a:
                if type(b) is Traced:
                    lvl = max(lvl, b.level)
    return lvl


def _unwrap(args, level=None):
    """Values and traced parents of the operands of the innermost trace (``level``, default the
    highest among ``args``); nodes of enclosing traces stay as they are (they are values there)."""
    if level is None:
        level = _top_level(args)
    vals, parents = [], []
    for i, a in enumerate(args):
        if type(a) is Traced and a.level == level:
            vals.append(a.value)
            parents.append(((i,), a))
        elif type(a) in (list, tuple) and any(type(b) is Traced and b.level == level for b in a):
            vals.append(type(a)(b.value if type(b) is Traced and b.level == level else b for b in a))
            parents.extend(((i, j), b) for j, b in enumerate(a) if type(b) is Traced and b.level == level)
        else:
            vals.append(a)
    return vals, tuple(parents)


def record(rule, original, args, kwargs):
    """Runs ``original`` on the values of ``args``; returns the result as a Traced node (several
    outputs: a tuple of nodes, each with its output index in ``attrs['_out']``)."""
    lvl = _top_level(args)
    vals, parents = _unwrap(args, lvl)
    # ``original`` is the recording wrapper itself: values that are nodes of an enclosing trace
    # record there (grad of grad); plain values go straight to the function
    out = original(*vals, **kwargs)
    if not parents:
        return out
    if isinstance(out, tuple):
        base = Traced(out, rule, tuple(vals), kwargs, parents, lvl)
        return tuple(Traced(o, _tuple_item, (base,), {"_out": k}, (((0,), base),), lvl) for k, o in enumerate(out))
    return Traced(out, rule, tuple(vals), kwargs, parents, lvl)


def _tuple_item(g, out, base, *, needs, _out):
    # cotangent of one output of a several-output node: the others get zeros
    return ([g if k == _out else None for k in range(len(base.value))],)


def _call(name, *args, **kwargs):
    w = WRAPPERS.get(("asc", name))
    if w is None:
        raise _err("AscendNotImplementedError", f"[asc.grad] no derivative rule for asc.{name}", "API_NOT_SUPPORT")
    return w(*args, **kwargs)


def make_wrapper(rule, original):
    def wrapper(*args, **kwargs):
        if not _has_traced(args) and not any(type(v) is Traced for v in kwargs.values()):
            return original(*args, **kwargs)
        if any(type(v) is Traced for v in kwargs.values()):
            raise _err("AscendNotImplementedError",
                       f"[asc.grad] pass differentiated values of {getattr(original, '__name__', original)} "
                       "positionally", "API_NOT_SUPPORT")
        if kwargs.get("out") is not None:
            # as torch: a result written into a caller's buffer has no place on the tape (the buffer
            # may be read or overwritten before the backward runs)
            raise _err("AscendRuntimeError",
                       f"[asc.grad] {getattr(original, '__name__', original)}(): functions with out=... "
                       "arguments don't support automatic differentiation, but one of the arguments is "
                       "being differentiated", "API_NOT_SUPPORT")
        return record(rule, wrapper, args, kwargs)

    wrapper.__name__ = getattr(original, "__name__", "op")
    wrapper.__doc__ = getattr(original, "__doc__", None)
    wrapper.__wrapped__ = original
    return wrapper


def make_constant_wrapper(original):
    """A function whose result carries no gradient (predicates such as isnan, comparisons): traced
    operands are unwrapped and the plain result returned, so code written in pyasc that tests its
    inputs (``where(isnan(t), ...)``) runs under a trace."""
    def wrapper(*args, **kwargs):
        if _has_traced(args):
            args = [_strip(a) for a in args]
        if any(type(v) is Traced for v in kwargs.values()):
            kwargs = {k: _strip(v) for k, v in kwargs.items()}
        return original(*args, **kwargs)

    wrapper.__name__ = getattr(original, "__name__", "op")
    wrapper.__doc__ = getattr(original, "__doc__", None)
    wrapper.__wrapped__ = original
    return wrapper


# -- installing the wrappers -------------------------------------------------------------------

def _namespaces():
    asc = _asc()
    return {"asc": asc, "ops": asc.ops}


def install():
    """Installs the recording wrappers (reference counted: nested/concurrent traces share one)."""
    global _installed
    from ..custom_ops import _registry

    with _lock:
        if _installed == 0:
            ns = _namespaces()
            for (space, name), w in WRAPPERS.items():
                if name.startswith("_"):
                    continue
                mod = ns[space]
                orig = getattr(mod, name, None)
                if orig is None:
                    continue
                _saved.append((mod, name, orig))
                setattr(mod, name, w)
            _registry._autograd_state.active = 1
        _installed += 1


def uninstall():
    global _installed
    from ..custom_ops import _registry

    with _lock:
        _installed -= 1
        if _installed == 0:
            for mod, name, orig in reversed(_saved):
                setattr(mod, name, orig)
            _saved.clear()
            _registry._autograd_state.active = 0


# -- registered operators ----------------------------------------------------------------------

def _custom_rule(g, out, *vals, needs, _op, _ctx, **attrs):
    op = _op
    op._stats.grad_calls += 1
    gs = op.backward(_ctx, *g) if isinstance(g, (list, tuple)) else op.backward(_ctx, g)
    if not isinstance(gs, (tuple, list)):
        gs = (gs,)
    if len(gs) < len(vals):
        raise _err("AscendValueError", f"[{op.name}] the backward returned {len(gs)} gradients for "
                   f"{len(vals)} inputs (return None for an input without gradient)")
    return tuple(gs[: len(vals)])


def record_custom(op, args, attrs):
    """``CustomOp.__call__`` under an active trace: one node with the registered backward, or
    (no backward) NotImplemented when no operand is traced or the body is to be traced."""
    from ..custom_ops._registry import OpContext

    if not _has_traced(args):
        return NotImplemented
    if op.backward is None:
        # differentiate the body: it runs on the traced operands and records op by op
        if op.kind == "library":
            raise _err("AscendNotImplementedError", f"[asc.grad] library operator {op.name} has no gradient "
                       f"(register one with asc.register_grad({op.name!r}))", "API_NOT_SUPPORT")
        op._stats.calls += 1
        if op.kind == "hybrid":  # its reference composition, not the kernel
            return op.fn(*args, **attrs)
        return op.forward(OpContext(op.name, tuple(type(a) is Traced for a in args), attrs), *args, **attrs)
    lvl = _top_level(args)
    vals, parents = _unwrap(args, lvl)
    ctx = OpContext(op.name, tuple(type(a) is Traced for a in args), attrs)
    if _has_traced(vals):  # nodes of an enclosing trace: the forward records there
        out = op(*vals, **attrs)
    else:
        out = op.run_forward(ctx, vals, attrs)
    node_attrs = {"_op": op, "_ctx": ctx}
    if isinstance(out, tuple):
        base = Traced(out, _custom_rule, tuple(vals), node_attrs, parents, lvl)
        return tuple(Traced(o, _multi_item, (base,), {"_out": k}, (((0,), base),), lvl) for k, o in enumerate(out))
    return Traced(out, _custom_rule, tuple(vals), node_attrs, parents, lvl)


def _multi_item(g, out, base, *, needs, _out):
    n = len(base.value)
    return ([g if k == _out else None for k in range(n)],)


# -- the reverse pass --------------------------------------------------------------------------

def _topo(root):
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for _, p in node.parents:
            if id(p) not in seen:
                stack.append((p, False))
    return order


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, list):
        return [_add(x, y) for x, y in zip(a, b)]
    return a + b


def backward(root, g, leaf_done=None):
    """Cotangents of every node reachable from ``root`` given ``g`` for root: {id(node): cotangent}.

    ``leaf_done(leaf, cotangent)``, when given, is called during the walk as soon as a leaf's
    cotangent is complete (its last consumer processed; None when none reached it): the hook
    that lets data parallelism start a gradient's all-reduce while the rest of the backward
    runs. Without it the walk does no extra work."""
    grads = {id(root): g}
    order = _topo(root)
    pending = None
    if leaf_done is not None:
        pending = {}  # id(node) -> consumers not yet processed
        for node in order:
            for _, p in node.parents:
                pending[id(p)] = pending.get(id(p), 0) + 1
    for node in reversed(order):
        gn = grads.get(id(node))
        if gn is not None and node.rule is not None:
            _apply(node, gn, grads)
            if node is not root:
                grads.pop(id(node), None) if node.parents else None
        if pending is not None:
            for _, parent in node.parents:
                k = pending[id(parent)] - 1
                pending[id(parent)] = k
                if k == 0 and not parent.parents:
                    leaf_done(parent, grads.get(id(parent)))
    return grads


def _apply(node, gn, grads):
    """Runs ``node``'s VJP rule on cotangent ``gn`` and adds the results to its parents'."""
    # a several-output node: zeros for the outputs that got no cotangent
    if isinstance(gn, list) and isinstance(node.value, tuple):
        asc = _asc()
        gn = tuple(asc.zeros_like(v) if x is None else x for x, v in zip(gn, node.value))
    needs = _needs(node)
    res = node.rule(gn, node.value, *node.vals, needs=needs, **(node.attrs or {}))
    for path, parent in node.parents:
        gi = res[path[0]] if path[0] < len(res) else None
        if gi is not None and len(path) == 2:
            gi = gi[path[1]]
        if gi is None:
            continue
        gi = _match(gi, parent.value)
        grads[id(parent)] = _add(grads.get(id(parent)), gi)


def _needs(node):
    n = len(node.vals)
    needs = [False] * n
    for path, _ in node.parents:
        needs[path[0]] = True
    return tuple(needs)


def _match(g, value):
    """The cotangent in the operand's dtype and shape (rules may return a broadcast form)."""
    if isinstance(value, tuple):
        return g
    asc = _asc()
    if not isinstance(g, asc.ndarray):
        g = asc.asarray(g)
    if tuple(g.shape) != tuple(value.shape):
        g = asc.broadcast_to(g, value.shape)
    if g.dtype != value.dtype and _np.dtype(str(value.dtype)).kind in "fc":
        g = g.astype(value.dtype)
    return g
