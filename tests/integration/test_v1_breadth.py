"""graphd.v1 for real TensorFlow 1 programs (issue 18): array ops, conv/pool layers,
variable scopes with get_variable, tf.layers.dense, placeholder_with_default and
tf.train.Saver, checked against numpy and torch; a small CNN trained by sess.run
matches torch step by step."""

import numpy as np
import pytest
import torch

import graphd.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_array_ops_match_numpy(target):
    rng = np.random.default_rng(0)
    a = rng.normal(size=[2, 3]).astype(np.float32)
    b = rng.normal(size=[2, 1]).astype(np.float32)
    x, y = tf.constant(a), tf.constant(b)
    outs = {
        "concat": tf.concat([x, y], axis=1),
        "stack": tf.stack([x, x * 2.0], axis=1),
        "gather": tf.gather(x, [2, 0, 2], axis=1),
        "transpose": tf.transpose(x),
        "argmax": tf.argmax(x, axis=1),
        "expand": tf.expand_dims(x, 0),
        "squeeze": tf.squeeze(y),
    }
    assert outs["concat"].shape.as_list() == [2, 4]
    assert outs["stack"].shape.as_list() == [2, 2, 3]
    with tf.Session(target) as sess:
        got = sess.run(outs)
    np.testing.assert_allclose(got["concat"], np.concatenate([a, b], 1))
    np.testing.assert_allclose(got["stack"], np.stack([a, a * 2], 1))
    np.testing.assert_allclose(got["gather"], a[:, [2, 0, 2]])
    np.testing.assert_allclose(got["transpose"], a.T)
    np.testing.assert_array_equal(got["argmax"], a.argmax(1))
    assert got["argmax"].dtype == np.int64
    np.testing.assert_allclose(got["expand"], a[None])
    np.testing.assert_allclose(got["squeeze"], b[:, 0])


def test_placeholder_with_default(target):
    p = tf.placeholder_with_default(tf.constant(np.float32([1.0, 2.0])), [2])
    doubled = p * 2.0
    with tf.Session(target) as sess:
        np.testing.assert_allclose(sess.run(doubled), [2.0, 4.0])
        np.testing.assert_allclose(sess.run(doubled, {p: np.float32([5.0, 6.0])}), [10.0, 12.0])


def test_conv_pool_bias_match_torch(target):
    rng = np.random.default_rng(1)
    x = rng.normal(size=[2, 7, 6, 3]).astype(np.float32)
    f = rng.normal(size=[3, 3, 3, 4]).astype(np.float32)
    bias = rng.normal(size=[4]).astype(np.float32)
    conv = tf.nn.bias_add(tf.nn.conv2d(tf.constant(x), tf.constant(f), strides=[1, 2, 2, 1], padding="SAME"),
                          tf.constant(bias))
    pooled = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    avg = tf.nn.avg_pool(tf.constant(x), ksize=2, strides=1, padding="VALID")
    assert conv.shape.as_list() == [2, 4, 3, 4]
    assert pooled.shape.as_list() == [2, 2, 1, 4]
    with tf.Session(target) as sess:
        c, p, a = sess.run([conv, pooled, avg])
    xt = torch.tensor(x).permute(0, 3, 1, 2)
    # TF's SAME for 7x6 input, 3x3 kernel, stride 2: pad 1/1 rows, 0/1 columns.
    ref = torch.nn.functional.conv2d(torch.nn.functional.pad(xt, (0, 1, 1, 1)), torch.tensor(f).permute(3, 2, 0, 1),
                                     stride=2) + torch.tensor(bias)[None, :, None, None]
    np.testing.assert_allclose(c, ref.permute(0, 2, 3, 1).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(p, torch.max_pool2d(ref, 2).permute(0, 2, 3, 1).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a, torch.nn.functional.avg_pool2d(xt, 2, 1).permute(0, 2, 3, 1).numpy(), rtol=1e-5)


def test_variable_scope_and_get_variable_reuse():
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2, 3], initializer=tf.constant_initializer(0.5))
    with tf.variable_scope("layer", reuse=True):
        again = tf.get_variable("w")
    assert again is w
    assert w.name == "layer/w:0"
    with pytest.raises(ValueError, match="already exists"):
        with tf.variable_scope("layer"):
            tf.get_variable("w", [2, 3])
    with pytest.raises(ValueError, match="does not exist"):
        with tf.variable_scope("other", reuse=True):
            tf.get_variable("w", [1])


def test_saver_round_trip(target, tmp_path):
    w = tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
    step = tf.Variable(np.int64(7), name="step")
    saver = tf.train.Saver()
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model"))
        sess.run([tf.assign(w, np.float32([0, 0, 0])), tf.assign(step, np.int64(0))])
        saver.restore(sess, path)
        np.testing.assert_allclose(sess.run(w), [1.0, 2.0, 3.0])
        assert int(sess.run(step)) == 7
    tf.reset_default_graph()
    other = tf.Variable(np.float32(1.0), name="unknown")
    with pytest.raises(ValueError, match="holds no value for unknown"):
        with tf.Session(target) as sess:
            tf.train.Saver([other]).restore(sess, path)


def test_tf1_cnn_with_layers_trains_like_torch(target):
    rng = np.random.default_rng(2)
    xs = rng.normal(size=[8, 12, 12, 1]).astype(np.float32)
    labels = rng.integers(0, 3, 8).astype(np.int32)
    x = tf.placeholder(tf.float32, [None, 12, 12, 1])
    y = tf.placeholder(tf.int32, [None])
    with tf.variable_scope("conv"):
        k = tf.get_variable("kernel", [3, 3, 1, 4], initializer=tf.random_normal_initializer(stddev=0.3, seed=1))
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME")), 2, 2, "VALID")
    h = tf.reshape(h, [-1, 6 * 6 * 4])
    h = tf.layers.dense(h, 16, activation=tf.nn.relu, kernel_initializer=tf.glorot_uniform_initializer(seed=2))
    logits = tf.layers.dense(h, 3, kernel_initializer=tf.glorot_uniform_initializer(seed=3))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    names = ["conv/kernel", "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    by_name = {v.name.split(":")[0]: v for v in tf.global_variables()}
    assert set(names) <= set(by_name)
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        init = sess.run([by_name[n] for n in names])
        losses = []
        for _ in range(4):
            value, _ = sess.run([loss, train], {x: xs, y: labels})
            losses.append(float(value))
        final = sess.run(by_name["conv/kernel"])
        assert 0.0 <= float(sess.run(accuracy, {x: xs, y: labels})) <= 1.0

    p = [torch.tensor(v, requires_grad=True) for v in init]
    xt = torch.tensor(xs).permute(0, 3, 1, 2)
    expected = []
    for _ in range(4):
        hh = torch.max_pool2d(torch.relu(torch.nn.functional.conv2d(xt, p[0].permute(3, 2, 0, 1), padding=1)), 2)
        hh = hh.permute(0, 2, 3, 1).reshape(-1, 144)
        hh = torch.relu(hh @ p[1] + p[2])
        out = torch.nn.functional.cross_entropy(hh @ p[3] + p[4], torch.tensor(labels, dtype=torch.long))
        expected.append(float(out))
        grads = torch.autograd.grad(out, p)
        with torch.no_grad():
            for t, g in zip(p, grads):
                t -= 0.1 * g
    np.testing.assert_allclose(losses, expected, rtol=1e-4)
    np.testing.assert_allclose(final, p[0].detach().numpy(), atol=1e-4)
