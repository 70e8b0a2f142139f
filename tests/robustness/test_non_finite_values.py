"""NaN, infinities and out-of-range numbers where integers are needed (issue 17): C++
leaves float-to-integer conversion of such values undefined (UBSan found one in Cast
through the ONNX fuzzer). Through the source path Python's builtins raise what Python
raises, integer attributes keep their exact values (no detour through a double), and
through ONNX every such value is a clear error or a defined result; the server and a
neighbour session are unharmed."""

import os
import sys

import numpy as np
import pytest

import graphd

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from onnx_helpers import onnx_pb2  # noqa: E402

FLOAT, INT32, INT64 = 1, 6, 7

# (expression, the Python exception, words of its message)
PYTHON_ERRORS = [
    ("int(1e20)", "OverflowError", "int64"),
    ("int(-1e19)", "OverflowError", "int64"),
    ("int(float('inf'))", "OverflowError", "infinity"),
    ("int(float('-inf'))", "OverflowError", "infinity"),
    ("int(float('nan'))", "ValueError", "NaN"),
    ("round(float('nan'))", "ValueError", "NaN"),
    ("round(float('inf'))", "OverflowError", "infinity"),
    ("round(1e300)", "OverflowError", "int64"),
    ("int(tf.constant(1e20))", "OverflowError", "int64"),
    ("int(tf.constant(float('nan')))", "ValueError", "NaN"),
    ("tf.pad(tf.constant([1, 2]), [[1, 0]], constant_values=2.5)", "TypeError", "not an integer"),
    ("tf.pad(tf.constant([1, 2]), [[1, 0]], constant_values=float('nan'))", "TypeError", "not an integer"),
    ("tf.pad(tf.constant([1, 2]), [[1, 0]], constant_values=1e30)", "TypeError", "not an integer"),
]


def _sources(expression):
    yield "eager", "import tensorflow as tf\nz = " + expression + "\n"
    yield "function", "import tensorflow as tf\n@tf.function\ndef f():\n    return " + expression + "\nz = f()\n"


@pytest.mark.parametrize("expression,exception,words", PYTHON_ERRORS)
def test_python_conversions_raise_as_python_does(expression, exception, words, module_server):
    with graphd.connect(module_server.target) as neighbour:
        keeper = neighbour.load_module("import tensorflow as tf\nv = tf.Variable([1.0, 2.0])\n"
                                       "@tf.function\ndef read():\n    return v + 0.0\n")
        for where, source in _sources(expression):
            if where == "function" and expression.startswith("int(tf."):
                continue  # int() of a traced tensor is a TypeError, as in TensorFlow
            with graphd.connect(module_server.target) as c:
                with pytest.raises(graphd.errors.OpError) as e:
                    c.load_module(source)
                # The client raises the Python exception class too (an OpError subclass).
                assert exception in [k.__name__ for k in type(e.value).__mro__], (where, repr(e.value))
                assert words in str(e.value), (where, str(e.value))
                assert c.load_module("import tensorflow as tf\n@tf.function\ndef one():\n"
                                     "    return tf.constant(1)\n").one() == 1
        np.testing.assert_array_equal(keeper.read(), [1.0, 2.0])
    assert module_server.alive(), module_server.log()


def test_integer_values_stay_exact(module_server):
    big = 2**62 + 1  # not a double: rounding would give 2**62
    with graphd.connect(module_server.target) as c:
        m = c.load_module(
            "import tensorflow as tf\n"
            "@tf.function\n"
            "def pad():\n"
            "    return tf.pad(tf.constant([1], tf.int64), [[1, 0]], constant_values=%d)\n"
            "@tf.function\n"
            "def hot():\n"
            "    return tf.one_hot([1, 0], 2, on_value=%d, off_value=-%d, dtype=tf.int64)\n"
            "@tf.function\n"
            "def whole():\n"
            "    return tf.constant([int(-2.9), int(9.2e18), round(2.5), round(-3.5), round(7)], tf.int64)\n"
            "@tf.function\n"
            "def reshape():\n"
            "    return tf.reshape(tf.ones([4]), tf.constant([2**53 + 1, -1], tf.int64))\n" % (big, big, big))
        assert m.pad().tolist() == [big, 1]
        assert m.hot().tolist() == [[-big, big], [big, -big]]
        assert m.whole().tolist() == [-2, 9200000000000000000, 2, -4, 7]
        with pytest.raises(graphd.errors.InvalidArgumentError) as e:
            m.reshape()
        assert "9007199254740993" in e.value.message  # the dim itself, not a rounded one


