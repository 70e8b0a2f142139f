"""Scale-out behind a proxy (issue 19): three graphd replicas on loopback behind
nginx configured by deploy/proxy (the same template the Kubernetes overlay uses).

- Session calls stick: graphd's clients send ``graphd-session: <route key>`` with
  every SessionService call, nginx hashes it onto a replica, so 20 sessions each
  count a variable up through 50 runs (a run on another replica would fail: the
  session is not there).
- Stateless calls spread: KServe ModelInfer without the header goes round-robin,
  and every replica's ModelStatistics counts some.
- Stopping one replica fails only its own sessions, with NOT_FOUND naming the
  session (or UNAVAILABLE for a call caught in flight), while the other sessions
  and stateless calls go on.
"""

import os
import shutil
import socket
import subprocess
import threading
import time

import numpy as np
import pytest

import graphd
import graphd.v1 as tf
from graphd import _rpc
from conftest import graphd_binary, wait_serving

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RENDER = os.path.join(REPO, "deploy", "proxy", "render-nginx-conf.sh")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

SESSIONS = 20
CALLS = 50

DOUBLE_MODEL = """
import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([4], tf.float32, name="x")])
def serve(x):
    return {"y": x * 2.0 + 1.0}
"""


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proxy:
    def __init__(self, proc, target, prefix):
        self.proc, self.target, self.prefix = proc, target, prefix

    def error_log(self):
        try:
            with open(os.path.join(self.prefix, "error.log")) as f:
                return f.read()[-4000:]
        except OSError:
            return ""


