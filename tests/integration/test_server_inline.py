"""Quick calls on the gRPC thread (issue 5): a small cache-hit Call, CallGraph,
Run or RunCallable whose plan last ran within --inline-run-us runs on the gRPC
thread that received it (RunMetadata.ran_inline) instead of being handed to a
worker; anything else (a trace, a slow plan, no free worker slot) runs on the
pool as before, with the same results, deadlines and --cpu-threads bound."""

import threading
import time

import grpc
import numpy as np
import pytest

import graphd.v1 as tf
from graphd.v1 import session_pb2 as S
from graphd.v1 import session_pb2_grpc as G
from graphd.v1 import tensor_pb2 as T

SOURCE = '''
import tensorflow as tf

@tf.function
def add(x, y):
  return x + y

@tf.function
def count_to(n):
  i = tf.constant(0)
  while i < n:
    i += 1
  return i
'''


def scalar(value, dtype=np.float32):
    code = T.DT_FLOAT if dtype == np.float32 else T.DT_INT32
    return T.TensorProto(dtype=code, content=np.array(value, dtype).tobytes())


def value(v, dtype=np.float32):
    return S.PyValue(tensor=scalar(v, dtype))


def number(tensor, dtype):
    return np.frombuffer(tensor.content, dtype)[0]


class Conn:
    def __init__(self, target):
        self.channel = grpc.insecure_channel(target)
        self.stub = G.SessionServiceStub(self.channel)
        self.handle = self.stub.CreateSession(S.CreateSessionRequest()).session_handle
        self.module = self.stub.LoadModule(S.LoadModuleRequest(session_handle=self.handle, source=SOURCE)).module_id

    def add(self, x, y):
        return self.stub.Call(S.CallRequest(session_handle=self.handle, module_id=self.module, function="add",
                                            args=[value(x), value(y)]))

    def count_to(self, n, timeout_ms=0):
        return self.stub.Call(S.CallRequest(session_handle=self.handle, module_id=self.module, function="count_to",
                                            args=[value(n, np.int32)],
                                            options=S.RunOptions(timeout_in_ms=timeout_ms)))

    def close(self):
        self.stub.CloseSession(S.CloseSessionRequest(session_handle=self.handle))
        self.channel.close()


# A limit far above these tiny runs' times, so that a preempted run on a busy machine
# does not send the next call to a worker.
GENEROUS_US = "20000"


def test_cache_hits_of_quick_functions_run_inline(start_server):
    c = Conn(start_server("--inline-run-us", GENEROUS_US).target)
    first = c.add(1.5, 2.0)
    assert number(first.output.tensor, np.float32) == 3.5
    assert first.metadata.compile_us > 0 and not first.metadata.ran_inline  # traced on a worker
    for i in range(5):
        r = c.add(float(i), 0.25)
        assert number(r.output.tensor, np.float32) == i + 0.25
        assert r.metadata.ran_inline and r.metadata.compile_us == 0, r.metadata
    # A new signature traces: on a worker again, then inline.
    assert not c.count_to(3).metadata.ran_inline
    assert c.count_to(4).metadata.ran_inline
    c.close()


