"""Build C++ / Ascend C extension modules on the fly (``torch.utils.cpp_extension``'s interface).

``asc.utils.cpp_extension.load(name, sources)`` compiles ``.asc`` / ``.cpp`` sources (Ascend C
kernels with ``<<<>>>`` launches and a pybind11 module) against the installed pyasc headers and
``libasc`` and imports the result; ``load_inline(name, cpp_sources, asc_sources, functions=...)``
does the same from strings. The build goes through the project's compiler driver
(:mod:`pyasc.tools.cc`, ``pyasc-cc``): ``.asc`` files are translated with ``#line`` directives,
so compiler errors name the original file and line.

Cache: ``$PYASC_EXTENSIONS_DIR`` or ``~/.cache/pyasc/extensions``, one directory per
``<name>_<hash>`` where the hash covers the source texts, the flags, the pyasc version, the
Python ABI and the compiler. A second ``load`` of the same sources imports the cached module
(no compiler run); in one process it returns the already imported module. An exclusive file
lock (``fcntl.flock`` on ``<dir>.lock``) makes parallel processes build once: the others wait
and import the result. The module is written to a temporary name and renamed, so a crashed build
never leaves a half-written module behind.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import time

__all__ = ["load", "load_inline", "get_default_build_root", "include_paths", "BuildError"]

_loaded: dict = {}  # module path -> module (a process imports one build once)
_loaded_keys: dict = {}  # module path -> the hash it was built from


def _errors():
    from .. import errors

    return errors


class BuildError(_errors().AscendRuntimeError):
    """The compiler failed; ``message`` holds its output (diagnostics name the original files)."""


def _value_error(msg):
    e = _errors()
    return e.AscendValueError(e.ErrorCode.INVALID_PARAM, msg)


def get_default_build_root():
    """``$PYASC_EXTENSIONS_DIR`` or ``~/.cache/pyasc/extensions``."""
    env = os.environ.get("PYASC_EXTENSIONS_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    return os.path.join(os.path.expanduser("~"), ".cache", "pyasc", "extensions")


@functools.lru_cache(maxsize=None)
def _include_paths():
    return tuple(_compute_include_paths())


def include_paths():
    """Include directories of an extension: the pyasc headers, pybind11 and Python."""
    return list(_include_paths())


def _compute_include_paths():
    # the package's include directory computed here, as pyasc.tools.cc.package_dirs() does, rather
    # than imported from it: importing pyasc.tools.cc (its translator compiles its regular
    # expressions at import) was most of a cache hit's time (~70-170 ms of a 100-160 ms hit at load
    # 20); the compiler driver is imported only when something is built. sysconfig.get_path reads
    # one scheme entry (get_paths() expands them all).
    paths = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")]
    try:
        import pybind11

        paths.append(pybind11.get_include())
    except ImportError:  # pragma: no cover - pybind11 is a build dependency of pyasc
        pass
    paths.append(sysconfig.get_path("include"))
    return paths


def _check_name(name):
    if not isinstance(name, str) or not name.isidentifier():
        raise _value_error(f"[cpp_extension] the module name must be a Python identifier, got {name!r}")


def _as_list(v, what):
    if v is None:
        return []
    if isinstance(v, (str, os.PathLike)):
        return [os.fspath(v)]
    try:
        return [os.fspath(x) if isinstance(x, os.PathLike) else x for x in v]
    except TypeError:
        raise _value_error(f"[cpp_extension] {what} must be a string or a list of strings, got "
                           f"{type(v).__name__}") from None


def _version():
    from .. import __version__

    return __version__


def _hash(name, texts, flags):
    h = hashlib.sha256()
    for part in [name, _version(), sys.implementation.cache_tag, importlib.machinery.EXTENSION_SUFFIXES[0],
                 os.environ.get("CXX", "g++"), *flags]:
        h.update(part.encode())
        h.update(b"\0")
    for label, text in texts:
        h.update(label.encode())
        h.update(b"\0")
        h.update(text)
        h.update(b"\0")
    return h.hexdigest()[:16]


def _read_sources(sources):
    texts = []
    for s in sources:
        if not os.path.isfile(s):
            raise _value_error(f"[cpp_extension.load] no such source file: {s}")
        with open(s, "rb") as f:
            texts.append((os.path.basename(s), f.read()))
    return texts


def _import(name, path):
    mod = _loaded.get(path)
    if mod is not None:
        return mod
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    _loaded[path] = mod
    return mod


def _run(cmd, verbose, cwd=None):
    if verbose:
        print("pyasc cpp_extension: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=cwd)
    if verbose and proc.stderr and proc.returncode == 0:
        print(proc.stderr, file=sys.stderr)
    return proc


def _build(name, sources, build_dir, cflags, ldflags, incs, verbose, is_python_module=True):
    """Compiles each source to an object (in parallel; ``CXX="ccache g++"`` caches them), then links
    the module against libasc. Raises BuildError with the compiler's diagnostics."""
    from concurrent.futures import ThreadPoolExecutor

    from ..tools import cc

    out = os.path.join(build_dir, name + importlib.machinery.EXTENSION_SUFFIXES[0])
    tmp_out = os.path.join(build_dir, f".{name}.{os.getpid()}.tmp.so")
    # a Python module exports only its PyInit (pybind11's advice); a plain library keeps its symbols
    common = ["-fPIC", "-O2"] + (["-fvisibility=hidden"] if is_python_module else [])
    for d in incs:
        common += ["-I", d]
    common += list(cflags)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pyasc-ext-") as tmp:
        def compile_one(k):
            src = sources[k]
            obj = os.path.join(build_dir, f"{k}_{os.path.splitext(os.path.basename(src))[0]}.{os.getpid()}.o")
            # translated .asc sources live in the build directory (deterministic paths, kept for
            # debugging) and the compiler runs there: with CCACHE_BASEDIR covering the cache root,
            # ccache sees the same relative paths in every cache directory and hits
            sub = os.path.join(build_dir, "translated", str(k))
            os.makedirs(sub, exist_ok=True)
            try:
                cmd, _, _ = cc.build_command(["-c"] + common + [src, "-o", obj], sub)
            except cc.UsageError as e:
                return obj, None, str(e)
            proc = _run(cmd, verbose, cwd=build_dir)
            return obj, cmd, (proc.stderr.strip() or proc.stdout.strip()) if proc.returncode else None

        with ThreadPoolExecutor(max_workers=max(1, min(len(sources), os.cpu_count() or 1))) as pool:
            results = list(pool.map(compile_one, range(len(sources))))
        objs = [r[0] for r in results]
        errors = [r[2] for r in results if r[2]]
        cmds = [r[1] for r in results if r[1]]
        if not errors:
            cmd, _, _ = cc.build_command(["-shared"] + objs + ["-o", tmp_out] + list(ldflags), tmp)
            cmds.append(cmd)
            proc = _run(cmd, verbose)
            if proc.returncode:
                errors.append(proc.stderr.strip() or proc.stdout.strip())
    for o in objs:
        try:
            os.unlink(o)
        except OSError:
            pass
    if errors:
        try:
            os.unlink(tmp_out)
        except OSError:
            pass
        raise BuildError(_errors().ErrorCode.FAILURE,
                         f"[cpp_extension] building extension {name!r} failed:\n" + "\n".join(errors))
    took = time.perf_counter() - t0
    os.replace(tmp_out, out)
    # one line per build: the build time and the commands (the tests count builds with it)
    with open(os.path.join(build_dir, "build.log"), "a") as f:
        f.write(f"{took:.3f}s " + " && ".join(" ".join(shlex.quote(c) for c in cmd) for cmd in cmds) + "\n")
    return out


