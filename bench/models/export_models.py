"""Exports the benchmark models to ONNX (issue 5, benchmark 4), into a build directory.

    /usr/bin/python3 bench/models/export_models.py --out build/bench/models
    python3 bench/models/export_models.py --out DIR --only resnet18,resnet50   (bench/gpu/)

By default (`make bench`) MLP 256-512-512-10 (torch.nn Linear + ReLU), torchvision
ResNet-18 and MobileNetV2; ResNet-50 (issue 6's GPU benchmark) only when named in --only.
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


def vision(name):
    model = getattr(torchvision.models, name)(weights=None)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return model


MODELS = {
    "mlp": (mlp, (256,)),
    "resnet18": (lambda: vision("resnet18"), IMAGE),
    "mobilenet_v2": (lambda: vision("mobilenet_v2"), IMAGE),
    "resnet50": (lambda: vision("resnet50"), IMAGE),
}
DEFAULT = ["mlp", "resnet18", "mobilenet_v2"]  # `make bench` (bench/run_models.py)


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
