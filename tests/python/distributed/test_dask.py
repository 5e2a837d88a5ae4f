"""pyasc arrays as Dask chunks: dispatch registrations, serialisation, a 2-process LocalCluster."""

import pickle

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pdask = pytest.importorskip("pyasc.dask")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((120, 90)).astype(np.float32)
DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float16, ml_dtypes.bfloat16, np.float32,
          np.float64, np.complex64, np.complex128]


def _np(x):
    return np.asarray(x.numpy() if isinstance(x, asc.ndarray) else x)


@pytest.fixture
def sync():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_chunks_are_pyasc(sync):
    x = da.from_array(asc.asarray(A), chunks=(50, 40))
    assert isinstance(x._meta, asc.ndarray) and pdask.is_valid_array_meta(x._meta)
    y = pdask.from_array(A, chunks=(50, 40))
    assert isinstance(y._meta, asc.ndarray)
    for d in (x, y):
        blocks = d.map_blocks(lambda b: asc.full((1, 1), float(isinstance(b, asc.ndarray))), chunks=(1, 1),
                              meta=asc.empty((0, 0)))
        assert _np(blocks.compute()).all()


@pytest.mark.parametrize("build", ["dask_from_pyasc", "pyasc_dask_from_numpy"])
def test_operations_equal_numpy(sync, build):
    x = da.from_array(asc.asarray(A), chunks=(50, 40)) if build == "dask_from_pyasc" else \
        pdask.from_array(A, chunks=(50, 40))
    cases = {
        "blockwise": (x * 2 + 1, A * 2 + 1),
        "sum0": ((x * 2 + 1).sum(axis=0), (A * 2 + 1).sum(axis=0)),
        "mean": (x.mean(), A.mean()),
        "std1": (x.std(axis=1), A.std(axis=1)),
        "max1": (x.max(axis=1), A.max(axis=1)),
        "argmax0": (x.argmax(axis=0), A.argmax(axis=0)),
        "map_blocks": (x.map_blocks(asc.exp, meta=asc.empty((0, 0), dtype="float32")), np.exp(A)),
        "rechunk": (x.rechunk((120, 30)), A),
        "matmul": (x @ x.T, A @ A.T),
        "tensordot": (da.tensordot(x, x, axes=([0], [0])), np.tensordot(A, A, axes=([0], [0]))),
        "concatenate": (da.concatenate([x, x[:10]], axis=0), np.concatenate([A, A[:10]], axis=0)),
        "slice_T": (x[5:100:3, ::-2].T + 0, A[5:100:3, ::-2].T),
        "where": (da.where(x > 0, x, 0), np.where(A > 0, A, 0)),
        "nansum": (da.nansum(x), np.nansum(A)),
        "divide_int": (da.arange(10, chunks=3).map_blocks(asc.asarray, meta=asc.empty((0,), dtype="int64")) / 3,
                       np.arange(10) / 3),
    }
    for name, (lazy, want) in cases.items():
        got = lazy.compute()
        assert isinstance(got, (asc.ndarray, np.generic, float)), (name, type(got))
        if isinstance(got, asc.ndarray):
            assert got.dtype == np.asarray(want).dtype, name
        np.testing.assert_allclose(_np(got), want, rtol=2e-5, atol=2e-4, err_msg=name)


def test_percentile_single_chunk(sync):
    v = A[:, 0].copy()
    x = da.from_array(asc.asarray(v), chunks=-1)
    np.testing.assert_allclose(_np(da.percentile(x, [10, 50, 90]).compute()), np.percentile(v, [10, 50, 90]),
                               rtol=1e-6)