def load(name, sources, extra_cflags=None, extra_ldflags=None, extra_include_paths=None, build_directory=None,
         verbose=False, is_python_module=True):
    """Builds (or takes from the cache) and imports the extension module ``name``.

    Args:
        name: the module name (its ``PYBIND11_MODULE(name, m)``).
        sources: ``.asc`` (Ascend C, ``<<<>>>`` launches translated) and ``.cpp``/``.cc`` files.
        extra_cflags / extra_ldflags: more compiler / linker options (``-O3``, ``-DX=1``, ``-lm``).
        extra_include_paths: more ``-I`` directories.
        build_directory: the directory to build in (default: the cache, see the module doc).
        verbose: print the compiler command and warnings.
        is_python_module: False builds a plain shared library and returns its path (e.g. an
            operator library for :func:`pyasc.load_op_library`).

    Returns the imported module (or the library path). Raises :class:`BuildError` (an
    AscendRuntimeError) with the compiler's diagnostics, AscendValueError for a missing source.
    """
    _check_name(name)
    sources = [os.path.abspath(s) for s in _as_list(sources, "sources")]
    if not sources:
        raise _value_error(f"[cpp_extension.load] {name}: no sources")
    cflags = [str(f) for f in _as_list(extra_cflags, "extra_cflags")]
    ldflags = [str(f) for f in _as_list(extra_ldflags, "extra_ldflags")]
    incs = [os.path.abspath(p) for p in _as_list(extra_include_paths, "extra_include_paths")] + include_paths()
    texts = _read_sources(sources)
    key = _hash(name, texts, cflags + ldflags + incs + [str(is_python_module)])
    return _load_built(name, key, sources, cflags, ldflags, incs, build_directory, verbose, is_python_module)


