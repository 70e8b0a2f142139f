"""Kubernetes manifests (issue 19, deploy/k8s).

- Every kustomization under deploy/k8s renders with `kubectl kustomize`, and every
  object it renders validates against the Kubernetes schemas offline: kubernetes-models
  (and the Prometheus Operator's models for ServiceMonitor), installed by this test
  into the build tree with `npm ci` from tests/deploy/k8s-validate/package-lock.json.
- The validator does reject bad objects.
- The pieces agree with graphd: the ConfigMap's configuration starts a real graphd,
  the probes ask its health service, the grace period covers the drain, the
  containers run as non-root with a read-only root file system, and the overlays
  set what they are for.
"""

import filecmp
import glob
import os
import shutil
import subprocess

import pytest
import yaml

from conftest import start_graphd

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K8S = os.path.join(REPO, "deploy", "k8s")
VALIDATE_SRC = os.path.join(REPO, "tests", "deploy", "k8s-validate")
KUSTOMIZATIONS = sorted(os.path.relpath(os.path.dirname(p), K8S)
                        for p in glob.glob(os.path.join(K8S, "**", "kustomization.yaml"), recursive=True))


def _build_dir():
    binary = os.environ.get("GRAPHD_BIN")
    return os.path.dirname(os.path.dirname(binary)) if binary else os.path.join(REPO, "build")


@pytest.fixture(scope="module")
def kubectl():
    path = shutil.which("kubectl")
    if path is None:
        pytest.fail("kubectl (with its built-in kustomize) is needed to render deploy/k8s", pytrace=False)
    return path


@pytest.fixture(scope="module")
def validator():
    """The validator's directory in the build tree, its npm packages installed from
    the lock file (again only when the lock file changed)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail("node and npm are needed to validate deploy/k8s (scripts/install-deps.sh installs them)",
                    pytrace=False)
    work = os.path.join(_build_dir(), "k8s-validate")
    os.makedirs(work, exist_ok=True)
    fresh = all(os.path.exists(os.path.join(work, f)) and filecmp.cmp(os.path.join(VALIDATE_SRC, f),
                                                                      os.path.join(work, f), shallow=False)
                for f in ("package.json", "package-lock.json"))
    for f in ("package.json", "package-lock.json", "validate.mjs"):
        shutil.copyfile(os.path.join(VALIDATE_SRC, f), os.path.join(work, f))
    if not fresh or not os.path.isdir(os.path.join(work, "node_modules", "kubernetes-models")):
        out = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=work, capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, "npm ci failed:\n" + out.stdout[-3000:] + out.stderr[-3000:]
    return node, work


def _validate(validator, manifest_yaml):
    node, work = validator
    return subprocess.run([node, "validate.mjs"], cwd=work, input=manifest_yaml, capture_output=True, text=True,
                          timeout=120)


def _render(kubectl, path):
    out = subprocess.run([kubectl, "kustomize", os.path.join(K8S, path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, "kubectl kustomize %s: %s" % (path, out.stderr)
    return out.stdout


def _objects(kubectl, path):
    return [d for d in yaml.safe_load_all(_render(kubectl, path)) if d]


def _one(objects, kind, name):
    """The object of `kind` named `name` (a generated ConfigMap's name has a hash suffix)."""
    def named(o):
        n = o["metadata"]["name"]
        return n == name or (kind == "ConfigMap" and n.rsplit("-", 1)[0] == name)
    found = [o for o in objects if o["kind"] == kind and named(o)]
    assert len(found) == 1, (kind, name, [o["metadata"]["name"] for o in objects if o["kind"] == kind])
    return found[0]


def test_there_are_a_base_and_cpu_and_gpu_overlays():
    assert {"base", os.path.join("overlays", "cpu"), os.path.join("overlays", "gpu")} <= set(KUSTOMIZATIONS)


@pytest.mark.parametrize("path", KUSTOMIZATIONS)
def test_every_kustomization_renders_and_validates(kubectl, validator, path):
    rendered = _render(kubectl, path)
    out = _validate(validator, rendered)
    assert out.returncode == 0, "%s:\n%s%s" % (path, out.stdout, out.stderr)
    kinds = {d["kind"] for d in yaml.safe_load_all(rendered) if d}
    assert {"Deployment", "Service", "ConfigMap", "PodDisruptionBudget", "HorizontalPodAutoscaler",
            "ServiceMonitor", "NetworkPolicy"} <= kinds
    assert out.stdout.count("\nok ") + out.stdout.startswith("ok ") == sum(1 for d in yaml.safe_load_all(rendered)
                                                                            if d)


def test_the_validator_rejects_bad_objects(validator):
    bad = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: wrong-replicas}
