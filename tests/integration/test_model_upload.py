"""ONNX models uploaded in chunks (LoadGraphStream, issue 20): a model larger than
the server's message limit loads with the limit as it is, the stream's bytes are
checked against its header, the declared size is charged to the tenant before any
byte is kept, and a bad stream leaves the session and the server as they were."""

import hashlib

import numpy as np
import pytest

import graphd
from graphd import errors
from graphd.v1 import session_pb2
from onnx_helpers import onnx_pb2

from conftest import _free_port
from test_quotas import _metrics, _tenants

FLOAT = 1
LIMIT = 1 << 20  # the servers' --max-message-bytes below


def dense_model(k, n, seed=0):
    """y = relu(x @ w + b) with x [1, k]: about 4*k*n bytes. Returns (bytes, w, b)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((k, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    pb = onnx_pb2()
    m = pb.ModelProto(ir_version=7)
    m.opset_import.add(domain="", version=13)
    g = m.graph
    g.name = "dense"
    for target, name, dims in ((g.input, "x", [1, k]), (g.output, "y", [1, n])):
        t = target.add(name=name).type.tensor_type
        t.elem_type = FLOAT
        for d in dims:
            t.shape.dim.add(dim_value=d)
    for name, value in (("w", w), ("b", b)):
        g.initializer.add(name=name, data_type=FLOAT, dims=value.shape, raw_data=value.tobytes())
    g.node.add(op_type="MatMul", input=["x", "w"], output=["xw"], name="mm")
    g.node.add(op_type="Add", input=["xw", "b"], output=["pre"], name="add")
    g.node.add(op_type="Relu", input=["pre"], output=["y"], name="relu")
    return m.SerializeToString(), w, b


def expected(x, w, b):
    return np.maximum(x.astype(np.float64) @ w + b, 0)


def stream(client, messages, timeout=60):
    """LoadGraphStream with hand-made LoadGraphChunk messages; graphd errors."""
    call = client.connection.channel.stream_unary(
        "/graphd.v1.SessionService/LoadGraphStream",
        request_serializer=session_pb2.LoadGraphChunk.SerializeToString,
        response_deserializer=session_pb2.LoadGraphResponse.FromString)
    return client.connection.call(call, iter(messages), timeout)


def header(client, name="", **fields):
    return session_pb2.LoadGraphRequest(session_handle=client.session_handle, name=name, **fields)


def test_model_larger_than_the_message_limit_loads_from_bytes_and_path(start_server, tmp_path):
    server = start_server("--max-message-bytes", str(LIMIT))
    model, w, b = dense_model(1500, 1200)  # 7.2 MB: nearly seven times the limit
    assert len(model) > 6 * LIMIT
    path = tmp_path / "dense.onnx"
    path.write_bytes(model)
    x = np.random.default_rng(1).standard_normal((1, 1500)).astype(np.float32)
    with graphd.connect(server.target) as client:
        for source in (model, bytearray(model), memoryview(model), str(path), path):
            fn = client.load_onnx(source, name="dense")
            assert fn.name == "dense" and fn.input_names == ["x"] and fn.output_names == ["y"]
            assert fn.import_seconds > 0
            np.testing.assert_allclose(fn(x), expected(x, w, b), rtol=1e-4, atol=1e-3)
        # The same bytes in one message are over the limit, and the error names the flag.
        with pytest.raises(errors.ResourceExhaustedError, match="--max-message-bytes"):
            client.connection.session("LoadGraph", header(client, onnx_model=model))
    assert server.alive()


def test_streamed_and_unary_loads_of_the_same_bytes_share_one_parse(target):
    model, w, b = dense_model(64, 48, seed=2)  # one chunk
    x = np.ones((1, 64), np.float32)
    # CPU sessions in every run: a GPU session owns its functions and parsed models.
    with graphd.connect(target, device="cpu") as first, graphd.connect(target, device="cpu") as second:
        first.connection.session("LoadGraph", header(first, name="d", onnx_model=model))
        hits = second.server_info().function_cache.hits
        fn = second.load_onnx(model, name="d")  # streamed: the parse is the first session's
        assert second.server_info().function_cache.hits > hits
        np.testing.assert_allclose(fn(x), expected(x, w, b), rtol=1e-5, atol=1e-4)


def _bad_streams(client, model):
    h = header(client)
    n = len(model)
    return [
        ("no header", [session_pb2.LoadGraphChunk(data=model)], "first message must carry the header"),
        ("zero size", [session_pb2.LoadGraphChunk(header=h, total_bytes=0)], "total_bytes is 0"),
        ("negative size", [session_pb2.LoadGraphChunk(header=h, total_bytes=-5)], "total_bytes is -5"),
        ("over 2 GiB", [session_pb2.LoadGraphChunk(header=h, total_bytes=1 << 31)], "total_bytes is 2147483648"),
        ("model in the header", [session_pb2.LoadGraphChunk(header=header(client, onnx_model=model), total_bytes=n)],
         "header carries no graph"),
        ("names in the header", [session_pb2.LoadGraphChunk(header=header(client, output_names=["y"]), total_bytes=n)],
         "header carries no graph, input_names or output_names"),
        ("more than declared", [session_pb2.LoadGraphChunk(header=h, total_bytes=n - 1, data=model)],
         "more than the %d bytes" % (n - 1)),
        ("less than declared", [session_pb2.LoadGraphChunk(header=h, total_bytes=n + 10),
                                session_pb2.LoadGraphChunk(data=model)],
         "ended after %d of the %d bytes" % (n, n + 10)),
        ("a second header", [session_pb2.LoadGraphChunk(header=h, total_bytes=n),
                             session_pb2.LoadGraphChunk(header=h, data=model)],
         "only the first message carries header and total_bytes"),
        ("a second size", [session_pb2.LoadGraphChunk(header=h, total_bytes=n),
                           session_pb2.LoadGraphChunk(total_bytes=n, data=model)],
         "only the first message carries header and total_bytes"),
        ("empty stream", [], "ended before its header"),
        ("not a model", [session_pb2.LoadGraphChunk(header=h, total_bytes=12, data=b"not a model!")],
         "not an ONNX model"),
    ]


def test_bad_streams_are_refused_and_the_session_keeps_its_graphs(client):
    model, w, b = dense_model(32, 16, seed=3)
    x = np.ones((1, 32), np.float32)
    fn = client.load_onnx(model, name="kept")
    for what, messages, message in _bad_streams(client, model):
        with pytest.raises(errors.InvalidArgumentError, match=message):
            stream(client, messages)
        np.testing.assert_allclose(fn(x), expected(x, w, b), rtol=1e-5, atol=1e-4, err_msg=what)
    # A stream for an unknown session is refused at its header.
    with pytest.raises(errors.NotFoundError):
        stream(client, [session_pb2.LoadGraphChunk(header=session_pb2.LoadGraphRequest(session_handle="0" * 32),
                                                   total_bytes=len(model), data=model)])
    # A good stream in several chunks, the header alone first.
    pieces = [model[i:i + 1000] for i in range(0, len(model), 1000)]
    response = stream(client, [session_pb2.LoadGraphChunk(header=header(client, name="again"), total_bytes=len(model))]
                      + [session_pb2.LoadGraphChunk(data=p) for p in pieces])
    assert response.name == "again" and response.opset == 13


def test_declared_size_is_charged_to_the_tenant_first(tmp_path, start_server):
    port = _free_port()
    server = start_server("--tenants-file", _tenants(tmp_path / "t.pbtxt", small=("tok-s", "max_memory_bytes: 8388608")),
                          "--metrics-listen", "127.0.0.1:%d" % port, "--max-message-bytes", str(LIMIT))
    tenant_bytes = 'graphd_tenant_memory_bytes{tenant="small"}'
    big, _, _ = dense_model(1500, 1500)  # 9 MB: over the 8 MiB quota
    small, w, b = dense_model(500, 400, seed=4)  # 0.8 MB: within it
    with graphd.connect(server.target, token="tok-s") as client:
        # Refused at the header, before the bytes (over the message limit as one) come.
        with pytest.raises(errors.ResourceExhaustedError, match="max_memory_bytes quota of tenant 'small'"):
            stream(client, [session_pb2.LoadGraphChunk(header=header(client), total_bytes=len(big))])
        with pytest.raises(errors.ResourceExhaustedError, match="max_memory_bytes quota of tenant 'small'"):
            client.load_onnx(big)
        assert _metrics(port)[tenant_bytes] == 0
        fn = client.load_onnx(small)
        x = np.ones((1, 500), np.float32)
        np.testing.assert_allclose(fn(x), expected(x, w, b), rtol=1e-4, atol=1e-3)
        # What stays charged is the model's weights, not the upload's buffer too.
        held = _metrics(port)[tenant_bytes]
        assert 4 * (500 * 400 + 400) <= held < len(small) + 4 * (500 * 400 + 400), held
    assert server.alive()


def test_chunk_framing_matches_protobuf():
    """The client serializes data chunks by hand; they must parse as LoadGraphChunk."""
    from graphd import _upload
    for size in (0, 1, 127, 128, 300, 16383, 16384, _upload.CHUNK_BYTES):
        data = hashlib.sha256(str(size).encode()).digest() * (size // 32 + 1)
        data = data[:size]
        parsed = session_pb2.LoadGraphChunk.FromString(_upload._data_message(data))
        assert parsed.data == data and not parsed.HasField("header") and parsed.total_bytes == 0
