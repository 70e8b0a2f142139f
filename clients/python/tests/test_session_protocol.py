"""graphd.connect and graphd.v1.Session against an in-process fake server:
graph shipping, feeds, fetch structures, callables, timeouts, closing."""

import collections
import threading

import numpy as np
import pytest

import fake_server
import graphd
import graphd.v1 as tf
from graphd import _tensor
from graphd.v1 import tensor_pb2


@pytest.fixture
def fake():
    server, target, service = fake_server.start()
    yield target, service
    server.stop(None)


def _names(graph_def):
    return [n.name for n in graph_def.node]


def test_connect_client(fake):
    target, service = fake
    with graphd.connect("grpc://" + target, timeout=5) as client:
        handle = client.session_handle
        assert len(handle) == 32 and handle in service.sessions
        assert len(service.calls("CreateSession")[0].graph_def.node) == 0
        assert client.health() == "SERVING"
        assert client.health("readiness") == "SERVING"
        assert client.health("nope") == "SERVICE_UNKNOWN"
        assert client.list_devices() == [graphd.Device("/device:CPU:0", "CPU", 1 << 30,
                                                       "fake")]
        assert client.server_info() == graphd.ServerInfo(
            "fake", 1, 0, 0, graphd.FunctionCacheStats(3, 0, 2, 0, 0, 2, 64))
        assert client.echo(b"\x00abc") == b"\x00abc"
    assert handle not in service.sessions
    client.close()  # idempotent
    assert len(service.calls("CloseSession")) == 1
    assert graphd.health(target) == "SERVING"


def test_graph_shipping(fake):
    target, service = fake
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(2.0, name="a")
    sess = tf.Session(target, graph=g)
    create = service.calls("CreateSession")[-1]
    assert _names(create.graph_def) == ["a"] and sess.graph_version == 1
    assert sess.run(a) == np.float32(2.0)
    assert service.calls("ExtendSession") == []  # nothing new to send
    with g.as_default():
        b = tf.constant([1, 2], name="b")
        c = a * 3.0
    np.testing.assert_array_equal(sess.run(b), [1, 2])
    ext = service.calls("ExtendSession")
    assert len(ext) == 1 and _names(ext[0].graph_def) == ["b", "Const", "Mul"]
    assert ext[0].current_graph_version == 1 and sess.graph_version == 2
    sess.run(c)
    assert len(service.calls("ExtendSession")) == 1
    # A rejected extension is not counted as sent and is retried with the
    # same version; the session stays usable for already-sent nodes.
    with g.as_default():
        bad = g.create_op("Bogus", [], [tf.float32], name="bad").outputs[0]
    with pytest.raises(tf.errors.UnimplementedError) as info:
        sess.run(bad)
    assert "Bogus" in str(info.value) and info.value.node_name == "bad"
    assert info.value.detail.error_class == "UnimplementedError"
    with pytest.raises(tf.errors.UnimplementedError):
        sess.run(a)
    ext = service.calls("ExtendSession")
    assert [e.current_graph_version for e in ext] == [1, 2, 2]
    assert _names(ext[-1].graph_def) == ["bad"]
    sess.close()


def test_empty_graph_creates_version_0(fake):
    target, service = fake
    g = tf.Graph()
    with tf.Session(target, graph=g) as sess:
        assert sess.graph_version == 0
        with g.as_default():
            x = tf.constant(1, name="x")
        assert sess.run(x) == 1
        assert service.calls("ExtendSession")[0].current_graph_version == 0
    assert service.calls("CloseSession")


def test_failed_create_session_raises(fake):
    target, service = fake
    g = tf.Graph()
    with g.as_default():
        g.create_op("Bogus", [], [tf.float32], name="bad")
    with pytest.raises(tf.errors.UnimplementedError):
        tf.Session(target, graph=g)
    assert service.sessions == {}


def test_feeds_and_fetch_structures(fake):
    target, service = fake
    Out = collections.namedtuple("Out", ["x", "init"])
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        tf.placeholder(tf.int64, name="n")
        s = tf.placeholder(tf.string, name="s")
        h = tf.placeholder(tf.bfloat16, name="h")
        init = tf.no_op(name="init")
    with tf.Session(target, graph=g) as sess:
        out = sess.run({"l": [x, "n:0"], "t": (s,), "nt": Out(x, init), "op": "init",
                        "h": h},
                       feed_dict={x: [[1, 2], [3, 4]], "n": 7, "s:0": ["a", b"b"],
                                  h: [1.0, 3.0]})
        run = service.calls("Run")[-1]
        feeds = {f.name: f.tensor for f in run.feed}
        assert feeds["x:0"].dtype == tensor_pb2.DT_FLOAT  # Python ints -> float32
        assert feeds["n:0"].dtype == tensor_pb2.DT_INT64  # "n" -> "n:0"
        assert list(feeds["s:0"].string_val) == [b"a", b"b"]
        assert feeds["h:0"].dtype == tensor_pb2.DT_BFLOAT16
        assert list(run.fetch) == ["x:0", "n:0", "s:0", "h:0"]
        assert list(run.target) == ["init"]
        np.testing.assert_array_equal(out["l"][0], np.float32([[1, 2], [3, 4]]))
        assert out["l"][1] == 7 and isinstance(out["l"][1], np.int64)
        assert out["t"][0].tolist() == [b"a", b"b"]
        assert type(out["nt"]) is Out and out["nt"].init is None
        np.testing.assert_array_equal(out["nt"].x, out["l"][0])
        assert out["op"] is None
        np.testing.assert_array_equal(out["h"], np.float32([1.0, 3.0]))
        # An unknown name is sent as numpy infers it, for the server to judge.
        sess.run(x, feed_dict={x: [[0, 0]], "other:0": np.int16(3)})
        other = {f.name: f.tensor for f in service.calls("Run")[-1].feed}["other:0"]
        assert other.dtype == tensor_pb2.DT_INT16
        assert sess.run([]) == [] and sess.run(init) is None
        with pytest.raises(TypeError):
            sess.run(x, feed_dict={x: x})
        with pytest.raises(ValueError):
            sess.run(x, feed_dict={x: [["not a number", 1]]})


