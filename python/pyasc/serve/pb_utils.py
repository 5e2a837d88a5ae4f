"""A ``triton_python_backend_utils``-compatible module for ``model.py`` models.

Triton's Python backend hands a model's ``execute(requests)`` a list of
``InferenceRequest`` objects and expects one ``InferenceResponse`` per request; models
import the helpers as ``import triton_python_backend_utils as pb_utils``. While it loads a
``model.py`` the server makes that import name resolve to this module (when no real
``triton_python_backend_utils`` is installed), so such models port unchanged::

    class TritonPythonModel:
        def initialize(self, args):
            self.cfg = json.loads(args["model_config"])
        def execute(self, requests):
            out = []
            for r in requests:
                x = pb_utils.get_input_tensor_by_name(r, "x").as_numpy()
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("y", asc.ops.relu(x))]))
            return out
        def finalize(self):
            pass

Tensors are NumPy arrays (``as_numpy()``); a model may compute with ``pyasc`` and hand
back a ``pyasc.ndarray``, which is converted. Loading ``model.py`` runs the repository
owner's code, as Triton does: only serve repositories you trust. Nothing from a request
is ever executed or unpickled.
"""

from __future__ import annotations

import numpy as np

from . import _dtypes

__all__ = ["Tensor", "InferenceRequest", "InferenceResponse", "TritonError", "TritonModelException",
           "get_input_tensor_by_name", "get_output_tensor_by_name", "get_input_config_by_name",
           "get_output_config_by_name", "triton_string_to_numpy", "numpy_to_triton_string"]


class TritonError(Exception):
    """An error a model returns in an InferenceResponse (``error=``); the request fails with it."""

    UNKNOWN, INTERNAL, NOT_FOUND, INVALID_ARG, UNAVAILABLE, UNSUPPORTED, ALREADY_EXISTS, CANCELLED = range(8)

    def __init__(self, message, code=INTERNAL):
        super().__init__(message)
        self._message = str(message)
        self._code = code

    def message(self):
        """The error message."""
        return self._message

    def code(self):
        """The error code (TritonError.INTERNAL, ...)."""
        return self._code


class TritonModelException(Exception):
    """Raised by a model to fail all requests of an ``execute`` call."""


class Tensor:
    """A named tensor: ``Tensor(name, array)``; ``as_numpy()``, ``name()``, ``shape()``, ``triton_dtype()``."""

    def __init__(self, name, data):
        if not isinstance(name, str):
            raise TypeError(f"Tensor: name must be a str, not {type(name).__name__}")
        self._name = name
        self._data = np.asarray(data) if not isinstance(data, np.ndarray) else data

    def name(self):
        """The tensor's name."""
        return self._name

    def as_numpy(self):
        """The data as a NumPy array (BYTES tensors: an object array of bytes)."""
        return self._data

    def shape(self):
        """The shape as a list."""
        return list(self._data.shape)

    def triton_dtype(self):
        """The protocol datatype name ('FP32', 'BYTES', ...)."""
        return _dtypes.datatype_of(self._data.dtype)

    def is_cpu(self):
        """Always True: tensors live in host memory."""
        return True


class InferenceRequest:
    """One request as a model's ``execute`` sees it."""

    def __init__(self, inputs, requested_output_names=(), request_id="", parameters=None, model_name="",
                 model_version=-1):
        self._inputs = list(inputs)
        self._by_name = {t.name(): t for t in self._inputs}
        self._outputs = list(requested_output_names)
        self._id = request_id
        self._params = dict(parameters or {})
        self.model_name = model_name
        self.model_version = model_version

    def inputs(self):
        """The input tensors."""
        return list(self._inputs)

    def requested_output_names(self):
        """The outputs the client asked for (empty: all)."""
        return list(self._outputs)

    def request_id(self):
        """The client's request id ('' when none)."""
        return self._id

    def parameters(self):
        """The request parameters as a JSON string (as Triton's)."""
        import json

        return json.dumps(self._params)

    def get_input_tensor_by_name(self, name):
        """The input named ``name`` or None."""
        return self._by_name.get(name)


class InferenceResponse:
    """A model's answer to one request: ``InferenceResponse(output_tensors=[...], error=None)``."""

    def __init__(self, output_tensors=(), error=None):
        self._outputs = list(output_tensors)
        self._error = error

    def output_tensors(self):
        """The output tensors."""
        return list(self._outputs)

    def has_error(self):
        """Whether the response carries an error."""
        return self._error is not None

    def error(self):
        """The TritonError (or None)."""
        return self._error


def get_input_tensor_by_name(request, name):
    """The input tensor named ``name`` of ``request`` (None when absent)."""
    return request.get_input_tensor_by_name(name)


def get_output_tensor_by_name(response, name):
    """The output tensor named ``name`` of ``response`` (None when absent)."""
    for t in response.output_tensors():
        if t.name() == name:
            return t
    return None


def get_input_config_by_name(model_config, name):
    """The ``input`` entry named ``name`` of a model config dict (None when absent)."""
    return next((i for i in model_config.get("input", []) if i.get("name") == name), None)


def get_output_config_by_name(model_config, name):
    """The ``output`` entry named ``name`` of a model config dict (None when absent)."""
    return next((o for o in model_config.get("output", []) if o.get("name") == name), None)


def triton_string_to_numpy(type_string):
    """``TYPE_FP32`` (config spelling) -> numpy.float32; TYPE_STRING -> object."""
    return _dtypes.np_dtype(_dtypes.config_to_datatype(type_string)).type


def numpy_to_triton_string(dtype):
    """numpy dtype -> its config spelling (``TYPE_FP32``)."""
    return _dtypes.datatype_to_config(_dtypes.datatype_of(dtype))