def _start_proxy(tmp_path, replicas):
    assert os.access(NGINX, os.X_OK), "nginx not found: scripts/install-deps.sh installs nginx-light"
    prefix = str(tmp_path / "nginx")
    target = "127.0.0.1:%d" % _free_port()
    env = dict(os.environ)
    if os.geteuid() == 0:
        env["NGINX_USER"] = "root"  # workers keep access to the test's temporary directory
    conf = subprocess.run([RENDER, target, prefix] + [r.target for r in replicas], check=True,
                          capture_output=True, text=True, env=env).stdout
    conf_path = tmp_path / "nginx.conf"
    conf_path.write_text(conf)
    proc = subprocess.Popen([NGINX, "-p", prefix, "-c", str(conf_path), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    proxy = Proxy(proc, target, prefix)
    if wait_serving(target, lambda: proc.poll() is None, 20):
        return proxy
    if proc.poll() is not None:
        pytest.fail("nginx exited: %s\n%s" % (proc.stderr.read().decode(), proxy.error_log()))
    proc.kill()
    pytest.fail("nginx did not pass calls to graphd within 20 s\n" + proxy.error_log())


@pytest.fixture
def cluster(tmp_path, start_server):
    repo = tmp_path / "models"
    (repo / "double" / "1").mkdir(parents=True)
    (repo / "double" / "1" / "model.py").write_text(DOUBLE_MODEL)
    replicas = [start_server("--model-repository", str(repo)) for _ in range(3)]
    proxy = _start_proxy(tmp_path, replicas)
    yield replicas, proxy
    proxy.proc.terminate()
    try:
        proxy.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proxy.proc.kill()


def _sessions_on(replica):
    """Open sessions on one replica, asked directly (no session of our own)."""
    from graphd.v1 import diagnostics_pb2

    conn = _rpc.Connection(replica.target, timeout=10)
    try:
        return conn.call(conn.diagnostics_stub.GetServerInfo, diagnostics_pb2.GetServerInfoRequest()).active_sessions
    finally:
        conn.close()


def _infer_stub(target):
    import grpc
    from graphd.kserve import grpc_service_pb2_grpc

    channel = grpc.insecure_channel(target)
    return channel, grpc_service_pb2_grpc.GRPCInferenceServiceStub(channel)


def _infer(stub, values):
    from graphd.kserve import grpc_service_pb2 as pb

    request = pb.ModelInferRequest(model_name="double")
    request.inputs.add(name="x", datatype="FP32", shape=[4]).contents.fp32_contents.extend(values)
    response = stub.ModelInfer(request, timeout=30)
    return np.frombuffer(response.raw_output_contents[0], np.float32) if response.raw_output_contents else \
        np.float32(response.outputs[0].contents.fp32_contents)


def _successes(replica):
    from graphd.kserve import grpc_service_pb2 as pb

    channel, stub = _infer_stub(replica.target)
    try:
        stats = stub.ModelStatistics(pb.ModelStatisticsRequest(name="double"), timeout=10)
        return sum(s.inference_stats.success.count for s in stats.model_stats)
    finally:
        channel.close()


def test_sessions_stick_stateless_calls_spread_and_a_lost_replica_fails_only_its_sessions(cluster):
    replicas, proxy = cluster
    graph = tf.Graph()
    with graph.as_default():
        counter = tf.Variable(0, name="counter")
        bump = counter.assign_add(1)
        init = tf.global_variables_initializer()

    sessions = [None] * SESSIONS
    errors = []
    counted = threading.Barrier(SESSIONS + 1)

    def client(i):
        try:
            sess = tf.Session(proxy.target, graph=graph)
            sessions[i] = sess
            sess.run(init)
            for n in range(1, CALLS + 1):
                got = sess.run(bump)
                assert got == n, "session %d: run %d counted %r" % (i, n, got)
        except Exception as e:  # reported by the main thread
            errors.append("client %d: %r" % (i, e))
        finally:
            counted.wait(timeout=120)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(SESSIONS)]
    for t in threads:
        t.start()
    try:
        # Every client has made its 50 runs (or failed): count where the sessions are.
        for _ in range(600):
            if counted.n_waiting == SESSIONS:
                break
            time.sleep(0.1)
        assert not errors, "\n".join(errors) + "\n" + proxy.error_log()
        per_replica = [_sessions_on(r) for r in replicas]
        assert sum(per_replica) == SESSIONS, per_replica
        # 20 random route keys over 3 replicas: all on one has odds of 3 / 3^20.
        assert sum(1 for n in per_replica if n > 0) >= 2, per_replica
    finally:
        counted.wait(timeout=10)
        for t in threads:
            t.join(timeout=60)

    # Stateless calls without the header: round-robin over the three replicas.
    channel, stub = _infer_stub(proxy.target)
    try:
        before = [_successes(r) for r in replicas]
        for i in range(30):
            np.testing.assert_allclose(_infer(stub, [i, 1, 2, 3]), np.float32([2 * i + 1, 3, 5, 7]))
        spread = [_successes(r) - b for r, b in zip(replicas, before)]
        assert sum(spread) == 30 and all(n > 0 for n in spread), spread

        # Stop the replica holding the most sessions: only its sessions fail.
        victim = max(range(3), key=lambda i: per_replica[i])
        assert replicas[victim].stop() == 0, replicas[victim].log()
        failed, went_on = [], 0
        for sess in sessions:
            try:
                assert sess.run(bump) == CALLS + 1
                went_on += 1
            except (graphd.errors.NotFoundError, graphd.errors.UnavailableError) as e:
                message = str(e)
                if isinstance(e, graphd.errors.NotFoundError):
                    assert sess.session_handle in message and "another replica" in message, message
                failed.append(message)
        assert len(failed) == per_replica[victim], (per_replica, failed)
        assert went_on == SESSIONS - per_replica[victim]
        # Stateless calls go on, on the two left.
        for i in range(6):
            np.testing.assert_allclose(_infer(stub, [i, 0, 0, 0]), np.float32([2 * i + 1, 1, 1, 1]))
    finally:
        channel.close()
        for sess in sessions:
            if sess is not None:
                try:
                    sess.close()
                except graphd.errors.OpError:
                    pass


SOURCE = """
import tensorflow as tf

@tf.function
def scaled(x):
    return x * 3.0
"""


def test_the_handle_is_the_route_for_both_clients(cluster):
    """graphd.connect's session adopts the handle its client proposed, so graphctl
    (the C++ client), given only that handle, reaches the same replica through the
    proxy: each of its calls would otherwise miss two times in three."""
    replicas, proxy = cluster
    graphctl = os.path.join(os.path.dirname(graphd_binary()), "graphctl")
    with graphd.connect(proxy.target) as client:
        handle = client.session_handle  # the client's proposal: 32 lowercase hex digits
        assert len(handle) == 32 and all(c in "0123456789abcdef" for c in handle), handle
        module = client.load_module(SOURCE)
        np.testing.assert_allclose(module.scaled(np.ones(3, np.float32)), np.full(3, 3.0, np.float32))
        for _ in range(6):
            out = subprocess.run([graphctl, "--target", proxy.target, "graph", "--session", client.session_handle,
                                  "--function", "scaled"], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0 and "digraph" in out.stdout, out.stderr
    assert sum(_sessions_on(r) for r in replicas) == 0  # closed, through the proxy too


def test_a_proposed_handle_of_the_wrong_form_is_refused(start_server):
    """CreateSession with a `graphd-session` that is not 32 lowercase hex digits is
    INVALID_ARGUMENT; one already in use is ALREADY_EXISTS; the server goes on."""
    import grpc
    from graphd.v1 import session_pb2, session_pb2_grpc

    server = start_server()
    channel = grpc.insecure_channel(server.target)
    stub = session_pb2_grpc.SessionServiceStub(channel)
    try:
        for bad in ["not-a-handle", "A" * 32, "0" * 31, "x" * 4000]:
            with pytest.raises(grpc.RpcError) as info:
                stub.CreateSession(session_pb2.CreateSessionRequest(), metadata=[("graphd-session", bad)], timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "32 lowercase hex digits" in info.value.details()
        handle = "ab" * 16
        made = stub.CreateSession(session_pb2.CreateSessionRequest(), metadata=[("graphd-session", handle)], timeout=10)
        assert made.session_handle == handle
        with pytest.raises(grpc.RpcError) as info:
            stub.CreateSession(session_pb2.CreateSessionRequest(), metadata=[("graphd-session", handle)], timeout=10)
        assert info.value.code() == grpc.StatusCode.ALREADY_EXISTS and handle in info.value.details()
        assert _sessions_on(server) == 1
    finally:
        channel.close()
