"""Hostile GraphDefs (issue 17), both ways a client sends one: LoadGraph (a function)
and a TF1 session (ExtendSession, then Run). Each must fail with a clear error (or
compute a small correct result), the server must stay up, a neighbour session must
keep its state, and the server's tensor memory must return to where it was."""

import struct
import time
import urllib.request

import numpy as np
import pytest

import graphd
from graphd.v1 import graph_pb2, session_pb2, tensor_pb2

from conftest import _free_port  # noqa: F401  (re-exported by the robustness conftest)

_METRICS_PORT = _free_port()
SERVER_FLAGS = ["--max-tensor-bytes", str(64 << 20), "--metrics-listen", "127.0.0.1:%d" % _METRICS_PORT]

ACCEPTED = (graphd.errors.InvalidArgumentError, graphd.errors.ResourceExhaustedError,
            graphd.errors.OutOfRangeError, graphd.errors.UnimplementedError,
            graphd.errors.FailedPreconditionError, graphd.errors.NotFoundError)


def _tensor_memory():
    url = "http://127.0.0.1:%d/metrics" % _METRICS_PORT
    with urllib.request.urlopen(url, timeout=30) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("graphd_tensor_memory_bytes "):
                return float(line.split()[1])
    raise AssertionError("no graphd_tensor_memory_bytes on /metrics")


def _const(g, name, dtype, fmt, values):
    t = tensor_pb2.TensorProto(dtype=dtype, content=struct.pack("<" + fmt * len(values), *values))
    t.shape.dim.append(len(values))
    n = g.node.add(name=name, op="Const")
    n.attr["value"].tensor.CopyFrom(t)
    n.attr["dtype"].type = dtype
    return n


def _placeholder(g, name="x", shape=(4,)):
    n = g.node.add(name=name, op="Placeholder")
    n.attr["dtype"].type = tensor_pb2.DT_FLOAT
    n.attr["shape"].shape.dim.extend(shape)
    return n


def tile_huge():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    _const(g, "m", tensor_pb2.DT_INT64, "q", [2**62])
    g.node.add(name="out", op="Tile", input=["x", "m"])
    return g


def reshape_huge():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    _const(g, "s", tensor_pb2.DT_INT64, "q", [2**62, 2**62, -1])
    g.node.add(name="out", op="Reshape", input=["x", "s"])
    return g


def fill_huge():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    _const(g, "dims", tensor_pb2.DT_INT64, "q", [2**31, 2**31])
    g.node.add(name="out", op="Fill", input=["dims", "x"])
    return g


def cycle():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    g.node.add(name="a", op="Add", input=["x", "out"])
    g.node.add(name="out", op="Add", input=["a", "x"])
    return g


def self_input():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    g.node.add(name="out", op="Neg", input=["out"])
    return g


def long_chain():
    # 20,000 nodes in a line: every walk of the graph (import, pruning, passes,
    # planning) must be iterative or bounded, not one stack frame per node.
    g = graph_pb2.GraphDef()
    _placeholder(g)
    prev = "x"
    for i in range(20000):
        g.node.add(name="n%d" % i, op="Neg", input=[prev])
        prev = "n%d" % i
    g.node.add(name="out", op="Identity", input=[prev])
    return g


def wide_add_n():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    g.node.add(name="out", op="AddN", input=["x"] * 50000)
    return g


def const_lies_about_shape():
    g = graph_pb2.GraphDef()
    _placeholder(g)
    t = tensor_pb2.TensorProto(dtype=tensor_pb2.DT_FLOAT, content=b"\0" * 16)
    t.shape.dim.extend([2**40, 2**40])
    c = g.node.add(name="c", op="Const")
    c.attr["value"].tensor.CopyFrom(t)
    c.attr["dtype"].type = tensor_pb2.DT_FLOAT
    g.node.add(name="out", op="Add", input=["x", "c"])
    return g


def recursive_function():
    # A While whose body is the function it is in.
    g = graph_pb2.GraphDef()
    f = g.library.function.add(name="loop")
    f.input.add(dtype=tensor_pb2.DT_FLOAT).shape.dim.append(4)
    f.output.add(dtype=tensor_pb2.DT_FLOAT).shape.dim.append(4)
    f.input_name.append("v")
    w = f.node.add(name="w", op="While", input=["v"])
    w.attr["cond"].func = "loop"
    w.attr["body"].func = "loop"
    f.output_tensor.append("w")
    _placeholder(g)
    n = g.node.add(name="out", op="While", input=["x"])
    n.attr["cond"].func = "loop"
    n.attr["body"].func = "loop"
    return g


