"""Serving a model repository over the KServe v2 gRPC protocol (issue 15).

The client here is built only from stubs generated from proto/graphd/kserve/
grpc_service.proto (package ``inference``, as KServe and Triton publish it) and grpcio:
not graphd's client. The repository holds an ONNX MLP and torchvision's ResNet-18
exported here with torch, and a graphd GraphDef model; outputs are compared with
torch's (or numpy's), with typed and with raw contents. Every bad request gets its
code and a message naming what is wrong, and the server keeps serving.
"""

import os
import shutil
import struct

import grpc
import numpy as np
import pytest
import torch

import graphd.v1 as tf
from conftest import rss_kib
from graphd.kserve import grpc_service_pb2 as pb
from graphd.kserve import grpc_service_pb2_grpc as pb_grpc
from test_onnx_torchvision import exported

import it_helpers as h

MLP_CONFIG = """
name: "mlp"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 8 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""

BATCHED_CONFIG = MLP_CONFIG.replace('name: "mlp"', 'name: "mlp_batched"') + """
dynamic_batching { max_queue_delay_microseconds: 50000 }
"""

SOURCE_MODEL = """
import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="features"),
                              tf.TensorSpec([None], tf.int64)])
def predict(features, ids):
    total = tf.reduce_sum(features, axis=1)
    return {"scaled": features * 2.0, "total": total, "next_ids": ids + 1}


@tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
def serve(x):
    return x, x + 1.0
