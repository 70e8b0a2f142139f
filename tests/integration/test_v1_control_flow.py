"""graphd.v1.cond and graphd.v1.while_loop through the real server: the Python
callables are traced into functions of the GraphDef's library and run by the
server's structured If/While runtime (Session.run and make_callable). Errors:
test_v1_control_flow_errors.py."""

import collections

import numpy as np

import graphd.v1 as tf


# -- cond -----------------------------------------------------------------------------
def test_cond_on_fed_predicate_runs_the_chosen_branch(target):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
    assert y.dtype == tf.float32 and tuple(y.shape) == (2,)
    with tf.Session(target) as sess:
        np.testing.assert_array_equal(sess.run(y, {p: True, x: [1, 2]}), [2, 4])
        np.testing.assert_array_equal(sess.run(y, {p: False, x: [1, 2]}), [0, 1])
        run = sess.make_callable(y, [p, x])
        np.testing.assert_array_equal(run(True, [3, 4]), [6, 8])
        np.testing.assert_array_equal(run(False, [3, 4]), [2, 3])


def test_cond_branches_are_functions_of_the_library(target):
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2), name="pick")
    gdef = tf.get_default_graph().as_graph_def()
    names = [f.name for f in gdef.library.function]
    assert names == ["pick_true", "pick_false"]
    node = [n for n in gdef.node if n.name == "pick"][0]
    assert node.op == "If"
    assert node.attr["then_branch"].func == "pick_true"
    assert node.attr["else_branch"].func == "pick_false"
    with tf.Session(target) as sess:
        assert sess.run(y, {p: True}) == 1
        assert sess.run(y, {p: False}) == 2


def test_cond_python_values_structures_and_shapes(target):
    p = tf.placeholder(tf.bool, [], name="p")
    v = tf.placeholder(tf.float32, [None], name="v")
    out = tf.cond(p, lambda: {"a": 1.0, "b": (v, tf.constant([1.0, 2.0, 3.0]))},
                  lambda: {"a": tf.constant(-1.0), "b": (v * 10.0, v)})
    assert sorted(out) == ["a", "b"] and isinstance(out["b"], tuple)
    assert tuple(out["b"][1].shape) == (None,)  # [3] in one branch, [?] in the other
    single = tf.cond(p, lambda: [tf.constant(5)], lambda: [tf.constant(6)])
    strict = tf.cond(p, lambda: [tf.constant(5)], lambda: [tf.constant(6)], strict=True)
    assert isinstance(single, tf.Tensor) and isinstance(strict, list)
    with tf.Session(target) as sess:
        got = sess.run(out, {p: True, v: [7.0]})
        assert got["a"] == 1.0
        np.testing.assert_array_equal(got["b"][0], [7.0])
        np.testing.assert_array_equal(got["b"][1], [1.0, 2.0, 3.0])
        got = sess.run(out, {p: False, v: [7.0, 8.0]})
        assert got["a"] == -1.0
        np.testing.assert_array_equal(got["b"][0], [70.0, 80.0])
        np.testing.assert_array_equal(got["b"][1], [7.0, 8.0])
        assert sess.run(single, {p: False}) == 6
        assert sess.run(strict, {p: True}) == [5]


def test_cond_captures_outer_tensors_and_variables(target):
    x = tf.placeholder(tf.int32, [], name="x")
    w = tf.Variable(100, name="w")
    scale = tf.constant(3, name="scale")
    y = tf.cond(x > 0, lambda: x * scale + w, lambda: w - x)
    # A branch that updates the variable: only when taken.
    bump = tf.cond(x > 5, lambda: w.assign_add(x), lambda: tf.identity(w.value()))
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {x: 2}) == 106
        assert sess.run(y, {x: -4}) == 104
        assert sess.run(bump, {x: 1}) == 100
        assert sess.run(w) == 100
        assert sess.run(bump, {x: 7}) == 107
        assert sess.run(w) == 107
        assert sess.run(y, {x: 1}) == 110  # reads the updated value


def test_nested_cond(target):
    x = tf.placeholder(tf.int32, [], name="x")
    ten = tf.constant(10, name="ten")

    def positive():
        # The inner branches capture `ten` (two graphs out) and `x`.
        return tf.cond(x > ten, lambda: x - ten, lambda: x + ten)

    y = tf.cond(x > 0, positive, lambda: -x)
    gdef = tf.get_default_graph().as_graph_def()
    assert len(gdef.library.function) == 4
    with tf.Session(target) as sess:
        assert sess.run(y, {x: 15}) == 5
        assert sess.run(y, {x: 4}) == 14
        assert sess.run(y, {x: -3}) == 3


def test_cond_added_after_the_session_started(target):
    x = tf.placeholder(tf.float32, [], name="x")
    doubled = x * 2.0
    with tf.Session(target) as sess:
        assert sess.run(doubled, {x: 2.0}) == 4.0
        # New nodes and functions go to the server with ExtendSession.
        y = tf.cond(x < 0.0, lambda: -doubled, lambda: doubled)
        assert sess.run(y, {x: -1.5}) == 3.0
        z = tf.cond(x < 0.0, lambda: y + 1.0, lambda: y - 1.0)
        assert sess.run(z, {x: 3.0}) == 5.0
    # A second session gets the whole graph, library included, at creation.
    with tf.Session(target) as sess:
        assert sess.run(z, {x: -3.0}) == 7.0


def test_cond_under_control_dependencies(target):
    w = tf.Variable(0, name="w")
    p = tf.placeholder(tf.bool, [], name="p")
    inc = w.assign_add(1)
    with tf.control_dependencies([inc]):
        y = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))

    def branch():
        with tf.control_dependencies([inc]):  # an outer op: lifted onto the If node
            return tf.constant(3)

    z = tf.cond(p, branch, lambda: tf.constant(4))
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {p: True}) == 1
        assert sess.run(w) == 1
        assert sess.run(z, {p: False}) == 4
        assert sess.run(w) == 2


