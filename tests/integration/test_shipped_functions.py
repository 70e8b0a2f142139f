"""``@client.function``: a Python function's source shipped to the server and run there
as a tf.function, with the plain values it references."""

import numpy as np
import pytest

import graphd

DELTA = 1.0
WEIGHTS = np.float32([[1.0, 2.0], [3.0, 4.0]])


def huber_loss(a):
    if tf.abs(a) <= DELTA:  # noqa: F821 - runs on the server, where tf is graphd's
        loss = a * a / 2
    else:
        loss = DELTA * (tf.abs(a) - DELTA / 2)  # noqa: F821
    return loss


def project(x):
    return tf.matmul(x, WEIGHTS)  # noqa: F821


def test_shipped_function_with_referenced_values(target):
    with graphd.connect(target) as client:
        remote = client.function(huber_loss)
        np.testing.assert_allclose(remote(np.float32(9.0)), 8.5)
        np.testing.assert_allclose(remote(np.float32(0.5)), 0.125)
        proj = client.function(project)
        np.testing.assert_allclose(proj(np.float32([[1, 1]])), [[4.0, 6.0]])


def test_shipped_function_with_input_signature(target):
    with graphd.connect(target) as client:
        remote = client.function(huber_loss, input_signature=[graphd.TensorSpec(shape=[], dtype=graphd.float32)])
        np.testing.assert_allclose(remote(np.float32(0.5)), 0.125)
        np.testing.assert_allclose(remote(2.0), 1.5)  # Python numbers convert to the spec
        assert remote.experimental_get_tracing_count() == 1
        with pytest.raises(ValueError):
            remote(np.float32([1.0, 2.0]))


def test_errors_point_at_the_line_in_the_original_file(target):
    with graphd.connect(target) as client:
        vector_cond = client.function(huber_loss, input_signature=[graphd.TensorSpec(shape=[None])])
        with pytest.raises(ValueError) as info:
            vector_cond(np.float32([1.0, 2.0]))
        line = huber_loss.__code__.co_firstlineno + 1  # the `if` line
        assert 'test_shipped_functions.py", line %d' % line in str(info.value)
