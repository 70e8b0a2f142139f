"""Request bytes that are not a message of the method's type (issue 17, defect 7). gRPC's
C++ callback API answers them itself, before any graphd code runs, with UNIMPLEMENTED
and an empty message; graphd cannot change that answer (README, "Robustness"). This
pins the documented behaviour and checks that nothing else follows from it: the server
stays up and serves the same methods well-formed."""

import grpc

import graphd

SERVER_FLAGS = []

METHODS = ["/graphd.v1.SessionService/Run", "/graphd.v1.SessionService/CreateSession",
           "/graphd.v1.SessionService/LoadModule", "/inference.GRPCInferenceService/ModelInfer",
           "/graphd.v1.DiagnosticsService/Echo"]
GARBAGE = [b"\xff\xff\xff\xff\x0f", b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x0f" * 10]


def test_unparseable_requests_are_refused_and_the_server_serves_on(module_server):
    channel = grpc.insecure_channel(module_server.target)
    for method in METHODS:
        call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        for body in GARBAGE:
            try:
                call(body, timeout=10)
                raise AssertionError("%s accepted garbage" % method)
            except grpc.RpcError as e:
                assert e.code() in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT,
                                    grpc.StatusCode.INTERNAL), (method, e.code())
    channel.close()
    assert module_server.alive()
    with graphd.connect(module_server.target) as c:
        assert c.echo(b"still here") == b"still here"
