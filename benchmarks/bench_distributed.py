"""Benchmarks of pyasc.distributed and pyasc.dask, each against its peer in the same run.

    python benchmarks/bench_distributed.py                 # everything (Dask on 4 GiB)
    python benchmarks/bench_distributed.py --quick         # all_reduce up to 16 MiB, Dask on 0.5 GiB
    python benchmarks/bench_distributed.py --only allreduce|dp|dask  [--dask-gib G]
    python benchmarks/bench_distributed.py --only allreduce --repeat 3   # the full sweep 3 times: spread

1. all_reduce (2 ranks, float32, 4 KiB .. 256 MiB): latency and bus bandwidth
   (nccl-tests' busbw = bytes / time * 2 (n - 1) / n) of pyasc.distributed.all_reduce on
   a pyasc array vs mpi4py's ``Allreduce`` on a NumPy buffer (the goal: >= 0.95 of its
   bandwidth, <= 1.2x its 4 KiB latency), in pyasc's modes: default (one C call,
   pyasc.distributed._native: blocking MPI call under the watchdog, INFO check:
   piggybacked in messages <= 64 KiB of 2-rank groups, a fingerprint all-reduce before
   larger ones), the same through the Python path (as without the C module), DETAIL (fingerprint all-reduce before every call),
   OFF (no check), and the polled mode (ASC_DISTRIBUTED_BLOCKING=0: nonblocking MPI polled
   against the deadline, INFO check). mpi4py's ``Iallreduce`` polled with ``Test`` is
   shown too: the cost of MPI's nonblocking algorithms themselves. torch.distributed gloo
   (all_reduce, broadcast, all_gather_into_tensor on torch tensors, TCP on 127.0.0.1) takes its
   turns in the same rounds when torch is installed (BENCH_DIST_GLOO=0 leaves it out). At every size
   also broadcast, reduce, all_gather_into_tensor and reduce_scatter_tensor (their C path)
   vs mpi4py's Bcast, Reduce, Allgather, Reduce_scatter_block (goal <= 1.2x at 4 KiB), and
   async_op=True + wait() (all_reduce, broadcast).
2. Data-parallel step of examples/distributed/train_mlp.py (bigger model): 2 processes x 1
   core vs 1 process x 2 cores, same global batch: the ratio of median step times; and on
   2 processes with asc.value_and_grad, the all-reduce overlapped with the backward
   (DataParallel.value_and_grad) vs after it (reduce_gradients).
3. Dask: an elementwise + reduction workload (sum of x*x + 2x + 1 and of sqrt|x|) over a
   float32 array of --dask-gib GiB in 32 MiB chunks on LocalCluster(processes=True,
   n_workers=2, threads_per_worker=1, ASC_NUM_CORES=1), pyasc chunks vs NumPy chunks: the
   ratio of wall times (goal >= 1.5).
0. The same 4 KiB all_reduce on a 1-rank world (a singleton MPI process: no peer whose
   scheduling adds noise): pyasc's per-call cost above MPI vs mpi4py's, C and Python paths.
All modes of one size take turns inside each of BENCH_DIST_ROUNDS (7) rounds; medians.
Benchmarks are not tests: numbers vary with the machine's load (printed first).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SIZES_FULL = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]
SIZES_QUICK = [4 << 10, 64 << 10, 1 << 20, 16 << 20]


def _env():
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    for k in ("ASC_DISTRIBUTED_CHECK", "ASC_DISTRIBUTED_BLOCKING", "ASC_DISTRIBUTED_DEBUG"):
        env.pop(k, None)
    return env


def _load():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


# ------------------------------------------------------------------ 1. all_reduce (inside mpirun)

MAX_ITERS = int(os.environ.get("BENCH_DIST_MAX_ITERS", "2000"))
QUICK = os.environ.get("BENCH_DIST_QUICK") == "1"


ROUNDS = int(os.environ.get("BENCH_DIST_ROUNDS", "7"))


def _time_interleaved(fns, barrier, nbytes, setups):
    """Per mode the median over ROUNDS rounds of the mean time of one call in a loop of k
    calls (k by size, at most --max-iters). The modes take turns inside every round (peer and
    ours measured under the same load), each after a barrier."""
    # at least 10 calls per round: large messages get 70 timed calls per mode in all
    k = max(10, min(MAX_ITERS, int(64e6 / max(nbytes, 1))))
    times = {name: [] for name in fns}
    cpu = {name: [] for name in fns}
    for name, fn in fns.items():  # warm-up: first calls build caches / MPI's connections
        setups[name]()
        fn()
    for _ in range(ROUNDS):
        for name, fn in fns.items():
            setups[name]()
            barrier()
            c0 = time.process_time()
            t0 = time.perf_counter()
            for _ in range(k):
                fn()
            times[name].append((time.perf_counter() - t0) / k)
            cpu[name].append((time.process_time() - c0) / k)
    out = {name: sorted(t)[len(t) // 2] for name, t in times.items()}
    # process CPU time per call (all threads): waiting for a peer is spinning in MPI, so this
    # counts the work plus the synchronisation, and varies less with the load than wall time
    out.update({name + "_cpu": sorted(t)[len(t) // 2] for name, t in cpu.items()})
    # the least disturbed round of each mode: on a loaded machine closer to the code's own cost
    out.update({name + "_min": min(t) for name, t in times.items()})
    return out


#: pyasc's modes: (name, check level, blocking, C path allowed)
MODES = (("pyasc", "INFO", True, True), ("pyasc_python", "INFO", True, False), ("pyasc_detail", "DETAIL", True, True),
         ("pyasc_off", "OFF", True, True), ("pyasc_polled", "INFO", False, True))


def _gloo(comm):
    """torch.distributed with backend "gloo" on the same ranks (TCP on 127.0.0.1, a port rank 0
    picks), or None when torch is not installed or BENCH_DIST_GLOO=0: the peer beside mpi4py."""
    if os.environ.get("BENCH_DIST_GLOO", "1") == "0":
        return None
    try:
        import torch
        import torch.distributed as tdist
    except ImportError:
        return None
    import socket
    port = None
    if comm.Get_rank() == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    port = comm.bcast(port, root=0)
    torch.set_num_threads(1)  # one core per rank, as pyasc's ASC_NUM_CORES=1
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=comm.Get_rank(),
                             world_size=comm.Get_size())
    return torch, tdist


def _other_collectives(comm, nbytes, gloo=None):
    """broadcast / reduce / all_gather_into_tensor / reduce_scatter_tensor of ``nbytes`` (the
    size of the largest buffer of the call) vs mpi4py's Bcast / Reduce / Allgather /
    Reduce_scatter_block on NumPy buffers, interleaved."""
    import numpy as np
    from mpi4py import MPI

    import pyasc as asc
    import pyasc.distributed as dist
    from pyasc.distributed import _engine

    n = comm.Get_size()
    count = nbytes // 4
    part = count // n
    bc_np, bc_arr = np.ones(count, np.float32), asc.ones(count, dtype="float32")
    rd_np, rd_arr = np.ones(count, np.float32), asc.ones(count, dtype="float32")
    ag_in_np, ag_out_np = np.ones(part, np.float32), np.empty(part * n, np.float32)
    ag_in, ag_out = asc.ones(part, dtype="float32"), asc.empty(part * n, dtype="float32")
    rs_in_np, rs_out_np = np.ones(part * n, np.float32), np.empty(part, np.float32)
    rs_in, rs_out = asc.ones(part * n, dtype="float32"), asc.empty(part, dtype="float32")
    bc_arr2, ag_in2, ag_out2 = asc.ones(count, dtype="float32"), asc.ones(part, dtype="float32"), \
        asc.empty(part * n, dtype="float32")
    for a in (bc_arr, rd_arr, ag_in, ag_out, rs_in, rs_out, bc_arr2, ag_in2, ag_out2):
        a.numpy()  # materialised once
    me = comm.Get_rank()
    fns = {
        "bcast_mpi4py": lambda: comm.Bcast(bc_np, 0),
        "bcast_pyasc": lambda: dist.broadcast(bc_arr, src=0),
        "bcast_pyasc_async": lambda: dist.broadcast(bc_arr, src=0, async_op=True).wait(),
        "reduce_mpi4py": lambda: comm.Reduce(MPI.IN_PLACE if me == 0 else rd_np, rd_np if me == 0 else None,
                                             MPI.SUM, 0),
        "reduce_pyasc": lambda: dist.reduce(rd_arr, dst=0),
        "allgather_mpi4py": lambda: comm.Allgather(ag_in_np, ag_out_np),
        "allgather_pyasc": lambda: dist.all_gather_into_tensor(ag_out, ag_in),
        "redscat_mpi4py": lambda: comm.Reduce_scatter_block(rs_in_np, rs_out_np, MPI.SUM),
        "redscat_pyasc": lambda: dist.reduce_scatter_tensor(rs_out, rs_in),
    }
    if nbytes >= 1 << 20:
        # Where large broadcast/all_gather lose to mpi4py (0.28-0.50x in one quiet run): the
        # same call with the check OFF (the 16-byte fingerprint all-reduce before the transfer
        # is the suspect), mpi4py's call on the pyasc arrays' memory (the memory, not the code),
        # and mpi4py's call preceded by the same 16-byte MPI_Allreduce (the exchange's own
        # price, without pyasc). Sizes >= 1 MiB only: --quick stays under 2 minutes.
        fp = np.zeros(2, np.int64)

        def check_off():
            _engine.set_mode(_engine.OFF, True)

        fns["bcast_pyasc_off"] = lambda: dist.broadcast(bc_arr, src=0)
        fns["bcast_mpi4py_pyasc_mem"] = lambda: comm.Bcast(bc_mem, 0)
        fns["bcast_mpi4py_fp"] = lambda: (comm.Allreduce(MPI.IN_PLACE, fp, MPI.MAX), comm.Bcast(bc_np, 0))
        fns["allgather_pyasc_off"] = lambda: dist.all_gather_into_tensor(ag_out, ag_in)
        fns["allgather_mpi4py_pyasc_mem"] = lambda: comm.Allgather(ag_in_mem, ag_out_mem)
        fns["allgather_mpi4py_fp"] = lambda: (comm.Allreduce(MPI.IN_PLACE, fp, MPI.MAX),
                                              comm.Allgather(ag_in_np, ag_out_np))
        off = {"bcast_pyasc_off": check_off, "allgather_pyasc_off": check_off}
        # (numpy() of a materialised pyasc array: a view of its memory, no copy)
        bc_mem, ag_in_mem, ag_out_mem = bc_arr2.numpy(), ag_in2.numpy(), ag_out2.numpy()
    if gloo is not None:
        torch, tdist = gloo
        bc_t = torch.ones(count, dtype=torch.float32)
        ag_in_t, ag_out_t = torch.ones(part, dtype=torch.float32), torch.empty(part * n, dtype=torch.float32)
        fns["bcast_gloo"] = lambda: tdist.broadcast(bc_t, src=0)
        fns["allgather_gloo"] = lambda: tdist.all_gather_into_tensor(ag_out_t, ag_in_t)
    setups = {k: _engine.reload_settings for k in fns}
    if nbytes >= 1 << 20:
        setups.update(off)
    return _time_interleaved(fns, comm.Barrier, nbytes, setups)


def _allreduce_worker(sizes):
    import numpy as np
    from mpi4py import MPI

    import pyasc as asc
    import pyasc.distributed as dist
    from pyasc.distributed import _engine

    from pyasc.distributed import _collectives

    dist.init_process_group(backend="mpi", timeout=600)
    comm = MPI.COMM_WORLD
    n = comm.Get_size()
    rows = []
    gloo = _gloo(comm)

    def setup_mode(level, blocking, native):
        def setup():
            _engine.set_mode(getattr(_engine, level), blocking)
            if not native:
                _engine.NATIVE_FAST, _engine.FAST = False, None  # the Python path
        return setup

    for nbytes in sizes:
        count = nbytes // 4
        host = np.ones(count, np.float32)
        arr = asc.ones(count, dtype="float32")
        arr.numpy()  # materialised once: the loop measures the collective, not the fill
        res = {"bytes": nbytes}

        def mpi_blocking():
            comm.Allreduce(MPI.IN_PLACE, host, MPI.SUM)

        def mpi_nonblocking():
            r = comm.Iallreduce(MPI.IN_PLACE, host, MPI.SUM)
            while not r.Test():
                pass

        def pyasc_call():
            dist.all_reduce(arr)

        # the buffers swapped: tells a gap of the memory (alignment, pages) from one of the code
        arr2 = asc.ones(count, dtype="float32")
        pyasc_mem = arr2.numpy()

        def mpi_on_pyasc_mem():
            comm.Allreduce(MPI.IN_PLACE, pyasc_mem, MPI.SUM)

        def pyasc_on_numpy_mem():
            dist.all_reduce(host)

        def pyasc_async():  # the stream task of async_op=True, waited for
            dist.all_reduce(arr, async_op=True).wait()

        fp = np.zeros(2, np.int64)

        def mpi_fp():  # mpi4py's call after the same 16-byte MPI_Allreduce as pyasc's check
            comm.Allreduce(MPI.IN_PLACE, fp, MPI.MAX)
            comm.Allreduce(MPI.IN_PLACE, host, MPI.SUM)

        fns = {"mpi4py": mpi_blocking, "mpi4py_nb": mpi_nonblocking, "mpi4py_pyasc_mem": mpi_on_pyasc_mem,
               "mpi4py_fp": mpi_fp}
        setups = {"mpi4py": _engine.reload_settings, "mpi4py_nb": _engine.reload_settings,
                  "mpi4py_pyasc_mem": _engine.reload_settings, "mpi4py_fp": _engine.reload_settings}
        for mode, level, blocking, native in MODES:
            fns[mode] = pyasc_call
            setups[mode] = setup_mode(level, blocking, native)
        fns["pyasc_numpy_mem"] = pyasc_on_numpy_mem
        setups["pyasc_numpy_mem"] = _engine.reload_settings
        # async_op + wait(): run by wait() (the default: the stream is idle at the call), and the
        # same with the body always on the stream's worker (ASC_DISTRIBUTED_ASYNC_INLINE=0)
        def inline(on):
            def setup():
                _engine.reload_settings()
                _collectives._STEAL = on
            return setup
        fns["pyasc_async"] = pyasc_async
        setups["pyasc_async"] = inline(True)
        fns["pyasc_async_stream"] = pyasc_async
        setups["pyasc_async_stream"] = inline(False)
        if gloo is not None:  # torch.distributed gloo's all_reduce on a torch tensor, same turns
            tensor = gloo[0].ones(count, dtype=gloo[0].float32)
            fns["gloo"] = lambda: gloo[1].all_reduce(tensor)
            setups["gloo"] = _engine.reload_settings
        res.update(_time_interleaved(fns, comm.Barrier, nbytes, setups))
        _engine.reload_settings()
        _collectives._STEAL = _engine._env_flag("ASC_DISTRIBUTED_ASYNC_INLINE", True)
        # the other collectives with a C path (pyasc.distributed._native.coll), blocking, and
        # broadcast async_op + wait, vs mpi4py's call on NumPy buffers of the same size
        res.update(_other_collectives(comm, nbytes, gloo))
        # every rank reports its own times; the slower rank bounds the collective
        allres = comm.gather(res, root=0)
        if comm.Get_rank() == 0:
            rows.append({k: (max(r[k] for r in allres) if k != "bytes" else v) for k, v in res.items()})
    if comm.Get_rank() == 0:
        print("JSON " + json.dumps({"world": n, "native": _engine.NATIVE is not None, "rows": rows,
                                    "gloo": None if gloo is None else gloo[0].__version__}), flush=True)
    if gloo is not None:
        gloo[1].destroy_process_group()
    dist.destroy_process_group()


def _overhead_worker():
    """The per-call cost above MPI itself, free of the peer's scheduling: all_reduce of 4 KiB
    on a 1-rank world (a singleton MPI process: MPI_Allreduce is a local copy), mpi4py's
    Allreduce on a NumPy buffer vs pyasc's all_reduce on a pyasc array (C path, Python
    path), interleaved; min and median over rounds."""
    import numpy as np
    from mpi4py import MPI

    import pyasc as asc
    import pyasc.distributed as dist
    from pyasc.distributed import _engine

    dist.init_process_group(backend="mpi", timeout=600)
    comm = MPI.COMM_WORLD
    host = np.ones(1024, np.float32)
    arr = asc.ones(1024, dtype="float32")
    arr.numpy()

    def mpi_call():
        comm.Allreduce(MPI.IN_PLACE, host, MPI.SUM)

    def pyasc_call():
        dist.all_reduce(arr)

    def python_path():
        _engine.set_mode(_engine.INFO, True)
        _engine.NATIVE_FAST, _engine.FAST = False, None

    from pyasc.distributed import _collectives

    def inline(on):
        def setup():
            _engine.reload_settings()
            _collectives._STEAL = on
        return setup

    def pyasc_async():  # async_op=True + wait(): run by wait() itself (the stream was idle)
        dist.all_reduce(arr, async_op=True).wait()

    fns = {"mpi4py": mpi_call, "pyasc": pyasc_call, "pyasc_python": pyasc_call,
           "pyasc_async": pyasc_async, "pyasc_async_stream": pyasc_async,
           "mpi4py_bcast": lambda: comm.Bcast(host, 0), "pyasc_bcast": lambda: dist.broadcast(arr, src=0)}
    setups = {"mpi4py": _engine.reload_settings, "pyasc": _engine.reload_settings, "pyasc_python": python_path,
              "pyasc_async": inline(True), "pyasc_async_stream": inline(False),
              "mpi4py_bcast": _engine.reload_settings, "pyasc_bcast": _engine.reload_settings}
    k = 20000 if not QUICK else 4000
    times = {name: [] for name in fns}
    for _ in range(max(ROUNDS, 9)):
        for name, fn in fns.items():
            setups[name]()
            kk = k if "async" not in name else k // 10  # (the stream hop: ~50 us a call)
            t0 = time.perf_counter()
            for _ in range(kk):
                fn()
            times[name].append((time.perf_counter() - t0) / kk)
    _engine.reload_settings()
    _collectives._STEAL = _engine._env_flag("ASC_DISTRIBUTED_ASYNC_INLINE", True)
    out = {name: {"min": min(t), "median": sorted(t)[len(t) // 2]} for name, t in times.items()}
    print("JSON " + json.dumps(out), flush=True)
    dist.destroy_process_group()


def bench_overhead(quick=False):
    env = _env()
    for k in ("OMPI_COMM_WORLD_SIZE", "RANK", "WORLD_SIZE"):
        env.pop(k, None)
    env["BENCH_DIST_QUICK"] = "1" if quick else "0"
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--_overhead-worker"], env=env,
                       capture_output=True, text=True, timeout=600)
    line = [x for x in p.stdout.splitlines() if x.startswith("JSON ")]
    if p.returncode or not line:
        print("all_reduce overhead: failed\n", p.stdout[-2000:], p.stderr[-2000:])
        return
    d = json.loads(line[0][5:])
    m = d["mpi4py"]
    print("\n## all_reduce and broadcast of 4 KiB float32 on a 1-rank world (per-call cost above MPI, "
          "no peer to wait for); async_op=True + wait(): run by wait() on the idle stream (inline, the "
          "default) vs the stream's worker (ASC_DISTRIBUTED_ASYNC_INLINE=0)")
    for name, label, peer in (("mpi4py", "mpi4py Allreduce (NumPy)", m), ("pyasc", "pyasc default (C path)", m),
                              ("pyasc_python", "pyasc Python path", m),
                              ("pyasc_async", "async_op + wait (inline)", m),
                              ("pyasc_async_stream", "async_op + wait (stream)", m),
                              ("mpi4py_bcast", "mpi4py Bcast (NumPy)", d["mpi4py_bcast"]),
                              ("pyasc_bcast", "pyasc broadcast (C path)", d["mpi4py_bcast"])):
        r = d[name]
        print(f"{label:>26}: min {r['min'] * 1e6:6.2f} us ({r['min'] / peer['min']:.2f}x), median "
              f"{r['median'] * 1e6:6.2f} us ({r['median'] / peer['median']:.2f}x)")


def _fmt_size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def bench_allreduce(quick, sizes=None):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        print("all_reduce: skipped (mpirun not installed)")
        return None
    sizes = [int(x) for x in sizes.split(",")] if sizes else (SIZES_QUICK if quick else SIZES_FULL)
    cmd = [mpirun, "--oversubscribe", "--bind-to", "none", "-n", "2", "-x", "ASC_NUM_CORES=1",
           "-x", f"BENCH_DIST_MAX_ITERS={MAX_ITERS}", sys.executable,
           os.path.abspath(__file__), "--_allreduce-worker", ",".join(map(str, sizes))]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=1800)
    line = [x for x in p.stdout.splitlines() if x.startswith("JSON ")]
    if p.returncode or not line:
        print("all_reduce: failed\n", p.stdout[-2000:], p.stderr[-2000:])
        return None
    data = json.loads(line[0][5:])
    n = data["world"]
    print(f"\n## all_reduce float32, {n} ranks (1 core each), SUM; time per call (slower rank), busbw = "
          f"bytes/t * 2(n-1)/n")
    if not data.get("native"):
        print("(pyasc.distributed._native is not built: the default mode ran the Python path)")
    print(f"{'size':>8} {'mpi4py us':>10} {'GB/s':>6} | {'default us':>10} {'GB/s':>6} {'bw/mpi':>6} | "
          f"{'py-path us':>10} {'bw/mpi':>6} | {'DETAIL us':>9} {'bw/mpi':>6} | {'OFF us':>8} {'bw/mpi':>6} | "
          f"{'polled us':>9} {'bw/mpi':>6} | {'mpi4py Iallreduce us':>20}")
    for r in data["rows"]:
        b = r["bytes"]

        def bw(t):
            return b / t * 2 * (n - 1) / n / 1e9

        print(f"{_fmt_size(b):>8} {r['mpi4py'] * 1e6:10.1f} {bw(r['mpi4py']):6.2f} | {r['pyasc'] * 1e6:10.1f} "
              f"{bw(r['pyasc']):6.2f} {r['mpi4py'] / r['pyasc']:6.2f} | {r['pyasc_python'] * 1e6:10.1f} "
              f"{r['mpi4py'] / r['pyasc_python']:6.2f} | {r['pyasc_detail'] * 1e6:9.1f} "
              f"{r['mpi4py'] / r['pyasc_detail']:6.2f} | {r['pyasc_off'] * 1e6:8.1f} "
              f"{r['mpi4py'] / r['pyasc_off']:6.2f} | {r['pyasc_polled'] * 1e6:9.1f} "
              f"{r['mpi4py'] / r['pyasc_polled']:6.2f} | {r['mpi4py_nb'] * 1e6:20.1f}")
    print("\nbuffers swapped (tells memory from code): mpi4py Allreduce on a pyasc array's memory, pyasc "
          "all_reduce on mpi4py's NumPy buffer; async_op=True all_reduce (stream task) + wait()")
    print(f"{'size':>8} {'mpi4py@pyasc-mem':>16} {'bw/mpi':>6} | {'pyasc@numpy-mem':>15} {'bw/mpi':>6} | "
          f"{'async+wait us':>13} {'bw/mpi':>6}")
    for r in data["rows"]:
        print(f"{_fmt_size(r['bytes']):>8} {r['mpi4py_pyasc_mem'] * 1e6:16.1f} {r['mpi4py'] / r['mpi4py_pyasc_mem']:6.2f} | "
              f"{r['pyasc_numpy_mem'] * 1e6:15.1f} {r['mpi4py'] / r['pyasc_numpy_mem']:6.2f} | "
              f"{r['pyasc_async'] * 1e6:13.1f} {r['mpi4py'] / r['pyasc_async']:6.2f}")
    print("\nthe other collectives (C path, default INFO check) vs mpi4py on NumPy buffers: time per call in us "
          "(pyasc / mpi4py); size = the largest buffer of the call")
    print(f"{'size':>8} | {'Bcast':>8} {'broadcast':>9} {'ratio':>6} {'async+wait':>10} {'ratio':>6} | "
          f"{'Reduce':>8} {'reduce':>8} {'ratio':>6} | {'Allgather':>9} {'ag_into_t':>9} {'ratio':>6} | "
          f"{'Red_scat':>8} {'rs_tensor':>9} {'ratio':>6}")
    for r in data["rows"]:
        print(f"{_fmt_size(r['bytes']):>8} | {r['bcast_mpi4py'] * 1e6:8.1f} {r['bcast_pyasc'] * 1e6:9.1f} "
              f"{r['bcast_pyasc'] / r['bcast_mpi4py']:5.2f}x {r['bcast_pyasc_async'] * 1e6:10.1f} "
              f"{r['bcast_pyasc_async'] / r['bcast_mpi4py']:5.2f}x | {r['reduce_mpi4py'] * 1e6:8.1f} "
              f"{r['reduce_pyasc'] * 1e6:8.1f} {r['reduce_pyasc'] / r['reduce_mpi4py']:5.2f}x | "
              f"{r['allgather_mpi4py'] * 1e6:9.1f} {r['allgather_pyasc'] * 1e6:9.1f} "
              f"{r['allgather_pyasc'] / r['allgather_mpi4py']:5.2f}x | {r['redscat_mpi4py'] * 1e6:8.1f} "
              f"{r['redscat_pyasc'] * 1e6:9.1f} {r['redscat_pyasc'] / r['redscat_mpi4py']:5.2f}x")
    large = [r for r in data["rows"] if "bcast_pyasc_off" in r]
    if large:
        print("\nlarge broadcast / all_gather_into_tensor, where the time goes: bandwidth vs mpi4py (goal >= 0.95) "
              "of pyasc (INFO check), pyasc with the check OFF, mpi4py on the pyasc arrays' memory, and mpi4py with "
              "the same 16-byte MPI_Allreduce before each call")
        print(f"{'size':>8} | {'bcast INFO':>10} {'OFF':>5} {'mpi@mem':>7} {'mpi+fp':>6} | "
              f"{'ag INFO':>7} {'OFF':>5} {'mpi@mem':>7} {'mpi+fp':>6}")
        for r in large:
            def q(base, key):
                return f"{r[base] / r[key]:.2f}"
            print(f"{_fmt_size(r['bytes']):>8} | {q('bcast_mpi4py', 'bcast_pyasc'):>10} "
                  f"{q('bcast_mpi4py', 'bcast_pyasc_off'):>5} {q('bcast_mpi4py', 'bcast_mpi4py_pyasc_mem'):>7} "
                  f"{q('bcast_mpi4py', 'bcast_mpi4py_fp'):>6} | {q('allgather_mpi4py', 'allgather_pyasc'):>7} "
                  f"{q('allgather_mpi4py', 'allgather_pyasc_off'):>5} "
                  f"{q('allgather_mpi4py', 'allgather_mpi4py_pyasc_mem'):>7} "
                  f"{q('allgather_mpi4py', 'allgather_mpi4py_fp'):>6}")
    small, big = data["rows"][0], data["rows"][-1]
    print(f"4 KiB vs mpi4py (goal <= 1.2x): broadcast {small['bcast_pyasc'] / small['bcast_mpi4py']:.2f}x, reduce "
          f"{small['reduce_pyasc'] / small['reduce_mpi4py']:.2f}x, all_gather_into_tensor "
          f"{small['allgather_pyasc'] / small['allgather_mpi4py']:.2f}x, reduce_scatter_tensor "
          f"{small['redscat_pyasc'] / small['redscat_mpi4py']:.2f}x; async_op all_reduce + wait "
          f"{small['pyasc_async'] / small['mpi4py']:.2f}x mpi4py Allreduce ({small['pyasc_async'] * 1e6:.1f} us vs "
          f"blocking {small['pyasc'] * 1e6:.1f} us: {small['pyasc_async'] / small['pyasc']:.2f}x the sync call; "
          f"always on the stream's worker {small['pyasc_async_stream'] * 1e6:.1f} us, "
          f"{small['pyasc_async_stream'] / small['pyasc']:.2f}x)")
    print(f"4 KiB latency vs mpi4py Allreduce (goal <= 1.2x): default {small['pyasc'] / small['mpi4py']:.2f}x "
          f"(Python path {small['pyasc_python'] / small['mpi4py']:.2f}x), "
          f"DETAIL {small['pyasc_detail'] / small['mpi4py']:.2f}x, OFF {small['pyasc_off'] / small['mpi4py']:.2f}x, "
          f"polled {small['pyasc_polled'] / small['mpi4py']:.2f}x; mpi4py's own Iallreduce+Test "
          f"{small['mpi4py_nb'] / small['mpi4py']:.2f}x")
    print(f"4 KiB best round (least disturbed) vs mpi4py's best: default {small['pyasc_min'] / small['mpi4py_min']:.2f}x, "
          f"Python path {small['pyasc_python_min'] / small['mpi4py_min']:.2f}x, "
          f"OFF {small['pyasc_off_min'] / small['mpi4py_min']:.2f}x (mpi4py {small['mpi4py_min'] * 1e6:.1f} us)")
    print(f"{_fmt_size(big['bytes'])} bandwidth vs mpi4py (goal >= 0.95): default {big['mpi4py'] / big['pyasc']:.2f}, "
          f"Python path {big['mpi4py'] / big['pyasc_python']:.2f}, "
          f"DETAIL {big['mpi4py'] / big['pyasc_detail']:.2f}, OFF {big['mpi4py'] / big['pyasc_off']:.2f}, "
          f"polled {big['mpi4py'] / big['pyasc_polled']:.2f}")
    print(f"{_fmt_size(big['bytes'])} CPU time per call (process, median; spinning while a peer is late counts): "
          f"mpi4py {big['mpi4py_cpu'] * 1e3:.2f} ms, mpi4py on pyasc memory {big['mpi4py_pyasc_mem_cpu'] * 1e3:.2f}, "
          f"default {big['pyasc_cpu'] * 1e3:.2f} ({big['pyasc_cpu'] / big['mpi4py_cpu']:.2f}x), OFF "
          f"{big['pyasc_off_cpu'] * 1e3:.2f} ({big['pyasc_off_cpu'] / big['mpi4py_cpu']:.2f}x), default on NumPy "
          f"memory {big['pyasc_numpy_mem_cpu'] * 1e3:.2f}")
    print("bandwidth vs mpi4py per size (goal >= 0.95 at every size): default " + ", ".join(
        f"{_fmt_size(r['bytes'])} {r['mpi4py'] / r['pyasc']:.2f}" for r in data["rows"]))
    # Above 16 KiB (2 ranks) the INFO check is a 16-byte fingerprint all-reduce before the data:
    # the price of that round trip alone is mpi4py's call with the same all-reduce before it
    print("where the bandwidth goes (vs mpi4py; above 16 KiB the check is one 16-byte all-reduce first): "
          "default / check OFF / mpi4py with that 16-byte all-reduce first: " + "; ".join(
              f"{_fmt_size(r['bytes'])} {r['mpi4py'] / r['pyasc']:.2f} / {r['mpi4py'] / r['pyasc_off']:.2f} / "
              f"{r['mpi4py'] / r['mpi4py_fp']:.2f}" for r in data["rows"]))
    if data.get("gloo") and "gloo" in data["rows"][0]:
        print(f"\ntorch {data['gloo']} torch.distributed gloo (TCP on 127.0.0.1, 1 thread per rank), same run, "
              "interleaved: time per call in us, and pyasc's bandwidth relative to gloo's (> 1: pyasc faster)")
        print(f"{'size':>8} | {'gloo all_reduce':>15} {'pyasc':>8} {'bw/gloo':>7} {'mpi4py/gloo':>11} | "
              f"{'gloo bcast':>10} {'broadcast':>9} {'bw/gloo':>7} | {'gloo ag_into_t':>14} {'ag_into_t':>9} "
              f"{'bw/gloo':>7}")
        for r in data["rows"]:
            print(f"{_fmt_size(r['bytes']):>8} | {r['gloo'] * 1e6:15.1f} {r['pyasc'] * 1e6:8.1f} "
                  f"{r['gloo'] / r['pyasc']:7.2f} {r['gloo'] / r['mpi4py']:11.2f} | {r['bcast_gloo'] * 1e6:10.1f} "
                  f"{r['bcast_pyasc'] * 1e6:9.1f} {r['bcast_gloo'] / r['bcast_pyasc']:7.2f} | "
                  f"{r['allgather_gloo'] * 1e6:14.1f} {r['allgather_pyasc'] * 1e6:9.1f} "
                  f"{r['allgather_gloo'] / r['allgather_pyasc']:7.2f}")
    else:
        print("torch.distributed gloo: skipped (torch is not installed, or BENCH_DIST_GLOO=0)")
    return data["rows"]


def _spread(runs):
    """The default mode's bandwidth ratio (and the 4 KiB latency ratios) over repeated runs:
    min / median / max per size, so that one lucky or unlucky run does not decide."""
    runs = [r for r in runs if r]
    if len(runs) < 2:
        return
    print(f"\n## spread over {len(runs)} runs (min / median / max)")

    def mmm(vals):
        v = sorted(vals)
        return f"{v[0]:.2f} / {v[len(v) // 2]:.2f} / {v[-1]:.2f}"

    for i, row in enumerate(runs[0]):
        rows = [run[i] for run in runs]
        print(f"{_fmt_size(row['bytes']):>8}: all_reduce bw/mpi4py {mmm([r['mpi4py'] / r['pyasc'] for r in rows])}; "
              f"OFF {mmm([r['mpi4py'] / r['pyasc_off'] for r in rows])}; time ratios broadcast "
              f"{mmm([r['bcast_pyasc'] / r['bcast_mpi4py'] for r in rows])}, reduce "
              f"{mmm([r['reduce_pyasc'] / r['reduce_mpi4py'] for r in rows])}, all_gather_into_tensor "
              f"{mmm([r['allgather_pyasc'] / r['allgather_mpi4py'] for r in rows])}, reduce_scatter_tensor "
              f"{mmm([r['redscat_pyasc'] / r['redscat_mpi4py'] for r in rows])}")


# ------------------------------------------------------------------ 2. data-parallel step

def bench_dp(quick):
    mpirun = shutil.which("mpirun")
    if not mpirun:
        print("DP step: skipped (mpirun not installed)")
        return
    ex = os.path.join(REPO, "examples", "distributed", "train_mlp.py")
    args = ["--samples", "4096" if not quick else "2048", "--features", "256", "--hidden", "1024", "--outputs", "16",
            "--batch", "512", "--epochs", "1"]
    env = _env()
    one = subprocess.run([sys.executable, ex, *args], env={**env, "ASC_NUM_CORES": "2"}, capture_output=True,
                         text=True, timeout=1800)
    two = subprocess.run([mpirun, "--oversubscribe", "--bind-to", "none", "-n", "2", "-x", "ASC_NUM_CORES=1",
                          sys.executable, ex, *args], env=env, capture_output=True, text=True, timeout=1800)
    two_ag = [subprocess.run([mpirun, "--oversubscribe", "--bind-to", "none", "-n", "2", "-x", "ASC_NUM_CORES=1",
                              sys.executable, ex, *args, "--autograd", "--bucket-mb", "0.25", *extra], env=env,
                             capture_output=True,
                             text=True, timeout=1800) for extra in ([], ["--no-overlap"])]
    res = []
    for p in (one, two, *two_ag):
        line = [x for x in p.stdout.splitlines() if x.startswith("{")]
        if p.returncode or not line:
            print("DP step: failed\n", p.stdout[-2000:], p.stderr[-2000:])
            return
        res.append(json.loads(line[0]))
    t1, t2 = res[0]["median_step_s"], res[1]["median_step_s"]
    print(f"\n## data-parallel MLP step (256-1024-16, global batch 512, {res[0]['steps']} steps)")
    print(f"1 process x 2 cores: {t1 * 1e3:.1f} ms/step; 2 processes x 1 core: {t2 * 1e3:.1f} ms/step; "
          f"ratio (1x2 / 2x1) {t1 / t2:.2f} (> 1: data parallel is faster)")
    d = max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(res[0]["losses"], res[1]["losses"]))
    print(f"largest relative loss difference between the two runs: {d:.2e}")
    to, tn = res[2]["median_step_s"], res[3]["median_step_s"]
    print(f"2 processes x 1 core, asc.value_and_grad, 0.25 MiB buckets: all-reduce overlapped with the backward "
          f"(DataParallel.value_and_grad) {to * 1e3:.1f} ms/step, after the backward (reduce_gradients) "
          f"{tn * 1e3:.1f} ms/step: ratio (after / overlapped) {tn / to:.2f}; same losses: "
          f"{res[2]['losses'] == res[3]['losses']}")


# ------------------------------------------------------------------ 3. Dask

def _chunk_numpy(block_id, rows, cols):
    import numpy as np
    i = block_id[0]
    x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    x *= np.float32(1e-7)
    x += np.float32(i * 0.001 - 0.5)
    return x


def _chunk_pyasc(block_id, rows, cols):
    import pyasc as asc
    i = block_id[0]
    return asc.arange(rows * cols, dtype="float32").reshape(rows, cols) * 1e-7 + (i * 0.001 - 0.5)


def _dask_run(client, backend, gib):
    import dask.array as da
    import numpy as np

    import pyasc as asc
    cols = 1 << 12
    rows = (32 << 20) // 4 // cols  # 32 MiB chunks
    nchunks = max(1, int(gib * (1 << 30)) // (rows * cols * 4))
    mk = _chunk_pyasc if backend == "pyasc" else _chunk_numpy
    meta = asc.empty((0, 0), dtype="float32") if backend == "pyasc" else np.empty((0, 0), np.float32)
    x = da.map_blocks(lambda block_id=None: mk(block_id, rows, cols), chunks=((rows,) * nchunks, (cols,)),
                      dtype=np.float32, meta=meta)
    y = (x * x + 2 * x + 1).sum() + da.sqrt(abs(x)).sum()
    t0 = time.perf_counter()
    v = client.compute(y, sync=True)
    return time.perf_counter() - t0, float(np.asarray(v)), nchunks * rows * cols * 4


def bench_dask(gib, rounds=4):
    """The Dask workload of ``gib`` GiB, split into ``rounds`` rounds of gib/rounds GiB in which
    NumPy and pyasc chunks take turns (the first backend alternates): a change of the machine's
    load during the run then weighs on both alike (one NumPy run followed by one pyasc run read
    0.71 where each chunk alone was 3.1x faster with pyasc: the load rose between the two)."""
    try:
        import distributed
    except ImportError:
        print("Dask: skipped (distributed not installed)")
        return
    import pyasc.dask as pdask
    rounds = max(1, rounds)
    part = gib / rounds
    tn = tp = 0.0
    vn = vp = 0.0
    nbytes = 0
    per_round = []
    import dask
    # Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536, which turns glibc's
    # dynamic mmap threshold off: every buffer above 128 KiB is then a fresh mmap whose pages
    # fault (and are zeroed) on first touch. Measured on one 32 MiB chunk of this workload in
    # one process: pyasc 0.38 s -> 2.1 s with that variable (5.5x), NumPy 1.0 s -> 3.2 s;
    # MALLOC_MMAP_THRESHOLD_=64 MiB beside it brought pyasc back to 0.6 s. Both backends run on
    # the same cluster, so the setting is theirs alike (docs/distributed.md, Dask).
    env_key = "distributed.nanny.pre-spawn-environ"
    pre = dict(dask.config.get(env_key, {}))
    pre.setdefault("MALLOC_MMAP_THRESHOLD_", str(64 << 20))
    with dask.config.set({env_key: pre}), \
            distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None,
                                     host="127.0.0.1", env={"ASC_NUM_CORES": "1"}, memory_limit=0) as cluster, \
            distributed.Client(cluster) as client:
        pdask.register_workers(client)
        _dask_run(client, "numpy", 0.05)  # warm-up both (imports on the workers)
        _dask_run(client, "pyasc", 0.05)
        for i in range(rounds):
            order = ("numpy", "pyasc") if i % 2 == 0 else ("pyasc", "numpy")
            got = {}
            for backend in order:
                got[backend] = _dask_run(client, backend, part)
            tn += got["numpy"][0]
            tp += got["pyasc"][0]
            vn += got["numpy"][1]
            vp += got["pyasc"][1]
            nbytes += got["numpy"][2]
            per_round.append(got["numpy"][0] / got["pyasc"][0])
    print(f"\n## Dask: sum(x*x + 2x + 1) + sum(sqrt|x|) over {nbytes / (1 << 30):.2f} GiB float32 in 32 MiB chunks "
          f"({rounds} rounds of {part:.2f} GiB, NumPy and pyasc chunks taking turns), LocalCluster 2 worker processes "
          f"x 1 thread (ASC_NUM_CORES=1, MALLOC_MMAP_THRESHOLD_={pre['MALLOC_MMAP_THRESHOLD_']})")
    print(f"NumPy chunks {tn:.2f} s; pyasc chunks {tp:.2f} s; ratio {tn / tp:.2f} (goal >= 1.5); per round "
          + ", ".join(f"{r:.2f}" for r in per_round)
          + f"; results {vn:.6g} vs {vp:.6g} (rel diff {abs(vn - vp) / abs(vn):.1e})")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_overhead-worker":
        _overhead_worker()
        return 0
    if argv and argv[0] == "--_allreduce-worker":
        _allreduce_worker([int(s) for s in argv[1].split(",")])
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="all_reduce up to 16 MiB, Dask on 0.5 GiB, smaller DP run")
    p.add_argument("--only", choices=["allreduce", "dp", "dask"], default=None)
    p.add_argument("--repeat", type=int, default=1,
                   help="runs of the all_reduce/collectives part (the spread of the ratios is printed)")
    p.add_argument("--sizes", default=None,
                   help="comma-separated sizes in bytes for the all_reduce part (default: 4 KiB .. 256 MiB, "
                        "quick: up to 16 MiB)")
    p.add_argument("--dask-gib", type=float, default=None, help="Dask workload size in GiB (default 4, quick 0.5)")
    p.add_argument("--dask-rounds", type=int, default=4,
                   help="rounds in which NumPy and pyasc chunks take turns (each gib/rounds GiB)")
    p.add_argument("--max-iters", type=int, default=None,
                   help="most calls per timing loop of all_reduce (default 2000; fewer on a loaded machine)")
    args = p.parse_args(argv)
    global MAX_ITERS
    if args.max_iters is not None:
        MAX_ITERS = max(3, args.max_iters)
    gib = args.dask_gib if args.dask_gib is not None else (0.5 if args.quick else 4.0)
    print(f"# bench_distributed: {os.cpu_count()} CPUs, load average {_load()} at start"
          f"{' (quick)' if args.quick else ''}")
    if args.only in (None, "allreduce"):
        bench_overhead(args.quick)
        runs = [bench_allreduce(args.quick, args.sizes) for _ in range(max(1, args.repeat))]
        _spread(runs)
    if args.only in (None, "dp"):
        bench_dp(args.quick)
    if args.only in (None, "dask"):
        bench_dask(gib, args.dask_rounds)
    print(f"\nload average at the end: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