def deep_function_nesting():
    # 300 functions, each calling the next through an If: nesting, not recursion.
    g = graph_pb2.GraphDef()
    depth = 300
    for i in range(depth):
        f = g.library.function.add(name="f%d" % i)
        f.input.add(dtype=tensor_pb2.DT_FLOAT).shape.dim.append(4)
        f.output.add(dtype=tensor_pb2.DT_FLOAT).shape.dim.append(4)
        f.input_name.append("v")
        if i == depth - 1:
            f.node.add(name="r", op="Neg", input=["v"])
        else:
            p = f.node.add(name="p", op="Const")
            p.attr["value"].tensor.CopyFrom(tensor_pb2.TensorProto(dtype=tensor_pb2.DT_BOOL, content=b"\1"))
            p.attr["dtype"].type = tensor_pb2.DT_BOOL
            r = f.node.add(name="r", op="If", input=["p", "v"])
            r.attr["then_branch"].func = "f%d" % (i + 1)
            r.attr["else_branch"].func = "f%d" % (i + 1)
        f.output_tensor.append("r")
    _placeholder(g)
    p = g.node.add(name="p", op="Const")
    p.attr["value"].tensor.CopyFrom(tensor_pb2.TensorProto(dtype=tensor_pb2.DT_BOOL, content=b"\1"))
    p.attr["dtype"].type = tensor_pb2.DT_BOOL
    n = g.node.add(name="out", op="If", input=["p", "x"])
    n.attr["then_branch"].func = "f0"
    n.attr["else_branch"].func = "f0"
    return g


CASES = [tile_huge, reshape_huge, fill_huge, cycle, self_input, long_chain, wide_add_n,
         const_lies_about_shape, recursive_function, deep_function_nesting]


def _load_and_call(c, g):
    fn = c.load_graph(g, outputs=["out"])
    out = np.asarray(fn(np.ones(4, np.float32), timeout=60))
    assert out.size * out.itemsize <= 64 << 20


def _session_run(c, g):
    conn = c.connection
    conn.session("ExtendSession", session_pb2.ExtendSessionRequest(session_handle=c.session_handle, graph_def=g), 60)
    run = session_pb2.RunRequest(session_handle=c.session_handle, fetch=["out:0"])
    feed = run.feed.add(name="x:0")
    feed.tensor.dtype = tensor_pb2.DT_FLOAT
    feed.tensor.shape.dim.append(4)
    feed.tensor.content = np.ones(4, np.float32).tobytes()
    conn.session("Run", run, 60)


@pytest.mark.parametrize("way", [_load_and_call, _session_run], ids=["load_graph", "session_run"])
@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_hostile_graphdef_fails_cleanly(case, way, module_server):
    target = module_server.target
    with graphd.connect(target) as neighbour:
        keeper = neighbour.load_module("import tensorflow as tf\nv = tf.Variable([1.0, 2.0, 3.0])\n"
                                       "@tf.function\ndef read():\n    return v + 0.0\n")
        baseline = _tensor_memory()
        with graphd.connect(target, timeout=120) as c:
            try:
                way(c, case())
            except ACCEPTED as e:
                assert e.message, case.__name__
        assert module_server.alive(), "graphd died on %s:\n%s" % (case.__name__, module_server.log())
        np.testing.assert_array_equal(keeper.read(), [1.0, 2.0, 3.0])
        # The hostile session is closed: what it held is freed (compiled functions of
        # other sessions may stay cached, but the tensors of this case go).
        deadline = time.monotonic() + 10
        while _tensor_memory() > baseline + (1 << 20):
            assert time.monotonic() < deadline, "tensor memory %d stayed above the baseline %d after %s" % (
                _tensor_memory(), baseline, case.__name__)
            time.sleep(0.1)


def test_bodies_shared_along_many_paths_are_planned_and_drawn_once(module_server):
    # deep_function_nesting reaches its last function along 2^299 paths: planning,
    # constant accounting, the DOT picture and the IR text each visit a body once
    # (they used to visit it per path: 20 levels took 6 s, 300 never finished).
    with graphd.connect(module_server.target, timeout=60) as c:
        fn = c.load_graph(deep_function_nesting(), outputs=["out"])
        np.testing.assert_array_equal(fn(np.ones(4, np.float32)), -np.ones(4, np.float32))
        dot = fn.to_dot()
        assert dot.count("subgraph") == 300 and len(dot) < (4 << 20), len(dot)  # indentation grows with depth
        graph_def, inputs, outputs = fn.graph_def()
        assert len(graph_def.library.function) == 300
