"""Tenant quotas on memory and compile time, the server's memory budget (--memory-limit)
and the audit log (issue 16): each refusal is RESOURCE_EXHAUSTED naming the quota and
the numbers, the session keeps its state, the server keeps serving, and a tenant's
memory returns to zero once its sessions close."""

import hashlib
import json
import subprocess
import time
import urllib.request

import numpy as np
import pytest

import graphd
from conftest import _free_port, graphd_binary

MiB = 1 << 20


def _tenants(path, **tenants):
    """tenants: name=(token, "extra fields")."""
    path.write_text("".join('tenant { name: "%s" token_sha256: "%s" %s }\n'
                            % (name, hashlib.sha256(token.encode()).hexdigest(), extra)
                            for name, (token, extra) in tenants.items()))
    return str(path)


def _metrics(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30) as r:
        text = r.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


SUM = ("import tensorflow as tf\n"
       "@tf.function\n"
       "def total(n):\n"
       "    return tf.reduce_sum(tf.ones([n]))\n")


def test_memory_quota_refuses_cleanly_and_returns_to_zero(tmp_path, start_server):
    port = _free_port()
    server = start_server("--tenants-file", _tenants(tmp_path / "t.pbtxt", small=("tok-s", "max_memory_bytes: 8388608"),
                                                     free=("tok-f", "")),
                          "--metrics-listen", "127.0.0.1:%d" % port)
    tenant_bytes = 'graphd_tenant_memory_bytes{tenant="small"}'
    c = graphd.connect(server.target, token="tok-s")
    # A variable larger than the quota: refused while it is being made, naming the quota.
    with pytest.raises(graphd.errors.ResourceExhaustedError) as e:
        c.load_module("import tensorflow as tf\nbig = tf.Variable(tf.zeros([4 * 1024 * 1024]))\n")
    assert "max_memory_bytes quota of tenant 'small' is 8388608 bytes" in e.value.message
    assert "16777216 more were requested" in e.value.message
    m = c.load_module("import tensorflow as tf\n"
                      "v = tf.Variable(tf.ones([256 * 1024]))\n"  # 1 MiB, within the quota
                      "@tf.function\n"
                      "def add():\n"
                      "    v.assign_add(tf.ones([256 * 1024]))\n"
                      "@tf.function\n"
                      "def total(n):\n"
                      "    return tf.reduce_sum(tf.ones([n])) + tf.reduce_sum(v)\n")
    m.add()
    assert m.total(np.int32(1000)) == 1000 + 2 * 256 * 1024
    held = _metrics(port)[tenant_bytes]
    assert MiB <= held < 8 * MiB
    # In-flight tensors count too: a call that would take 16 MiB more is refused ...
    with pytest.raises(graphd.errors.ResourceExhaustedError, match="max_memory_bytes quota of tenant 'small'"):
        m.total(np.int32(4 * 1024 * 1024))
    # ... what it held is given back, and the session keeps its state and serves.
    assert _metrics(port)[tenant_bytes] <= held
    assert m.total(np.int32(10)) == 10 + 2 * 256 * 1024
    # Another tenant is not held back by this one's quota.
    with graphd.connect(server.target, token="tok-f") as other:
        assert other.load_module(SUM).total(np.int32(4 * 1024 * 1024)) == 4 * 1024 * 1024
    c.close()
    deadline = time.monotonic() + 10
    while _metrics(port)[tenant_bytes] != 0:
        assert time.monotonic() < deadline, "tenant memory did not return to zero: %s" % _metrics(port)[tenant_bytes]
        time.sleep(0.1)
    assert server.alive()


def test_compile_time_quota(tmp_path, start_server):
    server = start_server("--tenants-file", _tenants(tmp_path / "t.pbtxt", slow=("tok-c", "max_compile_seconds_per_minute: 1"),
                                                     free=("tok-f", "")))
    c = graphd.connect(server.target, token="tok-c")
    compiled = []
    refused = None
    for i in range(40):  # each compile takes a few hundred ms on this host; bounded either way
        m = c.load_module("import tensorflow as tf\n"
                          "@tf.function\n"
                          "def f(x):\n"
                          "    for i in range(2000):\n"
                          "        x = tf.sin(x) * %d.0 + tf.reduce_sum(x)\n"
                          "    return x\n" % (i + 1))
        try:
            m.f(np.ones([4], np.float32))
            compiled.append(m)
        except graphd.errors.ResourceExhaustedError as e:
            refused = e
            break
    assert refused is not None, "40 compiles never reached a 1 s/minute quota"
    assert "tenant 'slow'" in refused.message and "max_compile_seconds_per_minute quota is 1" in refused.message
    assert "again in" in refused.message
    assert compiled, "the first compile is always admitted"
    # Functions already compiled still run; other tenants still compile.
    assert compiled[0].f(np.ones([4], np.float32)).shape == (4,)
    with graphd.connect(server.target, token="tok-f") as other:
        assert other.load_module(SUM).total(np.int32(5)) == 5
    c.close()


