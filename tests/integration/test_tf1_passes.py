"""TF1 sess.run / make_callable and GraphDef functions get the pass pipeline (issue 14):
a model of MatMul + bias + ReLU layers and an elementwise chain, with weights in
variables and in constants, gives the same results on a server with every pass off
(--disable-passes) and on one with the defaults; with the defaults the passes rewrite
what runs (the log at --log-level trace shows the TF1 run's IR after the last pass
with fused MatMuls and a fused elementwise chain, and a GraphDef function's graph holds fused MatMuls), and
variables keep their TF1 semantics (initialised by running the initializer, written
by assign_add, read by later runs)."""

import re

import numpy as np

import graphd
import graphd.v1 as tf

ALL_PASSES = ("constant_folding,algebraic_simplification,cse,dce,layernorm_fusion,batchnorm_folding,conv_add_fusion,"
              "conv_activation_fusion,matmul_fusion,conv_layout,conv_input_scale,elementwise_fusion")


def mlp(use_variables):
    """(x, y, step, bump, init): x [?, 16] -> three dense layers -> y [?, 4]; `step` a
    variable counter that `bump` increments (None without variables)."""
    rng = np.random.default_rng(7)
    x = tf.placeholder(tf.float32, [None, 16], name="x")
    h = x
    for i, (n_in, n_out) in enumerate([(16, 32), (32, 32), (32, 4)]):
        w = (rng.standard_normal((n_in, n_out)) * 0.3).astype(np.float32)
        b = (rng.standard_normal((n_out,)) * 0.1).astype(np.float32)
        make = tf.Variable if use_variables else tf.constant
        h = tf.matmul(h, make(w, name="w%d" % i)) + make(b, name="b%d" % i)
        h = tf.nn.relu(h) if i < 2 else tf.tanh(h * 0.5 + 1.0) * 2.0 - 0.25
    y = tf.identity(h, name="y")
    if not use_variables:
        return x, y, None, None, None
    step = tf.Variable(np.float32(0), name="step")
    bump = tf.assign_add(step, 1.0)
    return x, y, step, bump, tf.global_variables_initializer()


def run_model(target, use_variables, rows):
    with tf.Graph().as_default():
        x, y, step, bump, init = mlp(use_variables)
        X = np.random.default_rng(rows).standard_normal((rows, 16)).astype(np.float32)
        with tf.Session(target) as sess:
            if init is not None:
                sess.run(init)
                sess.run(bump)
                sess.run(bump)
            out = sess.run(y, {x: X})
            call = sess.make_callable(y, feed_list=[x])
            np.testing.assert_array_equal(call(X), out)
            counted = sess.run(step) if step is not None else None
    return out, counted


def test_tf1_runs_agree_with_passes_off(start_server):
    on = start_server()
    off = start_server("--disable-passes", ALL_PASSES)
    for use_variables in (False, True):
        for rows in (1, 5):
            got, count = run_model(on.target, use_variables, rows)
            want, count_off = run_model(off.target, use_variables, rows)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            assert count == count_off == (2.0 if use_variables else None)


def test_tf1_run_is_optimised(start_server):
    server = start_server("--log-level", "trace")
    run_model(server.target, False, 3)
    log = server.log(limit=2_000_000)
    entries = re.split(r"\n(?=\d{4}-\d\d-\d\dT)", log)  # one per log line (a dump spans many)
    dumps = [e for e in entries if "IR of run (" in e]
    assert any("IR of run (input)" in e for e in dumps), log[-4000:]
    final = dumps[-1]  # after the last pass
    assert final.count('activation="Relu"') == 2, final
    assert "FusedElementwise" in final, final


def graphdef_function(target):
    with tf.Graph().as_default() as g:
        x, y, _, _, _ = mlp(False)
        with graphd.connect(target) as client:
            fn = client.load_graph(g, outputs=[y], inputs=[x], name="mlp")
            X = np.random.default_rng(11).standard_normal((4, 16)).astype(np.float32)
            out = np.asarray(fn(X))
            ops = [(n.op, dict(n.attr)) for n in fn.graph_def()[0].node]
    return out, ops


def test_graphdef_function_is_optimised_and_agrees(start_server):
    got, ops = graphdef_function(start_server().target)
    want, ops_off = graphdef_function(start_server("--disable-passes", ALL_PASSES).target)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    fused = [op for op, attrs in ops if op == "MatMul" and "activation" in attrs]
    assert len(fused) == 2, ops
    assert not [op for op, attrs in ops_off if op == "MatMul" and "activation" in attrs]
