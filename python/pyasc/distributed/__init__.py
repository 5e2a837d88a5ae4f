"""pyasc.distributed: collectives on pyasc arrays over MPI (torch.distributed's interface).

::

    # pyasc-run -n 4 train.py
    import pyasc as asc
    import pyasc.distributed as dist

    dist.init_process_group(backend="hccl")        # runs on MPI here (logged)
    g = asc.ones(1024) * dist.get_rank()
    dist.all_reduce(g, op=dist.ReduceOp.AVG)       # in place, every rank
    dist.destroy_process_group()

The engine is OpenMPI through mpi4py (``_engine.py`` says why); processes are
started by :mod:`pyasc-run <pyasc.tools.run>` or ``mpirun``. Operations work in
place and zero-copy on pyasc arrays after the lazy work producing them has
finished; every operation is bounded by the group's ``timeout``
(blocking MPI calls under a watchdog that tears the job down with a clear
error on every rank; ``ASC_DISTRIBUTED_BLOCKING=0`` raises
:class:`DistTimeoutError` in the caller instead), and ranks that disagree on
shapes/dtypes raise :class:`CollectiveMismatchError` on every rank (a check
piggybacked in small all_reduce messages; ``ASC_DISTRIBUTED_DEBUG=DETAIL|OFF``).
Object collectives use a data-only encoding (JSON + raw array buffers), never
pickle. Data parallelism: :class:`DataParallel` (bucketed gradient averaging)
and :class:`DistributedSampler`. See docs/distributed.md.
"""

from __future__ import annotations

from ._collectives import (
    Work,
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from ._errors import CollectiveMismatchError, DistBackendError, DistError, DistStateError, DistTimeoutError
from ._group import (
    Backend,
    GroupMember,
    ProcessGroup,
    ReduceOp,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_local_rank,
    get_local_world_size,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    new_group,
)
from ._objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from .data_parallel import DataParallel
from .sampler import DistributedSampler

__all__ = [
    "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list",
    "recv_object_list",
    "Backend", "CollectiveMismatchError", "DataParallel", "DistBackendError", "DistError", "DistStateError",
    "DistTimeoutError", "DistributedSampler", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "broadcast",
    "default_pg_timeout", "destroy_process_group", "gather", "get_backend", "get_global_rank", "get_group_rank",
    "get_local_rank", "get_local_world_size", "get_process_group_ranks", "get_rank", "get_world_size",
    "init_process_group", "irecv", "is_available", "is_initialized", "is_mpi_available", "isend", "new_group",
    "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "send",
]
