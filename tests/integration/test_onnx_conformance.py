"""The ONNX backend test suite (Debian's libonnx-testdata) through the real server.

Every test_* folder of the node, pytorch-converted, pytorch-operator and simple
suites is loaded with sess.load_onnx and run on each of its data sets against the
expected outputs (the ONNX runner's tolerances). Prints per suite
``N passed, M failed, K excluded``. Fails only when a test that is not listed in
tests/conformance/onnx/exclusions.txt fails, so coverage can only go up.

GRAPHD_ONNX_WRITE_EXCLUSIONS=1 rewrites the exclusion file from this run's failures
(the reason is the first line of each error); edit reasons by hand after. With
GRAPHD_DEVICE=gpu the sessions are GPU sessions, exclusions_gpu.txt applies as well,
and the writer rewrites that file with the failures exclusions.txt does not list.
"""

import glob
import os

import pytest

import graphd
from onnx_helpers import TESTDATA, Case, assert_outputs_close, declared_bfloat16

SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXCLUSIONS = os.path.join(REPO, "tests", "conformance", "onnx", "exclusions.txt")
# With GRAPHD_DEVICE=gpu (sessions on the GPU) these are excluded too: GPU-specific
# failures, each with its reason.
GPU_EXCLUSIONS = os.path.join(REPO, "tests", "conformance", "onnx", "exclusions_gpu.txt")


def read_exclusions():
    """{"suite/test": reason} from lines "suite/test: reason" (# comments), plus the
    GPU exclusions when the sessions are GPU sessions."""
    out = read_exclusion_file(EXCLUSIONS)
    if os.environ.get("GRAPHD_DEVICE", "").lower() == "gpu":
        out.update(read_exclusion_file(GPU_EXCLUSIONS))
    return out


def read_exclusion_file(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, reason = line.partition(":")
            out[key.strip()] = reason.strip()
    return out


# Ops only training or quantisation uses (issue 4 allows excluding them, with reason).
TRAINING_OR_QUANTISATION = ("ai.onnx.preview.training.", "training_mode=true")


def exclusion_reason(reason):
    """The reason written to exclusions.txt: the error, labelled when it is a
    training/quantisation-only op."""
    if any(op in reason for op in TRAINING_OR_QUANTISATION):
        return "training/quantisation only: " + reason
    return reason


def run_case(client, directory):
    """None when the case passes, else the reason (one line)."""
    try:
        c = Case(directory)
        # One name for every case: each load replaces the last (a session holds at
        # most 256 graphs).
        fn = client.load_onnx(c.model, name="conformance_case")
        for inputs, outputs in c.data_sets:
            inputs, outputs, bf16 = declared_bfloat16(fn, inputs, outputs)
            assert_outputs_close(fn(*inputs), outputs, c.name, bf16)
        return None
    except AssertionError as e:
        text = str(e).strip().splitlines()
        return "wrong result: " + (text[0] if text else "mismatch")
    except graphd.errors.OpError as e:
        return "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    except Exception as e:  # noqa: BLE001 - data the test harness cannot read, etc.
        return "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")


def test_onnx_backend_suites(target):
    if not os.path.isdir(os.path.join(TESTDATA, "node")):
        pytest.skip("no ONNX backend test data at %s (Debian's libonnx-testdata, or GRAPHD_ONNX_TESTDATA)" % TESTDATA)
    exclusions = read_exclusions()
    failures, stale, lines, all_failures = [], [], [], {}
    for suite in SUITES:
        passed = failed = excluded = 0
        # A session per suite, so one suite's graphs do not pile up in another's.
        with graphd.connect(target) as client:
            for directory in sorted(glob.glob(os.path.join(TESTDATA, suite, "test_*"))):
                key = "%s/%s" % (suite, os.path.basename(directory))
                reason = run_case(client, directory)
                if reason is None:
                    passed += 1
                    if key in exclusions:
                        stale.append(key)
                    continue
                all_failures[key] = reason
                if key in exclusions:
                    excluded += 1
                else:
                    failed += 1
                    failures.append("%s: %s" % (key, reason))
        lines.append("%-18s %d passed, %d failed, %d excluded" % (suite, passed, failed, excluded))
    print("\nONNX backend suites:\n  " + "\n  ".join(lines))
    if stale:
        print("excluded but now passing (remove from exclusions.txt):\n  " + "\n  ".join(stale))
    if os.environ.get("GRAPHD_ONNX_WRITE_EXCLUSIONS") and os.environ.get("GRAPHD_DEVICE", "").lower() == "gpu":
        # GPU sessions: only the failures the CPU does not have go to the GPU file.
        cpu_excluded = read_exclusion_file(EXCLUSIONS)
        with open(GPU_EXCLUSIONS, "w", encoding="utf-8") as f:
            f.write("# ONNX backend tests that fail only in GPU sessions (GRAPHD_DEVICE=gpu), in addition to\n"
                    "# exclusions.txt: 'suite/test: reason'. Regenerated with GRAPHD_ONNX_WRITE_EXCLUSIONS=1\n"
                    "# GRAPHD_DEVICE=gpu on a GPU machine; give each a real reason.\n")
            for key in sorted(k for k in all_failures if k not in cpu_excluded):
                f.write("%s: %s\n" % (key, exclusion_reason(all_failures[key]).replace("\n", " ")[:240]))
        return
    if os.environ.get("GRAPHD_ONNX_WRITE_EXCLUSIONS"):
        with open(EXCLUSIONS, "w", encoding="utf-8") as f:
            f.write("# ONNX backend tests graphd does not pass yet: 'suite/test: reason'.\n"
                    "# Read by tests/integration/test_onnx_conformance.py; a listed test may fail,\n"
                    "# any other failure fails the run. Regenerate with GRAPHD_ONNX_WRITE_EXCLUSIONS=1.\n")
            for key in sorted(all_failures):
                f.write("%s: %s\n" % (key, exclusion_reason(all_failures[key]).replace("\n", " ")[:240]))
        return
    assert not failures, "%d ONNX tests failed that are not excluded:\n%s" % (len(failures), "\n".join(failures))
