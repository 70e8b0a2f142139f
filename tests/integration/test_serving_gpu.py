"""Served models on the GPU: config.pbtxt's instance_group kind (issue 15).

KIND_GPU runs a model version in a GPU session of its own, KIND_CPU on the CPU, and
KIND_AUTO (or no instance_group) on the GPU when the server has a usable one. Without
a GPU, KIND_GPU leaves that model unavailable with the reason (the others serve), or
stops a server in model-control mode none with the error naming the config file.

Where the run has a real GPU (GRAPHD_DEVICE=gpu without GRAPHD_TEST_FAKE_GPU, as
scripts/gpu-verify.sh runs the suite on the device machine) the server uses it;
elsewhere a fake accelerator (GRAPHD_TEST_FAKE_GPU=all: every op it can, in host
memory) stands in, so placement, batching and memory going back are checked in CI too.
Clients are built from the KServe v2 stubs only.
"""

import concurrent.futures
import os
import re

import grpc
import numpy as np
import pytest
import torch

import graphd
from graphd.kserve import grpc_service_pb2 as pb
from graphd.kserve import grpc_service_pb2_grpc as pb_grpc

import it_helpers as h

REAL_GPU = os.environ.get("GRAPHD_DEVICE") == "gpu" and not os.environ.get("GRAPHD_TEST_FAKE_GPU")

CONFIG = """
max_batch_size: 16
input [ { name: "x" data_type: TYPE_FP32 dims: [ 8 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""


def _mlp():
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).eval()
    data = h.torch_onnx_bytes(model, torch.zeros(1, 8), input_names=["x"], output_names=["y"], opset_version=13,
                              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    return data, model


def _add_model(root, name, onnx_bytes, extra=""):
    os.makedirs(os.path.join(root, name, "1"))
    with open(os.path.join(root, name, "1", "model.onnx"), "wb") as f:
        f.write(onnx_bytes)
    with open(os.path.join(root, name, "config.pbtxt"), "w") as f:
        f.write(CONFIG + extra)


def _env(gpu):
    """The server's environment: the real GPU, a fake one, or none at all."""
    env = dict(os.environ)
    env.pop("GRAPHD_TEST_FAKE_GPU", None)
    if gpu and not REAL_GPU:
        env["GRAPHD_TEST_FAKE_GPU"] = "all"
    return env


def _infer(stub, model, x):
    req = pb.ModelInferRequest(model_name=model)
    req.inputs.add(name="x", datatype="FP32", shape=list(x.shape))
    req.raw_input_contents.append(x.tobytes())
    resp = stub.ModelInfer(req, timeout=60)
    return np.frombuffer(resp.raw_output_contents[0], np.float32).reshape(list(resp.outputs[0].shape))


def _loaded_on(log):
    """{model: device name} from the server's 'model M version V loaded (..., on D)' lines."""
    return {m: d for m, d in re.findall(r"model (\w+) version 1 loaded \([^)]*, on ([^)]+)\)", log)}


@pytest.fixture(scope="module")
def mlp():
    return _mlp()


