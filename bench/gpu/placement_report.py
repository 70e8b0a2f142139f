"""Where each node of the benchmark models runs on a GPU session (issue 21), and whether
the GPU results agree with the CPU session's. Run on the device machine after
bench/gpu/run_gpu_bench.py exported the models (its --work folder):

    PYTHONPATH=clients/python python3 bench/gpu/placement_report.py \
        --graphd device-bundle/bin/graphd --models /tmp/graphd_gpu_bench/models --out $OUT

For each model (resnet18, resnet50 by default): one fresh server; a CPU session and a
GPU session load the same ONNX file and are called with the same random batch of 2;
prints one JSON line per model: the copies per call, the nodes on the CPU (by op), the
relative error ||gpu - cpu|| / ||cpu||, and the server's GPU bytes (in use, cached) after
the GPU session closed. Exit status 1 when a model has a node off the GPU, more than
two copies (image in, logits out), an error over 1e-4 or GPU bytes left after close.
"""

import argparse
import collections
import json
import os
import sys
import time

import numpy as np

import graphd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import local_server  # noqa: E402  (bench/local_server.py)


def gpu_bytes(target, settle_s=3.0):
    deadline = time.monotonic() + settle_s
    with graphd.connect(target, device="cpu") as client:
        while True:
            info = client.server_info()
            if (info.gpu_bytes_in_use == 0 and info.gpu_bytes_cached == 0) or time.monotonic() > deadline:
                return info.gpu_bytes_in_use, info.gpu_bytes_cached
            time.sleep(0.05)


def check_model(binary, path, log_path, batch):
    name = os.path.splitext(os.path.basename(path))[0]
    # ResNet-50 is ~100 MB as ONNX and as the GraphDef DescribeFunction returns.
    proc, target = local_server.start(binary, ["--log-level", "info", "--max-message-bytes", str(1 << 30)], log_path)
    try:
        with open(path, "rb") as f:
            model = f.read()
        with graphd.connect(target, device="cpu") as client:
            fn = client.load_onnx(model, name=name)
            shape = [batch] + [d or 1 for d in list(fn.inputs[0].shape)[1:]]
            x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
            want = np.asarray(fn(x), dtype=np.float64)
        with graphd.connect(target, device="gpu") as client:
            fn = client.load_onnx(model, name=name)
            t0 = time.perf_counter()
            got = np.asarray(fn(x), dtype=np.float64)
            first_ms = (time.perf_counter() - t0) * 1e3
            nodes, copies = fn.placement()
            ops = {n.name: n.op for n in fn.graph_def()[0].node}
        # The feeds (Placeholder) are host tensors by definition; everything else belongs on the GPU.
        on_cpu = collections.Counter(ops.get(n, "?") for n, d in nodes.items()
                                     if "GPU" not in d and ops.get(n) != "Placeholder")
        on_gpu = collections.Counter(ops.get(n, "?") for n, d in nodes.items() if "GPU" in d)
        rel = float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30))
        in_use, cached = gpu_bytes(target)
        row = {"model": name, "batch": batch, "copies": copies, "nodes": len(nodes),
               "on_cpu": dict(on_cpu), "on_gpu": dict(on_gpu), "rel_err_vs_cpu": rel,
               "first_call_ms": round(first_ms, 1), "gpu_bytes_after_close": [in_use, cached]}
        row["ok"] = (not on_cpu and copies <= 2 and rel <= 1e-4 and np.isfinite(got).all()
                     and in_use == 0 and cached == 0)
        return row
    finally:
        local_server.stop(proc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphd", required=True, help="the graphd binary (e.g. device-bundle/bin/graphd)")
    ap.add_argument("--models", required=True, help="folder of <model>.onnx (run_gpu_bench.py's --work/models)")
    ap.add_argument("--only", default="resnet18,resnet50")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--out", default=".", help="folder for placement.log (the servers' output)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log_path = os.path.join(args.out, "placement.log")
    failed = 0
    for name in args.only.split(","):
        path = os.path.join(args.models, name + ".onnx")
        try:
            row = check_model(args.graphd, path, log_path, args.batch)
        except Exception as e:  # report and go on with the next model
            row = {"model": name, "ok": False, "error": "%s: %s" % (type(e).__name__, str(e)[:2000])}
        failed += not row["ok"]
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
