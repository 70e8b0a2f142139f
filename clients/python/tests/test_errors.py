"""Mapping grpc.RpcError to graphd.errors."""

import pickle

import grpc
import pytest

import graphd
from graphd import errors
from graphd.v1 import error_pb2


class FakeRpcError(grpc.RpcError, grpc.Call):
    """What a failed unary call raises: an RpcError that is also a grpc.Call."""

    def __init__(self, code, details, trailing=()):
        self._code, self._details, self._trailing = code, details, tuple(trailing)

    def code(self):
        return self._code

    def details(self):
        return self._details

    def trailing_metadata(self):
        return self._trailing

    def initial_metadata(self):
        return ()

    # grpc.Call / grpc.RpcContext abstract methods
    def is_active(self):
        return False

    def time_remaining(self):
        return None

    def cancel(self):
        return False

    def add_callback(self, callback):
        return False


ALL = [
    (grpc.StatusCode.CANCELLED, errors.CancelledError, errors.CANCELLED),
    (grpc.StatusCode.UNKNOWN, errors.UnknownError, errors.UNKNOWN),
    (grpc.StatusCode.INVALID_ARGUMENT, errors.InvalidArgumentError, errors.INVALID_ARGUMENT),
    (grpc.StatusCode.DEADLINE_EXCEEDED, errors.DeadlineExceededError,
     errors.DEADLINE_EXCEEDED),
    (grpc.StatusCode.NOT_FOUND, errors.NotFoundError, errors.NOT_FOUND),
    (grpc.StatusCode.ALREADY_EXISTS, errors.AlreadyExistsError, errors.ALREADY_EXISTS),
    (grpc.StatusCode.PERMISSION_DENIED, errors.PermissionDeniedError,
     errors.PERMISSION_DENIED),
    (grpc.StatusCode.RESOURCE_EXHAUSTED, errors.ResourceExhaustedError,
     errors.RESOURCE_EXHAUSTED),
    (grpc.StatusCode.FAILED_PRECONDITION, errors.FailedPreconditionError,
     errors.FAILED_PRECONDITION),
    (grpc.StatusCode.ABORTED, errors.AbortedError, errors.ABORTED),
    (grpc.StatusCode.OUT_OF_RANGE, errors.OutOfRangeError, errors.OUT_OF_RANGE),
    (grpc.StatusCode.UNIMPLEMENTED, errors.UnimplementedError, errors.UNIMPLEMENTED),
    (grpc.StatusCode.INTERNAL, errors.InternalError, errors.INTERNAL),
    (grpc.StatusCode.UNAVAILABLE, errors.UnavailableError, errors.UNAVAILABLE),
    (grpc.StatusCode.DATA_LOSS, errors.DataLossError, errors.DATA_LOSS),
    (grpc.StatusCode.UNAUTHENTICATED, errors.UnauthenticatedError, errors.UNAUTHENTICATED),
]


@pytest.mark.parametrize("status,cls,code", ALL)
def test_status_without_detail(status, cls, code):
    assert status.value[0] == code
    e = errors.from_rpc_error(FakeRpcError(status, "boom %s" % status.name))
    assert type(e) is cls
    assert isinstance(e, errors.OpError) and isinstance(e, Exception)
    assert e.error_code == code
    assert e.message == str(e) == "boom %s" % status.name
    assert e.detail is None and e.locations == [] and e.node_name is None
    assert e.node_def is None and e.op is None
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code


def _detail(**kw):
    d = error_pb2.ErrorDetail(**kw)
    return d


def test_python_exception_classes_from_the_server():
    detail = _detail(error_class="ValueError", message="'x' must also be initialized in the else branch")
    rpc = FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "status text",
                       [("graphd-error-detail-bin", detail.SerializeToString())])
    e = errors.from_rpc_error(rpc)
    assert isinstance(e, ValueError)
    assert isinstance(e, errors.InvalidArgumentError) and isinstance(e, errors.GraphdError)
    assert type(e).__name__ == "ValueError"
    assert str(e) == "'x' must also be initialized in the else branch"
    # The same class object each time, so `except` clauses and pickling agree.
    assert type(errors.from_rpc_error(rpc)) is type(e)


