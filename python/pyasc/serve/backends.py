"""Backends: what runs one loaded model version.

* :class:`OnnxBackend` -- an ``.onnx`` file through ``asc.InferenceSession``; a batch of
  requests with equal per-item shapes is concatenated along axis 0 and run once
  (dynamic batching), then split.
* :class:`OmBackend` -- pyasc's ``.om`` container through ``asc.load_model`` when that
  exists in this build (the ``.om`` work of the models layer); otherwise loading one is a
  clear error naming what is missing.
* :class:`OpLibraryBackend` -- one op of an operator library ``model.so`` through
  ``asc.load_op_library`` (the library's own C++ code runs, as a model.py's does).
* :class:`PythonBackend` -- a ``model.py`` with Triton's ``TritonPythonModel`` class
  (``initialize(args)``, ``execute(requests)``, ``finalize()``), given the whole batch of
  requests as Triton's Python backend does. Loading it executes the repository owner's
  code (as Triton does); nothing from a request is executed.

Every backend exposes ``inputs`` / ``outputs`` (lists of :class:`TensorSpec`, batch
dimension included when the model has one) and ``run_batch(items)`` where ``items`` is a
list of ``(inputs: dict name -> ndarray, output_names: list)``; it returns one dict of
outputs or one exception per item.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import re
import sys
import threading

import numpy as np

from . import _dtypes, pb_utils
from .errors import InternalServerError, InvalidArgumentError, UnavailableError

__all__ = ["TensorSpec", "Backend", "OnnxBackend", "OmBackend", "PythonBackend", "OpLibraryBackend",
           "create_backend"]

_ORT_TO_DT = {
    "tensor(bool)": "BOOL", "tensor(uint8)": "UINT8", "tensor(uint16)": "UINT16", "tensor(uint32)": "UINT32",
    "tensor(uint64)": "UINT64", "tensor(int8)": "INT8", "tensor(int16)": "INT16", "tensor(int32)": "INT32",
    "tensor(int64)": "INT64", "tensor(float16)": "FP16", "tensor(float)": "FP32", "tensor(double)": "FP64",
    "tensor(bfloat16)": "BF16", "tensor(string)": "BYTES",
}


class TensorSpec:
    """A model input/output: name, protocol datatype, shape (-1 for a free dimension)."""

    __slots__ = ("name", "datatype", "shape")

    def __init__(self, name, datatype, shape):
        self.name = name
        self.datatype = datatype
        self.shape = [int(d) for d in shape]

    def __repr__(self):
        return f"TensorSpec({self.name!r}, {self.datatype!r}, {self.shape})"


class Backend:
    """Base class; subclasses set ``inputs``/``outputs`` and implement ``_run``."""

    kind = ""
    platform = ""
    inputs: list
    outputs: list

    def run_batch(self, items):
        """Runs each item; returns a list of output dicts / exceptions (one per item)."""
        results = []
        for feeds, names in items:
            try:
                results.append(self._run(feeds, names))
            except Exception as e:  # noqa: BLE001 - one failing request does not fail its batch mates
                results.append(e)
        return results

    def run_one(self, feeds, names):
        """One request: its output dict, or the exception it raised (an item of run_batch)."""
        return self.run_batch([(feeds, names)])[0]

    def _run(self, feeds, names):
        raise NotImplementedError

    def close(self):
        """Frees the model (its device memory goes back to the pool)."""


def _specs_from_session(args):
    specs = []
    for a in args:
        dt = _ORT_TO_DT.get(a.type)
        if dt is None:
            raise InvalidArgumentError(f"tensor '{a.name}' has type {a.type}, which the protocol cannot carry")
        shape = [d if isinstance(d, int) and d >= 0 else -1 for d in (a.shape or [])]
        specs.append(TensorSpec(a.name, dt, shape))
    return specs


class OnnxBackend(Backend):
    """An ONNX model through ``asc.InferenceSession``."""

    kind = "onnx"
    platform = "onnxruntime_onnx"

    def __init__(self, path, config):
        from ..models import InferenceSession

        self.path = path
        self._sess = InferenceSession(path)
        self.inputs = _specs_from_session(self._sess.get_inputs())
        self.outputs = _specs_from_session(self._sess.get_outputs())
        self._out_names = [o.name for o in self.outputs]
        self._batchable = config.max_batch_size > 0

    def _run(self, feeds, names):
        outs = self._sess.run(names or None, feeds)
        return dict(zip(names or self._out_names, outs))

    def run_one(self, feeds, names):
        try:
            return self._run(feeds, names)
        except Exception as e:  # noqa: BLE001 - reported per request, as run_batch does
            return e

    def run_batch(self, items):
        if len(items) == 1 or not self._batchable:
            return super().run_batch(items)
        # Concatenate along the batch axis when every item has the same per-item shapes and
        # asks for the same outputs; otherwise fall back to one run per item.
        first_feeds, first_names = items[0]
        same = all(set(f) == set(first_feeds) and n == first_names and
                   all(f[k].shape[1:] == first_feeds[k].shape[1:] and f[k].dtype == first_feeds[k].dtype
                       for k in f) for f, n in items[1:])
        if not same:
            return super().run_batch(items)
        sizes = [next(iter(f.values())).shape[0] if f else 0 for f, _ in items]
        feeds = {k: np.concatenate([f[k] for f, _ in items], axis=0) for k in first_feeds}
        try:
            out = self._run(feeds, first_names)
        except Exception:  # noqa: BLE001 - retry one by one so only the bad request fails
            return super().run_batch(items)
        bounds = list(itertools.accumulate(sizes))
        results = []
        for i, end in enumerate(bounds):
            start = end - sizes[i]
            results.append({k: v[start:end] for k, v in out.items()})
        return results

    def close(self):
        self._sess = None


class OmBackend(OnnxBackend):
    """pyasc's ``.om`` offline model through ``asc.load_model``."""

    kind = "om"
    platform = "pyasc_om"

    def __init__(self, path, config):
        import pyasc

        loader = getattr(pyasc, "load_model", None)
        if loader is None:
            raise UnavailableError(f"{path}: .om models need asc.load_model, which this pyasc build does not have "
                                   f"(the .om container of the models layer is pending)")
        self.path = path
        self._sess = loader(path)
        self.inputs = _specs_from_session(self._sess.get_inputs())
        self.outputs = _specs_from_session(self._sess.get_outputs())
        self._out_names = [o.name for o in self.outputs]
        self._batchable = config.max_batch_size > 0


