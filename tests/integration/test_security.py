"""Transport security and tenants (issue 16, first part): TLS with certificates made by
openssl here, mutual TLS, a certificate swapped on disk served without a restart,
bearer tokens naming tenants, tenants kept out of each other's sessions, the tenants
file re-read on SIGHUP, and the safe default (no plaintext without tenants on a
non-loopback address unless --allow-insecure-remote)."""

import hashlib
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import graphd
import graphd.v1 as tf
from conftest import _free_port, graphd_binary


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _ca(d, name):
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=%s" % name,
             "-keyout", "%s.key" % name, "-out", "%s.pem" % name, cwd=d)


def _signed(d, name, ca, server=True):
    """A key and certificate for `name` signed by CA `ca` (for 127.0.0.1/localhost when `server`)."""
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=%s" % name, "-keyout", "%s.key" % name,
             "-out", "%s.csr" % name, cwd=d)
    ext = d / ("%s.ext" % name)
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n" if server else "extendedKeyUsage=clientAuth\n")
    _openssl("x509", "-req", "-in", "%s.csr" % name, "-CA", "%s.pem" % ca, "-CAkey", "%s.key" % ca,
             "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", "%s.pem" % name, cwd=d)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    for ca in ["ca1", "ca2"]:
        _ca(d, ca)
    _signed(d, "server1", "ca1")
    _signed(d, "server2", "ca2")
    _signed(d, "client", "ca1", server=False)
    return d


def _tls_server(start_server, pki, tmp_path, *extra):
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    cert.write_bytes(_read(pki / "server1.pem"))
    key.write_bytes(_read(pki / "server1.key"))
    server = _start_tls(start_server, ["--tls-cert-file", str(cert), "--tls-key-file", str(key), *extra])
    return server, cert, key


