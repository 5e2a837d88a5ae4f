"""DataParallel: bucketed gradient averaging over a process group (DistributedDataParallel's
reducer; with :meth:`DataParallel.value_and_grad`, buckets are all-reduced during the backward
through pyasc.autograd's leaf_grad_hook).

The gradient source is pluggable: pass the step's ``(param, grad)`` pairs (or the
gradients in parameter order) to :meth:`DataParallel.reduce_gradients`, or
announce each gradient as soon as it exists with :meth:`DataParallel.grad_ready`
(an autograd hook can call it during the backward pass) and call
:meth:`DataParallel.finish` before the optimizer step. A bucket's all-reduce
starts, asynchronously, as soon as all of its gradients are ready.
"""

from __future__ import annotations

import numpy as np

from .. import _C
from ..errors import AscendTypeError, AscendValueError, ErrorCode
from . import _collectives as C
from ._group import ReduceOp, resolve

__all__ = ["DataParallel"]

_ndarray = _C.ndarray


def _params_of(params):
    if hasattr(params, "parameters") and callable(params.parameters):
        params = params.parameters()
    params = list(params)
    for i, p in enumerate(params):
        if not isinstance(p, (_ndarray, np.ndarray)):
            raise AscendTypeError(ErrorCode.INVALID_DTYPE,
                                  f"[DataParallel] parameter {i} must be a pyasc.ndarray, got {type(p).__name__}")
    return params


class _Bucket:
    __slots__ = ("members", "offsets", "buf", "pending", "work", "ready")

    def __init__(self, members, offsets, size, dtype):
        self.members = members  # parameter indices
        self.offsets = offsets
        self.buf = np.empty(size, dtype)
        self.pending = len(members)
        self.work = None
        self.ready = {}


