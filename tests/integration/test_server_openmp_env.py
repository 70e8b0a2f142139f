"""The server's OpenMP wait policy (server/openmp_env.h): it re-executes itself once
at start with OMP_WAIT_POLICY=active and a bounded GOMP_SPINCOUNT unless the user set
either; GRAPHD_OPENMP_SPIN chooses the count or (0) keeps libgomp's defaults; a bad
value stops it with a message."""

import os
import subprocess

import graphd


def _server_env(overrides):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "GRAPHD_OPENMP_SPIN")}
    env.update(overrides)
    return env


def _environ_of(proc):
    with open("/proc/%d/environ" % proc.pid, "rb") as f:
        items = [i.decode() for i in f.read().split(b"\0") if i]
    return dict(i.split("=", 1) for i in items)


def test_default_spins_briefly(start_server):
    server = start_server(env=_server_env({}))
    env = _environ_of(server.proc)  # the same pid after the re-exec
    assert env.get("OMP_WAIT_POLICY") == "active"
    assert env.get("GOMP_SPINCOUNT") == "30000"
    assert graphd.health(server.target) == "SERVING"


def test_users_settings_are_kept(start_server):
    server = start_server(env=_server_env({"OMP_WAIT_POLICY": "passive"}))
    env = _environ_of(server.proc)
    assert env.get("OMP_WAIT_POLICY") == "passive"
    assert "GOMP_SPINCOUNT" not in env


def test_spin_count_chosen_or_off(start_server):
    server = start_server(env=_server_env({"GRAPHD_OPENMP_SPIN": "5000"}))
    assert _environ_of(server.proc).get("GOMP_SPINCOUNT") == "5000"
    server = start_server(env=_server_env({"GRAPHD_OPENMP_SPIN": "0"}))
    env = _environ_of(server.proc)
    assert "OMP_WAIT_POLICY" not in env and "GOMP_SPINCOUNT" not in env


def test_bad_spin_value_stops_with_a_message(graphd_bin):
    proc = subprocess.run([graphd_bin, "--listen", "127.0.0.1:0"],
                          env=_server_env({"GRAPHD_OPENMP_SPIN": "fast"}),
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "GRAPHD_OPENMP_SPIN must be a whole number" in proc.stderr
    assert "'fast'" in proc.stderr
