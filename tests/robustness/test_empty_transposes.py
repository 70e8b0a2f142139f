"""Empty tensors through Transpose's short-axis path (executor/cpu/channel_interleave.h):
a 0-sized axis where the channels would be once divided by zero there (SIGFPE, the
whole server). Each shape comes back empty with the permuted shape, non-empty
neighbours of the same shapes keep their values, and the server keeps serving."""

import numpy as np
import pytest

import graphd

SOURCE = ("import tensorflow as tf\n"
          "@tf.function\n"
          "def to_last(x):\n"
          "    return tf.transpose(x, [0, 2, 3, 1])\n"
          "@tf.function\n"
          "def to_first(x):\n"
          "    return tf.transpose(x, [0, 3, 1, 2])\n"
          "@tf.function\n"
          "def swap(x):\n"
          "    return tf.transpose(x)\n")

SHAPES = [(1, 3, 0, 5), (0, 3, 4, 4), (2, 0, 5, 7), (1, 0, 0, 3), (1, 9, 0, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_empty_transposes_come_back_empty_and_the_server_stays_up(dtype, module_server):
    with graphd.connect(module_server.target) as c:
        m = c.load_module(SOURCE)
        for shape in SHAPES:
            x = np.zeros(shape, dtype)
            for fn, perm in ((m.to_last, (0, 2, 3, 1)), (m.to_first, (0, 3, 1, 2)), (m.swap, (3, 2, 1, 0))):
                got = fn(x)
                assert got.shape == tuple(shape[p] for p in perm), (shape, perm)
                assert got.dtype == dtype
        for shape in [(1, 3, 4, 5), (2, 8, 3, 3)]:  # the same path with elements
            x = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
            np.testing.assert_array_equal(m.to_last(x), np.transpose(x, (0, 2, 3, 1)))
            np.testing.assert_array_equal(m.to_first(x), np.transpose(x, (0, 3, 1, 2)))
        np.testing.assert_array_equal(m.swap(np.ones((2, 0), dtype)), np.ones((0, 2), dtype))
    assert module_server.alive(), module_server.log()
