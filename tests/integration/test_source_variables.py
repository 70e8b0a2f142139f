"""tf.Variable in loaded modules, as the seed article on tf.function describes:
automatic control dependencies, variables created only on the first call, and
initialisers that depend on arguments."""

import numpy as np
import pytest

import graphd

VARS = '''
import tensorflow as tf

a = tf.Variable(1.0)
b = tf.Variable(2.0)

@tf.function
def f(x, y):
  a.assign(y * b)
  b.assign_add(x * a)
  return a + b

v = tf.Variable(1.0)

@tf.function
def inc(x):
  return v.assign_add(x)

d = tf.Variable(10.0)

@tf.function
def dec(x):
  d.assign_sub(x)
  return d.read_value()

@tf.function
def creates_every_call(x):
  w = tf.Variable(1.0)
  w.assign_add(x)
  return w

class C: pass
obj = C(); obj.v = None

@tf.function
def g(x):
  if obj.v is None:
    obj.v = tf.Variable(1.0)
  return obj.v.assign_add(x)

state = []
@tf.function
def fn(x):
  if not state:
    state.append(tf.Variable(2.0 * x))
    state.append(tf.Variable(state[0] * 3.0))
  return state[0] * x * state[1]

counter = tf.Variable(0)

@tf.function
def count_to(n):
  i = tf.constant(0)
  while i < n:
    counter.assign_add(1)
    i += 1
  return counter.read_value()
'''


@pytest.fixture
def mod(target):
    with graphd.connect(target) as client:
        yield client.load_module(VARS, filename="vars.py")


def test_automatic_control_dependencies(mod):
    assert float(mod.f(1.0, 2.0)) == 10.0


def test_module_variable_updated_by_a_function(mod):
    assert float(mod.inc(np.float32(1.0))) == 2.0
    assert float(mod.inc(np.float32(2.0))) == 4.0


def test_assign_sub_and_read_value(mod):
    assert float(mod.dec(np.float32(1.5))) == 8.5
    assert float(mod.dec(np.float32(0.5))) == 8.0


def test_creating_variables_on_every_call_is_a_value_error(mod):
    with pytest.raises(ValueError) as info:
        mod.creates_every_call(np.float32(1.0))
    assert "tried to create variables on non-first call" in str(info.value)


def test_variables_created_once_and_initialisers_from_arguments(mod):
    assert float(mod.g(np.float32(1.0))) == 2.0
    assert float(mod.g(np.float32(2.0))) == 4.0
    assert float(mod.fn(np.float32(1.0))) == 12.0
    assert float(mod.fn(np.float32(3.0))) == 36.0


def test_variable_updates_inside_a_staged_loop(mod):
    assert int(mod.count_to(np.int32(5))) == 5
    assert int(mod.count_to(np.int32(3))) == 8


def test_variables_are_per_session(target):
    with graphd.connect(target) as c1, graphd.connect(target) as c2:
        m1, m2 = c1.load_module(VARS), c2.load_module(VARS)
        assert float(m1.inc(np.float32(5.0))) == 6.0
        assert float(m2.inc(np.float32(1.0))) == 2.0
