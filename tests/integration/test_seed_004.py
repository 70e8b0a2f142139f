"""Seed 004 (how AutoGraph works) through the real server; see test_seed_000_001.py."""

import numpy as np
import pytest

from seed_helpers import S, load

# =====================================================================================
# Seed 004 (4-4, AutoGraph的机制原理).
# =====================================================================================

MYADD_004 = '''
import tensorflow as tf
import numpy as np 

@tf.function(autograph=True)
def myadd(a,b):
    for i in tf.range(3):
        tf.print(i)
    c = a+b
    print("tracing")
    return c
'''


# seed 004, line 31: defining the function does nothing but record it: nothing printed,
# no trace.
def test_004_l031_definition_traces_nothing(client, capsys):
    capsys.readouterr()
    mod = load(client, MYADD_004, "seed004_l031.py")
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert mod.myadd.experimental_get_tracing_count() == 0


# seed 004, line 50: the first call traces ("tracing") then runs the graph (0 1 2).
def test_004_l050_first_call_traces_then_runs(client, capsys):
    mod = load(client, MYADD_004, "seed004_l050a.py")
    capsys.readouterr()
    assert mod.myadd(S(b"hello"), S(b"world")) == b"helloworld"
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" and captured.err == "0\n1\n2\n"
    assert mod.myadd.experimental_get_tracing_count() == 1

    load(client, MYADD_004 + '\nmyadd(tf.constant("hello"),tf.constant("world"))\n', "seed004_l050b.py")
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" and captured.err == "0\n1\n2\n"


# seed 004, lines 73 and 93: what the first call amounts to in TensorFlow 1 (a tf.Graph
# with string placeholders, a tf.while_loop printing i, tf.strings.join under a control
# dependency on the loop, then sess.run with a feed_dict), written with graphd.v1, the
# TF1 client API. Building the graph prints "tracing"; running it prints 0 1 2 (the
# loop's tf.print, as the first call above; the prose says "1,2,3" but i is printed
# before it is incremented) and gives b"helloworld". Two details of the listing do not
# run in TensorFlow 1 either, and graphd.v1 rejects them as TF1 does: a single-variable
# while_loop returns the tensor itself, so the control dependency takes [loop], and
# feed values are Python/numpy values, not tf.constant tensors (both TypeError).
def _seed004_tf1_graph():
    import graphd.v1 as tf

    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(shape=[], dtype=tf.string)
        b = tf.placeholder(shape=[], dtype=tf.string)
        cond = lambda i: i < tf.constant(3)  # noqa: E731 (as in the article)

        def body(i):
            tf.print(i)
            return (i + 1)

        loop = tf.while_loop(cond, body, loop_vars=[0])
        with pytest.raises(TypeError):
            tf.control_dependencies(loop).__enter__()  # a tensor, not a list of ops
        with tf.control_dependencies([loop]):
            c = tf.strings.join([a, b])
        print("tracing")
    return g, a, b, c


def test_004_l073_tf1_graph_building_prints_tracing(capsys):
    capsys.readouterr()
    g, _, _, c = _seed004_tf1_graph()
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" and captured.err == ""
    assert c.dtype.name == "string"
    ops = [op.type for op in g.get_operations()]
    assert "While" in ops and "StringJoin" in ops
    library = g.as_graph_def().library.function
    body = [f for f in library if f.name.endswith("_body")][0]
    assert "PrintV2" in [n.op for n in body.node]


def test_004_l093_tf1_session_run_prints_the_loop(target, capsys):
    import graphd.v1 as tf

    g, a, b, c = _seed004_tf1_graph()
    capsys.readouterr()
    with tf.Session(target, graph=g) as sess:
        assert sess.run(c, feed_dict={a: "hello", b: "world"}) == b"helloworld"
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == "0\n1\n2\n"
        # Running the graph again only runs it: no "tracing", 0 1 2 again.
        assert sess.run(c, feed_dict={a: "good", b: "morning"}) == b"goodmorning"
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == "0\n1\n2\n"
        with pytest.raises(TypeError, match="cannot be a graphd Tensor"):
            with g.as_default():
                sess.run(c, feed_dict={a: tf.constant("hello"), b: tf.constant("world")})


# seed 004, line 108: a second call with the same input types only runs the graph: 0 1 2,
# no "tracing".
def test_004_l108_same_types_do_not_retrace(client, capsys):
    mod = load(client, MYADD_004, "seed004_l108a.py")
    mod.myadd(S(b"hello"), S(b"world"))
    capsys.readouterr()
    assert mod.myadd(S(b"good"), S(b"morning")) == b"goodmorning"
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "0\n1\n2\n"
    assert mod.myadd.experimental_get_tracing_count() == 1

    load(client, MYADD_004 + '''
myadd(tf.constant("hello"),tf.constant("world"))
myadd(tf.constant("good"),tf.constant("morning"))
''', "seed004_l108b.py")
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" and captured.err == "0\n1\n2\n" * 2


# seed 004, line 128: new input types trace again: "tracing", 0 1 2; 1 + 2 == 3.
def test_004_l128_new_types_retrace(client, capsys):
    mod = load(client, MYADD_004, "seed004_l128a.py")
    mod.myadd(S(b"hello"), S(b"world"))
    mod.myadd(S(b"good"), S(b"morning"))
    capsys.readouterr()
    out = mod.myadd(np.int32(1), np.int32(2))
    assert out.dtype == np.int32 and int(out) == 3
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" and captured.err == "0\n1\n2\n"
    assert mod.myadd.experimental_get_tracing_count() == 2

    load(client, MYADD_004 + '''
myadd(tf.constant("hello"),tf.constant("world"))
myadd(tf.constant("good"),tf.constant("morning"))
myadd(tf.constant(1),tf.constant(2))
''', "seed004_l128b.py")
    captured = capsys.readouterr()
    assert captured.out == "tracing\ntracing\n" and captured.err == "0\n1\n2\n" * 3


# seed 004, line 153: non-tensor arguments retrace on every new value: "tracing" and
# 0 1 2 for each call; Python strings add as Python strings, returned (as TensorFlow
# returns a tf.function's Python values) as a string tensor.
def test_004_l153_python_arguments_retrace(client, capsys):
    mod = load(client, MYADD_004, "seed004_l153a.py")
    capsys.readouterr()
    assert mod.myadd("hello", "world") == b"helloworld"
    assert mod.myadd("good", "morning") == b"goodmorning"
    captured = capsys.readouterr()
    assert captured.out == "tracing\ntracing\n"
    assert captured.err == "0\n1\n2\n" * 2
    assert mod.myadd.experimental_get_tracing_count() == 2

    load(client, MYADD_004 + '\nmyadd("hello","world")\nmyadd("good","morning")\n', "seed004_l153b.py")
    captured = capsys.readouterr()
    assert captured.out == "tracing\ntracing\n" and captured.err == "0\n1\n2\n" * 2
