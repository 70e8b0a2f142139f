"""Tensor storage one model's calls keep in the buffer cache (core/buffer_cache.h):
graphd_tensor_buffer_cache_bytes after a number of calls, which is how many distinct
activation blocks a call touches. Exported zoo models (bench/models/export_models.py).

    /usr/bin/python3 bench/buffer_footprint.py --build-dir build [--models efficientnet_b0,densenet121]
        [--calls 30] [--server PATH]
"""

import argparse
import json
import os
import socket
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import graphd  # noqa: E402
import local_server  # noqa: E402


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cache_bytes(metrics_target):
    text = urllib.request.urlopen("http://%s/metrics" % metrics_target, timeout=10).read().decode()
    for line in text.splitlines():
        if line.startswith("graphd_tensor_buffer_cache_bytes "):
            return int(float(line.split()[1]))
    raise RuntimeError("no graphd_tensor_buffer_cache_bytes in the metrics")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--server", default=None, help="graphd binary (default: <build-dir>/bin/graphd)")
    ap.add_argument("--models", default="efficientnet_b0,densenet121,mobilenet_v3_small,resnet50")
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    models_dir = os.path.join(args.build_dir, "bench", "models")
    binary = args.server or os.path.join(args.build_dir, "bin", "graphd")
    print("%-22s %14s" % ("model", "cache MB"))
    for name in args.models.split(","):
        meta = json.load(open(os.path.join(models_dir, name + ".json")))
        metrics = "127.0.0.1:%d" % free_port()
        proc, target = local_server.start(binary, ["--metrics-listen", metrics])
        try:
            with graphd.connect(target) as c:
                fn = c.load_onnx(os.path.join(models_dir, name + ".onnx"))
                x = np.random.default_rng(0).random((1, *meta["shape"]), dtype=np.float32)
                for _ in range(args.calls):
                    fn(x)
                print("%-22s %14.1f" % (name, cache_bytes(metrics) / 1e6))
        finally:
            local_server.stop(proc)


if __name__ == "__main__":
    main()