def test_detail_from_trailing_metadata():
    detail = _detail(error_class="InvalidArgumentError",
                     message="You must feed a value for placeholder tensor 'x'",
                     node_name="x",
                     location=[error_pb2.SourceLocation(file="m.py", line=3, column=5,
                                                        source_line="y = f(x)")])
    rpc = FakeRpcError(grpc.StatusCode.INVALID_ARGUMENT, "status text",
                       [("other-key", "v"),
                        ("graphd-error-detail-bin", detail.SerializeToString())])
    e = errors.from_rpc_error(rpc)
    assert type(e) is errors.InvalidArgumentError
    # The message, then the user-source traceback the detail locates.
    assert str(e) == ("You must feed a value for placeholder tensor 'x'\n"
                      "Traceback (most recent call last), in the source sent to the server:\n"
                      '  File "m.py", line 3\n'
                      "    y = f(x)")
    assert e.detail == detail and e.detail.error_class == "InvalidArgumentError"
    assert e.node_name == "x"
    assert len(e.locations) == 1 and e.locations[0].line == 3
    assert e.error_code == errors.INVALID_ARGUMENT


def test_detail_class_wins_and_falls_back():
    raw = _detail(error_class="FailedPreconditionError", message="").SerializeToString()
    e = errors.from_rpc_error(FakeRpcError(grpc.StatusCode.UNKNOWN, "uninitialized v",
                                           [("graphd-error-detail-bin", raw)]))
    assert type(e) is errors.FailedPreconditionError
    assert e.error_code == errors.FAILED_PRECONDITION
    assert str(e) == "uninitialized v"  # empty detail message -> status message
    assert e.node_name is None
    raw = _detail(error_class="NoSuchError", message="m").SerializeToString()
    e = errors.from_rpc_error(FakeRpcError(grpc.StatusCode.ABORTED, "s",
                                           [("graphd-error-detail-bin", raw)]))
    assert type(e) is errors.AbortedError and str(e) == "m"


def test_garbage_detail_is_ignored():
    e = errors.from_rpc_error(FakeRpcError(grpc.StatusCode.NOT_FOUND, "gone",
                                           [("graphd-error-detail-bin", b"\xff\xff\xff")]))
    assert type(e) is errors.NotFoundError and e.detail is None and str(e) == "gone"


def test_empty_message_gets_a_description():
    e = errors.from_rpc_error(FakeRpcError(grpc.StatusCode.INTERNAL, ""))
    assert type(e) is errors.InternalError and "InternalError" in str(e)


def test_tensorflow_style_construction_and_pickling():
    e = errors.InvalidArgumentError(None, None, "bad")
    assert e.error_code == errors.INVALID_ARGUMENT and str(e) == "bad"
    with pytest.raises(errors.OpError):
        raise e
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is errors.InvalidArgumentError and back.message == "bad"
    assert errors.OpError(None, None, "x", errors.ABORTED).error_code == errors.ABORTED


def test_rpc_layer_maps_errors():
    from graphd import _rpc

    class Conn(_rpc.Connection):
        def __init__(self):  # no channel needed
            self.timeout = 1.5

    seen = {}

    def method(request, timeout=None, metadata=None):
        seen["timeout"] = timeout
        raise FakeRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too big")

    with pytest.raises(errors.ResourceExhaustedError, match="too big"):
        Conn().call(method, object())
    assert seen["timeout"] == 1.5
    with pytest.raises(errors.ResourceExhaustedError):
        Conn().call(method, object(), timeout=0.25)
    assert seen["timeout"] == 0.25


def test_public_names():
    assert graphd.__version__ == "0.1.0"
    assert graphd.errors is errors
    import graphd.v1 as tf
    assert tf.errors.InvalidArgumentError is errors.InvalidArgumentError
    for name in ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
                 "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                 "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
                 "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"):
        assert getattr(errors, name) == getattr(grpc.StatusCode, name).value[0]
