"""Poll mode (issue 15): the server follows its model repository while clients call.
A new version is loaded and warmed, then switched to with no failed request; a removed
version is unloaded once its requests end, and its memory goes back."""

import os
import shutil
import threading
import time

import grpc
import numpy as np
import torch

from graphd.kserve import grpc_service_pb2 as pb
from graphd.kserve import grpc_service_pb2_grpc as pb_grpc
from test_onnx_torchvision import exported
from conftest import rss_kib
from test_serving_kserve import _mlp, _output, _raw_request, _write

import it_helpers as h


def _publish(root, name, version, data):
    """Writes version `version` atomically: the poller never sees half a file."""
    tmp = os.path.join(root, ".tmp-%s-%d" % (name, version))
    _write(os.path.join(tmp, "model.onnx"), data)
    os.rename(tmp, os.path.join(root, name, str(version)))


def _wait_for(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_new_version_switches_without_failures(tmp_path, start_server):
    root = str(tmp_path / "repo")
    v1_bytes, v1 = _mlp()
    torch.manual_seed(2)
    v2 = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    data = h.torch_onnx_bytes(v2, torch.zeros(1, 8), input_names=["x"], output_names=["y"], opset_version=13,
                              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    os.makedirs(os.path.join(root, "mlp"))
    _publish(root, "mlp", 1, v1_bytes)
    server = start_server("--model-repository", root, "--model-control-mode", "poll", "--repository-poll-seconds", "1")
    x = np.random.default_rng(3).standard_normal((2, 8)).astype(np.float32)
    want = {"1": v1(torch.from_numpy(x)).detach().numpy(), "2": v2(torch.from_numpy(x)).detach().numpy()}
    stop = threading.Event()
    seen, failures, counts = set(), [], [0]
    lock = threading.Lock()

    def client():
        with grpc.insecure_channel(server.target) as channel:
            stub = pb_grpc.GRPCInferenceServiceStub(channel)
            while not stop.is_set():
                try:
                    resp = stub.ModelInfer(_raw_request("mlp", "x", x), timeout=30)
                    np.testing.assert_allclose(_output(resp), want[resp.model_version], rtol=1e-5, atol=1e-6)
                    with lock:
                        seen.add(resp.model_version)
                        counts[0] += 1
                except Exception as e:  # noqa: BLE001 (every failure is reported)
                    failures.append(e)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    try:
        assert _wait_for(lambda: counts[0] >= 20)
        _publish(root, "mlp", 2, data)
        assert _wait_for(lambda: "2" in seen), "version 2 never answered"
        before = counts[0]
        assert _wait_for(lambda: counts[0] >= before + 20)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    assert not failures, failures[:3]
    assert seen == {"1", "2"}
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        index = {(m.name, m.version): m.state for m in stub.RepositoryIndex(pb.RepositoryIndexRequest()).models}
        assert index == {("mlp", "2"): "READY"}  # the default policy serves the latest version only


def test_removed_version_returns_its_memory(tmp_path, start_server):
    root = str(tmp_path / "repo")
    small, _ = _mlp()
    big, resnet = exported("resnet18")
    os.makedirs(os.path.join(root, "m"))
    _write(os.path.join(root, "m", "config.pbtxt"), "version_policy { all {} }\n")
    _publish(root, "m", 1, small)
    server = start_server("--model-repository", root, "--model-control-mode", "poll", "--repository-poll-seconds", "1")
    pid = server.proc.pid
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        stub.ModelInfer(_raw_request("m", "x", np.ones((1, 8), np.float32), model_version="1"))
        time.sleep(1.5)
        baseline = rss_kib(pid)
        _publish(root, "m", 2, big)
        assert _wait_for(lambda: stub.ModelReady(pb.ModelReadyRequest(name="m", version="2")).ready)
        image = np.random.default_rng(4).standard_normal((1, 3, 96, 96)).astype(np.float32)
        with torch.no_grad():
            want = resnet(torch.from_numpy(image)).numpy()
        got = _output(stub.ModelInfer(_raw_request("m", "image", image, model_version="2")))
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
        loaded = rss_kib(pid)
        assert loaded > baseline + 40 * 1024, (baseline, loaded)  # the 47 MB model is in memory
        shutil.rmtree(os.path.join(root, "m", "2"))
        assert _wait_for(lambda: not stub.ModelReady(pb.ModelReadyRequest(name="m", version="2")).ready)
        time.sleep(2.5)  # a poll after the unload returned free memory
        after = rss_kib(pid)
        assert after < baseline + 12 * 1024, (baseline, loaded, after)
        # Version 1 still serves.
        assert _output(stub.ModelInfer(_raw_request("m", "x", np.ones((1, 8), np.float32)))).shape == (1, 4)
