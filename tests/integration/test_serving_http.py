"""The KServe v2 HTTP/REST endpoints (issue 15), driven with curl and Python's urllib:
health, metadata, inference with JSON data and with the binary-data extension, the
repository extension, and errors as {"error": ...} with the matching status."""

import json
import os
import struct
import subprocess
import urllib.error
import urllib.request

import numpy as np
import pytest
import torch

from conftest import _free_port
from test_serving_kserve import MLP_CONFIG, SOURCE_MODEL, _mlp, _write


@pytest.fixture(scope="module")
def mlp():
    return _mlp()


@pytest.fixture
def http(tmp_path, start_server, mlp):
    root = tmp_path / "repo"
    _write(str(root / "mlp" / "1" / "model.onnx"), mlp[0])
    _write(str(root / "mlp" / "config.pbtxt"), MLP_CONFIG)
    _write(str(root / "source" / "1" / "model.py"), SOURCE_MODEL)
    _write(str(root / "source" / "config.pbtxt"), 'function: "predict"\n')
    port = _free_port()
    server = start_server("--model-repository", str(root), "--http-listen", "127.0.0.1:%d" % port)
    return "http://127.0.0.1:%d" % port


def _get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def _post(url, body, headers=None):
    req = urllib.request.Request(url, data=body, headers=headers or {"Content-Type": "application/json"},
                                 method="POST")
    return _get(req)


def test_health_and_metadata_with_curl(http):
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", http + "/v2/health/ready"],
                         capture_output=True, text=True, timeout=30)
    assert out.stdout == "200"
    meta = json.loads(subprocess.run(["curl", "-sf", http + "/v2/models/mlp"], capture_output=True, text=True,
                                     timeout=30, check=True).stdout)
    assert meta["name"] == "mlp" and meta["versions"] == ["1"] and meta["platform"] == "graphd_onnx"
    assert meta["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [-1, 8]}]
    assert _get(http + "/v2/health/live")[0] == 200
    assert json.loads(_get(http + "/v2")[1])["name"] == "graphd"
    assert _get(http + "/v2/models/mlp/versions/1/ready")[0] == 200
    code, body, _ = _get(http + "/v2/models/nope/ready")
    assert code == 400 and "nope" in json.loads(body)["error"]
    code, body, _ = _get(http + "/v2/models/nope")
    assert code == 404 and "nope" in json.loads(body)["error"]


def test_json_inference_matches_torch(http, mlp):
    x = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    want = mlp[1](torch.from_numpy(x)).detach().numpy()
    body = {"id": "a1", "inputs": [{"name": "x", "datatype": "FP32", "shape": [3, 8], "data": x.tolist()}]}
    out = subprocess.run(["curl", "-sf", "-X", "POST", "-H", "Content-Type: application/json", "-d", json.dumps(body),
                          http + "/v2/models/mlp/infer"], capture_output=True, text=True, timeout=30, check=True)
    resp = json.loads(out.stdout)
    assert (resp["model_name"], resp["model_version"], resp["id"]) == ("mlp", "1", "a1")
    y = resp["outputs"][0]
    assert (y["name"], y["datatype"], y["shape"]) == ("y", "FP32", [3, 4])
    np.testing.assert_allclose(np.array(y["data"], np.float32).reshape(3, 4), want, rtol=1e-5, atol=1e-6)


def test_binary_data_extension(http, mlp):
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    want = mlp[1](torch.from_numpy(x)).detach().numpy()
    header = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 8],
                                     "parameters": {"binary_data_size": x.nbytes}}],
                         "outputs": [{"name": "y", "parameters": {"binary_data": True}}]}).encode()
    code, body, headers = _post(http + "/v2/models/mlp/versions/1/infer", header + x.tobytes(),
                                {"Inference-Header-Content-Length": str(len(header)),
                                 "Content-Type": "application/octet-stream"})
    assert code == 200, body
    n = int(headers["Inference-Header-Content-Length"])
    meta = json.loads(body[:n])
    assert meta["outputs"][0]["parameters"]["binary_data_size"] == 2 * 4 * 4
    np.testing.assert_allclose(np.frombuffer(body[n:], np.float32).reshape(2, 4), want, rtol=1e-5, atol=1e-6)


def test_source_model_over_http(http):
    body = {"inputs": [{"name": "features", "datatype": "FP32", "shape": [1, 3], "data": [[1, 2, 3]]},
                       {"name": "ids", "datatype": "INT64", "shape": [1], "data": [41]}],
            "outputs": [{"name": "next_ids"}, {"name": "total"}]}
    code, raw, _ = _post(http + "/v2/models/source/infer", json.dumps(body).encode())
    assert code == 200, raw
    outs = {o["name"]: o for o in json.loads(raw)["outputs"]}
    assert outs["next_ids"]["data"] == [42] and outs["next_ids"]["datatype"] == "INT64"
    assert outs["total"]["data"] == [6.0]


def _nested(depth):
    data = [0.0]
    for _ in range(depth):
        data = [data]
    return data


def test_errors_name_the_problem(http):
    def infer(payload, model="mlp", headers=None):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        code, body, _ = _post(http + "/v2/models/%s/infer" % model, data, headers)
        return code, json.loads(body)["error"]

    good = {"name": "x", "datatype": "FP32", "shape": [1, 8], "data": [0.0] * 8}
    assert infer({"inputs": [good]}, model="nope")[0] == 404
    cases = [
        (b"{not json", "not a JSON object"),
        ({"inputs": [dict(good, data=[0.0] * 7)]}, "elements"),
        ({"inputs": [dict(good, data=["a"] * 8)]}, "not a number"),
        ({"inputs": [dict(good, datatype="FP99")]}, "FP99"),
        ({"inputs": [dict(good, name="z")]}, "'z'"),
        ({"inputs": [dict(good, shape=[1, -8])]}, "at least 0"),
        ({"inputs": [dict(good, shape=[2 ** 40, 2 ** 40])]}, "max-tensor-bytes"),
        ({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 8]}]}, "binary_data_size"),
        ({"inputs": [dict(good, data=_nested(40))]}, "nests deeper"),
        ({"inputs": [{"name": "x", "datatype": "BYTES", "shape": [2 ** 26], "data": []}]}, "elements"),
        ({"inputs": [good], "outputs": [{"name": "logits"}]}, "no output 'logits'"),
    ]
    for payload, words in cases:
        code, error = infer(payload)
        assert code == 400 and words in error, (payload, code, error)
    header = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 8],
                                     "parameters": {"binary_data_size": 64}}]}).encode()
    code, error = infer(header + b"\0" * 10, headers={"Inference-Header-Content-Length": str(len(header))})
    assert code == 400 and "past the body's end" in error
    code, error = infer(header, headers={"Inference-Header-Content-Length": str(len(header) + 5)})
    assert code == 400 and "past the body's end" in error
    # Still serving.
    code, _, _ = _post(http + "/v2/models/mlp/infer", json.dumps({"inputs": [good]}).encode())
    assert code == 200


def test_repository_extension(http):
    code, body, _ = _post(http + "/v2/repository/index", b"{}")
    assert code == 200
    assert {(m["name"], m["state"]) for m in json.loads(body)} == {("mlp", "READY"), ("source", "READY")}
    code, body, _ = _post(http + "/v2/repository/models/mlp/unload", b"{}")
    assert code == 400 and "explicit" in json.loads(body)["error"]
