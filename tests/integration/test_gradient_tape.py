"""tf.GradientTape inside tf.function: sources, nesting, persistence."""

import numpy as np
import pytest

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


FLOW = '''
import tensorflow as tf

w = tf.Variable(1.5)

@tf.function
def through_if(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    if tf.reduce_sum(x) > 0:
      y = x * x * w
    else:
      y = tf.sin(x) + w
  return tape.gradient(y, [x, w])

@tf.function
def through_while(x, n):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x
    i = 0
    while i < n:
      y = y * x + w
      i += 1
  return tape.gradient(y, [x, w])

@tf.function
def through_for_range(x, n):
  with tf.GradientTape() as tape:
    tape.watch(x)
    acc = tf.zeros_like(x)
    for i in tf.range(n):
      acc = acc + tf.sin(x * tf.cast(i + 1, tf.float32)) * w
    total = tf.reduce_sum(acc)
  return tape.gradient(total, [x, w])

@tf.function
def target_outside_tape(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
  return tape.gradient(y * 2.0, x) is None

@tf.function
def if_inside_loop(x, n):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x
    for i in tf.range(n):
      if i % 2 == 0:
        y = y * x
      else:
        y = y + x * w
  return tape.gradient(y, [x, w])

@tf.function
def loop_with_side_effect(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x
    for i in tf.range(3):
      w.assign_add(1.0)
      y = y * x
  return tape.gradient(y, x)
'''


@pytest.fixture
def flow(client):
    return client.load_module(FLOW, filename="flow.py")


