"""Shapes across traces and loops through the real server: reduce_retracing
generalises a shape miss into one trace with None dims; shape invariants
(tf.autograph.experimental.set_loop_options, tf.while_loop) let a loop variable
change shape in a staged loop; without them the loop is a ValueError."""

import numpy as np
import pytest

import graphd

RETRACING = '''
import tensorflow as tf

@tf.function(reduce_retracing=True)
def total(x, scale):
  print("tracing", x.shape)
  return tf.reduce_sum(x) * scale

@tf.function
def plain(x):
  return tf.reduce_sum(x)
'''


def test_reduce_retracing_generalises_after_a_shape_miss(target, capsys):
    with graphd.connect(target) as client:
        mod = client.load_module(RETRACING)
        assert float(mod.total(np.ones([2], np.float32), 1.0)) == 2.0
        assert float(mod.total(np.ones([3], np.float32), 1.0)) == 3.0
        assert mod.total.experimental_get_tracing_count() == 2
        # Every later length reuses the generalised trace.
        for n in (4, 7, 1, 2, 3):
            assert float(mod.total(np.ones([n], np.float32), 1.0)) == n
        assert mod.total.experimental_get_tracing_count() == 2
        out = capsys.readouterr().out
        assert out.splitlines() == ["tracing (2,)", "tracing (None,)"]
        # A new Python value or a new rank or dtype is still a new trace.
        assert float(mod.total(np.ones([5], np.float32), 2.0)) == 10.0
        assert mod.total.experimental_get_tracing_count() == 3
        assert float(mod.total(np.ones([2, 2], np.float32), 1.0)) == 4.0
        assert float(mod.total(np.ones([3, 2], np.float32), 1.0)) == 6.0
        assert mod.total.experimental_get_tracing_count() == 5
        # Without reduce_retracing every shape is its own trace.
        for n in (2, 3, 4):
            mod.plain(np.ones([n], np.float32))
        assert mod.plain.experimental_get_tracing_count() == 3


INVARIANTS = '''
import tensorflow as tf

@tf.function
def grow(n):
  x = tf.zeros([0], dtype=tf.int32)
  i = tf.constant(0)
  while i < n:
    tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
    x = tf.concat([x, [i]], axis=0)
    i += 1
  return x

@tf.function
def grow_for(n):
  x = tf.zeros([1, 2])
  for i in tf.range(n):
    tf.autograph.experimental.set_loop_options(shape_invariants=[(x, [None, 2])])
    x = tf.concat([x, tf.ones([1, 2]) * tf.cast(i, tf.float32)], axis=0)
  return x

@tf.function
def grow_without_invariant(n):
  x = tf.zeros([0], dtype=tf.int32)
  i = tf.constant(0)
  while i < n:
    x = tf.concat([x, [i]], axis=0)
    i += 1
  return x

@tf.function
def invariant_too_narrow(n):
  x = tf.zeros([2, 3])
  i = tf.constant(0)
  while i < n:
    tf.autograph.experimental.set_loop_options(shape_invariants=[(x, [None, 4])])
    x = x + 1.0
    i += 1
  return x

@tf.function
def invariant_not_a_loop_variable(n):
  x = tf.zeros([2])
  y = tf.zeros([2])
  i = tf.constant(0)
  while i < n:
    tf.autograph.experimental.set_loop_options(shape_invariants=[(y, [None])])
    x = x + 1.0
    i += 1
  return x
'''


def test_set_loop_options_shape_invariants(target):
    with graphd.connect(target) as client:
        mod = client.load_module(INVARIANTS)
        np.testing.assert_array_equal(mod.grow(np.int32(4)), np.arange(4, dtype=np.int32))
        np.testing.assert_array_equal(mod.grow(np.int32(0)), np.zeros([0], np.int32))
        out = mod.grow_for(np.int32(3))
        expected = np.array([[0, 0], [0, 0], [1, 1], [2, 2]], np.float32)
        np.testing.assert_array_equal(out, expected)
        assert "set_loop_options" in mod.grow.to_code()


def test_shape_changing_loop_without_invariant_is_a_value_error(target):
    with graphd.connect(target) as client:
        mod = client.load_module(INVARIANTS)
        with pytest.raises(ValueError) as info:
            mod.grow_without_invariant(np.int32(3))
        assert "'x' has shape (0,) before the loop, but shape (1,) after one iteration" in str(info.value)
        with pytest.raises(ValueError) as info:
            mod.invariant_too_narrow(np.int32(3))
        assert "which does not conform with the shape invariant (None, 4)" in str(info.value)
        with pytest.raises(ValueError) as info:
            mod.invariant_not_a_loop_variable(np.int32(3))
        assert "not the value of a loop variable" in str(info.value)
        # The session keeps working after the errors.
        np.testing.assert_array_equal(mod.grow(np.int32(2)), np.arange(2, dtype=np.int32))


WHILE_LOOP = '''
import tensorflow as tf

@tf.function
def collect(n):
  i0 = tf.constant(0)
  x0 = tf.zeros([0])
  _, x = tf.while_loop(lambda i, x: i < n,
                       lambda i, x: (i + 1, tf.concat([x, [tf.cast(i, tf.float32)]], 0)),
                       [i0, x0],
                       shape_invariants=[i0.shape, tf.TensorShape([None])])
  return x
'''


def test_tf_while_loop_shape_invariants(target):
    with graphd.connect(target) as client:
        mod = client.load_module(WHILE_LOOP)
        np.testing.assert_array_equal(mod.collect(np.int32(3)), np.array([0, 1, 2], np.float32))
