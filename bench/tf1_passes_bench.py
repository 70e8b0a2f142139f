"""TF1 sess.run with and without the pass pipeline (issue 14): the same graphd binary
started twice, once with the defaults and once with every pass off (--disable-passes),
runs an MLP (x [batch, 256] -> 512 -> 512 -> 10, MatMul + bias + ReLU layers, weights
as variables) through the Python client's tf.Session; prints the server's execute p50
and the client's end-to-end p50 per batch size, and the ratio off / on.

    /usr/bin/python3 bench/tf1_passes_bench.py --graphd build/bin/graphd [--batches 1,64] [--iters 200]
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients", "python"))
import numpy as np  # noqa: E402

import graphd  # noqa: E402
import graphd.v1 as tf  # noqa: E402

sys.path.insert(0, HERE)
import local_server  # noqa: E402

ALL_PASSES = ("constant_folding,algebraic_simplification,cse,dce,layernorm_fusion,gelu_fusion,batchnorm_folding,"
              "conv_add_fusion,conv_activation_fusion,matmul_fusion,conv_layout,conv_input_scale,elementwise_fusion")


def measure(target, batch, iters):
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 256], name="x")
        h = x
        for i, (n_in, n_out) in enumerate([(256, 512), (512, 512), (512, 10)]):
            w = tf.Variable((rng.standard_normal((n_in, n_out)) * 0.05).astype(np.float32), name="w%d" % i)
            b = tf.Variable(np.zeros(n_out, np.float32), name="b%d" % i)
            h = tf.matmul(h, w) + b
            if i < 2:
                h = tf.nn.relu(h)
        X = rng.standard_normal((batch, 256)).astype(np.float32)
        with tf.Session(target) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                out = sess.run(h, {x: X})
            e2e, execute = [], []
            for _ in range(iters):
                t0 = time.perf_counter()
                sess.run(h, {x: X})
                e2e.append((time.perf_counter() - t0) * 1e6)
                execute.append(graphd.last_call_stats()["execute_us"])
    return statistics.median(e2e), statistics.median(execute), float(np.asarray(out, np.float64).sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphd", default=os.path.join(os.path.dirname(HERE), "build", "bin", "graphd"))
    ap.add_argument("--batches", default="1,64")
    ap.add_argument("--iters", type=int, default=200)
    args = ap.parse_args()
    rows = {}
    for label, flags in (("on", []), ("off", ["--disable-passes", ALL_PASSES])):
        proc, target = local_server.start(args.graphd, flags)
        try:
            for batch in [int(b) for b in args.batches.split(",")]:
                rows[(label, batch)] = measure(target, batch, args.iters)
        finally:
            local_server.stop(proc)
    print("| batch | execute p50 us, passes off | on | off / on | e2e p50 us, off | on | outputs agree |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for batch in [int(b) for b in args.batches.split(",")]:
        (e_on, x_on, s_on), (e_off, x_off, s_off) = rows[("on", batch)], rows[("off", batch)]
        agree = abs(s_on - s_off) <= 1e-4 * max(1.0, abs(s_off))
        print("| %d | %.0f | %.0f | %.2f | %.0f | %.0f | %s |" % (batch, x_off, x_on, x_off / x_on, e_off, e_on,
                                                                "yes" if agree else "NO"))


if __name__ == "__main__":
    main()
