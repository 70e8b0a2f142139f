"""Closing a session stops the work running in it (issue 17, defect 5), and a second
server cannot silently share a port in use (defect 8)."""

import socket
import subprocess
import threading
import time

import numpy as np
import pytest

import graphd
from graphd.v1 import session_pb2

SLOW = ("import tensorflow as tf\n"
        "@tf.function\n"
        "def slow(n):\n"
        "    i = tf.constant(0)\n"
        "    while i < n:\n"
        "        i += 1\n"
        "    return i\n")


def _calls_in_flight_done(target, timeout):
    """A short call on another session answers within `timeout` (the worker is free)."""
    with graphd.connect(target) as other:
        start = time.monotonic()
        assert other.load_module("import tensorflow as tf\n@tf.function\ndef one():\n    return tf.constant(1)\n").one() == 1
        return time.monotonic() - start < timeout


def test_closing_a_session_stops_its_running_call(start_server):
    # One worker, busy with the call: CloseSession must not wait for a worker.
    server = start_server("--cpu-threads", "1")
    c = graphd.connect(server.target, timeout=600)
    module = c.load_module(SLOW)
    # How long a short loop takes here, to size one that would run for minutes.
    start = time.monotonic()
    module.slow(np.int32(200_000))
    per_step = max((time.monotonic() - start) / 200_000, 1e-8)
    steps = int(min(2**31 - 1, 300 / per_step))  # about five minutes of work
    outcome = {}

    def run():
        try:
            outcome["value"] = module.slow(np.int32(steps))
        except graphd.errors.OpError as e:
            outcome["error"] = e

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.5)
    assert t.is_alive()
    # Over the same channel (a new client would open a session, which needs a worker).
    c.connection.session("CloseSession", session_pb2.CloseSessionRequest(session_handle=c.session_handle),
                         timeout=30)
    t.join(120)
    assert not t.is_alive(), "the call kept running after its session was closed"
    assert isinstance(outcome.get("error"), graphd.errors.CancelledError), outcome
    assert "its session was closed" in outcome["error"].message
    # The only worker is free again.
    assert _calls_in_flight_done(server.target, 60)
    assert server.alive()


def test_a_second_server_on_a_port_in_use_refuses_to_start(start_server, tmp_path):
    from conftest import graphd_binary
    first = start_server()
    out = subprocess.run([graphd_binary(), "--listen", first.target], capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "cannot listen on %s" % first.target in out.stderr and "--reuse-port" in out.stderr
    assert first.alive()


def test_reuse_port_lets_two_servers_share_it(start_server):
    from conftest import graphd_binary
    first = start_server("--reuse-port")
    second = subprocess.Popen([graphd_binary(), "--listen", first.target, "--reuse-port"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        assert second.poll() is None, "--reuse-port: the second server should serve too"
        assert graphd.health(first.target, timeout=5) == "SERVING"
    finally:
        second.terminate()
        second.wait(timeout=20)
