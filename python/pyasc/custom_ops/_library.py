"""``asc.load_op_library(path)``: operators declared in C++ with ``ASC_REGISTER_OP``
(include/asc/op_library.h) become ``asc.ops.<name>``.

The library is read through its C ABI (``asc_oplib_*``) with ctypes. Loading:

* only from an explicit path (it must contain a directory separator: no search of
  ``LD_LIBRARY_PATH``/system directories by a bare name);
* the file is copied to a private temporary file which is dlopen'ed (``RTLD_LOCAL``) and unlinked
  at once: a rebuilt library at the same path is new code on :meth:`OpLibrary.reload`, even when the
  dynamic loader still holds the old copy;
* each declared op is published as a ``CustomOp`` (kind 'library') with the library's InferShape as
  ``infer_shape``/``infer_dtype``; a name clash (built-in, another registration) unloads the
  library again and raises;
* with ``namespace="ns"`` the ops are published as ``asc.ops.ns.<name>`` (registered as
  ``"ns::<name>"``, as ``torch.ops.ns.<name>``) instead: two versions of one library (same op
  names) then load side by side, each under its own namespace (e.g. ``mylib_v1``, ``mylib_v2``),
  for A/B tests. Each load is a private copy of the file, so the versions' code and static data
  are separate.

A call makes inputs C-contiguous (a documented copy for strided views), runs InferShape, allocates
the outputs from the pool, and runs the kernel without the GIL (ctypes releases it). ``unload()``
waits for the library's calls in flight, unregisters its ops and dlcloses it; calling a stale op
object afterwards raises AscendRuntimeError.
"""

from __future__ import annotations

import _ctypes
import ctypes
import keyword as _keyword
import os
import shutil
import tempfile
import threading

import numpy as _np

from ._registry import CustomOp, _publish, _ops, _lock, _type_error, _value_error

__all__ = ["load_op_library", "OpLibrary"]

_MAX_DIMS = 8
_CODE_TO_DTYPE = {0: "float32", 1: "float16", 2: "float64", 3: "int32", 4: "int64", 5: "uint8", 6: "int8",
                  7: "bool", 8: "bfloat16", 9: "int16"}
_DTYPE_TO_CODE = {v: k for k, v in _CODE_TO_DTYPE.items()}
_ATTR_KINDS = {"float": 0, "int": 1, "bool": 2, "string": 3}


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("ndim", ctypes.c_int64), ("shape", ctypes.c_int64 * _MAX_DIMS),
                ("dtype", ctypes.c_int32)]


class _Attr(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("f", ctypes.c_double), ("i", ctypes.c_int64), ("s", ctypes.c_char_p)]


def _asc():
    import pyasc

    return pyasc


def _runtime_error(msg):
    e = _asc().errors
    return e.AscendRuntimeError(e.ErrorCode.FAILURE, msg)


_libraries: dict = {}  # (realpath, namespace) -> OpLibrary (loaded)