def _config_specs(config, what):
    batch = [-1] if config.max_batch_size > 0 else []
    inputs = [TensorSpec(i.name, _dtypes.config_to_datatype(_type_name(i.data_type)), batch + list(i.dims))
              for i in config.input]
    outputs = [TensorSpec(o.name, _dtypes.config_to_datatype(_type_name(o.data_type)), batch + list(o.dims))
               for o in config.output]
    if not inputs or not outputs:
        raise InvalidArgumentError(f"model '{config.name}': a {what} model's config.pbtxt must list its inputs and "
                                   f"outputs")
    return inputs, outputs


class OpLibraryBackend(Backend):
    """One operator of an operator library (``model.so``) loaded with ``asc.load_op_library``.

    The config names the op with ``parameters { key: "op" value { string_value: "<Op>" } }``
    (optional when the library has one op); the config's inputs are the op's positional inputs
    in order, its outputs the op's results in order. The library's ops are process-wide names
    (``asc.ops.<Op>``), so two versions of one library cannot be loaded side by side: loading a
    second one fails (the serving one stays); unload, then load to switch.
    """

    kind = "oplib"
    platform = "pyasc_op"

    def __init__(self, path, config):
        import pyasc

        loader = getattr(pyasc, "load_op_library", None)
        if loader is None:
            raise UnavailableError(f"{path}: operator libraries need asc.load_op_library, which this pyasc build "
                                   f"does not have")
        self.inputs, self.outputs = _config_specs(config, "pyasc_op")
        # Each model version loads its library under a namespace of its own (asc.ops.<ns>.<op>):
        # two versions of one library (same op names) serve side by side, e.g. for A/B tests.
        ns = f"serve_{re.sub(r'[^0-9A-Za-z]', '_', config.name)}_{next(_oplib_ids)}"
        self._lib = loader(os.path.abspath(path), namespace=ns)
        p = config.parameters.get("op")
        op = p.string_value if p is not None and p.string_value else None
        names = self._lib.op_names
        if op is None:
            if len(names) != 1:
                self._lib.unload()
                raise InvalidArgumentError(f"model '{config.name}': {path} has ops {names}; name one with "
                                           f"parameters {{ key: \"op\" ... }}")
            op = names[0]
        if op not in names:
            self._lib.unload()
            raise InvalidArgumentError(f"model '{config.name}': op '{op}' is not in {path} (it has {names})")
        self._op = self._lib.op(op)
        self._names = [o.name for o in self.outputs]

    def _run(self, feeds, names):
        import pyasc

        args = [pyasc.asarray(feeds[s.name]) for s in self.inputs]
        res = self._op(*args)
        if not isinstance(res, tuple):
            res = (res,)
        if len(res) != len(self._names):
            raise InternalServerError(f"op returned {len(res)} outputs, the config lists {len(self._names)}")
        out = {n: np.asarray(r) for n, r in zip(self._names, res)}
        return {n: out[n] for n in names} if names else out

    def close(self):
        lib, self._lib = self._lib, None
        if lib is not None and lib.loaded:
            lib.unload()


