"""Peak device-pool memory of a 20-layer conv3x3 / batch_norm (inference) / activation stack, run
eagerly (``asc.lazy.eager()``) and in the default lazy mode with one ``asc.eval`` at the end
(issue 13: "the graph's peak memory <= 1.5x the largest activation pair").

    python benchmarks/bench_nn_memory.py

``run()`` returns one result dict per stack (the bench_nn.py driver collects them). Each stack runs
once to warm up (oneDNN plans, pool segments), then the pool's peak is reset and the stack runs
again: ``*_peak_bytes`` = ``max_memory_allocated()`` minus what was allocated before the run (the
weights and the input stay resident and are not counted), so the figure is the stack's transient
memory. ``pair_bytes`` is the largest input + output of one op in the stack (computed from the
shapes: conv C_in -> C_out, batch_norm and the activation C_out -> C_out). Bytes are the pool's
rounded block sizes, deterministic for a given shape; nothing here is timed.

Not counted: oneDNN's own transient buffers (the blocked-layout copies of a convolution's source
and destination that src/nn/conv.cc reorders through inside each call, allocated by oneDNN's
allocator, not the pool) and the pool's cached free blocks (``memory_reserved()``).
"""

from __future__ import annotations

import gc
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pyasc as asc  # noqa: E402

LAYERS = 20
# (name, batch, channels of the 21 activations, spatial size, activation)
STACKS = [
    ("c64_b1", 1, [64] * (LAYERS + 1), 56, "relu"),
    ("c64_b8", 8, [64] * (LAYERS + 1), 56, "relu"),
    # channel count changing 32 -> 64 -> 128 -> 64 -> 32 ...: the largest pair is a 128-channel one
    ("c32-128_b2", 2, [(32, 64, 128, 64)[i % 4] for i in range(LAYERS + 1)], 56, "relu"),
    # a multi-node activation (one fused group per layer, flushed through the stream at batch 8)
    ("c64_b8_hswish", 8, [64] * (LAYERS + 1), 56, "hardswish"),
]


def make_stack(batch, chans, hw, seed=0):
    """Input (pool memory) and per-layer (conv weight, (mean, var, weight, bias)) as pyasc arrays."""
    rng = np.random.default_rng(seed)
    layers = []
    for cin, cout in zip(chans[:-1], chans[1:]):
        w = (rng.standard_normal((cout, cin, 3, 3)) * (2.0 / (9 * cin)) ** 0.5).astype(np.float32)
        bn = (rng.standard_normal(cout) * 0.1, rng.random(cout) + 0.5, rng.random(cout) + 0.5,
              rng.standard_normal(cout) * 0.1)
        layers.append((asc.array(w), tuple(asc.array(v.astype(np.float32)) for v in bn)))
    x = asc.array(rng.standard_normal((batch, chans[0], hw, hw)).astype(np.float32))
    return x, layers


def forward(x, layers, act="relu"):
    f = getattr(asc.ops, act)
    for w, (m, v, g, b) in layers:
        x = asc.ops.conv2d(x, w, padding=1)
        x = asc.ops.batch_norm(x, m, v, g, b)
        x = f(x)
    return x


def largest_pair_bytes(batch, chans, hw, itemsize=4):
    """Largest input + output bytes of one op: conv (C_in + C_out), bn and activation (2 C_out)."""
    unit = batch * hw * hw * itemsize
    return max(max(cin + cout, 2 * cout) for cin, cout in zip(chans[:-1], chans[1:])) * unit


def peak_bytes(x, layers, act, eager):
    """Transient pool peak of one run of the stack (after a warm-up run), and the result."""
    with asc.lazy.eager(eager):
        y = forward(x, layers, act)
        asc.eval(y)
        del y
        gc.collect()
        base = asc.memory_allocated()
        asc.reset_peak_memory_stats()
        y = forward(x, layers, act)
        asc.eval(y)
        peak = asc.max_memory_allocated() - base
    return peak, y


def run():
    rows = []
    for name, batch, chans, hw, act in STACKS:
        x, layers = make_stack(batch, chans, hw)
        asc.eval(x)
        eager_peak, ye = peak_bytes(x, layers, act, True)
        lazy_peak, yl = peak_bytes(x, layers, act, False)
        same = bool(np.allclose(asc.utils.numpy(ye), asc.utils.numpy(yl), rtol=1e-4, atol=1e-4))
        del ye, yl
        pair = largest_pair_bytes(batch, chans, hw)
        rows.append({"case": name, "act": act, "pair_MiB": pair / 2**20, "eager_peak_MiB": eager_peak / 2**20,
                     "lazy_peak_MiB": lazy_peak / 2**20, "eager_over_pair": eager_peak / pair,
                     "lazy_over_pair": lazy_peak / pair, "target": "<=1.5", "met": lazy_peak <= 1.5 * pair,
                     "results_equal": same})
        del x, layers
        gc.collect()
    return rows


def main():
    print(f"{LAYERS}-layer conv3x3/batch_norm/activation stacks, float32, 56x56; transient pool peak "
          f"(max_memory_allocated above the resident weights + input)")
    print(f"{'case':14s} {'act':9s} {'pair MiB':>9s} {'eager MiB':>10s} {'lazy MiB':>9s} {'eager/pair':>10s} "
          f"{'lazy/pair':>9s}  target  met  eager==lazy")
    for r in run():
        print(f"{r['case']:14s} {r['act']:9s} {r['pair_MiB']:9.2f} {r['eager_peak_MiB']:10.2f} "
              f"{r['lazy_peak_MiB']:9.2f} {r['eager_over_pair']:10.2f} {r['lazy_over_pair']:9.2f}  "
              f"{r['target']:6s}  {'yes' if r['met'] else 'NO':3s}  {r['results_equal']}")


if __name__ == "__main__":
    main()
