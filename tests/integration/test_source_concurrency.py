"""Tracing does not hold up the session (issue 14): while one function of a module
traces (a long Python loop at trace time), cache hits of another function of the same
module and calls in other modules run; concurrent first calls with one signature trace
once, and every caller gets the result."""

import threading
import time

import numpy as np

import graphd

SOURCE = """
import tensorflow as tf

@tf.function
def fast(x):
    return x + 1

@tf.function
def slow(x, n):
    s = 0
    for i in range(n):      # a Python loop: runs while tracing, once per trace
        s = s + i
    return x + s
"""
N = 1_500_000  # seconds of tracing on any machine of ours


def test_cache_hits_run_while_another_function_traces(start_server):
    server = start_server("--cpu-threads", "4")
    with graphd.connect(server.target) as client:
        mod = client.load_module(SOURCE, filename="m.py")
        other = client.load_module(SOURCE, filename="other.py")
        assert int(mod.fast(np.int64(1))) == 2  # traced and cached
        assert int(other.fast(np.int64(1))) == 2
        result = {}
        tracer = threading.Thread(target=lambda: result.setdefault("slow", mod.slow(np.int64(1), N)))
        tracer.start()
        time.sleep(0.3)  # the trace is under way
        started = time.monotonic()
        for i in range(20):
            assert int(mod.fast(np.int64(i))) == i + 1
            assert int(other.fast(np.int64(i))) == i + 1
        took = time.monotonic() - started
        still_tracing = tracer.is_alive()
        tracer.join(60)
        assert still_tracing, "40 cached calls took %.2f s and waited for the trace" % took
        assert int(result["slow"]) == 1 + N * (N - 1) // 2
        assert mod.fast.experimental_get_tracing_count() == 1


def test_concurrent_first_calls_trace_once(target):
    with graphd.connect(target) as client:
        mod = client.load_module(SOURCE, filename="m.py")
        results, errors = [], []

        def call():
            try:
                results.append(int(mod.slow(np.int64(2), 200_000)))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=call) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert results == [2 + 200_000 * 199_999 // 2] * 4
        assert mod.slow.experimental_get_tracing_count() == 1
