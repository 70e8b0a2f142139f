"""One function cache shared across sessions (issue 14): sessions that load the same
ONNX model, GraphDef function, TF1 graph or source module compile each signature once
and share the concrete function (the server's function cache counters show no second
compile), while what is per session stays per session: variables, and for source
functions the tracing count and the trace-time print output each session sees. GPU
sessions keep their concrete functions to themselves (their device memory goes back
when they close)."""

import os

import threading

import numpy as np

import graphd
import graphd.v1 as tf
from onnx_helpers import onnx_pb2
from test_onnx_models import FLOAT, make_model, node


def _compiles(client):
    return client.server_info().function_cache.compiles


def _model_bytes(seed=0):
    pb = onnx_pb2()
    rng = np.random.default_rng(seed)
    w = pb.TensorProto(name="w", data_type=FLOAT, dims=[6, 3],
                       float_data=rng.standard_normal(18).astype(np.float32).tolist())
    return make_model([node("MatMul", ["x", "w"], ["h"]), node("Relu", ["h"], ["y"])],
                      [("x", FLOAT, [None, 6])], [("y", FLOAT, [None, 3])], [w]), w


def test_onnx_model_in_a_second_session_does_not_compile_again(start_server):
    server = start_server()
    model, w = _model_bytes()
    weights = np.array(w.float_data, np.float32).reshape(6, 3)
    x = np.arange(12, dtype=np.float32).reshape(2, 6) - 5
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        before = _compiles(a)
        fn_a = a.load_onnx(model)
        assert _compiles(a) == before + 1  # the model parsed
        np.testing.assert_allclose(fn_a(x), np.maximum(x @ weights, 0), rtol=1e-5)
        assert _compiles(a) == before + 2  # its function for x's shape compiled
        fn_b = b.load_onnx(model)
        assert _compiles(b) == before + 2, "the second session parsed the same model again"
        np.testing.assert_allclose(fn_b(x), np.maximum(x @ weights, 0), rtol=1e-5)
        assert _compiles(b) == before + 2, "the second session compiled the same model again"
        # Another signature is another concrete function, compiled once for both.
        fn_b(np.ones((5, 6), np.float32))
        assert _compiles(b) == before + 3
        assert len(fn_b.signatures()) == 2
        # A different model (other weights) is not served by the first one's function.
        changed, w2 = _model_bytes(seed=1)
        got = b.load_onnx(changed)(x)
        np.testing.assert_allclose(got, np.maximum(x @ np.array(w2.float_data, np.float32).reshape(6, 3), 0),
                                   rtol=1e-5)
        assert _compiles(b) == before + 5  # parsed, then compiled


def test_ten_concurrent_first_calls_in_ten_sessions_compile_once(start_server):
    server = start_server()
    model, _ = _model_bytes()
    clients = [graphd.connect(server.target, device="cpu") for _ in range(10)]
    try:
        fns = [c.load_onnx(model) for c in clients]
        before = clients[0].server_info().function_cache
        x = np.ones((3, 6), np.float32)
        results, failures = [], []
        barrier = threading.Barrier(len(fns))

        def call(fn):
            try:
                barrier.wait(10)
                results.append(fn(x))
            except Exception as e:  # noqa: BLE001 (reported below)
                failures.append(e)

        threads = [threading.Thread(target=call, args=(fn,)) for fn in fns]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not failures, failures
        assert len(results) == 10
        for r in results:
            np.testing.assert_array_equal(r, results[0])
        after = clients[0].server_info().function_cache
        assert after.compiles == before.compiles + 1
        assert after.hits + after.waits - before.hits - before.waits >= 9
    finally:
        for c in clients:
            c.close()


