"""Process groups: ``init_process_group``, ``new_group``, ranks and the default group.

A :class:`ProcessGroup` owns an MPI communicator of its own (a duplicate of
``MPI.COMM_WORLD`` for the default group, a ``Split`` of it for ``new_group``),
so pyasc's traffic never matches a user's own mpi4py messages.
"""

from __future__ import annotations

import atexit
import datetime
import enum
import os
import sys
import time

from .. import _C
from ..errors import ErrorCode
from . import _engine
from ._errors import DistBackendError, DistStateError, DistTimeoutError

__all__ = [
    "ReduceOp", "ProcessGroup", "GroupMember", "Backend", "init_process_group", "is_initialized",
    "is_available", "is_mpi_available", "destroy_process_group", "new_group", "get_rank", "get_world_size",
    "get_local_rank", "get_local_world_size", "get_backend", "get_process_group_ranks", "get_global_rank",
    "get_group_rank", "default_pg_timeout",
]

#: torch.distributed's default: 30 minutes.
default_pg_timeout = datetime.timedelta(minutes=30)


class ReduceOp(enum.Enum):
    """Reduction of :func:`all_reduce`, :func:`reduce`, :func:`reduce_scatter` (torch's names).

    AVG is SUM divided by the group size (floating and complex dtypes). On bool
    arrays SUM/MAX are logical or, PRODUCT/MIN logical and (NumPy's add/multiply
    reductions cast back to bool). MAX/MIN of floats propagate NaN (NumPy's
    maximum/minimum). BAND/BOR/BXOR: integer and bool dtypes.
    """

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"

    # Identity hash: Enum's hashes the name in Python code, and every all_reduce looks the op up.
    __hash__ = object.__hash__


class Backend(str):
    """Backend names (torch.distributed.Backend): ``"mpi"``; ``"hccl"``, ``"gloo"`` and
    ``"nccl"`` are accepted and run on MPI, the only engine on this machine."""

    MPI = "mpi"
    HCCL = "hccl"
    GLOO = "gloo"
    NCCL = "nccl"


_ALIASES = ("hccl", "gloo", "nccl", "cpu:gloo", "cpu:mpi")


class ProcessGroup:
    """A set of ranks and the communicator their collectives run on.

    ``rank()`` / ``size()`` are this process's rank in the group and its size;
    ``ranks`` the global ranks of its members in group-rank order.
    """

    def __init__(self, comm, ranks, timeout, name):
        self.comm = comm
        self.ranks = tuple(ranks)
        self.timeout = timeout
        self.name = name
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self._index = {g: i for i, g in enumerate(self.ranks)}
        self.broken = None  # the message of the failure that made the group unusable
        # A second communicator for the mismatch check's cold path (the data communicator may
        # hold unmatched traffic of the mismatched calls), and the staging buffers of the
        # piggybacked check (_engine.allreduce_piggy).
        self.check_comm = comm.Dup()
        self.stages = {}
        #: the communicator's C handle (the C fast path: pyasc.distributed._native)
        self.handle = comm.handle
        #: the Event after this group's latest async_op collective (a stream task), or None:
        #: the group's next collective waits for it, so that every rank issues its MPI calls
        #: on the communicator in program order (_collectives._drain)
        self.last_async = None
        #: the _StreamWork of that collective (whether its body ran: _collectives._drain)
        self.last_work = None
        #: (communicator handle, size, timeout, rank index, rank) while the group takes the
        #: collectives' C paths without further checks (usable, no async collective pending),
        #: else None
        self.hot = None
        self._update_hot()

    def _update_hot(self):
        ok = self.comm is not None and self.broken is None and self.last_async is None
        # (handle, size, timeout, global -> group rank index or None when they are equal, rank)
        index = None if self.ranks == tuple(range(self._size)) else self._index
        self.hot = (self.handle, self._size, float(self.timeout), index, self._rank) if ok else None

    def rank(self):
        """This process's rank in the group."""
        return self._rank

    def size(self):
        """The number of ranks in the group."""
        return self._size

    def group_rank(self, global_rank, what, arg):
        """The group rank of global rank ``global_rank`` (an error naming ``arg`` otherwise)."""
        try:
            return self._index[global_rank]
        except (KeyError, TypeError):
            raise DistStateError(f"[{what}] {arg}={global_rank!r} is not a rank of the group "
                                 f"(its global ranks: {list(self.ranks)})") from None

    def _free(self):
        ev = self.last_async
        if ev is not None:  # async_op collectives still queued on a stream use the communicator
            self.last_async = None
            self.last_work = None
            try:
                ev.synchronize()
            except Exception:  # noqa: BLE001 - their errors belong to their Work handles
                pass
        if self.comm is not None and self.broken is None:
            self.comm.Free()
            self.check_comm.Free()
        self.comm = None
        self.stages = {}
        self.hot = None

    def usable(self, what):
        """Raises when the group was destroyed or broken by an earlier timeout."""
        if self.comm is None:
            raise DistStateError(f"[{what}] the process group '{self.name}' was destroyed")
        if self.broken is not None:
            raise DistBackendError(f"[{what}] the process group is unusable after an earlier failure: "
                                   f"{self.broken}")

    def fail_timeout(self, what, req):
        """The error for a request that passed its deadline. The group becomes unusable: the
        late request may still write its buffers, so they are kept alive for good, and at exit
        the job is aborted (MPI_Finalize would wait for the missing ranks)."""
        _State.leaked.append(req)
        msg = (f"rank {_engine.mpi().COMM_WORLD.Get_rank()} timed out after {self.timeout:.3g} s (timeout of group '{self.name}', "
               f"ranks {list(self.ranks)}): a rank died, hangs, or did not call the matching operation")
        self.broken = f"[{what}] {msg}"
        self.hot = None
        _State.must_abort = True
        return DistTimeoutError(f"[{what}] {msg}")

    def __repr__(self):
        return f"ProcessGroup(name={self.name!r}, ranks={list(self.ranks)}, rank={self._rank})"


