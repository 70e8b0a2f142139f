"""Prometheus metrics (issue 15): /metrics on --metrics-listen passes `promtool check
metrics` and counts what happened: requests by model, version and code, latency,
queue and compute histograms, batch sizes, sessions, compilations, cache and memory."""

import re
import subprocess
import threading
import urllib.request

import grpc
import numpy as np
import pytest

import graphd
from conftest import _free_port
from graphd.kserve import grpc_service_pb2_grpc as pb_grpc
from test_serving_kserve import BATCHED_CONFIG, MLP_CONFIG, _mlp, _raw_request, _write


def _scrape(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        return r.read().decode()


def _value(text, series):
    m = re.search(r"^%s (\S+)$" % re.escape(series), text, re.M)
    assert m, "no series %s in:\n%s" % (series, text[:3000])
    return float(m.group(1))


def test_metrics_count_requests_and_pass_promtool(tmp_path, start_server):
    model_bytes, _ = _mlp()
    _write(str(tmp_path / "repo" / "mlp" / "1" / "model.onnx"), model_bytes)
    _write(str(tmp_path / "repo" / "mlp" / "config.pbtxt"), MLP_CONFIG)
    _write(str(tmp_path / "repo" / "mlp_batched" / "1" / "model.onnx"), model_bytes)
    _write(str(tmp_path / "repo" / "mlp_batched" / "config.pbtxt"), BATCHED_CONFIG)
    port = _free_port()
    server = start_server("--model-repository", str(tmp_path / "repo"), "--metrics-listen", "127.0.0.1:%d" % port)
    url = "http://127.0.0.1:%d/metrics" % port
    x = np.ones((1, 8), np.float32)
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        for _ in range(3):
            stub.ModelInfer(_raw_request("mlp", "x", x))
        with pytest.raises(grpc.RpcError):
            stub.ModelInfer(_raw_request("mlp", "x", np.ones((1, 7), np.float32)))
        for name in ["made-up-1", "made-up-2"]:
            with pytest.raises(grpc.RpcError):
                stub.ModelInfer(_raw_request(name, "x", x))
        barrier = threading.Barrier(16)

        def call():
            barrier.wait(10)
            stub.ModelInfer(_raw_request("mlp_batched", "x", x))

        threads = [threading.Thread(target=call) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    with graphd.connect(server.target) as session:
        text = _scrape(url)
        assert _value(text, "graphd_sessions") == 1
    check = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stdout + check.stderr
    assert _value(text, 'graphd_inference_requests_total{model="mlp",version="1",code="OK"}') == 3
    assert _value(text, 'graphd_inference_requests_total{model="mlp",version="1",code="INVALID_ARGUMENT"}') == 1
    # Unknown model names are not labels (a client cannot grow the series).
    assert _value(text, 'graphd_inference_requests_total{model="",version="",code="NOT_FOUND"}') == 2
    assert "made-up" not in text
    assert _value(text, 'graphd_inference_requests_total{model="mlp_batched",version="1",code="OK"}') == 16
    assert _value(text, 'graphd_inference_request_duration_seconds_count{model="mlp",version="1"}') == 4
    assert _value(text, 'graphd_inference_compute_duration_seconds_count{model="mlp",version="1"}') == 3
    assert _value(text, 'graphd_inference_queue_duration_seconds_count{model="mlp_batched",version="1"}') == 16
    executions = _value(text, 'graphd_inference_batch_size_count{model="mlp_batched"}')
    rows = _value(text, 'graphd_inference_batch_size_sum{model="mlp_batched"}')
    assert rows == 16 and executions < 16  # some executions joined requests
    assert _value(text, 'graphd_inference_inflight{model="mlp"}') == 0
    assert _value(text, "graphd_compilations_total") >= 2
    assert _value(text, "graphd_compile_duration_seconds_count") >= 2
    assert _value(text, "graphd_process_resident_memory_bytes") > 10e6
