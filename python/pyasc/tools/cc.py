"""pyasc-cc: compile Ascend C sources for the CPU device.

Usage::

    pyasc-cc add_custom.asc -o add_custom            # kernel + ACL host main
    pyasc-cc -c kernel.asc -o kernel.o -O3 -g
    pyasc-cc --asc main.cpp kernel.cpp -o prog       # .cpp files with <<<>>> launches
    pyasc-cc -x asc main.cpp -x none util.cpp -o prog
    pyasc-cc -shared -fPIC op.asc -o libop.so
    pyasc-cc --check prog.asc -o prog                # request the kernel checker
    python -m pyasc.tools.cc ...
    pyasc-cc --translate in.asc out.cpp              # translation only (build tools)

``.asc`` inputs (and ``.cpp``/``.cc``/``.cxx`` inputs after ``--asc`` or
``-x asc``) are translated (:mod:`pyasc.tools.asc_translate`: the
``kernel<<<blockDim, l2ctrl, stream>>>(args...)`` launches become calls of
our launcher, with ``#line`` directives so diagnostics name the original file
and line) into a temporary directory and compiled with the host C++ compiler
(``$CXX``, default ``g++``) with ``-std=c++17``, the installed pyasc headers,
``-O2`` unless an ``-O`` option is given, and, when linking, ``libasc`` with an
rpath to it. Every other option and input (``-I -D -U -L -l -W* -g -c -S -E
-shared -fPIC -o``, objects, archives, ...) goes to the compiler unchanged, in
order.

Options of pyasc-cc itself:

``--asc``               treat every .cpp/.cc/.cxx input as Ascend C
``-x asc``              treat the following inputs as Ascend C (``-x none`` ends it)
``--check``             compile with ``-DASC_KERNEL_CHECK=1``: the program runs
                        with the kernel checker requested (as ``ASCEND_DEBUG=1``)
``--keep-tmp``          keep the translated sources and print where they are
``-v``                  print the translated files, each translated launch line
                        and the compiler command
``--translate IN OUT``  only translate IN into OUT
``--print-include-dir`` / ``--print-lib-dir``  where the headers / libasc are
``--npu-arch=dav-2201|dav-3510``  the target architecture as CANN's compiler
                        takes it: defines ``__NPU_ARCH__`` (2201 / 3510; the
                        last one given wins); anything else is a usage error
``--cce-simd-vf-fusion=...``, ``--asc-aicore-lang``, ``--enable-simt``,
``--cce-auto-sync``  options of CANN's compiler that only tune NPU code:
                        accepted and ignored

Exit status: the compiler's; 2 for a usage error (no input, missing file,
option without its value, a launch the translator cannot read).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

try:
    from . import asc_translate
except ImportError:
    # Run as a file (bin/asc-cc, the CMake ASC language's driver): importing
    # the pyasc package (NumPy, the C extension) would cost every compile
    # command ~1.5 s of CPU, and the driver needs none of it.
    import asc_translate  # type: ignore[no-redef]

__all__ = ["main", "UsageError", "package_dirs", "build_command"]

EXIT_USAGE = 2

_ASC_EXTS = (".asc",)
_CXX_EXTS = (".cpp", ".cc", ".cxx", ".c++", ".cp", ".C")
# Compiler options whose value is the next argument.
_TAKES_VALUE = {
    "-o", "-I", "-D", "-U", "-L", "-l", "-x", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
    "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-isysroot", "-iprefix", "-aux-info",
    "-dumpbase", "-dumpdir", "-e", "-T", "-z", "-u",
}
# Options that mean "do not link".
_NO_LINK = {"-c", "-S", "-E", "-fsyntax-only", "-M", "-MM"}
# Options of CANN's bisheng that tune NPU code generation only: accepted and ignored.
_IGNORED = {"--cce-simd-vf-fusion", "--asc-aicore-lang", "--enable-simt", "--cce-auto-sync", "-fcce-auto-sync"}
# --npu-arch values (CANN's bisheng) and their __NPU_ARCH__ numbers.
NPU_ARCHS = {"dav-2201": 2201, "dav-3510": 3510}


class UsageError(Exception):
    """A wrong command line (exit status 2)."""


def package_dirs():
    """``(include_dir, lib_dir)`` of the installed pyasc package."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(pkg, "include"), os.path.join(pkg, "lib")


def _parse(argv):
    opts = {"asc_all": False, "check": False, "keep_tmp": False, "verbose": False, "npu_arch": None}
    items = []  # ("arg", text) passed through, ("input", path, is_asc)
    lang_asc = False
    has_opt = False
    has_std = False
    no_link = False
    inputs = 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--asc":
            opts["asc_all"] = True
        elif a == "--check":
            opts["check"] = True
        elif a == "--keep-tmp":
            opts["keep_tmp"] = True
        elif a in ("-v", "--verbose"):
            opts["verbose"] = True
        elif a == "--npu-arch" or a.startswith("--npu-arch="):
            if a == "--npu-arch":
                if i + 1 >= len(argv):
                    raise UsageError("option '--npu-arch' needs a value (dav-2201 or dav-3510)")
                i += 1
                arch = argv[i]
            else:
                arch = a.split("=", 1)[1]
            if arch not in NPU_ARCHS:
                raise UsageError(f"--npu-arch={arch} is not supported: use dav-2201 or dav-3510")
            opts["npu_arch"] = arch
        elif a.split("=", 1)[0] in _IGNORED:
            pass
        elif a == "-x" or (a.startswith("-x") and len(a) > 2):
            if a == "-x":
                if i + 1 >= len(argv):
                    raise UsageError("option '-x' needs a language (asc, c++, none, ...)")
                i += 1
                lang = argv[i]
            else:
                lang = a[2:]
            lang_asc = lang == "asc"
            if not lang_asc:
                items.append(("arg", "-x"))
                items.append(("arg", lang))
        elif a in _TAKES_VALUE:
            if i + 1 >= len(argv):
                raise UsageError(f"option '{a}' needs a value")
            items.append(("arg", a))
            items.append(("arg", argv[i + 1]))
            i += 1
        elif a.startswith("-"):
            if a.startswith("-O"):
                has_opt = True
            if a.startswith("-std="):
                has_std = True
            if a in _NO_LINK:
                no_link = True
            if a in ("--translate", "--print-include-dir", "--print-lib-dir"):
                raise UsageError(f"'{a}' must be the first argument")
            items.append(("arg", a))
        else:
            ext = os.path.splitext(a)[1]
            is_asc = ext in _ASC_EXTS or ((lang_asc or opts["asc_all"]) and ext in _CXX_EXTS) or (
                lang_asc and ext not in (".o", ".a", ".so"))
            if not os.path.exists(a):
                raise UsageError(f"no such file: {a}")
            items.append(("input", a, is_asc))
            inputs += 1
        i += 1
    if inputs == 0:
        raise UsageError("no input files (usage: pyasc-cc file.asc [more .asc/.cpp/.o] -o prog)")
    opts.update(has_opt=has_opt, has_std=has_std, no_link=no_link)
    return opts, items


