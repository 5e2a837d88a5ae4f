"""Static memory planning: every value a model computes gets an offset in one arena, and values whose
lifetimes (from the node that computes it to its last reader) do not overlap share bytes.

The plan is TFLite's / onnxruntime's "greedy by size" assignment: buffers are placed largest first,
each at the lowest offset (aligned to 64 bytes) where it does not overlap any already placed buffer
that is alive at the same time. ``peak_bytes`` is the arena's size: the working memory a run of the
model needs for its intermediate values and outputs (inputs and weights excluded).
"""

from __future__ import annotations

ALIGN = 64


class MemoryPlan:
    """``buffers``: {value name: (offset, bytes, first node, last node)}; ``peak_bytes``: the arena
    size; ``naive_bytes``: the sum of every value's bytes (no reuse); ``live_peak_bytes``: the largest
    sum of bytes alive at one node (the lower bound any plan can reach)."""

    __slots__ = ("buffers", "peak_bytes", "naive_bytes", "live_peak_bytes")

    def __init__(self, buffers, peak, naive, live_peak):
        self.buffers, self.peak_bytes, self.naive_bytes, self.live_peak_bytes = buffers, peak, naive, live_peak

    def __repr__(self):
        return (f"MemoryPlan({len(self.buffers)} buffers, peak_bytes={self.peak_bytes}, naive_bytes={self.naive_bytes}, "
                f"live_peak_bytes={self.live_peak_bytes})")


def _align(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


def plan(sizes, last_use, n_nodes, outputs):
    """``sizes``: {name: (bytes, defining node)}; ``last_use``: {name: last reading node};
    ``outputs``: graph output names (alive to the end). Returns a :class:`MemoryPlan`."""
    items = []
    for name, (nbytes, first) in sizes.items():
        last = n_nodes if name in outputs else max(first, last_use.get(name, first))
        items.append((name, int(nbytes), int(first), int(last)))
    # live bytes per node (lower bound)
    delta = [0] * (n_nodes + 2)
    for _, b, f, l in items:
        delta[f] += _align(b)
        delta[l + 1] -= _align(b)
    live, live_peak = 0, 0
    for d in delta:
        live += d
        live_peak = max(live_peak, live)
    placed = []  # (offset, end, first, last)
    buffers = {}
    peak = 0
    for name, b, f, l in sorted(items, key=lambda t: (-t[1], t[2], t[0])):
        size = _align(b)
        clashes = sorted((o, e) for o, e, pf, pl in placed if not (pl < f or l < pf))
        offset = 0
        for o, e in clashes:
            if offset + size <= o:
                break
            offset = max(offset, e)
        placed.append((offset, offset + size, f, l))
        buffers[name] = (offset, b, f, l)
        peak = max(peak, offset + size)
    naive = sum(_align(b) for _, b, _, _ in items)
    return MemoryPlan(buffers, peak, naive, live_peak)
