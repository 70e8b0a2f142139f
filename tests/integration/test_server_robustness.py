"""Inputs that once could crash the server or hold it hostage: each now fails with
a clear error, and the server keeps serving."""

import re
import time

import numpy as np
import pytest

import graphd
import graphd.v1 as tf

import it_helpers as h
from graphd import _tensor


def _tensor_proto(array):
    return _tensor.make_tensor_proto(array)


def _still_serves(target):
    with tf.Graph().as_default():
        c = tf.constant(np.float32(2.5)) * 2.0
        with tf.Session(target) as sess:
            assert sess.run(c) == np.float32(5.0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division_overflow_is_an_error_not_a_crash(target, dtype):
    lowest = np.iinfo(dtype).min
    num = tf.constant(np.array([lowest, 6], dtype=dtype))
    den = tf.constant(np.array([-1, -1], dtype=dtype))
    q = tf.truncatediv(num, den)
    with tf.Session(target) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(q)
        assert "overflow" in str(info.value)
        # Without the most negative value the same division is fine.
        ok = tf.truncatediv(tf.constant(np.array([7, -6], dtype=dtype)), den)
        np.testing.assert_array_equal(sess.run(ok), np.array([-7, 6], dtype=dtype))
    _still_serves(target)


def test_tensor_larger_than_max_tensor_bytes_fails_before_allocating(start_server):
    server = start_server("--max-tensor-bytes", str(1 << 20))
    # [n,0] x [0,n]: tiny inputs, an n*n output (here 64 MiB > 1 MiB).
    a = tf.placeholder(tf.float32, [4096, 0])
    b = tf.placeholder(tf.float32, [0, 4096])
    big = tf.matmul(a, b)
    small = tf.matmul(tf.placeholder(tf.float32, [2, 0], name="a2"),
                      tf.placeholder(tf.float32, [0, 3], name="b2"))
    with tf.Session(server.target) as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError) as info:
            sess.run(big, {a: np.zeros((4096, 0), np.float32), b: np.zeros((0, 4096), np.float32)})
        assert "bytes per tensor" in str(info.value)
        out = sess.run(small, {"a2:0": np.zeros((2, 0), np.float32),
                               "b2:0": np.zeros((0, 3), np.float32)})
        np.testing.assert_array_equal(out, np.zeros((2, 3), np.float32))
    _still_serves(server.target)


def test_deadline_stops_a_long_kernel_not_just_between_kernels(target):
    # One int32 MatMul of 2000x2000 (plain loops, 8e9 multiply-adds): a single kernel
    # that runs for seconds. Only the server's own deadline (RunOptions) is set, with
    # a long gRPC deadline, so the server must stop the kernel from inside.
    n = 2000
    a = tf.placeholder(tf.int32, [n, n], name="mm_a")
    b = tf.placeholder(tf.int32, [n, n], name="mm_b")
    prod = tf.matmul(a, b, name="mm_prod")
    ones = _tensor_proto(np.ones((n, n), np.int32))
    x = tf.placeholder(tf.int32, [None], name="x_small")
    with tf.Session(target) as sess:
        sess.run(tf.no_op(name="ship_graph"))
        # The baseline: the same request path with a trivial kernel, on this machine
        # under its current load. The kernel alone would take seconds.
        start = time.monotonic()
        small = np.ones((n, n), np.int32)
        sess.run(x + 1, {x: small.reshape(-1)})
        baseline = time.monotonic() - start
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError) as info:
            h.raw_run(sess, feeds=[("mm_a:0", ones), ("mm_b:0", ones)], fetches=["mm_prod:0"],
                      timeout_in_ms=200, deadline=60)
        elapsed = time.monotonic() - start
        # Stopped from inside the kernel: within the deadline plus a generous multiple
        # of the baseline, far from the seconds the whole kernel takes.
        assert elapsed < 0.2 + max(1.5, 10 * baseline), (elapsed, baseline)
        assert info.value.detail is not None  # the server's answer, not the client's deadline
        np.testing.assert_array_equal(sess.run(x + 1, {x: [1, 2]}), [2, 3])


def test_gpu_session_request_is_answered_clearly(target):
    with graphd.connect(target) as client:
        gpus = [d for d in client.list_devices() if d.device_type == "GPU"]
    if not gpus:
        # A CPU-only server says so, with the reason the GPU probe gave.
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            tf.Session(target, device="gpu")
        assert re.search(r"no GPU device on this server \((CUDA|built without CUDA).+\)", str(info.value))
    else:
        # A GPU is there: the session opens and computes (tests/integration/test_gpu_sessions.py
        # compares GPU and CPU results).
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [3], name="x")
            with tf.Session(target, device="gpu") as sess:
                np.testing.assert_allclose(sess.run(x * 2.0, {x: [1, 2, 3]}), [2, 4, 6])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.Session(target, device="tpu")
    assert "tpu" in str(info.value)


def test_deeply_nested_python_values_are_refused_not_a_crash(target):
    """A module's own code can build containers far deeper than a request may carry:
    passing one to a tf.function is a clear error, and repr() of one (print, str)
    stops nesting instead of overflowing the server's stack."""
    deep = """
import tensorflow as tf

@tf.function
def f(x):
    return 1

x = []
for i in range(100000):
    x = [x]
print(len(str(x)) > 100)
"""
    with graphd.connect(target) as client:
        with pytest.raises(graphd.errors.InvalidArgumentError, match="nest deeper than"):
            client.load_module(deep + "y = f(x)\n")
        client.load_module(deep, filename="printed.py")
        assert client.load_module("import tensorflow as tf\n@tf.function\ndef g(x):\n    return x + 1\n").g(1) == 2
