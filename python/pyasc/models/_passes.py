"""Graph passes of the ONNX importer, run once at load after constant folding.

Each pass rewrites :class:`~pyasc.models._onnx_model.Model`'s node list (kept in
topological order) and constants, and returns how many rewrites it made:

* :func:`fold_batch_norm` -- ``BatchNormalization(Conv(x, W, b))`` with constant
  statistics becomes ``Conv(x, W', b')``: ``W' = W * s``, ``b' = (b - mean) * s + beta``
  with ``s = scale / sqrt(var + eps)`` per output channel, computed in float64 and
  rounded once to the weights' dtype (onnxruntime's and OpenVINO's rewrite).
* :func:`fold_batch_norm_gemm` -- the same after a ``Gemm`` with constant ``B`` / ``C`` (per
  output column; ``beta * C`` folded into the new bias).
* :func:`fold_scale_shift` -- ``Mul(Conv(x), s)`` and ``Add(Conv(x), c)`` with constant per-channel
  (or scalar) ``s``/``c`` fold into the Conv's weights and bias (Caffe's BatchNorm + Scale pair as
  exported in Inception v2 / DenseNet: BatchNormalization, then Mul and Add by constants).
* :func:`fuse_conv` -- ``Conv`` followed by an activation (Relu, LeakyRelu, Sigmoid,
  Tanh, Elu, Clip(0, 6), Gelu), and ``Conv`` + a residual ``Add``/``Sum`` (+ an
  activation), become one ``ai.pyasc.FusedConv`` node: ``act(conv(x) + b + residual)``
  in one oneDNN primitive (bias, sum and eltwise post-ops) instead of three passes
  over the activation.
* :func:`assign_layouts` -- activations passed only between convolutions, max
  pools, channel Concats and elementwise activations stay in the channel-blocked
  NC1HWC0 layout oneDNN computes in (no reorder per convolution); NCHW at the
  model's edges.

A rewrite only applies when the intermediate value has exactly one reader and is
not a graph output (nothing else can observe it). Shapes are not known before a
run, so a FusedConv whose residual turns out to broadcast runs the unfused ops.
"""

from __future__ import annotations

import os

import numpy as np

from ._registry import Node

FUSED_DOMAIN = "ai.pyasc"

# ONNX activation node -> (conv activation name, alpha) or None when its attributes do not map
_ACTS = {
    "Relu": lambda n, consts: ("relu", 0.0),
    "LeakyRelu": lambda n, consts: ("leaky_relu", float(n.attr("alpha", 0.01))),
    "Sigmoid": lambda n, consts: ("sigmoid", 0.0),
    "Tanh": lambda n, consts: ("tanh", 0.0),
    "Elu": lambda n, consts: ("elu", float(n.attr("alpha", 1.0))),
    "Gelu": lambda n, consts: ("gelu_tanh" if n.attr("approximate", "none") == "tanh" else "gelu", 0.0),
    "Clip": lambda n, consts: _clip_relu6(n, consts),
}


def _clip_relu6(node, consts):
    if node.opset < 11:
        lo, hi = node.attr("min", -np.inf), node.attr("max", np.inf)
    else:
        ins = node.inputs
        if len(ins) < 3 or ins[1] not in consts or ins[2] not in consts:
            return None
        lo, hi = np.asarray(consts[ins[1]]), np.asarray(consts[ins[2]])
        if lo.size != 1 or hi.size != 1:
            return None
        lo, hi = float(lo.reshape(())), float(hi.reshape(()))
    if lo == 0.0 and hi == 6.0:
        return ("relu6", 0.0)
    if lo == 0.0 and hi == np.inf:
        return ("relu", 0.0)
    return None


def _readers(nodes):
    r = {}
    for i, n in enumerate(nodes):
        for x in n.inputs:
            if x:
                r.setdefault(x, []).append(i)
    return r


def _only_reader(name, readers, protected):
    """Index of the single node reading ``name`` (None when it has several, none, or is protected)."""
    if name in protected:
        return None
    rs = readers.get(name, [])
    return rs[0] if len(rs) == 1 else None