def test_memory_limit_refuses_what_would_exceed_it(start_server):
    port = _free_port()
    server = start_server("--memory-limit", "64M", "--memory-wait-ms", "200", "--metrics-listen", "127.0.0.1:%d" % port)
    assert _metrics(port)["graphd_tensor_memory_limit_bytes"] == 64 * MiB
    with graphd.connect(server.target) as c:
        m = c.load_module(SUM)
        with pytest.raises(graphd.errors.ResourceExhaustedError) as e:
            m.total(np.int32(32 * 1024 * 1024))  # 128 MiB of ones
        assert "--memory-limit" in e.value.message and "67108864 bytes" in e.value.message
        # A request that fits after memory is freed: waits, then runs.
        assert m.total(np.int32(1024 * 1024)) == 1024 * 1024
        # Work held in parallel: each fits alone, the server serves them all.
        import concurrent.futures
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: m.total(np.int32(2 * 1024 * 1024)), range(8)))
        assert results == [2 * 1024 * 1024] * 8
    assert server.alive()
    assert _metrics(port)["graphd_tensor_memory_bytes"] < MiB


@pytest.mark.parametrize("flags,message", [
    (["--memory-limit", "lots"], "--memory-limit 'lots'"),
    (["--memory-limit", "150%"], "percentage from 1 to 100"),
    (["--log-format", "xml"], "--log-format must be text or json"),
    (["--audit-log", "/nonexistent-dir/audit.log"], "--audit-log: cannot open"),
])
def test_bad_memory_and_log_flags_stop_the_start(flags, message):
    out = subprocess.run([graphd_binary(), "--listen", "127.0.0.1:0", *flags], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 2 and message in out.stderr, out.stderr


def _audit_lines(path, count, deadline_s=10):
    deadline = time.monotonic() + deadline_s
    while True:
        lines = [l for l in path.read_text().splitlines() if l.strip()] if path.exists() else []
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_audit_log_json_has_one_line_per_rpc(tmp_path, start_server):
    audit = tmp_path / "audit.log"
    http = _free_port()
    server = start_server("--tenants-file", _tenants(tmp_path / "t.pbtxt", alice=("tok-a", "")),
                          "--audit-log", str(audit), "--log-format", "json", "--http-listen", "127.0.0.1:%d" % http)
    before = len(_audit_lines(audit, 0, 0))  # the start's health checks
    with pytest.raises(graphd.errors.UnauthenticatedError):
        graphd.connect(server.target, token="wrong")
    with graphd.connect(server.target, token="tok-a") as c:
        m = c.load_module(SUM)
        assert m.total(np.int32(3)) == 3
        with pytest.raises(graphd.errors.InvalidArgumentError):
            c.load_module("def broken(:\n")
    req = urllib.request.Request("http://127.0.0.1:%d/v2" % http, headers={"Authorization": "Bearer tok-a"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200
    lines = _audit_lines(audit, before + 7)
    records = [json.loads(l) for l in lines[before:]]
    for r in records:
        assert r["log"] == "audit" and r["time"].endswith("Z")
        assert set(r) >= {"protocol", "method", "tenant", "session", "peer", "status", "duration_us",
                          "request_bytes", "response_bytes"}
    grpc_calls = [r for r in records if r["protocol"] == "grpc"]
    assert any(r["status"] == "UNAUTHENTICATED" and r["tenant"] == "" for r in grpc_calls)
    created = [r for r in grpc_calls if r["method"] == "CreateSession" and r["status"] == "OK"]
    assert created and created[0]["tenant"] == "alice" and created[0]["response_bytes"] > 0
    calls = [r for r in grpc_calls if r["method"] == "Call"]
    assert calls and calls[0]["status"] == "OK" and calls[0]["session"] and calls[0]["request_bytes"] > 0
    assert calls[0]["peer"].startswith("ipv4:127.0.0.1:") and calls[0]["duration_us"] > 0
    assert any(r["method"] == "LoadModule" and r["status"] == "INVALID_ARGUMENT" for r in grpc_calls)
    assert any(r["method"] == "CloseSession" for r in grpc_calls)
    assert any(r["protocol"] == "http" and r["method"] == "GET /v2" and r["status"] == "200" and r["tenant"] == "alice"
               for r in records)
    # The regular log is JSON too.
    for line in server.log().splitlines():
        if line.startswith("{"):
            assert "level" in json.loads(line) or json.loads(line)["log"] == "audit"
    assert server.alive()


def test_audit_log_text_and_off(tmp_path, start_server):
    server = start_server()  # default: text lines on standard error
    with graphd.connect(server.target) as c:
        c.list_devices()
    deadline = time.monotonic() + 10
    while "method=ListDevices" not in server.log():
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.05)
    line = next(l for l in server.log().splitlines() if "method=ListDevices" in l)
    assert " audit protocol=grpc " in line and " status=OK " in line and " tenant=- " in line
    quiet = start_server("--audit-log", "off")
    with graphd.connect(quiet.target) as c:
        c.list_devices()
    time.sleep(0.2)
    assert " audit " not in quiet.log()