def test_ten_concurrent_loads_of_one_model_parse_it_once(start_server):
    server = start_server()
    model, w = _model_bytes(seed=7)
    clients = [graphd.connect(server.target, device="cpu") for _ in range(10)]
    try:
        before = clients[0].server_info().function_cache
        fns, failures = [], []
        barrier = threading.Barrier(len(clients))

        def load(c):
            try:
                barrier.wait(10)
                fns.append(c.load_onnx(model))
            except Exception as e:  # noqa: BLE001 (reported below)
                failures.append(e)

        threads = [threading.Thread(target=load, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not failures, failures
        after = clients[0].server_info().function_cache
        assert after.compiles == before.compiles + 1
        assert after.hits + after.waits - before.hits - before.waits >= 9
        x = np.ones((2, 6), np.float32)
        want = np.maximum(x @ np.array(w.float_data, np.float32).reshape(6, 3), 0)
        for fn in fns:
            np.testing.assert_allclose(fn(x), want, rtol=1e-5)
    finally:
        for c in clients:
            c.close()


def test_graphdef_function_is_shared_between_sessions(start_server):
    server = start_server()
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.nn.relu(x * 2.0 - 1.0)
    g = tf.get_default_graph()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        before = _compiles(a)
        np.testing.assert_array_equal(a.load_graph(g, outputs=[y], name="f")([0.0, 1.0]), [0.0, 1.0])
        np.testing.assert_array_equal(b.load_graph(g, outputs=[y], name="f")([2.0, 3.0]), [3.0, 5.0])
        assert _compiles(b) == before + 1


def test_tf1_runs_share_plans_but_not_variables(start_server):
    server = start_server()
    v = tf.Variable(np.float32(5), name="v")
    inc = v.assign_add(1.0)
    init = tf.global_variables_initializer()
    with tf.Session(server.target, device="cpu") as s1, tf.Session(server.target, device="cpu") as s2, \
            graphd.connect(server.target, device="cpu") as probe:
        s1.run(init)
        assert s1.run(inc) == 6.0
        compiles = _compiles(probe)
        s2.run(init)  # compiled by s1 already
        assert _compiles(probe) == compiles
        assert s2.run(v) == 5.0, "a variable write in one session was seen by the other"
        assert s2.run(inc) == 6.0
        assert s1.run(v) == 6.0
        assert _compiles(probe) == compiles + 1  # only `v` alone is new


SOURCE = '''
import tensorflow as tf

calls = []
v = None

@tf.function
def f(x):
    print("tracing f")
    return x * 2.0 + len(calls)

@tf.function
def g(x):
    calls.append(1)          # Python state: every later trace of f sees it
    return x

@tf.function
def counter():
    global v
    if v is None:
        v = tf.Variable(0)
    v.assign_add(1)
    return v.read_value()

@tf.function
def draw():
    return tf.random.uniform([3], seed=5), tf.random.uniform([3])
'''


def test_a_second_sessions_first_call_does_not_trace_but_looks_as_if_it_did(start_server):
    server = start_server()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        ma, mb = a.load_module(SOURCE, filename="m.py"), b.load_module(SOURCE, filename="m.py")
        graphd.last_call_stats()
        assert float(ma.f(np.float32(1))) == 2.0
        assert ma.f.experimental_get_tracing_count() == 1
        before = _compiles(a)
        assert float(mb.f(np.float32(5))) == 10.0
        assert _compiles(b) == before, "the second session traced the same function again"
        assert mb.f.experimental_get_tracing_count() == 1  # as tf.function counts it in this session
        # Variables stay per session: the shared trace creates and updates each session's own.
        assert int(ma.counter()) == 1 and int(ma.counter()) == 2
        compiles = _compiles(a)
        assert int(mb.counter()) == 1, "a variable write in one session was seen by the other"
        assert int(ma.counter()) == 3 and int(mb.counter()) == 2
        assert _compiles(b) == compiles
        assert mb.counter.experimental_get_tracing_count() == ma.counter.experimental_get_tracing_count()


def test_print_output_at_trace_time_reaches_the_session_that_took_the_trace(start_server, capfd):
    server = start_server()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        ma, mb = a.load_module(SOURCE, filename="p.py"), b.load_module(SOURCE, filename="p.py")
        ma.f(np.float32(1))
        assert "tracing f" in capfd.readouterr().out
        mb.f(np.float32(1))
        assert "tracing f" in capfd.readouterr().out
        mb.f(np.float32(2))  # a cache hit in b: no print
        assert "tracing f" not in capfd.readouterr().out


def test_traces_are_shared_only_between_modules_in_the_same_python_state(start_server):
    server = start_server()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        ma, mb = a.load_module(SOURCE, filename="s.py"), b.load_module(SOURCE, filename="s.py")
        ma.g(np.float32(0))  # a's `calls` now has one item
        assert float(ma.f(np.float32(1))) == 3.0
        assert float(mb.f(np.float32(1))) == 2.0, "b took a trace made in another Python state"
        # b takes a's trace of g, then traces f for a new signature: it replays g first,
        # so f sees what g left, as in a.
        with graphd.connect(server.target, device="cpu") as c:
            mc = c.load_module(SOURCE, filename="s.py")
            compiles = _compiles(c)
            mc.g(np.float32(0))
            assert _compiles(c) == compiles  # taken from a
            np.testing.assert_array_equal(mc.f(np.ones(2, np.float32)), [3.0, 3.0])
            np.testing.assert_array_equal(ma.f(np.ones(2, np.float32)), [3.0, 3.0])


def test_random_streams_stay_per_session_in_a_shared_function(start_server):
    server = start_server()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        ma, mb = a.load_module(SOURCE, filename="r.py"), b.load_module(SOURCE, filename="r.py")
        seeded_a1, free_a = ma.draw()
        seeded_a2, _ = ma.draw()
        compiles = _compiles(a)
        seeded_b1, free_b = mb.draw()
        assert _compiles(b) == compiles  # shared
        np.testing.assert_array_equal(seeded_b1, seeded_a1)  # b's stream starts at its beginning
        assert not np.array_equal(seeded_a1, seeded_a2)
        assert not np.array_equal(free_a, free_b)  # unseeded: each session its own numbers



def test_gpu_sessions_keep_their_functions_and_free_them_at_close(start_server):
    server = start_server(env=dict(os.environ, GRAPHD_TEST_FAKE_GPU="mixed"))
    model, _ = _model_bytes()
    x = np.ones((2, 6), np.float32)
    with graphd.connect(server.target, device="cpu") as probe:
        before = probe.server_info().function_cache
        with graphd.connect(server.target, device="gpu") as a, graphd.connect(server.target, device="gpu") as b:
            np.testing.assert_array_equal(a.load_onnx(model)(x), b.load_onnx(model)(x))
            during = probe.server_info().function_cache
            # Each GPU session parsed and compiled its own.
            assert during.compiles == before.compiles + 4
            assert during.entries == before.entries + 4
        after = probe.server_info().function_cache
        assert after.entries == before.entries  # erased when they closed


LAZY = '''
import tensorflow as tf

v = None

@tf.function
def make_and_bump():
    global v
    if v is None:
        v = tf.Variable(10.0)
    v.assign_add(1.0)
    return v.read_value()

first = make_and_bump()
print("after load: v is set:", v is not None)   # the Python state the trace left
'''


def test_a_trace_taken_while_a_module_loads_leaves_the_state_it_would_have(start_server, capfd):
    server = start_server()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        a.load_module(LAZY, filename="lazy.py")
        assert "after load: v is set: True" in capfd.readouterr().out
        compiles = _compiles(b)
        mb = b.load_module(LAZY, filename="lazy.py")  # takes a's trace, then goes on with v set
        assert "after load: v is set: True" in capfd.readouterr().out
        assert _compiles(b) == compiles
        assert float(mb.make_and_bump()) == 12.0


NOISY = '''
import tensorflow as tf

noise = tf.random.normal([4])      # eager, unseeded: each session its own numbers

@tf.function
def f(x):
    return x + noise

@tf.function
def g():
    return noise
'''


def test_module_level_eager_results_keep_traces_apart(start_server):
    server = start_server()
    with graphd.connect(server.target, device="cpu") as a, graphd.connect(server.target, device="cpu") as b:
        ma, mb = a.load_module(NOISY, filename="n.py"), b.load_module(NOISY, filename="n.py")
        fa, fb = ma.f(np.float32(0)), mb.f(np.float32(0))
        assert not np.array_equal(fa, fb), "b ran a trace that baked in a's random numbers"
        np.testing.assert_array_equal(fb, mb.g())
        np.testing.assert_array_equal(fa, ma.g())


VARIABLE_ARGS = '''
import tensorflow as tf

a = tf.Variable(1.0)
b = tf.Variable(2.0)      # the same repr as a's: <tf.Variable 'Variable:0' ...>

@tf.function
def read(v):
    return v.read_value()

print("read", read(a), read(b))
'''


def test_variables_passed_as_arguments_are_told_apart(client, capfd):
    client.load_module(VARIABLE_ARGS, filename="vars.py")
    out = capfd.readouterr().out
    assert "read tf.Tensor(1.0, shape=(), dtype=float32) tf.Tensor(2.0, shape=(), dtype=float32)" in out, out


INSTANCES = '''
import tensorflow as tf

class Scale:
    def __init__(self, k):
        self.k = k

@tf.function
def apply(s, x):
    return x * s.k

print("applied", apply(Scale(2.0), tf.constant(1.0)), apply(Scale(3.0), tf.constant(1.0)))
'''


def test_instances_with_one_repr_get_their_own_traces(client, capfd):
    client.load_module(INSTANCES, filename="inst.py")
    out = capfd.readouterr().out
    assert "applied tf.Tensor(2.0, shape=(), dtype=float32) tf.Tensor(3.0, shape=(), dtype=float32)" in out, out