"""

GRAPHDEF_CONFIG = """
input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
"""


def _mlp():
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    data = h.torch_onnx_bytes(model, torch.zeros(1, 8), input_names=["x"], output_names=["y"], opset_version=13,
                              dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    return data, model


def _graphdef():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        tf.identity(tf.nn.relu(x * 2.0 - 1.0), name="y")
    return g.as_graph_def().SerializeToString()


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


@pytest.fixture(scope="module")
def models():
    mlp_bytes, mlp = _mlp()
    resnet_bytes, resnet = exported("resnet18")
    return {"mlp": (mlp_bytes, mlp), "resnet18": (resnet_bytes, resnet), "graphdef": _graphdef()}


@pytest.fixture(scope="module")
def repository(tmp_path_factory, models):
    root = tmp_path_factory.mktemp("repo")
    _write(str(root / "mlp" / "1" / "model.onnx"), models["mlp"][0])
    _write(str(root / "mlp" / "config.pbtxt"), MLP_CONFIG)
    _write(str(root / "mlp_batched" / "1" / "model.onnx"), models["mlp"][0])
    _write(str(root / "mlp_batched" / "config.pbtxt"), BATCHED_CONFIG)
    _write(str(root / "resnet18" / "1" / "model.onnx"), models["resnet18"][0])
    _write(str(root / "resnet18_batched" / "1" / "model.onnx"), models["resnet18"][0])
    _write(str(root / "resnet18_batched" / "config.pbtxt"),
           "max_batch_size: 32\ndynamic_batching { max_queue_delay_microseconds: 20000 }\n")
    _write(str(root / "source" / "1" / "model.py"), SOURCE_MODEL)
    _write(str(root / "source" / "config.pbtxt"), 'function: "predict"\n')
    _write(str(root / "pair" / "1" / "model.py"), SOURCE_MODEL)
    _write(str(root / "double_relu" / "1" / "model.graphdef"), models["graphdef"])
    _write(str(root / "double_relu" / "config.pbtxt"), GRAPHDEF_CONFIG)
    return str(root)


@pytest.fixture(scope="module")
def served(repository, tmp_path_factory):
    from conftest import start_graphd
    proc = start_graphd(["--model-repository", repository], tmp_path_factory.mktemp("graphd"), ready_timeout=120)
    yield proc
    proc.stop()


@pytest.fixture
def stub(served):
    with grpc.insecure_channel(served.target) as channel:
        yield pb_grpc.GRPCInferenceServiceStub(channel)
    assert served.alive(), served.log()


def _typed_request(model, name, array, **kw):
    req = pb.ModelInferRequest(model_name=model, **kw)
    t = req.inputs.add(name=name, datatype="FP32", shape=list(array.shape))
    t.contents.fp32_contents.extend(array.ravel().tolist())
    return req


def _raw_request(model, name, array, datatype="FP32", **kw):
    req = pb.ModelInferRequest(model_name=model, **kw)
    req.inputs.add(name=name, datatype=datatype, shape=list(array.shape))
    req.raw_input_contents.append(array.tobytes())
    return req


def _output(resp, index=0):
    out = resp.outputs[index]
    assert out.datatype == "FP32"
    return np.frombuffer(resp.raw_output_contents[index], np.float32).reshape(list(out.shape))


def _code(call):
    with pytest.raises(grpc.RpcError) as e:
        call()
    return e.value.code(), e.value.details()


def test_health_metadata_and_index(stub):
    assert stub.ServerLive(pb.ServerLiveRequest()).live
    assert stub.ServerReady(pb.ServerReadyRequest()).ready
    meta = stub.ServerMetadata(pb.ServerMetadataRequest())
    assert meta.name == "graphd" and "model_repository" in meta.extensions
    index = stub.RepositoryIndex(pb.RepositoryIndexRequest())
    assert {(m.name, m.version, m.state) for m in index.models} == {
        ("double_relu", "1", "READY"), ("mlp", "1", "READY"), ("mlp_batched", "1", "READY"),
        ("pair", "1", "READY"), ("resnet18", "1", "READY"), ("resnet18_batched", "1", "READY"),
        ("source", "1", "READY")}
    assert stub.ModelReady(pb.ModelReadyRequest(name="mlp")).ready
    assert stub.ModelReady(pb.ModelReadyRequest(name="mlp", version="1")).ready
    assert not stub.ModelReady(pb.ModelReadyRequest(name="mlp", version="2")).ready
    assert not stub.ModelReady(pb.ModelReadyRequest(name="nope")).ready
    m = stub.ModelMetadata(pb.ModelMetadataRequest(name="mlp"))
    assert (m.name, list(m.versions), m.platform) == ("mlp", ["1"], "graphd_onnx")
    assert [(t.name, t.datatype, list(t.shape)) for t in m.inputs] == [("x", "FP32", [-1, 8])]
    assert [(t.name, t.datatype, list(t.shape)) for t in m.outputs] == [("y", "FP32", [-1, 4])]
    r = stub.ModelMetadata(pb.ModelMetadataRequest(name="resnet18", version="1"))
    assert [(t.name, t.datatype, list(t.shape)) for t in r.inputs] == [("image", "FP32", [-1, 3, 96, 96])]


def test_mlp_typed_and_raw_match_torch(stub, models):
    x = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    want = models["mlp"][1](torch.from_numpy(x)).detach().numpy()
    typed = stub.ModelInfer(_typed_request("mlp", "x", x, id="req-7"))
    assert (typed.model_name, typed.model_version, typed.id) == ("mlp", "1", "req-7")
    np.testing.assert_allclose(_output(typed), want, rtol=1e-5, atol=1e-6)
    raw = stub.ModelInfer(_raw_request("mlp", "x", x, model_version="1"))
    np.testing.assert_allclose(_output(raw), want, rtol=1e-5, atol=1e-6)
    req = _raw_request("mlp", "x", x)
    req.outputs.add(name="y")
    assert [o.name for o in stub.ModelInfer(req).outputs] == ["y"]


def test_resnet18_matches_torch(stub, models):
    x = np.random.default_rng(1).standard_normal((2, 3, 96, 96)).astype(np.float32)
    with torch.no_grad():
        want = models["resnet18"][1](torch.from_numpy(x)).numpy()
    got = _output(stub.ModelInfer(_raw_request("resnet18", "image", x)))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_graphdef_model(stub):
    x = np.array([0.0, 0.25, 1.0, -3.0], np.float32)
    got = _output(stub.ModelInfer(_typed_request("double_relu", "x", x)))
    np.testing.assert_array_equal(got, np.maximum(2 * x - 1, 0))


def test_function_source_models(stub):
    m = stub.ModelMetadata(pb.ModelMetadataRequest(name="source"))
    assert m.platform == "graphd_function"
    assert [(t.name, t.datatype, list(t.shape)) for t in m.inputs] == [("features", "FP32", [-1, 3]),
                                                                         ("ids", "INT64", [-1])]
    assert [(t.name, t.datatype, list(t.shape)) for t in m.outputs] == [
        ("scaled", "FP32", [-1, 3]), ("total", "FP32", [-1]), ("next_ids", "INT64", [-1])]
    features = np.arange(6, dtype=np.float32).reshape(2, 3)
    req = _typed_request("source", "features", features)
    ids = req.inputs.add(name="ids", datatype="INT64", shape=[2])
    ids.contents.int64_contents.extend([7, 9])
    req.outputs.add(name="next_ids")
    req.outputs.add(name="scaled")
    resp = stub.ModelInfer(req)
    assert [o.name for o in resp.outputs] == ["next_ids", "scaled"]
    np.testing.assert_array_equal(np.frombuffer(resp.raw_output_contents[0], np.int64), [8, 10])
    np.testing.assert_array_equal(_output(resp, 1), features * 2)
    pair = stub.ModelMetadata(pb.ModelMetadataRequest(name="pair"))
    assert [(t.name, list(t.shape)) for t in pair.inputs] == [("x", [2])]
    assert [t.name for t in pair.outputs] == ["output_0", "output_1"]
    resp = stub.ModelInfer(_typed_request("pair", "x", np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(_output(resp, 1), [2.0, 3.0])


def test_bad_requests_fail_alone(stub):
    x = np.ones((2, 8), np.float32)
    cases = [
        (_raw_request("nope", "x", x), grpc.StatusCode.NOT_FOUND, "nope"),
        (_raw_request("mlp", "x", x, model_version="9"), grpc.StatusCode.NOT_FOUND, "version 9"),
        (_raw_request("mlp", "z", x), grpc.StatusCode.INVALID_ARGUMENT, "'z'"),
        (_raw_request("mlp", "x", x.astype(np.float64), datatype="FP64"), grpc.StatusCode.INVALID_ARGUMENT, "FP32"),
        (_raw_request("mlp", "x", np.ones((2, 5), np.float32)), grpc.StatusCode.INVALID_ARGUMENT, "shape"),
        (_raw_request("mlp", "x", np.ones((9, 8), np.float32)), grpc.StatusCode.INVALID_ARGUMENT, "max_batch_size"),
        (_raw_request("mlp", "x", x, datatype="FP99"), grpc.StatusCode.INVALID_ARGUMENT, "FP99"),
    ]
    short = _raw_request("mlp", "x", x)
    short.raw_input_contents[0] = short.raw_input_contents[0][:-4]
    cases.append((short, grpc.StatusCode.INVALID_ARGUMENT, "bytes"))
    both = _typed_request("mlp", "x", x)
    both.raw_input_contents.append(x.tobytes())
    cases.append((both, grpc.StatusCode.INVALID_ARGUMENT, "both"))
    few = _typed_request("mlp", "x", x)
    del few.inputs[0].contents.fp32_contents[-1]
    cases.append((few, grpc.StatusCode.INVALID_ARGUMENT, "elements"))
    wrong_field = pb.ModelInferRequest(model_name="mlp")
    wrong_field.inputs.add(name="x", datatype="FP32", shape=[2, 8]).contents.int64_contents.extend([1] * 16)
    cases.append((wrong_field, grpc.StatusCode.INVALID_ARGUMENT, "fp32_contents"))
    negative = _raw_request("mlp", "x", x)
    negative.inputs[0].shape[:] = [-2, 8]
    cases.append((negative, grpc.StatusCode.INVALID_ARGUMENT, "at least 0"))
    huge = _raw_request("mlp", "x", x)
    huge.inputs[0].shape[:] = [2 ** 40, 2 ** 40]
    cases.append((huge, grpc.StatusCode.INVALID_ARGUMENT, "max-tensor-bytes"))
    missing = pb.ModelInferRequest(model_name="mlp")
    cases.append((missing, grpc.StatusCode.INVALID_ARGUMENT, "needs input 'x'"))
    bad_output = _raw_request("mlp", "x", x)
    bad_output.outputs.add(name="logits")
    cases.append((bad_output, grpc.StatusCode.INVALID_ARGUMENT, "no output 'logits'"))
    for req, code, words in cases:
        got, details = _code(lambda: stub.ModelInfer(req))
        assert got == code, (req, details)
        assert words in details, (words, details)
    # Still serving, and statistics counted the failures.
    assert _output(stub.ModelInfer(_raw_request("mlp", "x", x))).shape == (2, 4)
    stats = stub.ModelStatistics(pb.ModelStatisticsRequest(name="mlp")).model_stats[0]
    assert stats.inference_stats.fail.count >= 6  # those that reached the model (the others failed decoding)
    assert stats.inference_stats.success.count >= 1 and stats.inference_count >= 2
    code, _ = _code(lambda: stub.ModelMetadata(pb.ModelMetadataRequest(name="nope")))
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = _code(lambda: stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="mlp")))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # not in explicit mode


def test_bytes_raw_round_trip_is_checked(stub):
    # A BYTES input to a float model is refused by its dtype, after the length-prefixed
    # elements were read; malformed prefixes are refused by name.
    raw = b"".join(struct.pack("<I", len(s)) + s for s in [b"ab", b"c"])
    req = pb.ModelInferRequest(model_name="mlp")
    req.inputs.add(name="x", datatype="BYTES", shape=[2])
    req.raw_input_contents.append(raw)
    code, details = _code(lambda: stub.ModelInfer(req))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "FP32" in details
    req.raw_input_contents[0] = raw[:-1]
    code, details = _code(lambda: stub.ModelInfer(req))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "runs past the end" in details


def test_bad_model_fails_start_naming_the_file(tmp_path, models):
    from conftest import graphd_binary
    import subprocess
    _write(str(tmp_path / "repo" / "mlp" / "1" / "model.onnx"), models["mlp"][0])
    _write(str(tmp_path / "repo" / "mlp" / "config.pbtxt"), MLP_CONFIG.replace("dims: [ 8 ]", "dims: [ 7 ]"))
    out = subprocess.run([graphd_binary(), "--listen", "127.0.0.1:0", "--model-repository", str(tmp_path / "repo")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "config.pbtxt" in out.stderr + out.stdout and "does not fit" in out.stderr + out.stdout
    _write(str(tmp_path / "repo" / "mlp" / "config.pbtxt"), "max_batch_size: 8\nbogus_field: 1\n")
    out = subprocess.run([graphd_binary(), "--listen", "127.0.0.1:0", "--model-repository", str(tmp_path / "repo")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "config.pbtxt:2:" in out.stderr + out.stdout and "bogus_field" in out.stderr + out.stdout
    shutil.rmtree(str(tmp_path / "repo" / "mlp"))
    for source, words in [("import tensorflow as tf\n@tf.function\ndef serve(x):\n    return x\n", "needs an input_signature"),
                          ("import tensorflow as tf\n@tf.function\ndef other(x):\n    return x\n", "no tf.function 'serve'"),
                          ("def serve(:\n", "model.py")]:
        _write(str(tmp_path / "repo" / "src" / "1" / "model.py"), source)
        out = subprocess.run([graphd_binary(), "--listen", "127.0.0.1:0", "--model-repository", str(tmp_path / "repo")],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode != 0 and words in out.stderr + out.stdout, out.stderr


def test_poll_mode_leaves_a_bad_model_unavailable(tmp_path, models, start_server):
    _write(str(tmp_path / "repo" / "mlp" / "1" / "model.onnx"), models["mlp"][0])
    _write(str(tmp_path / "repo" / "broken" / "1" / "model.onnx"), b"not an onnx model")
    server = start_server("--model-repository", str(tmp_path / "repo"), "--model-control-mode", "poll")
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        index = {m.name: m for m in stub.RepositoryIndex(pb.RepositoryIndexRequest()).models}
        assert index["mlp"].state == "READY"
        assert index["broken"].state == "UNAVAILABLE" and "model.onnx" in index["broken"].reason
        code, details = _code(lambda: stub.ModelInfer(_raw_request("broken", "x", np.ones((1, 8), np.float32))))
        assert code == grpc.StatusCode.UNAVAILABLE and "model.onnx" in details
        assert _output(stub.ModelInfer(_raw_request("mlp", "x", np.ones((1, 8), np.float32)))).shape == (1, 4)


def test_explicit_mode_loads_and_unloads(tmp_path, models, start_server):
    _write(str(tmp_path / "repo" / "mlp" / "1" / "model.onnx"), models["mlp"][0])
    server = start_server("--model-repository", str(tmp_path / "repo"), "--model-control-mode", "explicit")
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        x = np.ones((1, 8), np.float32)
        index = stub.RepositoryIndex(pb.RepositoryIndexRequest()).models
        assert [(m.name, m.state, m.reason) for m in index] == [("mlp", "UNAVAILABLE", "unloaded")]
        code, _ = _code(lambda: stub.ModelInfer(_raw_request("mlp", "x", x)))
        assert code == grpc.StatusCode.NOT_FOUND
        stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="mlp"))
        assert _output(stub.ModelInfer(_raw_request("mlp", "x", x))).shape == (1, 4)
        code, details = _code(lambda: stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="../etc")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "not a model name" in details
        code, _ = _code(lambda: stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="absent")))
        assert code == grpc.StatusCode.NOT_FOUND
        # Names the repository does not have leave no trace.
        assert [m.name for m in stub.RepositoryIndex(pb.RepositoryIndexRequest()).models] == ["mlp"]
        code, _ = _code(lambda: stub.ModelInfer(_raw_request("absent", "x", x)))
        assert code == grpc.StatusCode.NOT_FOUND
        stub.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="mlp"))
        code, _ = _code(lambda: stub.ModelInfer(_raw_request("mlp", "x", x)))
        assert code == grpc.StatusCode.NOT_FOUND


def test_dynamic_batching_joins_concurrent_requests(stub, models):
    """16 concurrent batch-1 requests (and a few of batch 2, and one of another width
    that must fail alone) on a model with dynamic_batching: executions of more than one
    row happen, and every output equals the unbatched model's."""
    import threading
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((1 + (i % 5 == 0), 8)).astype(np.float32) for i in range(24)]
    results, errors = {}, []
    barrier = threading.Barrier(len(xs) + 1)

    def call(i):
        barrier.wait(10)
        try:
            results[i] = _output(stub.ModelInfer(_raw_request("mlp_batched", "x", xs[i], id=str(i))))
        except grpc.RpcError as e:  # pragma: no cover (reported below)
            errors.append(e)

    def bad():
        barrier.wait(10)
        code, details = _code(lambda: stub.ModelInfer(_raw_request("mlp_batched", "x", np.ones((1, 5), np.float32))))
        if code != grpc.StatusCode.INVALID_ARGUMENT:
            errors.append(details)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(xs))] + [threading.Thread(target=bad)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    for i, x in enumerate(xs):
        want = models["mlp"][1](torch.from_numpy(x)).detach().numpy()
        np.testing.assert_allclose(results[i], want, rtol=1e-5, atol=1e-6)
    stats = stub.ModelStatistics(pb.ModelStatisticsRequest(name="mlp_batched", version="1")).model_stats[0]
    sizes = {b.batch_size: b.compute_infer.count for b in stats.batch_stats}
    assert max(sizes) > 1, sizes
    assert stats.inference_count >= sum(x.shape[0] for x in xs)
    assert stats.execution_count < stats.inference_count  # fewer executions than rows


def test_graphd_client_and_graphctl_reach_served_models(served, models):
    """graphd's own client calls served models like loaded graphs; graphctl lists them."""
    import subprocess

    import graphd
    from conftest import graphd_binary
    graphctl = os.path.join(os.path.dirname(graphd_binary()), "graphctl")
    x = np.random.default_rng(6).standard_normal((2, 8)).astype(np.float32)
    with graphd.connect(served.target) as client:
        mlp = client.model("mlp")
        assert mlp.input_names == ["x"] and mlp.inputs[0].shape == [-1, 8] and mlp.versions == ["1"]
        want = models["mlp"][1](torch.from_numpy(x)).detach().numpy()
        np.testing.assert_allclose(mlp(x), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(client.model("mlp", version=1)(x=x), want, rtol=1e-5, atol=1e-6)
        source = client.model("source")
        scaled, total = source(np.ones((1, 3), np.float32), ids=np.array([1], np.int64), outputs=["scaled", "total"])
        np.testing.assert_array_equal(total, [3.0])
        with pytest.raises(graphd.errors.NotFoundError):
            client.model("nope")
        with pytest.raises(graphd.errors.InvalidArgumentError):
            mlp(np.ones((2, 3), np.float32))
        assert ("mlp", "1", "READY", "") in [tuple(m) for m in client.models()]
    out = subprocess.run([graphctl, "--target", served.target, "models"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert any(line.split()[:3] == ["mlp", "1", "READY"] for line in out.stdout.splitlines()), out.stdout
    out = subprocess.run([graphctl, "--target", served.target, "load", "mlp"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "explicit" in out.stderr


def test_resnet18_batches_32_concurrent_clients(stub):
    """32 concurrent batch-1 clients on ResNet-18 with dynamic batching: executions of
    more than one image happen, and each client gets what the unbatched model gives."""
    import threading
    rng = np.random.default_rng(8)
    images = [rng.standard_normal((1, 3, 96, 96)).astype(np.float32) for _ in range(32)]
    got, errors = {}, []
    barrier = threading.Barrier(len(images))

    def call(i):
        barrier.wait(10)
        try:
            got[i] = _output(stub.ModelInfer(_raw_request("resnet18_batched", "image", images[i])))
        except grpc.RpcError as e:  # pragma: no cover (reported below)
            errors.append(e)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(images))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    stats = stub.ModelStatistics(pb.ModelStatisticsRequest(name="resnet18_batched")).model_stats[0]
    sizes = {b.batch_size: b.compute_infer.count for b in stats.batch_stats}
    assert max(sizes) > 1, sizes
    for i, image in enumerate(images):
        alone = _output(stub.ModelInfer(_raw_request("resnet18", "image", image)))
        np.testing.assert_allclose(got[i], alone, rtol=1e-4, atol=1e-4)


def test_a_small_request_cannot_make_the_server_allocate_a_large_tensor(served, stub):
    """The contents must fill a declared shape before its tensor is allocated: a 40-byte
    request declaring 2^26 BYTES elements (2 GiB of strings) fails at once, and the
    server's memory does not move."""
    before = rss_kib(served.proc.pid)
    huge = [2 ** 26]
    typed = pb.ModelInferRequest(model_name="mlp")
    typed.inputs.add(name="x", datatype="BYTES", shape=huge)
    raw = pb.ModelInferRequest(model_name="mlp")
    raw.inputs.add(name="x", datatype="BYTES", shape=huge)
    raw.raw_input_contents.append(b"")
    fp32 = pb.ModelInferRequest(model_name="mlp")
    fp32.inputs.add(name="x", datatype="FP32", shape=[2 ** 28])
    fp32.raw_input_contents.append(b"\0" * 16)
    for req, words in [(typed, "elements"), (raw, "cannot hold"), (fp32, "bytes")]:
        for _ in range(4):
            code, details = _code(lambda: stub.ModelInfer(req))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and words in details, details
    assert rss_kib(served.proc.pid) < before + 64 * 1024
