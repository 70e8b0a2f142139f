"""Exceptions raised by the graphd client, named and coded as ``tf.errors``.

Every failed RPC becomes an :class:`OpError` subclass chosen by its gRPC status
code. When the server attached a structured ``graphd.v1.ErrorDetail`` (trailing
metadata ``graphd-error-detail-bin``), the exception carries it as ``detail``
together with ``locations`` and ``node_name``. Errors produced by gRPC itself
(server unreachable, message too large, client-side deadline) have no detail.
"""

import grpc

# Status codes, as tf.errors exposes them (values of grpc.StatusCode).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16

ERROR_DETAIL_METADATA_KEY = "graphd-error-detail-bin"


class OpError(Exception):
    """A failed graphd operation (the base class of every graphd error).

    Attributes:
      message: human-readable description (also ``str(e)``).
      error_code: the integer gRPC status code (``tf.errors`` codes).
      node_def, op: always None (kept for TensorFlow compatibility).
      detail: the ``graphd.v1.ErrorDetail`` proto the server attached, or None.
      locations: list of ``graphd.v1.SourceLocation`` protos (may be empty).
      node_name: the graph node the error is about, or None.
    """

    def __init__(self, node_def, op, message, error_code, *, detail=None):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self.error_code = error_code
        self.detail = detail
        self.locations = list(detail.location) if detail is not None else []
        self.node_name = (detail.node_name or None) if detail is not None else None

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.error_code))


def _rebuild(cls, message, error_code):
    if cls is OpError:
        return OpError(None, None, message, error_code)
    return cls(None, None, message)


def _subclass(name, code, doc):
    def __init__(self, node_def, op, message, *args, detail=None):
        # TensorFlow's subclasses accept (node_def, op, message[, error_code]).
        OpError.__init__(self, node_def, op, message, code, detail=detail)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc,
                                   "__module__": __name__})


CancelledError = _subclass("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "Unknown error.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT,
    "An argument (feed, fetch, graph) was invalid.")
DeadlineExceededError = _subclass(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "The deadline expired.")
NotFoundError = _subclass(
    "NotFoundError", NOT_FOUND, "A requested entity (e.g. a session) was not found.")
AlreadyExistsError = _subclass(
    "AlreadyExistsError", ALREADY_EXISTS, "The entity already exists.")
PermissionDeniedError = _subclass(
    "PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _subclass(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED,
    "A resource (sessions, message size, memory) was exhausted.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state for the operation (e.g. uninitialized variable).")
AbortedError = _subclass(
    "AbortedError", ABORTED, "The operation was aborted (e.g. stale graph version).")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "Out of range.")