class _InitGroup:
    """What the watchdog's message names while init_process_group's collectives run."""

    def __init__(self, ws, secs):
        self.name, self.ranks, self.timeout = "default_pg", range(ws), secs


class GroupMember:
    """torch's markers: ``GroupMember.WORLD`` (the default group once initialised) and
    ``GroupMember.NON_GROUP_MEMBER`` (what :func:`new_group` returns on ranks outside it)."""

    WORLD = None
    NON_GROUP_MEMBER = object()


class _State:
    world = None
    backend = None
    groups = []
    leaked = []  # requests of timed-out operations (and their buffers): see fail_timeout
    must_abort = False
    atexit_registered = False
    local_rank = 0
    local_size = 1


def _seconds(timeout, what):
    if timeout is None:
        timeout = default_pg_timeout
    if isinstance(timeout, datetime.timedelta):
        s = timeout.total_seconds()
    else:
        try:
            s = float(timeout)
        except (TypeError, ValueError):
            raise DistStateError(f"[{what}] timeout must be a datetime.timedelta or seconds, "
                                 f"got {timeout!r}") from None
    if not s > 0:
        raise DistStateError(f"[{what}] timeout must be positive, got {timeout!r}")
    return s


def _at_exit():
    if not _State.must_abort:
        _engine.watchdog.stop()
    if _State.must_abort:
        # A timed-out rank cannot finalize (MPI_Finalize waits for the missing ranks):
        # end the whole job, which also stops a hung rank.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            _engine.mpi().COMM_WORLD.Abort(1)


def is_available():
    """True: pyasc.distributed is part of the package (torch.distributed.is_available)."""
    return True