def test_gradient_through_staged_if(flow):
    x = np.array([1.0, 2.0], np.float32)
    gx, gw = flow.through_if(x)
    np.testing.assert_allclose(gx, 2 * x * 1.5, rtol=1e-6)
    np.testing.assert_allclose(gw, np.sum(x * x), rtol=1e-6)
    x = np.array([-1.0, -2.0], np.float32)
    gx, gw = flow.through_if(x)
    np.testing.assert_allclose(gx, np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(gw, 2.0, rtol=1e-6)


def reference_while(x, n, w=1.5):
    # y_{k+1} = y_k * x + w, y_0 = x: forward-mode by hand.
    y, dy_dx, dy_dw = x, 1.0, 0.0
    for _ in range(n):
        y, dy_dx, dy_dw = y * x + w, dy_dx * x + y, dy_dw * x + 1.0
    return dy_dx, dy_dw


@pytest.mark.parametrize("n", [0, 1, 4])
def test_gradient_through_while_with_dynamic_trip_count(flow, n):
    gx, gw = flow.through_while(np.float32(0.7), np.int32(n))
    ex, ew = reference_while(0.7, n)
    assert float(gx) == pytest.approx(ex, rel=1e-5)
    assert (gw is None and n == 0) or float(gw) == pytest.approx(ew, rel=1e-5, abs=1e-6)


def test_gradient_through_for_over_tf_range(flow):
    x = np.array([0.3, -0.2, 0.5], np.float32)
    gx, gw = flow.through_for_range(x, np.int32(3))
    k = np.arange(1, 4, dtype=np.float32)[:, None]
    np.testing.assert_allclose(gx, np.sum(np.cos(x * k) * k * 1.5, axis=0), rtol=1e-5)
    np.testing.assert_allclose(gw, np.sum(np.sin(x * k)), rtol=1e-5)


def test_target_computed_outside_the_tape_gives_none(flow):
    assert bool(flow.target_outside_tape(np.float32(1.0)))


def test_gradient_through_if_inside_a_loop(flow):
    x, n = 1.3, 4
    gx, gw = flow.if_inside_loop(np.float32(x), np.int32(n))
    y, dx, dw = x, 1.0, 0.0
    for i in range(n):
        if i % 2 == 0:
            y, dx, dw = y * x, dx * x + y, dw * x
        else:
            y, dx, dw = y + x * 1.5, dx + 1.5, dw + x
    assert float(gx) == pytest.approx(dx, rel=1e-5)
    assert float(gw) == pytest.approx(dw, rel=1e-5)


def test_loop_with_side_effects_is_refused_not_recomputed(flow):
    with pytest.raises(NotImplementedError) as info:
        flow.loop_with_side_effect(np.float32(2.0))
    assert "free of side effects" in str(info.value)
    assert "AssignAddVariableOp" in str(info.value)


EAGER = '''
import tensorflow as tf

v = tf.Variable(1.0)
w = tf.Variable([[1.0], [2.0]])
frozen = tf.Variable(4.0, trainable=False)

@tf.function
def dense(x):
  if tf.reduce_sum(x) > 0:
    return tf.matmul(x, w)
  return tf.matmul(x, w) * 2.0

x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
  tape.watch(x)
  y = x * x
  z = tf.reduce_sum(y * v) + frozen
gx = tape.gradient(z, x)
gv = tape.gradient(z, v)
gy = tape.gradient(z, y)
g_frozen = tape.gradient(z, frozen)
v.assign(10.0)
gx_again = tape.gradient(z, x)  # the values recorded, not the variable's new one

with tf.GradientTape() as t2:
  out = tf.reduce_sum(dense(tf.constant([[1.0, 1.0]])) * 3.0)
  with t2.stop_recording():
    unrecorded = out * 2.0
gw, g_unrecorded = t2.gradient([out, unrecorded], [w, v])

with tf.GradientTape() as t3:
  t3.watch(x)
  n = tf.reduce_sum(x)
try:
  t3.gradient(n, x)
  t3.gradient(n, x)
  twice = "no error"
except RuntimeError as e:
  twice = str(e)

def results():
  return gx, gv, gy, g_frozen, gx_again, gw, g_unrecorded, twice
'''


def test_module_level_tapes(client):
    mod = client.load_module(EAGER, filename="eager.py")
    gx, gv, gy, g_frozen, gx_again, gw, g_unrecorded, twice = mod.results()
    np.testing.assert_allclose(gx, [2.0, 4.0])
    assert float(gv) == 5.0
    np.testing.assert_allclose(gy, [1.0, 1.0])
    assert g_frozen is None
    np.testing.assert_allclose(gx_again, [2.0, 4.0])
    np.testing.assert_allclose(gw, [[3.0], [3.0]])
    assert g_unrecorded is None
    assert "non-persistent GradientTape" in twice.decode() if isinstance(twice, bytes) else twice


NESTED_EAGER = '''
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as outer:
  outer.watch(x)
  with tf.GradientTape() as inner:
    inner.watch(x)
    y = x ** 3
  dy = inner.gradient(y, x)          # 3 x^2 = 27
d2y = outer.gradient(dy, x)          # 6 x = 18

# Three levels, a variable and a @tf.function call inside.
v = tf.Variable(2.0)

@tf.function
def cube(t):
  return t * t * t

with tf.GradientTape(persistent=True) as t1:
  with tf.GradientTape() as t2:
    with tf.GradientTape() as t3:
      f = cube(v)                    # v^3
    g1 = t3.gradient(f, v)           # 3 v^2 = 12
  g2 = t2.gradient(g1, v)            # 6 v = 12
g3 = t1.gradient(g2, v)              # 6
g1_outer = t1.gradient(g1, v)        # the outer tape saw g1 too: 6 v = 12

# An inner gradient the outer tape did not record (stopped) has no gradient.
with tf.GradientTape() as a:
  a.watch(x)
  with tf.GradientTape() as b:
    b.watch(x)
    z = x * x
  with a.stop_recording():
    dz = b.gradient(z, x)
dz_unrecorded = a.gradient(dz, x)

def results():
  return dy, d2y, g1, g2, g3, g1_outer, dz, dz_unrecorded
'''


def test_nested_module_level_tapes(client):
    mod = client.load_module(NESTED_EAGER, filename="nested_eager.py")
    dy, d2y, g1, g2, g3, g1_outer, dz, dz_unrecorded = mod.results()
    assert (float(dy), float(d2y)) == (27.0, 18.0)
    assert (float(g1), float(g2), float(g3), float(g1_outer)) == (12.0, 12.0, 6.0, 12.0)
    assert float(dz) == 6.0 and dz_unrecorded is None


BRANCH_VARIABLE = '''
import tensorflow as tf

w = tf.Variable(3.0)

@tf.function
def only_in_branch(x):
  with tf.GradientTape() as tape:
    if x > 0:
      y = w * w
    else:
      y = w * 1.0
  return tape.gradient(y, w)

@tf.function
def only_in_loop(n):
  with tf.GradientTape() as tape:
    y = tf.constant(1.0)
    for i in tf.range(n):
      y = y * w
  return tape.gradient(y, w)
'''


def test_variables_read_only_inside_staged_bodies(client):
    mod = client.load_module(BRANCH_VARIABLE, filename="branchvar.py")
    assert float(mod.only_in_branch(np.float32(1.0))) == 6.0
    assert float(mod.only_in_branch(np.float32(-1.0))) == 1.0
    assert float(mod.only_in_loop(np.int32(3))) == pytest.approx(27.0)


def test_seed_count_must_match_the_targets(client):
    src = '''
import tensorflow as tf

@tf.function
def f(x):
  y = x * x
  return tf.gradients([y, y], [x], grad_ys=[tf.ones_like(y)])
'''
    mod = client.load_module(src, filename="seeds.py")
    with pytest.raises(ValueError, match="grad_ys has 1 tensors for 2 targets"):
        mod.f(np.float32(1.0))


TENSOR_ARRAYS = '''
import tensorflow as tf

@tf.function
def squares(x, n):
  # Scalars written in a staged loop of dynamic length: sum_i (x (i + 1))^2.
  with tf.GradientTape() as tape:
    tape.watch(x)
    ta = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
      ta = ta.write(i, x * tf.cast(i + 1, tf.float32))
    y = tf.reduce_sum(ta.stack() ** 2)
  return tape.gradient(y, x)

@tf.function
def rnn(xs, w, u, h0):
  # A small RNN: inputs read from an unstacked TensorArray, states written to another.
  with tf.GradientTape() as tape:
    tape.watch([w, u, h0])
    inputs = tf.TensorArray(tf.float32, size=tf.shape(xs)[0]).unstack(xs)
    states = tf.TensorArray(tf.float32, size=tf.shape(xs)[0])
    h = h0
    for t in tf.range(tf.shape(xs)[0]):
      h = tf.tanh(tf.matmul(inputs.read(t), w) + tf.matmul(h, u))
      states = states.write(t, h)
    loss = tf.reduce_sum(states.stack() * tf.range(1.0, 4.0))
  return tape.gradient(loss, [w, u, h0])

@tf.function
def unrolled(x):
  # Writes outside a staged loop (a Python loop), then reads.
  with tf.GradientTape() as tape:
    tape.watch(x)
    ta = tf.TensorArray(tf.float32, size=3)
    for i in range(3):
      ta = ta.write(i, x * float(i + 1))
    y = tf.reduce_sum(ta.read(1) * ta.read(2)) + tf.reduce_sum(ta.stack())
  return tape.gradient(y, x)
'''


def test_gradients_through_tensor_arrays(client):
    mod = client.load_module(TENSOR_ARRAYS, filename="tensor_arrays.py")
    for n in (1, 3, 5):
        expected = 2.0 * 2.0 * sum((i + 1) ** 2 for i in range(n))  # d/dx of x^2 sum (i+1)^2
        np.testing.assert_allclose(mod.squares(np.float32(2.0), np.int32(n)), expected, rtol=1e-6)
    x = np.array([1.0, -2.0], np.float32)
    # y = sum(2x * 3x) + sum(x + 2x + 3x): dy/dx = 12 x + 6
    np.testing.assert_allclose(mod.unrolled(x), 12 * x + 6, rtol=1e-6)

    import torch
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((5, 2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3)).astype(np.float32) * 0.5
    u = rng.standard_normal((3, 3)).astype(np.float32) * 0.5
    h0 = rng.standard_normal((2, 3)).astype(np.float32)
    gw, gu, gh0 = mod.rnn(xs, w, u, h0)
    tw, tu, th = (torch.tensor(a, requires_grad=True) for a in (w, u, h0))
    h, states = th, []
    for t in range(5):
        h = torch.tanh(torch.tensor(xs[t]) @ tw + h @ tu)
        states.append(h)
    (torch.stack(states) * torch.arange(1.0, 4.0)).sum().backward()
    np.testing.assert_allclose(gw, tw.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gu, tu.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gh0, th.grad.numpy(), rtol=1e-4, atol=1e-5)