class DataParallel:
    """Averages gradients of ``params`` over ``group`` (default: all ranks) in buckets of at
    most ``bucket_cap_mb`` MiB per dtype.

    ``params``: a list of parameter arrays, or an object with ``.parameters()``. Parameters
    are broadcast from group rank 0 at construction (``broadcast_parameters=False`` skips
    it), so all replicas start equal, as with DistributedDataParallel. Buckets follow the
    reverse parameter order (the order a backward pass produces gradients in).
    """

    def __init__(self, params, group=None, bucket_cap_mb=25.0, broadcast_parameters=True):
        what = "DataParallel"
        self.group = group
        pg = resolve(group, what)
        self.params = _params_of(params)
        if not bucket_cap_mb > 0:
            raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] bucket_cap_mb must be positive, "
                                   f"got {bucket_cap_mb}")
        cap = int(bucket_cap_mb * (1 << 20))
        self._index = {id(p): i for i, p in enumerate(self.params)}
        self._bucket_of = {}
        self.buckets = []
        open_ = {}  # dtype -> (members, offsets, size)
        for i in reversed(range(len(self.params))):
            p = self.params[i]
            dt = np.dtype(p.dtype)
            members, offsets, size = open_.get(dt, ([], [], 0))
            n = int(p.size)
            if members and (size + n) * dt.itemsize > cap:
                self._close(members, offsets, size, dt)
                members, offsets, size = [], [], 0
            members.append(i)
            offsets.append(size)
            open_[dt] = (members, offsets, size + n)
        for dt, (members, offsets, size) in open_.items():
            if members:
                self._close(members, offsets, size, dt)
        if broadcast_parameters:
            root = pg.ranks[0]
            for p in self.params:
                C.broadcast(p, root, group)

    def _close(self, members, offsets, size, dt):
        b = _Bucket(members, offsets, size, dt)
        for m in members:
            self._bucket_of[m] = b
        self.buckets.append(b)

    def _param_index(self, param):
        if isinstance(param, (int, np.integer)):
            i = int(param)
            if not 0 <= i < len(self.params):
                raise AscendValueError(ErrorCode.INVALID_PARAM,
                                       f"[DataParallel] parameter index {i} out of range ({len(self.params)})")
            return i
        i = self._index.get(id(param))
        if i is None:
            raise AscendValueError(ErrorCode.INVALID_PARAM, "[DataParallel] the array is not one of the parameters")
        return i

    def grad_ready(self, param, grad):
        """Marks ``grad`` (the gradient of ``param``: the array or its index) ready; starts its
        bucket's all-reduce when the bucket is complete. The averaged values are written into
        ``grad`` by :meth:`finish`."""
        i = self._param_index(param)
        p = self.params[i]
        if tuple(grad.shape) != tuple(p.shape) or np.dtype(grad.dtype) != np.dtype(p.dtype):
            raise AscendValueError(ErrorCode.INVALID_SHAPE,
                                   f"[DataParallel] gradient of parameter {i} is {grad.dtype} {tuple(grad.shape)}, "
                                   f"the parameter is {p.dtype} {tuple(p.shape)}")
        b = self._bucket_of[i]
        if i in b.ready:
            raise AscendValueError(ErrorCode.INVALID_PARAM,
                                   f"[DataParallel] gradient of parameter {i} marked ready twice in one step")
        b.ready[i] = grad
        k = b.members.index(i)
        g = grad.numpy() if isinstance(grad, _ndarray) else np.asarray(grad)
        n = int(p.size)
        b.buf[b.offsets[k]:b.offsets[k] + n] = g.reshape(-1)
        b.pending -= 1
        if b.pending == 0:
            # The bucket is host memory filled above (no stream dependency): a nonblocking MPI
            # all-reduce started now, progressed by this thread's tests below. (An async_op
            # all_reduce would be a stream task; its thread waits for the GIL the backward
            # holds: measured slower, bench_distributed.py --only dp.)
            b.work = C._start_all_reduce(b.buf, ReduceOp.AVG, self.group)
        # MPI progresses nonblocking collectives only inside MPI calls: test the buckets in
        # flight, so they advance while the backward produces the next gradients.
        for o in self.buckets:
            if o.work is not None and o is not b:
                o.work.is_completed()

    def finish(self):
        """Waits for every bucket and writes the averaged gradients into the arrays given to
        :meth:`grad_ready`. Every parameter's gradient must have been marked ready."""
        missing = [i for b in self.buckets for i in b.members if i not in b.ready]
        if missing:
            raise AscendValueError(ErrorCode.INVALID_PARAM,
                                   f"[DataParallel] no gradient for parameters {missing} in this step")
        for b in self.buckets:
            b.work.wait()
            for k, i in enumerate(b.members):
                g = b.ready[i]
                n = int(self.params[i].size)
                view = g.numpy() if isinstance(g, _ndarray) else g
                view[...] = b.buf[b.offsets[k]:b.offsets[k] + n].reshape(view.shape)
            b.ready = {}
            b.pending = len(b.members)
            b.work = None

    def value_and_grad(self, fn, argnums=None, has_aux=False):
        """:func:`pyasc.value_and_grad` of ``fn`` whose gradients come back averaged over the
        group, with each bucket's all-reduce started during the backward as soon as its
        gradients are complete (the overlap of DistributedDataParallel's reducer).

        ``argnums`` (default: the first ``len(params)`` positional arguments) are the positions
        of the parameters, in parameter order; ``fn(*args)`` must return the local loss. Returns
        ``wrapped(*args, **kwargs) -> (loss, grads)`` as value_and_grad does (``grads`` a tuple),
        the loss being this rank's."""
        from .. import autograd

        nums = tuple(range(len(self.params))) if argnums is None else tuple(argnums)
        if len(nums) != len(self.params):
            raise AscendValueError(ErrorCode.INVALID_PARAM, f"[DataParallel] argnums {nums} name {len(nums)} "
                                   f"arguments for {len(self.params)} parameters")
        vg = autograd.value_and_grad(fn, argnums=nums, has_aux=has_aux)
        index = {a: i for i, a in enumerate(nums)}

        def wrapped(*args, **kwargs):
            handed = set()

            def ready(argnum, g):
                i = index[argnum]
                handed.add(i)
                self.grad_ready(i, g)

            try:
                with autograd.leaf_grad_hook(ready):
                    value, grads = vg(*args, **kwargs)
                for i, g in enumerate(grads):  # parameters the loss does not reach: zeros
                    if i not in handed:
                        self.grad_ready(i, g)
                self.finish()
            except BaseException:
                self._reset()
                raise
            return value, grads

        return wrapped

    def _reset(self):
        for b in self.buckets:
            if b.work is not None:
                try:
                    b.work.wait()
                except Exception:  # noqa: BLE001 - the step failed already
                    pass
            b.ready = {}
            b.pending = len(b.members)
            b.work = None

    def reduce_gradients(self, grads):
        """Averages a step's gradients in place: ``grads`` is a list of ``(param, grad)`` pairs,
        or the gradients in parameter order."""
        grads = list(grads)
        if grads and isinstance(grads[0], tuple):
            for p, g in grads:
                self.grad_ready(p, g)
        else:
            if len(grads) != len(self.params):
                raise AscendValueError(ErrorCode.INVALID_PARAM,
                                       f"[DataParallel] {len(grads)} gradients for {len(self.params)} parameters")
            for i in reversed(range(len(grads))):
                self.grad_ready(i, grads[i])
        self.finish()
        return grads
