"""Translation of an ``@asc.jit`` kernel's Python AST into C++ over the Ascend C
kernel API (``kernel_operator.h``).

The translator walks the kernel's statements once, evaluating what it can in
Python (constants, ``ConstExpr`` parameters, globals, dtypes, enums: the
"compile-time" values) and emitting C++ for the rest (the "runtime" values,
:class:`asc.language.core.Value` objects that carry their C++ expression).

* ``if`` on a compile-time value keeps one branch; on a runtime value it is a
  C++ ``if``; names assigned in both branches are declared before it.
* ``for ... in range(...)`` / ``asc.range`` is a C++ ``for``;
  ``asc.static_range`` and loops over tuples are unrolled.
* Names that a runtime loop or ``if`` assigns and that held a constant
  before become C++ variables first (loop-carried values).
* Calls of other ``@asc.jit`` functions are inlined (defaults, ``ConstExpr``
  parameters and tuple returns as in Python).
* Each statement is preceded by a ``#line`` directive, so C++ diagnostics
  name the kernel's Python file and line; translation errors do the same.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import linecache
import math
import operator
import textwrap
import typing

from . import context
from .errors import CompilationError, KernelTypeError
from ..language import core as lc
from ..language.struct import Struct, StructValue

_PY_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
_PY_FUNCS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
           ast.Is: "==", ast.IsNot: "!="}


def _is_const(v):
    return not isinstance(v, lc.Value) and not (isinstance(v, (tuple, list)) and any(isinstance(x, lc.Value) for x in v))


def _weak_dtype(v):
    """The dtype a value takes in arithmetic (Python numbers are int64 / float32)."""
    if isinstance(v, lc.Scalar):
        return v.dtype
    if isinstance(v, bool):
        return lc.int1
    if isinstance(v, int):
        return lc.int64
    if isinstance(v, builtins.float):
        return lc.float32
    raise KernelTypeError(f"{v!r} is not a number the kernel can compute with")


class _OutOfScope:
    def __init__(self, name, line):
        self.name, self.line = name, line


class Frame:
    """One function being inlined: its names, globals and return value."""
    counter = 0

    def __init__(self, fn, env, base_depth, is_kernel):
        Frame.counter += 1
        self.id = Frame.counter
        self.fn = fn
        self.globals = fn.__globals__
        self.closure = {}
        if fn.__closure__:
            self.closure = {n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__)}
        self.env = env
        self.base_depth = base_depth
        self.is_kernel = is_kernel
        self.returned = False
        self.ret = None
        self.loops = 0
        # a helper that returns from inside a runtime if/for: its returns assign result variables
        # declared before the helper's block and jump to a label after it (ret_label set)
        self.ret_label = None
        self.ret_decl = None
        self.ret_vals = []   # [(node, value)] of every return, for the result types
        self.ret_names = None
        self.ret_outer = 0
        self.ret_tuple = False


_AST_CACHE = {}


def _nested_return(fnode):
    """Whether a function has a return below its top level (inside an if/for/while/with)."""
    for st in fnode.body:
        if isinstance(st, ast.Return):
            continue
        for x in ast.walk(st):
            if isinstance(x, ast.Return):
                return True
            if isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                break
    return False


def function_ast(fn):
    """(FunctionDef node with absolute line numbers, filename) of a Python function."""
    code = fn.__code__
    # By identity: code objects compare equal across files (co_filename is not part of ==).
    hit = _AST_CACHE.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1], hit[2]
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as e:
        raise CompilationError(f"cannot read the source of {fn.__qualname__} ({e}): @asc.jit needs the kernel's "
                               "Python source file") from None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise CompilationError(f"{fn.__qualname__} is not a plain function definition")
    _AST_CACHE[id(code)] = (code, node, filename)
    return node, filename


def assigned_names(stmts):
    """Names stored anywhere in ``stmts`` (not inside nested functions)."""
    out = set()

    def visit(n):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        for c in ast.iter_child_nodes(n):
            visit(c)

    for s in stmts:
        visit(s)
    return out


class Translator:
    """Translates one kernel (with the helpers it calls) into a C++ function body."""

    def __init__(self, jit_fn, options):
        self.jit_fn = jit_fn
        self.options = options
        self.out = []
        self.indent = 1
        self.depth = 0
        self.names = {}
        self.used = set()
        self.frame = None
        self.filename = None
        self.node = None
        self.last_line = None
        self.auto_sites = []
        self.hoist = {}
        self.uses_matmul = False
        self.uses_aic_checks = False
        self.kernel_cube_only = bool(options.get("matmul_cube_only"))

    # ------------------------------------------------------------ output helpers
    def emit(self, text):
        self.out.append([self.indent, text])

    def placeholder(self):
        cell = [self.indent, ""]
        self.out.append(cell)
        return cell

    def fill(self, cell, text):
        cell[1] = text

    def fresh(self, hint):
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in str(hint)) or "v"
        if hint[0].isdigit() or hint in _CPP_RESERVED:
            hint = hint + "_"
        n = self.names.get(hint, 0)
        while True:
            cand = hint if n == 0 else f"{hint}_{n}"
            n += 1
            if cand not in self.used:
                break
        self.names[hint] = n
        self.used.add(cand)
        return cand

    def auto_site(self):
        name = f"__asc_auto_site_{len(self.auto_sites)}"
        self.auto_sites.append(name)
        return name

    def text(self):
        return "\n".join(("" if t.startswith("#line") else "  " * i) + t for i, t in self.out if t != "")

    # ------------------------------------------------------------ errors
    def _loc(self, node=None):
        node = node or self.node
        line = getattr(node, "lineno", None)
        src = linecache.getline(self.filename, line) if (self.filename and line) else None
        return self.filename, line, src

    def error(self, msg, cls=CompilationError, node=None):
        f, l, s = self._loc(node)
        return cls(msg, f, l, s)

    # ------------------------------------------------------------ values → C++
    def cx(self, v, dtype=None):
        """The C++ expression of ``v`` (converted to ``dtype`` when given)."""
        if isinstance(v, lc.Scalar):
            if dtype is not None and v.dtype != dtype:
                return f"static_cast<{dtype.cpp}>({v.expr})"
            return v.expr
        if isinstance(v, lc.Value):
            return v.expr
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int) or isinstance(v, _np_integer):
            v = int(v)
            if dtype is not None and dtype.is_float():
                return self.cx(builtins.float(v), dtype)
            lit = str(v)
            if not -2**31 <= v < 2**31:
                lit += "LL" if v < 2**63 else "ULL"
            if dtype is not None and dtype not in (lc.int64, lc.int32):
                return f"static_cast<{dtype.cpp}>({lit})"
            return lit
        if isinstance(v, (builtins.float, _np_floating)):
            v = builtins.float(v)
            if math.isnan(v):
                lit = "std::numeric_limits<float>::quiet_NaN()"
            elif math.isinf(v):
                lit = ("-" if v < 0 else "") + "std::numeric_limits<float>::infinity()"
            else:
                lit = repr(v)
                if "e" not in lit and "." not in lit:
                    lit += ".0"
                lit += "f" if dtype in (None, lc.float32) or (dtype is not None and not dtype.is_float()) else ""
            if dtype is not None and dtype != lc.float32:
                return f"static_cast<{dtype.cpp}>({lit})"
            return lit
        if isinstance(v, lc._CEnum):
            return v.cpp
        if isinstance(v, lc._Property):
            return str(v.value)
        if isinstance(v, lc.DataType):
            return v.cpp
        raise self.error(f"{v!r} ({type(v).__name__}) cannot be used as a kernel value", KernelTypeError)

    def tmp_scalar(self, expr, dtype, hint="s"):
        name = self.fresh(hint)
        self.emit(f"{dtype.cpp} {name} = {expr};")
        v = lc._scalar(name, dtype, var=True)
        v._depth = self.depth
        return v

    def call_scalar(self, fn, args, dtype):
        return lc._scalar(f"{fn}({', '.join(self.cx(a, lc.int64) for a in args)})", dtype)

    def to_bool(self, v):
        if isinstance(v, lc.Scalar):
            return v.expr if v.dtype == lc.int1 else f"({v.expr} != 0)"
        if isinstance(v, lc.Value):
            cond = getattr(v, "_cond_expr", None)
            if cond is not None:
                return cond
            raise self.error(f"{v!r} has no truth value in a kernel", KernelTypeError)
        return "true" if v else "false"

    # ------------------------------------------------------------ arithmetic
    def binop(self, op, a, b):
        if _is_const(a) and _is_const(b):
            return _PY_FUNCS[op](a, b)
        for x, y, rev in ((a, b, False), (b, a, True)):
            if isinstance(x, lc.Value) and not isinstance(x, lc.Scalar) and hasattr(x, "_binop"):
                return x._binop(op, y, rev)
        da, db = _weak_dtype(a), _weak_dtype(b)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            rd = lc.int1
            if da.is_float() or db.is_float():
                ca, cb = self.cx(a, _float_of(da, db)), self.cx(b, _float_of(da, db))
            else:
                ca, cb = self.cx(a, lc.int64), self.cx(b, lc.int64)
            return lc._scalar(f"({ca} {op} {cb})", rd)
        if da.is_float() or db.is_float() or op == "/":
            rd = _float_of(da, db)
            ca, cb = self.cx(a, rd), self.cx(b, rd)
            if op == "//":
                return lc._scalar(f"std::floor({ca} / {cb})", rd)
            if op == "%":
                return lc._scalar(f"asc_jit::pyfmod({ca}, {cb})", rd)
            if op == "**":
                return lc._scalar(f"std::pow({ca}, {cb})", rd)
            if op in ("&", "|", "^", "<<", ">>"):
                raise self.error(f"operator {op} needs integer operands", KernelTypeError)
            return lc._scalar(f"({ca} {op} {cb})", rd)
        rd = lc.int64
        ca, cb = self.cx(a, lc.int64), self.cx(b, lc.int64)
        if op == "//":
            return lc._scalar(f"asc_jit::floordiv({ca}, {cb})", rd)
        if op == "%":
            return lc._scalar(f"asc_jit::pymod({ca}, {cb})", rd)
        if op == "**":
            return lc._scalar(f"asc_jit::ipow({ca}, {cb})", rd)
        return lc._scalar(f"({ca} {op} {cb})", rd)

    # ------------------------------------------------------------ names
    def lookup(self, name, node):
        f = self.frame
        if name in f.env:
            v = f.env[name]
            if isinstance(v, _OutOfScope):
                raise self.error(f"'{name}' was assigned inside a runtime for/while/if block (line {v.line}) and is "
                                 "not defined after it in the kernel; assign it before the block (in both branches "
                                 "of an if)", CompilationError, node)
            return v
        if name in f.closure:
            return f.closure[name]
        if name in f.globals:
            return f.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(f"name '{name}' is not defined", CompilationError, node)

    def _owned(self, v, name):
        return isinstance(v, lc.Value) and v.var and v.owner == (self.frame.id, name)

    def assign(self, name, value, node=None):
        f = self.frame
        cur = f.env.get(name)
        if isinstance(cur, _OutOfScope):
            cur = None
        h = self.hoist.get(name)
        if h is not None and h[1] is None and isinstance(value, (int, builtins.float, _np_integer, _np_floating)) \
                and not isinstance(value, lc._CEnum):
            # A constant assigned in both branches of a runtime if: the variable declared before the if.
            d = lc.int1 if isinstance(value, bool) else _weak_dtype(value)
            value = lc._scalar(self.cx(value, d), d)
        if isinstance(value, lc.Value) and value.copyable:
            if cur is not None and self._owned(cur, name) and cur.same_type(value):
                if cur is not value:
                    self.emit(f"{cur.expr} = {value.expr};")
                return
            if cur is not None and self._owned(cur, name) and isinstance(cur, lc.Scalar) and \
                    isinstance(value, lc.Scalar):
                same_kind = cur.dtype.is_float() == value.dtype.is_float()
                if same_kind or cur.dtype.is_float():
                    # int32 vs int64, float16 vs float32: the variable keeps its C++ type.
                    self.emit(f"{cur.expr} = {self.cx(value, cur.dtype)};")
                    return
                if getattr(cur, "_depth", 0) != self.depth:
                    raise self.error(f"'{name}' is an integer before this runtime block and a float inside it: "
                                     f"initialise it as a float (e.g. {name} = 0.0)", KernelTypeError)
            hoisted = self.hoist.get(name)
            if hoisted is not None and hoisted[1] is None:
                cname = self.fresh(name)
                self.fill(hoisted[0], f"{value.cpp_type()} {cname}{{}};")
                nv = copy.copy(value)
                nv.expr, nv.var, nv.owner, nv._depth = cname, True, (f.id, name), hoisted[2]
                self.hoist[name] = (hoisted[0], nv, hoisted[2])
                self.emit(f"{cname} = {value.expr};")
                f.env[name] = nv
                return
            if value.var and value.owner is None and getattr(value, "_depth", None) == self.depth:
                value.owner = (f.id, name)
                f.env[name] = value
                return
            cname = self.fresh(name)
            self.emit(f"{value.cpp_type()} {cname} = {value.expr};")
            nv = copy.copy(value)
            nv.expr, nv.var, nv.owner, nv._depth = cname, True, (f.id, name), self.depth
            f.env[name] = nv
            return
        if cur is not None and self._owned(cur, name) and isinstance(cur, lc.Scalar) and \
                isinstance(value, (int, builtins.float, bool, _np_integer, _np_floating)):
            self.emit(f"{cur.expr} = {self.cx(value, cur.dtype)};")
            return
        if isinstance(value, lc.Value) and getattr(value, "_slot", None) is not None and \
                value.expr.startswith("gm"):
            # A GlobalTensor not yet declared takes the Python name for readability.
            value.expr = self.fresh(name)
        f.env[name] = value

    def materialize(self, names):
        """Names about to be assigned inside a runtime block become C++ variables now."""
        f = self.frame
        for name in sorted(names):
            cur = f.env.get(name)
            if cur is None or isinstance(cur, _OutOfScope):
                continue
            if isinstance(cur, (bool, int, builtins.float, _np_integer, _np_floating)) and \
                    not isinstance(cur, lc._CEnum):
                d = _weak_dtype(cur) if not isinstance(cur, bool) else lc.int1
                cname = self.fresh(name)
                self.emit(f"{d.cpp} {cname} = {self.cx(cur, d)};")
                v = lc._scalar(cname, d, var=True)
                v.owner, v._depth = (f.id, name), self.depth
                f.env[name] = v
            elif isinstance(cur, lc.Value) and cur.copyable and not self._owned(cur, name):
                cname = self.fresh(name)
                self.emit(f"{cur.cpp_type()} {cname} = {cur.expr};")
                nv = copy.copy(cur)
                nv.expr, nv.var, nv.owner, nv._depth = cname, True, (f.id, name), self.depth
                f.env[name] = nv

    class _Block:
        def __init__(self, tr, header, footer="}"):
            self.tr, self.header, self.footer = tr, header, footer

        def __enter__(self):
            tr = self.tr
            tr.emit(self.header)
            tr.indent += 1
            tr.depth += 1
            self.snapshot = dict(tr.frame.env)
            return self

        def __exit__(self, *exc):
            tr = self.tr
            tr.indent -= 1
            tr.depth -= 1
            tr.emit(self.footer)
            if exc[0] is None:
                tr._close_scope(self.snapshot)
            return False

    def _close_scope(self, snapshot):
        env = self.frame.env
        for name, v in list(env.items()):
            if snapshot.get(name) is v:
                continue
            h = self.hoist.get(name)
            if h is not None and h[1] is v:
                continue
            if isinstance(v, lc.Value):
                if v.var and getattr(v, "_depth", 1 << 30) <= self.depth:
                    continue
            elif name not in snapshot:
                continue  # a compile-time constant first bound inside the block
            env[name] = _OutOfScope(name, getattr(self.node, "lineno", "?"))

    def block(self, header, footer="}"):
        return Translator._Block(self, header, footer)

    # ------------------------------------------------------------ entry points
    def translate_kernel(self, fn, env):
        node, self.filename = function_ast(fn)
        self.frame = Frame(fn, env, 0, True)
        self.node = node
        with context.active(self):
            self.body(node.body)
        return self.text()

    def inline(self, jf, args, kwargs, node):
        fn = jf.fn
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(f"call of {fn.__name__}: {e}", KernelTypeError, node) from None
        bound.apply_defaults()
        hints = _annotations(fn)
        for pname, v in bound.arguments.items():
            if _is_constexpr(hints.get(pname)) and not _is_const(v):
                raise self.error(f"{fn.__name__}: parameter '{pname}' is ConstExpr but receives a runtime value",
                                 KernelTypeError, node)
        caller, filename = self.frame, self.filename
        fnode, self.filename = function_ast(fn)
        self.frame = Frame(fn, dict(bound.arguments), self.depth, False)
        saved_hoist, self.hoist = self.hoist, {}
        try:
            if _nested_return(fnode):
                ret = self._inline_with_label(fn, fnode)
            else:
                self.body(fnode.body)
                ret = self.frame.ret
        finally:
            self.frame, self.filename, self.hoist = caller, filename, saved_hoist
        return ret

    def _inline_with_label(self, fn, fnode):
        """A helper with a return inside a runtime if/for: ``<result declarations> { body } label:;``.
        Each return assigns the result variables and jumps to the label; the body is one block so the
        jump never crosses an initialisation still in scope at the label."""
        f = self.frame
        f.ret_outer = self.depth
        f.ret_decl = self.placeholder()
        f.ret_label = self.fresh(f"__asc_return_{fn.__name__}")
        with self.block("{"):
            f.base_depth = self.depth
            self.body(fnode.body)
        self.emit(f"{f.ret_label}: ;")
        if f.ret_names is None:
            return None
        vals = [self._labelled_type(i) for i in range(len(f.ret_names))]
        decls = []
        res = []
        for name, first in zip(f.ret_names, vals):
            if isinstance(first, lc.Value):
                decls.append(f"{first.cpp_type()} {name}{{}};")
                nv = copy.copy(first)
            else:
                dt = lc.float32 if isinstance(first, float) else (lc.bool_ if isinstance(first, bool) else lc.int32)
                decls.append(f"{dt.cpp} {name}{{}};")
                nv = lc._scalar(name, dt, var=True)
            nv.expr, nv.var, nv.owner, nv._depth = name, True, None, f.ret_outer
            res.append(nv)
        self.fill(f.ret_decl, " ".join(decls))
        return res[0] if not f.ret_tuple else tuple(res)

    def _labelled_type(self, i):
        """The i-th result's type: the first returned runtime value's (constants convert to it)."""
        f = self.frame
        firsts = [v[i] for _, v in f.ret_vals]
        types = {x.cpp_type() for x in firsts if isinstance(x, lc.Value)}
        if len(types) > 1:
            raise self.error(f"{f.fn.__name__}: its returns give result {i} different types ({', '.join(sorted(types))}); "
                             "a helper returning from inside a runtime if/for must return one type", KernelTypeError,
                             f.ret_vals[-1][0])
        for x in firsts:
            if isinstance(x, lc.Value):
                return x
        return firsts[0]

    # ------------------------------------------------------------ statements
    def body(self, stmts):
        for s in stmts:
            if self.frame.returned:
                break
            self.stmt(s)

    def stmt(self, s):
        prev = self.node
        self.node = s
        line = getattr(s, "lineno", None)
        if line is not None:
            self.out.append([0, f'#line {line} "{_cpp_str(self.filename)}"'])
        try:
            meth = getattr(self, "s_" + type(s).__name__, None)
            if meth is None:
                raise self.error(f"'{type(s).__name__}' statements are not supported in kernels "
                                 "(see docs/asc_jit.md)")
            meth(s)
        except CompilationError as e:
            if e.lineno is None:
                raise type(e)(str(e), *self._loc(s)) from None
            raise
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, ZeroDivisionError, OverflowError,
                NotImplementedError, AssertionError) as e:
            cls = KernelTypeError if isinstance(e, TypeError) else CompilationError
            raise self.error(f"{type(e).__name__}: {e}", cls, s) from None
        finally:
            self.node = prev

    def s_Pass(self, s):
        pass

    def s_Expr(self, s):
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # docstring
        v = self.ev(s.value)
        if isinstance(v, lc.Scalar) and not v.var:
            self.emit(f"(void){v.expr};")
        elif isinstance(v, lc.Value) and getattr(v, "_cond_expr", None):
            self.emit(f"(void){v._cond_expr};")

    def s_Assign(self, s):
        v = self.ev(s.value)
        for t in s.targets:
            self.store(t, v)

    def s_AnnAssign(self, s):
        if s.value is not None:
            self.store(s.target, self.ev(s.value))

    def s_AugAssign(self, s):
        op = _PY_BINOPS[type(s.op)]
        if isinstance(s.target, ast.Name):
            cur = self.lookup(s.target.id, s)
            self.assign(s.target.id, self.binop(op, cur, self.ev(s.value)), s)
        elif isinstance(s.target, ast.Attribute):
            obj = self.ev(s.target.value)
            cur = self.getattr(obj, s.target.attr)
            self.setattr(obj, s.target.attr, self.binop(op, cur, self.ev(s.value)))
        else:
            raise self.error("augmented assignment to this target is not supported")

    def store(self, t, v):
        if isinstance(t, ast.Name):
            self.assign(t.id, v, t)
        elif isinstance(t, (ast.Tuple, ast.List)):
            if not isinstance(v, (tuple, list)):
                raise self.error(f"cannot unpack {v!r} into {len(t.elts)} names", KernelTypeError)
            if len(v) != len(t.elts):
                raise self.error(f"cannot unpack {len(v)} values into {len(t.elts)} names", KernelTypeError)
            for tt, vv in zip(t.elts, v):
                self.store(tt, vv)
        elif isinstance(t, ast.Attribute):
            self.setattr(self.ev(t.value), t.attr, v)
        elif isinstance(t, ast.Subscript):
            obj = self.ev(t.value)
            idx = self.ev(t.slice)
            if isinstance(obj, lc._Tensor):
                obj.set_value(idx, v)
            elif _is_const(obj):
                obj[idx] = v
            else:
                raise self.error(f"item assignment on {obj!r} is not supported", KernelTypeError)
        else:
            raise self.error(f"assignment to {type(t).__name__} is not supported")

    def setattr(self, obj, name, v):
        if isinstance(obj, lc.Value) and hasattr(obj, "_setfield"):
            obj._setfield(name, v)
        elif _is_const(obj) and not isinstance(v, lc.Value):
            builtins.setattr(obj, name, v)
        else:
            raise self.error(f"cannot set attribute '{name}' of {obj!r} in a kernel", KernelTypeError)

    def s_If(self, s):
        c = self.ev(s.test)
        if _is_const(c):
            self.body(s.body if c else s.orelse)
            return
        cond = self.to_bool(c)
        self._runtime_if(s, cond)

    def _runtime_if(self, s, cond):
        self.uses_aic_checks |= "__asc_is_aic" in cond or "__asc_is_aiv" in cond
        a, b = assigned_names(s.body), assigned_names(s.orelse)
        self.materialize((a | b) & set(self.frame.env))
        both = {n for n in (a & b) if n not in self.frame.env or isinstance(self.frame.env[n], _OutOfScope)}
        saved = dict(self.hoist)
        for n in sorted(both):
            self.hoist[n] = (self.placeholder(), None, self.depth)
        f = self.frame
        with self.block(f"if ({cond}) {{"):
            self._branch(s.body)
        if s.orelse:
            with self.block("else {"):
                self._branch(s.orelse)
        for n in both:
            h = self.hoist.get(n)
            if h is not None and h[1] is not None and f.env.get(n) is not h[1]:
                f.env[n] = h[1]
        self.hoist = {k: v for k, v in self.hoist.items() if k in saved or k in both}
        for n in both:
            self.hoist.pop(n, None)
        self.hoist.update({k: v for k, v in saved.items()})

    def _branch(self, stmts):
        f = self.frame
        if not f.is_kernel and f.ret_label is None and any(
                isinstance(x, ast.Return) for x in ast.walk(ast.Module(body=stmts, type_ignores=[]))):
            raise self.error("a helper function may not return from inside a runtime if/for (only at its end or "
                             "under a compile-time condition)")
        self.body(stmts)
        if f.is_kernel:
            f.returned = False  # a return in a runtime branch does not end the translation

    def _loop_prepare(self, stmts, extra=()):
        names = assigned_names(stmts) | set(extra)
        self.materialize(names & set(self.frame.env))

    def s_For(self, s):
        it = s.iter
        itv = self.ev(it)
        if s.orelse:
            raise self.error("for ... else is not supported in kernels")
        if isinstance(itv, lc.static_range) or (isinstance(itv, (tuple, list)) and not isinstance(itv, lc.range)):
            seq = builtins.range(*itv.args) if isinstance(itv, lc.static_range) else itv
            if isinstance(itv, lc.static_range) and not all(_is_const(a) for a in itv.args):
                raise self.error("asc.static_range needs compile-time bounds (constants or ConstExpr)")
            for x in seq:
                self.store(s.target, x)
                self.frame.loops += 0
                self._unrolled_body(s.body)
            return
        if isinstance(itv, (lc.range, builtins.range)):
            args = itv.args if isinstance(itv, lc.range) else (itv.start, itv.stop, itv.step)
            if len(args) == 1:
                start, stop, step = 0, args[0], 1
            elif len(args) == 2:
                (start, stop), step = args, 1
            elif len(args) == 3:
                start, stop, step = args
            else:
                raise self.error("range expects 1 to 3 arguments")
            if not isinstance(s.target, ast.Name):
                raise self.error("a runtime for loop needs one loop variable")
            self._loop_prepare(s.body)
            var = self.fresh(s.target.id)
            ca, cb, cs = self.cx(start, lc.int64), self.cx(stop, lc.int64), self.cx(step, lc.int64)
            if _is_const(step):
                if step == 0:
                    raise self.error("range() step must not be zero", CompilationError)
                test = f"{var} {'<' if step > 0 else '>'} __stop"
            else:
                test = f"({cs} > 0 ? {var} < __stop : {var} > __stop)"
            stop_name = self.fresh("__stop")
            test = test.replace("__stop", stop_name)
            self.emit("{")
            self.indent += 1
            self.emit(f"const int64_t {stop_name} = {cb};")
            with self.block(f"for (int64_t {var} = {ca}; {test}; {var} += {cs}) {{"):
                lv = lc._scalar(var, lc.int64, var=True)
                lv.owner, lv._depth = (self.frame.id, s.target.id), self.depth
                self.frame.env[s.target.id] = lv
                self.frame.loops += 1
                try:
                    self.body(s.body)
                finally:
                    self.frame.loops -= 1
            self.indent -= 1
            self.emit("}")
            return
        raise self.error(f"for loops run over range(...), asc.range(...), asc.static_range(...) or a tuple, "
                         f"not {itv!r}")

    def _unrolled_body(self, stmts):
        for x in ast.walk(ast.Module(body=stmts, type_ignores=[])):
            if isinstance(x, (ast.Break, ast.Continue)):
                raise self.error("break/continue inside an unrolled (static) loop is not supported", node=x)
        self.body(stmts)

    def s_While(self, s):
        if s.orelse:
            raise self.error("while ... else is not supported in kernels")
        self._loop_prepare(s.body)
        c = self.ev(s.test)
        if _is_const(c):
            if not c:
                return
            cond = "true"
        else:
            cond = None
        with self.block("while (true) {"):
            if cond is None:
                c = self.ev(s.test)
                self.emit(f"if (!({self.to_bool(c)})) break;")
            self.frame.loops += 1
            try:
                self.body(s.body)
            finally:
                self.frame.loops -= 1

    def s_Break(self, s):
        if self.frame.loops <= 0:
            raise self.error("break outside a runtime loop")
        self.emit("break;")

    def s_Continue(self, s):
        if self.frame.loops <= 0:
            raise self.error("continue outside a runtime loop")
        self.emit("continue;")

    def s_With(self, s):
        if len(s.items) != 1:
            raise self.error("with statements in kernels take one context")
        item = s.items[0]
        ctx = self.ev(item.context_expr)
        enter = getattr(ctx, "_with_loop", None)
        if enter is None:
            raise self.error(f"{ctx!r} cannot be used in a with statement in a kernel")
        header, counter_name = enter()
        names = [item.optional_vars.id] if isinstance(item.optional_vars, ast.Name) else []
        self._loop_prepare(s.body)
        with self.block(header):
            if names and counter_name:
                lv = lc._scalar(counter_name, lc.int64, var=True)
                lv.owner, lv._depth = (self.frame.id, names[0]), self.depth
                self.frame.env[names[0]] = lv
            self.frame.loops += 1
            try:
                self.body(s.body)
            finally:
                self.frame.loops -= 1

    def s_Return(self, s):
        f = self.frame
        v = None if s.value is None else self.ev(s.value)
        if f.is_kernel:
            if v is not None:
                raise self.error("a kernel returns nothing (write results into a GlobalTensor)")
            self.emit("return;")
            if self.depth == f.base_depth:
                f.returned = True
            return
        if f.ret_label is not None:
            return self._labelled_return(s, v)
        if self.depth != f.base_depth:
            raise self.error("a helper function may not return from inside a runtime if/for")

        def fix(x):
            if isinstance(x, lc.Value) and x.copyable and not x.var:
                name = self.fresh("ret")
                self.emit(f"{x.cpp_type()} {name} = {x.expr};")
                nx = copy.copy(x)
                nx.expr, nx.var, nx.owner, nx._depth = name, True, None, self.depth
                return nx
            if isinstance(x, tuple):
                return tuple(fix(y) for y in x)
            return x

        f.ret = fix(v)
        f.returned = True

    def _labelled_return(self, s, v):
        f = self.frame
        vals = v if isinstance(v, tuple) else (() if v is None else (v,))
        if f.ret_names is None:
            f.ret_names = [self.fresh("ret") for _ in vals]
            f.ret_tuple = isinstance(v, tuple)
        elif len(vals) != len(f.ret_names) or isinstance(v, tuple) != f.ret_tuple:
            raise self.error(f"{f.fn.__name__}: every return of a helper that returns from inside a runtime if/for "
                             f"must give the same number of values ({len(f.ret_names)} before, {len(vals)} here)",
                             KernelTypeError, s)
        for x in vals:
            if isinstance(x, lc.Value) and not x.copyable:
                raise self.error(f"{f.fn.__name__}: only scalars can be returned from inside a runtime if/for "
                                 f"(got {type(x).__name__})", KernelTypeError, s)
            if not isinstance(x, (lc.Value, bool, int, float)):
                raise self.error(f"{f.fn.__name__}: cannot return {x!r} from inside a runtime if/for",
                                 KernelTypeError, s)
        f.ret_vals.append((s, vals))
        for name, x in zip(f.ret_names, vals):
            expr = x.expr if isinstance(x, lc.Value) else (("true" if x else "false") if isinstance(x, bool) else repr(x))
            self.emit(f"{name} = {expr};")
        self.emit(f"goto {f.ret_label};")
        if self.depth == f.base_depth:
            f.returned = True

    def s_Assert(self, s):
        c = self.ev(s.test)
        msg = self.ev(s.msg) if s.msg is not None else None
        if _is_const(c):
            if not c:
                raise self.error(f"assertion failed: {msg if msg is not None else ast.unparse(s.test)}")
            return
        text = _cpp_str(str(msg) if msg is not None else ast.unparse(s.test))
        self.emit(f'if (!({self.to_bool(c)})) asc_jit::assert_fail("{text}", "{_cpp_str(self.filename)}", '
                  f'{s.lineno});')

    def s_FunctionDef(self, s):
        raise self.error("nested function definitions are not supported in kernels (use a module-level @asc.jit "
                         "helper)")

    # ------------------------------------------------------------ expressions
    def ev(self, n):
        m = getattr(self, "e_" + type(n).__name__, None)
        if m is None:
            raise self.error(f"'{type(n).__name__}' expressions are not supported in kernels (see docs/asc_jit.md)",
                             CompilationError, n)
        return m(n)

    def e_Constant(self, n):
        return n.value

    def e_Name(self, n):
        return self.lookup(n.id, n)

    def e_Tuple(self, n):
        return tuple(self._elts(n.elts))

    def e_List(self, n):
        return list(self._elts(n.elts))

    def _elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.ev(e.value))
            else:
                out.append(self.ev(e))
        return out

    def e_Dict(self, n):
        return {self.ev(k): self.ev(v) for k, v in zip(n.keys, n.values)}

    def e_JoinedStr(self, n):
        parts = []
        for v in n.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                x = self.ev(v.value)
                if not _is_const(x):
                    raise self.error("f-strings in kernels may only format compile-time values")
                parts.append(format(x, self.ev(v.format_spec) if v.format_spec else ""))
        return "".join(parts)

    def e_Attribute(self, n):
        return self.getattr(self.ev(n.value), n.attr, n)

    def make_struct(self, cls, args, kwargs):
        """``asc.adv.TCubeTiling(m=..., ...)`` inside a kernel: a C++ struct variable with those fields."""
        if args:
            raise self.error(f"{cls.__name__}(...) takes its fields as keywords", KernelTypeError)
        host = cls(**{k: 0 for k in kwargs})  # checks the field names
        del host
        name = self.fresh(cls.__name__.lower())
        self.emit(f"{cls._cpp} {name}{{}};")
        v = StructValue._make(name, var=True, cls=cls)
        for k, x in kwargs.items():
            v._setfield(k, x)
        return v

    def getattr(self, obj, name, node=None):
        if isinstance(obj, lc.Value) and hasattr(obj, "_getfield"):
            return obj._getfield(name)
        if name == "ceildiv" and isinstance(obj, (int, _np_integer)) and not isinstance(obj, bool):
            return lambda other: lc.ceildiv(obj, other)
        try:
            return builtins.getattr(obj, name)
        except AttributeError:
            raise self.error(f"{obj!r} has no attribute '{name}'", CompilationError, node) from None

    def e_Subscript(self, n):
        obj = self.ev(n.value)
        idx = self.ev(n.slice)
        if isinstance(obj, lc.Value) and hasattr(obj, "_getitem"):
            return obj._getitem(idx)
        if _is_const(obj) and _is_const(idx):
            return obj[idx]
        if isinstance(obj, (tuple, list)) and _is_const(idx):
            return obj[idx]
        raise self.error(f"cannot index {obj!r} with a runtime value", KernelTypeError, n)

    def e_Slice(self, n):
        return slice(*(None if x is None else self.ev(x) for x in (n.lower, n.upper, n.step)))

    def e_BinOp(self, n):
        return self.binop(_PY_BINOPS[type(n.op)], self.ev(n.left), self.ev(n.right))

    def e_UnaryOp(self, n):
        v = self.ev(n.operand)
        if _is_const(v):
            return {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos,
                    ast.Invert: operator.invert}[type(n.op)](v)
        if isinstance(n.op, ast.Not):
            return lc._scalar(f"(!{self.to_bool(v)})", lc.int1)
        if not isinstance(v, lc.Scalar):
            raise self.error(f"unary operator on {v!r}", KernelTypeError, n)
        if isinstance(n.op, ast.USub):
            return lc._scalar(f"(-{v.expr})", v.dtype if v.dtype != lc.int1 else lc.int64)
        if isinstance(n.op, ast.UAdd):
            return v
        return lc._scalar(f"(~{self.cx(v, lc.int64)})", lc.int64)

    def e_BoolOp(self, n):
        is_and = isinstance(n.op, ast.And)
        parts = []
        for x in n.values:
            v = self.ev(x)
            if _is_const(v):
                if is_and and not v:
                    return v if not parts else lc._scalar("false", lc.int1)
                if not is_and and v:
                    return v if not parts else lc._scalar("true", lc.int1)
                continue
            parts.append(self.to_bool(v))
        if not parts:
            return is_and
        return lc._scalar("(" + (" && " if is_and else " || ").join(parts) + ")", lc.int1)

    def e_Compare(self, n):
        left = self.ev(n.left)
        parts = []
        for op, rn in zip(n.ops, n.comparators):
            right = self.ev(rn)
            if isinstance(op, (ast.In, ast.NotIn)):
                if not (_is_const(left) and _is_const(right)):
                    raise self.error("'in' works on compile-time values only", KernelTypeError, n)
                r = (left in right) if isinstance(op, ast.In) else (left not in right)
            elif isinstance(op, (ast.Is, ast.IsNot)) and (_is_const(left) or _is_const(right)) and \
                    (left is None or right is None or isinstance(left, lc.Value) == isinstance(right, lc.Value)):
                r = (left is right) if isinstance(op, ast.Is) else (left is not right)
            else:
                r = self.binop(_CMPOPS[type(op)], left, right)
            if _is_const(r):
                if not r:
                    return False
            else:
                parts.append(r.expr)
            left = right
        if not parts:
            return True
        return lc._scalar("(" + " && ".join(parts) + ")", lc.int1)

    def e_IfExp(self, n):
        c = self.ev(n.test)
        if _is_const(c):
            return self.ev(n.body if c else n.orelse)
        a, b = self.ev(n.body), self.ev(n.orelse)
        da, db = _weak_dtype(a), _weak_dtype(b)
        d = _float_of(da, db) if (da.is_float() or db.is_float()) else lc.int64
        return lc._scalar(f"({self.to_bool(c)} ? {self.cx(a, d)} : {self.cx(b, d)})", d)

    def e_Call(self, n):
        f = self.ev(n.func)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                args.extend(self.ev(a.value))
            else:
                args.append(self.ev(a))
        kwargs = {}
        for k in n.keywords:
            if k.arg is None:
                kwargs.update(self.ev(k.value))
            else:
                kwargs[k.arg] = self.ev(k.value)
        return self.call(f, args, kwargs, n)

    def call(self, f, args, kwargs, n):
        from ..runtime.jit import JITFunction  # noqa: PLC0415 - cycle
        if isinstance(f, JITFunction):
            return self.inline(f, args, kwargs, n)
        if isinstance(f, type) and issubclass(f, Struct):
            return self.make_struct(f, args, kwargs)
        special = _SPECIAL.get(f) if _hashable(f) else None
        if special is not None:
            return special(self, args, kwargs)
        allowed = getattr(f, "__asc_builtin__", False) or isinstance(getattr(f, "__self__", None), lc.Value)
        if not allowed:
            dyn = [a for a in list(args) + list(kwargs.values()) if not _is_const(a)]
            if dyn:
                name = getattr(f, "__qualname__", repr(f))
                raise self.error(f"{name} is not an @asc.jit function or a kernel API: it cannot take the runtime "
                                 f"value {dyn[0]!r} (decorate it with @asc.jit to inline it)", KernelTypeError, n)
        return f(*args, **kwargs)


# ---------------------------------------------------------------- Python builtins inside kernels

def _b_range(tr, args, kwargs):
    return lc.range(*args)


def _b_int(tr, args, kwargs):
    (v,) = args
    if _is_const(v):
        return int(v)
    return lc._scalar(f"static_cast<int64_t>({tr.cx(v)})", lc.int64)


def _b_float(tr, args, kwargs):
    (v,) = args
    if _is_const(v):
        return builtins.float(v)
    return lc._scalar(f"static_cast<float>({tr.cx(v)})", lc.float32)


def _b_bool(tr, args, kwargs):
    (v,) = args
    if _is_const(v):
        return bool(v)
    return lc._scalar(tr.to_bool(v), lc.int1)


def _minmax(which):
    def f(tr, args, kwargs):
        if len(args) == 1:
            args = list(args[0])
        if all(_is_const(a) for a in args):
            return (builtins.min if which == "min" else builtins.max)(args)
        acc = args[0]
        for b in args[1:]:
            da, db = _weak_dtype(acc), _weak_dtype(b)
            d = _float_of(da, db) if (da.is_float() or db.is_float()) else lc.int64
            acc = lc._scalar(f"std::{which}<{d.cpp}>({tr.cx(acc, d)}, {tr.cx(b, d)})", d)
        return acc
    return f


def _b_abs(tr, args, kwargs):
    (v,) = args
    if _is_const(v):
        return abs(v)
    return lc._scalar(f"std::abs({v.expr})", v.dtype)


def _b_len(tr, args, kwargs):
    (v,) = args
    if _is_const(v):
        return len(v)
    raise tr.error("len() of a runtime value (use get_size())", KernelTypeError)


_SPECIAL = {
    builtins.range: _b_range, int: _b_int, builtins.float: _b_float, bool: _b_bool, builtins.min: _minmax("min"),
    builtins.max: _minmax("max"), abs: _b_abs, len: _b_len,
}


def _hashable(f):
    try:
        hash(f)
        return True
    except TypeError:
        return False


def _float_of(da, db):
    return lc.float64 if lc.float64 in (da, db) else lc.float32


def _cpp_str(s):
    return str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _annotations(fn):
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - string annotations naming unknown things: fall back to the raw ones
        return dict(getattr(fn, "__annotations__", {}))


def _is_constexpr(h):
    return h is lc.ConstExpr or typing.get_origin(h) is lc.ConstExpr


import numpy as _np  # noqa: E402

_np_integer = _np.integer
_np_floating = _np.floating
_CPP_RESERVED = {"int", "float", "double", "char", "long", "short", "auto", "class", "struct", "template", "new",
                 "delete", "this", "default", "switch", "case", "register", "volatile", "union", "signed",
                 "unsigned", "const", "static", "extern", "goto", "sizeof", "typedef", "namespace", "using",
                 "operator", "private", "public", "protected", "virtual", "friend", "inline", "explicit", "half",
                 "bool", "void", "do", "enum", "export", "mutable", "typename", "asm", "main"}