# -- while_loop -------------------------------------------------------------------------
def test_while_loop_counter(target):
    i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
    assert isinstance(i, tf.Tensor) and i.dtype == tf.int32
    same = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], return_same_structure=True)
    assert isinstance(same, list)
    n = tf.placeholder(tf.int64, [], name="n")
    single = tf.while_loop(lambda k: k < n, lambda k: k + 2, tf.constant(0, tf.int64))
    with tf.Session(target) as sess:
        assert sess.run(i) == 10
        assert sess.run(same) == [10]
        assert sess.run(single, {n: 7}) == 8
        assert sess.run(single, {n: -1}) == 0  # no iteration


def test_while_loop_collatz_with_cond_inside(target):
    n = tf.placeholder(tf.int32, [], name="n")

    def body(x, steps):
        x = tf.cond(tf.equal(x % 2, 0), lambda: x // 2, lambda: 3 * x + 1)
        return x, steps + 1

    final, steps = tf.while_loop(lambda x, steps: x > 1, body, (n, 0))

    def collatz(v):
        count = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        return count

    with tf.Session(target) as sess:
        run = sess.make_callable([final, steps], [n])
        for start in (1, 6, 7, 27, 97):
            assert list(run(start)) == [1, collatz(start)]


def test_while_loop_captures_and_tuple_vars(target):
    limit = tf.placeholder(tf.float32, [], name="limit")
    step = tf.placeholder(tf.float32, [3], name="step")
    w = tf.Variable(np.float32([1.0, 1.0, 1.0]), name="w")

    def body(i, acc):
        return i + 1, acc + step * w  # captures step and the variable's value

    out = tf.while_loop(lambda i, acc: tf.reduce_sum(acc) < limit, body,
                        (tf.constant(0), tf.zeros([3])))
    assert isinstance(out, tuple) and len(out) == 2
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        i, acc = sess.run(out, {limit: 10.0, step: [1.0, 2.0, 0.5]})
        assert i == 3
        np.testing.assert_allclose(acc, [3.0, 6.0, 1.5])


def test_while_loop_nested_structures_and_namedtuples(target):
    State = collections.namedtuple("State", ["count", "pair"])
    start = State(count=tf.constant(0), pair=[tf.constant(1.0), tf.constant(2.0)])

    def body(state):
        a, b = state.pair
        return State(count=state.count + 1, pair=[b, a + b])

    out = tf.while_loop(lambda s: s.count < 5, body, [start])
    # Three tensors in one loop variable: TensorFlow 1 returns the list.
    assert isinstance(out, list) and len(out) == 1
    final = out[0]
    assert isinstance(final, State)
    with tf.Session(target) as sess:
        got = sess.run(final)
        assert got.count == 5
        assert list(got.pair) == [13.0, 21.0]


def test_while_loop_maximum_iterations_and_shape_invariants(target):
    x = tf.placeholder(tf.float32, [None], name="x")
    never_stops = tf.while_loop(lambda k: k >= 0, lambda k: k + 1, [0], maximum_iterations=4)
    limit = tf.placeholder(tf.int32, [], name="limit")
    capped = tf.while_loop(lambda k, v: k < 100, lambda k, v: (k + 1, v * 2.0), [0, x],
                           maximum_iterations=limit,
                           shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    assert tuple(capped[1].shape) == (None,)
    with tf.Session(target) as sess:
        assert sess.run(never_stops) == 4
        k, v = sess.run(capped, {x: [1.0, 3.0], limit: 3})
        assert k == 3
        np.testing.assert_array_equal(v, [8.0, 24.0])


def test_while_loop_updates_a_variable_each_iteration(target):
    total = tf.Variable(0, name="total")

    def body(i):
        with tf.control_dependencies([total.assign_add(i)]):
            return i + 1

    loop = tf.while_loop(lambda i: i <= 4, body, [1])
    with tf.Session(target) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(loop) == 5
        assert sess.run(total) == 1 + 2 + 3 + 4


def test_while_loop_inside_cond(target):
    p = tf.placeholder(tf.bool, [], name="p")
    n = tf.placeholder(tf.int32, [], name="n")

    def power_of_two():
        return tf.while_loop(lambda k, v: k < n, lambda k, v: (k + 1, v * 2), [0, 1])[1]

    y = tf.cond(p, power_of_two, lambda: n)
    with tf.Session(target) as sess:
        assert sess.run(y, {p: True, n: 10}) == 1024
        assert sess.run(y, {p: False, n: 10}) == 10


def test_print_runs_with_its_branch_or_iteration(target, capsys):
    import sys

    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.int32, [], name="x")

    def taken():
        tf.print("taken", x, output_stream=sys.stdout)
        return x + 1

    y = tf.cond(p, taken, lambda: x - 1)
    loop = tf.while_loop(lambda i: i < x, lambda i: [tf.print("i =", i, end=";"), i + 1][1], [0])
    top = tf.print("top:", tf.strings.join(["a", "b"], separator="-"),
                   tf.strings.length("h\u00e9", unit="UTF8_CHAR"))
    capsys.readouterr()
    with tf.Session(target) as sess:
        assert sess.run(y, {p: False, x: 5}) == 4
        assert capsys.readouterr() == ("", "")
        assert sess.run(y, {p: True, x: 5}) == 6
        assert capsys.readouterr() == ("taken 5\n", "")
        run = sess.make_callable(loop, [x])
        assert run(3) == 3
        assert capsys.readouterr() == ("", "i = 0;i = 1;i = 2;")
        sess.run(top)
        assert capsys.readouterr() == ("", "top: a-b 2\n")
