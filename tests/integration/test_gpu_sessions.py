"""GPU sessions (issue 6) through the real server and Python client.

`make test` runs the integration suites twice: as they are, and with
GRAPHD_TEST_FAKE_GPU=mixed GRAPHD_DEVICE=gpu, where the server's "GPU" is a fake
accelerator in host memory (executor/testing/fake_accelerator.h) running about two
thirds of the op types, so every suite drives placement and copy steps; the tests
below then run against the fake (not the nvidia-smi memory check).

Everywhere: a CPU session's DescribeFunction shows every node on /device:CPU:0 and no
copies; device="gpu" on a server without a usable GPU is FAILED_PRECONDITION naming
why. On a machine with a GPU (the tests below skip, saying so, elsewhere): a source
function, a tf.v1 graph and a torchvision ResNet-18 give the CPU session's results
within 1e-4 relative (fp32, no TF32), DescribeFunction shows the GPU placement, and
after every GPU session closed the server's GPU memory (nvidia-smi) is back at its
idle baseline (taken after the first GPU session closed: the CUDA context and the
libraries' handles stay).
"""

import shutil
import subprocess
import time

import numpy as np
import pytest

import graphd
import graphd.v1 as tf

import it_helpers as h

SOURCE = '''
import tensorflow as tf

@tf.function
def f(x, w):
  return tf.nn.softmax(tf.nn.relu(tf.matmul(x, w)) * 2.0 + 1.0)
'''


def gpus_of(target):
    with graphd.connect(target, device="cpu") as client:
        return [d for d in client.list_devices() if d.device_type == "GPU"]


def run_source(target, device):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((16, 4)).astype(np.float32)
    with graphd.connect(target, device=device) as client:
        mod = client.load_module(SOURCE, filename="gpu.py")
        out = np.asarray(mod.f(x, w))
        return out, mod.f.placement()


def test_cpu_session_places_every_node_on_the_cpu(target):
    out, (nodes, copies) = run_source(target, "cpu")
    assert out.shape == (8, 4)
    assert nodes and set(nodes.values()) == {"/device:CPU:0"}, nodes
    assert copies == 0


def test_gpu_request_without_usable_gpu_is_failed_precondition(target):
    if gpus_of(target):
        pytest.skip("this machine has a GPU: the GPU tests below run instead")
    with pytest.raises(graphd.errors.FailedPreconditionError) as info:
        graphd.connect(target, device="gpu")
    assert "no GPU device on this server" in str(info.value)


def test_gpu_off_lists_no_gpu_and_refuses_gpu_sessions(start_server):
    server = start_server("--gpu", "off")
    assert gpus_of(server.target) == []
    with pytest.raises(graphd.errors.FailedPreconditionError) as info:
        graphd.connect(server.target, device="gpu")
    assert "no GPU device on this server (disabled by --gpu=off)" in str(info.value)


def need_gpu(target):
    found = gpus_of(target)
    if not found:
        pytest.skip("no GPU on this machine (ListDevices lists none): GPU sessions not exercised")
    return found


def test_source_function_on_gpu_matches_cpu_and_shows_placement(target):
    need_gpu(target)
    want, _ = run_source(target, "cpu")
    got, (nodes, copies) = run_source(target, "gpu")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    devices = set(nodes.values())
    assert "/device:GPU:0" in devices, nodes
    assert copies >= 2  # at least the feeds up and the result down


def test_v1_session_on_gpu_matches_cpu(target):
    need_gpu(target)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((32, 64)).astype(np.float32)
    b = rng.standard_normal((64, 16)).astype(np.float32)
    results = {}
    for device in ("cpu", "gpu"):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 64], name="x")
            y = tf.nn.relu(tf.matmul(x, tf.constant(b)) - 0.5)
            with tf.Session(target, device=device) as sess:
                results[device] = sess.run(y, {x: a})
    np.testing.assert_allclose(results["gpu"], results["cpu"], rtol=1e-4, atol=1e-5)


def gpu_bytes(target, settle_s=3.0):
    """(in use, cached) GPU bytes the server reports, once both are 0 or after settle_s
    (a closed session's last reference may still be dropping)."""
    deadline = time.monotonic() + settle_s
    with graphd.connect(target, device="cpu") as client:
        while True:
            info = client.server_info()
            if (info.gpu_bytes_in_use == 0 and info.gpu_bytes_cached == 0) or time.monotonic() > deadline:
                return info.gpu_bytes_in_use, info.gpu_bytes_cached
            time.sleep(0.05)


def test_gpu_memory_is_handed_back_when_sessions_close(start_server):
    server = start_server()
    need_gpu(server.target)
    rng = np.random.default_rng(2)
    for _ in range(2):
        with graphd.connect(server.target, device="gpu") as client:
            mod = client.load_module(SOURCE, filename="gpu.py")
            for n in (8, 64):
                mod.f(rng.standard_normal((n, 16)).astype(np.float32),
                      rng.standard_normal((16, 4)).astype(np.float32))
        assert gpu_bytes(server.target) == (0, 0)


def resnet18_onnx():
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    data = h.torch_onnx_bytes(model, torch.zeros(1, 3, 64, 64), input_names=["image"], output_names=["logits"],
                              opset_version=13, dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    return data


def gpu_memory_mib(pid):
    """This process's GPU memory by nvidia-smi, or None when nvidia-smi cannot say."""
    if shutil.which("nvidia-smi") is None:
        return None
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        return None
    for line in out.stdout.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 2 and fields[0] == str(pid):
            return int(fields[1])
    return 0


def test_resnet18_on_gpu_matches_cpu_and_memory_returns(start_server):
    server = start_server()
    mixed_fake = "GRAPHD_TEST_FAKE_GPU=mixed" in need_gpu(server.target)[0].description
    model = resnet18_onnx()
    x = np.random.default_rng(1).standard_normal((4, 3, 64, 64)).astype(np.float32)
    with graphd.connect(server.target) as client:
        want = client.load_onnx(model, name="r18")(x)
    # The idle baseline is taken after the first GPU session closed: the CUDA context,
    # the per-thread cuBLAS/cuDNN handles and the kernels the libraries loaded stay for
    # the process's life; everything a session allocated must be handed back.
    readings = []
    for _ in range(3):  # sessions come and go; memory must not creep
        with graphd.connect(server.target, device="gpu") as client:
            fn = client.load_onnx(model, name="r18")
            got = fn(x)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))
            nodes, _ = fn.placement()
            if not mixed_fake:  # the mixed fake runs about a third of the op types on the CPU
                ops = {n.name: n.op for n in fn.graph_def()[0].node}
                convs = {n: d for n, d in nodes.items() if ops.get(n) == "ConvND"}
                assert convs and set(convs.values()) == {"/device:GPU:0"}, convs
        assert gpu_bytes(server.target) == (0, 0)  # the allocator's own account
        time.sleep(0.5)
        readings.append(gpu_memory_mib(server.proc.pid))
    if readings[0] is None:
        pytest.skip("nvidia-smi unavailable: GPU memory after close not measured")
    assert max(readings[1:]) <= readings[0] + 2, "GPU memory (MiB) after each closed session: %s" % readings
