"""Exports the benchmark models to ONNX (issue 5, benchmark 4), into a build directory.

    /usr/bin/python3 bench/models/export_models.py --out build/bench/models
    python3 bench/models/export_models.py --out DIR --only resnet18,resnet50   (bench/gpu/)

By default (`make bench`) MLP 256-512-512-10 (torch.nn Linear + ReLU), torchvision
ResNet-18 and MobileNetV2; ResNet-50 (issue 6's GPU benchmark) and the model zoo
(ZOO below, bench/zoo.py) only when named in --only.
All with random weights (torch.manual_seed(0)), eval mode, opset 13, a dynamic batch dimension.
Batch-norm statistics are randomised too (seeded) so that no layer is an identity.
The files are build outputs, never committed. An existing file is kept unless --force.
Writes <name>.onnx and <name>.json (input name, per-sample input shape).

Works with Debian's torch 1.13 and with recent torch (2.x): where torch.onnx.export
has a `dynamo` parameter (its default became the dynamo exporter, which needs
onnxscript) the TorchScript exporter is asked for with dynamo=False; if that exporter
fails (or is gone), the dynamo exporter is tried with the weights inside the file.
"""

import argparse
import inspect
import json
import os
import sys

try:
    import torch
    import torchvision
except ImportError as e:  # python3-torch, python3-torchvision: scripts/install-deps.sh
    sys.exit("export_models: %s (install python3-torch and python3-torchvision: scripts/install-deps.sh)" % e)

IMAGE = (3, 224, 224)


def mlp():
    return torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 10))


def randomise(model):
    """No layer stays an identity: batch-norm statistics and every norm's affine parameters
    are drawn (seeded), so are linear layers initialised to zero (ViT's head, whose
    output would otherwise be all zeros), and ConvNeXt's layer scales (1e-6 at init, which would make each
    block's branch vanish from the output) get a visible size."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
            if isinstance(m, (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm)) and m.weight is not None:
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
            if isinstance(m, torch.nn.Linear) and not m.weight.any():  # ViT's head starts at zero
                m.weight.normal_(0, 0.02)
                if m.bias is not None:
                    m.bias.uniform_(-0.2, 0.2)
            scale = getattr(m, "layer_scale", None)
            if isinstance(scale, torch.nn.Parameter):
                scale.uniform_(0.1, 0.3)
    return model


def vision(name):
    return randomise(getattr(torchvision.models, name)(weights=None))


class Encoder(torch.nn.Module):
    """A 2-layer transformer encoder (d=256, 4 heads, GELU feed-forward of 1024) over 64 tokens."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class Lstm(torch.nn.Module):
    """A 2-layer LSTM (64 inputs, 256 hidden) over 32 steps; the output is every step's hidden state."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(64, 256, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


MODELS = {
    "mlp": (mlp, (256,)),
    "resnet18": (lambda: vision("resnet18"), IMAGE),
    "mobilenet_v2": (lambda: vision("mobilenet_v2"), IMAGE),
    "resnet50": (lambda: vision("resnet50"), IMAGE),
    "densenet121": (lambda: vision("densenet121"), IMAGE),
    "efficientnet_b0": (lambda: vision("efficientnet_b0"), IMAGE),
    "mobilenet_v3_small": (lambda: vision("mobilenet_v3_small"), IMAGE),
    "convnext_tiny": (lambda: vision("convnext_tiny"), IMAGE),
    "vit_b_16": (lambda: vision("vit_b_16"), IMAGE),
    "vgg11": (lambda: vision("vgg11"), IMAGE),  # 531 MB: the large-model load
    "encoder": (lambda: randomise(Encoder()), (64, 256)),
    "lstm": (Lstm, (32, 64)),
}
DEFAULT = ["mlp", "resnet18", "mobilenet_v2"]  # `make bench` (bench/run_models.py)
# The model zoo (issue 20; bench/zoo.py): batch 1 against ONNX Runtime.
ZOO = ["resnet50", "densenet121", "efficientnet_b0", "mobilenet_v3_small", "convnext_tiny", "vit_b_16",
       "encoder", "lstm", "vgg11"]


def build(name):
    """The seeded, eval-mode torch model and its per-sample input shape."""
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make()
    model.eval()
    return model, shape


def export(model, shape, path):
    """Writes `model` to `path` as ONNX (opset 13, dynamic batch), with whichever exporter this torch has."""
    args = dict(input_names=["input"], output_names=["output"], opset_version=13,
                dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    params = inspect.signature(torch.onnx.export).parameters
    x = torch.zeros((1,) + shape)
    if "dynamo" not in params:  # torch < 2.5: the TorchScript exporter only
        torch.onnx.export(model, x, path, **args)
        return
    try:
        torch.onnx.export(model, x, path, dynamo=False, **args)
        return
    except Exception as e:  # noqa: BLE001  (the legacy exporter may be missing or broken)
        print("export_models: the TorchScript exporter failed (%s: %s); trying dynamo=True"
              % (type(e).__name__, e), file=sys.stderr)
    extra = {"external_data": False} if "external_data" in params else {}
    torch.onnx.export(model, (x,), path, dynamo=True, **args, **extra)


def names_from(only):
    """The models to export: DEFAULT, or the comma-separated names in --only (checked)."""
    if not only:
        return list(DEFAULT)
    names = [n for part in only for n in part.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit("export_models: unknown model(s) %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="build/bench/models")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--only", action="append", default=[],
                    help="comma-separated models to export instead of the default set (%s); known: %s"
                    % (",".join(DEFAULT), ",".join(MODELS)))
    args = ap.parse_args()
    names = names_from(args.only)
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        path = os.path.join(args.out, name + ".onnx")
        meta = os.path.join(args.out, name + ".json")
        if os.path.exists(path) and os.path.exists(meta) and not args.force:
            continue
        model, shape = build(name)
        tmp = os.path.join(args.out, name + ".tmp.onnx")  # an .onnx name for exporters that look at it
        export(model, shape, tmp)
        os.replace(tmp, path)
        with open(meta, "w") as f:
            json.dump({"input": "input", "shape": list(shape)}, f)
        print("export_models: wrote %s (%.1f MB)" % (path, os.path.getsize(path) / 1e6))


if __name__ == "__main__":
    main()
