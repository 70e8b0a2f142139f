"""Malformed graphs are rejected (INVALID_ARGUMENT, or UNIMPLEMENTED for an
unknown op) naming the node or op, and leave the session graph unchanged; a
failed CreateSession creates no session; a stale ExtendSession is ABORTED."""

import numpy as np
import pytest

import graphd
import graphd.v1 as tf
from graphd.v1 import graph_pb2, session_pb2, tensor_pb2

import it_helpers as h

INVALID = tf.errors.InvalidArgumentError


def _cases():
    f32 = np.float32
    return {
        "duplicate_of_existing_node": (
            [h.const_node("base", f32(5))], INVALID, ["base"]),
        "duplicate_within_request": (
            [h.const_node("dup_node", f32(1)), h.const_node("dup_node", f32(2))],
            INVALID, ["dup_node"]),
        "input_names_missing_node": (
            [h.node("consumer_node", "Identity", ["missing_node"])],
            INVALID, ["consumer_node", "missing_node"]),
        "input_output_index_out_of_range": (
            [h.node("consumer_node", "Identity", ["base:5"])],
            INVALID, ["consumer_node", "base"]),
        "cycle": (
            [h.node("cycle_a", "Identity", ["cycle_b"]),
             h.node("cycle_b", "Identity", ["cycle_a"])],
            INVALID, ["cycle_a", "cycle_b"]),
        "self_loop": (
            [h.node("loop_node", "Identity", ["loop_node"])], INVALID, ["loop_node"]),
        "const_bytes_do_not_match_shape": (
            [h.raw_const_node("bad_const", tensor_pb2.DT_FLOAT, [2, 2], b"\0" * 12)],
            INVALID, ["bad_const"]),
        "const_bytes_do_not_match_dtype": (
            [h.raw_const_node("bad_const", tensor_pb2.DT_DOUBLE, [3], b"\0" * 12)],
            INVALID, ["bad_const"]),
        "negative_dimension": (
            [h.raw_const_node("neg_const", tensor_pb2.DT_FLOAT, [-2, 3])],
            INVALID, ["neg_const"]),
        "element_count_overflows_int64": (
            [h.raw_const_node("huge_const", tensor_pb2.DT_FLOAT, [2**32, 2**32])],
            INVALID, ["huge_const"]),
        "inferred_shape_overflows_int64": (
            [h.node("tall", "Placeholder", dtype=graph_pb2.AttrValue(type=tensor_pb2.DT_FLOAT),
                    shape=graph_pb2.AttrValue(shape=tensor_pb2.TensorShape(dim=[2**32, 1]))),
             h.node("wide", "Placeholder", dtype=graph_pb2.AttrValue(type=tensor_pb2.DT_FLOAT),
                    shape=graph_pb2.AttrValue(shape=tensor_pb2.TensorShape(dim=[1, 2**32]))),
             h.node("outer_sum", "Add", ["tall", "wide"])],
            INVALID, ["outer_sum"]),
        "unknown_op": (
            [h.node("mystery_node", "NoSuchOpXyz")],
            tf.errors.UnimplementedError, ["NoSuchOpXyz"]),
    }


CASE_NAMES = sorted(_cases())


@pytest.mark.parametrize("case", CASE_NAMES)
def test_malformed_extend_leaves_session_graph_unchanged(target, case):
    nodes, error_class, names = _cases()[case]
    base = tf.constant([1.0, 2.0], name="base")
    y = base * 2.0
    with tf.Session(target) as sess:
        version = sess.graph_version
        with pytest.raises(error_class) as info:
            h.raw_extend(sess, h.graph_def(*nodes))
        h.assert_mentions(info.value, *names)
        assert info.value.detail is not None
        assert info.value.detail.error_class == error_class.__name__
        # The session still runs what it had.
        np.testing.assert_array_equal(sess.run(y), np.float32([2.0, 4.0]))
        # Unchanged graph: the version did not move (the Session's own
        # ExtendSession below uses the old one) and no rejected node was
        # added (re-using their names is no duplicate).
        new_names = sorted({n.name for n in nodes} - {"base"})
        replacements = [tf.constant(float(i), name=n) for i, n in enumerate(new_names)]
        assert [t.op.name for t in replacements] == new_names
        assert sess.run(replacements + [y])[:-1] == [float(i) for i in range(len(new_names))]
        assert sess.graph_version != version or not new_names


