#!/usr/bin/env python3
"""make soak: a graphd under mixed load for a long time; its memory must stay flat.

  soak.py --build-dir build [--minutes 30] [--workers 4] [--csv build/bench/soak.csv]

Each worker loops over the kinds of work a shared server sees, in its own sessions:
  source     open a session, load a module, trace and call its functions, close
  onnx       load an ONNX model (Debian's backend test data) and call it
  tf1        a TF1 graph: extend a session, run it with feeds
  errors     bad source, bad shapes, unknown functions (each must fail with its error)
  cancel     a long loop called with a 50 ms deadline (must be DEADLINE_EXCEEDED)
and the server's resident memory (VmRSS) is sampled every 10 s into the CSV. It passes
when no well-formed request failed, every bad one failed the way it should, and RSS over
the last third of the run (the last 10 minutes of 30) stays within 5% of its minimum
there. Prints a summary (bench/README.md records one) and exits 1 when it fails.
"""

import argparse
import csv
import os
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, os.path.join(REPO, "bench"))

import numpy as np  # noqa: E402

import graphd  # noqa: E402
import graphd.v1 as tf1  # noqa: E402
import local_server  # noqa: E402

ONNX_MODEL = "/usr/share/libonnx-testdata/data/node/test_add/model.onnx"

SOURCE = """
import tensorflow as tf

@tf.function
def scale(x, n):
    total = tf.zeros_like(x)
    for i in tf.range(n):
        total += x * tf.cast(i, x.dtype)
    return total

@tf.function
def stats(x):
    return {"mean": tf.reduce_mean(x), "max": tf.reduce_max(x), "doubled": tf.reverse(x, [0]) * 2.0}

@tf.function
def spin(n):
    i = tf.constant(0)
    while i < n:
        i += 1
    return i
"""

BAD_SOURCE = "def f(:\n    return 1\n"


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.failures = []

    def ok(self, kind):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def fail(self, kind, what):
        with self.lock:
            self.failures.append("%s: %s" % (kind, what))


def work_source(target, rng):
    with graphd.connect(target, timeout=60) as c:
        mod = c.load_module(SOURCE)
        x = rng.standard_normal(int(rng.integers(1, 64))).astype(np.float32)
        out = mod.scale(x, 5)
        np.testing.assert_allclose(out, x * 10, rtol=1e-5, atol=1e-5)
        s = mod.stats(x)
        np.testing.assert_allclose(s["doubled"], x[::-1] * 2, rtol=1e-6)


def work_onnx(target, rng):
    with graphd.connect(target, timeout=60) as c:
        g = c.load_onnx(ONNX_MODEL)
        a = rng.standard_normal((3, 4, 5)).astype(np.float32)
        b = rng.standard_normal((3, 4, 5)).astype(np.float32)
        np.testing.assert_allclose(g(a, b), a + b, rtol=1e-6)


def work_tf1(target, rng):
    graph = tf1.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf1.float32, [None, 3], name="x")
        y = tf1.reduce_sum(tf1.matmul(x, tf1.constant(np.ones((3, 2), np.float32))), axis=1)
    with tf1.Session(target, graph=graph) as sess:
        feed = rng.standard_normal((4, 3)).astype(np.float32)
        np.testing.assert_allclose(sess.run(y, {x: feed}), feed.sum(axis=1) * 2, rtol=1e-5)


def expect_error(kind, fn, code):
    try:
        fn()
    except graphd.errors.OpError as e:
        if e.error_code != getattr(graphd.errors, code):
            raise AssertionError("%s: expected %s, got code %s: %s" % (kind, code, e.error_code, e))
        return
    raise AssertionError("%s: expected %s, got no error" % (kind, code))


def work_errors(target, rng):
    with graphd.connect(target, timeout=60) as c:
        expect_error("syntax error", lambda: c.load_module(BAD_SOURCE), "INVALID_ARGUMENT")
        mod = c.load_module(SOURCE)
        expect_error("rank mismatch", lambda: mod.stats(np.float32(1.0)), "INVALID_ARGUMENT")
        g = c.load_onnx(ONNX_MODEL)
        expect_error("wrong input shape", lambda: g(np.zeros(2, np.float32), np.zeros(3, np.float32)),
                     "INVALID_ARGUMENT")


def work_cancel(target, rng):
    with graphd.connect(target, timeout=60) as c:
        mod = c.load_module(SOURCE)
        expect_error("deadline", lambda: mod.spin(10 ** 9, _timeout=0.05), "DEADLINE_EXCEEDED")


WORK = [("source", work_source), ("onnx", work_onnx), ("tf1", work_tf1), ("errors", work_errors),
        ("cancel", work_cancel)]


def worker(index, target, stop, tally):
    rng = np.random.default_rng(index)
    n = index
    while not stop.is_set():
        kind, fn = WORK[n % len(WORK)]
        n += 1
        try:
            fn(target, rng)
            tally.ok(kind)
        except Exception as e:  # noqa: BLE001 (every failure is counted and reported)
            tally.fail(kind, "%s: %s" % (type(e).__name__, str(e)[:300]))


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--sample-seconds", type=float, default=10.0)
    ap.add_argument("--csv", default=None)
    args = ap.parse_args()
    csv_path = args.csv or os.path.join(args.build_dir, "bench", "soak.csv")
    os.makedirs(os.path.dirname(csv_path), exist_ok=True)
    log_path = os.path.join(os.path.dirname(csv_path), "soak-server.log")
    proc, target = local_server.start(os.path.join(args.build_dir, "bin", "graphd"),
                                      ["--audit-log", "off", "--log-level", "warn"], log_path=log_path)
    tally = Tally()
    stop = threading.Event()
    threads = [threading.Thread(target=worker, args=(i, target, stop, tally), daemon=True)
               for i in range(args.workers)]
    start = time.monotonic()
    samples = []
    for t in threads:
        t.start()
    try:
        end = start + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(min(args.sample_seconds, max(0.0, end - time.monotonic())))
            if proc.poll() is not None:
                tally.fail("server", "graphd exited with %s" % proc.returncode)
                break
            samples.append((time.monotonic() - start, rss_kib(proc.pid), sum(tally.counts.values())))
            print("soak: %6.0f s  rss %7.1f MiB  %d requests done, %d failed" % (
                samples[-1][0], samples[-1][1] / 1024, samples[-1][2], len(tally.failures)), flush=True)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
        local_server.stop(proc)
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seconds", "rss_kib", "work_items_done"])
        w.writerows(samples)

    tail = [s for s in samples if s[0] >= samples[-1][0] * 2 / 3] if samples else []
    low = min(s[1] for s in tail) if tail else 0
    high = max(s[1] for s in tail) if tail else 0
    growth = (high - low) / low if low else float("inf")
    print("soak: %g minutes, %d workers: %s" % (args.minutes, args.workers,
                                                  ", ".join("%s %d" % kv for kv in sorted(tally.counts.items()))))
    print("soak: RSS first sample %.1f MiB, last third %.1f..%.1f MiB (%.1f%%), failures %d; csv %s" % (
        samples[0][1] / 1024 if samples else 0, low / 1024, high / 1024, growth * 100, len(tally.failures), csv_path))
    for f in tally.failures[:20]:
        print("soak: FAILED " + f)
    passed = not tally.failures and growth <= 0.05
    print("soak: %s" % ("PASSED" if passed else "FAILED"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
