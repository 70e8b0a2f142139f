"""TensorFlow 1 training through graphd.v1: tf.gradients, tf.train optimizers and
sess.run(train_op), checked against numpy and torch."""

import numpy as np
import pytest
import torch

import graphd.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_gradients_of_variables_and_tensors(target):
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.Variable(np.float32([1.0, 2.0, 3.0]), name="w")
    unrelated = tf.Variable(np.float32(1.0), name="unrelated")
    y = tf.reduce_sum(tf.square(x) * w)
    gx, gw, gu = tf.gradients(y, [x, w, unrelated])
    assert gu is None
    (seeded,) = tf.gradients(tf.square(x), [x], grad_ys=[tf.constant(np.float32([1.0, 0.0, 2.0]))])
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        xv = np.float32([0.5, -1.0, 2.0])
        gxv, gwv, sv = sess.run([gx, gw, seeded], {x: xv})
    np.testing.assert_allclose(gxv, 2 * xv * [1.0, 2.0, 3.0])
    np.testing.assert_allclose(gwv, xv * xv)
    np.testing.assert_allclose(sv, 2 * xv * [1.0, 0.0, 2.0])


def test_gradient_descent_linear_regression_with_global_step(target):
    rng = np.random.default_rng(4)
    xs = rng.normal(size=[32, 2]).astype(np.float32)
    ys = xs @ np.float32([[1.5], [-2.0]]) + 0.5
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(np.zeros([2, 1], np.float32), name="w")
    b = tf.Variable(np.float32(0.0), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss, global_step=step)
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(150):
            sess.run(train, {x: xs, y: ys})
        wv, bv, sv, lv = sess.run([w, b, step, loss], {x: xs, y: ys})
    np.testing.assert_allclose(wv, [[1.5], [-2.0]], atol=1e-3)
    assert float(bv) == pytest.approx(0.5, abs=1e-3)
    assert int(sv) == 150
    assert lv < 1e-5


def mlp_data(rng):
    x = rng.normal(size=[64, 4]).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype(np.int32)
    w1 = (rng.normal(size=[4, 16]) * 0.5).astype(np.float32)
    w2 = (rng.normal(size=[16, 2]) * 0.5).astype(np.float32)
    return x, labels, w1, w2


def test_adam_minimize_matches_torch_step_by_step(target):
    x_np, labels_np, w1_np, w2_np = mlp_data(np.random.default_rng(5))
    x = tf.placeholder(tf.float32, [None, 4])
    labels = tf.placeholder(tf.int32, [None])
    w1 = tf.Variable(w1_np, name="w1")
    b1 = tf.Variable(np.zeros([16], np.float32), name="b1")
    w2 = tf.Variable(w2_np, name="w2")
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    losses = []
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            value, _ = sess.run([loss, train], {x: x_np, labels: labels_np})
            losses.append(float(value))
        final_w1 = sess.run(w1)

    params = [torch.tensor(w1_np, requires_grad=True), torch.zeros(16, requires_grad=True),
              torch.tensor(w2_np, requires_grad=True)]
    opt = torch.optim.Adam(params, lr=0.01, eps=1e-8)
    expected = []
    for _ in range(10):
        opt.zero_grad()
        out = torch.relu(torch.tensor(x_np) @ params[0] + params[1]) @ params[2]
        loss_t = torch.nn.functional.cross_entropy(out, torch.tensor(labels_np, dtype=torch.long))
        expected.append(float(loss_t))
        loss_t.backward()
        opt.step()
    np.testing.assert_allclose(losses, expected, rtol=1e-4)
    np.testing.assert_allclose(final_w1, params[0].detach().numpy(), atol=1e-4)
    assert losses[-1] < losses[0]


def test_momentum_and_compute_apply_gradients(target):
    v = tf.Variable(np.float32([2.0, -1.0]), name="v")
    loss = tf.reduce_sum(tf.square(v))
    opt = tf.train.MomentumOptimizer(0.1, momentum=0.5)
    grads_and_vars = opt.compute_gradients(loss, var_list=[v])
    train = opt.apply_gradients(grads_and_vars)
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        values = []
        for _ in range(3):
            sess.run(train)
            values.append(sess.run(v))
    ref, acc = np.float32([2.0, -1.0]), np.zeros(2, np.float32)
    for got in values:
        acc = acc * 0.5 + 2 * ref
        ref = ref - 0.1 * acc
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_minimize_without_a_connected_variable_is_a_value_error():
    v = tf.Variable(np.float32(1.0), name="v")
    loss = tf.constant(np.float32(3.0))
    with pytest.raises(ValueError, match="No gradients provided"):
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[v])
