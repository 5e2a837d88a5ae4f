"""Errors of the inference server, each carrying its HTTP status and gRPC status code.

They are :class:`pyasc.AscendError` subclasses (and of the builtin a caller would expect),
so in-process users of :class:`~pyasc.serve.InferenceCore` catch them as usual; the HTTP
front end answers ``{"error": str(e.message)}`` with ``http_status``, the gRPC front end
aborts with ``grpc_code`` and the same message (Triton's codes: NOT_FOUND for an unknown
model, UNAVAILABLE for one not ready, INVALID_ARGUMENT for a malformed request).
"""

from __future__ import annotations

from ..errors import AscendError, ErrorCode

__all__ = ["ServeError", "InvalidArgumentError", "NotFoundError", "UnavailableError", "QuotaExceededError",
           "RequestTooLargeError", "InternalServerError", "UnsupportedError"]


class ServeError(AscendError):
    """Base class: ``http_status`` and ``grpc_code`` (a ``grpc.StatusCode`` name)."""

    http_status = 400
    grpc_code = "INVALID_ARGUMENT"
    _code = ErrorCode.INVALID_PARAM

    def __init__(self, message):
        super().__init__(self._code, message)

    def __str__(self):
        return self.message


class InvalidArgumentError(ServeError, ValueError):
    """A malformed request or repository entry (HTTP 400, gRPC INVALID_ARGUMENT)."""


class NotFoundError(ServeError, KeyError):
    """An unknown model, version or route (HTTP 404, gRPC NOT_FOUND)."""

    http_status = 404
    grpc_code = "NOT_FOUND"


class UnavailableError(ServeError, RuntimeError):
    """A model that exists but is not ready, or a server shutting down (HTTP 503, gRPC UNAVAILABLE)."""

    http_status = 503
    grpc_code = "UNAVAILABLE"
    _code = ErrorCode.UNINITIALIZE


class QuotaExceededError(ServeError, MemoryError):
    """A session over its memory quota (HTTP 429, gRPC RESOURCE_EXHAUSTED); other sessions go on."""

    http_status = 429
    grpc_code = "RESOURCE_EXHAUSTED"
    _code = ErrorCode.STORAGE_OVER_LIMIT


class RequestTooLargeError(ServeError, ValueError):
    """A body or tensor over the configured bound (HTTP 413, gRPC RESOURCE_EXHAUSTED)."""

    http_status = 413
    grpc_code = "RESOURCE_EXHAUSTED"


class UnsupportedError(ServeError, NotImplementedError):
    """A protocol feature this server does not offer (HTTP 501, gRPC UNIMPLEMENTED)."""

    http_status = 501
    grpc_code = "UNIMPLEMENTED"
    _code = ErrorCode.FEATURE_UNSUPPORTED


class InternalServerError(ServeError, RuntimeError):
    """A model failed while running (HTTP 500, gRPC INTERNAL); the message names the model."""

    http_status = 500
    grpc_code = "INTERNAL"
    _code = ErrorCode.FAILURE
