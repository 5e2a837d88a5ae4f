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


# ---------------------------------------------------------------- the run's arena

class ArenaLayout:
    """Where a run's arena-backed values live: one buffer per dtype, planned once from the shapes
    of a model's first run and reused by every later run with the same input shapes.

    ``slots``: {value name: (dtype, element offset, shape)} -- the value the node writes with
    ``out=``; ``aliases``: {value name: residual name} -- a convolution whose output replaces its
    residual in place (the output is the residual's slot); ``elements``: {dtype: arena length in
    elements}; ``peak_bytes``: the arenas' total size; ``signature``: the input shapes/dtypes the
    layout is for; ``producers``: {node index: value name} of the nodes that write a slot;
    ``spans``: {value name: (first node, last node)} while its slot's bytes may be read (an alias
    has its residual's group span)."""

    __slots__ = ("slots", "aliases", "elements", "peak_bytes", "signature", "producers", "spans")

    def __init__(self, slots, aliases, elements, peak_bytes, signature, producers, spans):
        self.slots, self.aliases, self.elements = slots, aliases, elements
        self.peak_bytes, self.signature, self.producers, self.spans = peak_bytes, signature, producers, spans

    def __repr__(self):
        return (f"ArenaLayout({len(self.slots)} values, {len(self.aliases)} in place, "
                f"peak_bytes={self.peak_bytes})")


def arena_layout(nodes, values, writers, safe, outputs, inplace, signature):
    """Plans the arena of a model's runs.

    ``nodes``: the run's nodes in order (``inputs`` / ``outputs`` name lists); ``values``: {name:
    (bytes, dtype, shape, node index, itemsize)} of the values the first run computed; ``writers``: indices
    of the nodes that can write their (first) output into a caller's buffer (``out=``);
    ``safe``: indices of the nodes that read their inputs completely before they return and
    return a new buffer (a convolution, a blocked max pool) -- any other reader (a lazy
    elementwise op, a Reshape view) may keep referring to its input after it returns, so a value
    it reads lives as long as everything computed from it; ``outputs``: names that outlive the
    run (graph outputs: a value reaching one through such readers is never in the arena);
    ``inplace``: {node index: residual name} of convolutions that may overwrite their residual
    (with ``out=`` or without: a residual's bytes live as long as such a reader's output).

    Returns an :class:`ArenaLayout` (None when no value qualifies)."""
    n = len(nodes)
    end = n  # "alive after the run"
    readers = {}
    for j, node in enumerate(nodes):
        for x in dict.fromkeys(node.inputs):
            if x:
                readers.setdefault(x, []).append(j)
    # the last node that may still read a value's bytes, through views and lazy readers
    # (own: the same without the in-place readers' outputs -- whether one of them may take y's slot)
    reach, own = {}, {}
    for j in range(n - 1, -1, -1):
        for y in nodes[j].outputs:
            if not y:
                continue
            last = end if y in outputs else j
            mine = last
            for k in readers.get(y, ()):
                if k in safe:
                    mine = max(mine, k)
                    if inplace.get(k) == y:  # its output may be written over y's bytes
                        last = max(last, k, reach.get(nodes[k].outputs[0], end))
                    else:
                        last = max(last, k)
                else:
                    last = max([last, k] + [reach.get(z, end) for z in nodes[k].outputs if z])
                    mine = max([mine, k] + [reach.get(z, end) for z in nodes[k].outputs if z])
            reach[y], own[y] = last, mine
    slots_of, aliases, groups = {}, {}, {}
    for i in sorted(writers):
        y = nodes[i].outputs[0] if nodes[i].outputs else ""
        if not y or y not in values or reach.get(y, end) >= end or not values[y][0]:
            continue
        nbytes, dtype, shape, first, itemsize = values[y]
        r = inplace.get(i)
        root = slots_of.get(r) if r else None
        if root is not None and own.get(r) == i and nodes[i].inputs[0] != r and values[r][1] == dtype \
                and values[r][2] == shape:
            aliases[y] = r  # the output replaces the residual: one slot, the group's lifetime grows
            b, d, s, f, _, sz = groups[root]
            groups[root] = (b, d, s, f, reach[y], sz)
            slots_of[y] = root
            continue
        groups[y] = (nbytes, dtype, shape, first, reach[y], itemsize)
        slots_of[y] = y
    if not groups:
        return None
    slots, elements, peak = {}, {}, 0
    for dtype in sorted({g[1] for g in groups.values()}, key=str):
        mine = {k: g for k, g in groups.items() if g[1] == dtype}
        p = plan({k: (g[0], g[3]) for k, g in mine.items()}, {k: g[4] for k, g in mine.items()}, n, set())
        itemsize = next(iter(mine.values()))[5]  # offsets are 64-byte aligned: whole elements
        for k, (off, _, _, _) in p.buffers.items():
            slots[k] = (dtype, off // itemsize, mine[k][2])
        elements[dtype] = p.peak_bytes // itemsize
        peak += p.peak_bytes
    spans = {}
    for y, root in slots_of.items():
        slots[y] = slots[root]
        spans[y] = (groups[root][3], groups[root][4])
    producers = {i: nodes[i].outputs[0] for i in writers if nodes[i].outputs and nodes[i].outputs[0] in slots}
    return ArenaLayout(slots, aliases, elements, peak, signature, producers, spans)