UnimplementedError = _subclass(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _subclass("InternalError", INTERNAL, "Internal server error.")
UnavailableError = _subclass(
    "UnavailableError", UNAVAILABLE, "The server is unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss.")
UnauthenticatedError = _subclass(
    "UnauthenticatedError", UNAUTHENTICATED, "The request is not authenticated.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}
_NAME_TO_CLASS = {cls.__name__: cls for cls in _CODE_TO_CLASS.values()}
_CLASS_TO_CODE = {cls: code for code, cls in _CODE_TO_CLASS.items()}


def exception_type_from_error_code(error_code):
    """The OpError subclass for an integer status code (UnknownError if unknown)."""
    return _CODE_TO_CLASS.get(error_code, UnknownError)


def error_code_from_exception_type(cls):
    """The integer status code of an OpError subclass."""
    return _CLASS_TO_CODE.get(cls, UNKNOWN)


def _status_code_value(code):
    """grpc.StatusCode (or int) -> int."""
    if isinstance(code, grpc.StatusCode):
        return code.value[0]
    if code is None:
        return UNKNOWN
    return int(code)


def _parse_detail(metadata):
    """Returns the ErrorDetail proto in trailing metadata, or None."""
    if not metadata:
        return None
    for item in metadata:
        key, value = item[0], item[1]
        if key != ERROR_DETAIL_METADATA_KEY:
            continue
        from graphd.v1 import error_pb2  # generated; imported lazily
        detail = error_pb2.ErrorDetail()
        try:
            detail.ParseFromString(value if isinstance(value, bytes) else
                                   bytes(value, "latin-1"))
        except Exception:  # malformed detail: fall back to the status
            return None
        return detail
    return None


# Python exceptions raised by user code on the server keep their class: the client
# raises an exception that is an instance of that builtin and of the OpError class of
# the status code (so both `except ValueError` and `except graphd.errors.OpError` work).
_PYTHON_CLASSES = {
    cls.__name__: (cls,) for cls in (
        ValueError, TypeError, NameError, AttributeError, IndexError, KeyError,
        ZeroDivisionError, AssertionError, ImportError, RecursionError,
        NotImplementedError, SyntaxError, IndentationError, TabError,
        UnboundLocalError, OverflowError, RuntimeError, LookupError, ArithmeticError,
        StopIteration, Exception)}
# TensorFlow's error for a tensor used as a Python bool (a TypeError), also raised where
# TensorFlow raises NotImplementedError for a Python loop whose condition became a
# tensor: it is both.
_PYTHON_CLASSES["OperatorNotAllowedInGraphError"] = (TypeError, NotImplementedError)
_PYTHON_ERROR_CACHE = {}


def _python_error_class(name, status_cls):
    key = (name, status_cls)
    if key not in _PYTHON_ERROR_CACHE:
        _PYTHON_ERROR_CACHE[key] = type(name, (status_cls,) + _PYTHON_CLASSES[name], {
            "__module__": "graphd.errors",
            "__doc__": "%s raised by user code on the server (%s)." % (name, status_cls.__name__),
        })
    return _PYTHON_ERROR_CACHE[key]


def render_traceback(detail):
    """The detail's source locations as a Python traceback over the user's source
    (outermost frame first, as Python prints them)."""
    lines = ["Traceback (most recent call last), in the source sent to the server:"]
    for loc in reversed(list(detail.location)):
        lines.append('  File "%s", line %d' % (loc.file, loc.line))
        if loc.source_line:
            lines.append("    " + loc.source_line.strip())
    return "\n".join(lines)


GraphdError = OpError


def from_rpc_error(error):
    """Converts a ``grpc.RpcError`` (a grpc.Call) into the matching OpError.

    With an ErrorDetail attached, its ``error_class`` picks the class (falling
    back to the status code when it names no known class) and its ``message``
    is the message. Without one, both come from the gRPC status.
    """
    code_fn = getattr(error, "code", None)
    details_fn = getattr(error, "details", None)
    trailing_fn = getattr(error, "trailing_metadata", None)
    code = _status_code_value(code_fn() if callable(code_fn) else None)
    status_message = (details_fn() if callable(details_fn) else None) or ""
    try:
        metadata = trailing_fn() if callable(trailing_fn) else None
    except Exception:
        metadata = None
    detail = _parse_detail(metadata)
    cls = exception_type_from_error_code(code)
    message = status_message
    if detail is not None:
        if detail.error_class in _PYTHON_CLASSES:
            cls = _python_error_class(detail.error_class, cls)
        else:
            cls = _NAME_TO_CLASS.get(detail.error_class, cls)
        message = detail.message or status_message
        if len(detail.location):
            message = message + "\n" + render_traceback(detail)
    if not message:
        message = "%s (gRPC status %d)" % (cls.__name__, code)
    if detail is None and code == RESOURCE_EXHAUSTED and "message larger than max" in message:
        message += _MESSAGE_LIMIT_HINT
    return cls(None, None, message, detail=detail)


# gRPC's own error for a message over the server's limit names no setting; this does.
_MESSAGE_LIMIT_HINT = ("; the server takes messages up to its --max-message-bytes (default 64 MiB; "
                       "GRAPHD_MAX_MESSAGE_BYTES or max_message_bytes in its config file)")


__all__ = [
    "OpError", "GraphdError", "render_traceback", "from_rpc_error", "exception_type_from_error_code",
    "error_code_from_exception_type", "ERROR_DETAIL_METADATA_KEY",
] + [cls.__name__ for cls in _CODE_TO_CLASS.values()] + [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
    "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]
