"""Health, devices, diagnostics, connect/close and error details."""

import numpy as np
import pytest

import graphd
import graphd.v1 as tf
from graphd.v1 import session_pb2


def test_health_serving(target):
    assert graphd.health(target) == "SERVING"
    assert graphd.health("grpc://" + target, service="readiness") == "SERVING"
    with graphd.connect(target) as client:
        assert client.health() == "SERVING"
        assert client.health("readiness") == "SERVING"


def test_list_devices_has_cpu(target):
    with graphd.connect(target, timeout=10) as client:
        devices = client.list_devices()
    assert devices, "the server listed no devices"
    assert all(isinstance(d, graphd.Device) for d in devices)
    cpu = [d for d in devices if d.name == "/device:CPU:0"]
    assert len(cpu) == 1, devices
    assert cpu[0].device_type == "CPU"
    assert cpu[0].memory_limit >= 0
    with tf.Session(target, graph=tf.Graph()) as sess:
        assert "/device:CPU:0" in [d.name for d in sess.list_devices()]


def test_echo_and_server_info(target):
    payload = bytes(range(256)) * 17
    with graphd.connect(target) as client:
        assert client.echo(payload) == payload
        assert client.echo(b"") == b""
        # empty_reply: the bytes go in, nothing comes back (run_overhead_bench's floor).
        from graphd.v1 import diagnostics_pb2
        big = bytes(range(256)) * 4096
        reply = client._conn.call(client._conn.diagnostics_stub.Echo,
                                  diagnostics_pb2.EchoRequest(payload=big, empty_reply=True), None)
        assert reply.payload == b""
        assert client.echo(big) == big
        info = client.server_info()
        assert info.version != ""
        assert info.active_sessions >= 1  # this client's own session


def test_connect_context_manager_closes_its_session(target):
    with graphd.connect(target) as client:
        handle = client.session_handle
        assert len(handle) == 32 and all(c in "0123456789abcdef" for c in handle)
        before = client.server_info().active_sessions
    assert client.closed
    client.close()  # idempotent
    with graphd.connect(target) as other:
        # `client`'s session is gone and `other`'s is new: the count is unchanged.
        assert other.server_info().active_sessions == before
        with pytest.raises(graphd.errors.NotFoundError) as info:
            other.connection.session("Run", session_pb2.RunRequest(session_handle=handle))
        assert handle in str(info.value)
        with pytest.raises(graphd.errors.NotFoundError):
            other.connection.session("CloseSession", session_pb2.CloseSessionRequest(
                session_handle=handle))


def test_sessions_get_distinct_handles(target):
    with graphd.connect(target) as a, graphd.connect(target) as b:
        assert a.session_handle != b.session_handle


def test_error_detail_is_attached(target):
    x = tf.placeholder(tf.float32, [2], name="detail_input")
    y = x * 2.0
    with tf.Session(target) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y)
        e = info.value
        assert e.error_code == tf.errors.INVALID_ARGUMENT
        assert e.detail is not None, "no graphd-error-detail-bin trailing metadata"
        assert e.detail.error_class == "InvalidArgumentError"
        assert e.detail.message and str(e) == e.detail.message
        assert "detail_input" in str(e)
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), np.float32([2, 4]))