def _start_tls(start_server, flags):
    """start_server waits for health over plaintext, which a TLS server refuses: start
    the binary here and wait for a TLS connection instead."""
    port = _free_port()
    target = "127.0.0.1:%d" % port
    proc = subprocess.Popen([graphd_binary(), "--listen", target, *flags], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, target


def _wait_tls(target, roots, **kw):
    deadline = time.monotonic() + 30
    while True:
        try:
            with graphd.connect("grpcs://" + target, root_certificates=roots, timeout=5, **kw) as c:
                return c.server_info().version
        except graphd.errors.OpError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def test_tls_plaintext_fails_and_a_swapped_certificate_is_served(pki, tmp_path, start_server):
    (proc, target), cert, key = _tls_server(start_server, pki, tmp_path, "--tls-reload-seconds", "1")
    try:
        assert _wait_tls(target, _read(pki / "ca1.pem"))
        with pytest.raises(graphd.errors.OpError):
            graphd.connect(target, timeout=5)  # plaintext to a TLS server
        with pytest.raises(graphd.errors.OpError):  # a client that trusts another CA
            graphd.connect("grpcs://" + target, root_certificates=_read(pki / "ca2.pem"), timeout=5)
        # Swap the certificate (key first, then certificate; gRPC re-reads both together).
        tmp_key, tmp_cert = tmp_path / "k.tmp", tmp_path / "c.tmp"
        tmp_key.write_bytes(_read(pki / "server2.key"))
        tmp_cert.write_bytes(_read(pki / "server2.pem"))
        os.replace(tmp_key, key)
        os.replace(tmp_cert, cert)
        assert _wait_tls(target, _read(pki / "ca2.pem"))  # served without a restart
        assert proc.poll() is None
    finally:
        _stop(proc)


def test_mutual_tls_needs_a_client_certificate(pki, tmp_path, start_server):
    (proc, target), _, _ = _tls_server(start_server, pki, tmp_path, "--tls-client-ca-file", str(pki / "ca1.pem"))
    try:
        roots = _read(pki / "ca1.pem")
        assert _wait_tls(target, roots, private_key=_read(pki / "client.key"),
                         certificate_chain=_read(pki / "client.pem"))
        with pytest.raises(graphd.errors.OpError):
            graphd.connect("grpcs://" + target, root_certificates=roots, timeout=5)
    finally:
        _stop(proc)


def _tenants_file(path, tenants):
    path.write_text("".join('tenant { name: "%s" token_sha256: "%s" }\n' % (name, hashlib.sha256(token.encode())
                                                                                  .hexdigest())
                            for name, token in tenants))


def test_tokens_name_tenants_and_tenants_keep_to_their_sessions(tmp_path, start_server):
    tenants = tmp_path / "tenants.pbtxt"
    _tenants_file(tenants, [("alice", "token-a"), ("bob", "token-b")])
    server = start_server("--tenants-file", str(tenants))
    with pytest.raises(graphd.errors.UnauthenticatedError, match="bearer token"):
        graphd.connect(server.target)
    with pytest.raises(graphd.errors.UnauthenticatedError, match="not valid"):
        graphd.connect(server.target, token="token-x")
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.float32(5.0), name="v")
        inc = v.assign_add(1.0)
    with tf.Session(server.target, graph=g, token="token-a") as alice:
        alice.run(v.initializer)
        alice.run(inc)
        handle = alice._handle
        with graphd.connect(server.target, token="token-b") as bob:
            from graphd.v1 import session_pb2
            for method, request in [
                    ("Run", session_pb2.RunRequest(session_handle=handle, fetch=["v:0"])),
                    ("ExtendSession", session_pb2.ExtendSessionRequest(session_handle=handle)),
                    ("CloseSession", session_pb2.CloseSessionRequest(session_handle=handle))]:
                with pytest.raises(graphd.errors.NotFoundError, match="not found"):
                    bob.connection.session(method, request)
        assert alice.run(v) == 6.0  # untouched
    # The tenants file is read again on SIGHUP.
    _tenants_file(tenants, [("alice", "token-a"), ("bob", "token-b"), ("carol", "token-c")])
    server.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while True:
        try:
            with graphd.connect(server.target, token="token-c") as carol:
                assert carol.list_devices()
            break
        except graphd.errors.UnauthenticatedError:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    # GRAPHD_TOKEN is the default token.
    os.environ["GRAPHD_TOKEN"] = "token-b"
    try:
        with graphd.connect(server.target) as bob:
            assert bob.echo(b"hi") == b"hi"
    finally:
        del os.environ["GRAPHD_TOKEN"]


