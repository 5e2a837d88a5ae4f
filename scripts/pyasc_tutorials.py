#!/usr/bin/env python3
"""Runs hicann/pyasc's tutorials and kernel tests, unmodified, on pyasc's ``asc``.

    python scripts/pyasc_tutorials.py SNAPSHOT_DIR [--only tutorials|tests] [--timeout 900] [--keep DIR]

SNAPSHOT_DIR is a fetched hicann/pyasc: a work tree, or a git directory with no
work tree (then ``git archive HEAD`` extracts the files). Nothing is vendored:
``python/tutorials/0*`` and ``python/test/kernels`` are copied into a
temporary directory, each tutorial runs as ``python <file> -r Model`` in its
own directory and the kernel tests run under pytest (default backend); the
script prints one line per tutorial and per test and the counts, and exits 1
when anything failed.

The tutorials and one test import ``torch``. When torch is not installed, the
runner puts a stand-in on ``PYTHONPATH`` (``torch`` over NumPy: ``rand``,
``randn``, ``randint``, ``zeros``, ``zeros_like``, ``empty``, ``matmul``,
``where``, ``allclose``, ``.to(dtype)``, ``numel()`` -- what those files call,
tensors being NumPy arrays) and says so in its output; with a real torch
installed it is not used.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

TORCH_STANDIN = r'''
"""NumPy stand-in for the few torch functions hicann/pyasc's tutorials call (scripts/pyasc_tutorials.py)."""
import numpy as _np

__version__ = "0.0+numpy-standin"
float16, float32, float64, bfloat16 = _np.float16, _np.float32, _np.float64, _np.float32
int8, int16, int32, int64, uint8, bool = _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.bool_
_rng = _np.random.default_rng(2025)


class Tensor(_np.ndarray):
    def to(self, dtype=None, *args, **kwargs):
        if isinstance(dtype, str):
            return self
        return _t(self.astype(dtype)) if dtype is not None else self

    def numel(self):
        return int(self.size)

    def data_ptr(self):
        return self.ctypes.data

    def detach(self):
        return self

    def numpy(self):
        return self.view(_np.ndarray)

    def cpu(self):
        return self

    def contiguous(self):
        return _t(_np.ascontiguousarray(self))


def _t(a):
    return _np.asarray(a).view(Tensor)