def test_graphs_runs_and_callables_run_inline(start_server):
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.identity(x * 2.0, name="y")
    channel = grpc.insecure_channel(start_server("--inline-run-us", GENEROUS_US).target)
    stub = G.SessionServiceStub(channel)
    handle = stub.CreateSession(S.CreateSessionRequest(graph_def=tf.get_default_graph().as_graph_def())).session_handle
    run = S.RunRequest(session_handle=handle, feed=[S.NamedTensor(name="x:0", tensor=scalar(3.0))], fetch=["y:0"])
    seen = [stub.Run(run) for _ in range(3)]
    assert [number(r.tensor[0].tensor, np.float32) for r in seen] == [6.0] * 3
    assert [r.metadata.ran_inline for r in seen] == [False, True, True]  # compiled (and timed) on a worker

    made = stub.MakeCallable(S.MakeCallableRequest(session_handle=handle,
                                                   options=S.CallableOptions(feed=["x:0"], fetch=["y:0", "x:0"])))
    call = S.RunCallableRequest(session_handle=handle, handle=made.handle, feed=[scalar(4.0)])
    seen = [stub.RunCallable(call) for _ in range(2)]
    assert [number(r.fetch[0], np.float32) for r in seen] == [8.0, 8.0]
    # A new signature: MakeCallable planned it without running it, so its first run
    # is not known to be quick.
    assert [r.metadata.ran_inline for r in seen] == [False, True]

    load = S.LoadGraphRequest(session_handle=handle, name="twice", graph_def=tf.get_default_graph().as_graph_def(),
                              input_names=["x"], output_names=["y:0"])
    stub.LoadGraph(load)
    call = S.CallGraphRequest(session_handle=handle, name="twice", inputs=[scalar(5.0)])
    seen = [stub.CallGraph(call) for _ in range(3)]
    assert [number(r.outputs[0], np.float32) for r in seen] == [10.0] * 3
    assert [r.metadata.ran_inline for r in seen] == [False, True, True]
    stub.CloseSession(S.CloseSessionRequest(session_handle=handle))
    channel.close()


def test_slow_plans_go_back_to_workers_and_deadlines_still_apply(start_server):
    server = start_server("--inline-run-us", GENEROUS_US)
    c = Conn(server.target)
    assert int(number(c.count_to(1).output.tensor, np.int32)) == 1  # traces
    assert c.count_to(2).metadata.ran_inline  # one iteration last time: quick
    # Mispredicted (the last run was quick): inline, still correct.
    slow = c.count_to(1000000)
    assert int(number(slow.output.tensor, np.int32)) == 1000000
    assert slow.metadata.ran_inline and slow.metadata.execute_us > int(GENEROUS_US), slow.metadata
    # The plan's latest run was slow: this one goes to a worker.
    after = c.count_to(5)
    assert int(number(after.output.tensor, np.int32)) == 5 and not after.metadata.ran_inline
    assert c.count_to(6).metadata.ran_inline
    # An inline run is cancelled by its deadline like any other.
    with pytest.raises(grpc.RpcError) as e:
        c.count_to(2 ** 31 - 1, timeout_ms=200)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    c.close()


def test_disabled_with_zero(start_server):
    server = start_server("--inline-run-us", "0")
    c = Conn(server.target)
    for _ in range(4):
        r = c.add(1.0, 2.0)
        assert number(r.output.tensor, np.float32) == 3.0 and not r.metadata.ran_inline
    c.close()


def test_no_inline_run_beyond_cpu_threads(start_server):
    server = start_server("--cpu-threads", "1", "--inline-run-us", GENEROUS_US)
    c = Conn(server.target)
    c.add(1.0, 1.0)
    # The only worker is marked free just after the previous answer is sent, so a fast
    # client's next call may still find it busy: some of a few calls run inline.
    assert any(c.add(1.0, 1.0).metadata.ran_inline for _ in range(5))
    c.count_to(1)  # traced; the long run below goes to the only worker (never ran quick... once)
    c.count_to(1000000)
    busy = threading.Event()
    done = {}

    def long_call():
        busy.set()
        done["slow"] = c.count_to(3000000)

    t = threading.Thread(target=long_call)
    t.start()
    busy.wait()
    time.sleep(0.2)  # the long run holds the only worker slot
    quick = c.add(2.0, 3.0)
    t.join()
    assert not done["slow"].metadata.ran_inline
    assert number(quick.output.tensor, np.float32) == 5.0
    # No slot was free: it waited for the worker instead of running beside the long run.
    assert not quick.metadata.ran_inline and quick.metadata.queue_us > 50000, quick.metadata
    c.close()
