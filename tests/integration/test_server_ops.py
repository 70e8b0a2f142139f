"""Each op graphd.v1 builds, computed by the server and checked against numpy;
every wire dtype round-trips through a Placeholder and Identity."""

import numpy as np
import pytest

import graphd.v1 as tf

RTOL = 1e-5


@pytest.fixture
def run(target):
    sessions = []

    def run(fetches, feed_dict=None):
        if not sessions:
            sessions.append(tf.Session(target))
        return sessions[0].run(fetches, feed_dict)

    yield run
    for s in sessions:
        s.close()


@pytest.mark.parametrize("dtype,value", [
    (tf.float32, np.array([[1.5, -2.0], [0.0, 3.25]], np.float32)),
    (tf.float64, np.array([1e300, -1e-300, 0.5])),
    (tf.float16, np.array([1.5, -65504.0, 0.0009765625], np.float16)),
    (tf.bfloat16, np.array([1.0, -2.5, 256.0], np.float32)),
    (tf.int8, np.array([-128, 0, 127], np.int8)),
    (tf.int16, np.array([-32768, 1, 32767], np.int16)),
    (tf.int32, np.array([[-2**31, 0, 2**31 - 1]], np.int32)),
    (tf.int64, np.array([-2**63, 0, 2**63 - 1], np.int64)),
    (tf.uint8, np.array([0, 128, 255], np.uint8)),
    (tf.bool, np.array([True, False, True])),
    (tf.string, np.array([b"", b"graphd", "\u00e9".encode()], dtype=object)),
    (tf.float32, np.float32(7.5)),
    (tf.int32, np.zeros((0, 4), np.int32)),
])
def test_dtype_round_trip(run, dtype, value):
    p = tf.placeholder(dtype, name="p")
    out = run(tf.identity(p), {p: value})
    if np.ndim(value) == 0:
        assert isinstance(out, np.generic) and not isinstance(out, np.ndarray)
    assert np.shape(out) == np.shape(value)
    assert np.asarray(out).dtype == np.dtype(dtype.as_numpy_dtype)
    if dtype == tf.string:
        assert out.tolist() == value.tolist()
    else:
        np.testing.assert_array_equal(out, value)
    c = tf.constant(value, dtype=dtype, name="c")
    const_out = run(c)
    assert np.shape(const_out) == np.shape(value)
    if dtype != tf.string:
        np.testing.assert_array_equal(const_out, value)


def test_binary_ops_broadcast(run):
    rng = np.random.default_rng(10)
    A = rng.standard_normal((3, 1, 4)).astype(np.float32)
    B = rng.standard_normal((2, 4)).astype(np.float32) + 3.0
    a = tf.placeholder(tf.float32, name="a")
    b = tf.constant(B, name="b")
    fetches = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b,
               "max": tf.maximum(a, b), "min": tf.minimum(a, b),
               "radd": 1.0 + a, "rsub": 1.0 - a, "rdiv": 2.0 / b, "neg": -a,
               "scalar": a * 0.5}
    out = run(fetches, {a: A})
    ref = {"add": A + B, "sub": A - B, "mul": A * B, "div": A / B,
           "max": np.maximum(A, B), "min": np.minimum(A, B), "radd": 1 + A,
           "rsub": 1 - A, "rdiv": 2 / B, "neg": -A, "scalar": A * 0.5}
    for key in ref:
        assert out[key].shape == ref[key].shape, key
        np.testing.assert_allclose(out[key], ref[key].astype(np.float32), rtol=RTOL,
                                   err_msg=key)


def test_integer_arithmetic(run):
    a = tf.constant([7, -7, 9, -9], dtype=tf.int32)
    b = tf.constant([2, 2, -4, -4], dtype=tf.int32)
    out = run({"div": tf.div(a, b), "true": a / b, "sum": a + b, "mul": a * b,
               "i64": tf.constant([2**40], tf.int64) * 4})
    np.testing.assert_array_equal(out["div"], [3, -3, -2, 2])  # truncation, C semantics
    assert out["div"].dtype == np.int32
    np.testing.assert_array_equal(out["true"], [3.5, -3.5, -2.25, 2.25])
    assert out["true"].dtype == np.float64
    np.testing.assert_array_equal(out["sum"], [9, -5, 5, -13])
    np.testing.assert_array_equal(out["mul"], [14, -14, -36, 36])
    np.testing.assert_array_equal(out["i64"], [2**42])


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True),
                                   (True, True)])
