"""Seed 002 (how myadd is compiled) through the real server; see test_seed_000_001.py."""


from seed_helpers import S, load

# =====================================================================================
# Seed 002 ("Autograph": how myadd is compiled; the code is flattened on single lines
# in the article and restored here).
# =====================================================================================

MYADD_002 = '''
import tensorflow as tf
import numpy as np

@tf.function(autograph=True)
def myadd(a,b):
    for i in tf.range(3):
        tf.print(i)
    print("tracing")
    return a + b
'''

MYADD_002_SCRIPT = MYADD_002 + '''
print("=== first")
print(myadd(tf.constant("hello"), tf.constant("world")))
print("=== second")
print(myadd(tf.constant("hello"), tf.constant("world")))
'''


# seed 002, lines 5-6: compiled to a static graph on the first call ("tracing" once),
# tf.print runs on every call (0 1 2 twice); the result is b'helloworld'.
def test_002_l005_myadd_first_and_second_call(client, capsys):
    mod = load(client, MYADD_002, "seed002_l005a.py")
    capsys.readouterr()
    assert mod.myadd(S(b"hello"), S(b"world")) == b"helloworld"
    assert mod.myadd(S(b"hello"), S(b"world")) == b"helloworld"
    captured = capsys.readouterr()
    assert captured.out == "tracing\n"
    assert captured.err == "0\n1\n2\n" * 2
    assert mod.myadd.experimental_get_tracing_count() == 1

    load(client, MYADD_002_SCRIPT, "seed002_l005b.py")
    captured = capsys.readouterr()
    assert captured.out == ("=== first\n"
                            "tracing\n"
                            "tf.Tensor(b'helloworld', shape=(), dtype=string)\n"
                            "=== second\n"
                            "tf.Tensor(b'helloworld', shape=(), dtype=string)\n")
    assert captured.err == "0\n1\n2\n" * 2


MYADD_002_TFRANGE = '''
import tensorflow as tf

@tf.function(autograph=True)
def myadd(a,b):
    for i in tf.range(3):
        tf.print(i)
    print("tracing")
    return a + b

myadd(tf.constant("hello"), tf.constant("world"))

# (what the article looks at in TensorBoard: tf.range is one while_loop in the graph)
nodes = myadd.get_concrete_function(tf.constant("hello"), tf.constant("world")).graph.as_graph_def().node
print(any(node.name == 'while' for node in nodes))
'''


# seed 002, line 25: tf.range becomes a while_loop: "tracing" once, then 0 1 2.
# Left out: tf.summary.create_file_writer / trace_on / trace_export (writing the graph
# for TensorBoard: file I/O, outside graphd's scope); the graph's while loop the article
# sees in TensorBoard is checked through get_concrete_function(...).graph instead.
def test_002_l025_tf_range_is_one_while_loop(client, capsys):
    capsys.readouterr()
    mod = load(client, MYADD_002, "seed002_l025a.py")
    assert mod.myadd(S(b"hello"), S(b"world")) == b"helloworld"
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" and captured.err == "0\n1\n2\n"
    assert "ag__.for_stmt(tf.range(3)" in mod.myadd.to_code()

    load(client, MYADD_002_TFRANGE, "seed002_l025b.py")
    captured = capsys.readouterr()
    assert captured.out == "tracing\nTrue\n"
    assert captured.err == "0\n1\n2\n"


MYADD_002_PYRANGE = '''
import tensorflow as tf

@tf.function(autograph=True)
def myadd(a,b):
    if True:
        for i in range(3):
            tf.print(i)
            print("tracing")
    return a + b
'''

MYADD_002_PYRANGE_SCRIPT = MYADD_002_PYRANGE + '''
myadd(tf.constant("hello"), tf.constant("world"))

# (what the article looks at in TensorBoard: three PrintV2 ops, no while loop)
nodes = myadd.get_concrete_function(tf.constant("hello"), tf.constant("world")).graph.as_graph_def().node
print(sum(1 for node in nodes if node.op == 'PrintV2'), any(node.name == 'while' for node in nodes))
'''


# seed 002, line 29: Python range is unrolled: "tracing" three times while tracing, three
# PrintV2 ops printing 0 1 2. The flattened line is read with print("tracing") inside the
# for loop, the only reading that prints "tracing tracing tracing 0 1 2".
# Left out: the tf.summary / TensorBoard lines (file I/O); the graph is inspected through
# get_concrete_function(...).graph instead.
def test_002_l029_python_range_is_unrolled(client, capsys):
    capsys.readouterr()
    mod = load(client, MYADD_002_PYRANGE, "seed002_l029a.py")
    assert mod.myadd(S(b"hello"), S(b"world")) == b"helloworld"
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" * 3 and captured.err == "0\n1\n2\n"
    assert mod.myadd(S(b"a"), S(b"b")) == b"ab"  # the unrolled prints run every call
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "0\n1\n2\n"

    load(client, MYADD_002_PYRANGE_SCRIPT, "seed002_l029b.py")
    captured = capsys.readouterr()
    assert captured.out == "tracing\n" * 3 + "3 False\n"
    assert captured.err == "0\n1\n2\n"


MYADD_002_DATA = '''
import tensorflow as tf

data = []
@tf.function(autograph=True)
def myadd(a,b, x):
    data.append(x)
    return a + b
'''

MYADD_002_DATA_SCRIPT = MYADD_002_DATA + '''
myadd(tf.constant("hello"), tf.constant("world"),1)
print(data)
myadd(tf.constant("hello"), tf.constant("world"),2)
print(data)
'''


# seed 002, line 35: a non-tensor argument retraces: data.append runs in each trace,
# printing [1] then [1, 2].
def test_002_l035_python_argument_retraces(client, capsys):
    # (get_data is itself traced once: a Python list it returns is the value at its trace,
    # so it is read once, after both calls.)
    mod = load(client, MYADD_002_DATA + "\ndef get_data():\n    return data\n", "seed002_l035a.py")
    assert mod.myadd(S(b"hello"), S(b"world"), 1) == b"helloworld"
    assert mod.myadd(S(b"hello"), S(b"world"), 2) == b"helloworld"
    assert mod.myadd.experimental_get_tracing_count() == 2
    assert mod.get_data() == [1, 2]

    capsys.readouterr()
    load(client, MYADD_002_DATA_SCRIPT, "seed002_l035b.py")
    assert capsys.readouterr().out == "[1]\n[1, 2]\n"
