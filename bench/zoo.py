"""Model zoo benchmark (issue 20): graphd against ONNX Runtime on today's models at batch 1.

    /usr/bin/python3 bench/zoo.py --build-dir build [--models resnet50,lstm] [--budget-s 1] [--rounds 3]

The models (bench/models/export_models.py ZOO: ResNet-50, DenseNet-121, EfficientNet-B0,
MobileNetV3-small, ConvNeXt-tiny, ViT-B/16 from python3-torchvision, a transformer
encoder and an LSTM from torch.nn) are exported with random weights into
<build>/bench/models (build outputs, never committed). Per model, one after the other:

  1. check and load: a fresh graphd with default flags; the client loads the .onnx
     (streamed in chunks: wall time from reading the file to the response, `load s`;
     the server's own import time from the response, `import s`, and `load/imp`) and
     the server's RSS is read before, after the load and after the first call (`RSS
     load`, `RSS call`: the growth over the .onnx file's size); the first call's output
     is compared with torch's on the same input (max |difference| over max |torch|:
     `rel err`; over 1e-3 fails the run);
  2. <build>/bin/model_bench: graphd's execute time (server) and end-to-end CallGraph
     latency (client), medians; with --profile also the server's per-op-type time;
  3. bench/ort/ort_bench.js: ONNX Runtime's session.run, 2 intra-op threads; with
     --ort-gap-ms N also a second ORT pass that sleeps N ms before each run (`ORT gap`,
     `exe/gap`): graphd's calls are that far apart (the request's round trip), and a
     sleeping vCPU loses its caches to the host, while ORT's back-to-back loop keeps
     them. The targets stay against the back-to-back figure.
Steps 2 and 3 run one model at a time, each in a fresh process (server), graphd then
ORT, and --rounds times over all models (3 by default), so that both runtimes see the
machine in the same state; the table gives per-model medians over the rounds and the
range of execute / ORT across them.

Prints one table (with the geomean of execute / ORT) and writes <build>/bench/zoo.csv.
A model that fails any step is reported, left out of the geomean, and makes the exit
status 1.
"""

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "models"))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

import run_models  # noqa: E402  (shared helpers: run, json_lines, install_ort, errors)
from run_models import errors, fmt, log, run, json_lines  # noqa: E402

TOLERANCE = 1e-3


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def check_and_load(name, models_dir, graphd_bin):
    """{"load_s", "import_s", "rss_load_kib", "rss_call_kib", "rel_err", "model_mb"} for one
    model, or None (error recorded)."""
    import numpy as np
    import torch
    import export_models
    import graphd
    import local_server
    from torch_bench import bench_input

    torch.set_num_threads(2)
    x = bench_input((1,) + tuple(export_models.MODELS[name][1]))
    path = os.path.join(models_dir, name + ".onnx")
    proc, target = local_server.start(graphd_bin, [])
    try:
        client = graphd.connect(target, timeout=600)
        idle = rss_kib(proc.pid)
        t0 = time.perf_counter()
        fn = client.load_onnx(path)
        load_s = time.perf_counter() - t0
        rss_load = rss_kib(proc.pid)
        got = np.asarray(fn(x.numpy()))
        rss_call = rss_kib(proc.pid)
        client.close()
    except Exception as e:  # noqa: BLE001  (any failure is this model's result)
        errors.append("%s: %s: %s" % (name, type(e).__name__, e))
        return None
    finally:
        local_server.stop(proc)
    # The torch model is built and run after graphd's load: torch's threads spin a
    # while after their work, and the load's figures are the client's and server's alone.
    model, _ = export_models.build(name)
    with torch.no_grad():
        want = model(x).numpy()
    if got.shape != want.shape:
        errors.append("%s: output shape %s, torch %s" % (name, got.shape, want.shape))
        return None
    rel = float(np.max(np.abs(got - want)) / max(1e-12, float(np.max(np.abs(want)))))
    if not rel <= TOLERANCE:
        errors.append("%s: output differs from torch's: max |diff| / max |torch| = %.3g (> %g)" % (name, rel, TOLERANCE))
    return {"load_s": load_s, "import_s": fn.import_seconds, "rss_load_kib": rss_load - idle,
            "rss_call_kib": rss_call - idle, "rel_err": rel, "model_mb": os.path.getsize(path) / 1e6}