class OpLibrary:
    """A loaded operator library: ``ops`` (names it published: ``"ns::name"`` under a namespace),
    ``namespace``, ``op(name)``, ``path``, ``unload()``, ``reload()``."""

    def __init__(self, path, namespace=None):
        self.path = path
        self.namespace = namespace
        self.ops = []
        self._by_name = {}
        self._dll = None
        self._handle = None
        self._cv = threading.Condition()
        self._inflight = 0
        self._closed = True

    def __repr__(self):
        state = "unloaded" if self._closed else f"ops={self.ops}"
        ns = f" namespace={self.namespace}" if self.namespace else ""
        return f"<OpLibrary {self.path}{ns}: {state}>"

    @property
    def _key(self):
        return (os.path.realpath(self.path), self.namespace)

    @property
    def op_names(self):
        """The library's own op names (without the namespace)."""
        return list(self._by_name)

    def op(self, name):
        """The library's operator ``name`` (its own name, without the namespace)."""
        op = self._by_name.get(name)
        if op is None:
            raise _value_error(f"[OpLibrary.op] {self.path} has no operator {name!r} "
                               f"(it has {list(self._by_name) or 'none'}{'' if not self._closed else '; unloaded'})")
        return op

    @property
    def loaded(self):
        """Whether the library is loaded."""
        return not self._closed

    # -- loading ------------------------------------------------------------------------------
    def _open(self):
        tmpdir = tempfile.mkdtemp(prefix="pyasc-oplib-")
        copy = os.path.join(tmpdir, os.path.basename(self.path))
        try:
            shutil.copyfile(self.path, copy)
            try:
                dll = ctypes.CDLL(copy, mode=os.RTLD_LOCAL | os.RTLD_NOW)
            except OSError as e:
                raise _value_error(f"[load_op_library] cannot load {self.path}: {e}", "INVALID_FILE") from None
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)
        try:
            abi = dll.asc_oplib_abi_version
        except AttributeError:
            _ctypes.dlclose(dll._handle)
            raise _value_error(f"[load_op_library] {self.path} is not an operator library (no asc_oplib_* "
                               "symbols: include asc/op_library.h and declare ops with ASC_REGISTER_OP)",
                               "INVALID_FILE") from None
        if abi() != 1:
            _ctypes.dlclose(dll._handle)
            raise _value_error(f"[load_op_library] {self.path}: ABI version {abi()} (pyasc reads 1)", "INVALID_FILE")
        dll.asc_oplib_op_descriptor.restype = ctypes.c_char_p
        dll.asc_oplib_infer.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                        ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32),
                                        ctypes.POINTER(_Attr), ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                        ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int32),
                                        ctypes.c_char_p, ctypes.c_int]
        dll.asc_oplib_run.argtypes = [ctypes.c_int, ctypes.POINTER(_Tensor), ctypes.c_int, ctypes.POINTER(_Tensor),
                                      ctypes.c_int, ctypes.POINTER(_Attr), ctypes.c_char_p, ctypes.c_int]
        self._dll, self._handle = dll, dll._handle
        self._closed = False
        ops = []
        by_name = {}
        try:
            for i in range(dll.asc_oplib_num_ops()):
                desc = dll.asc_oplib_op_descriptor(i).decode()
                name, ins, outs, attrs, doc = (desc.split("\t") + [""] * 5)[:5]
                spec = _OpSpec(self, i, name, [s for s in ins.split(",") if s], [s for s in outs.split(",") if s],
                               [tuple(a.split(":")) for a in attrs.split(",") if a], doc)
                qual = f"{self.namespace}::{name}" if self.namespace else name
                op = CustomOp(qual, spec.forward, infer_shape=spec.infer_shape, infer_dtype=spec.infer_dtype,
                              fusable=False, kind="library", doc=spec.docstring())
                op._spec = spec
                op.infer = spec.infer
                _publish(op, False, "load_op_library")
                ops.append(qual)
                by_name[name] = op
        except BaseException:
            self.ops = ops
            self._close()
            raise
        self.ops = ops
        self._by_name = by_name

    def _close(self):
        with _lock:
            for name in self.ops:
                op = _ops.get(name)
                if op is not None and getattr(op, "_spec", None) is not None and op._spec.lib is self:
                    from ._registry import unregister_op

                    unregister_op(name)
        with self._cv:
            self._closed = True
            while self._inflight:
                self._cv.wait()
        if self._handle is not None:
            _ctypes.dlclose(self._handle)
        self._dll = self._handle = None
        self.ops = []
        self._by_name = {}

    def unload(self):
        """Unregisters the library's ops and unloads it (waits for calls in flight)."""
        if self._closed:
            raise _value_error(f"[unload_op_library] {self.path} is not loaded")
        self._close()
        _libraries.pop(self._key, None)

    def reload(self):
        """Unloads and loads the library file again (e.g. after a rebuild): its ops are replaced."""
        if not self._closed:
            self._close()
        self._open()
        _libraries[self._key] = self
        return self

    # -- calls ------------------------------------------------------------------------------------
    def _enter(self, name):
        with self._cv:
            if self._closed:
                raise _runtime_error(f"[{name}] its operator library {self.path} was unloaded")
            self._inflight += 1

    def _leave(self):
        with self._cv:
            self._inflight -= 1
            if not self._inflight:
                self._cv.notify_all()


