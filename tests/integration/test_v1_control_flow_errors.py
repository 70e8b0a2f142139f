"""graphd.v1.cond / while_loop errors: mistakes caught while the graph is built
(client side, as TensorFlow raises them) and hand-made GraphDefs whose function
library is wrong (the server refuses them with InvalidArgument naming the node or
function, and the session keeps working)."""

import numpy as np
import pytest

import graphd.v1 as tf
from graphd.v1 import graph_pb2, tensor_pb2

import it_helpers as h

INVALID = tf.errors.InvalidArgumentError


# -- errors on the client ------------------------------------------------------------------
def test_branch_outputs_must_agree(target):
    p = tf.placeholder(tf.bool, [], name="p")
    with pytest.raises(TypeError, match="same number, type, and overall structure"):
        tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(1.0))
    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        tf.cond(p, lambda: (tf.constant(1), tf.constant(2)), lambda: tf.constant(1))
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        tf.cond(True, lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="pred must be a bool tensor"):
        tf.cond(tf.constant(1), lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="callable"):
        tf.cond(p, 1, lambda: 2)
    # Nothing half-built was left in the graph: a session runs it fine.
    y = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    with tf.Session(target) as sess:
        assert sess.run(y, {p: False}) == 2


def test_loop_bodies_must_keep_types():
    with pytest.raises(TypeError, match="enters the loop as int32 but body returns float32"):
        tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [0])
    with pytest.raises(ValueError, match="shape_invariants"):
        tf.while_loop(lambda v: tf.reduce_sum(v) < 3.0, lambda v: tf.reshape(v, [1, 2]),
                      [tf.zeros([2])])
    with pytest.raises(ValueError, match="body returned 1 values for 2 loop variables"):
        tf.while_loop(lambda a, b: a < 3, lambda a, b: a + 1, [0, 1])
    with pytest.raises(TypeError, match="cond must return a bool tensor"):
        tf.while_loop(lambda i: i, lambda i: i + 1, [0])


def test_tensors_of_a_body_cannot_leak_out():
    p = tf.placeholder(tf.bool, [], name="p")
    leaked = []

    def branch():
        t = tf.constant(1)
        leaked.append(t)
        return t

    tf.cond(p, branch, lambda: tf.constant(2))
    with pytest.raises(ValueError, match="used outside"):
        leaked[0] + 1


# -- errors on the server --------------------------------------------------------------------
def _bool_scalar_placeholder(name):
    return h.node(name, "Placeholder", dtype=graph_pb2.AttrValue(type=tensor_pb2.DT_BOOL),
                  shape=graph_pb2.AttrValue(shape=tensor_pb2.TensorShape()))


def _scalar_fn(name, value, dtype=np.int32):
    f = graph_pb2.FunctionDef(name=name)
    f.node.extend([h.const_node("c", dtype(value))])
    f.output_tensor.append("c:0")
    return f


def _if_node(name, pred, then_fn, else_fn):
    return h.node(name, "If", [pred], then_branch=graph_pb2.AttrValue(func=then_fn),
                  else_branch=graph_pb2.AttrValue(func=else_fn))


def _extend_fails(sess, gdef, *names, version=None):
    with pytest.raises(INVALID) as info:
        h.raw_extend(sess, gdef, version=version)
    for name in names:
        assert name in str(info.value), str(info.value)
    return info.value


def test_bad_function_references_are_refused_and_the_session_keeps_working(target):
    x = tf.placeholder(tf.float32, [], name="x")
    y = x + 1.0
    with tf.Session(target) as sess:
        assert sess.run(y, {x: 1.0}) == 2.0
        version = sess.graph_version
        lib = [_scalar_fn("one", 1), _scalar_fn("two", 2)]

        def gdef(nodes, functions=lib):
            g = h.graph_def(_bool_scalar_placeholder("hp"), *nodes)
            g.library.function.extend(functions)
            return g

        # An If naming a function that is nowhere.
        _extend_fails(sess, gdef([_if_node("bad_if", "hp", "one", "nowhere")]),
                      "bad_if", "nowhere")
        # A library function whose body names a missing function.
        inner = _scalar_fn("calls_missing", 0)
        inner.node.extend([_bool_scalar_placeholder("q")])
        caller = graph_pb2.FunctionDef(name="caller")
        caller.node.extend([h.const_node("t", np.bool_(True)),
                            _if_node("inner_if", "t", "missing_fn", "one")])
        caller.output_tensor.append("inner_if:0")
        _extend_fails(sess, gdef([], lib + [caller]), "caller", "inner_if", "missing_fn")
        # Branches whose results differ in dtype (the server checks too).
        _extend_fails(sess, gdef([_if_node("mixed_if", "hp", "one", "float_fn")],
                                 lib + [_scalar_fn("float_fn", 1.0, np.float32)]),
                      "mixed_if", "int32", "float32")
        # Branches of different arity.
        takes_arg = _scalar_fn("takes_arg", 3)
        takes_arg.input_name.append("a")
        takes_arg.input.add(dtype=tensor_pb2.DT_INT32)
        _extend_fails(sess, gdef([_if_node("arity_if", "hp", "one", "takes_arg")],
                                 lib + [takes_arg]), "arity_if", "takes_arg")
        # Functions calling each other in a cycle.
        f = graph_pb2.FunctionDef(name="f_cycle")
        f.node.extend([h.const_node("t", np.bool_(True)), _if_node("call", "t", "g_cycle",
                                                                   "g_cycle")])
        g = graph_pb2.FunctionDef(name="g_cycle")
        g.node.extend([h.const_node("t", np.bool_(True)), _if_node("call", "t", "f_cycle",
                                                                   "f_cycle")])
        _extend_fails(sess, gdef([], [f, g]), "cycle", "f_cycle", "g_cycle")
        # A Placeholder inside a function body; a duplicate function name.
        _extend_fails(sess, gdef([], [inner]), "calls_missing", "Placeholder")
        _extend_fails(sess, gdef([], lib + [_scalar_fn("one", 5)]), "one")

        # Nothing was added: the same library now imports, and the session runs.
        assert sess.graph_version == version
        h.raw_extend(sess, gdef([_if_node("good_if", "hp", "one", "two")]))
        assert sess.run("good_if:0", {"hp:0": True}) == 1
        assert sess.run("good_if:0", {"hp:0": False}) == 2
        assert sess.run(y, {x: 2.0}) == 3.0
        # The functions stay in the session's library for later requests...
        h.raw_extend(sess, h.graph_def(_if_node("later_if", "hp", "two", "one")),
                     version=version + 1)
        assert sess.run("later_if:0", {"hp:0": True}) == 2
        # ...and their names stay taken.
        taken = h.graph_def()
        taken.library.function.extend([_scalar_fn("two", 9)])
        _extend_fails(sess, taken, "duplicate function name 'two'", version=version + 2)
