"""``@asc.jit``: Python kernels translated to C++, compiled, cached and launched
on pyasc's CPU device with ``kernel[core_num, stream](*args)``.

Arguments: NumPy arrays (and objects NumPy can view without a copy: pyasc
arrays, CPU ``torch.Tensor``) become ``GlobalAddress`` and are updated in
place (non-contiguous or read-only ones go through a contiguous copy, written
back after the kernel unless read-only); Python/NumPy scalars become ``int``
(C++ ``int64_t``), ``float`` (``float``) or ``bool``; ``asc.Struct`` records
(``asc.adv.TCubeTiling``) are copied in by value; ``ConstExpr[...]``
parameters are compiled into the kernel (one compiled kernel per value).

A launch returns after the kernel finished (``stream.synchronize()``); a
failed kernel raises the :class:`pyasc.AscendError` of its error, naming the
kernel and block.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import os
import threading

import numpy as np

import pyasc
from pyasc import debug as _debug
from pyasc import errors as _errors

from ..codegen.errors import CompilationError, KernelTypeError
from ..codegen import translator as _tr
from ..language import core as lc
from ..language.struct import Struct, StructValue
from . import compiler
from .config import KernelType
from .prelude import PRELUDE

__all__ = ["jit", "JITFunction", "CompiledKernel"]

_tls = threading.local()
_FAST_DECLINED = -2
_CHAR = ctypes.c_char
_addressof = ctypes.addressof
_OPTIONS = ("kernel_type", "insert_sync", "always_compile", "matmul_cube_only", "opt_level", "auto_sync",
            "debug", "soc_version", "dump_path")


class CompiledKernel:
    """One specialisation of a kernel: its library, entry point and argument packing."""

    def __init__(self, name, lib_path, params, mode, source, compiled_now):
        self.name = name
        self.lib_path = lib_path
        self.params = params  # [(kind, info)] for the runtime parameters, in order
        self.mode = mode
        self.source = source
        self.compiled_now = compiled_now
        lib = compiler.load_library(lib_path)
        fn = lib.asc_jit_launch
        fn.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        fn.restype = ctypes.c_int
        self._fn = fn
        self._fast = None
        if hasattr(lib, "asc_jit_fast_launch"):
            # The same library through the CPython API (PyDLL keeps the GIL for the argument parsing;
            # the entry releases it around the launch): no per-argument ctypes objects.
            fast = ctypes.PyDLL(lib_path).asc_jit_fast_launch
            fast.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p, ctypes.c_int]
            fast.restype = ctypes.c_int
            self._fast = fast
        self._nargs = len(params)
        self._argv_t = ctypes.c_void_p * max(1, len(params))

    def run(self, core_num, stream_handle, values):
        argv = self._argv_t()
        keep = []
        writeback = []
        checked = _debug.kernel_checks_enabled()
        for i, ((kind, info), v) in enumerate(zip(self.params, values)):
            if kind == "gm":
                if not checked and type(v) is np.ndarray:
                    f = v.flags
                    if f.c_contiguous and f.writeable and f.aligned and v.size:
                        # The fast path (~1.5 us; ndarray.ctypes.data costs ~6 us).
                        buf = _CHAR.from_buffer(v)
                        keep.append(buf)
                        argv[i] = _addressof(buf)
                        continue
                arr, back = _as_device_array(v) if checked else _as_array(v, info)
                if back is not None:
                    writeback.append(back)
                keep.append(arr)
                argv[i] = arr.ctypes.data
            elif kind == "scalar":
                c = info(v)
                keep.append(c)
                argv[i] = ctypes.addressof(c)
            else:  # struct
                c = v.to_ctype()
                keep.append(c)
                argv[i] = ctypes.addressof(c)
        err = _tls.__dict__.get("err")
        if err is None:
            err = _tls.err = ctypes.create_string_buffer(2048)
        rc = self._fn(core_num, stream_handle, argv, err, 2048)
        for back in writeback:
            back()
        if rc != 0:
            raise _errors._from_code(rc, err.value.decode("utf-8", "replace"))


def _as_array(v, dtype):
    """(contiguous writable ndarray, write-back callable or None) for a GlobalAddress argument."""
    if isinstance(v, np.ndarray):
        a = v
    elif hasattr(v, "detach") and hasattr(v, "numpy"):  # a CPU torch.Tensor: shares its memory
        a = v.detach().numpy()
    else:
        a = np.asarray(v)
    if a.flags.c_contiguous and a.flags.writeable and a.flags.aligned:
        return a, None
    c = np.ascontiguousarray(a).copy()
    if not a.flags.writeable:
        return c, None

    def back():
        a[...] = c.reshape(a.shape)
    return c, back


def _as_device_array(v):
    """Under the kernel checker: the argument copied into device memory (the checker bounds-checks GM
    accesses against device allocations and reports host pointers), copied back after the kernel."""
    a = v.detach().numpy() if (hasattr(v, "detach") and hasattr(v, "numpy")) else np.asarray(v)
    dev = pyasc.empty(a.shape, dtype=a.dtype)
    d = np.asarray(dev)
    d[...] = a
    keep = (dev, d)

    def back():
        if a.flags.writeable:
            a[...] = keep[1]
    return d, back


def _arg_dtype(v):
    if isinstance(v, np.ndarray):
        return lc.dtype_of(v.dtype)
    dt = getattr(v, "dtype", None)
    if dt is not None:
        return lc.dtype_of(dt)
    return lc.dtype_of(np.asarray(v).dtype)


def _is_array(v):
    return isinstance(v, np.ndarray) or (hasattr(v, "dtype") and hasattr(v, "shape") and not np.isscalar(v)
                                         and not isinstance(v, np.generic))


_SCALAR_CTYPES = {"int64": ctypes.c_int64, "int32": ctypes.c_int32, "int16": ctypes.c_int16, "int8": ctypes.c_int8,
                  "uint64": ctypes.c_uint64, "uint32": ctypes.c_uint32, "uint16": ctypes.c_uint16,
                  "uint8": ctypes.c_uint8, "float32": ctypes.c_float, "float64": ctypes.c_double,
                  "int1": ctypes.c_bool}


class JITFunction:
    """A kernel (or helper) function decorated with ``@asc.jit``.

    ``kernel[core_num, stream](*args)`` translates (once per specialisation),
    compiles (once per machine: disk cache) and runs it on ``core_num``
    blocks of the CPU device. Called from another kernel, it is inlined.
    """

    def __init__(self, fn, **options):
        unknown = set(options) - set(_OPTIONS)
        if unknown:
            raise TypeError(f"@asc.jit: unknown option(s) {', '.join(sorted(unknown))} "
                            f"(known: {', '.join(_OPTIONS)})")
        self.fn = fn
        self.options = options
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.signature = inspect.signature(fn)
        self.param_names = list(self.signature.parameters)
        self._hints = None
        self._cache = {}
        self._lock = threading.Lock()
        self.last_compiled = None

    @property
    def hints(self):
        if self._hints is None:
            self._hints = _tr._annotations(self.fn)
        return self._hints

    def __repr__(self):
        return f"<asc.jit {self.fn.__module__}.{self.__qualname__}>"

    def __call__(self, *args, **kwargs):
        raise CompilationError(f"launch kernel '{self.__name__}' with {self.__name__}[core_num, stream](*args); "
                               "called directly, an @asc.jit function is only valid inside another kernel")

    def __getitem__(self, grid):
        if not isinstance(grid, tuple):
            grid = (grid,)
        if not 1 <= len(grid) <= 2:
            raise TypeError(f"{self.__name__}[core_num, stream]: expected 1 or 2 values, got {len(grid)}")
        core_num = grid[0]
        stream = grid[1] if len(grid) == 2 else None
        if isinstance(core_num, bool) or not isinstance(core_num, (int, np.integer)) or not 1 <= core_num < 2**31:
            raise _errors.AscendValueError(100000, f"[{self.__name__}] core_num must be an integer >= 1, got "
                                           f"{core_num!r}")
        handle = None if stream is None else getattr(stream, "handle", stream)
        return functools.partial(self._launch, int(core_num), handle)

    # ------------------------------------------------------------ launching
    def _bind(self, args, kwargs):
        if not kwargs and len(args) == len(self.param_names):
            return args
        try:
            b = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}: {e}") from None
        b.apply_defaults()
        return tuple(b.arguments[n] for n in self.param_names)

    @property
    def constexpr_mask(self):
        m = self.__dict__.get("_cmask")
        if m is None:
            m = self._cmask = tuple(_tr._is_constexpr(self.hints.get(n)) for n in self.param_names)
        return m

    @property
    def _has_constexpr(self):
        return any(self.constexpr_mask)

    def _spec_key(self, values):
        key = []
        for is_c, name, v in zip(self.constexpr_mask, self.param_names, values):
            if is_c:
                key.append(("c", _const_key(v)))
            elif type(v) is np.ndarray:
                key.append(("a", v.dtype))      # NumPy dtype objects hash and compare cheaply
            elif isinstance(v, Struct):
                key.append(("s", type(v)))
            elif _is_array(v):
                key.append(("a", _arg_dtype(v).name))
            elif isinstance(v, (bool, np.bool_)):
                key.append(("b",))
            elif isinstance(v, (int, np.integer)):
                key.append(("i",))
            elif isinstance(v, (float, np.floating)):
                key.append(("f",))
            else:
                raise KernelTypeError(f"{self.__name__}: argument '{name}' of type {type(v).__name__} is not a "
                                      "kernel argument (arrays, numbers, asc.Struct records, ConstExpr values)")
        return tuple(key)

    def _launch(self, core_num, stream_handle, *args, **kwargs):
        values = self._bind(args, kwargs)
        key = self._spec_key(values)
        ck = None if self.options.get("always_compile") else self._cache.get(key)
        if ck is None:
            with self._lock:
                ck = None if self.options.get("always_compile") else self._cache.get(key)
                if ck is None:
                    ck = self._compile(values)
                    self._cache[key] = ck
        runtime = tuple(v for c, v in zip(self.constexpr_mask, values) if not c) if self._has_constexpr \
            else tuple(values)
        fast = ck._fast
        if fast is not None and not _debug.kernel_checks_enabled():
            err = _tls.__dict__.get("err")
            if err is None:
                err = _tls.err = ctypes.create_string_buffer(2048)
            rc = fast(core_num, stream_handle, runtime, err, 2048)
            if rc == 0:
                return
            if rc != _FAST_DECLINED:
                raise _errors._from_code(rc, err.value.decode("utf-8", "replace"))
        ck.run(core_num, stream_handle, runtime)

    def warmup(self, *args, **kwargs):
        """Translates and compiles the kernel for these arguments without running it; returns the CompiledKernel."""
        values = self._bind(args, kwargs)
        key = self._spec_key(values)
        ck = self._cache.get(key)
        if ck is None:
            ck = self._compile(values)
            self._cache[key] = ck
        return ck

    # ------------------------------------------------------------ translation
    def _compile(self, values):
        env = {}
        params_cpp = []
        packing = []
        call_args = []
        for name, v in zip(self.param_names, values):
            h = self.hints.get(name)
            cname = _cpp_param(name)
            if _tr._is_constexpr(h):
                env[name] = v
                continue
            i = len(packing)
            if isinstance(v, Struct):
                cls = type(v)
                params_cpp.append(f"{cls._cpp} {cname}")
                call_args.append(f"*reinterpret_cast<{cls._cpp}*>(argv[{i}])")
                packing.append(("struct", cls))
                val = StructValue._make(cname, var=True, cls=cls)
            elif _is_array(v):
                d = _arg_dtype(v)
                params_cpp.append(f"__gm__ {d.cpp}* {cname}")
                call_args.append(f"reinterpret_cast<__gm__ {d.cpp}*>(argv[{i}])")
                packing.append(("gm", np.dtype(d.np) if d.name != "bfloat16" else None))
                val = lc.GlobalAddress._make(cname, var=True, dtype=d)
            else:
                d = _scalar_dtype(h, v)
                params_cpp.append(f"{d.cpp} {cname}")
                call_args.append(f"*reinterpret_cast<{d.cpp}*>(argv[{i}])")
                packing.append(("scalar", _SCALAR_CTYPES[d.name]))
                val = lc._scalar(cname, d, var=True)
            val.owner = (1, name)  # the kernel frame (Frame ids start at 1 per translation)
            val._depth = 0
            env[name] = val
        _tr.Frame.counter = 0
        tr = _tr.Translator(self, self.options)
        tr.used.update(_cpp_param(n) for n in self.param_names)
        tr.used.add(_cpp_param(self.fn.__name__))
        body = tr.translate_kernel(self.fn, env)
        mode = self._mode(tr)
        name = _cpp_param(self.fn.__name__)
        source = _assemble(name, params_cpp, call_args, body, tr, mode, packing)
        key = compiler.source_key(source)
        dump = os.environ.get("PYASC_DUMP_PATH") or self.options.get("dump_path")
        if dump:
            os.makedirs(dump, exist_ok=True)
            with open(os.path.join(dump, f"{self.fn.__name__}_{key[:12]}.cpp"), "w") as f:
                f.write(source)
        if self.options.get("always_compile"):
            path = os.path.join(compiler.cache_dir(), f"{key}.so")
            if os.path.exists(path):
                os.unlink(path)
        so, now = compiler.compile_source(source, self.fn.__name__, key)
        ck = CompiledKernel(self.fn.__name__, so, packing, mode, source, now)
        self.last_compiled = ck
        return ck

    def _mode(self, tr):
        kt = self.options.get("kernel_type")
        if isinstance(kt, KernelType):
            kt = kt.name
        if self.options.get("matmul_cube_only") or kt == "AIC_ONLY":
            return "cube"
        if (kt is not None and kt.startswith("MIX")) or (kt is None and tr.uses_matmul):
            return "mix"
        return "vector"


def _const_key(v):
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        return (type(v).__name__, repr(v))


def _scalar_dtype(h, v):
    if isinstance(h, lc.DataType):
        return h
    if h is bool or isinstance(v, (bool, np.bool_)):
        return lc.int1
    if h is float or (h is None and isinstance(v, (float, np.floating))):
        return lc.float32
    if h is int or isinstance(v, (int, np.integer)):
        return lc.int64
    if isinstance(v, (float, np.floating)):
        return lc.float32
    raise KernelTypeError(f"cannot pass {v!r} as a kernel scalar")


def _cpp_param(name):
    return name + "_" if name in _tr._CPP_RESERVED else name


def _fast_entry(name, packing, params_cpp, mult):
    """C++ of ``asc_jit_fast_launch``: the arguments read through the CPython API (buffer protocol for
    C-contiguous writable arrays, PyLong/PyFloat for scalars); returns -2 (the Python path takes over)
    for anything else."""
    if any(kind == "struct" for kind, _ in packing) or compiler.python_include() is None:
        return ""
    lines = [
        "#include <Python.h>",
        'extern "C" int asc_jit_fast_launch(uint32_t block_dim, void* stream, PyObject* args, char* err, int errlen) {',
        f"  if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != {len(packing)}) return -2;",
        f"  Py_buffer bufs[{max(1, len(packing))}];",
        "  int nbuf = 0;",
        "  auto release = [&] { for (int i = 0; i < nbuf; ++i) PyBuffer_Release(&bufs[i]); };",
    ]
    vals = []
    for i, ((kind, _), decl) in enumerate(zip(packing, params_cpp)):
        ctype = decl.rsplit(" ", 1)[0]
        lines.append(f"  PyObject* a{i} = PyTuple_GET_ITEM(args, {i});")
        if kind == "gm":
            lines += [f"  if (PyObject_GetBuffer(a{i}, &bufs[nbuf], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) "
                      "{ PyErr_Clear(); release(); return -2; }",
                      f"  {ctype} v{i} = reinterpret_cast<{ctype}>(bufs[nbuf++].buf);"]
        elif ctype == "bool":
            lines += [f"  const int b{i} = PyObject_IsTrue(a{i});",
                      f"  if (b{i} < 0) {{ PyErr_Clear(); release(); return -2; }}",
                      f"  bool v{i} = b{i} != 0;"]
        elif ctype in ("float", "double"):
            lines += [f"  if (!PyFloat_Check(a{i}) && !PyLong_Check(a{i})) {{ release(); return -2; }}",
                      f"  {ctype} v{i} = static_cast<{ctype}>(PyFloat_AsDouble(a{i}));",
                      "  if (PyErr_Occurred()) { PyErr_Clear(); release(); return -2; }"]
        else:
            lines += [f"  if (!PyLong_Check(a{i})) {{ release(); return -2; }}",
                      f"  {ctype} v{i} = static_cast<{ctype}>(PyLong_AsLongLong(a{i}));",
                      "  if (PyErr_Occurred()) { PyErr_Clear(); release(); return -2; }"]
        vals.append(f"v{i}")
    args = ", ".join(vals + ["block_dim"])
    lines += [
        "  int rc = 0;",
        "  std::string msg;",
        "  Py_BEGIN_ALLOW_THREADS",
        "  try {",
        "    ::asc::runtime::Stream* s = ::asc::runtime::resolve_stream(stream);",
        f"    ::asc::launch(std::string(\"{name}\"), &{name}, block_dim * {mult}u, s, {args});",
        "    const ::asc::Status st = s->synchronize();",
        "    if (!st.ok()) { rc = static_cast<int>(st.code()); msg = st.message(); }",
        "  } catch (const ::asc::Error& e) {",
        "    rc = static_cast<int>(e.code()); msg = e.message();",
        "  } catch (const std::exception& e) {",
        f"    rc = static_cast<int>(::asc::ErrorCode::kFailure); msg = std::string(\"[{name}] \") + e.what();",
        "  }",
        "  Py_END_ALLOW_THREADS",
        "  release();",
        '  if (rc != 0) std::snprintf(err, static_cast<size_t>(errlen), "%s", msg.c_str());',
        "  return rc;",
        "}",
    ]
    return "\n".join(lines) + "\n"


def _assemble(name, params_cpp, call_args, body, tr, mode, packing=()):
    mult = 3 if mode == "mix" else 1
    if mode == "mix":
        roles = ("  const int64_t __asc_raw_idx = AscendC::GetBlockIdx();\n"
                 "  const int64_t __asc_role = __asc_raw_idx % 3;\n"
                 "  [[maybe_unused]] const bool __asc_is_aic = __asc_role == 0;\n"
                 "  [[maybe_unused]] const bool __asc_is_aiv = !__asc_is_aic;\n"
                 "  [[maybe_unused]] const bool __asc_mix_cube = __asc_is_aic;\n"
                 "  [[maybe_unused]] const int64_t __asc_block_idx = __asc_is_aic ? __asc_raw_idx / 3 : "
                 "(__asc_raw_idx / 3) * 2 + (__asc_role - 1);\n"
                 "  [[maybe_unused]] const int64_t __asc_sub_block_idx = __asc_is_aic ? 0 : __asc_role - 1;\n"
                 "  [[maybe_unused]] const int64_t __asc_task_ratio = __asc_is_aic ? 1 : 2;\n")
    else:
        cube = "true" if mode == "cube" else "false"
        roles = ("  [[maybe_unused]] const int64_t __asc_block_idx = AscendC::GetBlockIdx();\n"
                 f"  [[maybe_unused]] const bool __asc_is_aic = {cube};\n"
                 f"  [[maybe_unused]] const bool __asc_is_aiv = !{cube};\n"
                 "  [[maybe_unused]] const bool __asc_mix_cube = false;\n"
                 "  [[maybe_unused]] const int64_t __asc_sub_block_idx = 0;\n"
                 "  [[maybe_unused]] const int64_t __asc_task_ratio = 1;\n")
    roles += "  [[maybe_unused]] const int64_t __asc_block_num = __asc_dim;\n"
    roles += "  [[maybe_unused]] uint32_t __asc_auto_top = 0;\n"
    for site in tr.auto_sites:
        roles += f"  uint32_t {site} = UINT32_MAX;\n"
    params = ", ".join(params_cpp + ["uint32_t __asc_dim"])
    args = ", ".join(call_args + ["block_dim"])
    return (f"// @asc.jit kernel '{name}' (mode: {mode}), translated by pyasc {pyasc.__version__}\n"
            f"{PRELUDE}\n"
            f"namespace {{\n"
            f"void {name}({params}) {{\n{roles}{body}\n}}\n"
            f"}}  // namespace\n\n"
            f'extern "C" int asc_jit_launch(uint32_t block_dim, void* stream, void** argv, char* err, int errlen) {{\n'
            f"  auto report = [&](const ::asc::ErrorCode code, const std::string& msg) {{\n"
            f"    std::snprintf(err, static_cast<size_t>(errlen), \"%s\", msg.c_str());\n"
            f"    return static_cast<int>(code);\n"
            f"  }};\n"
            f"  try {{\n"
            f"    ::asc::runtime::Stream* s = ::asc::runtime::resolve_stream(stream);\n"
            f"    ::asc::launch(std::string(\"{name}\"), &{name}, block_dim * {mult}u, s, {args});\n"
            f"    const ::asc::Status st = s->synchronize();\n"
            f"    if (!st.ok()) return report(st.code(), st.message());\n"
            f"    return 0;\n"
            f"  }} catch (const ::asc::Error& e) {{\n"
            f"    return report(e.code(), e.message());\n"
            f"  }} catch (const std::exception& e) {{\n"
            f"    return report(::asc::ErrorCode::kFailure, std::string(\"[{name}] \") + e.what());\n"
            f"  }}\n"
            f"}}\n"
            + _fast_entry(name, packing, params_cpp, mult))


def jit(fn=None, **options):
    """Decorator: ``@asc.jit`` or ``@asc.jit(kernel_type=..., insert_sync=..., always_compile=...,
    matmul_cube_only=...)`` (hicann/pyasc's options).

    ``insert_sync`` is accepted: the CPU device runs a core's pipes in program
    order, so no synchronisation needs inserting. ``always_compile=True``
    compiles again on every launch (no cache).
    """
    if fn is None:
        return lambda f: JITFunction(f, **options)
    return JITFunction(fn, **options)