def _inference_bn_after(node, op_type, nodes, readers, protected):
    """``(j, bn)``: the inference BatchNormalization ``nodes[j]`` that is the only reader of the single
    output of ``node`` (an ``op_type`` node of the default domain); None when there is none."""
    if node.op_type != op_type or node.domain or len(node.outputs) != 1:
        return None
    j = _only_reader(node.outputs[0], readers, protected)
    if j is None:
        return None
    bn = nodes[j]
    if bn.op_type != "BatchNormalization" or bn.domain or bn.inputs[0] != node.outputs[0]:
        return None
    if bn.attr("training_mode", 0) or any(o for o in bn.outputs[1:]) or len(bn.inputs) < 5:
        return None
    return j, bn


def _fresh(consts, base):
    name, k = base, 0
    while name in consts:
        k += 1
        name = f"{base}_{k}"
    return name


def _overridable(model):
    return {v.name for v in getattr(model, "overridable", [])}


def _release(consts, readers, protected, names):
    """Drops constants the rewritten node was the only reader of (the load's peak memory would
    otherwise hold the weights twice until the passes end)."""
    for x in names:
        if x and x not in protected and len(readers.get(x, [])) == 1:
            consts.pop(x, None)


def fold_batch_norm(model, protected):
    """Folds each inference BatchNormalization that follows a Conv with constant weights."""
    import pyasc as asc

    nodes, consts = model.nodes, model.constants
    readers = _readers(nodes)
    drop, count = set(), 0
    for i, conv in enumerate(nodes):
        found = _inference_bn_after(conv, "Conv", nodes, readers, protected)
        if found is None:
            continue
        j, bn = found
        w_name = conv.inputs[1]
        b_name = conv.inputs[2] if len(conv.inputs) > 2 and conv.inputs[2] else None
        stats = bn.inputs[1:5]
        if w_name not in consts or (b_name and b_name not in consts) or any(s not in consts for s in stats):
            continue
        if any(x in _overridable(model) for x in [w_name, b_name, *stats] if x):
            continue  # a feed may replace it at run time: the folded copy would ignore that
        w = np.asarray(consts[w_name])
        if w.dtype.kind != "f" and str(w.dtype) != "bfloat16":
            continue
        scale, beta, mean, var = (np.asarray(consts[s]).astype(np.float64).reshape(-1) for s in stats)
        oc = w.shape[0]
        if not (scale.size == beta.size == mean.size == var.size == oc):
            continue
        s = scale / np.sqrt(var + float(bn.attr("epsilon", 1e-5)))
        b = np.asarray(consts[b_name]).astype(np.float64).reshape(-1) if b_name else np.zeros(oc)
        w2 = (w.astype(np.float64) * s.reshape((oc,) + (1,) * (w.ndim - 1))).astype(w.dtype)
        b2 = ((b - mean) * s + beta).astype(w.dtype)
        wn = _fresh(consts, f"{w_name}_bnfold")
        bnm = _fresh(consts, f"{bn.name or w_name}_bias_bnfold")
        consts[wn] = asc.array(w2, copy=True)
        consts[bnm] = asc.array(b2, copy=True)
        _release(consts, readers, protected, [w_name, b_name, *stats])
        nodes[i] = Node(conv.name, "Conv", "", conv.opset, dict(conv.attrs), [conv.inputs[0], wn, bnm],
                        [bn.outputs[0]])
        drop.add(j)
        count += 1
    if count:
        model.nodes = [n for k, n in enumerate(nodes) if k not in drop]
    return count


