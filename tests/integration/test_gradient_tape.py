"""tf.GradientTape inside tf.function: sources, nesting, persistence."""

import numpy as np
import pytest

import numpy as np, graphd, subprocess, os, time, sys
SRC = '''
import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
b = tf.Variable([0.5, -0.5])

@tf.function
def grads(x):
  with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) + b) ** 2)
  return tape.gradient(y, [w, b])

@tf.function
def cube(x):
  with tf.GradientTape() as t2:
    t2.watch(x)
    with tf.GradientTape() as t1:
      t1.watch(x)
      y = x * x * x
    dy = t1.gradient(y, x)
  return dy, t2.gradient(dy, x)

@tf.function
def persist(x):
  with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    y = x * x
    z = y * y
  return t.gradient(z, x), t.gradient(y, x), t.gradient(z, y)

@tf.function
def nonpersist(x):
  with tf.GradientTape() as t:
    t.watch(x)
    y = x * x
  a = t.gradient(y, x)
  return t.gradient(y, x)

@tf.function
def unwatched(x):
  with tf.GradientTape() as t:
    y = x * x
  return t.gradient(y, x) is None

@tf.function
def train(x, y):
  with tf.GradientTape() as tape:
    loss = tf.reduce_mean((tf.matmul(x, w) + b - y) ** 2)
  gw, gb = tape.gradient(loss, [w, b])
  w.assign_sub(0.1 * gw)
  b.assign_sub(0.1 * gb)
  return loss
'''


@pytest.fixture
def mod(client):
    return client.load_module(SRC, filename="tape.py")


def test_variables_watched_automatically(mod):
    x = np.array([[1.0, -1.0], [0.5, 2.0]], np.float32)
    gw, gb = mod.grads(x)
    W = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32); B = np.array([0.5, -0.5], np.float32)
    z = x @ W + B
    dz = 2 * np.maximum(z, 0) * (z > 0)
    np.testing.assert_allclose(gw, x.T @ dz, rtol=1e-5)
    np.testing.assert_allclose(gb, dz.sum(0), rtol=1e-5)


def test_nested_tapes_second_derivative(mod):
    d1, d2 = mod.cube(np.float32(2.0))
    assert float(d1) == pytest.approx(12.0)
    assert float(d2) == pytest.approx(12.0)


def test_persistent_tape(mod):
    a, b, c = mod.persist(np.float32(3.0))
    assert float(a) == pytest.approx(4 * 27.0)
    assert float(b) == pytest.approx(6.0)
    assert float(c) == pytest.approx(18.0)


def test_non_persistent_tape_used_twice_is_a_runtime_error(mod):
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        mod.nonpersist(np.float32(1.0))


def test_unwatched_tensor_gives_none(mod):
    assert bool(mod.unwatched(np.float32(1.0)))
