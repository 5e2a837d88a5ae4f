#!/usr/bin/env python3
"""What asc.array's deferred copy saves, and what reading NumPy memory at the call costs.

* asc.array(src) * 2 + 1, src writable NumPy memory: the copy is taken at the call (value
  semantics: NumPy has no write hook) and the expression is one fused pass over the copy;
  src a bytes object's memory (immutable): the copy is a lazy node, dead when nothing keeps
  the array, so the fused pass reads src directly and no copy is made.
* the same with the array kept (x = asc.array(src); y = x * 2 + 1): the copy is written by
  the fused pass itself (one read of src instead of two).
* a * b + c over asc.asarray views of NumPy memory (read at each op's call: two eager
  passes) vs over pyasc memory (one fused pass).

    python benchmarks/bench_host_memory.py [--log2n 24] [--repeat 7]
"""

from __future__ import annotations

import argparse

import numpy as np

import pyasc as asc
from _timing import best




def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log2n", type=int, default=24)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    asc.set_eager(False)
    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    writable = rng.standard_normal(n).astype(np.float32)
    frozen = np.frombuffer(writable.tobytes(), np.float32)  # a bytes object's memory
    na, nb, nc = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    pa, pb, pc = asc.array(na), asc.array(nb), asc.array(nc)
    va, vb, vc = asc.asarray(na), asc.asarray(nb), asc.asarray(nc)
    asc.eval(pa, pb, pc)

    def expr(src):
        (asc.array(src) * 2 + 1).eval()

    def kept(src):
        x = asc.array(src)
        y = x * 2 + 1
        asc.eval(x, y)

    rows = [
        ("array(src)*2+1, src writable", lambda: expr(writable)),
        ("array(src)*2+1, src bytes", lambda: expr(frozen)),
        ("x=array(src); x*2+1, writable", lambda: kept(writable)),
        ("x=array(src); x*2+1, bytes", lambda: kept(frozen)),
        ("a*b+c, pyasc memory", lambda: (pa * pb + pc).eval()),
        ("a*b+c, asarray(NumPy)", lambda: (va * vb + vc).eval()),
        ("numpy a*b+c", lambda: na * nb + nc),
    ]
    print(f"float32, 2^{args.log2n} elements, best of {args.repeat}")
    for name, fn in rows:
        print(f"{name:34s} {best(fn, args.repeat):8.2f} ms", flush=True)


if __name__ == "__main__":
    main()