# --- ONNX ----------------------------------------------------------------------------

def _node(op, inputs, outputs, **attrs):
    pb = onnx_pb2()
    n = pb.NodeProto(op_type=op, input=inputs, output=outputs, name=op)
    for key, value in attrs.items():
        a = n.attribute.add(name=key)
        if isinstance(value, str):
            a.type, a.s = pb.AttributeProto.STRING, value.encode()
        elif isinstance(value, float):
            a.type, a.f = pb.AttributeProto.FLOAT, value
        else:
            a.type, a.i = pb.AttributeProto.INT, value
    return n


def _tensor(name, array):
    pb = onnx_pb2()
    array = np.asarray(array)
    elem = {np.float32: FLOAT, np.int32: INT32, np.int64: INT64}[array.dtype.type]
    return pb.TensorProto(name=name, dims=array.shape, data_type=elem, raw_data=array.tobytes())


def _model(nodes, inputs, outputs, initializers=(), opset=13):
    """inputs/outputs: (name, elem type, dims)."""
    pb = onnx_pb2()
    m = pb.ModelProto(ir_version=7)
    m.opset_import.add(domain="", version=opset)
    g = m.graph
    g.name = "non_finite"
    for target, specs in ((g.input, inputs), (g.output, outputs)):
        for name, elem, dims in specs:
            t = target.add(name=name).type.tensor_type
            t.elem_type = elem
            t.shape.SetInParent()
            for d in dims:
                t.shape.dim.add(dim_value=d)
    g.node.extend(nodes)
    g.initializer.extend(initializers)
    return m.SerializeToString()


def _one_hot(depth, values, indices_elem=INT64):
    return _model([_node("OneHot", ["i", "depth", "values"], ["y"])], [("i", indices_elem, [2])],
                  [("y", values.dtype == np.float32 and FLOAT or INT64, [2, 2])],
                  [_tensor("depth", depth), _tensor("values", values)], opset=11)


ONNX_ERRORS = {
    "one_hot_depth_nan": (_one_hot(np.array([np.nan], np.float32), np.array([0, 1], np.float32)), "depth"),
    "one_hot_depth_huge": (_one_hot(np.array([1e30], np.float32), np.array([0, 1], np.float32)), "depth"),
    "resize_scales_inf": (_model([_node("Resize", ["x", "roi", "scales"], ["y"])], [("x", FLOAT, [1, 1, 2, 2])],
                                 [("y", FLOAT, [1, 1, 4, 4])],
                                 [_tensor("roi", np.zeros([0], np.float32)),
                                  _tensor("scales", np.array([1, 1, np.inf, np.inf], np.float32))]),
                          "scales must be finite"),
    "resize_scales_huge": (_model([_node("Resize", ["x", "roi", "scales"], ["y"])], [("x", FLOAT, [1, 1, 2, 2])],
                                  [("y", FLOAT, [1, 1, 4, 4])],
                                  [_tensor("roi", np.zeros([0], np.float32)),
                                   _tensor("scales", np.array([1, 1, 3e38, 3e38], np.float32))]),
                           "does not fit in int64"),
}


@pytest.mark.parametrize("name", sorted(ONNX_ERRORS))
def test_onnx_non_finite_attributes_are_refused(name, module_server):
    model, words = ONNX_ERRORS[name]
    with graphd.connect(module_server.target) as c:
        with pytest.raises(graphd.errors.InvalidArgumentError) as e:
            fn = c.load_onnx(model)
            fn(np.array([[[[1, 2], [3, 4]]]], np.float32) if "resize" in name else np.array([1, 0], np.int64))
        assert words in e.value.message, e.value.message
    assert module_server.alive(), module_server.log()