def test_tokenize_by_value():
    t = dask.base.tokenize
    assert t(asc.asarray(A)) == t(asc.asarray(A.copy()))
    assert t(asc.asarray(A)) != t(asc.asarray(A + 1))
    assert t(asc.asarray(A)) != t(asc.asarray(A.astype(np.float64)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_serialize_roundtrip(dtype):
    a = (RNG.standard_normal((3, 5)) * 10).astype(dtype)
    for x in (asc.asarray(a), asc.asarray(a)[::2, 1:4], asc.asarray(a)[0, 0], asc.asarray(a)[:0]):
        header, frames = pdask.serialize(x)
        assert set(header) == {"dtype", "shape"} and len(frames) == 1
        y = pdask.deserialize(header, frames)
        assert isinstance(y, asc.ndarray) and y.dtype == x.dtype and y.shape == x.shape
        assert _np(y).tobytes() == _np(x).tobytes()
        z = pickle.loads(pickle.dumps(x))  # Dask's task graphs (copyreg reducer)
        assert _np(z).tobytes() == _np(x).tobytes() and z.shape == x.shape


def test_serialize_uses_dask_family():
    from distributed.protocol import deserialize, serialize
    header, frames = serialize(asc.asarray(A), serializers=["dask"])
    assert header["serializer"] == "dask"
    back = deserialize(header, frames)
    assert isinstance(back, asc.ndarray) and np.array_equal(_np(back), A)


@pytest.mark.parametrize("header,frames,exc,match", [
    ({"dtype": "object", "shape": [1]}, [b"\0" * 8], TypeError, "unsupported dtype 'object'"),
    ({"dtype": "float32; import os", "shape": [1]}, [b"\0" * 4], TypeError, "unsupported dtype"),
    ({"dtype": "float32", "shape": [2, -1]}, [b""], ValueError, "bad shape"),
    ({"dtype": "float32", "shape": "3"}, [b"\0" * 12], ValueError, "bad shape"),
    ({"dtype": "float32", "shape": [3]}, [b"\0" * 11], ValueError, "11 bytes for float32"),
    ({"dtype": "float64", "shape": [1 << 40]}, [b"\0" * 8], ValueError, "bytes for float64"),
])
def test_deserialize_rejects_bad_headers(header, frames, exc, match):
    with pytest.raises(exc, match=match) as e:
        pdask.deserialize(header, frames)
    assert isinstance(e.value, asc.AscendError)


def test_local_cluster_two_worker_processes():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None,
                                  host="127.0.0.1", worker_class=distributed.Nanny) as cluster, \
            distributed.Client(cluster) as client:
        pdask.register_workers(client)
        assert all(client.run(lambda: __import__("sys").modules.get("pyasc.dask") is not None).values())
        x = pdask.from_array(A, chunks=(40, 45))
        y = da.from_array(asc.asarray(A), chunks=(60, 90))
        # every chunk a worker computes on is a pyasc array
        kinds = x.map_blocks(lambda b: asc.full((1, 1), float(isinstance(b, asc.ndarray))), chunks=(1, 1),
                             meta=asc.empty((0, 0)))
        checks = {
            "kinds": (kinds, np.ones((3, 2))),
            "sum": ((x * 2 + 1).sum(axis=0), (A * 2 + 1).sum(axis=0)),
            "mean": (y.mean(axis=1), A.mean(axis=1)),
            "map_blocks": (y.map_blocks(asc.tanh, meta=asc.empty((0, 0), dtype="float32")), np.tanh(A)),
            "rechunk": (x.rechunk((120, 15)) * 1, A),
            "matmul": (x @ y.T, A @ A.T),
        }
        results = client.compute([c[0] for c in checks.values()], sync=True)
        for (name, (_, want)), got in zip(checks.items(), results):
            assert isinstance(got, asc.ndarray), (name, type(got))
            np.testing.assert_allclose(_np(got), want, rtol=2e-5, atol=2e-4, err_msg=name)
        # results travel worker -> client through pyasc.dask's serializer
        who = client.submit(lambda: asc.arange(5, dtype="int16") * 3).result()
        assert isinstance(who, asc.ndarray) and np.array_equal(_np(who), np.arange(5, dtype=np.int16) * 3)