def fold_batch_norm_gemm(model, protected):
    """Folds each inference BatchNormalization that follows a Gemm with constant B (and C):
    ``Y = alpha * A' B' + beta * C`` then ``s * (Y - mean) + shift`` per output column becomes
    ``alpha * A' (B' s) + (s * (beta * C - mean) + shift)``, in float64, rounded once. C must be a
    scalar or a per-column vector ([K] / [1, K]); Gemm's output is 2-D, so the BatchNormalization's
    channel axis is the column axis."""
    import pyasc as asc

    nodes, consts = model.nodes, model.constants
    readers = _readers(nodes)
    drop, count = set(), 0
    for i, gemm in enumerate(nodes):
        found = _inference_bn_after(gemm, "Gemm", nodes, readers, protected)
        if found is None:
            continue
        j, bn = found
        b_name = gemm.inputs[1]
        c_name = gemm.inputs[2] if len(gemm.inputs) > 2 and gemm.inputs[2] else None
        stats = bn.inputs[1:5]
        names = [b_name, c_name, *stats]
        if any(x and x not in consts for x in names) or any(x in _overridable(model) for x in names if x):
            continue
        w = np.asarray(consts[b_name])
        if w.ndim != 2 or w.dtype.kind != "f":
            continue
        trans_b = bool(gemm.attr("transB", 0))
        k = w.shape[0] if trans_b else w.shape[1]
        scale, shift, mean, var = (np.asarray(consts[x]).astype(np.float64).reshape(-1) for x in stats)
        if not (scale.size == shift.size == mean.size == var.size == k):
            continue
        beta = float(gemm.attr("beta", 1.0))
        if c_name:
            c = np.asarray(consts[c_name])
            if c.dtype.kind != "f" or c.ndim > 2 or (c.ndim == 2 and c.shape[0] != 1) or \
                    (c.ndim >= 1 and c.shape[-1] not in (1, k)):
                continue
            cv = np.broadcast_to(c.astype(np.float64).reshape(-1), (k,))
        else:
            cv = np.zeros(k)
        s = scale / np.sqrt(var + float(bn.attr("epsilon", 1e-5)))
        w2 = (w.astype(np.float64) * (s.reshape(k, 1) if trans_b else s.reshape(1, k))).astype(w.dtype)
        c2 = (s * (beta * cv - mean) + shift).astype(w.dtype)
        wn = _fresh(consts, f"{b_name}_bnfold")
        cn = _fresh(consts, f"{bn.name or b_name}_bias_bnfold")
        consts[wn] = asc.array(w2, copy=True)
        consts[cn] = asc.array(c2, copy=True)
        _release(consts, readers, protected, names)
        attrs = dict(gemm.attrs)
        attrs["beta"] = 1.0
        nodes[i] = Node(gemm.name, "Gemm", "", gemm.opset, attrs, [gemm.inputs[0], wn, cn], [bn.outputs[0]])
        drop.add(j)
        count += 1
    if count:
        model.nodes = [n for k2, n in enumerate(nodes) if k2 not in drop]
    return count


def _per_channel(c, oc, out_rank):
    """``c`` (a constant) as a float64 vector of ``oc`` per-output-channel values when it broadcasts
    against a conv output [N, oc, *spatial] only along the channel axis (or is a scalar); else None."""
    c = np.asarray(c)
    if c.ndim > out_rank or c.dtype.kind != "f":
        return None
    shape = (1,) * (out_rank - c.ndim) + c.shape
    if shape[0] != 1 or any(d != 1 for d in shape[2:]) or shape[1] not in (1, oc):
        return None
    v = c.astype(np.float64).reshape(-1)
    return np.broadcast_to(v, (oc,)).copy()