def test_models_run_where_their_instance_group_says(tmp_path, start_server, mlp):
    onnx_bytes, model = mlp
    root = str(tmp_path / "repo")
    _add_model(root, "on_gpu", onnx_bytes, 'instance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]\n')
    _add_model(root, "on_cpu", onnx_bytes, 'instance_group [ { kind: KIND_CPU count: 2 } ]\n')
    _add_model(root, "auto_batched", onnx_bytes, "dynamic_batching { max_queue_delay_microseconds: 20000 }\n")
    server = start_server("--model-repository", root, env=_env(gpu=True))
    placed = _loaded_on(server.log())
    assert placed == {"on_gpu": "/device:GPU:0", "on_cpu": "/device:CPU:0", "auto_batched": "/device:GPU:0"}, \
        server.log()
    rng = np.random.default_rng(5)
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        for name in ("on_gpu", "on_cpu", "auto_batched"):
            x = rng.standard_normal((3, 8)).astype(np.float32)
            with torch.no_grad():
                want = model(torch.from_numpy(x)).numpy()
            np.testing.assert_allclose(_infer(stub, name, x), want, rtol=1e-5, atol=1e-5, err_msg=name)
        # Concurrent batch-1 requests are joined into batches on the GPU and split back.
        xs = [rng.standard_normal((1, 8)).astype(np.float32) for _ in range(24)]
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            got = list(pool.map(lambda x: _infer(stub, "auto_batched", x), xs))
        with torch.no_grad():
            for x, g in zip(xs, got):
                np.testing.assert_allclose(g, model(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-5)
        stats = stub.ModelStatistics(pb.ModelStatisticsRequest(name="auto_batched"), timeout=10).model_stats[0]
        assert stats.inference_count >= 27 and stats.execution_count < stats.inference_count
    assert server.alive(), server.log()


def test_an_unloaded_gpu_model_gives_its_functions_and_device_memory_back(tmp_path, start_server, mlp):
    onnx_bytes, _ = mlp
    root = str(tmp_path / "repo")
    _add_model(root, "kept", onnx_bytes, "instance_group [ { kind: KIND_CPU } ]\n")
    server = start_server("--model-repository", root, "--model-control-mode", "explicit", env=_env(gpu=True))
    with graphd.connect(server.target, device="cpu") as probe, grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="kept"), timeout=60)
        before = probe.server_info()
        _add_model(root, "gpu_model", onnx_bytes, "instance_group [ { kind: KIND_GPU } ]\n")
        stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="gpu_model"), timeout=60)
        x = np.ones((2, 8), np.float32)
        assert _infer(stub, "gpu_model", x).shape == (2, 4)
        assert probe.server_info().function_cache.entries > before.function_cache.entries
        stub.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="gpu_model"), timeout=60)
        after = probe.server_info()
        assert after.function_cache.entries == before.function_cache.entries  # its compiled functions went
        assert after.gpu_bytes_in_use == before.gpu_bytes_in_use  # and every tensor it held on the GPU
        assert _infer(stub, "kept", x).shape == (2, 4)
    assert "gpu_model version 1 loaded" in server.log() and server.alive(), server.log()


def test_kind_gpu_without_a_gpu_names_why_and_the_others_serve(tmp_path, start_server, mlp):
    onnx_bytes, model = mlp
    root = str(tmp_path / "repo")
    _add_model(root, "needs_gpu", onnx_bytes, "instance_group [ { kind: KIND_GPU } ]\n")
    _add_model(root, "auto", onnx_bytes)
    server = start_server("--model-repository", root, "--model-control-mode", "poll", "--gpu", "off",
                          env=_env(gpu=False))
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        assert not stub.ModelReady(pb.ModelReadyRequest(name="needs_gpu")).ready
        index = {m.name: m for m in stub.RepositoryIndex(pb.RepositoryIndexRequest()).models}
        assert index["needs_gpu"].state == "UNAVAILABLE"
        assert "KIND_GPU" in index["needs_gpu"].reason and "disabled by --gpu=off" in index["needs_gpu"].reason
        x = np.ones((1, 8), np.float32)
        with pytest.raises(grpc.RpcError) as e:
            _infer(stub, "needs_gpu", x)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "KIND_GPU" in e.value.details()
        with torch.no_grad():
            np.testing.assert_allclose(_infer(stub, "auto", x), model(torch.from_numpy(x)).numpy(), rtol=1e-5,
                                       atol=1e-5)
    assert _loaded_on(server.log()) == {"auto": "/device:CPU:0"}


def test_kind_gpu_without_a_gpu_stops_a_server_in_mode_none(tmp_path, graphd_bin, mlp):
    import subprocess
    root = str(tmp_path / "repo")
    _add_model(root, "needs_gpu", mlp[0], "instance_group [ { kind: KIND_GPU } ]\n")
    proc = subprocess.run([graphd_bin, "--listen", "127.0.0.1:0", "--model-repository", root, "--gpu", "off"],
                          env=_env(gpu=False), capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "needs_gpu/config.pbtxt" in proc.stderr + proc.stdout and "KIND_GPU" in proc.stderr + proc.stdout