def build_command(argv, tmpdir):
    """Translates the Ascend C inputs of ``argv`` into ``tmpdir``; returns
    ``(command, translated, options)`` with ``translated`` a list of
    ``(input, output)`` pairs. Raises :class:`UsageError`."""
    opts, items = _parse(argv)
    inc, lib = package_dirs()
    if not os.path.isfile(os.path.join(inc, "kernel_operator.h")):
        raise UsageError(f"the pyasc headers are not installed at {inc} (install the package: pip install .)")
    cxx = shlex.split(os.environ.get("CXX", "")) or [shutil.which("g++") or shutil.which("c++") or "g++"]
    cmd = list(cxx)
    if not opts["has_std"]:
        cmd.append("-std=c++17")
    if not opts["has_opt"]:
        cmd.append("-O2")
    cmd += ["-isystem", inc]
    if opts["check"]:
        cmd.append("-DASC_KERNEL_CHECK=1")
    if opts["npu_arch"]:
        cmd.append(f"-D__NPU_ARCH__={NPU_ARCHS[opts['npu_arch']]}")
    translated = []
    quote_dirs = []
    for it in items:
        if it[0] == "arg":
            cmd.append(it[1])
            continue
        _, path, is_asc = it
        if not is_asc:
            cmd.append(path)
            continue
        # One sub-directory per input keeps the stem (and so the default .o
        # name of -c) even when two inputs share it.
        sub = os.path.join(tmpdir, str(len(translated)))
        os.makedirs(sub, exist_ok=True)
        out = os.path.join(sub, os.path.splitext(os.path.basename(path))[0] + ".cpp")
        try:
            asc_translate.translate_file(path, out, line_path=path)
        except asc_translate.TranslateError as e:
            raise UsageError(str(e)) from None
        except (OSError, UnicodeError) as e:
            raise UsageError(f"cannot read {path}: {e}") from None
        translated.append((path, out))
        # "file.h" includes resolve against the original file's directory.
        d = os.path.dirname(os.path.abspath(path))
        if d not in quote_dirs:
            quote_dirs.append(d)
        cmd.append(out)
    for d in quote_dirs:
        cmd[len(cxx):len(cxx)] = ["-iquote", d]
    if not opts["no_link"]:
        cmd += [f"-L{lib}", "-lasc", f"-Wl,-rpath,{lib}", "-pthread"]
    return cmd, translated, opts


def _show_launches(src, out):
    """Prints each translated launch line as the compiler sees it."""
    try:
        with open(out, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")[2:]  # after the prologue
        with open(src, encoding="utf-8", errors="replace") as f:
            launches = asc_translate.find_launches(f.read(), src)
    except (OSError, asc_translate.TranslateError):
        return
    for l in launches:
        print(f"pyasc-cc: {src}:{l['line']}: {lines[l['line'] - 1].strip()}", file=sys.stderr)


def _usage_error(msg):
    print(f"pyasc-cc: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def main(argv=None):
    """Runs ``pyasc-cc`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else EXIT_USAGE
    if argv[0] == "--translate":
        if len(argv) != 3:
            return _usage_error("usage: pyasc-cc --translate IN OUT")
        if not os.path.isfile(argv[1]):
            return _usage_error(f"no such file: {argv[1]}")
        try:
            asc_translate.translate_file(argv[1], argv[2])
        except asc_translate.TranslateError as e:
            return _usage_error(str(e))
        except (OSError, UnicodeError) as e:
            return _usage_error(f"cannot translate {argv[1]}: {e}")
        return 0
    if argv[0] in ("--print-include-dir", "--print-lib-dir"):
        print(package_dirs()[0 if argv[0] == "--print-include-dir" else 1])
        return 0
    tmpdir = tempfile.mkdtemp(prefix="pyasc-cc-")
    keep = False
    try:
        try:
            cmd, translated, opts = build_command(argv, tmpdir)
        except UsageError as e:
            return _usage_error(str(e))
        keep = opts["keep_tmp"]
        if opts["verbose"] or keep:
            for src, out in translated:
                print(f"pyasc-cc: {src} -> {out}", file=sys.stderr)
                if opts["verbose"]:
                    _show_launches(src, out)
        if opts["verbose"]:
            print("pyasc-cc: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
        try:
            return subprocess.call(cmd)
        except OSError as e:
            return _usage_error(f"cannot run the C++ compiler '{cmd[0]}': {e} (set CXX)")
    finally:
        if not keep:
            shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