def fold_scale_shift(model, protected):
    """Folds Mul / Add by a constant per-channel vector that follows a Conv into its weights / bias."""
    import pyasc as asc

    count = 0
    changed = True
    while changed:
        changed = False
        nodes, consts = model.nodes, model.constants
        readers = _readers(nodes)
        for i, conv in enumerate(nodes):
            if conv.op_type != "Conv" or conv.domain or len(conv.outputs) != 1:
                continue
            j = _only_reader(conv.outputs[0], readers, protected)
            if j is None:
                continue
            nxt = nodes[j]
            if nxt.domain or nxt.op_type not in ("Mul", "Add") or len(nxt.inputs) != 2:
                continue
            other = nxt.inputs[1] if nxt.inputs[0] == conv.outputs[0] else nxt.inputs[0]
            if other == conv.outputs[0] or other not in consts:
                continue
            w_name = conv.inputs[1]
            b_name = conv.inputs[2] if len(conv.inputs) > 2 and conv.inputs[2] else None
            if w_name not in consts or (b_name and b_name not in consts):
                continue
            if any(x in _overridable(model) for x in (w_name, b_name, other) if x):
                continue
            w = np.asarray(consts[w_name])
            if w.dtype.kind != "f" or np.asarray(consts[other]).dtype != w.dtype:
                continue
            oc = w.shape[0]
            v = _per_channel(consts[other], oc, w.ndim)
            if v is None:
                continue
            b = np.asarray(consts[b_name]).astype(np.float64).reshape(-1) if b_name else np.zeros(oc)
            if nxt.op_type == "Mul":
                w2 = (w.astype(np.float64) * v.reshape((oc,) + (1,) * (w.ndim - 1))).astype(w.dtype)
                b2 = b * v
                wn = _fresh(consts, f"{w_name}_scale")
                consts[wn] = asc.array(w2, copy=True)
            else:
                wn, b2 = w_name, b + v
            bn_ = _fresh(consts, f"{nxt.name or w_name}_bias_fold")
            consts[bn_] = asc.array(b2.astype(w.dtype), copy=True)
            _release(consts, readers, protected, [w_name if wn != w_name else None, b_name, other])
            nodes[i] = Node(conv.name, "Conv", "", conv.opset, dict(conv.attrs), [conv.inputs[0], wn, bn_],
                            [nxt.outputs[0]])
            model.nodes = [n for k, n in enumerate(nodes) if k != j]
            count += 1
            changed = True
            break  # indices moved: rescan
    return count


def _fused(conv, outputs, act=None, alpha=0.0, residual=None, absorbed=()):
    attrs = dict(conv.attrs)
    if conv.op_type == "FusedConv":
        ins = list(conv.inputs)
        names = list(attrs.pop("fused_nodes", [conv.name]))
    else:
        ins = list(conv.inputs[:3]) + [""] * (3 - len(conv.inputs[:3]))
        ins.append("")
        names = [conv.name]
    if act is not None:
        attrs["activation"], attrs["activation_alpha"] = act, float(alpha)
    if residual is not None:
        ins[3] = residual
    attrs["fused_nodes"] = names + [n.name for n in absorbed]
    return Node(conv.name, "FusedConv", FUSED_DOMAIN, 1, attrs, ins, outputs)


def fuse_conv(model, protected):
    """Fuses Conv + residual Add/Sum + activation into FusedConv nodes (see the module docstring)."""
    nodes, consts = model.nodes, model.constants
    count = 0
    changed = True
    while changed:  # each round absorbs one more consumer into each fusable conv
        changed = False
        readers = _readers(nodes)
        drop = set()
        for i, conv in enumerate(nodes):
            if i in drop or len(conv.outputs) != 1:
                continue
            is_conv = conv.op_type == "Conv" and not conv.domain
            is_fused = conv.op_type == "FusedConv" and conv.domain == FUSED_DOMAIN
            if not (is_conv or is_fused) or (is_fused and "activation" in conv.attrs):
                continue
            j = _only_reader(conv.outputs[0], readers, protected)
            if j is None or j in drop:
                continue
            nxt = nodes[j]
            if nxt.domain or len(nxt.outputs) != 1:
                continue
            fused = None
            if nxt.op_type in _ACTS and nxt.inputs[0] == conv.outputs[0]:
                got = _ACTS[nxt.op_type](nxt, consts)
                if got is not None:
                    fused = _fused(conv, nxt.outputs, act=got[0], alpha=got[1], absorbed=[nxt])
            elif nxt.op_type in ("Add", "Sum") and len([x for x in nxt.inputs if x]) == 2 and \
                    (is_conv or not conv.inputs[3]):
                a, b = nxt.inputs
                other = b if a == conv.outputs[0] else a
                if other != conv.outputs[0] and other not in consts:
                    fused = _fused(conv, nxt.outputs, residual=other, absorbed=[nxt])
            if fused is None:
                continue
            # the fused node runs where the absorbed node ran: every input is defined by then
            nodes[j] = fused
            drop.add(i)
            count += 1
            changed = True
        if drop:
            nodes = [n for k, n in enumerate(nodes) if k not in drop]
    model.nodes = nodes
    return count


