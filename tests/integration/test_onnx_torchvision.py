"""Whole models exported from Debian's torchvision (random weights, fixed seed,
exported here and never committed) give the same outputs through graphd as through
torch itself (issue 4: rtol 1e-3).

Batch-norm statistics are randomised too (seeded), so no layer is an identity and
the outputs are of order one; otherwise MobileNetV2's logits are ~1e-9 and a
comparison would prove little. Inputs are 96x96 to keep the test quick; the
networks end in a global pool, so any size works.
"""

import collections
import re

import numpy as np
import pytest

import graphd
import torch  # python3-torch and python3-torchvision: scripts/install-deps.sh
import torchvision

from onnx_helpers import onnx_pb2

import it_helpers as h

RTOL = 1e-3


def exported(model_name):
    """(ONNX bytes, eval-mode torch model) with seeded weights, BN statistics and
    classifier weights of unit scale."""
    torch.manual_seed(0)
    model = getattr(torchvision.models, model_name)(weights=None)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
            if isinstance(m, torch.nn.Linear):  # MobileNetV3 starts its classifier at std 0.01
                m.weight.normal_(0, m.in_features ** -0.5)
                m.bias.uniform_(-0.1, 0.1)
    model.eval()
    data = h.torch_onnx_bytes(model, torch.zeros(1, 3, 96, 96), input_names=["image"], output_names=["logits"],
                              opset_version=13, dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    return data, model


# MobileNetV3 (hard-swish fused into its convolutions), EfficientNet (SiLU likewise)
# and DenseNet (batch norms after concats, fused per channel) test the CPU fusions.
# The op each fusion removes: hard-swish gates, SiLU gates (both folded into convs),
# batch norms' Sub (fused per channel after concats; the rest fold into convs).
FUSED_AWAY = {"mobilenet_v3_small": "HardSigmoid", "efficientnet_b0": "Sigmoid", "densenet121": "Sub"}


def op_counts(model_bytes, dot):
    model = onnx_pb2().ModelProto.FromString(model_bytes)
    onnx_ops = collections.Counter(n.op_type for n in model.graph.node)
    graphd_ops = collections.Counter(re.findall(r'label="[^"\\]*\\n([A-Za-z0-9_]+)\\n', dot))
    return onnx_ops, graphd_ops


@pytest.mark.parametrize("model_name", ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
                                        "densenet121"])
def test_torchvision_model_matches_torch(client, model_name):
    model_bytes, model = exported(model_name)
    fn = client.load_onnx(model_bytes, name=model_name)
    assert fn.input_names == ["image"] and fn.output_names == ["logits"]
    rng = np.random.default_rng(0)
    for batch in (2, 1):  # the dynamic batch dim: one specialisation each
        x = rng.standard_normal((batch, 3, 96, 96)).astype(np.float32)
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()
        got = fn(x)
        assert got.shape == (batch, 1000) and got.dtype == np.float32
        scale = float(np.abs(want).max())
        assert scale > 0.1, "reference logits are too small to compare (%g)" % scale
        # rtol 1e-3, with an absolute floor of 1e-4 of the logits' scale for values near 0.
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-4 * scale)
    if model_name in FUSED_AWAY:  # on a CPU session (these fusions are the CPU's) in every run
        op = FUSED_AWAY[model_name]
        with graphd.connect(client.target, device="cpu") as cpu:
            on_cpu = cpu.load_onnx(model_bytes, name=model_name)
            on_cpu(x)
            onnx_ops, graphd_ops = op_counts(model_bytes, on_cpu.to_dot())
        sub_or_bn = onnx_ops[op] + (onnx_ops["BatchNormalization"] if op == "Sub" else 0)
        assert graphd_ops[op] < sub_or_bn / 2, (op, graphd_ops[op], sub_or_bn)
