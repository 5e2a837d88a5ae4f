#!/usr/bin/env python3
"""Ascend C add kernel built from a .asc file vs a native C++ loop, same run.

Builds bench_asc_add.asc (the double-buffered add kernel class of
examples/ascendc/add, sized by a tiling argument, plus a plain C++ loop
kernel and an ACL host main) with ``pyasc-cc -O3 -march=native``, runs it on
all cores of the CPU device for 2^25 float32 and float16 elements, and prints
the median (and best) time of each and the ratio native_time / ascendc_time
(the Ascend C kernel's throughput relative to the native loop; issue target
>= 0.95).

    python benchmarks/bench_asc_add.py [--log2n 25] [--rounds 15] [--blocks N]
        [--tile-bytes 16384] [--keep DIR] [--cxxflags "-O3 -march=native"]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import pyasc as asc

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "bench_asc_add.asc")
LINE = re.compile(r"RESULT (\S+) n=(\d+) blocks=(\d+) ascendc_ms=([\d.]+) native_ms=([\d.]+) "
                  r"ascendc_best_ms=([\d.]+) native_best_ms=([\d.]+) ok=(\d)")


def build(out_dir, cxxflags):
    prog = os.path.join(out_dir, "bench_asc_add")
    cmd = [sys.executable, "-m", "pyasc.tools.cc", *shlex.split(cxxflags), SOURCE, "-o", prog]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"build failed ({' '.join(cmd)}):\n{r.stdout}{r.stderr}")
    return prog


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log2n", type=int, default=25)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--blocks", type=int, default=0, help="blockDim (default: all cores of the device)")
    p.add_argument("--tile-bytes", type=int, default=16384, help="bytes per queue buffer (tile) of the kernel")
    p.add_argument("--cxxflags", default="-O3 -march=native", help="flags for pyasc-cc (both kernels)")
    p.add_argument("--keep", help="build into this directory and keep the program")
    args = p.parse_args()

    blocks = args.blocks or asc.get_device_properties().num_cores
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        prog = build(out_dir, args.cxxflags)
        r = subprocess.run([prog, str(blocks), str(args.log2n), str(args.rounds), str(args.tile_bytes)],
                           capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_asc_add exited with {r.returncode}:\n{r.stdout}{r.stderr}")
    print(f"Ascend C add (.asc, pyasc-cc {args.cxxflags}, {args.tile_bytes}-byte tiles) vs native C++ loop, "
          f"{blocks} blocks, median of {args.rounds} alternating rounds")
    print(f"{'dtype':8} {'n':>10} {'ascendc ms':>11} {'native ms':>10} {'GB/s':>7} {'ratio':>6} "
          f"{'(best: ascendc / native ms, ratio)':>36}")
    worst = None
    for m in LINE.finditer(r.stdout):
        dtype, n, _, ta, tn, ba, bn, ok = m.groups()
        n, ta, tn, ba, bn = int(n), float(ta), float(tn), float(ba), float(bn)
        itemsize = 4 if dtype == "float32" else 2
        gbs = 3 * n * itemsize / (ta * 1e-3) / 1e9
        ratio = tn / ta
        worst = ratio if worst is None else min(worst, ratio)
        print(f"{dtype:8} {n:>10} {ta:>11.3f} {tn:>10.3f} {gbs:>7.1f} {ratio:>6.3f}   "
              f"best {ba:.3f} / {bn:.3f} ms, {bn / ba:.3f}{'' if ok == '1' else '  RESULTS DIFFER'}")
    if worst is None:
        sys.exit(f"no results in the program's output:\n{r.stdout}{r.stderr}")
    print(f"ratio (native time / Ascend C time, >= 0.95 is the target): worst {worst:.3f}")


if __name__ == "__main__":
    main()
