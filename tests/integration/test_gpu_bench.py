"""bench/gpu/run_gpu_bench.py (issue 6's GPU benchmark): its report writer on canned rows,
its argument errors, a --device cpu smoke run end to end (ResNet-18 batch 1, tiny
budget), and a --device gpu run on this GPU-less machine, whose failures must be named
in the report rather than hidden."""

import csv
import os
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "bench", "gpu", "run_gpu_bench.py")
sys.path.insert(0, os.path.join(REPO, "bench", "gpu"))
import gpu_report  # noqa: E402

GRAPHD_ROWS = """{"echo_p50_us": 150.0}
{"model": "resnet18", "batch": 1, "device": "gpu", "median_us": 2000.0, "mean_us": 2100.0, "p90_us": 2500.0, \
"execute_us": 1500.0, "server_total_us": 1700.0, "iters": 50, "checksum": 59.5566}
{"model": "resnet50", "batch": 64, "device": "gpu", "median_us": 90000.0, "mean_us": 91000.0, "p90_us": 95000.0, \
"execute_us": 80000.0, "server_total_us": 85000.0, "iters": 20, "checksum": 1200.0}
model_bench: some line that is not JSON
"""
TORCH_ROWS = """{"model": "resnet18", "batch": 1, "device": "cuda", "median_us": 2500.0, "mean_us": 2600.0, \
"p90_us": 2700.0, "iters": 40, "checksum": 59.5571, "compute_us": 1200.0, "torch": "2.11.0"}
{"model": "resnet50", "batch": 64, "device": "cuda", "median_us": 60000.0, "mean_us": 61000.0, \
"p90_us": 62000.0, "iters": 30, "checksum": 1900.0, "compute_us": 40000.0, "torch": "2.11.0"}
"""


def _table():
    cases = [("resnet18", 1), ("resnet18", 64), ("resnet50", 64)]
    return gpu_report.build_table(cases, gpu_report.parse_json_lines(GRAPHD_ROWS),
                                  gpu_report.parse_json_lines(TORCH_ROWS))


def test_table_joins_the_rows_and_judges_the_target():
    t = _table()
    assert [(r["model"], r["batch"]) for r in t] == [("resnet18", 1), ("resnet18", 64), ("resnet50", 64)]
    r18, missing, r50 = t
    assert r18["graphd_e2e_ms"] == pytest.approx(2.0) and r18["graphd_execute_ms"] == pytest.approx(1.5)
    assert r18["torch_e2e_ms"] == pytest.approx(2.5) and r18["torch_compute_ms"] == pytest.approx(1.2)
    assert r18["ratio"] == pytest.approx(0.8) and r18["target_met"] is True and r18["outputs_agree"] is True
    assert missing["ratio"] is None and missing["target_met"] is None and missing["outputs_agree"] is None
    assert r50["ratio"] == pytest.approx(1.5) and r50["target_met"] is False
    assert r50["outputs_agree"] is False  # 1200 vs 1900


def test_checksums_agree_within_fp32_tolerance():
    assert gpu_report.checksums_agree(100.0, 100.01, 1)
    assert not gpu_report.checksums_agree(100.0, 101.0, 1)
    assert gpu_report.checksums_agree(0.0, 0.5e-3, 1)
    assert gpu_report.checksums_agree(None, 1.0, 1) is None


