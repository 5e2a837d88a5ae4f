"""pyasc's ``.om`` offline-model container, ``asc.save_as_om`` and ``asc.load_model``.

CANN's ``.om`` format is not public, so the container is ours. It holds the
graph *as it runs* (after constant folding, BatchNorm folding and fusion:
``Model.to_proto()``, fused nodes in the ``ai.pyasc`` domain) with its weights,
and a JSON metadata section recording how it was built (ATC options, precision
mode, dynamic gears, AIPP). Loading one parses the JSON (``json.loads``) and the
ONNX protobuf; nothing in a file is executed or unpickled.

Layout (little-endian; docs/models.md, ".om layout")::

    header, 64 bytes
      0  8s   magic              b"PYASCOM\\x00"
      8  u16  format_version     1 (a newer one is refused)
     10  u16  header_size        64
     12  u32  flags              0 (bits reserved; any set is refused)
     16  u32  section_count
     20  u64  payload_length     bytes after the header (the file is exactly 64 + this)
     28  32s  payload_sha256     SHA-256 of those bytes
     60  u32  header_crc32       CRC-32 of bytes 0..59
    payload: section_count sections, each
      0  4s   tag                b"META" (JSON, UTF-8) | b"ONNX" (onnx.ModelProto bytes)
      4  u32  section_flags      0
      8  u64  length
     16  ...  data, then zeros up to a multiple of 8 bytes

META comes first, ONNX second; a reader skips sections with other tags (later
minor additions), and refuses a file without both.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
import zlib

__all__ = ["MAGIC", "FORMAT_VERSION", "OmFile", "is_om", "pack", "unpack", "read", "save_as_om", "load_model"]

MAGIC = b"PYASCOM\x00"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sHHIIQ32sI")  # 64 bytes
_SECTION = struct.Struct("<4sIQ")        # 16 bytes
HEADER_SIZE = _HEADER.size
assert HEADER_SIZE == 64 and _SECTION.size == 16


def _err(cls, msg, code="INVALID_FILE"):
    from ..ops._util import _err as make

    return make(cls, code, f"[om] {msg}")


class OmFile:
    """A parsed ``.om``: ``meta`` (dict), ``onnx`` (the ModelProto bytes), ``header`` (dict), ``where``."""

    __slots__ = ("meta", "onnx", "header", "where")

    def __init__(self, meta, onnx_bytes, header, where):
        self.meta, self.onnx, self.header, self.where = meta, onnx_bytes, header, where


def is_om(data):
    """Whether ``data`` (bytes: a file's first bytes) starts with the .om magic."""
    return bytes(data[:len(MAGIC)]) == MAGIC


def pack(meta, onnx_bytes):
    """The bytes of an .om file holding ``meta`` (JSON-serialisable dict) and ``onnx_bytes``."""
    sections = []
    for tag, data in ((b"META", json.dumps(meta, sort_keys=True, allow_nan=False).encode("utf-8")),
                      (b"ONNX", bytes(onnx_bytes))):
        pad = (-len(data)) % 8
        sections.append(_SECTION.pack(tag, 0, len(data)) + data + b"\x00" * pad)
    payload = b"".join(sections)
    head = _HEADER.pack(MAGIC, FORMAT_VERSION, HEADER_SIZE, 0, len(sections), len(payload),
                        hashlib.sha256(payload).digest(), 0)
    crc = zlib.crc32(head[:60]) & 0xFFFFFFFF
    return head[:60] + struct.pack("<I", crc) + payload


def unpack(data, where="<bytes>"):
    """Checks and parses .om bytes; an AscendValueError naming ``where`` and the defect otherwise."""
    data = memoryview(bytes(data) if not isinstance(data, (bytes, bytearray)) else data)
    n = len(data)
    if n < len(MAGIC) or bytes(data[:8]) != MAGIC:
        raise _err("AscendValueError", f"'{where}' is not a pyasc .om file (bad magic "
                   f"{bytes(data[:8])!r}, expected {MAGIC!r})")
    if n < HEADER_SIZE:
        raise _err("AscendValueError", f"'{where}' is truncated: {n} bytes, shorter than the {HEADER_SIZE}-byte header")
    magic, version, hsize, flags, count, plen, digest, crc = _HEADER.unpack(bytes(data[:HEADER_SIZE]))
    if zlib.crc32(bytes(data[:60])) & 0xFFFFFFFF != crc:
        raise _err("AscendValueError", f"'{where}' is corrupted: header checksum (CRC-32) mismatch")
    if version > FORMAT_VERSION:
        raise _err("AscendNotImplementedError", f"'{where}' has .om format version {version}; this pyasc reads "
                   f"versions up to {FORMAT_VERSION} (rebuild it with this pyasc's pyasc-atc / asc.save_as_om)",
                   "FEATURE_UNSUPPORTED")
    if version < 1 or hsize != HEADER_SIZE:
        raise _err("AscendValueError", f"'{where}' is corrupted: format version {version}, header size {hsize}")
    if flags:
        raise _err("AscendNotImplementedError", f"'{where}' sets header flags {flags:#x}, which this pyasc does not "
                   "know", "FEATURE_UNSUPPORTED")
    if n < HEADER_SIZE + plen:
        raise _err("AscendValueError", f"'{where}' is truncated: {n} bytes, the header announces "
                   f"{HEADER_SIZE + plen}")
    if n > HEADER_SIZE + plen:
        raise _err("AscendValueError", f"'{where}' is corrupted: {n - HEADER_SIZE - plen} bytes after the payload")
    payload = data[HEADER_SIZE:]
    if hashlib.sha256(payload).digest() != digest:
        raise _err("AscendValueError", f"'{where}' is corrupted: payload checksum (SHA-256) mismatch")
    sections, off = {}, 0
    for i in range(count):
        if off + _SECTION.size > plen:
            raise _err("AscendValueError", f"'{where}' is corrupted: section {i} starts past the payload")
        tag, _sflags, length = _SECTION.unpack(bytes(payload[off:off + _SECTION.size]))
        start = off + _SECTION.size
        end = start + length
        if end > plen:
            raise _err("AscendValueError", f"'{where}' is corrupted: section {i} ({tag!r}) runs past the payload")
        sections.setdefault(tag, bytes(payload[start:end]))
        off = end + (-length) % 8
    for tag in (b"META", b"ONNX"):
        if tag not in sections:
            raise _err("AscendValueError", f"'{where}' is corrupted: no {tag.decode()} section")
    try:
        meta = json.loads(sections[b"META"].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _err("AscendValueError", f"'{where}' is corrupted: metadata is not JSON ({e})") from None
    if not isinstance(meta, dict):
        raise _err("AscendValueError", f"'{where}' is corrupted: metadata is not a JSON object")
    header = {"magic": MAGIC.decode("ascii").rstrip("\x00"), "format_version": version, "header_size": hsize,
              "flags": flags, "section_count": count, "payload_length": plen, "payload_sha256": digest.hex(),
              "header_crc32": f"{crc:08x}"}
    return OmFile(meta, sections[b"ONNX"], header, where)


def read(path):
    """Reads and checks the .om file at ``path`` (an :class:`OmFile`)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise _err("AscendValueError", f"model file '{path}' does not exist")
    with open(path, "rb") as f:
        data = f.read()
    return unpack(data, path)


def sniff(source):
    """An :class:`OmFile` when ``source`` (path, bytes) is an .om file, else None (left to the ONNX parser)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return unpack(source) if is_om(bytes(source[:8])) else None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(8)
        return read(path) if is_om(head) else None
    return None


# ---------------------------------------------------------------- building

def _value_meta(vi, fmt=None):
    return {"name": vi.name, "dtype": vi.dtype, "type": vi.type,
            "shape": list(vi.shape) if vi.shape is not None else None, "format": fmt or "ND"}


def build(model, *, producer, source_name, options=None, precision_mode=None, soc_version=None,
          input_format=None, dynamic=None, aipp=None, out_nodes=None, extra=None):
    """(meta, onnx bytes) of an .om for a loaded, optimised :class:`Model`."""
    from .. import __version__

    proto = model.to_proto()
    # to_proto drops initializers from the graph inputs; IR < 4 requires them there, IR >= 4 reads the
    # same graph as "constants, not overridable" -- what the running model does
    proto.ir_version = max(int(proto.ir_version), 4)
    data = proto.SerializeToString()
    formats = input_format or {}
    from ._convert import precision_dtype

    meta = {
        "format": "pyasc.om", "format_version": FORMAT_VERSION, "producer": producer,
        "pyasc_version": __version__, "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "source": {"name": source_name, "producer_name": model.proto.producer_name,
                   "graph_name": model.proto.graph.name, "ir_version": int(model.proto.ir_version),
                   "opsets": {k or "ai.onnx": v for k, v in model.opsets.items()}},
        # ATC's default --input_format for ONNX models is NCHW (NCDHW for 5-D inputs)
        "inputs": [_value_meta(v, formats.get(v.name) or {4: "NCHW", 5: "NCDHW"}.get(len(v.shape or ())))
                   for v in model.inputs],
        "outputs": [_value_meta(v) for v in model.outputs],
        "precision_mode": precision_mode or "must_keep_origin_dtype",
        "compute_dtype": precision_dtype(precision_mode or "must_keep_origin_dtype"),
        "soc_version": soc_version, "dynamic": dynamic, "aipp": aipp, "out_nodes": out_nodes,
        "atc_options": dict(options or {}),
        "graph": {"nodes": len(model.nodes), "initializers": len(proto.graph.initializer), "folded": model.folded,
                  "rewrites": dict(getattr(model, "rewrites", {}) or {}), "onnx_bytes": len(data)},
    }
    if extra:
        meta.update(extra)
    return meta, data


def _write(path, blob):
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise _err("AscendValueError", f"cannot write '{path}': {e.strerror or e}") from None
    return path


def save_as_om(model, path, example_inputs=None, *, precision_mode=None, input_shape=None):
    """Writes ``model`` as a pyasc ``.om`` file at ``path`` (exactly that name); returns ``path``.

    ``model``: an :class:`~pyasc.InferenceSession` (its optimised graph, and for a session loaded
    from an .om its metadata), an ONNX path / bytes / ``onnx.ModelProto`` (loaded and optimised
    here), or an .om path / bytes (re-written). A Python function over pyasc ops (with
    ``example_inputs``) is refused: see docs/models.md ("save_as_om") for why.

    ``precision_mode`` (ATC's names, default must_keep_origin_dtype) and ``input_shape``
    (``{name: [dims]}`` or ATC's ``"name:1,3,224,224;..."``) are applied as ``pyasc-atc`` does.
    """
    from . import _convert
    from .session import InferenceSession

    if callable(model) and not isinstance(model, InferenceSession):
        raise _err("AscendNotImplementedError", "save_as_om: tracing a Python function into a model is not "
                   "supported yet (pyasc's lazy graph records only elementwise/reduction nodes; conv, matmul "
                   "and data movement run eagerly and leave no graph). Export the function to ONNX and pass "
                   "the .onnx path, or pass an InferenceSession", "FEATURE_UNSUPPORTED")
    if example_inputs is not None:
        raise _err("AscendValueError", "save_as_om: example_inputs is only for a Python function, which is "
                   "not supported yet", "INVALID_PARAM")
    if isinstance(model, InferenceSession):
        om_meta = getattr(model, "om_metadata", None)
        if input_shape is None and precision_mode is None:
            meta, data = build(model._model, producer="asc.save_as_om", source_name=_source_name(model._model),
                               precision_mode=(om_meta or {}).get("precision_mode"),
                               soc_version=(om_meta or {}).get("soc_version"),
                               input_format={i["name"]: i.get("format") for i in (om_meta or {}).get("inputs", [])},
                               dynamic=(om_meta or {}).get("dynamic"), aipp=(om_meta or {}).get("aipp"),
                               out_nodes=(om_meta or {}).get("out_nodes"),
                               options=(om_meta or {}).get("atc_options"))
            return _write(path, pack(meta, data))
        source = model._model.to_proto()
        source.ir_version = max(int(source.ir_version), 4)
        name = _source_name(model._model)
    else:
        om = sniff(model) if isinstance(model, (bytes, bytearray, memoryview, str, os.PathLike)) else None
        if om is not None:
            if input_shape is None and precision_mode is None:
                return _write(path, pack(om.meta, om.onnx))
            source, name = om.onnx, om.meta.get("source", {}).get("name", om.where)
        else:
            source = model
            name = os.path.basename(os.fspath(model)) if isinstance(model, (str, os.PathLike)) else "<bytes>"
    opts = {}
    if input_shape is not None:
        opts["input_shape"] = input_shape if isinstance(input_shape, str) else _convert.format_input_shape(input_shape)
    if precision_mode is not None:
        opts["precision_mode"] = precision_mode
    meta, data = _convert.convert(source, source_name=name, producer="asc.save_as_om", options=opts,
                                  input_shape=input_shape, precision_mode=precision_mode)
    return _write(path, pack(meta, data))


def _source_name(model):
    return os.path.basename(model.path) if model.path else model.where


def load_model(path, sess_options=None, providers=None):
    """An :class:`~pyasc.InferenceSession` for ``path`` (an ``.om`` file; ``.onnx`` works too)."""
    from .session import InferenceSession

    return InferenceSession(path, sess_options=sess_options, providers=providers)
