"""The conv passes (conv_add_fusion, conv_layout: channels-last convolutions with
packed filters) on an ONNX conv net that exercises what the layout spreads through
(Relu, Pad, a residual Add, a per-channel Mul, grouped strided Conv, MaxPool,
Concat, GlobalAveragePool): the results match a server with both passes disabled."""

import numpy as np

import graphd
from onnx_helpers import onnx_pb2
from test_onnx_models import FLOAT, INT64, make_model, node


def tensor(name, array, elem=FLOAT):
    return onnx_pb2().TensorProto(name=name, data_type=elem, dims=array.shape, raw_data=array.tobytes())


def conv_net():
    rng = np.random.default_rng(7)
    f = lambda *shape: (rng.standard_normal(shape) * 0.3).astype(np.float32)  # noqa: E731
    inits = [tensor("w1", f(8, 3, 3, 3)), tensor("b1", f(8)), tensor("w2", f(8, 8, 3, 3)),
             tensor("w3", f(8, 1, 3, 3)), tensor("scale", f(8, 1, 1)),
             tensor("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64), INT64)]
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        node("Relu", ["c1"], ["r1"]),
        node("Pad", ["r1", "pads"], ["p"]),
        node("Conv", ["p", "w2"], ["c2"]),
        node("Add", ["c2", "r1"], ["a"]),
        node("Relu", ["a"], ["r2"]),
        node("Mul", ["r2", "scale"], ["s"]),
        node("Conv", ["s", "w3"], ["c3"], group=8, strides=[2, 2], pads=[1, 1, 1, 1]),
        node("MaxPool", ["c1"], ["mp"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("Concat", ["c3", "mp"], ["cat"], axis=1),
        node("GlobalAveragePool", ["cat"], ["g"]),
    ]
    model = make_model(nodes, [("x", FLOAT, [2, 3, 9, 9])], [("cat", FLOAT, [2, 16, 5, 5]), ("g", FLOAT, [2, 16, 1, 1])],
                       inits)
    return model, rng.standard_normal((2, 3, 9, 9)).astype(np.float32)


def test_conv_passes_keep_the_results(target, start_server):
    model, x = conv_net()
    # The CPU's layout passes (GPU sessions do not run them).
    with graphd.connect(target, device="cpu") as client:
        fast = client.load_onnx(model, name="fast")
        cat, g = fast(x)
        assert "Transpose" in fast.to_dot()  # the chain's ends
    server = start_server("--disable-passes", "conv_layout,conv_add_fusion")
    with graphd.connect(server.target) as other:
        plain = other.load_onnx(model, name="plain")
        want_cat, want_g = plain(x)
        assert "Transpose" not in plain.to_dot()
    np.testing.assert_allclose(cat, want_cat, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g, want_g, rtol=1e-4, atol=1e-5)
    assert np.abs(want_cat).max() > 0.1


def convnext_blocks():
    """Two ConvNeXt blocks as torchvision writes them: depthwise conv, permute to
    channels-last, per-position work (LayerNorm's decomposition is left out: a MatMul
    and Relu stand for it), permute back, a per-channel layer scale and the residual."""
    rng = np.random.default_rng(11)
    f = lambda *shape: (rng.standard_normal(shape) * 0.3).astype(np.float32)  # noqa: E731
    inits, nodes, x = [], [], "x"
    for i in range(2):
        inits += [tensor("dw%d" % i, f(8, 1, 3, 3)), tensor("lin%d" % i, f(8, 8)), tensor("gamma%d" % i, f(8, 1, 1))]
        nodes += [
            node("Conv", [x, "dw%d" % i], ["c%d" % i], group=8, pads=[1, 1, 1, 1]),
            node("Transpose", ["c%d" % i], ["last%d" % i], perm=[0, 2, 3, 1]),
            node("MatMul", ["last%d" % i, "lin%d" % i], ["m%d" % i]),
            node("Relu", ["m%d" % i], ["r%d" % i]),
            node("Transpose", ["r%d" % i], ["first%d" % i], perm=[0, 3, 1, 2]),
            node("Mul", ["gamma%d" % i, "first%d" % i], ["s%d" % i]),
            node("Add", [x, "s%d" % i], ["y%d" % i]),
        ]
        x = "y%d" % i
    model = make_model(nodes, [("x", FLOAT, [1, 8, 6, 6])], [("y1", FLOAT, [1, 8, 6, 6])], inits)
    return model, rng.standard_normal((1, 8, 6, 6)).astype(np.float32)


def test_a_models_own_permutes_fold_into_the_layout(target, start_server):
    # The permutes around each block and conv_layout's own transposes cancel: what is
    # left is the way in and the way out (the first block's residual reads the input
    # channels-first too).
    model, x = convnext_blocks()
    with graphd.connect(target, device="cpu") as client:
        fast = client.load_onnx(model, name="fast")
        got = fast(x)
        transposes = fast.to_dot().count("\\nTranspose\\n")
    server = start_server("--disable-passes", "conv_layout")
    with graphd.connect(server.target) as other:
        plain = other.load_onnx(model, name="plain")
        want = plain(x)
        assert plain.to_dot().count("\\nTranspose\\n") == 4  # the model's own
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert np.abs(want).max() > 0.1
    assert transposes == 2, transposes


def squeeze_excitation(batch, seed):
    """A depthwise conv + Swish, a squeeze-excitation gate (global pool, two 1x1 convs,
    Sigmoid) scaling it, and two convs reading the scaled map: a 1x1 projection (the
    scale first, as torch writes it; 16 -> 32 channels over 32x32, past conv_pointwise's
    size, so oneDNN's) and an unpadded 3x3 (the scale second)."""
    rng = np.random.default_rng(seed)
    f = lambda *shape: (rng.standard_normal(shape) * 0.5).astype(np.float32)  # noqa: E731
    inits = [tensor("dw", f(16, 1, 3, 3)), tensor("w1", f(4, 16, 1, 1)), tensor("b1", f(4)),
             tensor("w2", f(16, 4, 1, 1)), tensor("b2", f(16)), tensor("wp", f(32, 16, 1, 1)), tensor("bp", f(32)),
             tensor("wq", f(6, 16, 3, 3))]
    nodes = [
        node("Conv", ["x", "dw"], ["d"], group=16, pads=[1, 1, 1, 1]),
        node("Sigmoid", ["d"], ["dg"]),
        node("Mul", ["d", "dg"], ["a"]),
        node("GlobalAveragePool", ["a"], ["g"]),
        node("Conv", ["g", "w1", "b1"], ["h"]),
        node("Relu", ["h"], ["hr"]),
        node("Conv", ["hr", "w2", "b2"], ["e"]),
        node("Sigmoid", ["e"], ["s"]),
        node("Mul", ["s", "a"], ["sa"]),
        node("Conv", ["sa", "wp", "bp"], ["p"]),
        node("Mul", ["a", "s"], ["as"]),
        node("Conv", ["as", "wq"], ["q"]),
    ]
    # 32 x 32: the map has 16 times the 3x3 filter's values (conv_input_scale's bound).
    model = make_model(nodes, [("x", FLOAT, [batch, 16, 32, 32])],
                       [("p", FLOAT, [batch, 32, 32, 32]), ("q", FLOAT, [batch, 6, 30, 30])], inits)
    return model, [rng.standard_normal((batch, 16, 32, 32)).astype(np.float32) for _ in range(3)]


def test_a_channel_scale_moves_into_the_next_convs_filter(target, start_server):
    # conv_input_scale: at batch 1 both convs read the unscaled map with the gate in
    # their filters, which changes on every call (a stale gate from the call before
    # would not match the server without the pass); at batch 2 each image has its own
    # gate and nothing moves.
    server = start_server("--disable-passes", "conv_input_scale")
    with graphd.connect(target, device="cpu") as client, graphd.connect(server.target) as other:
        for batch in (1, 2):
            model, xs = squeeze_excitation(batch, seed=batch)
            fast = client.load_onnx(model, name="se%d" % batch)
            plain = other.load_onnx(model, name="se%d" % batch)
            assert fast.to_dot().count("_conv_input_scale\\nConvND") == (2 if batch == 1 else 0)
            assert "conv_input_scale" not in plain.to_dot()
            for x in xs:
                got, want = fast(x), plain(x)
                for g, w in zip(got, want):
                    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
                    assert np.abs(w).max() > 0.1
