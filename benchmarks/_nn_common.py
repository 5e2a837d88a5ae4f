"""Pieces shared by the asc.ops bandwidth benchmarks (bench_nn_act.py, bench_nn_norm.py)."""

from __future__ import annotations

import argparse
import math
import os

from _timing import best


def triad_gbps(log2n, repeat):
    """GB/s of the native triad out = a * b + c (16n bytes; bench_fusion_triad.cc) in this run,
    NaN without a compiler."""
    n = 1 << log2n
    try:
        from bench_fusion import NativeTriad

        triad = NativeTriad(log2n, os.cpu_count() or 2)
        ms = triad.best_ms(repeat) if triad.fn else float("nan")
        triad.close()
    except Exception:  # noqa: BLE001 - no compiler: report without the fraction
        ms = float("nan")
    return 16 * n / (ms * 1e-3) / 1e9 if ms == ms else float("nan")


def measure(name, f, g, n, triad_gbs, repeat, session=None, feed=None):
    """One row: pyasc `f` and NumPy `g` timed (best of `repeat`), 8n bytes moved, and the
    onnxruntime `session` run on `feed` when given."""
    t = best(f, repeat)
    u = best(g, repeat)
    r = {"case": name, "n": n, "pyasc_ms": t, "numpy_ms": u, "numpy_over_pyasc": u / t,
         "pyasc_GBps": 8 * n / (t * 1e-3) / 1e9, "triad_GBps": triad_gbs}
    r["bandwidth_fraction"] = r["pyasc_GBps"] / triad_gbs if triad_gbs == triad_gbs else float("nan")
    if session is not None:
        o = best(lambda: session.run(None, feed), repeat)
        r["onnxruntime_ms"] = o
        r["ort_over_pyasc"] = o / t
    return r


def cli(run, doc, what):
    """The command line of a bandwidth benchmark: --log2n/--repeat, then the table of run()."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--log2n", type=int, default=22)
    ap.add_argument("--repeat", type=int, default=10)
    a = ap.parse_args()
    res = run(a.log2n, a.repeat)
    print(f"asc.ops {what}, float32 2^{a.log2n}, {os.cpu_count()} cores; native triad "
          f"{res[0]['triad_GBps']:.1f} GB/s")
    print(f"{'case':10s} {'pyasc ms':>9s} {'numpy ms':>9s} {'np/pyasc':>9s} {'ort ms':>8s} {'ort/pyasc':>9s} "
          f"{'GB/s':>6s} {'of triad':>8s}")
    for r in res:
        print(f"{r['case']:10s} {r['pyasc_ms']:9.2f} {r['numpy_ms']:9.2f} {r['numpy_over_pyasc']:9.2f} "
              f"{r.get('onnxruntime_ms', math.nan):8.2f} {r.get('ort_over_pyasc', math.nan):9.2f} "
              f"{r['pyasc_GBps']:6.1f} {r['bandwidth_fraction']:8.2f}")