def _preferred_block():
    from .. import _C

    return int(_C.nn.preferred_block())


# layout-transparent nodes of assign_layouts: unary activations (extra inputs: scalar constants,
# Clip's bounds) and elementwise ops over activations only
_UNARY_THROUGH = frozenset({"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Selu", "Celu", "HardSigmoid",
                            "HardSwish", "Softplus", "Softsign", "Abs", "Neg", "Clip", "Exp", "Sqrt", "Erf",
                            "Gelu", "Mish", "ThresholdedRelu"})
_NARY_THROUGH = frozenset({"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"})


def assign_layouts(model, protected, c0=None):
    """Layout assignment: activations that pass only between convolutions (and 2-D max pools) stay
    in oneDNN's channel-blocked layout NC1HWC0 = (N, C / C0, H, W, C0), C0 = the CPU's block (8 on
    AVX2, 16 on AVX-512; ``pyasc._C.nn.preferred_block()``), so no reorder runs between them;
    NCHW stays at the model's edges and wherever another operator reads the value
    (onnxruntime's NCHWc transformer does the same).

    A value is blocked when a 2-D float32 Conv / FusedConv with constant weights and C_out % C0 == 0,
    a blocked max pool or a layout-transparent node (a channel Concat, a unary activation, an
    elementwise op over activations: DenseNet's, Inception's and SqueezeNet's joins) writes it, it
    is not a graph output, and every reader is such a convolution reading it as its data input
    (C_in % C0 == 0) or residual, a floor-mode 2-D MaxPool without indices, a transparent node, or
    a 2-D AveragePool / GlobalAveragePool (which writes NCHW: the classifier head's pool, so the
    last blocks stay blocked). A residual and its convolution's output share one layout, as do a
    max pool's input and output and a transparent node's inputs and output (all become plain when
    one cannot be blocked). Rewrites: the convolutions touching a blocked value become
    ``FusedConv`` with ``in_block`` / ``out_block`` (C0, or 0 for NCHW); the max pools become
    ``ai.pyasc.MaxPoolNC1HWC0``, the average pools ``ai.pyasc.AveragePoolNC1HWC0`` /
    ``GlobalAveragePoolNC1HWC0``; a blocked Concat concatenates along axis 1 (C1). Returns the
    number of blocked values."""
    import pyasc as asc

    c0 = _preferred_block() if c0 is None else int(c0)
    if c0 <= 0:
        return 0
    nodes, consts = model.nodes, model.constants
    if any(n.domain == FUSED_DOMAIN and (n.op_type.endswith("PoolNC1HWC0") or "in_block" in n.attrs or
                                         "out_block" in n.attrs) for n in nodes):
        return 0  # an optimised graph saved earlier: its layouts are assigned already
    over = _overridable(model)

    def weight(n):
        is_conv = (n.op_type == "Conv" and not n.domain) or (n.op_type == "FusedConv" and n.domain == FUSED_DOMAIN)
        if not is_conv or len(n.outputs) != 1 or len(n.inputs) < 2 or n.inputs[1] in over:
            return None
        w = consts.get(n.inputs[1])
        if w is None or w.ndim != 4 or str(w.dtype) != "float32":
            return None
        return w

    def pool_ok(n):
        return (n.op_type == "MaxPool" and not n.domain and len(n.outputs) == 1 and not n.attr("ceil_mode", 0)
                and len(n.attr("kernel_shape", [])) == 2 and not n.attr("storage_order", 0))

    def avg_ok(n):  # reads a blocked value, writes NCHW (the classifier head's pool) or NC1HWC0
        return not n.domain and len(n.outputs) == 1 and (
            n.op_type == "GlobalAveragePool" or (n.op_type == "AveragePool" and len(n.attr("kernel_shape", [])) == 2))

    def avg_blocked_out(n):  # the blocked kernel's own cases: its output may stay blocked
        if not joins or not avg_ok(n) or n.op_type == "GlobalAveragePool":
            return avg_ok(n)
        k = [int(v) for v in n.attr("kernel_shape")]
        pads = [int(v) for v in n.attr("pads", [0, 0, 0, 0])]
        return (not n.attr("ceil_mode", 0) and all(int(d) == 1 for d in n.attr("dilations", [1, 1])) and
                n.attr("auto_pad", "NOTSET") in ("NOTSET", "VALID") and len(pads) == 4 and
                all(0 <= p < kk for p, kk in zip(pads, k + k)))

    def channel_const(name):
        """A float32 constant that broadcasts against a 4-D activation along C only (C % C0 == 0) or a
        scalar, as a float64 NumPy array of shape (C,) or (); else None."""
        if name not in consts or name in over:
            return None
        c = np.asarray(consts[name])
        if str(c.dtype) != "float32" or c.ndim > 4:
            return None
        if c.size == 1:
            return c.astype(np.float64).reshape(())
        shape = (1,) * (4 - c.ndim) + c.shape
        if shape[0] != 1 or shape[2] != 1 or shape[3] != 1 or shape[1] % c0:
            return None
        return c.astype(np.float64).reshape(-1)

    def affine(n):
        """(scale, shift) of a per-channel affine node over one activation (float64 arrays of shape (C,)
        or (), None for none), or None: Mul / Add / Sub(x, c) by a channel constant, an inference
        BatchNormalization with constant statistics."""
        if n.domain or len(n.outputs) != 1:
            return None
        if n.op_type in ("Mul", "Add", "Sub") and len(n.inputs) == 2 and all(n.inputs):
            a, b = n.inputs
            if n.op_type == "Sub":
                c = channel_const(b) if a not in consts else None
                return None if c is None else (None, -c)
            if (a in consts) == (b in consts):
                return None
            c = channel_const(a if a in consts else b)
            if c is None:
                return None
            return (c, None) if n.op_type == "Mul" else (None, c)
        if n.op_type == "BatchNormalization" and len(n.inputs) >= 5 and not n.attr("training_mode", 0) and \
                n.inputs[0] not in consts:
            stats = [np.asarray(consts[x]) if x in consts and x not in over else None for x in n.inputs[1:5]]
            if any(v is None or v.ndim != 1 or str(v.dtype) != "float32" for v in stats) or \
                    len({v.size for v in stats}) != 1 or stats[0].size % c0:
                return None
            stats = [v.astype(np.float64) for v in stats]
            scale, beta, mean, var = stats
            sc = scale / np.sqrt(var + float(n.attr("epsilon", 1e-5)))
            return sc, beta - mean * sc
        return None

    readers = {}
    for j, n in enumerate(nodes):
        for pos, x in enumerate(n.inputs):
            if x:
                readers.setdefault(x, []).append((j, pos))

    joins = os.environ.get("ASC_LAYOUT_JOINS", "1") != "0"  # 0: the earlier assignment (A/B benchmarks)

    def through(n):
        """The data input positions of a layout-transparent node (its output is blocked exactly when
        these inputs are), or None: a Concat along the channels, a unary elementwise activation,
        an elementwise op whose operands are all activations (no constant: a per-channel constant
        would need reordering too). Both layouts hold the same 4-D value, so the op computes the same
        elements either way: broadcasting over N/H/W commutes with blocking, and blocked operands
        have C % C0 == 0 so no channel broadcast can reach them."""
        if not joins or n.domain or len(n.outputs) != 1 or not n.inputs:
            return None
        if n.op_type == "Concat":
            return tuple(range(len(n.inputs))) if n.attr("axis", None) in (1, -3) and all(n.inputs) else None
        if n.op_type in _UNARY_THROUGH:
            extra = [x for x in n.inputs[1:] if x]
            return (0,) if all(x in consts and x not in over and np.asarray(consts[x]).size == 1
                               for x in extra) else None
        if n.op_type in _NARY_THROUGH and len(n.inputs) >= 2 and all(x and x not in consts for x in n.inputs):
            return tuple(range(len(n.inputs)))
        if affine(n) is not None:
            return (0,) if n.inputs[0] not in consts else (1,)
        return None

    def reader_ok(j, pos):
        n = nodes[j]
        w = weight(n)
        if w is not None:
            return (pos == 0 and (w.shape[1] * int(n.attr("group", 1))) % c0 == 0) or \
                (pos == 3 and n.op_type == "FusedConv")
        t = through(n)
        if t is not None:
            return pos in t
        return (pool_ok(n) or avg_ok(n)) and pos == 0

    # values a node writes in a form that can be blocked (its own layout choice, or its inputs')
    candidates = set()
    for n in nodes:
        w = weight(n)
        if (w is not None and w.shape[0] % c0 == 0) or pool_ok(n) or avg_blocked_out(n) or through(n) is not None:
            candidates.add(n.outputs[0])
    ok = {v for v in candidates
          if v and v not in protected and readers.get(v) and all(reader_ok(j, pos) for j, pos in readers[v])}
    # one layout per group: a residual and its conv's output, a pool's input and output, a
    # transparent node's inputs and output; a group is blocked when every member can be
    parent, members = {}, set()

    def find(v):
        while parent.get(v, v) != v:
            parent[v] = parent.get(parent[v], parent[v])
            v = parent[v]
        return v

    def union(a, b):
        members.update((a, b))
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    for n in nodes:
        if pool_ok(n) or (avg_blocked_out(n) and n.outputs[0] in ok):
            # an average pool whose readers all take NC1HWC0 keeps its input's layout; else it
            # writes NCHW whatever its input's layout
            union(n.inputs[0], n.outputs[0])
        elif weight(n) is not None and n.op_type == "FusedConv" and len(n.inputs) > 3 and n.inputs[3]:
            union(n.inputs[3], n.outputs[0])
        else:
            t = through(n)
            if t is not None:
                for pos in t:
                    union(n.inputs[pos], n.outputs[0])
    bad = {find(v) for v in members if v not in ok}
    blocked = {v for v in ok if find(v) not in bad}
    for i, n in enumerate(nodes):
        if pool_ok(n) and n.inputs[0] in blocked:
            nodes[i] = Node(n.name, "MaxPoolNC1HWC0", FUSED_DOMAIN, 1, dict(n.attrs), list(n.inputs),
                            list(n.outputs))
        elif avg_ok(n) and n.inputs[0] in blocked:
            attrs = dict(n.attrs)
            if n.outputs[0] in blocked:
                attrs["out_block"] = c0
            nodes[i] = Node(n.name, n.op_type + "NC1HWC0", FUSED_DOMAIN, n.opset, attrs, list(n.inputs),
                            list(n.outputs))
        elif n.outputs[0] in blocked and affine(n) is not None:
            # x * scale + shift with the per-channel constants in the blocked layout (1, C1, 1, 1, C0)
            sc, sh = affine(n)
            x = n.inputs[0] if n.inputs[0] not in consts else n.inputs[1]
            ins = [x, "", ""]
            for k, v in ((1, sc), (2, sh)):
                if v is not None:
                    name = _fresh(consts, f"{n.name or n.outputs[0]}_{'scale' if k == 1 else 'shift'}_nc1hwc0")
                    arr = v.astype(np.float32)
                    if arr.ndim:
                        arr = np.ascontiguousarray(arr.reshape(1, -1, 1, 1, c0))
                    consts[name] = asc.array(arr, copy=True)
                    ins[k] = name
            nodes[i] = Node(n.name, "ChannelAffineNC1HWC0", FUSED_DOMAIN, 1, {"fused_nodes": [n.name]}, ins,
                            list(n.outputs))
        elif weight(n) is not None and (n.inputs[0] in blocked or n.outputs[0] in blocked):
            f = _fused(n, list(n.outputs)) if n.op_type == "Conv" else \
                Node(n.name, n.op_type, n.domain, n.opset, dict(n.attrs), list(n.inputs), list(n.outputs))
            f.attrs["in_block"] = c0 if n.inputs[0] in blocked else 0
            f.attrs["out_block"] = c0 if n.outputs[0] in blocked else 0
            nodes[i] = f
        elif n.op_type == "Concat" and not n.domain and n.outputs[0] in blocked:
            # NCHW's channel axis is NC1HWC0's C1 axis (every part has C % C0 == 0)
            nodes[i] = Node(n.name, n.op_type, n.domain, n.opset, dict(n.attrs, axis=1), list(n.inputs),
                            list(n.outputs))
    # A blocked residual read last by its FusedConv, written by a node that returns a fresh array
    # (a convolution or a blocked pool) and not a graph output: the convolution writes its output
    # into the residual's buffer (no copy of it for the sum post-op). Not when a lazy elementwise
    # node reads it too: its deferred evaluation would see the overwritten buffer.
    fresh = {n.outputs[0] for n in nodes if n.domain == FUSED_DOMAIN and n.op_type in ("FusedConv", "MaxPoolNC1HWC0")}
    fresh |= {n.outputs[0] for n in nodes if n.op_type == "Conv" and not n.domain}
    for i, n in enumerate(nodes):
        if n.op_type == "FusedConv" and n.domain == FUSED_DOMAIN and n.attrs.get("out_block") and \
                len(n.inputs) > 3 and n.inputs[3] in blocked and n.inputs[3] in fresh:
            r = n.inputs[3]
            if max(j for j, _ in readers[r]) == i and r not in n.inputs[:3] and \
                    all(nodes[j].domain == FUSED_DOMAIN and nodes[j].op_type in ("FusedConv", "MaxPoolNC1HWC0")
                        for j, _ in readers[r]):
                n.attrs["residual_inplace"] = 1
    # consecutive channel affines (DenseNet's BatchNormalization -> Mul -> Add) compose into one:
    # x * (s1 s2) + (t1 s2 + t2), in float64, rounded once. readers' indices stay valid: a merged
    # node replaces the later one in place and the earlier one is only marked dropped.
    drop = set()
    reader_idx = {k: [a for a, _ in v] for k, v in readers.items()}
    for i, n in enumerate(nodes):
        if n.op_type != "ChannelAffineNC1HWC0" or n.domain != FUSED_DOMAIN:
            continue
        j = _only_reader(n.outputs[0], reader_idx, protected)
        if j is None or nodes[j].op_type != "ChannelAffineNC1HWC0" or nodes[j].domain != FUSED_DOMAIN or \
                nodes[j].inputs[0] != n.outputs[0]:
            continue
        m = nodes[j]
        s1, t1, s2, t2 = (np.asarray(consts[x]).astype(np.float64) if x else None
                          for x in (n.inputs[1], n.inputs[2], m.inputs[1], m.inputs[2]))
        sc = s1 if s2 is None else (s2 if s1 is None else s1 * s2)
        sh = None if t1 is None else (t1 * s2 if s2 is not None else t1)
        sh = t2 if sh is None else (sh if t2 is None else sh + t2)
        ins = [n.inputs[0], "", ""]
        for k, v in ((1, sc), (2, sh)):
            if v is not None:
                name = _fresh(consts, f"{m.name or m.outputs[0]}_{'scale' if k == 1 else 'shift'}_nc1hwc0")
                consts[name] = asc.array(np.ascontiguousarray(v.astype(np.float32)), copy=True)
                ins[k] = name
        names = list(n.attrs.get("fused_nodes", [n.name])) + list(m.attrs.get("fused_nodes", [m.name]))
        nodes[j] = Node(m.name, "ChannelAffineNC1HWC0", FUSED_DOMAIN, 1, {"fused_nodes": names}, ins, list(m.outputs))
        drop.add(i)
        blocked.discard(n.outputs[0])
    if drop:
        model.nodes = [nd for k, nd in enumerate(nodes) if k not in drop]
    return len(blocked)


def run_all(model, protected):
    """Runs the passes in order; returns {pass name: rewrites}."""
    out = {"fold_batch_norm": fold_batch_norm(model, protected)}
    out["fold_batch_norm_gemm"] = fold_batch_norm_gemm(model, protected)
    out["fold_scale_shift"] = fold_scale_shift(model, protected)
    out["fuse_conv"] = fuse_conv(model, protected)
    out["assign_layouts"] = assign_layouts(model, protected)
    return out
