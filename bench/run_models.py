"""Model benchmark (issue 5, benchmarks 4 and 5): graphd vs ONNX Runtime vs PyTorch eager
on MLP 256-512-512-10, ResNet-18 and MobileNetV2 at batch 1 and 16, then graphd's
server memory. Run by `make bench`:

    /usr/bin/python3 bench/run_models.py --build-dir build

Steps, one after the other (never side by side: they share the cores):
  1. bench/models/export_models.py exports the models into <build>/bench/models;
  2. `npm ci --ignore-scripts` installs onnxruntime-node (bench/ort/package-lock.json)
     into <build>/bench/ort when it is missing or the lock file changed;
  3. <build>/bin/model_bench: graphd end-to-end CallGraph latency (C++ gRPC stubs) and
     the server's execute_us, plus a raw gRPC echo p50;
  4. bench/ort/ort_bench.js: ONNX Runtime, intraOpNumThreads=2, interOpNumThreads=1;
  5. bench/models/torch_bench.py: PyTorch eager, torch.set_num_threads(2), no_grad;
  6. <build>/bin/model_bench --memory: server RSS idle, per idle session, ResNet-18 in
     one session and in ten.
Prints one table and writes <build>/bench/models.csv and <build>/bench/memory.csv.
A piece that fails or is missing is reported and left out (n/a); the exit status is
then 1. Every step has a timeout.
"""

import argparse
import csv
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["mlp", "resnet18", "mobilenet_v2"]
BATCHES = [1, 16]
errors = []


def log(msg):
    print("run_models: " + msg, file=sys.stderr, flush=True)


def run(what, cmd, timeout, cwd=None):
    """stdout of `cmd`, or None (with the error recorded) when it fails or times out."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except FileNotFoundError as e:
        errors.append("%s: %s not found (%s)" % (what, cmd[0], e))
        return None
    except subprocess.TimeoutExpired:
        errors.append("%s: timed out after %d s" % (what, timeout))
        return None
    log("%s: %.1f s" % (what, time.time() - t0))
    if p.returncode != 0:
        errors.append("%s: exit %d: %s" % (what, p.returncode, (p.stderr or p.stdout).strip()[-2000:]))
        return None
    return p.stdout


def json_lines(text):
    return [json.loads(line) for line in (text or "").splitlines() if line.startswith("{")]


def install_ort(ort_dir):
    """True when <ort_dir>/node_modules has onnxruntime-node for bench/ort/package-lock.json."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        errors.append("ONNX Runtime: node/npm not installed (scripts/install-deps.sh installs them)")
        return False
    os.makedirs(ort_dir, exist_ok=True)
    lock = os.path.join(HERE, "ort", "package-lock.json")
    have = os.path.join(ort_dir, "package-lock.json")
    if os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")) and os.path.exists(have) \
            and filecmp.cmp(lock, have, shallow=False):
        return True
    for f in ("package.json", "package-lock.json"):
        shutil.copy(os.path.join(HERE, "ort", f), os.path.join(ort_dir, f))
    return run("npm ci onnxruntime-node", ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
               timeout=600, cwd=ort_dir) is not None


def by_case(rows):
    return {(r["model"], r["batch"]): r for r in rows if "model" in r}


def ratio(a, b):
    return a / b if a and b else None


