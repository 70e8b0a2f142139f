"""Sizes computed from what a client sends never wrap around (issue 17, defect 1): a
Tile of [4] by 2^62 used to wrap to an empty output and then write 2^64 elements,
killing the server. Every op that multiplies or adds sizes is driven here with
extreme values, at module level (eager) and inside a tf.function; each must fail with
a clear INVALID_ARGUMENT or RESOURCE_EXHAUSTED (or compute a correct empty result),
the server must stay up, and a neighbour session must keep its state."""

import numpy as np
import pytest

import graphd

HUGE = [2**62, 2**63 - 1, 2**40, -2**63, 2**31]

# Each body defines z from the extreme value {b}.
CASES = {
    "tile": "z = tf.tile(tf.ones([4]), [{b}])",
    "tile_2d": "z = tf.tile(tf.ones([3, 5]), [{b}, {b}])",
    "pad": "z = tf.pad(tf.ones([4]), [[{b}, {b}]])",
    "fill": "z = tf.fill([{b}, {b}], 1.0)",
    "zeros": "z = tf.zeros([{b}, 4])",
    "reshape": "z = tf.reshape(tf.ones([4]), [{b}, -1])",
    "reshape_empty": "z = tf.reshape(tf.ones([0]), [{b}, {b}, -1])",
    "broadcast_to": "z = tf.broadcast_to(tf.ones([1]), [{b}, {b}])",
    "range": "z = tf.range(-{b}, {b}, 1)",
    "range_limit": "z = tf.range({b})",
    "concat_axis": "z = tf.concat([tf.ones([2]), tf.ones([3])], axis={b})",
    "one_hot": "z = tf.one_hot([1, 2], {b})",
    "resize": "z = tf.image.resize(tf.ones([1, 4, 4, 1]), [{b}, {b}])",
    "conv2d_transpose": "z = tf.nn.conv2d_transpose(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), "
                        "[1, {b}, {b}, 1], strides=[1, {b}, {b}, 1])",
    "einsum": "z = tf.einsum('i,j->ij', tf.ones([{b}]), tf.ones([2]))",
    "slice": "z = tf.slice(tf.ones([4]), [{b}], [{b}])",
    "strided_slice": "z = tf.ones([4])[{b}:{b}:{b}]",
    "gather": "z = tf.gather(tf.ones([4]), [{b}])",
    "expand_dims": "z = tf.expand_dims(tf.ones([4]), {b})",
    "split": "z = tf.split(tf.ones([4]), {b})",
    "eye": "z = tf.eye({b})",
    "random_uniform": "z = tf.random.uniform([{b}, {b}])",
    "sequence_mask": "z = tf.sequence_mask([{b}])",
    "depth_to_space": "z = tf.nn.depth_to_space(tf.ones([1, 4, 4, 4]), {b})",
    "max_pool": "z = tf.nn.max_pool2d(tf.ones([1, 4, 4, 1]), {b}, {b}, 'SAME')",
    "conv2d": "z = tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([3, 3, 1, 1]), {b}, 'SAME', dilations={b})",
    "segment_sum": "z = tf.math.unsorted_segment_sum(tf.ones([4]), [0, 1, 2, 3], {b})",
    "roll": "z = tf.roll(tf.ones([4]), {b}, 0)",
    "repeat": "z = tf.repeat(tf.ones([4]), {b})",
    "linspace": "z = tf.linspace(0.0, 1.0, {b})",
}

ACCEPTED = (graphd.errors.InvalidArgumentError, graphd.errors.ResourceExhaustedError,
            graphd.errors.OutOfRangeError, graphd.errors.UnimplementedError)


def _sources(body):
    yield "eager", "import tensorflow as tf\n" + body + "\n"
    yield "function", "import tensorflow as tf\n@tf.function\ndef f():\n    " + body + "\n    return z\n"


SERVER_FLAGS = ["--max-tensor-bytes", str(64 << 20)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_extreme_sizes_fail_cleanly(name, module_server):
    target = module_server.target
    with graphd.connect(target) as neighbour:
        keeper = neighbour.load_module("import tensorflow as tf\nv = tf.Variable([1.0, 2.0, 3.0])\n"
                                       "@tf.function\ndef read():\n    return v + 0.0\n")
        for b in HUGE:
            for where, source in _sources(CASES[name].format(b=b)):
                with graphd.connect(target, timeout=60) as c:
                    try:
                        m = c.load_module(source)
                        if where == "function":
                            out = np.asarray(m.f())  # a real, small result is fine
                            assert out.size * out.itemsize <= 64 << 20
                    except ACCEPTED as e:
                        assert e.message, (name, b, where)
                    except ValueError:
                        pass  # numpy cannot represent an empty array of such a shape client-side
                assert module_server.alive(), "graphd died on %s with %d (%s):\n%s" % (
                    name, b, where, module_server.log())
        np.testing.assert_array_equal(keeper.read(), [1.0, 2.0, 3.0])
