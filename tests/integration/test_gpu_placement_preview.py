"""Where GPU sessions would run the benchmark models, checked without a GPU.

The server started with GRAPHD_TEST_FAKE_GPU=cuda places on a fake accelerator (host
memory, CPU kernels) exactly the nodes the CUDA device's kernel table claims
(executor/gpu/gpu_support.h), after the passes GPU sessions run. So this shows, on any
machine built with CUDA, that torchvision's ResNet-18 and MobileNetV2 would run wholly
on the GPU: every node that computes placed there, and the only copies the image going
up and the logits coming down. The results must equal a CPU session's (the fake computes with the
CPU kernels, on the GPU sessions' graph).
"""

import os

import numpy as np
import pytest

import graphd

import it_helpers as h


def exported(model_name):
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = getattr(torchvision.models, model_name)(weights=None).eval()
    data = h.torch_onnx_bytes(model, torch.zeros(1, 3, 64, 64), input_names=["image"], output_names=["logits"],
                              opset_version=13, dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    return data


def preview_server(start_server):
    env = dict(os.environ, GRAPHD_TEST_FAKE_GPU="cuda")
    env.pop("GRAPHD_DEVICE", None)
    server = start_server(env=env)
    with graphd.connect(server.target, device="gpu") as client:
        mod = client.load_module("import tensorflow as tf\n@tf.function\ndef f(x):\n  return tf.nn.relu(x)\n")
        mod.f(np.ones(3, np.float32))
        nodes, _ = mod.f.placement()
    if "/device:GPU:0" not in nodes.values():
        pytest.skip("this graphd has no CUDA kernel table (built without CUDA): no placement to preview")
    return server


@pytest.mark.parametrize("model_name", ["resnet18", "mobilenet_v2"])
def test_benchmark_model_runs_wholly_on_the_gpu(start_server, model_name):
    server = preview_server(start_server)
    model = exported(model_name)
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32)
    with graphd.connect(server.target, device="cpu") as client:
        want = client.load_onnx(model, name=model_name)(x)
    with graphd.connect(server.target, device="gpu") as client:
        fn = client.load_onnx(model, name=model_name)
        got = fn(x)
        nodes, copies = fn.placement()
        ops = {n.name: n.op for n in fn.graph_def()[0].node}
    # Constants no GPU node reads stay on the host (free: nothing is copied).
    on_cpu = sorted(n for n, d in nodes.items() if d != "/device:GPU:0" and ops.get(n) not in ("Const", "Placeholder"))
    assert on_cpu == [], "nodes a GPU session would run on the CPU: %s" % on_cpu
    assert sum(d == "/device:GPU:0" for d in nodes.values()) >= 20  # ResNet-18 alone has 20 convolutions
    assert copies == 2, "copies per call: %d (want the image up and the logits down)" % copies
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