class _OpSpec:
    def __init__(self, lib, index, name, inputs, outputs, attrs, doc):
        self.lib, self.index, self.name = lib, index, name
        self.inputs, self.outputs, self.attrs, self.doc = inputs, outputs, attrs, doc

    def docstring(self):
        sig = ", ".join(self.inputs + [f"{n}: {k}" for n, k in self.attrs])
        return f"{self.name}({sig}) -> {', '.join(self.outputs)} (from {self.lib.path}). {self.doc}".strip()

    def _attr_values(self, attrs):
        unknown = set(attrs) - {n for n, _ in self.attrs}
        if unknown:
            raise _type_error(f"[{self.name}] unknown attribute(s) {sorted(unknown)}; declared: "
                              f"{[n for n, _ in self.attrs] or 'none'}")
        vals = (_Attr * max(len(self.attrs), 1))()
        keep = []
        for k, (n, kind) in enumerate(self.attrs):
            if n not in attrs:
                raise _type_error(f"[{self.name}] missing attribute {n!r} ({kind})")
            v = attrs[n]
            vals[k].kind = _ATTR_KINDS[kind]
            try:
                if kind == "float":
                    vals[k].f = float(v)
                elif kind in ("int", "bool"):
                    vals[k].i = int(v)
                else:
                    b = str(v).encode()
                    keep.append(b)
                    vals[k].s = b
            except (TypeError, ValueError):
                raise _type_error(f"[{self.name}] attribute {n!r} must be a {kind}, got {v!r}") from None
        return vals, keep

    def _infer_raw(self, shapes, dtypes, attrs):
        n_in, n_out = len(self.inputs), len(self.outputs)
        if len(shapes) != n_in:
            raise _type_error(f"[{self.name}] takes {n_in} inputs ({', '.join(self.inputs)}), got {len(shapes)}")
        ndims = (ctypes.c_int64 * max(n_in, 1))()
        sh = (ctypes.c_int64 * (max(n_in, 1) * _MAX_DIMS))()
        dts = (ctypes.c_int32 * max(n_in, 1))()
        for i, (s, d) in enumerate(zip(shapes, dtypes)):
            if len(s) > _MAX_DIMS:
                raise _value_error(f"[{self.name}] input {self.inputs[i]!r} has rank {len(s)} (at most 8)",
                                   "INVALID_SHAPE")
            ndims[i] = len(s)
            for j, v in enumerate(s):
                sh[i * _MAX_DIMS + j] = int(v)
            code = _DTYPE_TO_CODE.get(str(_np.dtype(str(d))) if str(d) != "bfloat16" else "bfloat16")
            if code is None:
                raise _type_error(f"[{self.name}] input {self.inputs[i]!r} has dtype {d}, which operator "
                                  f"libraries do not take ({sorted(_DTYPE_TO_CODE)})", "INVALID_DTYPE")
            dts[i] = code
        vals, keep = self._attr_values(attrs)
        ond = (ctypes.c_int64 * max(n_out, 1))()
        osh = (ctypes.c_int64 * (max(n_out, 1) * _MAX_DIMS))()
        odt = (ctypes.c_int32 * max(n_out, 1))()
        err = ctypes.create_string_buffer(1024)
        self.lib._enter(self.name)
        try:
            rc = self.lib._dll.asc_oplib_infer(self.index, n_in, ndims, sh, dts, vals, n_out, ond, osh, odt, err, 1024)
        finally:
            self.lib._leave()
        if rc != 0:
            raise _value_error(f"[{self.name}] InferShape failed for input shapes {[tuple(s) for s in shapes]}: "
                               f"{err.value.decode(errors='replace')}", "INVALID_SHAPE")
        return [(tuple(osh[o * _MAX_DIMS + j] for j in range(ond[o])), _CODE_TO_DTYPE[odt[o]]) for o in range(n_out)]

    def infer(self, shapes, dtypes=None, **attrs):
        if isinstance(shapes, tuple) and all(isinstance(d, int) for d in shapes):
            shapes = [shapes]
        dtypes = ["float32"] * len(shapes) if dtypes is None else ([dtypes] * len(shapes)
                                                                  if isinstance(dtypes, str) else list(dtypes))
        res = [(s, _np.dtype(d) if d != "bfloat16" else d) for s, d in self._infer_raw(shapes, dtypes, attrs)]
        return res[0] if len(res) == 1 else res

    def infer_shape(self, *shapes, **attrs):
        r = self._infer_raw(shapes, ["float32"] * len(shapes), attrs)
        return r[0][0] if len(r) == 1 else [s for s, _ in r]

    def infer_dtype(self, *dtypes, **attrs):
        r = self._infer_raw([()] * len(dtypes), dtypes, attrs)
        return r[0][1] if len(r) == 1 else [d for _, d in r]

    def forward(self, ctx, *inputs, **attrs):
        asc = _asc()
        n_in, n_out = len(self.inputs), len(self.outputs)
        if len(inputs) != n_in:
            raise _type_error(f"[{self.name}] takes {n_in} inputs ({', '.join(self.inputs)}), got {len(inputs)}")
        xs = []
        for x in inputs:
            a = x if isinstance(x, asc.ndarray) else asc.asarray(x)
            if not a.flags["C_CONTIGUOUS"]:
                a = asc.ascontiguousarray(a)  # kernels read C-contiguous memory: strided views are copied
            xs.append(a)
        outs_meta = self._infer_raw([tuple(a.shape) for a in xs], [str(a.dtype) for a in xs], attrs)
        outs = [asc.empty(s, dtype=d) for s, d in outs_meta]
        ts_in = (_Tensor * max(n_in, 1))()
        ts_out = (_Tensor * max(n_out, 1))()
        for arr_list, ts in ((xs, ts_in), (outs, ts_out)):
            for i, a in enumerate(arr_list):
                ts[i].data = a.__array_interface__["data"][0] if a.size else None
                ts[i].ndim = a.ndim
                for j, v in enumerate(a.shape):
                    ts[i].shape[j] = v
                ts[i].dtype = _DTYPE_TO_CODE[str(a.dtype)]
        vals, keep = self._attr_values(attrs)
        err = ctypes.create_string_buffer(1024)
        self.lib._enter(self.name)
        try:
            rc = self.lib._dll.asc_oplib_run(self.index, ts_in, n_in, ts_out, n_out, vals, err, 1024)
        finally:
            self.lib._leave()
        if rc != 0:
            raise _runtime_error(f"[{self.name}] kernel failed: {err.value.decode(errors='replace')}")
        return outs[0] if n_out == 1 else tuple(outs)


