#!/usr/bin/env python3
"""Fused lazy graphs vs NumPy, numexpr and a native streaming kernel, in one run.

Float32 arrays of 2^25 elements unless said (issue 4's targets):

* a * b + c           -- vs the bandwidth of a native C++ triad (bench_fusion_triad.cc,
                         built here with the system compiler), vs NumPy and numexpr
* exp(a) * 2 + sin(b) -- vs NumPy
* (1024, 1) + (1, 1024) -- vs NumPy
* sum(a * b)          -- vs NumPy
* row softmax 4096x4096, NumPy style -- vs NumPy
* relu(x @ w + bias), x 2048x1024, w 1024x1024 -- matmul + one fused epilogue pass, vs NumPy
* 100 iterations building and dropping temporaries: OS allocations after the
  first iteration (must be 0) and peak pool memory / live data (<= 1.5)

Every pyasc case is also timed with ASC_NUM_CORES=1 (a child process) to show
that both cores are used. Times are best of --repeat runs, in ms.

    python benchmarks/bench_fusion.py [--repeat 7] [--log2n 25] [--side 4096]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import pyasc as asc

HERE = os.path.dirname(os.path.abspath(__file__))


def best(fn, repeat):
    fn()  # warm up: pool segments, page faults, program cache
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3


def native_triad_gbs(log2n, cores=None):
    exe = os.environ.get("ASC_TRIAD_BIN")
    tmp = None
    if not exe or not os.path.exists(exe):
        cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
        if not cxx:
            return None
        tmp = tempfile.mkdtemp()
        exe = os.path.join(tmp, "triad")
        subprocess.run([cxx, "-O3", "-march=native", "-pthread", os.path.join(HERE, "bench_fusion_triad.cc"), "-o",
                        exe], check=True)
    env = dict(os.environ)
    if cores:
        env["ASC_NUM_CORES"] = str(cores)
    out = subprocess.run([exe, str(log2n), "10"], capture_output=True, text=True, check=True, env=env).stdout
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return float(out.split()[1])


def cases(log2n, side):
    rng = np.random.default_rng(0)
    n = 1 << log2n
    na, nb, nc = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    col = rng.standard_normal((1024, 1)).astype(np.float32)
    row = rng.standard_normal((1, 1024)).astype(np.float32)
    nx = rng.standard_normal((side, side)).astype(np.float32)
    a, b, c = asc.asarray(na), asc.asarray(nb), asc.asarray(nc)
    ac, ar, x = asc.asarray(col), asc.asarray(row), asc.asarray(nx)
    nm = rng.standard_normal((2048, 1024)).astype(np.float32)
    nw = (rng.standard_normal((1024, 1024)) / 32).astype(np.float32)
    nbias = rng.standard_normal(1024).astype(np.float32)
    m, w, bias = asc.asarray(nm), asc.asarray(nw), asc.asarray(nbias)

    def softmax(xp, v):
        e = xp.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return [
        ("a*b+c", lambda: (a * b + c).eval(), lambda: na * nb + nc, ("numexpr", "a*b+c", dict(a=na, b=nb, c=nc))),
        ("exp(a)*2+sin(b)", lambda: (asc.exp(a) * 2 + asc.sin(b)).eval(), lambda: np.exp(na) * 2 + np.sin(nb), None),
        ("(1024,1)+(1,1024)", lambda: (ac + ar).eval(), lambda: col + row, None),
        ("sum(a*b)", lambda: float(asc.sum(a * b)), lambda: float(np.sum(na * nb)), None),
        (f"softmax {side}x{side}", lambda: softmax(asc, x).eval(), lambda: softmax(np, nx), None),
        ("relu(x@w+bias)", lambda: asc.maximum(m @ w + bias, 0).eval(), lambda: np.maximum(nm @ nw + nbias, 0), None),
    ]


def temporaries_loop(log2n):
    """100 iterations of NumPy-style code with temporaries; returns
    (os allocations after iteration 1, peak pool bytes / live bytes)."""
    n = 1 << (log2n - 2)
    a = asc.asarray(np.random.default_rng(1).standard_normal(n).astype(np.float32))
    b = asc.asarray(np.random.default_rng(2).standard_normal(n).astype(np.float32))
    acc = asc.zeros(n, dtype=asc.float32) if hasattr(asc, "zeros") else a * 0
    acc.eval()
    live = a.nbytes + b.nbytes + acc.nbytes
    asc.reset_peak_memory_stats()
    base_alloc = asc.memory_stats()["allocated_bytes"]
    def step(acc):
        t = a * 2.0 + b          # temporaries, dropped when step returns
        u = asc.tanh(t) * 0.5
        return acc * 0.9 + u     # the loop-carried value replaces the old one

    first = None
    for i in range(100):
        acc = step(acc)
        s = float(asc.sum(acc))  # observed every iteration
        if i == 0:
            first = asc.memory_stats()["os_allocations"]
    st = asc.memory_stats()
    extra = st["os_allocations"] - first
    peak = st["peak_allocated_bytes"] - base_alloc + a.nbytes + b.nbytes + acc.nbytes
    return extra, peak / live, s


def run_pyasc_only(log2n, side, repeat):
    return {name: best(f, repeat) for name, f, _, _ in cases(log2n, side)}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--log2n", type=int, default=25)
    p.add_argument("--side", type=int, default=4096)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:  # pyasc times only, as JSON (the ASC_NUM_CORES=1 run)
        print(json.dumps(run_pyasc_only(args.log2n, args.side, args.repeat)))
        return
    asc.set_eager(False)
    cores = asc.get_device_properties().num_cores if hasattr(asc, "get_device_properties") else os.cpu_count()
    env = dict(os.environ, ASC_NUM_CORES="1")
    one = json.loads(subprocess.run([sys.executable, __file__, "--child", "--log2n", str(args.log2n), "--side",
                                     str(args.side), "--repeat", str(max(3, args.repeat // 2))],
                                    capture_output=True, text=True, check=True, env=env).stdout)
    try:
        import numexpr
        numexpr.set_num_threads(cores)
    except ImportError:
        numexpr = None
    gbs = native_triad_gbs(args.log2n)
    n = 1 << args.log2n
    print(f"pyasc fusion benchmark: float32, 2^{args.log2n} elements, {cores} cores, best of {args.repeat}")
    print(f"{'case':22s} {'pyasc ms':>9s} {'1-core ms':>9s} {'scaling':>8s} {'numpy ms':>9s} {'np/pyasc':>9s}"
          f" {'other':>24s}")
    for name, f, g, other in cases(args.log2n, args.side):
        t = best(f, args.repeat)
        u = best(g, args.repeat)
        extra = ""
        if name == "a*b+c":
            if gbs:
                eff = 16.0 * n / (t * 1e-3) / 1e9
                extra += f"{eff:.1f} GB/s = {eff / gbs:.0%} of native {gbs:.1f} GB/s; "
            if numexpr is not None:
                _, expr, local = other
                ne = best(lambda: numexpr.evaluate(expr, local_dict=local), args.repeat)
                extra += f"numexpr {ne:.2f} ms, ne/pyasc {ne / t:.2f}"
        print(f"{name:22s} {t:9.2f} {one[name]:9.2f} {one[name] / t:8.2f} {u:9.2f} {u / t:9.2f}  {extra}")
    allocs, peak_ratio, _ = temporaries_loop(args.log2n)
    print(f"temporaries loop (100 iterations, 2^{args.log2n - 2} float32): OS allocations after the first "
          f"iteration {allocs}, peak pool memory / live data {peak_ratio:.2f}")
    print(f"graph stats: {asc.lazy.graph_stats()}")


if __name__ == "__main__":
    main()