def _median(values, scale):
    """The median of the values that are there, divided by `scale`; None when none is."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    m = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
    return m / scale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--budget-s", type=float, default=1.0,
                    help="seconds of timed runs per model, runtime and round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of graphd then ORT over every model")
    ap.add_argument("--models", default="", help="comma-separated subset of the zoo")
    ap.add_argument("--profile", action="store_true", help="print graphd's per-op-type time for each model")
    ap.add_argument("--server-args", default="", help="space-separated graphd server arguments (A/B runs)")
    ap.add_argument("--ort-gap-ms", type=float, default=0,
                    help="also time ORT sleeping this many ms before each run (0: not)")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit("zoo: --rounds must be at least 1")
    import export_models
    names = [m for m in args.models.split(",") if m] or list(export_models.ZOO)
    unknown = [m for m in names if m not in export_models.ZOO]
    if unknown:
        sys.exit("zoo: not in the zoo: %s (known: %s)" % (", ".join(unknown), ", ".join(export_models.ZOO)))
    build = os.path.abspath(args.build_dir)
    out = os.path.join(build, "bench")
    models_dir = os.path.join(out, "models")
    graphd_bin = os.path.join(build, "bin", "graphd")
    model_bench = os.path.join(build, "bin", "model_bench")
    started = time.time()
    if run("export zoo", [sys.executable, os.path.join(HERE, "models", "export_models.py"), "--out", models_dir,
                          "--only", ",".join(names)], timeout=1200) is None:
        return run_models.finish(started)

    checks = {}
    for name in names:
        t0 = time.time()
        checks[name] = check_and_load(name, models_dir, graphd_bin)
        log("check and load %s: %.1f s" % (name, time.time() - t0))

    budget = ["--budget-s", str(args.budget_s)]
    server_args = ["--server-arg=" + a for a in args.server_args.split()]
    ort_dir = os.path.join(out, "ort")
    have_ort = run_models.install_ort(ort_dir)
    # Rounds of graphd then ORT over every model, so that both see the machine in the
    # same state (a VM's speed drifts by tens of percent over minutes); the per-model
    # figures are medians over the rounds, the ratio's spread is reported.
    rounds = []
    for r in range(args.rounds):
        extra = (["--profile"] if args.profile and r == 0 else []) + server_args
        graphd_rows, ort_rows, gap_rows = [], [], []
        for name in names:
            # A fresh server and a fresh ORT process per model: after other models,
            # either runtime's times were up to 1.5x longer (MobileNetV3 on graphd 2.4-3.3
            # against 2.2 ms alone; EfficientNet on ORT 13.1 against 8.0 ms alone).
            graphd_rows += json_lines(run("graphd %s (round %d)" % (name, r + 1),
                                          [model_bench, "--models", models_dir, "--case", name + ":1"] + budget + extra,
                                          timeout=1800))
            if not have_ort:
                continue
            ort = ["node", os.path.join(HERE, "ort", "ort_bench.js"), "--modules", os.path.join(ort_dir, "node_modules"),
                   "--models", models_dir, "--case", name + ":1"] + budget
            ort_rows += json_lines(run("ONNX Runtime %s (round %d)" % (name, r + 1), ort, timeout=1800))
            if args.ort_gap_ms > 0:
                gap_rows += json_lines(run("ONNX Runtime with gaps %s (round %d)" % (name, r + 1),
                                           ort + ["--gap-ms", str(args.ort_gap_ms)], timeout=1800))
        rounds.append((graphd_rows, run_models.by_case(graphd_rows), run_models.by_case(ort_rows),
                       run_models.by_case(gap_rows)))
    rows = rounds[0][0]  # the echo and the profile: the first round's
    echo = next((r["echo_p50_us"] for r in rows if "echo_p50_us" in r), None)

    table = []
    for name in names:
        c = checks.get(name) or {}
        exe = _median([g.get((name, 1), {}).get("execute_us") for _, g, _, _ in rounds], 1000)
        e2e = _median([g.get((name, 1), {}).get("median_us") for _, g, _, _ in rounds], 1000)
        ort_ms = _median([o.get((name, 1), {}).get("median_us") for _, _, o, _ in rounds], 1000)
        ratios = [g[(name, 1)]["execute_us"] / o[(name, 1)]["median_us"] for _, g, o, _ in rounds
                  if "execute_us" in g.get((name, 1), {}) and o.get((name, 1), {}).get("median_us")]
        gap_ms = _median([o.get((name, 1), {}).get("median_us") for _, _, _, o in rounds], 1000)
        gap_ratios = [g[(name, 1)]["execute_us"] / o[(name, 1)]["median_us"] for _, g, _, o in rounds
                      if "execute_us" in g.get((name, 1), {}) and o.get((name, 1), {}).get("median_us")]
        per_model = (lambda kib: kib * 1024 / (c["model_mb"] * 1e6)) if c else (lambda kib: None)
        table.append({
            "model": name, "model_mb": c.get("model_mb"), "load_s": c.get("load_s"), "import_s": c.get("import_s"),
            "load_over_import": c["load_s"] / c["import_s"] if c and c["import_s"] > 0 else None,
            "rss_load_over_model": per_model(c.get("rss_load_kib")),
            "rss_call_over_model": per_model(c.get("rss_call_kib")),
            "rel_err": c.get("rel_err"), "graphd_execute_ms": exe, "graphd_e2e_ms": e2e, "ort_ms": ort_ms,
            "execute_over_ort": _median(ratios, 1),
            "ratio_min": min(ratios) if ratios else None, "ratio_max": max(ratios) if ratios else None,
            "e2e_minus_execute_ms": e2e - exe if e2e and exe else None,
            "ort_gap_ms": gap_ms, "execute_over_ort_gap": _median(gap_ratios, 1),
        })
    ok = [r["execute_over_ort"] for r in table
          if r["execute_over_ort"] and r["rel_err"] is not None and r["rel_err"] <= TOLERANCE]
    geomean = math.exp(sum(math.log(v) for v in ok) / len(ok)) if ok else None

    print("\nModel zoo at batch 1 (ms; graphd through gRPC on loopback, ORT 2 intra-op threads)")
    if echo:
        print("gRPC echo p50 in the same server: %.3f ms" % (echo / 1000))
    print("times and exe/ORT: medians over %d rounds of graphd then ORT; range: exe/ORT's lowest and highest"
          % len(rounds))
    print("%-19s %7s %7s %8s %8s %8s %8s %9s %10s %10s %9s %8s %11s %9s" % (
        "model", "MB", "load s", "import s", "load/imp", "RSS load", "RSS call", "rel err", "graphd exe",
        "graphd e2e", "ORT", "exe/ORT", "range", "e2e-exe"))
    for r in table:
        spread = "%s-%s" % (fmt(r["ratio_min"], ".2f"), fmt(r["ratio_max"], ".2f")) if r["ratio_min"] else "-"
        print("%-19s %7s %7s %8s %8s %8s %8s %9s %10s %10s %9s %8s %11s %9s" % (
            r["model"], fmt(r["model_mb"], ".1f"), fmt(r["load_s"], ".2f"), fmt(r["import_s"], ".2f"),
            fmt(r["load_over_import"], ".2f"), fmt(r["rss_load_over_model"], ".2f"),
            fmt(r["rss_call_over_model"], ".2f"),
            fmt(r["rel_err"], ".1e"), fmt(r["graphd_execute_ms"], ".3f"), fmt(r["graphd_e2e_ms"], ".3f"),
            fmt(r["ort_ms"], ".3f"), fmt(r["execute_over_ort"], ".2f"), spread, fmt(r["e2e_minus_execute_ms"], ".3f")))
    print("geomean execute / ORT over %d models: %s (target <= 0.9; each <= 1.0)" % (len(ok), fmt(geomean, ".2f")))
    if args.ort_gap_ms > 0:
        print("\nORT sleeping %g ms before each run (medians over the rounds):" % args.ort_gap_ms)
        print("%-19s %10s %9s %8s" % ("model", "graphd exe", "ORT gap", "exe/gap"))
        for r in table:
            print("%-19s %10s %9s %8s" % (r["model"], fmt(r["graphd_execute_ms"], ".3f"), fmt(r["ort_gap_ms"], ".3f"),
                                          fmt(r["execute_over_ort_gap"], ".2f")))
        gaps = [r["execute_over_ort_gap"] for r in table if r["execute_over_ort_gap"]]
        if gaps:
            print("geomean execute / ORT with gaps over %d models: %.2f"
                  % (len(gaps), math.exp(sum(math.log(v) for v in gaps) / len(gaps))))
    for r in rows:
        if "profile" in r:
            print("\n%s: graphd time by op type (%% of the summed node time, top 8)" % r["model"])
            for p in r["profile"][:8]:
                print("  %-28s %6.1f%% %9.3f ms %5d nodes" % (p["op"], p["percent"], p["us"] / 1000, p["nodes"]))
    run_models.write_csv(os.path.join(out, "zoo.csv"), table, echo)
    return run_models.finish(started)


if __name__ == "__main__":
    sys.exit(main())
