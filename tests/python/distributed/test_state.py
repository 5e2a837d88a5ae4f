"""pyasc.distributed in one process without MPI traffic: state errors, ReduceOp, imports."""

import subprocess
import sys

import numpy as np
import pytest

import pyasc as asc
import pyasc.distributed as dist


def test_import_does_not_start_mpi():
    code = "import sys, pyasc, pyasc.distributed; print('mpi4py.MPI' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("call", [
    lambda: dist.all_reduce(asc.ones(3)),
    lambda: dist.broadcast(asc.ones(3), src=0),
    lambda: dist.barrier(),
    lambda: dist.get_rank(),
    lambda: dist.get_world_size(),
    lambda: dist.new_group([0]),
    lambda: dist.send(asc.ones(2), dst=0),
    lambda: dist.destroy_process_group(),
    lambda: dist.DataParallel([asc.ones(2)]),
])
def test_collectives_before_init_raise(call):
    assert not dist.is_initialized()
    with pytest.raises(dist.DistStateError, match="has not been initialized") as e:
        call()
    assert isinstance(e.value, asc.AscendError) and isinstance(e.value, ValueError)


def test_error_classes():
    assert issubclass(dist.DistTimeoutError, dist.DistBackendError)
    assert issubclass(dist.DistTimeoutError, TimeoutError)
    assert issubclass(dist.DistBackendError, RuntimeError)
    assert issubclass(dist.CollectiveMismatchError, ValueError)
    assert issubclass(dist.DistError, asc.AscendError)


def test_reduce_op_names():
    assert [op.name for op in dist.ReduceOp] == ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
    assert dist.is_available() and dist.is_mpi_available()


def test_init_arguments_checked(run_python):
    # Singleton MPI (no mpirun): world size 1; bad arguments raise before anything starts.
    code = """
        import pyasc.distributed as dist
        for kw in (dict(backend="tcp"), dict(init_method="tcp://127.0.0.1:1"), dict(world_size=4),
                   dict(rank=3), dict(timeout=-1), dict(store=object())):
            try:
                dist.init_process_group(**kw)
                print("no error", kw)
            except ValueError as e:
                print("ok", type(e).__name__)
        dist.init_process_group(backend="hccl", timeout=30)
        print(dist.get_rank(), dist.get_world_size(), dist.get_backend())
        import pyasc as asc, numpy as np
        x = asc.arange(4, dtype="float32")
        dist.all_reduce(x, op=dist.ReduceOp.AVG)
        print(np.asarray(x).tolist())
        dist.destroy_process_group()
        dist.init_process_group()  # again after destroy, as torch allows
        print(dist.is_initialized())
    """
    p = run_python(code, env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}, timeout=60)
    lines = p.stdout.split("\n")
    assert lines[:6] == ["ok DistStateError"] * 6, p.stdout + p.stderr
    assert lines[6] == "0 1 hccl" and lines[7] == "[0.0, 1.0, 2.0, 3.0]" and lines[8] == "True", p.stdout + p.stderr


def test_sampler_errors():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        dist.DistributedSampler(10, num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="num_replicas"):
        dist.DistributedSampler(10, num_replicas=0, rank=0)
    assert np.asarray(list(dist.DistributedSampler(0, num_replicas=2, rank=0))).size == 0


def test_every_public_name_has_a_docstring():
    import inspect

    import pyasc.tools.run as launcher
    missing = []
    for mod in (dist, launcher):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not (callable(obj) or inspect.isclass(obj)):
                continue
            if not (inspect.getdoc(obj) or "").strip():
                missing.append(f"{mod.__name__}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not callable(member) and not isinstance(member, property):
                        continue
                    if not (getattr(member, "__doc__", None) or "").strip():
                        missing.append(f"{mod.__name__}.{name}.{attr}")
    assert not missing, missing