def fmt(v, spec):
    return format(v, spec) if v is not None else "n/a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--budget-s", type=float, default=2.0, help="seconds of timed runs per case and runtime")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--server-args", default="",
                    help="space-separated graphd server arguments, e.g. '--disable-passes=conv_layout' (A/B runs)")
    args = ap.parse_args()
    build = os.path.abspath(args.build_dir)
    out = os.path.join(build, "bench")
    models_dir = os.path.join(out, "models")
    names = [m for m in args.models.split(",") if m]
    cases = ["%s:%d" % (m, b) for m in names for b in BATCHES]
    case_args = [a for c in cases for a in ("--case", c)]
    budget = ["--budget-s", str(args.budget_s)]
    server_args = ["--server-arg=" + a for a in args.server_args.split()]
    started = time.time()

    if run("export models", [sys.executable, os.path.join(HERE, "models", "export_models.py"), "--out", models_dir],
           timeout=600) is None:
        return finish(started)

    model_bench = os.path.join(build, "bin", "model_bench")
    graphd = by_case([])
    echo = None
    if not os.path.exists(model_bench):
        errors.append("graphd: %s missing (build it: make build)" % model_bench)
    else:
        rows = json_lines(run("graphd", [model_bench, "--models", models_dir] + case_args + budget + server_args,
                              timeout=900))
        graphd = by_case(rows)
        echo = next((r["echo_p50_us"] for r in rows if "echo_p50_us" in r), None)

    ort = {}
    ort_dir = os.path.join(out, "ort")
    if install_ort(ort_dir):
        ort = by_case(json_lines(run("ONNX Runtime", ["node", os.path.join(HERE, "ort", "ort_bench.js"), "--modules",
                                                      os.path.join(ort_dir, "node_modules"), "--models", models_dir]
                                     + case_args + budget, timeout=900)))

    # Debian's torch runs Linear through the reference BLAS: one warm-up call and two
    # timed ones keep ResNet-18 at batch 16 within the time budget.
    torch = by_case(json_lines(run("PyTorch", [sys.executable, os.path.join(HERE, "models", "torch_bench.py"),
                                               "--warmup", "1", "--min-iters", "2"] + case_args + budget,
                                   timeout=900)))

    table = []
    for m in names:
        for b in BATCHES:
            g, o, t = graphd.get((m, b), {}), ort.get((m, b), {}), torch.get((m, b), {})
            ms = lambda r, k="median_us": r[k] / 1000 if k in r else None  # noqa: E731
            sums = [r["checksum"] for r in (g, o, t) if "checksum" in r]
            agree = None
            if len(sums) > 1:
                scale = max(1.0, max(abs(s) for s in sums))
                agree = max(sums) - min(sums) <= 1e-3 * scale * (1 + b)
                if not agree:
                    errors.append("%s batch %d: outputs disagree (checksums %s)" % (m, b, sums))
            table.append({
                "model": m, "batch": b, "graphd_e2e_ms": ms(g), "graphd_execute_ms": ms(g, "execute_us"),
                "ort_ms": ms(o), "torch_ms": ms(t),
                "execute_over_ort": ratio(ms(g, "execute_us"), ms(o)), "e2e_over_ort": ratio(ms(g), ms(o)),
                "e2e_over_torch": ratio(ms(g), ms(t)),
                "e2e_target_ms": ms(o) + echo / 1000 if ms(o) is not None and echo else None,
                "outputs_agree": agree,
            })

    print("\nModel latency, median of timed runs (ms); graphd through gRPC (C++ stubs, loopback),"
          " 2 threads for ORT and torch")
    if echo:
        print("gRPC echo p50 in the same server: %.3f ms" % (echo / 1000))
    hdr = "%-13s %5s %11s %11s %10s %10s %9s %9s %9s %7s" % (
        "model", "batch", "graphd e2e", "graphd exe", "ORT", "torch", "exe/ORT", "e2e/ORT", "e2e/torch", "agree")
    print(hdr)
    for r in table:
        print("%-13s %5d %11s %11s %10s %10s %9s %9s %9s %7s" % (
            r["model"], r["batch"], fmt(r["graphd_e2e_ms"], ".3f"), fmt(r["graphd_execute_ms"], ".3f"),
            fmt(r["ort_ms"], ".3f"), fmt(r["torch_ms"], ".3f"), fmt(r["execute_over_ort"], ".2f"),
            fmt(r["e2e_over_ort"], ".2f"), fmt(r["e2e_over_torch"], ".2f"),
            {True: "yes", False: "NO", None: "n/a"}[r["outputs_agree"]]))
    write_csv(os.path.join(out, "models.csv"), table, echo)

    if not args.no_memory and os.path.exists(model_bench):
        mem = json_lines(run("graphd memory", [model_bench, "--memory", "--models", models_dir], timeout=600))
        if mem:
            r = mem[0]
            print("\ngraphd server memory (RSS, MiB)")
            print("idle: %.1f; with %d idle sessions: %.1f (%.1f KiB per session)" % (
                r["idle_kib"] / 1024, r["sessions"], r["with_sessions_kib"] / 1024, r["per_session_kib"]))
            print("%s (%.1f MB ONNX) in 1 session: %.1f; in %d sessions: %.1f; ratio %.3f (target <= 1.05)" % (
                r["model"], r["model_bytes"] / 1e6, r["one_model_kib"] / 1024, r["copies"],
                r["many_models_kib"] / 1024, r["ratio"]))
            path = os.path.join(out, "memory.csv")
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=[k for k in r if k != "memory"])
                w.writeheader()
                w.writerow({k: v for k, v in r.items() if k != "memory"})
            print("CSV: %s" % path)
    return finish(started)


def write_csv(path, table, echo_us):
    """One row per table entry, each with the gRPC echo p50 (ms) of the run."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0].keys()) + ["echo_p50_ms"])
        w.writeheader()
        for r in table:
            w.writerow(dict(r, echo_p50_ms=echo_us / 1000 if echo_us else None))
    print("CSV: %s" % path)


def finish(started):
    log("total %.0f s" % (time.time() - started))
    for e in errors:
        print("run_models: ERROR: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
