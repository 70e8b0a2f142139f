"""The matmul_fusion pass on ONNX models through the real server: Gemm (transB) + Relu,
MatMul + Add + Clip become fused MatMuls with the same values as numpy, and
--disable-passes matmul_fusion keeps the separate nodes with the same results."""

import numpy as np

import graphd
from onnx_helpers import onnx_pb2
from test_onnx_models import FLOAT, make_model, node


def tensor(name, value):
    pb = onnx_pb2()
    value = np.asarray(value, dtype=np.float32)
    return pb.TensorProto(name=name, data_type=FLOAT, dims=value.shape, raw_data=value.tobytes())


def mlp_model():
    """x [N, 6] -> Gemm(transB) + Relu -> MatMul + Add + Clip(-0.5, 0.5) -> [N, 3]."""
    rng = np.random.default_rng(5)
    w1 = rng.standard_normal((5, 6)).astype(np.float32)  # [out, in]: transB
    b1 = rng.standard_normal(5).astype(np.float32)
    w2 = rng.standard_normal((5, 3)).astype(np.float32)
    b2 = rng.standard_normal(3).astype(np.float32)
    nodes = [node("Gemm", ["x", "w1", "b1"], ["g"], transB=1), node("Relu", ["g"], ["h"]),
             node("MatMul", ["h", "w2"], ["m"]), node("Add", ["m", "b2"], ["a"]),
             node("Clip", ["a", "lo", "hi"], ["y"])]
    inits = [tensor("w1", w1), tensor("b1", b1), tensor("w2", w2), tensor("b2", b2), tensor("lo", -0.5),
             tensor("hi", 0.5)]
    model = make_model(nodes, [("x", FLOAT, [None, 6])], [("y", FLOAT, [None, 3])], inits)

    def reference(x):
        h = np.maximum(x @ w1.T + b1, 0)
        return np.clip(h @ w2 + b2, -0.5, 0.5)
    return model, reference


def test_gemm_and_matmul_chains_fuse_and_can_be_disabled(client, start_server):
    model, reference = mlp_model()
    fused = client.load_onnx(model, name="fused")
    xs = [np.random.default_rng(s).standard_normal((rows, 6)).astype(np.float32) * 2 for s, rows in
          ((1, 1), (2, 16), (3, 1))]
    ys = [fused(x) for x in xs]
    for x, y in zip(xs, ys):
        np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)
    dot = fused.to_dot()
    for op in ("Relu", "Add", "Maximum", "Minimum"):
        assert op not in dot, op
    assert ys[1].min() == -0.5 and ys[1].max() == 0.5  # the clip is applied
    server = start_server("--disable-passes", "matmul_fusion,elementwise_fusion")  # keeps the ops unfused
    with graphd.connect(server.target) as other:
        plain = other.load_onnx(model, name="plain")
        for x, y in zip(xs, ys):
            np.testing.assert_allclose(plain(x), y, rtol=1e-6, atol=1e-6)
        dot = plain.to_dot()
        for op in ("Relu", "Add", "Maximum", "Minimum"):
            assert op in dot, op
