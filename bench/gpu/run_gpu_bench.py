"""Issue 6's GPU benchmark in one command: graphd end to end vs PyTorch eager on the same
device in the same run, ResNet-18 and ResNet-50 (torchvision, seeded random weights),
fp32, batch 1 and 64. Run on the device machine after carrying the bundle
(scripts/device-bundle.sh), see bench/README.md, "GPU (issue 6)":

    python3 bench/gpu/run_gpu_bench.py --bundle device-bundle --out $OUT
    /usr/bin/python3 bench/gpu/run_gpu_bench.py --device cpu --bin-dir build/bin --out /tmp/gb

Steps, one after the other, each with a timeout, within --total-s in all:
  1. the device line: nvidia-smi's GPU name, driver and memory (--device cpu: the CPU);
  2. bench/models/export_models.py --only <models> exports the models into --work
     (ResNet-50's ONNX is ~100 MB: exported where it runs, never carried);
  3. model_bench --device gpu|cpu, one process (and so one fresh graphd server) per
     case: graphd's end-to-end CallGraph p50 and the server's execute_us;
  4. bench/models/torch_bench.py --device cuda|cpu, one process per case.
Writes into --out: gpu_bench.md (the table and device line for bench/README.md),
gpu_bench.csv, gpu_bench.json (every raw row) and gpu_bench.log (each step's command
line and output); the report is rewritten after every step, so a run cut short still
leaves what it measured. A failing step is named in the report and the log, its
figures are n/a, and the exit status is 1. Standard library only.
"""

import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gpu_report  # noqa: E402

GPU_CASES = "resnet18:1,resnet18:64,resnet50:1,resnet50:64"
CPU_CASES = "resnet18:1"


class Runner:
    """Runs the steps, keeps every row and error, and rewrites the report after each step."""

    def __init__(self, args, cases):
        self.args, self.cases = args, cases
        self.errors, self.graphd_rows, self.torch_rows, self.compile_rows = [], [], [], []
        self.meta = {"title": "graphd vs PyTorch eager, %s (issue 6)" % ("GPU" if args.device == "gpu" else "CPU smoke"),
                     "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                     "settings": []}
        self.deadline = time.monotonic() + args.total_s
        self.log_path = os.path.join(args.out, "gpu_bench.log")
        open(self.log_path, "w").close()

    def log(self, text):
        with open(self.log_path, "a") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def run(self, what, cmd, timeout, env=None):
        """stdout of `cmd`, or None with the error recorded (failure, timeout, no time left)."""
        left = self.deadline - time.monotonic()
        if left < 5:
            self.errors.append("%s: skipped, the run's --total-s %g s were spent" % (what, self.args.total_s))
            self.log("== %s: skipped (no time left)" % what)
            return None
        timeout = min(timeout, left)
        self.log("== %s (timeout %.0f s): %s" % (what, timeout, " ".join(cmd)))
        print("run_gpu_bench: %s ..." % what, file=sys.stderr, flush=True)
        t0 = time.monotonic()
        try:  # its own process group, so that a timeout also ends what it started (graphd)
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                 start_new_session=True)
        except OSError as e:
            self.errors.append("%s: cannot run %s (%s)" % (what, cmd[0], e))
            self.log("   cannot run: %s" % e)
            return None
        try:
            stdout, stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stdout, stderr = _end_group(p)
            self.errors.append("%s: timed out after %.0f s" % (what, timeout))
            self.log("   timed out; output so far:\n-- stdout\n%s-- stderr\n%s" % (stdout, stderr))
            return None
        self.log("   exit %d after %.1f s\n-- stdout\n%s-- stderr\n%s" % (p.returncode, time.monotonic() - t0,
                                                                           stdout, stderr))
        if p.returncode != 0:
            tail = (stderr.strip() or stdout.strip())[-800:]
            self.errors.append("%s: exit %d: %s" % (what, p.returncode, tail))
            return None
        return stdout

    def write_report(self):
        table = gpu_report.build_table(self.cases, self.graphd_rows, self.torch_rows, self.compile_rows)
        out = self.args.out
        with open(os.path.join(out, "gpu_bench.md"), "w") as f:
            f.write(gpu_report.render_markdown(table, self.meta, self.errors))
        gpu_report.write_csv(table, os.path.join(out, "gpu_bench.csv"))
        with open(os.path.join(out, "gpu_bench.json"), "w") as f:
            json.dump({"meta": self.meta, "errors": self.errors, "graphd": self.graphd_rows,
                       "torch": self.torch_rows,
                       "torch_compile": self.compile_rows, "table": table}, f, indent=1)
        return table


