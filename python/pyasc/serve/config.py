"""Model configuration: ``config.pbtxt`` (protobuf text format) into ``inference.ModelConfig``.

A repository entry is Triton's layout::

    <repository>/<model>/config.pbtxt         optional for ONNX / .om models (completed from the model)
    <repository>/<model>/<version>/model.onnx  platform "onnxruntime_onnx" or backend "onnxruntime"
    <repository>/<model>/<version>/model.py    backend "python" (a TritonPythonModel class)
    <repository>/<model>/<version>/model.om    platform/backend "pyasc_om" (asc.load_model)
    <repository>/<model>/<version>/model.so    backend "pyasc_op": an operator library (asc.load_op_library)

The text is parsed with ``google.protobuf.text_format`` into the ModelConfig message of
:mod:`._proto` (so an unknown field is an error naming it); nothing in it is evaluated.
Settings of our own live in Triton's ``parameters`` map, so a config stays valid for
Triton's parser: ``ab_split`` (see docs/serve.md).
"""

from __future__ import annotations

import os
import re

from google.protobuf import json_format, text_format

from . import _proto
from .errors import InvalidArgumentError

__all__ = ["ModelConfig", "KINDS", "validate_name", "parse_config", "kind_of", "config_to_dict", "default_filename",
           "ab_split", "parse_ab_split"]

ModelConfig = _proto.message_class("ModelConfig")

# kind -> (platform names, backend names, default file)
KINDS = {
    "onnx": (("onnxruntime_onnx",), ("onnxruntime", "onnx"), "model.onnx"),
    "python": ((), ("python",), "model.py"),
    "om": (("pyasc_om",), ("pyasc_om", "pyasc"), "model.om"),
    "oplib": (("pyasc_op",), ("pyasc_op",), "model.so"),
}

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}$")
MAX_CONFIG_BYTES = 1 << 20


def validate_name(name, what="model"):
    """A model name usable as one directory under the repository: letters, digits, ``_ . -``,
    not starting with a dot, at most 128 characters (no ``/``, ``..``, NUL): it can never
    name a path outside the repository."""
    if not isinstance(name, str) or not _NAME.match(name) or name in (".", ".."):
        raise InvalidArgumentError(f"invalid {what} name {name!r}: use letters, digits, '_', '.', '-' "
                                   f"(not starting with '.' or '-', at most 128 characters)")
    return name


def parse_config(text, path="config.pbtxt"):
    """Protobuf text -> ModelConfig; InvalidArgumentError naming the file and the parser's reason."""
    msg = ModelConfig()
    try:
        text_format.Parse(text, msg)
    except text_format.ParseError as e:
        raise InvalidArgumentError(f"{path}: {e}") from None
    return msg


def read_config(model_dir, name):
    """The model's ModelConfig (empty apart from its name when there is no config.pbtxt)."""
    path = os.path.join(model_dir, "config.pbtxt")
    if os.path.isfile(path):
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            raise InvalidArgumentError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes")
        with open(path, encoding="utf-8", errors="strict") as f:
            cfg = parse_config(f.read(), path)
    else:
        cfg = ModelConfig()
    if cfg.name and cfg.name != name:
        raise InvalidArgumentError(f"{path}: model name '{cfg.name}' does not match its directory '{name}'")
    cfg.name = name
    if cfg.max_batch_size < 0:
        raise InvalidArgumentError(f"{path}: max_batch_size must be >= 0, got {cfg.max_batch_size}")
    return cfg


def kind_of(cfg, version_dir=None):
    """'onnx' / 'python' / 'om' from platform/backend, else from the file in ``version_dir``."""
    for kind, (platforms, backends, _) in KINDS.items():
        if (cfg.platform and cfg.platform in platforms) or (cfg.backend and cfg.backend in backends):
            return kind
    if cfg.platform or cfg.backend:
        raise InvalidArgumentError(f"model '{cfg.name}': unsupported platform/backend "
                                   f"'{cfg.platform or cfg.backend}' (this server runs onnxruntime_onnx / "
                                   f"onnxruntime, python, pyasc_om and pyasc_op)")
    if version_dir is not None:
        if cfg.default_model_filename:
            ext = os.path.splitext(cfg.default_model_filename)[1]
            for kind, (_, _, default) in KINDS.items():
                if default.endswith(ext):
                    return kind
        for kind, (_, _, default) in KINDS.items():
            if os.path.isfile(os.path.join(version_dir, default)):
                return kind
    raise InvalidArgumentError(f"model '{cfg.name}': no platform/backend in config.pbtxt and no model.onnx, "
                               f"model.py or model.om in {version_dir}")


def default_filename(cfg, kind):
    """The model file a version directory holds."""
    name = cfg.default_model_filename or KINDS[kind][2]
    if os.path.basename(name) != name or name in (".", ".."):
        raise InvalidArgumentError(f"model '{cfg.name}': default_model_filename '{name}' must be a plain file name")
    return name


def _ints(value, desc):
    # json_format writes int64/uint64 as strings (JSON's numbers are doubles); Triton's HTTP
    # config has plain numbers, so convert those fields back.
    if isinstance(value, dict):
        for k, v in value.items():
            f = desc.fields_by_name.get(k) if desc is not None else None
            if f is None:
                continue
            if f.message_type is not None:
                if f.message_type.GetOptions().map_entry:
                    vf = f.message_type.fields_by_name["value"]
                    for kk in v:
                        v[kk] = _ints(v[kk], vf.message_type) if vf.message_type else v[kk]
                elif isinstance(v, list):
                    value[k] = [_ints(x, f.message_type) for x in v]
                else:
                    value[k] = _ints(v, f.message_type)
            elif f.cpp_type in (f.CPPTYPE_INT64, f.CPPTYPE_UINT64):
                value[k] = [int(x) for x in v] if isinstance(v, list) else int(v)
    return value


def config_to_dict(cfg):
    """ModelConfig -> the JSON object of Triton's HTTP ``…/config`` (proto field names, defaults included)."""
    d = json_format.MessageToDict(cfg, preserving_proto_field_name=True,
                                  always_print_fields_with_no_presence=True)
    return _ints(d, cfg.DESCRIPTOR)


def ab_split(cfg):
    """The ``ab_split`` parameter as [(arm, weight)]: ``"1:90,2:10"`` (versions) or
    ``"other_model:50,1:50"`` / ``"other_model/3:20,..."`` (another model, optionally a version)."""
    p = cfg.parameters.get("ab_split")
    if p is None or not p.string_value.strip():
        return []
    return parse_ab_split(cfg.name, p.string_value)


def parse_ab_split(name, text):
    """``"1:90,2:10"`` -> [((model, version), weight)] for model ``name`` (see :func:`ab_split`)."""
    arms = []
    for item in text.split(","):
        arm, sep, weight = item.strip().rpartition(":")
        try:
            w = float(weight)
        except ValueError:
            w = -1.0
        if not sep or not arm or not w >= 0:
            raise InvalidArgumentError(f"model '{name}': ab_split item '{item.strip()}' must be "
                                       f"'<version|model[/version]>:<weight>' with a weight >= 0")
        model, _, version = arm.partition("/")
        if model.isdigit() and not version:
            model, version = "", model
        else:
            try:
                validate_name(model)
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"model '{name}': ab_split arm '{arm}': {e.message}") from None
            if version and not version.isdigit():
                raise InvalidArgumentError(f"model '{name}': ab_split arm '{arm}': version must be a number")
        arms.append(((model, version), w))
    if sum(w for _, w in arms) <= 0:
        raise InvalidArgumentError(f"model '{name}': ab_split weights sum to 0")
    return arms
