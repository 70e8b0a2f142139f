"""Flattening fetch structures and rebuilding them from values."""

import collections

import pytest

import graphd.v1 as tf
from graphd.v1.fetches import FetchPlan

Pair = collections.namedtuple("Pair", ["first", "second"])


def test_nested_structures_round_trip():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        init = tf.no_op(name="init")
        v = tf.Variable(3.0, name="v")
    fetches = {"a": a, "list": [b, "a:0", init], "tuple": (a, ("b:0",)),
               "pair": Pair(first=v, second="init"),
               "od": collections.OrderedDict([("z", b), ("y", a)])}
    plan = FetchPlan(g, fetches)
    assert plan.tensor_names == ["a:0", "b:0", "v:0"]  # unique, first-seen order
    assert plan.target_names == ["init"]
    values = ["A", "B", "V"]
    out = plan.build(values)
    assert out == {"a": "A", "list": ["B", "A", None], "tuple": ("A", ("B",)),
                   "pair": Pair("V", None), "od": {"z": "B", "y": "A"}}
    assert type(out["pair"]) is Pair
    assert type(out["od"]) is collections.OrderedDict and list(out["od"]) == ["z", "y"]
    assert type(out["tuple"]) is tuple and type(out["list"]) is list


def test_single_elements():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1, name="a")
    assert FetchPlan(g, a).build([5]) == 5
    plan = FetchPlan(g, a.op)
    assert plan.tensor_names == [] and plan.target_names == ["a"]
    assert plan.build([]) is None
    plan = FetchPlan(g, "unknown:3")  # names are not checked locally
    assert plan.tensor_names == ["unknown:3"]
    assert FetchPlan(g, []).build([]) == []
    assert FetchPlan(g, {}).build([]) == {}
    dd = collections.defaultdict(list, {"k": a})
    out = FetchPlan(g, dd).build([1])
    assert isinstance(out, collections.defaultdict) and out["k"] == 1


def test_invalid_fetches():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1, name="a")
    with pytest.raises(TypeError):
        FetchPlan(g, None)
    with pytest.raises(TypeError):
        FetchPlan(g, [a, 3])
    with pytest.raises(ValueError):
        FetchPlan(tf.Graph(), a)  # from another graph
    with pytest.raises(ValueError):
        FetchPlan(g, a).build([1, 2])
