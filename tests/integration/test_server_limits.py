"""Session lifetime and server limits: closed sessions, --max-sessions,
--max-message-bytes."""

import numpy as np
import pytest

import graphd
import graphd.v1 as tf
from graphd.v1 import session_pb2


def test_closed_session_is_not_found(target):
    a = tf.constant([1.0, 2.0], name="a")
    sess = tf.Session(target)
    np.testing.assert_array_equal(sess.run(a), np.float32([1, 2]))
    handle = sess.session_handle
    with graphd.connect(target) as other:  # close it behind the Session's back
        other.connection.session("CloseSession",
                                 session_pb2.CloseSessionRequest(session_handle=handle))
    with pytest.raises(tf.errors.NotFoundError) as info:
        sess.run(a)
    assert handle in str(info.value)
    assert info.value.detail is not None
    assert info.value.detail.error_class == "NotFoundError"
    sess.close()  # quietly: the server already dropped it
    with pytest.raises(RuntimeError):
        sess.run(a)  # a closed Session object refuses locally, as TF does


def test_unknown_session_handle(target):
    with graphd.connect(target) as client:
        bogus = "0" * 32
        for method, request in (
                ("Run", session_pb2.RunRequest(session_handle=bogus)),
                ("ExtendSession", session_pb2.ExtendSessionRequest(session_handle=bogus)),
                ("MakeCallable", session_pb2.MakeCallableRequest(session_handle=bogus)),
                ("CloseSession", session_pb2.CloseSessionRequest(session_handle=bogus))):
            with pytest.raises(graphd.errors.NotFoundError) as info:
                client.connection.session(method, request)
            assert bogus in str(info.value), method


def test_max_sessions(start_server):
    server = start_server("--max-sessions", "2")
    first = graphd.connect(server.target)
    second = tf.Session(server.target, graph=tf.Graph())
    try:
        with pytest.raises(graphd.errors.ResourceExhaustedError):
            graphd.connect(server.target)
        with pytest.raises(tf.errors.ResourceExhaustedError):
            tf.Session(server.target, graph=tf.Graph())
        first.close()
        third = graphd.connect(server.target)  # the freed slot
        assert third.server_info().active_sessions == 2
        with pytest.raises(graphd.errors.ResourceExhaustedError):
            graphd.connect(server.target)
        third.close()
    finally:
        first.close()
        second.close()
    with graphd.connect(server.target) as client:
        assert client.server_info().active_sessions == 1


def test_oversized_request_is_rejected_and_server_keeps_serving(start_server):
    server = start_server("--max-message-bytes", "1048576")
    x = tf.placeholder(tf.float32, [None], name="big_input")
    total = tf.reduce_sum(x)
    with tf.Session(server.target) as sess:
        big = np.ones(2 * 1024 * 1024 // 4, np.float32)  # 2 MB of floats
        with pytest.raises(tf.errors.ResourceExhaustedError) as info:
            sess.run(total, {x: big})
        assert info.value.detail is None  # gRPC's own error, not the server's
        assert "larger than max" in str(info.value) and "--max-message-bytes" in str(info.value)
        assert graphd.health(server.target) == "SERVING"
        small = np.arange(1000, dtype=np.float32)
        assert sess.run(total, {x: small}) == pytest.approx(small.sum())
        # Just under the limit still works.
        near = np.ones(200_000, np.float32)  # 800 KB
        assert sess.run(total, {x: near}) == pytest.approx(200_000.0)
    assert server.alive()
