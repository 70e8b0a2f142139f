"""PyTorch eager side of graphd's model benchmark: forward time per model and batch,
torch.no_grad(), the same seeded models export_models.py exports.

    /usr/bin/python3 bench/models/torch_bench.py --case mlp:1 --case resnet18:16 [--budget-s 3]
    python3 bench/models/torch_bench.py --device cuda --case resnet50:64   (bench/gpu/)

--device cpu (default): torch.set_num_threads(--threads, default 2), the host input is
fed as is and the forward pass is timed.
--device cuda (issue 6): the model on the GPU in fp32 with TF32 off
(torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False) and
cudnn.benchmark on. Each timed call is end to end like graphd's CallGraph: the host
input is copied to the GPU, the forward pass runs and the output is copied back to
the host, between two torch.cuda.synchronize(). After the end-to-end loop the forward
pass alone on a GPU-resident input is timed too (compute_us).

--compile: torch.compile(model, dynamic=False) in place of eager (row "mode": "compile",
"compile_s": the first call's seconds).

Prints one JSON object per case: {"model", "batch", "device", "mode", "median_us", "mean_us",
"p90_us", "iters", "checksum", "torch"} and, on cuda, "compute_us", "gpu", "cuda",
"cudnn". The input is the benchmark's fixed pattern (element i = ((i * 7919) % 1000)
/ 500 - 1), as in bench/model_bench.cc.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402  (exits with a clear message without torch)

import torch  # noqa: E402


def bench_input(shape):
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, dtype=torch.int64)
    return (((i * 7919) % 1000).to(torch.float32) / 500 - 1).reshape(shape)


def timed(fn, budget_s, min_iters, max_iters):
    """Microseconds of each call of `fn` (at least min_iters, then until the budget or max_iters)."""
    times = []
    deadline = time.perf_counter() + budget_s
    while len(times) < min_iters or (len(times) < max_iters and time.perf_counter() < deadline):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def stats(times):
    s = sorted(times)
    return {"median_us": s[(len(s) - 1) // 2], "mean_us": sum(s) / len(s), "p90_us": s[int(0.9 * (len(s) - 1))],
            "iters": len(s)}


def parse_case(case):
    name, sep, batch = case.partition(":")
    if not sep or not batch.isdigit() or int(batch) < 1:
        sys.exit("torch_bench: --case wants MODEL:BATCH, got %r" % case)
    if name not in export_models.MODELS:
        sys.exit("torch_bench: unknown model %r (known: %s)" % (name, ", ".join(export_models.MODELS)))
    return name, int(batch)


def setup_cuda():
    if not torch.cuda.is_available():
        sys.exit("torch_bench: --device cuda but torch.cuda.is_available() is False (torch %s)" % torch.__version__)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    return {"gpu": torch.cuda.get_device_name(0), "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()}


def run_case(model, x_host, device, args):
    """The JSON fields of one case: end-to-end times (and compute times on cuda), checksum."""
    out = {}
    if device == "cpu":
        def call():
            out["y"] = model(x_host)
    else:
        def call():
            torch.cuda.synchronize()
            out["y"] = model(x_host.to(device)).cpu()
            torch.cuda.synchronize()
    for _ in range(max(1, args.warmup)):
        call()
    result = stats(timed(call, args.budget_s, args.min_iters, args.max_iters))
    result["checksum"] = float(out["y"].double().sum())
    if device != "cpu":
        x_dev = x_host.to(device)

        def compute():
            model(x_dev)
            torch.cuda.synchronize()

        compute()
        result["compute_us"] = stats(timed(compute, args.budget_s / 2, args.min_iters, args.max_iters))["median_us"]
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", default=[], help="MODEL:BATCH")
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads on --device cpu")
    ap.add_argument("--budget-s", type=float, default=3)
    ap.add_argument("--min-iters", type=int, default=3)
    ap.add_argument("--max-iters", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=2, help="untimed calls first (at least 5 on cuda)")
    ap.add_argument("--compile", action="store_true",
                    help="time torch.compile(model) (default mode, static shapes) instead of eager; "
                         "the compilation happens in the untimed first call and is reported as compile_s")
    args = ap.parse_args()
    cases = [parse_case(c) for c in args.case]
    if not cases:
        sys.exit("torch_bench: no --case given")
    info = {"torch": torch.__version__}
    if args.device == "cuda":
        info.update(setup_cuda())
        args.warmup = max(args.warmup, 5)  # cudnn.benchmark tunes each new shape on its first calls
    else:
        torch.set_num_threads(args.threads)
    models = {}
    with torch.no_grad():
        for name, batch in cases:
            if name not in models:
                model, shape = export_models.build(name)
                model = model.to(args.device)
                if args.compile:
                    model = torch.compile(model, dynamic=False)
                models[name] = (model, shape)
            model, shape = models[name]
            x = bench_input((batch,) + tuple(shape))
            row = {"model": name, "batch": batch, "device": args.device, "mode": "compile" if args.compile else "eager"}
            t0 = time.perf_counter()
            if args.compile:  # compiles for this shape (one process per case keeps shapes static)
                model(x.to(args.device))
                row["compile_s"] = round(time.perf_counter() - t0, 1)
            row.update(run_case(model, x, args.device, args))
            row.update(info)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