def _load_built(name, key, sources, cflags, ldflags, incs, build_directory, verbose, is_python_module):
    root = build_directory or get_default_build_root()
    build_dir = os.path.join(os.path.abspath(root), f"{name}_{key}") if build_directory is None else \
        os.path.abspath(build_directory)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0] if is_python_module else ".so"
    target = os.path.join(build_dir, name + suffix)
    if target in _loaded:
        if _loaded_keys.get(target) == key:
            return _loaded[target]
        if is_python_module:
            # dlopen() of the same path returns the module already mapped: Python cannot reload an
            # extension module, so a changed build under a fixed build_directory needs a new name
            raise BuildError(_errors().ErrorCode.FAILURE,
                             f"[cpp_extension] module {name!r} was already loaded from {target} in this process "
                             "with other sources or flags; an extension module cannot be reloaded: use another "
                             "name (or the default cache directory, which keys the path by the hash)")
    if not os.path.isfile(target) or build_directory is not None:
        os.makedirs(build_dir, exist_ok=True)
        with open(build_dir + ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # parallel processes: one builds, the others wait
            try:
                stamp = os.path.join(build_dir, ".key")
                fresh = os.path.isfile(target) and os.path.isfile(stamp) and open(stamp).read() == key
                if not fresh:
                    built = _build(name, sources, build_dir, cflags, ldflags, incs, verbose, is_python_module)
                    if built != target:
                        os.replace(built, target)
                    with open(stamp, "w") as f:
                        f.write(key)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
    _loaded_keys[target] = key
    if not is_python_module:
        _loaded[target] = target
        return target
    return _import(name, target)


def load_inline(name, cpp_sources, asc_sources=None, functions=None, extra_cflags=None, extra_ldflags=None,
                extra_include_paths=None, build_directory=None, verbose=False, is_python_module=True):
    """:func:`load` from source strings (torch's load_inline; ``asc_sources`` takes cuda_sources' place).

    ``cpp_sources`` (C++ host/binding code) and ``asc_sources`` (Ascend C kernels with ``<<<>>>``
    launches) are strings or lists of strings, written to ``main.cpp`` / ``kernels.asc`` in the build
    directory. ``functions``: names (or ``{name: docstring}``) to bind automatically -- a
    ``PYBIND11_MODULE`` defining them is appended, so the sources need only declare them
    (``#include <pybind11/pybind11.h>`` is added first).
    """
    _check_name(name)
    cpp = "\n".join(_as_list(cpp_sources, "cpp_sources"))
    asc_src = "\n".join(_as_list(asc_sources, "asc_sources"))
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        items = functions.items() if isinstance(functions, dict) else [(f, "") for f in functions]
        for f, _ in items:
            if not isinstance(f, str) or not f.isidentifier():
                raise _value_error(f"[cpp_extension.load_inline] function name {f!r} is not an identifier")
        binds = "".join(f'  m.def("{f}", &{f}, {_cstr(doc)});\n' for f, doc in items)
        cpp = "#include <pybind11/pybind11.h>\n#include <pybind11/numpy.h>\n" + cpp + \
            f"\n\nPYBIND11_MODULE({name}, m) {{\n  pybind11::module_::import(\"pyasc\");\n{binds}}}\n"
    cflags = [str(f) for f in _as_list(extra_cflags, "extra_cflags")]
    ldflags = [str(f) for f in _as_list(extra_ldflags, "extra_ldflags")]
    incs = [os.path.abspath(p) for p in _as_list(extra_include_paths, "extra_include_paths")] + include_paths()
    texts = [("main.cpp", cpp.encode())] + ([("kernels.asc", asc_src.encode())] if asc_src else [])
    key = _hash(name, texts, cflags + ldflags + incs + [str(is_python_module)])
    root = build_directory or get_default_build_root()
    build_dir = os.path.join(os.path.abspath(root), f"{name}_{key}") if build_directory is None else \
        os.path.abspath(build_directory)
    os.makedirs(build_dir, exist_ok=True)
    sources = []
    for fname, data in texts:
        path = os.path.join(build_dir, fname)
        # written only when changed, so a cache hit does not touch the files
        if not os.path.isfile(path) or open(path, "rb").read() != data:
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        sources.append(path)
    return _load_built(name, key, sources, cflags, ldflags, incs, build_directory, verbose, is_python_module)


def _cstr(s):
    return '"' + (s or "").replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