def test_matmul_transposes(run, ta, tb):
    rng = np.random.default_rng(11)
    A = rng.standard_normal((5, 3) if ta else (3, 5)).astype(np.float32)
    B = rng.standard_normal((2, 5) if tb else (5, 2)).astype(np.float32)
    out = run(tf.matmul(tf.constant(A), tf.constant(B), transpose_a=ta, transpose_b=tb))
    ref = (A.T if ta else A).astype(np.float64) @ (B.T if tb else B)
    assert out.dtype == np.float32 and out.shape == (3, 2)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_activations(run):
    X = np.linspace(-6, 6, 24, dtype=np.float32).reshape(4, 6)
    x = tf.placeholder(tf.float32, [None, 6])
    out = run([tf.nn.relu(x), tf.sigmoid(x), tf.nn.sigmoid(x), tf.tanh(x),
               tf.nn.softmax(x)], {x: X})
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    refs = [np.maximum(X, 0), 1 / (1 + np.exp(-X)), 1 / (1 + np.exp(-X)), np.tanh(X),
            e / e.sum(axis=-1, keepdims=True)]
    for got, ref in zip(out, refs):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    half = run(tf.nn.relu(tf.constant([-1.0, 2.0], tf.float64)))
    np.testing.assert_array_equal(half, [0.0, 2.0])


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], [-1, -3]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(run, axis, keepdims):
    X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
    x = tf.constant(X)
    out = run([tf.reduce_sum(x, axis=axis, keepdims=keepdims),
               tf.reduce_mean(x, axis=axis, keepdims=keepdims),
               tf.reduce_max(x, axis=axis, keepdims=keepdims)])
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    refs = [X.sum(axis=np_axis, keepdims=keepdims), X.mean(axis=np_axis, keepdims=keepdims),
            X.max(axis=np_axis, keepdims=keepdims)]
    for got, ref in zip(out, refs):
        assert np.shape(got) == ref.shape
        np.testing.assert_allclose(got, ref, rtol=RTOL)


def test_integer_reductions(run):
    X = np.array([[1, 2, 4], [8, 16, 33]], np.int64)
    out = run([tf.reduce_sum(tf.constant(X), axis=1), tf.reduce_max(tf.constant(X)),
               tf.reduce_mean(tf.constant(X), axis=0)])
    np.testing.assert_array_equal(out[0], [7, 57])
    assert out[1] == 33 and isinstance(out[1], np.int64)
    np.testing.assert_array_equal(out[2], [4, 9, 18])


def test_reshape_and_cast(run):
    X = np.arange(12, dtype=np.float32) * 0.75 - 4
    x = tf.constant(X)
    out = run({"r": tf.reshape(x, [3, -1]), "r2": tf.reshape(x, [2, 3, 2]),
               "flat": tf.reshape(tf.reshape(x, [4, 3]), [-1]),
               "i": tf.cast(x, tf.int32), "d": tf.cast(x, tf.float64),
               "b": tf.cast(tf.constant([0, 2, -1]), tf.bool),
               "u": tf.cast(tf.constant([1.0, 200.0]), tf.uint8)})
    np.testing.assert_array_equal(out["r"], X.reshape(3, 4))
    np.testing.assert_array_equal(out["r2"], X.reshape(2, 3, 2))
    np.testing.assert_array_equal(out["flat"], X)
    np.testing.assert_array_equal(out["i"], X.astype(np.int32))  # toward zero
    assert out["i"].dtype == np.int32 and out["d"].dtype == np.float64
    np.testing.assert_array_equal(out["d"], X.astype(np.float64))
    np.testing.assert_array_equal(out["b"], [False, True, True])
    np.testing.assert_array_equal(out["u"], np.uint8([1, 200]))


def test_identity_no_op_and_group(run):
    a = tf.constant([1, 2], name="a")
    out = run([tf.identity(a), tf.no_op(), tf.group(a, tf.identity(a))])
    np.testing.assert_array_equal(out[0], [1, 2])
    assert out[1] is None and out[2] is None