def load_op_library(path, namespace=None):
    """Loads the operator library at ``path`` and publishes its ops as ``asc.ops.<name>``.

    ``path`` must be an explicit file path (containing a directory separator, e.g. ``./libops.so``).
    With ``namespace`` (a Python identifier not starting with '_') the ops are published as
    ``asc.ops.<namespace>.<name>`` and registered as ``"<namespace>::<name>"`` (as
    ``torch.ops.<namespace>.<name>``): one library loaded under two namespaces, or two versions of
    it (``namespace="mylib_v1"``, ``"mylib_v2"``), serve side by side.
    Returns the :class:`OpLibrary` (``.ops``, ``.op(name)``, ``.unload()``, ``.reload()``). Loading a
    path that is already loaded under the same namespace returns its library unchanged (call
    ``reload()`` to pick up a rebuilt file).
    Raises AscendValueError for a bare name, a missing file, a file that is no operator library, an
    invalid namespace or an op name that clashes.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise _type_error(f"[load_op_library] path must be a str or os.PathLike, got {type(path).__name__}")
    if namespace is not None:
        if not isinstance(namespace, str):
            raise _type_error(f"[load_op_library] namespace must be a str or None, got {type(namespace).__name__}")
        if not namespace.isidentifier() or _keyword.iskeyword(namespace) or namespace.startswith("_"):
            raise _value_error(f"[load_op_library] namespace {namespace!r} must be a Python identifier not "
                               "starting with '_' (it becomes asc.ops.<namespace>)")
    path = os.fspath(path)
    if os.sep not in path:
        raise _value_error(f"[load_op_library] {path!r} is not an explicit path: libraries load only from a path "
                           f"(e.g. './{path}'), never by a search of the system's library directories",
                           "INVALID_FILE")
    if not os.path.isfile(path):
        raise _value_error(f"[load_op_library] no such file: {path}", "INVALID_FILE")
    key = (os.path.realpath(path), namespace)
    with _lock:
        lib = _libraries.get(key)
        if lib is not None and lib.loaded:
            return lib
        lib = OpLibrary(os.path.abspath(path), namespace)
        lib._open()
        _libraries[key] = lib
    return lib
