"""Deeply nested Python data in function source (issue 17, defect 2): a list nested
200000 levels deep used to crash the server when its session closed (recursive
destruction), and at 20000 levels str, print, == and returning it crashed it too.
Now destruction is iterative and every walk is bounded: RecursionError (as Python
raises) or an error naming the protocol's limit, the session and server unharmed."""

import pytest

import graphd

BUILD = ("import tensorflow as tf\n"
         "def nested(n):\n"
         "    x = []\n"
         "    for i in range(n):\n"
         "        x = [x]\n"
         "    return x\n")

SERVER_FLAGS = []


@pytest.mark.parametrize("depth", [20000, 200000])
def test_deep_values_are_destroyed_without_recursion(depth, module_server):
    with graphd.connect(module_server.target, timeout=120) as c:
        c.load_module(BUILD + "deep = nested(%d)\n" % depth
                      + "t = (1,)\nfor i in range(%d):\n    t = (t,)\n" % depth
                      + "d = {}\nfor i in range(%d):\n    d = {'k': d}\n" % depth
                      + "class Box:\n    pass\n"
                      + "b = Box()\nfor i in range(%d):\n    o = Box()\n    o.inner = b\n    b = o\n" % depth)
    # Closing the session destroyed them all.
    assert module_server.alive(), module_server.log()


@pytest.mark.parametrize("expression", ["deep == deep2", "deep in [deep2]", "[deep].count(deep2)",
                                        "{deep_t: 1}", "deep < deep2"])
def test_walks_of_deep_values_raise_recursion_error(expression, module_server):
    with graphd.connect(module_server.target, timeout=120) as c:
        with pytest.raises(graphd.errors.OpError) as e:
            c.load_module(BUILD + "deep = nested(20000)\ndeep2 = nested(20000)\n"
                          + "deep_t = (1,)\nfor i in range(20000):\n    deep_t = (deep_t,)\n"
                          + "z = " + expression + "\n")
        assert "RecursionError" in str(e.value) or "maximum recursion depth" in e.value.message
        # The session still works.
        assert c.load_module("import tensorflow as tf\n@tf.function\ndef one():\n    return tf.constant(1)\n").one() == 1
    assert module_server.alive(), module_server.log()


def test_printing_and_returning_deep_values(module_server):
    with graphd.connect(module_server.target, timeout=120) as c:
        m = c.load_module(BUILD + "deep = nested(20000)\nprint(deep)\ns = str(deep)\nr = repr(deep)\n"
                          + "def give():\n    return nested(20000)\n"
                          + "@tf.function\ndef back():\n    return tf.constant(1), nested(100)\n")
        with pytest.raises(graphd.errors.OpError) as e:
            m.back()
        assert "nested more than 64 levels deep" in e.value.message
    assert module_server.alive(), module_server.log()


def test_a_list_that_contains_itself(module_server):
    with graphd.connect(module_server.target, timeout=60) as c:
        with pytest.raises(graphd.errors.OpError) as e:
            c.load_module("a = []\na.append(a)\nb = []\nb.append(b)\nz = a == b\n")
        assert "maximum recursion depth" in e.value.message
        c.load_module("a = []\na.append(a)\ns = str(a)\n")  # printed with '...', as deep values are
    assert module_server.alive(), module_server.log()
