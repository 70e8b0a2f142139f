"""SIGTERM: readiness turns NOT_SERVING, in-flight runs finish within
--drain-seconds, and the process exits 0."""

import signal
import threading
import time

import numpy as np

import graphd
import graphd.v1 as tf

import it_helpers as h

DRAIN_SECONDS = 30
TARGET_RUN_SECONDS = 3.0
# CPU sessions in every run: a GPU runs even the longest chain below in well under a
# second, and the drain, not a device, is what is tested.
DEVICE = "cpu"


def _seconds_per_matmul(target):
    """Times chains of 4 and 20 MatMuls; the difference cancels the fixed
    per-run costs (feeding 8 MB, scheduling)."""
    timings = []
    for n in (4, 20):
        g = tf.Graph()
        with g.as_default():
            x, w, y = h.matmul_chain(n, name_prefix="calib")
        with tf.Session(target, graph=g, device=DEVICE) as sess:
            feeds, _ = h.chain_feeds(x, w)
            sess.run(y, feeds)  # warm-up (first run of this signature)
            start = time.monotonic()
            sess.run(y, feeds)
            timings.append(time.monotonic() - start)
    return max((timings[1] - timings[0]) / 16, timings[1] / 20 / 4, 1e-4)


def test_sigterm_drains_in_flight_run(start_server):
    server = start_server("--drain-seconds", str(DRAIN_SECONDS))
    per_matmul = _seconds_per_matmul(server.target)
    n = int(min(max(TARGET_RUN_SECONDS / per_matmul, 10), 3000))

    g = tf.Graph()
    with g.as_default():
        x, w, y = h.matmul_chain(n, name_prefix="long")
    sess = tf.Session(server.target, graph=g, device=DEVICE)
    feeds, expected = h.chain_feeds(x, w, seed=7)
    outcome = {}

    def long_run():
        try:
            outcome["value"] = sess.run(y, feeds)
        except graphd.errors.OpError as e:
            outcome["error"] = e
        outcome["finished_at"] = time.monotonic()

    watcher = graphd.connect(server.target)
    runner = threading.Thread(target=long_run)
    runner.start()
    time.sleep(min(0.5, TARGET_RUN_SECONDS / 4))  # let the run reach the server
    assert runner.is_alive(), "the run finished before SIGTERM; calibration failed"
    server.proc.send_signal(signal.SIGTERM)
    sent_at = time.monotonic()

    states = []
    while server.alive() and time.monotonic() - sent_at < DRAIN_SECONDS + 5:
        try:
            states.append(watcher.health("readiness", timeout=0.5))
        except graphd.errors.OpError as e:
            states.append(type(e).__name__)
        if "NOT_SERVING" in states:
            break
        time.sleep(0.02)

    runner.join(timeout=DRAIN_SECONDS + 10)
    assert not runner.is_alive(), "the in-flight run never returned"
    try:
        status = server.proc.wait(timeout=DRAIN_SECONDS + 5)
    finally:
        watcher.connection.close()
    exited_at = time.monotonic()
    assert status == 0, "graphd exited with %s\n%s" % (status, server.log())
    assert exited_at - sent_at < DRAIN_SECONDS + 2
    assert "NOT_SERVING" in states, "readiness never reported NOT_SERVING: %s" % states
    # A ~3 s run with 30 s of drain time must complete, and be right.
    assert "value" in outcome, "the in-flight run did not complete: %r" % outcome.get("error")
    np.testing.assert_allclose(outcome["value"], expected, rtol=1e-6)
    assert outcome["finished_at"] <= exited_at + 0.5