def test_a_bad_tenants_file_stops_the_start(tmp_path):
    bad = tmp_path / "tenants.pbtxt"
    bad.write_text('tenant { name: "a" token_sha256: "abc" }\n')
    out = subprocess.run([graphd_binary(), "--listen", "127.0.0.1:0", "--tenants-file", str(bad)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "token_sha256 must be 64 hex digits" in out.stderr


def test_the_safe_default_refuses_remote_plaintext(start_server):
    port = _free_port()
    out = subprocess.run([graphd_binary(), "--listen", "0.0.0.0:%d" % port], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode != 0 and "insecure" in out.stderr and "--allow-insecure-remote" in out.stderr
    server = start_server("--allow-insecure-remote")  # on loopback here; the flag is accepted
    assert server.alive()
    proc = subprocess.Popen([graphd_binary(), "--listen", "0.0.0.0:%d" % port, "--allow-insecure-remote"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if graphd.health("127.0.0.1:%d" % port, timeout=1) == "SERVING":
                    break
            except graphd.errors.OpError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "graphd did not serve on 0.0.0.0"
            time.sleep(0.1)
    finally:
        _stop(proc)


def test_session_and_concurrent_call_quotas(tmp_path, start_server):
    tenants = tmp_path / "tenants.pbtxt"
    digest = hashlib.sha256(b"token-q").hexdigest()
    tenants.write_text('tenant { name: "q" token_sha256: "%s" max_sessions: 2 max_concurrent_calls: 1 '
                       'max_source_bytes: 4096 }\n'
                       'tenant { name: "free" token_sha256: "%s" }\n'
                       % (digest, hashlib.sha256(b"token-f").hexdigest()))
    server = start_server("--tenants-file", str(tenants))
    a = graphd.connect(server.target, token="token-q")
    b = graphd.connect(server.target, token="token-q")
    try:
        with pytest.raises(graphd.errors.ResourceExhaustedError, match="max_sessions quota is 2"):
            graphd.connect(server.target, token="token-q")
        with graphd.connect(server.target, token="token-f") as other:  # other tenants are not affected
            assert other.list_devices()
        # One call at a time: a slow call holds the slot while another is refused.
        import threading
        module = a.load_module(
            "import tensorflow as tf\n"
            "@tf.function\n"
            "def slow(n):\n"
            "    i = tf.constant(0)\n"
            "    while i < n:\n"
            "        i += 1\n"
            "    return i\n")
        done = []

        def run_slow():
            # The probes below can hold the slot when the slow call arrives: it is then
            # the one refused, and tries again until it runs.
            while True:
                try:
                    done.append(module.slow(np.int32(5_000_000)))
                    return
                except graphd.errors.ResourceExhaustedError:
                    time.sleep(0.005)

        t = threading.Thread(target=run_slow)
        t.start()
        refused = None
        deadline = time.monotonic() + 20
        while t.is_alive() and time.monotonic() < deadline:
            try:
                b.echo(b"x")  # not counted: cheap diagnostics
                b.list_devices()
                b.load_module("x = 1\n")
            except graphd.errors.ResourceExhaustedError as e:
                refused = e
                break
            time.sleep(0.01)
        t.join(120)
        assert refused is not None and "max_concurrent_calls quota is 1" in str(refused)
        # The slot is free again (it goes back before the answer is sent; the loop
        # allows for the slow call's thread to be joined late).
        deadline = time.monotonic() + 10
        while True:
            try:
                assert b.load_module("y = 2\n") is not None
                break
            except graphd.errors.ResourceExhaustedError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        with pytest.raises(graphd.errors.ResourceExhaustedError, match="max_source_bytes quota is 4096"):
            b.load_module("z = 0\n" * 1000)
        assert b.load_module("z = 3\n") is not None
    finally:
        a.close()
        b.close()
    # Closed sessions free the quota.
    with graphd.connect(server.target, token="token-q"):
        pass


def test_sequential_calls_never_meet_their_own_finished_call(tmp_path, start_server):
    # With max_concurrent_calls 1, a client that waits for each answer must never be
    # refused: the slot goes back before the answer is sent (it used to go back just
    # after, and a fast client's next call could find its own last call still counted).
    tenants = tmp_path / "tenants.pbtxt"
    tenants.write_text('tenant { name: "one" token_sha256: "%s" max_concurrent_calls: 1 }\n'
                       % hashlib.sha256(b"token-1").hexdigest())
    server = start_server("--tenants-file", str(tenants))
    for _ in range(20):
        with graphd.connect(server.target, token="token-1") as c:
            for _ in range(10):
                c.list_devices()
                c.load_module("x = 1\n")


def test_graphctl_speaks_tls_and_tokens(pki, tmp_path, start_server):
    graphctl = os.path.join(os.path.dirname(graphd_binary()), "graphctl")
    tenants = tmp_path / "tenants.pbtxt"
    _tenants_file(tenants, [("ops", "token-o")])
    (proc, target), _, _ = _tls_server(start_server, pki, tmp_path, "--tenants-file", str(tenants))
    try:
        _wait_tls(target, _read(pki / "ca1.pem"), token="token-o")
        ok = subprocess.run([graphctl, "devices", "--target", "grpcs://" + target, "--tls-roots",
                             str(pki / "ca1.pem"), "--token", "token-o"], capture_output=True, text=True, timeout=30)
        assert ok.returncode == 0 and "CPU" in ok.stdout, ok.stderr
        no_token = subprocess.run([graphctl, "devices", "--target", "grpcs://" + target, "--tls-roots",
                                   str(pki / "ca1.pem")], capture_output=True, text=True, timeout=30)
        assert no_token.returncode == 1 and "bearer token" in no_token.stderr
    finally:
        _stop(proc)
