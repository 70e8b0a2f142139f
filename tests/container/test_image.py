"""The container image (issue 19): `make image` builds localhost/graphd:latest with
buildah; this test (`make test-image`) runs graphd from it and drives it from here.

buildah runs the image's entrypoint in the image's file system with the host's
network (`buildah run --isolation chroot`): `podman run` cannot start containers on
these machines (it cannot set rlimits), and buildah's chroot isolation is what works.
The test starts graphd from the image as the image's user with a model repository
mounted read-only, runs a TF1 sess.run, a tf.function call and a KServe v2
ModelInfer against it, checks the health check command the image declares, then
sends SIGTERM and checks that graphd drains and exits 0.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

import graphd  # noqa: E402
import graphd.v1 as tf  # noqa: E402

IMAGE = os.environ.get("GRAPHD_IMAGE", "localhost/graphd:latest")
BUILDAH = shutil.which("buildah")
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"

MODEL = """
import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
def serve(x):
    return {"y": tf.reduce_sum(x * x, axis=1)}
"""

SOURCE = """
import tensorflow as tf

@tf.function
def affine(x, w, b):
    return tf.matmul(x, w) + b
"""


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _exe(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return ""


def _buildah(*args, **kw):
    return subprocess.run([BUILDAH] + list(args), capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def container():
    if BUILDAH is None:
        pytest.fail("buildah is missing: apt-get install buildah (make image installs the image first)", pytrace=False)
    if _buildah("inspect", "--type", "image", IMAGE).returncode != 0:
        pytest.fail("no image %s: run `make image` first" % IMAGE, pytrace=False)
    out = _buildah("from", "--quiet", IMAGE)
    assert out.returncode == 0, out.stderr
    name = out.stdout.strip()
    yield name
    _buildah("rm", name)


@pytest.fixture(scope="module")
def inspect(container):
    out = _buildah("inspect", "--type", "container", container)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def config(inspect):
    return inspect["OCIv1"]["config"]


def test_the_image_is_made_to_run_as_a_service(config, inspect):
    # The health check (Docker's image format: OCI's has none) is graphctl's, against
    # the readiness service, which turns NOT_SERVING when graphd drains.
    health = inspect["Docker"]["config"]["Healthcheck"]["Test"]
    assert health[0] == "CMD" and health[1] == "/usr/local/bin/graphctl" and "readiness" in health
    assert config["Entrypoint"] == ["/usr/local/bin/graphd"]  # exec form: graphd is PID 1
    assert config["User"] == "10001:10001"  # not root; deploy/k8s runs it as 10001 too
    assert config["StopSignal"] == "SIGTERM"
    assert "GRAPHD_LISTEN=0.0.0.0:50051" in config["Env"]
    assert {"50051/tcp", "8000/tcp", "9090/tcp"} <= set(config["ExposedPorts"])


def test_graphd_from_the_image_serves_and_drains_on_sigterm(container, config, tmp_path):
    repo = tmp_path / "models"
    (repo / "norm2" / "1").mkdir(parents=True)
    (repo / "norm2" / "1" / "model.py").write_text(MODEL)
    os.chmod(tmp_path, 0o755)
    port = _free_port()
    target = "127.0.0.1:%d" % port
    log_path = tmp_path / "graphd.log"
    user = config["User"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [BUILDAH, "run", "--isolation", "chroot", "--user", user, "--volume", "%s:/models:ro" % repo,
             container, "--", "/usr/local/bin/graphd", "--listen", target, "--model-repository", "/models",
             "--drain-seconds", "5"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if graphd.health(target, service="readiness", timeout=0.5) == "SERVING":
                    break
            except graphd.errors.OpError:
                time.sleep(0.1)
        assert proc.poll() is None, log_path.read_text()

        # The image's HEALTHCHECK command, run in the image.
        check = _buildah("run", "--isolation", "chroot", "--user", user, container, "--",
                         "/usr/local/bin/graphctl", "--target", target, "health", "--service", "readiness")
        assert check.returncode == 0, check.stdout + check.stderr

        # sess.run (TF1 graph)
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 2], name="x")
            y = tf.reduce_sum(x * 3.0, axis=1)
        with tf.Session(target, graph=graph) as sess:
            np.testing.assert_allclose(sess.run(y, {x: [[1, 2], [3, 4]]}), [9.0, 21.0])

        # a tf.function call
        with graphd.connect(target) as client:
            module = client.load_module(SOURCE)
            w = np.float32([[1, 0], [0, 2]])
            got = module.affine(np.float32([[1, 1]]), w, np.float32([0.5, -0.5]))
            np.testing.assert_allclose(got, [[1.5, 1.5]])

        # KServe v2 ModelInfer against the mounted repository
        import grpc
        from graphd.kserve import grpc_service_pb2 as pb
        from graphd.kserve import grpc_service_pb2_grpc
        channel = grpc.insecure_channel(target)
        stub = grpc_service_pb2_grpc.GRPCInferenceServiceStub(channel)
        request = pb.ModelInferRequest(model_name="norm2", id="from-the-test")
        request.inputs.add(name="x", datatype="FP32", shape=[2, 3]).contents.fp32_contents.extend([1, 2, 3, 0, 0, 2])
        response = stub.ModelInfer(request, timeout=30)
        channel.close()
        assert response.id == "from-the-test"
        out = response.outputs[0]
        values = np.frombuffer(response.raw_output_contents[0], np.float32) if response.raw_output_contents \
            else np.float32(out.contents.fp32_contents)
        np.testing.assert_allclose(values, [14.0, 4.0])

        # SIGTERM to graphd in the container (what a container stop sends PID 1).
        # buildah's chroot runtime runs between buildah and graphd: signal graphd itself,
        # the process whose executable is the image's graphd.
        pids = subprocess.run(["pgrep", "-f", "/usr/local/bin/graphd --listen %s" % target],
                              capture_output=True, text=True).stdout.split()
        graphd_pids = [int(p) for p in pids if _exe(int(p)).endswith("/usr/local/bin/graphd")]
        assert len(graphd_pids) == 1, "graphd's process not found among %s" % pids
        for pid in graphd_pids:
            os.kill(pid, signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, log_path.read_text()
        log = log_path.read_text()
        assert "draining" in log, log
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_graphd_runs_from_the_image_on_a_read_only_root(container, config, tmp_path):
    """The image needs no writable root file system (Kubernetes' readOnlyRootFilesystem):
    graphd starts from the image's files mounted read-only, with only a tmpfs /tmp, as
    the image's user, and answers. buildah run has no read-only mode, so the test mounts
    the image itself, as a container runtime would (needs root for the mounts)."""
    if os.geteuid() != 0:
        pytest.skip("mounting the image read-only needs root")
    out = _buildah("mount", container)
    assert out.returncode == 0, out.stderr
    rootfs = out.stdout.strip()
    root = tmp_path / "ro"
    root.mkdir()
    mounts = []

    def mount(*args):
        target = args[-1]
        subprocess.run(["mount"] + list(args), check=True, capture_output=True, timeout=30)
        mounts.append(target)

    proc = None
    try:
        mount("--bind", rootfs, str(root))
        mount("-o", "remount,bind,ro", str(root))
        mount("-t", "tmpfs", "-o", "size=64m,mode=1777", "tmpfs", str(root / "tmp"))
        mount("-t", "proc", "proc", str(root / "proc"))
        mount("--bind", "/dev", str(root / "dev"))
        probe = subprocess.run([CHROOT, str(root), "/bin/sh", "-c", "touch /etc/x"], capture_output=True, text=True)
        assert probe.returncode != 0 and "Read-only" in probe.stderr, probe.stderr  # really read-only
        target = "127.0.0.1:%d" % _free_port()
        proc = subprocess.Popen([CHROOT, "--userspec=%s" % config["User"], str(root), "/usr/local/bin/graphd",
                                 "--listen", target, "--drain-seconds", "1"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={"PATH": "/usr/bin:/bin"})
        deadline = time.monotonic() + 30
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = graphd.health(target, service="readiness", timeout=0.5)
                if status == "SERVING":
                    break
            except graphd.errors.OpError:
                time.sleep(0.1)
        assert status == "SERVING", proc.stdout.read().decode() if proc.poll() is not None else "no answer"
        with graphd.connect(target) as client:
            assert client.echo(b"read-only") == b"read-only"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        for target in reversed(mounts):
            subprocess.run(["umount", "-l", target], capture_output=True, timeout=30)
        _buildah("umount", container)
