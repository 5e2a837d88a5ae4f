"""Compiling translated kernels into shared libraries, cached on disk.

A kernel's C++ (prelude + kernel + launch entry) is compiled with the host
compiler against the installed pyasc headers and ``libasc`` (the flags of
``pyasc-cc``: ``-std=c++17 -O2``), into ``<cache>/<sha256>.so``. The key hashes
the complete C++ text (which holds the kernel's and its helpers' code, the
ConstExpr values and the argument dtypes), the compiler command and the pyasc
version and a digest of the installed headers, so any change of those compiles anew and anything else is reused by
later processes. The cache directory is ``$PYASC_CACHE_DIR`` or
``~/.cache/pyasc/jit``. Files are written under a temporary name and renamed,
so concurrent processes never load a half-written library.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import threading

import pyasc
from pyasc.tools.cc import package_dirs

from ..codegen.errors import CompilationError
from .prelude import PRELUDE

__all__ = ["cache_dir", "compile_source", "compiler_command", "load_library"]

_lock = threading.Lock()
_loaded = {}
_cxx_version = None


def cache_dir():
    """The on-disk kernel cache (``$PYASC_CACHE_DIR`` or ``~/.cache/pyasc/jit``)."""
    d = os.environ.get("PYASC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "pyasc", "jit")
    os.makedirs(d, exist_ok=True)
    return d


def compiler_command():
    """The compiler and flags (``$CXX``, ``$PYASC_JIT_CXXFLAGS`` replaces the default ``-O2``)."""
    inc, lib = package_dirs()
    cxx = shlex.split(os.environ.get("CXX", "")) or [shutil.which("g++") or shutil.which("c++") or "g++"]
    flags = shlex.split(os.environ.get("PYASC_JIT_CXXFLAGS", "-O2"))
    # Python.h for the fast launch entry (the library is loaded into this interpreter only).
    py_inc = python_include()
    py = ["-isystem", py_inc] if py_inc else []
    return cxx + ["-std=c++17", "-fPIC", "-shared", *flags, "-isystem", inc, *py], [
        f"-L{lib}", "-lasc", f"-Wl,-rpath,{lib}", "-pthread"]


def python_include():
    """The directory of this interpreter's Python.h, or None (then kernels get no CPython fast entry)."""
    d = sysconfig.get_paths().get("include")
    return d if d and os.path.isfile(os.path.join(d, "Python.h")) else None


def _compiler_id(cxx):
    global _cxx_version
    if _cxx_version is None:
        try:
            _cxx_version = subprocess.run(cxx[:1] + ["--version"], capture_output=True, text=True,
                                          timeout=60).stdout.split("\n")[0]
        except (OSError, subprocess.SubprocessError):
            _cxx_version = "?"
    return _cxx_version


_stamp = None


def headers_stamp():
    """A digest of the installed kernel headers (paths, sizes, mtimes): a changed header compiles anew."""
    global _stamp
    if _stamp is None:
        inc, _ = package_dirs()
        h = hashlib.sha256()
        for root, dirs, files in os.walk(inc):
            dirs.sort()
            for f in sorted(files):
                st = os.stat(os.path.join(root, f))
                h.update(f"{os.path.relpath(os.path.join(root, f), inc)}:{st.st_size}:{st.st_mtime_ns};".encode())
        _stamp = h.hexdigest()[:16]
    return _stamp


def source_key(source):
    """The cache key of a C++ source (source, compiler command, pyasc version, installed headers)."""
    head, tail = compiler_command()
    h = hashlib.sha256()
    for part in (source, " ".join(head + tail), _compiler_id(head), pyasc.__version__, headers_stamp()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:40]


def compile_source(source, name, key=None):
    """Path of the shared library of ``source`` (compiled now unless cached); raises CompilationError."""
    key = key or source_key(source)
    d = cache_dir()
    so = os.path.join(d, f"{key}.so")
    if os.path.exists(so):
        return so, False
    head, tail = compiler_command()
    extra = []
    text = source
    pch = _prelude_pch(head) if PRELUDE in source else None
    if pch is not None:
        # The prelude (kernel_operator.h and friends) comes from the precompiled header: ~3x less compile time.
        text = f'#include "{_PCH_NAME}"\n' + source.replace(PRELUDE, "", 1)
        extra = ["-I", pch]
    fd, src = tempfile.mkstemp(prefix=f"{name}_", suffix=".cpp", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    tmp_so = src[:-4] + ".so.tmp"
    cmd = head + extra + [src, "-o", tmp_so] + tail
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        os.unlink(src)
        raise CompilationError(f"cannot run the C++ compiler '{cmd[0]}': {e} (set CXX)") from None
    if r.returncode != 0:
        kept = os.environ.get("PYASC_DUMP_PATH")
        msg = _trim(r.stderr or r.stdout)
        os.unlink(src)
        if os.path.exists(tmp_so):
            os.unlink(tmp_so)
        raise CompilationError(f"the C++ compiler rejected kernel '{name}'"
                               f"{' (source kept in ' + kept + ')' if kept else ' (set PYASC_DUMP_PATH to keep it)'}"
                               f":\n{msg}")
    os.replace(tmp_so, so)
    os.unlink(src)
    return so, True


_PCH_NAME = "asc_jit_prelude.h"
_pch_state = {}


def _prelude_pch(head):
    """Directory holding the precompiled prelude for this compiler command (built once), or None."""
    key = hashlib.sha256((" ".join(head) + _compiler_id(head) + pyasc.__version__ + headers_stamp() +
                          PRELUDE).encode()).hexdigest()[:16]
    d = os.path.join(cache_dir(), f"pch-{key}")
    hit = _pch_state.get(d)
    if hit is not None:
        return hit or None
    gch = os.path.join(d, _PCH_NAME + ".gch")
    if not os.path.exists(gch):
        os.makedirs(d, exist_ok=True)
        header = os.path.join(d, _PCH_NAME)
        if not os.path.exists(header):
            fd, tmp = tempfile.mkstemp(dir=d, suffix=".h")
            with os.fdopen(fd, "w") as f:
                f.write(PRELUDE)
            os.replace(tmp, header)
        tmp_gch = os.path.join(d, f".{os.getpid()}.{threading.get_ident()}.gch")
        cmd = [c for c in head if c != "-shared"] + ["-x", "c++-header", header, "-o", tmp_gch]
        try:
            ok = subprocess.run(cmd, capture_output=True, text=True).returncode == 0
        except OSError:
            ok = False
        if not ok:
            _pch_state[d] = ""
            if os.path.exists(tmp_gch):
                os.unlink(tmp_gch)
            return None
        os.replace(tmp_gch, gch)
    _pch_state[d] = d
    return d


def _trim(text, limit=40):
    lines = [l for l in text.splitlines() if l.strip()]
    # The diagnostics that name the kernel's Python file first: they say where the problem is.
    py = [l for l in lines if ".py:" in l]
    rest = [l for l in lines if ".py:" not in l]
    out = (py + rest)[:limit]
    if len(lines) > limit:
        out.append(f"... ({len(lines) - limit} more lines)")
    return "\n".join(out)


def load_library(path):
    """The loaded ``ctypes.CDLL`` of a compiled kernel (each file loaded once)."""
    with _lock:
        lib = _loaded.get(path)
        if lib is None:
            lib = ctypes.CDLL(path)
            _loaded[path] = lib
        return lib
