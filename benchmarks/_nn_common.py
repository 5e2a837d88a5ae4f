"""Pieces shared by the asc.ops bandwidth benchmarks (bench_nn_act.py, bench_nn_norm.py)."""

from __future__ import annotations

import argparse
import math
import os
import time

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


def pass_gbps(log2n, repeat):
    """GB/s of a plain pyasc elementwise pass y = x * 1.0 over 2^log2n float32 on all cores (8n
    bytes, one read + one write): the same bytes and working set as these ops (2^22 float32 in +
    out = 32 MiB, about this machine's L3, while the triad's 64 MiB goes to DRAM), so it is the
    practical ceiling of an 8n-byte op in this runtime."""
    import numpy as np

    import pyasc as asc

    x = asc.array(np.ones(1 << log2n, np.float32))
    asc.eval(x)
    ms = best(lambda: asc.eval(x * 1.0), repeat)
    return 8 * (1 << log2n) / (ms * 1e-3) / 1e9


def ort_options(ort):
    """onnxruntime session options for these peers: all cores, and intra-op threads that do not
    spin after a run - spinning threads of a live session would steal the cores from the pyasc
    timings interleaved with it (measured: softmax 1.6 -> 3.3 ms with four idle sessions alive)."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 2
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return opts


_TORCH = []


def torch_peer():
    """PyTorch (CPU) as a peer, with as many intra-op threads as the device has cores (the
    pyasc CPU device runs one worker per core), or None when torch is not installed or does not
    import (a broken or partial install only drops this peer)."""
    if not _TORCH:
        try:
            import torch

            torch.set_num_threads(os.cpu_count() or 2)
            _TORCH.append(torch)
        except Exception:  # noqa: BLE001 - ImportError, or OSError for a wheel missing its libraries
            _TORCH.append(None)
    return _TORCH[0]


def measure(name, f, g, n, triad_gbs, repeat, session=None, feed=None, torch_fn=None):
    """One row: pyasc `f` and NumPy `g` timed (best of `repeat`), 8n bytes moved, the
    onnxruntime `session` run on `feed` and the PyTorch call `torch_fn` when given. pyasc and the
    peers are interleaved (one call of each per round, best of `repeat` rounds), so a load change
    on the shared machine hits all alike."""
    u = best(g, repeat)
    fns = [f]
    if session is not None:
        fns.append(lambda: session.run(None, feed))
    if torch_fn is not None:
        fns.append(torch_fn)
    ts = interleaved_best(fns, repeat) if len(fns) > 1 else [best(f, repeat)]
    t = ts[0]
    r = {"case": name, "n": n, "pyasc_ms": t, "numpy_ms": u, "numpy_over_pyasc": u / t,
         "pyasc_GBps": 8 * n / (t * 1e-3) / 1e9, "triad_GBps": triad_gbs}
    r["bandwidth_fraction"] = r["pyasc_GBps"] / triad_gbs if triad_gbs == triad_gbs else float("nan")
    if session is not None:
        add_peer(r, ts[1], 8)
    if torch_fn is not None:
        add_peer(r, ts[-1], 8, "torch")
    return r


def interleaved_best(fns, repeat):
    """Best time in ms of each fn, called in turn once per round for `repeat` rounds (after one
    untimed warm-up call each)."""
    for fn in fns:
        fn()
    bests = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            bests[k] = min(bests[k], (time.perf_counter() - t0) * 1e3)
    return bests


def add_peer(r, peer_ms, bytes_per_element, peer="ort"):
    """A peer's time into row r (peer "ort": onnxruntime, "torch": PyTorch), with what the goal
    "2x the peer" would need: the bandwidth twice the peer's speed implies, as a fraction of the
    triad measured in the same run (above 1: beyond this machine's memory bandwidth, impossible
    for a kernel that moves the same bytes)."""
    r["onnxruntime_ms" if peer == "ort" else "torch_ms"] = peer_ms
    r[f"{peer}_over_pyasc"] = peer_ms / r["pyasc_ms"]
    r[f"{peer}_bandwidth_fraction"] = bytes_per_element * r["n"] / (peer_ms * 1e-3) / 1e9 / r["triad_GBps"]
    r[f"two_x_{peer}_needs"] = 2 * r[f"{peer}_bandwidth_fraction"]


def cli(run, doc, what):
    """The command line of a bandwidth benchmark: --log2n/--repeat/--quick, then the table of run()."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--log2n", type=int, default=22)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="5 rounds instead of --repeat (well under 2 minutes)")
    a = ap.parse_args()
    rep = 5 if a.quick else a.repeat
    res = run(a.log2n, rep)
    copy = pass_gbps(a.log2n, rep)
    torch = torch_peer()
    peer = f"torch {torch.__version__} ({torch.get_num_threads()} threads)" if torch else "torch not installed"
    print(f"asc.ops {what}, float32 2^{a.log2n}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; native "
          f"triad {res[0]['triad_GBps']:.1f} GB/s; pyasc x * 1.0 pass {copy:.1f} GB/s (same bytes and working set); "
          f"{peer}")
    print(f"{'case':12s} {'pyasc ms':>9s} {'numpy ms':>9s} {'np/pyasc':>9s} {'ort ms':>8s} {'ort/pyasc':>9s} "
          f"{'torch ms':>8s} {'torch/pyasc':>11s} {'GB/s':>6s} {'of triad':>8s} {'ort of triad':>12s} "
          f"{'torch of triad':>14s} {'2x torch needs':>14s} {'of pass':>7s}")
    for r in res:
        print(f"{r['case']:12s} {r['pyasc_ms']:9.2f} {r['numpy_ms']:9.2f} {r['numpy_over_pyasc']:9.2f} "
              f"{r.get('onnxruntime_ms', math.nan):8.2f} {r.get('ort_over_pyasc', math.nan):9.2f} "
              f"{r.get('torch_ms', math.nan):8.2f} {r.get('torch_over_pyasc', math.nan):11.2f} "
              f"{r['pyasc_GBps']:6.1f} {r['bandwidth_fraction']:8.2f} {r.get('ort_bandwidth_fraction', math.nan):12.2f} "
              f"{r.get('torch_bandwidth_fraction', math.nan):14.2f} {r.get('two_x_torch_needs', math.nan):14.2f} "
              f"{r['pyasc_GBps'] / copy:7.2f}")
    print("('2x torch needs' = the bandwidth at twice PyTorch's speed as a fraction of the triad: above ~1 the "
          "2x goal is beyond this machine's memory bandwidth for a kernel that moves the same bytes; the same "
          "figure for onnxruntime is 2 x 'ort of triad')")