@pytest.mark.parametrize("case", CASE_NAMES)
def test_malformed_create_session_creates_no_session(target, case):
    nodes, error_class, names = _cases()[case]
    base = h.const_node("base", np.float32([1, 2]))
    with graphd.connect(target) as probe:
        before = probe.server_info().active_sessions
        with pytest.raises(error_class) as info:
            probe.connection.session("CreateSession", session_pb2.CreateSessionRequest(
                graph_def=h.graph_def(base, *nodes)))
        h.assert_mentions(info.value, *names)
        assert probe.server_info().active_sessions == before
        assert probe.health() == "SERVING"


@pytest.mark.parametrize("bad_name", ["a,b", "x:0", "^x", "", "_leading", "sp ace"])
def test_invalid_node_names_are_rejected(target, bad_name):
    # Names follow TensorFlow's rule, which keeps "node:index" and "^node" unambiguous.
    y = tf.constant([1.0, 2.0], name="named_ok") * 2.0
    with tf.Session(target) as sess:
        version = sess.graph_version
        with pytest.raises(INVALID) as info:
            h.raw_extend(sess, h.graph_def(h.const_node(bad_name, np.float32(1))))
        assert "name" in str(info.value)
        np.testing.assert_array_equal(sess.run(y), np.float32([2.0, 4.0]))
        assert sess.graph_version == version


def test_unknown_op_through_the_graph_api(target):
    g = tf.Graph()
    with g.as_default():
        ok = tf.constant(3.0, name="ok")
        g.create_op("FancyUnknownOp", [ok], [tf.float32], name="fancy")
    with graphd.connect(target) as probe:
        before = probe.server_info().active_sessions
        with pytest.raises(tf.errors.UnimplementedError) as info:
            tf.Session(target, graph=g)
        assert "FancyUnknownOp" in str(info.value)
        assert probe.server_info().active_sessions == before
    g2 = tf.Graph()
    with g2.as_default():
        ok = tf.constant(3.0, name="ok")
    with tf.Session(target, graph=g2) as sess:
        assert sess.run(ok) == 3.0
        with g2.as_default():
            bad = g2.create_op("FancyUnknownOp", [ok], [tf.float32], name="fancy")
        with pytest.raises(tf.errors.UnimplementedError) as info:
            sess.run(bad.outputs[0])
        assert "FancyUnknownOp" in str(info.value)
        assert h.raw_run(sess, fetches=["ok:0"]).tensor[0].tensor.content == \
            np.float32(3.0).tobytes()


def test_stale_extend_version_is_aborted(target):
    a = tf.constant(1.0, name="a")
    with tf.Session(target) as sess:
        version = sess.graph_version
        assert version == 1
        late = h.graph_def(h.const_node("late_node", np.float32(3)))
        for stale in (version - 1, version + 1, version + 100):
            with pytest.raises(tf.errors.AbortedError):
                h.raw_extend(sess, late, version=stale)
        response = h.raw_extend(sess, late, version=version)
        assert response.new_graph_version > version
        # The Session still believes in the old version: its next extension is stale.
        b = tf.constant(2.0, name="b")
        with pytest.raises(tf.errors.AbortedError):
            sess.run(b)
        got = h.raw_run(sess, fetches=["late_node:0", "a:0"])
        assert [t.tensor.content for t in got.tensor] == [np.float32(3).tobytes(),
                                                          np.float32(1).tobytes()]
        assert a.name == "a:0"
