"""Runs past their timeout end quickly with DEADLINE_EXCEEDED and leave the
session usable."""

import time

import numpy as np
import pytest

import graphd.v1 as tf
from graphd import _tensor

import it_helpers as h

CHAIN = 300  # 300 chained 1000x1000 MatMuls: far more than 0.3 s of work on a CPU
# The sessions are CPU sessions in every run: a GPU finishes the chain well inside the
# timeouts, and what is tested here is the server's deadline, not a device.
DEVICE = "cpu"


def test_run_timeout(target):
    x, w, y = h.matmul_chain(CHAIN)
    small = tf.constant([1.0, 2.0], name="small") * 3.0
    feeds, _ = h.chain_feeds(x, w)
    with tf.Session(target, device=DEVICE) as sess:
        np.testing.assert_array_equal(sess.run(small), np.float32([3, 6]))
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(y, feeds, timeout=0.3)
        elapsed = time.monotonic() - start
        assert elapsed < 1.0, "timed-out run took %.2f s" % elapsed
        np.testing.assert_array_equal(sess.run(small, timeout=10), np.float32([3, 6]))


def test_server_enforces_run_options_timeout(target):
    # Only RunOptions.timeout_in_ms (a long gRPC deadline): the server itself
    # must stop the run and answer DEADLINE_EXCEEDED.
    x, w, y = h.matmul_chain(CHAIN)
    small = tf.constant(5.0, name="small") + 1.0
    feeds, _ = h.chain_feeds(x, w)
    with tf.Session(target, device=DEVICE) as sess:
        raw_feeds = [(t.name, _tensor.make_tensor_proto(v)) for t, v in feeds.items()]
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError) as info:
            h.raw_run(sess, feeds=raw_feeds, fetches=[y.name], timeout_in_ms=300,
                      deadline=60)
        elapsed = time.monotonic() - start
        assert elapsed < 1.0, "server took %.2f s to stop a 300 ms run" % elapsed
        assert info.value.detail is not None  # the server's answer, not gRPC's
        assert sess.run(small, timeout=10) == 6.0


def test_config_operation_timeout(target):
    x, w, y = h.matmul_chain(CHAIN)
    feeds, _ = h.chain_feeds(x, w)
    config = tf.ConfigProto(operation_timeout_in_ms=300)
    with tf.Session(target, config=config, device=DEVICE) as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(y, feeds)
        assert time.monotonic() - start < 1.0