def _end_group(p):
    """SIGTERM to `p`'s process group, SIGKILL after 10 s; the output read until then."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            return p.communicate(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def parse_cases(text):
    """[(model, batch)] from "resnet18:1,resnet50:64"; raises ValueError naming a bad one."""
    cases = []
    for c in [c for c in text.split(",") if c.strip()]:
        name, sep, batch = c.strip().partition(":")
        if not sep or not name or not batch.isdigit() or int(batch) < 1:
            raise ValueError("bad case %r (want MODEL:BATCH, e.g. resnet50:64)" % c)
        cases.append((name, int(batch)))
    if not cases:
        raise ValueError("no cases given")
    return cases


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["gpu", "cpu"], default="gpu",
                    help="gpu: graphd sessions with device gpu, torch on cuda; cpu: both on the CPU (a smoke run)")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--bundle", help="a device bundle folder (scripts/device-bundle.sh): runs <bundle>/run model_bench")
    src.add_argument("--bin-dir", help="a build's bin/ with model_bench and graphd (e.g. build/bin)")
    ap.add_argument("--out", required=True, help="folder for gpu_bench.{md,csv,json,log} (e.g. $OUT)")
    ap.add_argument("--work", default="/tmp/graphd_gpu_bench", help="scratch folder: the exported models")
    ap.add_argument("--cases", help="comma-separated MODEL:BATCH (default %s; --device cpu: %s)"
                    % (GPU_CASES, CPU_CASES))
    ap.add_argument("--budget-s", type=float, help="seconds of timed calls per case and runtime (default 5; cpu 1)")
    ap.add_argument("--min-iters", type=int, default=3)
    ap.add_argument("--max-iters", type=int, default=2000)
    ap.add_argument("--python", default=sys.executable, help="python with torch + torchvision (export, torch eager)")
    ap.add_argument("--server-arg", action="append", default=[], help="passed on to graphd (repeatable)")
    ap.add_argument("--torch-compile", action="store_true",
                    help="also time torch.compile (default mode) per case, after everything else")
    ap.add_argument("--step-timeout-s", type=float, default=240, help="limit of each step")
    ap.add_argument("--total-s", type=float, default=540, help="no step starts or runs past this (the device's "
                    "10-minute command limit)")
    args = ap.parse_args(argv)
    try:
        cases = parse_cases(args.cases or (GPU_CASES if args.device == "gpu" else CPU_CASES))
    except ValueError as e:
        ap.error(str(e))
    if args.budget_s is None:
        args.budget_s = 5.0 if args.device == "gpu" else 1.0
    if args.budget_s <= 0 or args.min_iters < 1 or args.max_iters < args.min_iters:
        ap.error("need --budget-s > 0 and 1 <= --min-iters <= --max-iters")
    if args.bundle and not os.path.isfile(os.path.join(args.bundle, "run")):
        ap.error("--bundle %s has no 'run' launcher (make it with scripts/device-bundle.sh)" % args.bundle)
    if args.bin_dir and not os.access(os.path.join(args.bin_dir, "model_bench"), os.X_OK):
        ap.error("--bin-dir %s has no model_bench (build it: ninja -C build model_bench graphd)" % args.bin_dir)
    return args, cases


def device_line(r):
    """The device as words: nvidia-smi's name, driver, memory; or the CPU's model and core count."""
    if r.args.device == "cpu":
        model = "unknown CPU"
        try:
            with open("/proc/cpuinfo") as f:
                model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
        except OSError:
            pass
        return "%s, %d cores (CPU smoke run, no GPU)" % (model, os.cpu_count() or 0)
    out = r.run("nvidia-smi", ["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                               "--format=csv,noheader"], timeout=60)
    if not out or not out.strip():
        return None
    gpus = [", ".join(p.strip() for p in line.split(",")) for line in out.strip().splitlines()]
    name = gpus[0].split(",")
    text = "%s, driver %s, %s" % tuple(name[:3]) if len(name) >= 3 else gpus[0]
    return text + (" (GPU 0 of %d)" % len(gpus) if len(gpus) > 1 else "")


# The libraries graphd's GPU device dlopens (executor/gpu/cuda_libs.h).
CUDA_LIBS = ("libcublas.so.13", "libcudnn.so.9")
CUDA_DIRS = ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib")
# The lib/ folders of the nvidia-* wheels PyTorch brings (cuBLAS, cuDNN, ...).
WHEEL_DIRS = ("import glob, os, nvidia; print('\\n'.join(sorted({os.path.dirname(p) for d in nvidia.__path__ "
              "for p in glob.glob(os.path.join(d, '**', 'lib*.so*'), recursive=True)})))")


def cuda_library_path(r):
    """(LD_LIBRARY_PATH for graphd or None, a note): when the loader cannot find CUDA_LIBS
    (not in `ldconfig -p`, not in LD_LIBRARY_PATH), the CUDA toolkit's lib64 and then the
    lib/ folders of torch's nvidia-* wheels that hold them are added."""
    try:
        known = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        known = ""
    current = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    missing = [lib for lib in CUDA_LIBS
               if lib not in known and not any(os.path.exists(os.path.join(d, lib)) for d in current)]
    if not missing:
        return None, "CUDA libraries (%s): found by the loader" % ", ".join(CUDA_LIBS)
    try:
        wheels = subprocess.run([r.args.python, "-c", WHEEL_DIRS], capture_output=True, text=True,
                                timeout=60).stdout.split()
    except (OSError, subprocess.TimeoutExpired):
        wheels = []
    added = []
    for lib in missing:
        for d in list(CUDA_DIRS) + wheels:
            if os.path.exists(os.path.join(d, lib)):
                added += [x for x in ([d] if d in CUDA_DIRS else wheels) if x not in added]
                break
        else:
            r.errors.append("%s: not found by the loader, in %s or in torch's nvidia-* wheels; graphd's GPU "
                            "device cannot load it" % (lib, " or ".join(CUDA_DIRS)))
    if not added:
        return None, "CUDA libraries: %s missing" % ", ".join(missing)
    path = ":".join(current + added)
    r.log("== LD_LIBRARY_PATH for graphd: %s (the loader lacked %s)" % (path, ", ".join(missing)))
    return path, "CUDA libraries (%s) from LD_LIBRARY_PATH += %s" % (", ".join(missing), ":".join(added))


