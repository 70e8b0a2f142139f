"""batchnorm_folding and algebraic_simplification on an ONNX model: Conv +
BatchNormalization + Relu (and a residual Add), a MatMul followed by a
BatchNormalization over its columns, and a few no-ops (Identity, x*1, x+0, a Transpose
pair) give the same results with the passes on and off (--disable-passes), and with
them on the graph dump holds no BatchNorm node (nothing of the importer's Sub / Mul /
Add / Rsqrt composition) and none of the no-ops."""

import re

import numpy as np

import graphd
from onnx_helpers import onnx_pb2
from test_onnx_models import FLOAT, make_model, node


def tensor(name, array):
    return onnx_pb2().TensorProto(name=name, data_type=FLOAT, dims=array.shape, raw_data=array.tobytes())


def bn_params(rng, prefix, channels):
    """ONNX BatchNormalization's scale, bias, mean and var (var > 0), as initializers."""
    scale = rng.uniform(0.5, 1.5, channels).astype(np.float32)
    bias = rng.uniform(-0.5, 0.5, channels).astype(np.float32)
    mean = rng.uniform(-0.5, 0.5, channels).astype(np.float32)
    var = rng.uniform(0.5, 1.5, channels).astype(np.float32)
    names = [prefix + s for s in ("_scale", "_bias", "_mean", "_var")]
    return names, [tensor(n, v) for n, v in zip(names, (scale, bias, mean, var))]


def bn_net():
    rng = np.random.default_rng(3)
    f = lambda *shape: (rng.standard_normal(shape) * 0.3).astype(np.float32)  # noqa: E731
    bn1, init1 = bn_params(rng, "bn1", 8)
    bn2, init2 = bn_params(rng, "bn2", 8)
    bn3, init3 = bn_params(rng, "bn3", 5)
    inits = init1 + init2 + init3 + [
        tensor("w1", f(8, 3, 3, 3)), tensor("b1", f(8)), tensor("w2", f(8, 8, 3, 3)), tensor("wm", f(8, 5)),
        tensor("one", np.ones((1,), np.float32)), tensor("zero", np.zeros((8, 1, 1), np.float32))]
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1"] + bn1, ["n1"], epsilon=1e-3),
        node("Relu", ["n1"], ["r1"]),
        node("Identity", ["r1"], ["i1"]),
        node("Conv", ["i1", "w2"], ["c2"], pads=[1, 1, 1, 1]),                     # no bias
        node("BatchNormalization", ["c2"] + bn2, ["n2"]),
        node("Add", ["n2", "r1"], ["a"]),
        node("Add", ["a", "zero"], ["a0"]),
        node("Relu", ["a0"], ["y"]),
        node("GlobalAveragePool", ["y"], ["g"]),
        node("Flatten", ["g"], ["flat"]),
        node("Mul", ["flat", "one"], ["m1"]),
        node("Transpose", ["m1"], ["t1"], perm=[1, 0]),
        node("Transpose", ["t1"], ["t2"], perm=[1, 0]),
        node("MatMul", ["t2", "wm"], ["mm"]),
        node("BatchNormalization", ["mm"] + bn3, ["z"]),
    ]
    model = make_model(nodes, [("x", FLOAT, [None, 3, 7, 7])],
                       [("y", FLOAT, [None, 8, 7, 7]), ("z", FLOAT, [None, 5])], inits)
    return model, rng.standard_normal((2, 3, 7, 7)).astype(np.float32)


def ops(dot):
    """The op of each node in a graph dump."""
    return re.findall(r'label="[^"\\]*\\n([A-Za-z0-9_]+)\\n', dot)


def test_batchnorm_folding_keeps_the_results(client, start_server):
    model, x = bn_net()
    fast = client.load_onnx(model, name="fast")
    y, z = fast(x)
    dot = fast.to_dot()
    assert "BatchNormalization" not in dot, dot
    # the folded convs still fused their Relu (and the residual Add)
    assert not {"Sub", "Mul", "Rsqrt", "Identity", "Relu"} & set(ops(dot)), ops(dot)
    assert ops(dot).count("Add") == 0  # BN's Add folded, the residual fused, x+0 gone
    assert "ConvND" in ops(dot) and "MatMul" in ops(dot)
    # (elementwise_fusion off too: it would fuse the unfolded Sub, Mul and Add)
    server = start_server("--disable-passes", "batchnorm_folding,algebraic_simplification,elementwise_fusion")
    with graphd.connect(server.target) as other:
        plain = other.load_onnx(model, name="plain")
        want_y, want_z = plain(x)
        plain_ops = ops(plain.to_dot())
        assert "BatchNormalization" in plain.to_dot() and "Sub" in plain_ops and "Identity" in plain_ops
    np.testing.assert_allclose(y, want_y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(z, want_z, rtol=1e-4, atol=1e-5)
    assert np.abs(want_y).max() > 0.1 and np.abs(want_z).max() > 0.1
