"""Text that is not UTF-8 never reaches graphd's replies (issue 17, found by the requests
fuzzer): onnx.proto is proto2, whose parser does not check strings, so a model could
name its graph "\\xff" and LoadGraph answered with that name in a proto3 string field
the client could not parse. ONNX models with such strings are refused naming the field;
error messages quoting a client's bytes (string tensors) carry U+FFFD instead."""

import os
import sys

import numpy as np
import pytest

import graphd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from onnx_helpers import onnx_pb2  # noqa: E402

FLOAT, STRING = 1, 8


def _identity_model(elem=FLOAT, bad_graph_name=False):
    pb = onnx_pb2()
    m = pb.ModelProto(ir_version=7)
    m.opset_import.add(domain="", version=13)
    g = m.graph
    g.name = "graph_name"
    for target, name in ((g.input, "x"), (g.output, "y")):
        t = target.add(name=name).type.tensor_type
        t.elem_type = elem
        t.shape.dim.add(dim_value=2)
    if elem == STRING:  # string -> float
        n = g.node.add(op_type="Cast", input=["x"], output=["y"], name="n")
        n.attribute.add(name="to", type=pb.AttributeProto.INT, i=FLOAT)
        g.output[0].type.tensor_type.elem_type = FLOAT
    else:
        g.node.add(op_type="Identity", input=["x"], output=["y"], name="n")
    data = m.SerializeToString()
    if bad_graph_name:
        # Python's protobuf refuses to set such a string, but an ONNX file (proto2) may
        # hold one: patch the bytes, keeping the length.
        data = data.replace(b"graph_name", b"graph\xff\xfeame", 1)
    return data


def test_onnx_names_that_are_not_utf8_are_refused(module_server):
    model = _identity_model(bad_graph_name=True)
    with graphd.connect(module_server.target) as c:
        with pytest.raises(graphd.errors.InvalidArgumentError) as e:
            c.load_onnx(model)
        assert "graph.name" in e.value.message and "UTF-8" in e.value.message, e.value.message
        # The session goes on; a good model loads and runs.
        good = _identity_model()
        np.testing.assert_array_equal(c.load_onnx(good)(np.array([1, 2], np.float32)), [1, 2])
    assert module_server.alive(), module_server.log()


def test_errors_quoting_bytes_that_are_not_utf8_still_parse(module_server):
    model = _identity_model(elem=STRING)
    with graphd.connect(module_server.target, device="cpu") as c:
        fn = c.load_onnx(model)
        np.testing.assert_array_equal(fn(np.array([b"1.5", b"-2"], dtype=object)), [1.5, -2])
        with pytest.raises(graphd.errors.InvalidArgumentError) as e:
            fn(np.array([b"\xff\xfe1", b"2"], dtype=object))
        assert "\ufffd\ufffd1" in e.value.message, e.value.message
        assert "cannot convert string" in e.value.message
    assert module_server.alive(), module_server.log()