def _shape(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


def rand(*size, dtype=float32, device=None):
    return _t(_rng.random(_shape(size)).astype(dtype))


def randn(*size, dtype=float32, device=None):
    return _t(_rng.standard_normal(_shape(size)).astype(dtype))


def randint(low, high, size, dtype=int64, device=None):
    return _t(_rng.integers(low, high, size=size).astype(dtype))


def zeros(*size, dtype=float32, device=None):
    return _t(_np.zeros(_shape(size), dtype=dtype))


def empty(*size, dtype=float32, device=None):
    return _t(_np.empty(_shape(size), dtype=dtype))


def zeros_like(x, dtype=None, device=None):
    return _t(_np.zeros_like(x, dtype=dtype))


def matmul(a, b):
    return _t(_np.matmul(a, b))


def where(c, a, b):
    return _t(_np.where(c, a, b))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(_np.allclose(_np.asarray(a), _np.asarray(b), rtol=rtol, atol=atol, equal_nan=equal_nan))
'''


def extract(snapshot, dest):
    """Copies python/tutorials and python/test/kernels of the snapshot into dest."""
    parts = ["python/tutorials", "python/test/kernels"]
    if os.path.isdir(os.path.join(snapshot, "python", "tutorials")):
        for p in parts:
            shutil.copytree(os.path.join(snapshot, p), os.path.join(dest, p))
        return "work tree"
    git = ["git", f"--git-dir={snapshot}"]
    rev = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if rev.returncode != 0:
        sys.exit(f"{snapshot}: neither a hicann/pyasc work tree nor a git directory ({rev.stderr.strip()})")
    arch = subprocess.run(git + ["archive", "HEAD"] + parts, capture_output=True)
    if arch.returncode != 0:
        sys.exit(f"git archive failed: {arch.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", dest], input=arch.stdout, check=True)
    return f"git HEAD {rev.stdout.strip()}"


def torch_available():
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


def run_tutorials(root, env, timeout):
    results = []
    tdir = os.path.join(root, "python", "tutorials")
    for d in sorted(os.listdir(tdir)):
        if not re.match(r"\d\d_", d):
            continue
        for f in sorted(os.listdir(os.path.join(tdir, d))):
            if not f.endswith(".py"):
                continue
            t0 = time.time()
            try:
                r = subprocess.run([sys.executable, f, "-r", "Model"], cwd=os.path.join(tdir, d), env=env,
                                   capture_output=True, text=True, timeout=timeout)
                ok, out = r.returncode == 0, r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                ok, out = False, f"timed out after {timeout} s"
            results.append((f"{d}/{f}", ok, time.time() - t0, out))
    return results


def run_tests(root, env, timeout):
    kdir = os.path.join(root, "python", "test", "kernels")
    xml = os.path.join(root, "kernels.xml")
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                            f"--junitxml={xml}",
                            kdir], cwd=kdir, env=env, capture_output=True, text=True, timeout=timeout)
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return [], f"pytest timed out after {timeout} s"
    results = []
    if os.path.exists(xml):
        for case in ET.parse(xml).getroot().iter("testcase"):
            name = f"{os.path.relpath(case.get('file') or case.get('classname', '').replace('.', '/') + '.py', '.')}"
            name = f"{case.get('classname')}::{case.get('name')}"
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            skipped = case.find("skipped")
            status = "passed" if bad is None and skipped is None else ("skipped" if bad is None else "failed")
            msg = "" if bad is None else (bad.get("message") or "").splitlines()[0][:200] if bad.get("message") else ""
            results.append((name, status, float(case.get("time") or 0), msg))
    return results, out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("snapshot")
    p.add_argument("--only", choices=["tutorials", "tests"])
    p.add_argument("--timeout", type=int, default=900, help="seconds per tutorial / for the test run")
    p.add_argument("--keep", help="work in this directory (kept) instead of a temporary one")
    p.add_argument("-v", "--verbose", action="store_true", help="print the output of failures")
    args = p.parse_args()

    root = args.keep or tempfile.mkdtemp(prefix="pyasc-tutorials-")
    os.makedirs(root, exist_ok=True)
    try:
        src = extract(os.path.abspath(args.snapshot), root)
        env = dict(os.environ)
        note = "torch: installed"
        if not torch_available():
            shim = os.path.join(root, "torch_standin")
            os.makedirs(os.path.join(shim, "torch"))
            with open(os.path.join(shim, "torch", "__init__.py"), "w") as f:
                f.write(TORCH_STANDIN)
            env["PYTHONPATH"] = shim + os.pathsep + env.get("PYTHONPATH", "")
            note = "torch: not installed, the runner's NumPy stand-in is used"
        print(f"hicann/pyasc snapshot {args.snapshot} ({src}); {note}")
        failed = 0
        if args.only in (None, "tutorials"):
            tut = run_tutorials(root, env, args.timeout)
            for name, ok, dt, out in tut:
                print(f"tutorial {name:45} {'PASS' if ok else 'FAIL'} {dt:7.1f} s")
                if not ok:
                    tail = "\n".join(out.strip().splitlines()[-(40 if args.verbose else 6):])
                    print("    " + tail.replace("\n", "\n    "))
            n_ok = sum(ok for _, ok, _, _ in tut)
            failed += len(tut) - n_ok
            print(f"tutorials: {n_ok}/{len(tut)} passed")
        if args.only in (None, "tests"):
            res, out = run_tests(root, env, args.timeout)
            for name, status, dt, msg in res:
                print(f"test {name:70} {status.upper():7} {dt:6.1f} s {msg}")
            counts = {s: sum(1 for r in res if r[1] == s) for s in ("passed", "failed", "skipped")}
            failed += counts["failed"]
            print(f"kernel tests: {counts['passed']}/{len(res)} passed, {counts['failed']} failed, "
                  f"{counts['skipped']} skipped")
            if not res or args.verbose:
                print(out[-6000:])
        return 1 if failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