def test_markdown_and_csv(tmp_path):
    meta = {"title": "T", "device": "NVIDIA X, driver 1, 80 GiB", "when": "2026-11-23 01:00 UTC",
            "torch": "torch 2.11.0", "echo_p50_ms": 0.15, "settings": ["Settings: s."]}
    md = gpu_report.render_markdown(_table(), meta, ["graphd resnet18:64: exit 1: boom\n  more"])
    lines = md.splitlines()
    assert lines[0] == "### T"
    assert "Device: NVIDIA X, driver 1, 80 GiB." in lines
    assert "gRPC echo p50 in the same server: 0.150 ms." in lines
    assert "| resnet18 | 1 | 2.000 | 1.500 | 2.500 | 1.200 | n/a | 0.80 | met | yes |" in lines
    assert "| resnet18 | 64 | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |" in lines
    assert "| resnet50 | 64 | 90.000 | 80.000 | 60.000 | 40.000 | n/a | 1.50 | missed | NO |" in lines
    assert "- graphd resnet18:64: exit 1: boom more" in lines
    header = [l for l in lines if l.startswith("| model")][0]
    assert header.count("|") == lines[lines.index(header) + 1].count("|")
    assert "No step failed." in gpu_report.render_markdown(_table(), meta, [])

    path = tmp_path / "t.csv"
    gpu_report.write_csv(_table(), str(path))
    rows = list(csv.DictReader(open(path)))
    assert [r["model"] for r in rows] == ["resnet18", "resnet18", "resnet50"]
    assert float(rows[0]["ratio"]) == pytest.approx(0.8) and rows[1]["ratio"] == ""


def _run(args, timeout=120):
    return subprocess.run([sys.executable, SCRIPT] + args, capture_output=True, text=True, timeout=timeout)


def test_argument_errors(tmp_path, graphd_bin):
    out = str(tmp_path / "out")
    p = _run(["--out", out])
    assert p.returncode == 2 and "one of the arguments --bundle --bin-dir is required" in p.stderr
    p = _run(["--bundle", str(tmp_path), "--out", out])
    assert p.returncode == 2 and "has no 'run' launcher" in p.stderr
    p = _run(["--bin-dir", str(tmp_path), "--out", out])
    assert p.returncode == 2 and "has no model_bench" in p.stderr
    bin_dir = os.path.dirname(graphd_bin)
    p = _run(["--bin-dir", bin_dir, "--out", out, "--cases", "resnet18"])
    assert p.returncode == 2 and "bad case 'resnet18'" in p.stderr
    p = _run(["--bin-dir", bin_dir, "--out", out, "--min-iters", "0"])
    assert p.returncode == 2 and "--min-iters" in p.stderr
    assert not os.path.exists(out)


def _model_bench(graphd_bin):
    path = os.path.join(os.path.dirname(graphd_bin), "model_bench")
    if not os.access(path, os.X_OK):
        pytest.fail("%s missing: build it (ninja -C build model_bench)" % path)
    return os.path.dirname(graphd_bin)


def test_cpu_smoke_run_end_to_end(tmp_path, graphd_bin):
    pytest.importorskip("torchvision", reason="python3-torchvision exports the model")
    out = tmp_path / "out"
    p = _run(["--device", "cpu", "--bin-dir", _model_bench(graphd_bin), "--out", str(out), "--work",
              str(tmp_path / "work"), "--cases", "resnet18:1", "--budget-s", "0.1", "--min-iters", "1",
              "--total-s", "240"], timeout=300)
    md = (out / "gpu_bench.md").read_text()
    assert p.returncode == 0, md + (out / "gpu_bench.log").read_text()[-4000:]
    row = [l for l in md.splitlines() if l.startswith("| resnet18 | 1 |")]
    assert len(row) == 1, md
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    assert all(float(c) > 0 for c in cells[2:5] + cells[7:8]), md  # e2e, execute, torch, ratio
    assert cells[5] == cells[6] == "n/a"  # torch compute: cuda only; torch.compile: not asked for
    assert cells[9] == "yes", md  # graphd's and torch's outputs agree
    assert "No step failed." in md and "CPU smoke run" in md
    rows = list(csv.DictReader(open(out / "gpu_bench.csv")))
    assert len(rows) == 1 and float(rows[0]["graphd_e2e_ms"]) > 0 and float(rows[0]["torch_e2e_ms"]) > 0
    assert "== graphd resnet18:1" in (out / "gpu_bench.log").read_text()