spec: {replicas: "2", selector: {}, template: {spec: {containers: [{name: a}]}}}
---
apiVersion: v1
kind: Service
metadata: {name: wrong-port}
spec: {ports: [{port: http}]}
---
apiVersion: example.com/v9
kind: Unknown
metadata: {name: no-schema}
"""
    out = _validate(validator, bad)
    assert out.returncode == 1
    assert "invalid Deployment/wrong-replicas: data/spec/replicas must be integer" in out.stdout
    assert "invalid Service/wrong-port" in out.stdout and "invalid Unknown/no-schema: no schema" in out.stdout


def _graphd_container(objects):
    return _one(objects, "Deployment", "graphd")["spec"]["template"]["spec"]["containers"][0]


def test_the_config_map_starts_graphd_and_the_deployment_agrees_with_it(kubectl, tmp_path):
    from google.protobuf import text_format

    from graphd.v1 import config_pb2

    objects = _objects(kubectl, "base")
    config_text = _one(objects, "ConfigMap", "graphd-config")["data"]["graphd.textproto"]
    config = text_format.Parse(config_text, config_pb2.ServerConfig())
    deployment = _one(objects, "Deployment", "graphd")
    pod = deployment["spec"]["template"]["spec"]
    container = _graphd_container(objects)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert config.listen.endswith(":%d" % ports["grpc"])
    assert config.metrics_listen.endswith(":%d" % ports["metrics"])
    assert config.http_listen.endswith(":%d" % ports["http"])
    assert config.model_repository == next(m["mountPath"] for m in container["volumeMounts"] if m["name"] == "models")
    # Probes: native gRPC against graphd's health service.
    assert container["readinessProbe"]["grpc"] == {"port": ports["grpc"], "service": "readiness"}
    assert container["startupProbe"]["grpc"]["service"] == "readiness"
    assert container["livenessProbe"]["grpc"]["port"] == ports["grpc"]
    # SIGTERM: the preStop pause, then the drain, within the grace period.
    pause = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert pause + config.drain_seconds < pod["terminationGracePeriodSeconds"]
    # The real server takes this configuration (its paths and addresses swapped for
    # the test's: flags override the file).
    config_path = tmp_path / "graphd.textproto"
    config_path.write_text(config_text)
    (tmp_path / "models").mkdir()
    server = start_graphd(["--config", str(config_path), "--model-repository", str(tmp_path / "models"),
                           "--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--audit-log", "-"],
                          tmp_path)
    try:
        import graphd
        assert graphd.health(server.target, service="readiness", timeout=5) == "SERVING"
    finally:
        assert server.stop() == 0, server.log()


@pytest.mark.parametrize("path", KUSTOMIZATIONS)
def test_pods_run_unprivileged(kubectl, path):
    for deployment in (o for o in _objects(kubectl, path) if o["kind"] == "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, deployment["metadata"]["name"]
        for c in pod["containers"]:
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False, c["name"]
            assert sc["capabilities"]["drop"] == ["ALL"], c["name"]
            assert "memory" in c["resources"]["limits"] and "cpu" in c["resources"]["requests"], c["name"]


def test_the_overlays_set_their_device(kubectl):
    cpu = _graphd_container(_objects(kubectl, os.path.join("overlays", "cpu")))
    assert {"name": "GRAPHD_GPU", "value": "off"} in cpu["env"]
    assert "nvidia.com/gpu" not in cpu["resources"]["limits"]
    gpu_objects = _objects(kubectl, os.path.join("overlays", "gpu"))
    gpu = _graphd_container(gpu_objects)
    assert {"name": "GRAPHD_GPU", "value": "auto"} in gpu["env"]
    assert gpu["resources"]["limits"]["nvidia.com/gpu"] == 1 and gpu["image"] == "graphd:gpu"
    pod = _one(gpu_objects, "Deployment", "graphd")["spec"]["template"]["spec"]
    assert pod["nodeSelector"] and any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])


def test_the_proxy_routes_on_the_session_header(kubectl):
    objects = _objects(kubectl, "base")
    conf = _one(objects, "ConfigMap", "graphd-proxy")["data"]["nginx.conf"]
    assert "hash $http_graphd_session consistent;" in conf
    headless = _one(objects, "Service", "graphd-headless")
    assert headless["spec"]["clusterIP"] == "None"
    namespace = headless["metadata"]["namespace"]
    assert "server graphd-headless.%s.svc.cluster.local:50051 resolve;" % namespace in conf
    with open(os.path.join(REPO, "deploy", "proxy", "nginx.conf.in")) as f:
        assert "hash $http_graphd_session consistent;" in f.read()  # the same routing as the tested template
