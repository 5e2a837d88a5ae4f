"""The .om container (models/om.py): asc.save_as_om / asc.load_model / InferenceSession on .om round
trips with the same outputs; truncated, corrupted, foreign and newer files are refused clearly."""

import hashlib
import struct
import zlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

import pyasc as asc  # noqa: E402
from pyasc.models import om  # noqa: E402

from test_passes import X, resnet_block  # noqa: E402
from test_session import X as SMALL_X, small_model  # noqa: E402


@pytest.fixture()
def onnx_path(tmp_path):
    p = tmp_path / "block.onnx"
    onnx.save(resnet_block(), str(p))
    return p


def test_round_trip_from_session_path_and_bytes(tmp_path, onnx_path):
    ref = asc.InferenceSession(str(onnx_path))
    want = ref.run(None, {"x": X})[0]
    a = asc.save_as_om(ref, tmp_path / "a.om")
    b = asc.save_as_om(str(onnx_path), str(tmp_path / "b.om"))
    c = asc.save_as_om(onnx_path.read_bytes(), tmp_path / "c.om")
    for p in (a, b, c):
        s = asc.load_model(p)
        assert s.om_metadata["format"] == "pyasc.om" and s.om_metadata["graph"]["rewrites"]["fuse_conv"] == 3
        # the graph is stored optimised: the fused nodes, BatchNorms gone
        assert s.om_metadata["graph"]["nodes"] == 2
        np.testing.assert_array_equal(s.run(None, {"x": X})[0], want)
        assert [(i.name, i.shape, i.type) for i in s.get_inputs()] == [("x", ["n", 4, 6, 6], "tensor(float)")]
    # InferenceSession reads .om files and bytes too; a session from an .om saves again unchanged
    s = asc.InferenceSession(open(a, "rb").read())
    np.testing.assert_array_equal(s.run(None, {"x": X})[0], want)
    d = asc.save_as_om(asc.InferenceSession(str(a)), tmp_path / "d.om")
    assert om.read(d).onnx == om.read(a).onnx
    # an .om path re-written as is
    e = asc.save_as_om(str(a), tmp_path / "e.om")
    assert open(e, "rb").read() == open(a, "rb").read()


def test_metadata_and_header_layout(tmp_path, onnx_path):
    p = asc.save_as_om(str(onnx_path), tmp_path / "m.om", precision_mode="force_fp32",
                       input_shape={"x": [3, 4, 6, 6]})
    data = open(p, "rb").read()
    magic, ver, hsize, flags, count, plen, digest, crc = struct.unpack("<8sHHIIQ32sI", data[:64])
    assert (magic, ver, hsize, flags, count) == (b"PYASCOM\x00", 1, 64, 0, 2)
    assert plen == len(data) - 64 and digest == hashlib.sha256(data[64:]).digest()
    assert crc == zlib.crc32(data[:60])
    tag, _, n = struct.unpack("<4sIQ", data[64:80])
    assert tag == b"META"
    f = om.read(p)
    assert f.meta["precision_mode"] == "force_fp32" and f.meta["compute_dtype"] == "float32"
    assert f.meta["inputs"][0]["shape"] == [3, 4, 6, 6] and f.meta["source"]["name"] == "block.onnx"
    s = asc.load_model(p)
    with pytest.raises(asc.AscendValueError, match=r"input 'x': invalid dimensions at index \[0\]"):
        s.run(None, {"x": X})
    np.testing.assert_allclose(s.run(None, {"x": np.concatenate([X, X[:1]])})[0][:2],
                               asc.InferenceSession(str(onnx_path)).run(None, {"x": X})[0], rtol=1e-6)


def _rewrite_header(data, **fields):
    names = ["magic", "ver", "hsize", "flags", "count", "plen", "digest", "crc"]
    vals = dict(zip(names, struct.unpack("<8sHHIIQ32sI", data[:64])))
    vals.update(fields)
    head = struct.pack("<8sHHIIQ32sI", *[vals[n] for n in names])
    if "crc" not in fields:
        head = head[:60] + struct.pack("<I", zlib.crc32(head[:60]))
    return head + data[64:]