_module_ids = itertools.count()
_oplib_ids = itertools.count(1)
_pb_lock = threading.Lock()


class PythonBackend(Backend):
    """A Triton-style ``model.py`` (class ``TritonPythonModel``)."""

    kind = "python"
    platform = "python"

    def __init__(self, path, config, model_dir, version, config_dict):
        self.path = path
        # A unique module name per load: a reload never sees the previous version's module.
        modname = f"pyasc_serve_model_{next(_module_ids)}"
        spec = importlib.util.spec_from_file_location(modname, path)
        if spec is None or spec.loader is None:
            raise InvalidArgumentError(f"{path}: not a loadable Python file")
        module = importlib.util.module_from_spec(spec)
        with _pb_lock:
            # Triton models import the helpers as triton_python_backend_utils.
            if "triton_python_backend_utils" not in sys.modules:
                sys.modules["triton_python_backend_utils"] = pb_utils
            try:
                spec.loader.exec_module(module)
            except Exception as e:
                raise InvalidArgumentError(f"{path}: importing the model failed: {type(e).__name__}: {e}") from None
        cls = getattr(module, "TritonPythonModel", None)
        if cls is None:
            raise InvalidArgumentError(f"{path}: defines no class TritonPythonModel")
        self._model = cls()
        args = {"model_config": json.dumps(config_dict), "model_instance_kind": "CPU",
                "model_instance_name": f"{config.name}_0", "model_instance_device_id": "0",
                "model_repository": model_dir, "model_version": str(version), "model_name": config.name}
        if hasattr(self._model, "initialize"):
            try:
                self._model.initialize(args)
            except Exception as e:
                raise InvalidArgumentError(f"{path}: initialize() failed: {type(e).__name__}: {e}") from None
        self.inputs, self.outputs = _config_specs(config, "python")
        self._name = config.name
        self._version = version

    def run_batch(self, items):
        requests = [pb_utils.InferenceRequest([pb_utils.Tensor(k, v) for k, v in feeds.items()], names,
                                              model_name=self._name, model_version=self._version)
                    for feeds, names in items]
        try:
            responses = self._model.execute(requests)
        except MemoryError as e:
            # Kept as is: a session's memory pool quota (serve/core.py maps it to 429).
            return [e] * len(items)
        except Exception as e:  # noqa: BLE001 - the model's own failure, reported per request
            err = InternalServerError(f"model '{self._name}' execute() failed: {type(e).__name__}: {e}")
            return [err] * len(items)
        if not isinstance(responses, (list, tuple)) or len(responses) != len(items):
            n = len(responses) if isinstance(responses, (list, tuple)) else type(responses).__name__
            err = InternalServerError(f"model '{self._name}' execute() returned {n} responses for {len(items)} "
                                      f"requests")
            return [err] * len(items)
        results = []
        for (feeds, names), resp in zip(items, responses):
            if not isinstance(resp, pb_utils.InferenceResponse):
                results.append(InternalServerError(f"model '{self._name}' execute() returned a "
                                                   f"{type(resp).__name__}, not an InferenceResponse"))
            elif resp.has_error():
                e = resp.error()
                msg = e.message() if isinstance(e, pb_utils.TritonError) else str(e)
                results.append(InternalServerError(f"model '{self._name}': {msg}"))
            else:
                out = {t.name(): np.asarray(t.as_numpy()) for t in resp.output_tensors()}
                results.append(out)
        return results

    def close(self):
        model, self._model = self._model, None
        if model is not None and hasattr(model, "finalize"):
            try:
                model.finalize()
            except Exception:  # noqa: BLE001 - unloading goes on; the model's own cleanup failed
                pass


def _type_name(value):
    from . import _proto

    return _proto.data_type_enum().values_by_number[value].name


def create_backend(kind, path, config, model_dir, version, config_dict):
    """The backend for ``kind`` ('onnx' / 'om' / 'python') loaded from ``path``."""
    if not os.path.isfile(path):
        raise InvalidArgumentError(f"model '{config.name}' version {version}: missing model file {path}")
    if kind == "onnx":
        return OnnxBackend(path, config)
    if kind == "om":
        return OmBackend(path, config)
    if kind == "python":
        return PythonBackend(path, config, model_dir, version, config_dict)
    if kind == "oplib":
        return OpLibraryBackend(path, config)
    raise InvalidArgumentError(f"unknown model kind {kind!r}")