def test_make_callable_and_release(fake):
    target, service = fake
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [2], name="x")
        c = tf.constant(5.0, name="c")
    sess = tf.Session(target, graph=g)
    fn = sess.make_callable([x, {"c": c}, c.op], feed_list=[x])
    opts = service.calls("MakeCallable")[-1].options
    assert (list(opts.feed), list(opts.fetch), list(opts.target)) == (["x:0"],
                                                                      ["x:0", "c:0"], ["c"])
    for i in range(3):
        got = fn(np.array([i, i + 1], np.float64))
        np.testing.assert_array_equal(got[0], [i, i + 1])
        assert got[0].dtype == np.int32 and got[1] == {"c": 5.0} and got[2] is None
    assert len(service.calls("RunCallable")) == 3
    with pytest.raises(TypeError):
        fn()
    sess.close()
    released = service.calls("ReleaseCallable")
    assert [r.handle for r in released] == [fn.handle]
    with pytest.raises(RuntimeError):
        fn([1, 2])
    with pytest.raises(RuntimeError):
        sess.run(c)


def test_timeout_sets_run_options_and_deadline(fake):
    target, service = fake
    g = tf.Graph()
    with g.as_default():
        slow = tf.constant(1.0, name="slow")
        fast = tf.constant(2.0, name="fast")
    with tf.Session(target, graph=g) as sess:
        meta = tf.RunMetadata()
        assert sess.run(fast, timeout=1.25, run_metadata=meta) == 2.0
        assert service.calls("Run")[-1].options.timeout_in_ms == 1250
        assert meta.total_us == 42
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(slow, timeout=0.2)
        assert sess.run(fast, options=tf.RunOptions(timeout_in_ms=700)) == 2.0
        assert service.calls("Run")[-1].options.timeout_in_ms == 700
    config = tf.ConfigProto(operation_timeout_in_ms=900, allow_soft_placement=True)
    with tf.Session(target, graph=g, config=config) as sess:
        sess.run(fast)
        assert service.calls("Run")[-1].options.timeout_in_ms == 900


def test_closed_on_server_gives_not_found(fake):
    target, service = fake
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
    sess = tf.Session(target, graph=g)
    with graphd.connect(target) as other:
        from graphd.v1 import session_pb2
        other.connection.session("CloseSession", session_pb2.CloseSessionRequest(
            session_handle=sess.session_handle))
    with pytest.raises(tf.errors.NotFoundError, match="not found") as info:
        sess.run(a)
    assert info.value.detail.error_class == "NotFoundError"
    sess.close()  # already gone on the server: closes quietly


def test_default_session_and_eval(fake):
    target, _ = fake
    a = tf.constant(3, name="a")
    with tf.Session(target) as sess:
        assert tf.get_default_session() is sess
        assert a.eval() == 3
        a.op.run()
    assert tf.get_default_session() is None
    with pytest.raises(ValueError):
        a.eval()


def test_concurrent_runs_extend_once(fake):
    target, service = fake
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, name="x")
    sess = tf.Session(target, graph=g)
    with g.as_default():
        tf.identity(x, name="y")  # unsent: the first runs race to extend
    errors_seen = []

    def worker(i):
        try:
            for _ in range(5):
                np.testing.assert_array_equal(sess.run(x, {x: [float(i)]}), [i])
        except Exception as e:  # reported below
            errors_seen.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors_seen == []
    ext = service.calls("ExtendSession")
    assert len(ext) == 1 and _names(ext[0].graph_def) == ["y"]
    sess.close()


def test_unreachable_server_is_unavailable():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(graphd.errors.UnavailableError) as info:
        graphd.health("127.0.0.1:%d" % port, timeout=2.0)
    assert info.value.detail is None
    with pytest.raises(graphd.errors.UnavailableError):
        tf.Session("grpc://127.0.0.1:%d" % port)


def test_proto_round_trip_helper_used_by_session():
    # The session decodes 0-d fetches to numpy scalars.
    value = _tensor.tensor_proto_to_value(_tensor.make_tensor_proto(np.float32(1.5)))
    assert isinstance(value, np.float32)