def test_bad_files_are_refused_clearly(tmp_path, onnx_path):
    good = open(asc.save_as_om(str(onnx_path), tmp_path / "g.om"), "rb").read()

    def refused(data, match, cls=asc.AscendValueError):
        p = tmp_path / "bad.om"
        p.write_bytes(data)
        with pytest.raises(cls, match=match):
            asc.load_model(str(p))
        with pytest.raises(cls, match=match.replace("bad.om", "<bytes>")):
            asc.InferenceSession(data)

    refused(good[:40], "bad.om' is truncated: 40 bytes, shorter than the 64-byte header")
    refused(good[:-10], r"bad.om' is truncated: \d+ bytes, the header announces \d+")
    refused(good + b"\x00" * 8, "bad.om' is corrupted: 8 bytes after the payload")
    flipped = bytearray(good)
    flipped[200] ^= 0x40
    refused(bytes(flipped), r"bad.om' is corrupted: payload checksum \(SHA-256\) mismatch")
    hdr = bytearray(good)
    hdr[20] ^= 1
    refused(bytes(hdr), r"bad.om' is corrupted: header checksum \(CRC-32\) mismatch")
    refused(_rewrite_header(good, ver=2), "format version 2; this pyasc reads versions up to 1",
            asc.AscendNotImplementedError)
    refused(_rewrite_header(good, flags=4), "sets header flags 0x4", asc.AscendNotImplementedError)
    # a payload without its ONNX section (checksums valid)
    payload = struct.pack("<4sIQ", b"META", 0, 2) + b"{}" + b"\x00" * 6
    data = _rewrite_header(b"PYASCOM\x00" + b"\x00" * 56 + payload, ver=1, hsize=64, flags=0, count=1,
                           plen=len(payload), digest=hashlib.sha256(payload).digest())
    refused(data, "bad.om' is corrupted: no ONNX section")
    # a META that is not JSON
    p2 = struct.pack("<4sIQ", b"META", 0, 8) + b"not json" + struct.pack("<4sIQ", b"ONNX", 0, 0)
    data = _rewrite_header(good[:64], count=2, plen=len(p2), digest=hashlib.sha256(p2).digest())[:64] + p2
    refused(data, "bad.om' is corrupted: metadata is not JSON")
    # an ONNX section that is not ONNX
    bad_onnx = om.pack({"format": "pyasc.om"}, b"\xff\xfe garbage")
    refused(bad_onnx, "not an ONNX model")
    # foreign bytes with an .om name are read as ONNX and refused as such
    (tmp_path / "foreign.om").write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 100)
    with pytest.raises(asc.AscendValueError, match="foreign.om"):
        asc.load_model(str(tmp_path / "foreign.om"))
    with pytest.raises(asc.AscendValueError, match="does not exist"):
        asc.load_model(str(tmp_path / "missing.om"))


def test_unpack_names_the_magic():
    with pytest.raises(asc.AscendValueError, match="'x.om' is not a pyasc .om file"):
        om.unpack(b"GARBAGE!" * 10, "x.om")


def test_save_as_om_refusals(tmp_path, onnx_path):
    with pytest.raises(asc.AscendNotImplementedError, match="tracing a Python function"):
        asc.save_as_om(lambda x: asc.ops.relu(x), tmp_path / "f.om", example_inputs=(X,))
    with pytest.raises(asc.AscendValueError, match="example_inputs is only for a Python function"):
        asc.save_as_om(str(onnx_path), tmp_path / "f.om", example_inputs=(X,))
    with pytest.raises(asc.AscendValueError, match="cannot write"):
        asc.save_as_om(str(onnx_path), tmp_path / "no_such_dir" / "f.om")
    with pytest.raises(asc.AscendValueError, match="precision_mode"):
        asc.save_as_om(str(onnx_path), tmp_path / "f.om", precision_mode="fp8")


def test_small_model_two_outputs(tmp_path):
    m = small_model()
    p = asc.save_as_om(m, tmp_path / "s.om")
    s = asc.load_model(p)
    want = asc.InferenceSession(m).run(None, {"x": SMALL_X})
    for g, w in zip(s.run(None, {"x": SMALL_X}), want):
        np.testing.assert_array_equal(g, w)
