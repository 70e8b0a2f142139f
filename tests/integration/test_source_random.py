"""tf.random.uniform / normal in function source, through the real server: new numbers
on every call, the same sequence again for a new trace with the same seeds (TensorFlow's
op-seed and global-seed rules), different sequences without seeds."""

import numpy as np

import graphd

SEEDED = '''
import tensorflow as tf

@tf.function
def draw():
    return tf.random.uniform([4], seed=7), tf.random.normal([3], mean=10.0, stddev=0.5, seed=8)

@tf.function
def dice(lo, hi):
    return tf.random.uniform([6], lo, hi, dtype=tf.int32, seed=9)
'''

GLOBAL_SEED = '''
import tensorflow as tf
tf.random.set_seed(1234)

@tf.function
def draw():
    return tf.random.uniform([4])
'''

UNSEEDED = '''
import tensorflow as tf

@tf.function
def draw():
    return tf.random.uniform([4])
'''


def draws(target, source, calls=2):
    with graphd.connect(target) as client:
        mod = client.load_module(source)
        return [mod.draw() for _ in range(calls)]


def test_a_seeded_generator_advances_per_call_and_restarts_per_trace(target):
    first = draws(target, SEEDED)
    again = draws(target, SEEDED)
    (u1, n1), (u2, n2) = first
    assert u1.shape == (4,) and u1.dtype == np.float32 and np.all((u1 >= 0) & (u1 < 1))
    assert n1.shape == (3,) and np.all(np.abs(n1 - 10.0) < 5)
    assert not np.array_equal(u1, u2) and not np.array_equal(n1, n2)  # a stream, not a constant
    for (a, b), (c, d) in zip(first, again):  # the same seeds, the same sequence
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_the_global_seed_alone_makes_the_sequence_repeatable(target):
    one, two = draws(target, GLOBAL_SEED), draws(target, GLOBAL_SEED)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(one[0], one[1])


def test_no_seed_draws_a_fresh_sequence(target):
    assert not np.array_equal(draws(target, UNSEEDED, 1)[0], draws(target, UNSEEDED, 1)[0])


def test_integer_bounds_may_be_tensors(target):
    with graphd.connect(target) as client:
        mod = client.load_module(SEEDED)
        for lo, hi in ((np.int32(3), np.int32(5)), (-2, 0)):
            d = mod.dice(lo, hi)
            assert d.dtype == np.int32 and np.all((d >= lo) & (d < hi)), d
