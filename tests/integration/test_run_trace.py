"""RunOptions.trace (issue 20): a traced Run, RunCallable, source-function Call or
CallGraph returns each step's node, op, device and timing in
RunMetadata.step_stats; an untraced one returns none, and the values are the same."""

import numpy as np

import graphd
import graphd.v1 as tf
from graphd import graphs
from graphd.v1 import session_pb2 as pb

SOURCE = '''
import tensorflow as tf

@tf.function
def affine(x):
  return tf.nn.relu(x * 2.0 + 1.0)
'''


def check_steps(steps, want_ops, execute_us):
    assert len(steps) > 0
    ops = {s.op for s in steps}
    assert want_ops <= ops, ops
    previous_start = -1
    for s in steps:
        assert s.node and s.device.startswith("/device:"), s
        assert s.duration_ns >= 0 and s.start_ns >= previous_start, s
        previous_start = s.start_ns
    # Steps run one after another inside the run.
    assert sum(s.duration_ns for s in steps) <= execute_us * 1000 + 1000


def test_session_run_traced_and_not(target):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.nn.relu(tf.matmul(tf.reshape(x, [1, 3]), tf.ones([3, 2])), name="y")
    with tf.Session("grpc://" + target, graph=g) as sess:
        md = tf.RunMetadata()
        traced = sess.run(y, {x: [1.0, -2.0, 4.0]}, options=tf.RunOptions(trace=True), run_metadata=md)
        check_steps(md.step_stats, {"MatMul"}, md.execute_us)
        names = {s.node for s in md.step_stats}
        assert "x" in names, names  # the feed's Placeholder; relu(matmul) is one fused MatMul
        plain_md = tf.RunMetadata()
        plain = sess.run(y, {x: [1.0, -2.0, 4.0]}, run_metadata=plain_md)
        assert len(plain_md.step_stats) == 0
        np.testing.assert_array_equal(traced, plain)
        np.testing.assert_allclose(plain, [[3.0, 3.0]])


def test_callable_source_call_and_graph_call_traced(client):
    session = client.session_handle
    conn = client.connection
    # A source function.
    mod = client.load_module(SOURCE, filename="traced.py")
    np.testing.assert_allclose(mod.affine(np.array([1.0, -3.0], np.float32)), [3.0, 0.0])
    request = pb.CallRequest(session_handle=session, module_id=mod.module_id, function="affine",
                             args=[graphd.functions.to_pyvalue(np.array([1.0, -3.0], np.float32), pb)])
    request.options.trace = True
    response = conn.session("Call", request, None)
    # x * 2 + 1 and the relu run as one fused elementwise step.
    check_steps(response.metadata.step_stats, {"FusedElementwise"}, response.metadata.execute_us)

    # A loaded graph.
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        out = tf.exp(a * 2.0)
    fn = client.load_graph(g, outputs=[out], name="expo")
    want = fn([0.0, 1.0])
    req = pb.CallGraphRequest(session_handle=session, name="expo")
    req.inputs.add().CopyFrom(graphs._tensor_proto(np.array([0.0, 1.0], np.float32), fn.inputs[0]))
    req.options.trace = True
    resp = conn.session("CallGraph", req, None)
    check_steps(resp.metadata.step_stats, set(), resp.metadata.execute_us)
    got = graphd._tensor.tensor_proto_to_ndarray(resp.outputs[0])
    np.testing.assert_allclose(got, want)
    req.options.trace = False
    assert len(conn.session("CallGraph", req, None).metadata.step_stats) == 0


def test_callable_run_traced(target):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.square(x) + 1.0
    with tf.Session("grpc://" + target, graph=g) as sess:
        fn = sess.make_callable(y, feed_list=[x])
        np.testing.assert_allclose(fn(np.array([1.0, 2.0], np.float32)), [2.0, 5.0])
        handle = next(iter(sess._callables))
        req = pb.RunCallableRequest(session_handle=sess._handle, handle=handle)
        req.feed.add().CopyFrom(graphd._tensor.make_tensor_proto(np.array([3.0, 4.0], np.float32)))
        req.options.trace = True
        resp = sess._conn.session("RunCallable", req, None)
        check_steps(resp.metadata.step_stats, set(), resp.metadata.execute_us)
        np.testing.assert_allclose(graphd._tensor.tensor_proto_to_ndarray(resp.fetch[0]), [10.0, 17.0])
