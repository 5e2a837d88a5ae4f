"""pyasc-run: starts N processes of a script for pyasc.distributed (like torchrun / mpirun).

Usage::

    pyasc-run -n 4 train.py --epochs 3          # 4 ranks on this machine
    pyasc-run -n 8 --hostfile hosts train.py    # ranks on the machines of an MPI hostfile
    pyasc-run -n 2 -m package.module args       # run a module
    python -m pyasc.tools.run -n 2 script.py

Built on ``mpirun`` (OpenMPI). Each process gets ``RANK``, ``WORLD_SIZE``,
``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` (for
code written against torchrun's variables; MPI itself wires the ranks) and,
unless ``--no-split-cores``, ``ASC_NUM_CORES`` = the machine's cores (or the
``ASC_NUM_CORES`` given to the launcher) divided among its local ranks, at
least 1, so ranks do not oversubscribe the cores. Exit status: the job's.
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import socket
import subprocess
import sys

__all__ = ["main", "build_command"]

_WORKER_FLAG = "--_pyasc-worker"
# Environment forwarded to remote ranks (mpirun -x): the local ones inherit everything.
_FORWARD_PREFIXES = ("ASC_", "PYASC_", "OMP_", "OPENBLAS_")
_FORWARD_NAMES = ("PYTHONPATH", "PATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "MASTER_ADDR", "MASTER_PORT")


def _parser():
    p = argparse.ArgumentParser(
        prog="pyasc-run",
        description="Start N processes of a Python script (or -m module) for pyasc.distributed, over mpirun.")
    p.add_argument("-n", "--nproc", "--np", dest="nproc", type=int, required=True,
                   help="number of processes (ranks) in total")
    p.add_argument("--hostfile", help="MPI hostfile: one machine per line ('host slots=N'); default: this machine")
    p.add_argument("--host", help="comma-separated host list (mpirun --host)")
    p.add_argument("--oversubscribe", action="store_true",
                   help="allow more ranks than cores/slots (implied on one machine when -n exceeds the cores)")
    p.add_argument("--no-split-cores", action="store_true", help="leave ASC_NUM_CORES as it is in every rank")
    p.add_argument("--master-port", type=int, default=None, help="MASTER_PORT to export (default: a free port)")
    p.add_argument("--mpirun", default=None, help="the mpirun executable (default: mpirun on PATH)")
    p.add_argument("--mpirun-args", default="", help="extra mpirun arguments, one string (e.g. '--mca btl tcp,self')")
    p.add_argument("--dry-run", action="store_true", help="print the mpirun command and exit")
    p.add_argument("-m", dest="module", action="store_true", help="run the target as a module (python -m)")
    p.add_argument("target", help="script path (or module name with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return p


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _master_addr(args):
    if args.host:
        return args.host.split(",")[0].split(":")[0]
    if args.hostfile:
        try:
            with open(args.hostfile, encoding="utf-8") as f:
                for line in f:
                    line = line.split("#", 1)[0].strip()
                    if line:
                        return line.split()[0]
        except OSError as e:
            raise SystemExit(f"pyasc-run: cannot read hostfile {args.hostfile!r}: {e}") from None
        raise SystemExit(f"pyasc-run: hostfile {args.hostfile!r} names no host")
    return "127.0.0.1"


def build_command(args, environ=None):
    """The mpirun argument list for parsed ``args`` (see :func:`main`)."""
    env = os.environ if environ is None else environ
    mpirun = args.mpirun or shutil.which("mpirun")
    if not mpirun:
        raise SystemExit("pyasc-run: mpirun not found (install OpenMPI: Debian packages openmpi-bin, "
                         "libopenmpi-dev; scripts/bootstrap.sh does)")
    if args.nproc < 1:
        raise SystemExit(f"pyasc-run: -n must be >= 1, got {args.nproc}")
    cmd = [mpirun, "-n", str(args.nproc)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")  # containers run as root; mpirun refuses it otherwise
    if args.hostfile:
        cmd += ["--hostfile", args.hostfile]
    if args.host:
        cmd += ["--host", args.host]
    one_machine = not args.hostfile and not args.host
    if args.oversubscribe or (one_machine and args.nproc > (os.cpu_count() or 1)):
        cmd.append("--oversubscribe")
    # pyasc runs its own core workers: MPI's default binding of a rank to one core would pin them all.
    cmd += ["--bind-to", "none"]
    if args.mpirun_args:
        cmd += args.mpirun_args.split()
    fwd = sorted(k for k in env if k.startswith(_FORWARD_PREFIXES) or k in _FORWARD_NAMES)
    for k in fwd:
        cmd += ["-x", k]
    # The worker runs this file as a script, not `-m pyasc.tools.run`: importing the package
    # would start pyasc's device before ASC_NUM_CORES is set for the rank.
    cmd += [sys.executable, os.path.abspath(__file__), _WORKER_FLAG]
    if args.no_split_cores:
        cmd.append("--no-split-cores")
    if args.module:
        cmd.append("-m")
    cmd.append(args.target)
    cmd += args.args
    return cmd


def _worker(argv):
    """Inside each rank: torchrun's variables from OpenMPI's, the core split, then the target."""
    split = True
    module = False
    while argv and argv[0] in ("--no-split-cores", "-m"):
        if argv[0] == "-m":
            module = True
        else:
            split = False
        argv = argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # run as a script: the tools directory is not an import root
    env = os.environ
    rank = env.get("OMPI_COMM_WORLD_RANK", env.get("PMI_RANK", "0"))
    size = env.get("OMPI_COMM_WORLD_SIZE", env.get("PMI_SIZE", "1"))
    lrank = env.get("OMPI_COMM_WORLD_LOCAL_RANK", "0")
    lsize = env.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1")
    env.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=lrank, LOCAL_WORLD_SIZE=lsize)
    env.setdefault("MASTER_ADDR", "127.0.0.1")
    env.setdefault("MASTER_PORT", "29500")
    if split:
        try:
            cores = int(env.get("ASC_NUM_CORES") or 0) or (len(os.sched_getaffinity(0))
                                                          if hasattr(os, "sched_getaffinity") else os.cpu_count())
        except ValueError:
            cores = os.cpu_count() or 1
        env["ASC_NUM_CORES"] = str(max(1, int(cores) // max(1, int(lsize))))
    if not argv:
        raise SystemExit("pyasc-run: no script given")
    target, rest = argv[0], argv[1:]
    if module:
        sys.argv = [target] + rest
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [target] + rest
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
    return 0


def main(argv=None):
    """pyasc-run's entry point: parses ``argv`` (default ``sys.argv[1:]``), runs mpirun and
    returns its exit status (inside a rank: sets the rank's variables and runs the target)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == _WORKER_FLAG:
        return _worker(argv[1:])
    args = _parser().parse_args(argv)
    env = dict(os.environ)
    env.setdefault("MASTER_ADDR", _master_addr(args))
    env["MASTER_PORT"] = str(args.master_port or env.get("MASTER_PORT") or _free_port())
    cmd = build_command(args, env)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