def graphd_command(args):
    if args.bundle:
        return ["sh", os.path.join(args.bundle, "run"), "model_bench"]
    return [os.path.join(args.bin_dir, "model_bench"), "--server", os.path.join(args.bin_dir, "graphd")]


def graphd_version(args):
    if args.bundle:  # the launcher unpacked the archive, MANIFEST's first line names the commit
        try:
            with open(os.path.join(os.environ.get("GRAPHD_BUNDLE_DIR", "/tmp/graphd-bundle"), "MANIFEST")) as f:
                return f.readline().strip()
        except OSError:
            return None
    try:
        rev = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        rev = ""
    return "%s from %s" % (os.path.abspath(args.bin_dir), rev or "an unknown commit")


def main(argv=None):
    args, cases = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    models_dir = os.path.join(os.path.abspath(args.work), "models")
    r = Runner(args, cases)
    r.meta["device"] = device_line(r)
    torch_how = ("end to end (input copied to the GPU, output copied back), TF32 off, cudnn.benchmark on"
                 if args.device == "gpu" else "on the host input, 2 threads")
    r.meta["settings"].append("Settings: fp32; %.1f s of timed calls per case (at least %d), p50; graphd through "
                              "gRPC (C++ stubs, loopback), one fresh server per case; torch eager %s."
                              % (args.budget_s, args.min_iters, torch_how))
    r.write_report()

    names = sorted({m for m, _ in cases}, key=[m for m, _ in cases].index)
    exported = r.run("export " + ",".join(names), [args.python, os.path.join(REPO, "bench", "models",
                                                                             "export_models.py"),
                                                    "--out", models_dir, "--only", ",".join(names)],
                     timeout=args.step_timeout_s) is not None
    r.write_report()

    env = None
    if args.device == "gpu":
        ld_path, note = cuda_library_path(r)
        r.meta["settings"].append(note + ".")
        if ld_path:
            env = dict(os.environ, LD_LIBRARY_PATH=ld_path)
    timing = ["--budget-s", str(args.budget_s), "--min-iters", str(args.min_iters), "--max-iters", str(args.max_iters)]
    for model, batch in cases:
        case = "%s:%d" % (model, batch)
        if not exported:
            r.errors.append("graphd %s: not run (no exported model)" % case)
            continue
        cmd = graphd_command(args) + ["--models", models_dir, "--case", case, "--device", args.device] + timing
        cmd += ["--server-arg=" + a for a in args.server_arg]
        rows = gpu_report.parse_json_lines(r.run("graphd " + case, cmd, args.step_timeout_s, env=env))
        r.graphd_rows += [x for x in rows if "model" in x]
        echo = [x["echo_p50_us"] for x in rows if "echo_p50_us" in x]
        if echo and r.meta.get("echo_p50_ms") is None:
            r.meta["echo_p50_ms"] = echo[0] / 1000
        r.write_report()
    r.meta["graphd"] = graphd_version(args)

    torch_device = "cuda" if args.device == "gpu" else "cpu"
    for model, batch in cases:
        case = "%s:%d" % (model, batch)
        cmd = [args.python, os.path.join(REPO, "bench", "models", "torch_bench.py"), "--device", torch_device,
               "--case", case] + timing
        rows = [x for x in gpu_report.parse_json_lines(r.run("torch " + case, cmd, args.step_timeout_s))
                if "model" in x]
        r.torch_rows += rows
        if rows and not r.meta.get("torch"):
            x = rows[0]
            r.meta["torch"] = "torch %s" % x.get("torch", "") + (
                " (CUDA %s, cuDNN %s) on %s" % (x.get("cuda"), x.get("cudnn"), x.get("gpu")) if "gpu" in x else "")
        r.write_report()

    if args.torch_compile:
        for model, batch in cases:
            case = "%s:%d" % (model, batch)
            cmd = [args.python, os.path.join(REPO, "bench", "models", "torch_bench.py"), "--device", torch_device,
                   "--case", case, "--compile"] + timing
            r.compile_rows += [x for x in gpu_report.parse_json_lines(r.run("torch.compile " + case, cmd,
                                                                            args.step_timeout_s)) if "model" in x]
            r.write_report()

    table = r.write_report()
    with open(os.path.join(args.out, "gpu_bench.md")) as f:
        sys.stdout.write(f.read())
    missing = [t for t in table if t["ratio"] is None]
    if missing and not r.errors:
        r.errors.append("%d case(s) without both figures" % len(missing))
        r.write_report()
    return 1 if r.errors else 0


if __name__ == "__main__":
    sys.exit(main())
