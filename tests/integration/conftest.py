"""Integration tests: start the real graphd binary and drive it with the
Python client.

The binary is build/bin/graphd (override with $GRAPHD_BIN). A missing binary
fails the tests (run `make build`); it is never a skip.
"""

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CLIENT = os.path.join(REPO, "clients", "python")
if _CLIENT not in sys.path:
    sys.path.insert(0, _CLIENT)

import graphd  # noqa: E402  (needs the path above)

# GRAPHD_TEST_READY_TIMEOUT: longer for instrumented servers (make test-asan).
READY_TIMEOUT_S = float(os.environ.get("GRAPHD_TEST_READY_TIMEOUT", "20"))


def graphd_binary():
    return os.environ.get("GRAPHD_BIN") or os.path.join(REPO, "build", "bin", "graphd")


def rss_kib(pid):
    """Resident memory of process `pid` in KiB (VmRSS of /proc/PID/status)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for process %d" % pid)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A running graphd process: ``target`` ("127.0.0.1:port"), ``proc``, ``log``."""

    def __init__(self, proc, target, log_path, args):
        self.proc = proc
        self.target = target
        self.log_path = log_path
        self.args = args

    def log(self, limit=20000):
        try:
            with open(self.log_path, "rb") as f:
                data = f.read()
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace")

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=10.0):
        """SIGTERM, then SIGKILL after ``timeout``; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def wait_serving(target, alive, timeout):
    """Polls the health service at ``target`` until it reports SERVING (True), the
    process behind it is gone (``alive()`` false) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive():
        try:
            if graphd.health(target, timeout=0.5) == "SERVING":
                return True
        except graphd.errors.OpError:
            pass
        time.sleep(0.05)
    return False


def start_graphd(flags, log_dir, ready_timeout=READY_TIMEOUT_S, attempts=3, env=None):
    """Starts graphd on a free loopback port with extra ``flags`` and waits
    until health reports SERVING. Fails the test (with the server's output)
    if it exits or does not become ready in time. ``env``: the server's
    environment (default: the test's)."""
    binary = graphd_binary()
    if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
        pytest.fail("graphd server binary not found at %s: run `make build` first "
                    "(or set GRAPHD_BIN)" % binary, pytrace=False)
    last = None
    for attempt in range(attempts):
        port = _free_port()
        target = "127.0.0.1:%d" % port
        level = [] if "--log-level" in [str(f) for f in flags] else ["--log-level", "info"]
        args = [binary, "--listen", target] + level + [str(f) for f in flags]
        log_path = os.path.join(str(log_dir), "graphd-%d-%d.log" % (port, attempt))
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=env)
        server = ServerProcess(proc, target, log_path, args)
        if wait_serving(target, server.alive, ready_timeout):
            return server
        if server.alive():
            server.stop(timeout=2.0)
            pytest.fail("graphd did not report SERVING within %.0f s: %s\n--- output ---\n%s"
                        % (ready_timeout, " ".join(args), server.log()), pytrace=False)
        last = server  # exited early (maybe the port was taken): retry on another port
    pytest.fail("graphd exited during startup (status %s): %s\n--- output ---\n%s"
                % (last.proc.returncode, " ".join(last.args), last.log()), pytrace=False)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One graphd shared by the tests that need no special flags."""
    proc = start_graphd([], tmp_path_factory.mktemp("graphd"))
    yield proc
    proc.stop()


@pytest.fixture
def target(server):
    """The shared server's address; fails the test if the server died in it."""
    yield server.target
    if not server.alive():
        pytest.fail("graphd exited (status %s) during the test\n--- output ---\n%s"
                    % (server.proc.returncode, server.log()), pytrace=False)


@pytest.fixture
def client(target):
    """A graphd.connect session on the shared server, closed after the test."""
    with graphd.connect(target) as c:
        yield c


@pytest.fixture
def graphd_bin():
    """The server binary's path."""
    return graphd_binary()


@pytest.fixture
def start_server(tmp_path):
    """Factory: ``start_server("--max-sessions", "2", env=None)`` -> ServerProcess,
    stopped at teardown (``env``: the server's environment, default the test's)."""
    started = []

    def start(*flags, ready_timeout=READY_TIMEOUT_S, env=None):
        proc = start_graphd(list(flags), tmp_path, ready_timeout=ready_timeout, env=env)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    import graphd.v1 as tf
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
