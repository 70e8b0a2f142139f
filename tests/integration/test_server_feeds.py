"""Bad feeds and fetches are INVALID_ARGUMENT naming the culprit; the session
keeps working afterwards."""

import numpy as np
import pytest

import graphd.v1 as tf
from graphd import _tensor
from graphd.v1 import tensor_pb2

import it_helpers as h


@pytest.fixture
def model(target):
    x = tf.placeholder(tf.float32, [None, 3], name="feed_me")
    y = tf.reduce_sum(x * 2.0, axis=1, name="doubled_sum")
    with tf.Session(target) as sess:
        yield sess, x, y


def _still_works(sess, x, y):
    X = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(sess.run(y, {x: X}), (X * 2).sum(axis=1))


def test_unfed_placeholder_is_named(model):
    sess, x, y = model
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(y)
    assert "feed_me" in str(info.value)
    assert "feed" in str(info.value).lower()
    _still_works(sess, x, y)


def test_unknown_feed_name(model):
    sess, x, y = model
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(y, {x: np.zeros((1, 3)), "no_such_tensor:0": np.float32(1)})
    h.assert_mentions(info.value, "no_such_tensor")
    _still_works(sess, x, y)


def test_wrong_feed_dtype(model):
    sess, x, y = model
    bad = _tensor.make_tensor_proto(np.zeros((2, 3), np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        h.raw_run(sess, feeds=[("feed_me:0", bad)], fetches=["doubled_sum:0"])
    h.assert_mentions(info.value, "feed_me")
    bad = _tensor.make_tensor_proto(np.zeros((2, 3), np.float64))
    with pytest.raises(tf.errors.InvalidArgumentError):
        h.raw_run(sess, feeds=[("feed_me:0", bad)], fetches=["doubled_sum:0"])
    _still_works(sess, x, y)


@pytest.mark.parametrize("shape", [(2, 4), (3,), (1, 3, 1), ()])
def test_incompatible_feed_shape(model, shape):
    sess, x, y = model
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(y, {x: np.zeros(shape, np.float32)})
    h.assert_mentions(info.value, "feed_me")
    _still_works(sess, x, y)


def test_compatible_unknown_dims_accepted(model):
    sess, x, y = model
    for rows in (0, 1, 7):
        X = np.ones((rows, 3), np.float32)
        out = sess.run(y, {x: X})
        assert out.shape == (rows,)
        np.testing.assert_allclose(out, np.full(rows, 6.0, np.float32))


def test_any_shape_placeholder(target):
    p = tf.placeholder(tf.int32, name="anything")
    y = p * 3
    with tf.Session(target) as sess:
        for value in (np.int32(2), np.arange(4, dtype=np.int32),
                      np.ones((2, 1, 3), np.int32)):
            np.testing.assert_array_equal(sess.run(y, {p: value}), value * 3)


def test_unknown_fetch_name(model):
    sess, x, y = model
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run("no_such_node:0", {x: np.zeros((1, 3))})
    h.assert_mentions(info.value, "no_such_node")
    _still_works(sess, x, y)


def test_feeding_a_malformed_tensor(model):
    # 10 content bytes for a [1, 3] float tensor: rejected, server unharmed.
    sess, x, y = model
    bad = tensor_pb2.TensorProto(dtype=tensor_pb2.DT_FLOAT, content=b"\0" * 10)
    bad.shape.dim.extend([1, 3])
    with pytest.raises(tf.errors.InvalidArgumentError):
        h.raw_run(sess, feeds=[("feed_me:0", bad)], fetches=["doubled_sum:0"])
    _still_works(sess, x, y)
