"""A graphd started for a benchmark script: a free loopback port, ready once health says
SERVING. Needs the Python client (clients/python) on sys.path."""

import socket
import subprocess
import time

import graphd


def start(binary, flags=(), log_path=None, timeout_s=60.0):
    """(process, "127.0.0.1:port"); the output goes to `log_path` (appended) or is dropped.
    RuntimeError naming the log when the server exits or is not ready in time."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        target = "127.0.0.1:%d" % s.getsockname()[1]
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen([binary, "--listen", target] + list(flags), stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("graphd exited with %s (log: %s)" % (proc.returncode, log_path or "not kept"))
        try:
            if graphd.health(target, timeout=1.0) == "SERVING":
                return proc, target
        except graphd.errors.OpError:  # not listening yet
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("graphd was not ready in %g s (log: %s)" % (timeout_s, log_path or "not kept"))


def stop(proc, timeout_s=10.0):
    """SIGTERM, then SIGKILL after `timeout_s`."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
