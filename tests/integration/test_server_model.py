"""Models and fetch structures computed by the server, checked against numpy."""

import collections
import threading

import numpy as np

import graphd.v1 as tf

Result = collections.namedtuple("Result", ["logits", "probs", "step"])


def _linear_relu(rng, n_in=4, n_out=3, use_variables=False):
    W = rng.standard_normal((n_in, n_out)).astype(np.float32)
    b = rng.standard_normal((n_out,)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, n_in], name="x")
    if use_variables:
        w_t, b_t = tf.Variable(W, name="weights"), tf.Variable(b, name="bias")
    else:
        w_t, b_t = tf.constant(W, name="weights"), tf.constant(b, name="bias")
    y = tf.nn.relu(tf.matmul(x, w_t) + b_t, name="y")
    return x, y, W, b


def test_linear_relu(target):
    rng = np.random.default_rng(1)
    x, y, W, b = _linear_relu(rng)
    with tf.Session(target) as sess:
        for rows in (1, 5, 64):
            X = rng.standard_normal((rows, 4)).astype(np.float32)
            out = sess.run(y, feed_dict={x: X})
            assert isinstance(out, np.ndarray)
            assert out.dtype == np.float32 and out.shape == (rows, 3)
            np.testing.assert_allclose(out, np.maximum(X @ W + b, 0), rtol=1e-5, atol=1e-5)
        assert (out == 0).any() and (out > 0).any()  # relu actually clipped something


def test_linear_relu_with_variables(target):
    rng = np.random.default_rng(2)
    x, y, W, b = _linear_relu(rng, 8, 5, use_variables=True)
    X = rng.standard_normal((10, 8)).astype(np.float32)
    with tf.Session(target) as sess:
        assert sess.run(tf.global_variables_initializer()) is None
        np.testing.assert_allclose(sess.run(y, {x: X}), np.maximum(X @ W + b, 0),
                                   rtol=1e-5, atol=1e-5)


def test_two_layer_softmax_model(target):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 5)).astype(np.float32)
    W1 = rng.standard_normal((5, 7)).astype(np.float32)
    W2 = rng.standard_normal((7, 4)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    h = tf.tanh(tf.matmul(x, W1))
    logits = tf.matmul(h, tf.constant(W2.T), transpose_b=True)
    probs = tf.nn.softmax(logits)
    with tf.Session(target) as sess:
        got_logits, got_probs = sess.run([logits, probs], {x: X})
    ref_logits = np.tanh(X @ W1) @ W2
    e = np.exp(ref_logits - ref_logits.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(got_logits, ref_logits, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_probs, e / e.sum(axis=-1, keepdims=True),
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got_probs.sum(axis=-1), np.ones(6), rtol=1e-5)


def test_nested_fetch_structures(target):
    a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
    b = tf.reduce_sum(a, axis=1, name="b")
    c = a * 10.0
    step = tf.no_op(name="step")
    with tf.Session(target) as sess:
        out = sess.run({"list": [a, "b:0", step],
                        "tuple": (c, ("a:0", "step")),
                        "named": Result(logits=c, probs=b, step=step),
                        "nested": {"deep": [[b], {"x": "a:0"}]}})
    A = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert set(out) == {"list", "tuple", "named", "nested"}
    assert isinstance(out["list"], list) and len(out["list"]) == 3
    np.testing.assert_array_equal(out["list"][0], A)
    np.testing.assert_array_equal(out["list"][1], A.sum(axis=1))
    assert out["list"][2] is None
    assert isinstance(out["tuple"], tuple) and isinstance(out["tuple"][1], tuple)
    np.testing.assert_array_equal(out["tuple"][0], A * 10)
    np.testing.assert_array_equal(out["tuple"][1][0], A)
    assert out["tuple"][1][1] is None
    assert type(out["named"]) is Result and out["named"].step is None
    np.testing.assert_array_equal(out["named"].logits, A * 10)
    np.testing.assert_array_equal(out["named"].probs, A.sum(axis=1))
    np.testing.assert_array_equal(out["nested"]["deep"][0][0], A.sum(axis=1))
    np.testing.assert_array_equal(out["nested"]["deep"][1]["x"], A)


def test_single_fetch_forms(target):
    s = tf.reduce_sum(tf.constant([1.5, 2.5], name="pair"), name="total")
    op = tf.no_op(name="nothing")
    with tf.Session(target) as sess:
        total = sess.run(s)
        assert isinstance(total, np.float32) and total == np.float32(4.0)
        assert sess.run("total:0") == np.float32(4.0)
        assert sess.run(op) is None and sess.run("nothing") is None
        assert sess.run([]) == []
        assert sess.run([s, s]) == [4.0, 4.0]  # the same tensor twice


def test_pruning_skips_unneeded_nodes(target):
    unfed = tf.placeholder(tf.float32, [3], name="never_fed")
    unused = unfed * 2.0  # needs the placeholder; never fetched
    a = tf.constant([1.0, 2.0], name="a")
    y = a * 3.0
    v = tf.Variable(10.0, name="pruned_var")
    bump = v.assign_add(1.0)
    with tf.Session(target) as sess:
        np.testing.assert_array_equal(sess.run(y), np.float32([3.0, 6.0]))
        sess.run(v.initializer)
        assert sess.run(v) == 10.0   # fetching v must not run `bump`
        assert sess.run(bump) == 11.0
        assert sess.run(v) == 11.0
        assert unused.name  # built, never run


def test_make_callable(target):
    rng = np.random.default_rng(4)
    x, y, W, b = _linear_relu(rng)
    counter = tf.Variable(0, name="calls")
    bump = counter.assign_add(1)
    with tf.Session(target) as sess:
        sess.run(counter.initializer)
        fn = sess.make_callable({"y": y, "n": bump}, feed_list=[x])
        for i in range(1, 4):
            X = rng.standard_normal((i, 4)).astype(np.float32)
            out = fn(X)
            np.testing.assert_allclose(out["y"], np.maximum(X @ W + b, 0), rtol=1e-5,
                                       atol=1e-5)
            assert out["n"] == i
        run_op = sess.make_callable(bump.op)
        assert run_op() is None
        assert sess.run(counter) == 4
        by_name = sess.make_callable("y:0", feed_list=["x:0"])
        X = np.ones((2, 4), np.float32)
        np.testing.assert_allclose(by_name(X), np.maximum(X @ W + b, 0), rtol=1e-5,
                                   atol=1e-5)


def test_concurrent_runs_on_one_session(target):
    rng = np.random.default_rng(5)
    x, y, W, b = _linear_relu(rng, 16, 8)
    failures = []
    with tf.Session(target) as sess:
        fn = sess.make_callable(y, feed_list=[x])

        def worker(seed):
            local = np.random.default_rng(100 + seed)
            try:
                for i in range(10):
                    X = local.standard_normal((seed + 1, 16)).astype(np.float32)
                    out = sess.run(y, {x: X}) if i % 2 else fn(X)
                    np.testing.assert_allclose(out, np.maximum(X @ W + b, 0),
                                               rtol=1e-5, atol=1e-5)
            except Exception as e:  # collected and reported by the main thread
                failures.append((seed, repr(e)))

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "a run hung"
    assert failures == []