def test_a_hanging_step_times_out_and_its_processes_end(tmp_path):
    pytest.importorskip("torchvision", reason="python3-torchvision exports the model")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    pid_file = tmp_path / "child.pid"
    (bundle / "run").write_text("#!/bin/sh\n[ \"$1\" = model_bench ] || exit 3\n"
                                "sleep 300 & echo $! > %s\nwait\n" % pid_file)
    out = tmp_path / "out"
    p = _run(["--device", "cpu", "--bundle", str(bundle), "--out", str(out), "--work", str(tmp_path / "work"),
              "--cases", "mlp:1", "--budget-s", "0.1", "--min-iters", "1", "--step-timeout-s", "20"])
    # 20 s: the other steps (export, torch) take about a second each on an idle machine,
    # and must not time out on a busy one.
    assert p.returncode == 1
    md = (out / "gpu_bench.md").read_text()
    assert "- graphd mlp:1: timed out after 20 s" in md
    assert "| mlp | 1 | n/a | n/a |" in md  # graphd missing, torch (CPU) measured
    pid = int(pid_file.read_text())
    assert _ends_within(pid, 5.0), "the step's child %d still runs: its process group was not ended" % pid


def _ends_within(pid, seconds):
    """True once `pid` is gone or a zombie (killed, not yet reaped by its new parent)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_gpu_mode_without_a_gpu_names_every_failure(tmp_path, graphd_bin):
    pytest.importorskip("torch", reason="python3-torch exports the model")
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the failures this test expects would not happen")
    out = tmp_path / "out"
    p = _run(["--bin-dir", _model_bench(graphd_bin), "--out", str(out), "--work", str(tmp_path / "work"),
              "--cases", "mlp:1", "--budget-s", "0.1", "--min-iters", "1"], timeout=300)
    assert p.returncode == 1
    md = (out / "gpu_bench.md").read_text()
    assert "| mlp | 1 | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |" in md
    assert "- graphd mlp:1: exit 1: model_bench: CreateSession (device gpu)" in md
    assert "torch.cuda.is_available() is False" in md


class _FakeRunner:
    def __init__(self, python):
        self.args = type("Args", (), {"python": python})()
        self.errors, self.logged = [], []

    def log(self, text):
        self.logged.append(text)


def test_cuda_libraries_from_torch_wheels_when_the_loader_lacks_them(tmp_path, monkeypatch):
    import run_gpu_bench
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "ldconfig").write_text("#!/bin/sh\necho '1 libs found in cache'\n")
    (fake_bin / "ldconfig").chmod(0o755)
    wheels = [tmp_path / "nvidia" / "cublas" / "lib", tmp_path / "nvidia" / "cudnn" / "lib"]
    for d, lib in zip(wheels, run_gpu_bench.CUDA_LIBS):
        d.mkdir(parents=True)
        (d / lib).write_text("")
    python = tmp_path / "python"  # prints the wheel folders as run_gpu_bench.WHEEL_DIRS would
    python.write_text("#!/bin/sh\necho %s\necho %s\n" % tuple(wheels))
    python.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake_bin))
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/x")
    monkeypatch.setattr(run_gpu_bench, "CUDA_DIRS", (str(tmp_path / "no_cuda"),))

    r = _FakeRunner(str(python))
    path, note = run_gpu_bench.cuda_library_path(r)
    assert path == ":".join(["/opt/x"] + [str(d) for d in wheels])
    assert "LD_LIBRARY_PATH +=" in note and r.errors == []

    (wheels[1] / run_gpu_bench.CUDA_LIBS[1]).unlink()  # no cuDNN anywhere: named as an error
    r = _FakeRunner(str(python))
    path, note = run_gpu_bench.cuda_library_path(r)
    assert path is not None and len(r.errors) == 1 and "libcudnn.so.9: not found" in r.errors[0]

    monkeypatch.setenv("LD_LIBRARY_PATH", ":".join(str(d) for d in wheels[:1]) + ":" + str(tmp_path))
    (tmp_path / run_gpu_bench.CUDA_LIBS[1]).write_text("")  # both on LD_LIBRARY_PATH already
    r = _FakeRunner(str(python))
    assert run_gpu_bench.cuda_library_path(r) == (None, "CUDA libraries (%s): found by the loader"
                                                  % ", ".join(run_gpu_bench.CUDA_LIBS))
