"""Transformer blocks exported from torch (opset 14, the least that torch 2.x exports its
attention at; seeded random weights, exported here and never committed) give torch's
outputs through graphd, with the CPU passes of issue 20 applied: the decomposed layer
norms become LayerNormalization nodes and the erf GELU, with the feed-forward layer's
bias, the post-op of its MatMul (the concrete function shows which), and a GPU session
(where layernorm_fusion and the MatMul's GELU are left out) gives the same values.
"""

import os

import numpy as np
import pytest

import graphd
import torch  # python3-torch: scripts/install-deps.sh

import it_helpers as h


class Block(torch.nn.Module):
    """Two GELU encoder layers (batch-first), a final LayerNorm without affine terms, and
    a LayerNorm over channels-last image features as ConvNeXt writes it."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.plain = torch.nn.LayerNorm(16, elementwise_affine=False)
        self.channels = torch.nn.LayerNorm(16, eps=1e-6)
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, torch.nn.LayerNorm) and m.weight is not None:
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        y = self.plain(self.encoder(x))
        img = y.reshape(-1, 2, 4, 16)  # [N, H, W, C]
        return y, self.channels(img)


def export(model, shape):
    data = h.torch_onnx_bytes(model, torch.zeros(shape), input_names=["x"], output_names=["y", "img"],
                              opset_version=14, dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}, "img": {0: "batch"}})
    return data


@pytest.fixture(scope="module")
def model_and_onnx():
    torch.manual_seed(0)
    model = Block().eval()
    return model, export(model, (1, 8, 16))


def check(fn, model):
    rng = np.random.default_rng(2)
    for batch in (1, 3):
        x = (rng.standard_normal((batch, 8, 16)) * 3 + 1).astype(np.float32)
        with torch.no_grad():
            want = [t.numpy() for t in model(torch.from_numpy(x))]
        got = fn(x)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=2e-5)


def test_encoder_and_layer_norms_match_torch_fused(target, model_and_onnx):
    model, onnx = model_and_onnx
    with graphd.connect(target, device="cpu") as client:  # a CPU session in the fake-GPU pass too
        fn = client.load_onnx(onnx, name="block")
        check(fn, model)
        dot = fn.to_dot()
        graph, _, _ = fn.graph_def()
    # 2 layers x 2 norms, the plain norm and the channels-last one: 6, none left
    # decomposed; each layer's GELU (and its bias, behind the importer's Reshape of the
    # 3-D input) fused into the first feed-forward MatMul. (DOT labels are
    # "name\nOp\nshape".)
    assert dot.count("\\nLayerNormalization\\n") == 6, dot
    assert "\\nSqrt\\n" not in dot and "\\nErf\\n" not in dot and "\\nGelu\\n" not in dot, dot
    gelu = [n for n in graph.node if n.op == "MatMul" and n.attr["activation"].s == b"Gelu"]
    assert len(gelu) == 2 and all(len(n.input) == 3 for n in gelu), graph


def test_gpu_session_gives_the_same_values_without_the_fusion(start_server, model_and_onnx):
    model, onnx = model_and_onnx
    server = start_server(env=dict(os.environ, GRAPHD_TEST_FAKE_GPU="all"))
    with graphd.connect(server.target, device="gpu") as gpu:
        fn = gpu.load_onnx(onnx, name="block")
        check(fn, model)
        dot = fn.to_dot()
        assert "\\nLayerNormalization\\n" not in dot
        assert dot.count("\\nGelu\\n") == 2 and "\\nErf\\n" not in dot, dot  # a GPU kernel of its own
