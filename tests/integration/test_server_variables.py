"""Variables live in the server session: persistent across runs, isolated
between sessions, and an error when read before initialization."""

import numpy as np
import pytest

import graphd.v1 as tf


def test_variables_persist_across_runs(target):
    v = tf.Variable(np.float32([1.0, 2.0]), name="counter")
    inc = v.assign_add([1.0, 10.0])
    dec = tf.assign_sub(v, [0.5, 0.5])
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(v), np.float32([1.0, 2.0]))
        np.testing.assert_array_equal(sess.run(inc), np.float32([2.0, 12.0]))
        np.testing.assert_array_equal(sess.run(inc), np.float32([3.0, 22.0]))
        np.testing.assert_array_equal(sess.run(v), np.float32([3.0, 22.0]))
        np.testing.assert_array_equal(sess.run(dec), np.float32([2.5, 21.5]))
        np.testing.assert_array_equal(sess.run(v.value()), np.float32([2.5, 21.5]))
        np.testing.assert_array_equal(sess.run(v.assign([7.0, 8.0])), np.float32([7, 8]))
        np.testing.assert_array_equal(sess.run(v * 2.0), np.float32([14.0, 16.0]))
        # Re-initializing resets the value.
        sess.run("init")
        np.testing.assert_array_equal(sess.run("counter:0"), np.float32([1.0, 2.0]))


def test_variables_are_isolated_between_sessions(target):
    v = tf.Variable(5, name="shared_name")
    inc = v.assign_add(1)
    init = tf.global_variables_initializer()
    with tf.Session(target) as s1, tf.Session(target) as s2:
        s1.run(init)
        s2.run(init)
        assert s1.run(inc) == 6
        assert s1.run(inc) == 7
        assert s2.run(v) == 5
        assert s2.run(inc) == 6
        assert s1.run(v) == 7
        value = s1.run(v)
        assert isinstance(value, np.int32)


def test_uninitialized_variable_is_failed_precondition(target):
    v = tf.Variable(np.zeros((2, 2), np.float32), name="not_yet_initialized")
    w = tf.Variable(1.0, name="other_var")
    y = v + 1.0
    with tf.Session(target) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(y)
        assert "not_yet_initialized" in str(info.value)
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v.assign_add(np.ones((2, 2), np.float32)))
        # Initializing one variable leaves the other uninitialized.
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(y), np.ones((2, 2), np.float32))
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(w)
        assert "other_var" in str(info.value)
    # A second session starts uninitialized even after the first initialized.
    with tf.Session(target) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)


def test_assign_with_control_dependencies(target):
    v = tf.Variable(0.0, name="acc")
    inc = v.assign_add(2.0)
    with tf.control_dependencies([inc]):
        after = tf.identity(tf.constant(1.0), name="after_inc")
    with tf.Session(target) as sess:
        sess.run(v.initializer)
        assert sess.run(after) == 1.0
        assert sess.run(after) == 1.0
        assert sess.run(v) == 4.0  # the control input ran once per run
        sess.run(tf.group(inc, inc.op))
        assert sess.run(v) == 6.0