def test_onnx_integer_values_stay_exact_and_bad_regions_fail(module_server):
    with graphd.connect(module_server.target) as c:
        # OneHot's int32 values reach an int32 output exactly (they used to pass
        # through a float attribute: 2147483647 became 2^31, then undefined).
        hot = c.load_onnx(_model([_node("OneHot", ["i", "depth", "values"], ["y"])], [("i", INT64, [2])],
                                 [("y", INT32, [2, 3])],
                                 [_tensor("depth", np.array([3], np.int64)),
                                  _tensor("values", np.array([-2147483648, 2147483647], np.int32))], opset=11))
        np.testing.assert_array_equal(hot(np.array([2, -1], np.int64)),
                                      [[-2147483648, -2147483648, 2147483647]] * 2)
        pad = c.load_onnx(_model([_node("Pad", ["x", "pads", "value"], ["y"])], [("x", INT64, [1])],
                                 [("y", INT64, [2])],
                                 [_tensor("pads", np.array([1, 0], np.int64)),
                                  _tensor("value", np.array(2**63 - 1, np.int64))]))
        np.testing.assert_array_equal(pad(np.array([5], np.int64)), [2**63 - 1, 5])
        # RoiAlign of a region far larger than its output grid: a clear error, no 1e58
        # samples.
        roi = c.load_onnx(_model([_node("RoiAlign", ["x", "rois", "idx"], ["y"])],
                                 [("x", FLOAT, [1, 1, 3, 3]), ("rois", FLOAT, [1, 4])], [("y", FLOAT, [1, 1, 1, 1])],
                                 [_tensor("idx", np.array([0], np.int64))], opset=16))
        image = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
        with pytest.raises(graphd.errors.InvalidArgumentError) as e:
            roi(image, np.array([[0, 0, 1e30, 1e30]], np.float32))
        assert "samples per output cell" in e.value.message
        with pytest.raises(graphd.errors.InvalidArgumentError) as e:
            roi(image, np.array([[0, 0, np.nan, 2]], np.float32))
        assert "not finite" in e.value.message
    assert module_server.alive(), module_server.log()


def test_onnx_cast_of_non_finite_floats_on_the_cpu(module_server):
    # What TensorFlow's CPU Cast gives (x86-64's conversion), not undefined behaviour.
    # A GPU session gives CUDA's saturating conversion, as TensorFlow's GPU kernel does
    # (NaN -> 0, 3e9 -> 2147483647: seen on an H100, 2026-11-26).
    with graphd.connect(module_server.target, device="cpu") as c:
        cast = c.load_onnx(_model([_node("Cast", ["x"], ["y"], to=INT32)], [("x", FLOAT, [5])], [("y", INT32, [5])]))
        np.testing.assert_array_equal(cast(np.array([np.nan, np.inf, -np.inf, 3e9, -7.9], np.float32)),
                                      [-2**31, -2**31, -2**31, -2**31, -7])
    assert module_server.alive(), module_server.log()


def test_integer_overflow_wraps_as_tensorflow(module_server):
    # int32/int64 tensor arithmetic past the type's range wraps (two's complement), as
    # TensorFlow's and numpy's kernels do; it was undefined (the source fuzzer's Collatz
    # loop overflowed 3 * a + 2, and UBSan stopped the server).
    with graphd.connect(module_server.target, device="cpu") as c:
        m = c.load_module(
            "import tensorflow as tf\n"
            "@tf.function\n"
            "def f(a):\n"
            "    i = tf.constant(0)\n"
            "    while i < 3:\n"
            "        a = 3 * a + 2\n"
            "        i += 1\n"
            "    return a, -a, tf.reduce_sum(tf.fill([3], a)), tf.math.cumsum(tf.fill([2], a * a))\n"
            "eager = 3 * tf.constant(1205308187) + 2\n"
            "@tf.function\n"
            "def read_eager():\n"
            "    return eager\n")
        a = np.array(1205308187, np.int32)
        with np.errstate(over="ignore"):
            want = a
            for _ in range(3):
                want = np.int32(3) * want + np.int32(2)
            got = m.f(a)
            np.testing.assert_array_equal(got[0], want)
            np.testing.assert_array_equal(got[1], -want)
            np.testing.assert_array_equal(got[2], np.sum(np.full(3, want, np.int32), dtype=np.int32))
            np.testing.assert_array_equal(got[3], np.cumsum(np.full(2, want * want, np.int32), dtype=np.int32))
            np.testing.assert_array_equal(m.read_eager(), np.int32(3) * a + np.int32(2))
    assert module_server.alive(), module_server.log()