def is_mpi_available():
    """Whether mpi4py and an MPI library can be imported."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_initialized():
    """Whether the default process group exists."""
    return _State.world is not None


def _env_int(name, what):
    v = os.environ.get(name)
    if v is None or v == "":
        return None
    try:
        return int(v)
    except ValueError:
        raise DistStateError(f"[{what}] environment variable {name}={v!r} is not an integer") from None


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Creates the default process group (torch.distributed.init_process_group).

    The processes are MPI's: start them with ``pyasc-run -n N script.py`` (or
    ``mpirun``). ``backend``: ``"mpi"`` (or None); ``"hccl"``, ``"gloo"``,
    ``"nccl"`` are accepted and run on MPI (logged). ``init_method``: None or
    ``"env://"`` (MPI wires the ranks; RANK/WORLD_SIZE, when set, must agree
    with MPI's). ``world_size``/``rank``: -1, or MPI's values. ``timeout``: a
    ``datetime.timedelta`` or seconds (default 30 minutes): an operation that
    does not complete within it raises :class:`DistTimeoutError`. ``store``,
    ``pg_options``, ``device_id``: accepted for torch compatibility; a store is
    refused (MPI needs none).
    """
    what = "init_process_group"
    if _State.world is not None:
        raise DistStateError(f"[{what}] trying to initialize the default process group twice!",
                             ErrorCode.REPEAT_INITIALIZE)
    b = "mpi" if backend is None else str(backend).lower()
    if b not in ("mpi",) + _ALIASES:
        raise DistStateError(f"[{what}] unknown backend {backend!r}: pyasc runs collectives on MPI "
                             "('mpi'; 'hccl', 'gloo' and 'nccl' are accepted aliases)")
    if b != "mpi":
        # pyasc's logger (ASC_LOG_LEVEL=info shows it), level 1 = info
        _C.log(1, "distributed", f"init_process_group: backend {b!r} runs on MPI (OpenMPI through mpi4py), "
                                 "the engine available here")
    if init_method not in (None, "env://"):
        raise DistStateError(f"[{what}] init_method {init_method!r} is not supported: MPI connects the ranks "
                             "(launch with pyasc-run / mpirun and use init_method=None or 'env://')",
                             ErrorCode.API_NOT_SUPPORT)
    if store is not None:
        raise DistStateError(f"[{what}] a store is not used by the MPI backend (pass store=None)",
                             ErrorCode.API_NOT_SUPPORT)
    secs = _seconds(timeout, what)
    MPI = _engine.mpi()
    wr, ws = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
    for name, want, have in (("world_size", world_size, ws), ("rank", rank, wr)):
        if want is not None and int(want) != -1 and int(want) != have:
            raise DistStateError(f"[{what}] {name}={want} but MPI started this process as {name} {have} "
                                 f"(launch with pyasc-run -n {max(int(world_size), 1)} ...)")
    for name, have in (("WORLD_SIZE", ws), ("RANK", wr)):
        env = _env_int(name, what)
        if env is not None and env != have:
            raise DistStateError(f"[{what}] environment {name}={env} disagrees with MPI's {have} "
                                 f" (was the script started by pyasc-run/mpirun with these variables "
                                 "set by another launcher?)")
    # Every rank must be present: the communicator duplications below are collective, so a
    # rank that never calls init ends in the watchdog's timeout error (blocking mode) or a
    # DistTimeoutError from the barrier (ASC_DISTRIBUTED_BLOCKING=0).
    deadline = time.monotonic() + secs
    wd = _engine.watchdog
    wd.start()
    wd.current = (deadline, what, _InitGroup(ws, secs))
    try:
        comm = MPI.COMM_WORLD.Dup()
        pg = ProcessGroup(comm, range(ws), secs, group_name or "default_pg")
        if wd.ctl is None:
            wd.attach(MPI.COMM_WORLD.Dup())
    finally:
        wd.current = None
    _engine._blocking(comm, "Barrier", (), deadline, what, pg)
    local = comm.Split_type(MPI.COMM_TYPE_SHARED, key=wr)
    _State.local_rank, _State.local_size = local.Get_rank(), local.Get_size()
    local.Free()
    _State.world = pg
    _State.backend = b
    _State.groups = [pg]
    GroupMember.WORLD = pg
    if not _State.atexit_registered:
        atexit.register(_at_exit)  # after mpi4py's finalizer, so it runs first
        _State.atexit_registered = True


def _default(what):
    pg = _State.world
    if pg is None:
        raise DistStateError(f"[{what}] Default process group has not been initialized, please make sure "
                             "to call init_process_group.", ErrorCode.UNINITIALIZE)
    return pg


def resolve(group, what):
    """The usable ProcessGroup for ``group`` (None: the default group); errors for a bad
    group, a destroyed one, or one this rank is not a member of."""
    if group is None:
        pg = _default(what)
    elif isinstance(group, ProcessGroup):
        _default(what)
        pg = group
    elif group is GroupMember.NON_GROUP_MEMBER:
        _default(what)
        raise DistStateError(f"[{what}] rank {_State.world._rank} is not a member of the group "
                             "(new_group returned GroupMember.NON_GROUP_MEMBER here)")
    else:
        raise DistStateError(f"[{what}] group must be a ProcessGroup from new_group() or None, "
                             f"got {type(group).__name__}")
    pg.usable(what)
    return pg


def destroy_process_group(group=None):
    """Frees ``group``'s communicator, or with None every group and the default group (a
    later :func:`init_process_group` starts again; MPI itself stays up until exit)."""
    what = "destroy_process_group"
    if group is None:
        _default(what)
        for pg in _State.groups:
            pg._free()
        if not _State.must_abort:
            _engine.watchdog.stop()
        _State.world = None
        _State.groups = []
        GroupMember.WORLD = None
        return
    if not isinstance(group, ProcessGroup):
        raise DistStateError(f"[{what}] group must be a ProcessGroup or None, got {type(group).__name__}")
    group._free()
    if group is _State.world:
        if not _State.must_abort:
            _engine.watchdog.stop()
        _State.world = None
        GroupMember.WORLD = None
        _State.groups = []


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A process group of global ``ranks`` (torch.distributed.new_group). Every rank of the
    default group must call it with the same ranks, in the same order of calls; ranks outside
    the group get ``GroupMember.NON_GROUP_MEMBER``. Group ranks follow the sorted global ranks."""
    what = "new_group"
    world = resolve(None, what)
    n = world.size()
    if ranks is None:
        members = list(range(n))
    else:
        try:
            members = [int(r) for r in ranks]
        except (TypeError, ValueError):
            raise DistStateError(f"[{what}] ranks must be a sequence of ints, got {ranks!r}") from None
        bad = [r for r in members if not 0 <= r < n]
        if bad:
            raise DistStateError(f"[{what}] ranks {bad} out of range for world size {n}")
        if len(set(members)) != len(members):
            raise DistStateError(f"[{what}] ranks {members} has duplicates")
        if not members:
            raise DistStateError(f"[{what}] ranks is empty")
        members = sorted(members)
    if backend is not None and str(backend).lower() not in ("mpi",) + _ALIASES:
        raise DistStateError(f"[{what}] unknown backend {backend!r}")
    secs = world.timeout if timeout is None else _seconds(timeout, what)
    deadline = time.monotonic() + secs
    if _engine.CHECK:
        _engine.check_same(world, what, f"new_group ranks={members}", deadline)
    else:
        req = _engine.call(world.comm, "Barrier", (), deadline, what, world)
        if req is not None:
            _engine.wait(req, deadline, what, world)
    me = world.rank()
    MPI = _engine.mpi()
    color = 0 if me in members else MPI.UNDEFINED
    comm = world.comm.Split(color, key=me)
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, members, secs, group_desc or f"group{len(_State.groups)}")
    _State.groups.append(pg)
    return pg


def get_rank(group=None):
    """This process's rank in ``group`` (default: the global rank); -1 outside the group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        _default("get_rank")
        return -1
    return resolve(group, "get_rank").rank()


def get_world_size(group=None):
    """The number of ranks in ``group`` (default: all); -1 outside the group."""
    if group is GroupMember.NON_GROUP_MEMBER:
        _default("get_world_size")
        return -1
    return resolve(group, "get_world_size").size()


def get_local_rank():
    """This process's rank among the ranks on its machine (LOCAL_RANK)."""
    _default("get_local_rank")
    return _State.local_rank


def get_local_world_size():
    """The number of ranks on this machine (LOCAL_WORLD_SIZE)."""
    _default("get_local_world_size")
    return _State.local_size


def get_backend(group=None):
    """The backend name the group was created with (``"mpi"``, or the alias passed)."""
    resolve(group, "get_backend")
    return _State.backend


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order."""
    return list(resolve(group, "get_process_group_ranks").ranks)


def get_global_rank(group, group_rank):
    """The global rank of ``group_rank`` in ``group``."""
    pg = resolve(group, "get_global_rank")
    if not isinstance(group_rank, int) or not 0 <= group_rank < pg.size():
        raise DistStateError(f"[get_global_rank] group rank {group_rank!r} out of range for a group of "
                             f"{pg.size()}")
    return pg.ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank of global rank ``global_rank`` within ``group``."""
    return resolve(group, "get_group_rank").group_rank(global_rank, "get_group_rank", "global_rank")
