"""ONNX models through the real server: sess.load_onnx, calls with positional and
keyword inputs, models from Debian's libonnx-testdata against their expected outputs,
and bad models and bad inputs (clear errors; the session keeps working)."""

import numpy as np
import pytest

import graphd
from graphd import errors
from onnx_helpers import assert_outputs_close, case, onnx_pb2

# (suite, test) pairs expected to pass; the conformance runner covers the rest.
MODELS = [
    ("simple", "test_single_relu_model"),
    ("simple", "test_sign_model"),
    ("node", "test_add"),
    ("node", "test_add_bcast"),
    ("node", "test_mul"),
    ("node", "test_relu"),
    ("node", "test_sigmoid"),
    ("node", "test_matmul_2d"),
    ("node", "test_gemm_default_no_bias"),
    ("node", "test_gemm_all_attributes"),
    ("node", "test_conv_with_strides_padding"),
    ("node", "test_maxpool_2d_default"),
    ("node", "test_averagepool_2d_default"),
    ("node", "test_globalaveragepool"),
    ("node", "test_batchnorm_example"),
    ("node", "test_softmax_axis_1"),
    ("node", "test_reshape_reordered_all_dims"),
    ("node", "test_flatten_axis1"),
    ("node", "test_transpose_default"),
    ("node", "test_concat_2d_axis_0"),
    ("node", "test_unsqueeze_axis_0"),
    ("node", "test_squeeze"),
    ("node", "test_reduce_mean_default_axes_keepdims_example"),
    ("node", "test_slice"),
    ("pytorch-converted", "test_Conv2d"),
    ("pytorch-converted", "test_Linear"),
    ("pytorch-converted", "test_MaxPool2d"),
    ("pytorch-converted", "test_BatchNorm2d_eval"),
    ("pytorch-operator", "test_operator_basic"),
]


@pytest.mark.parametrize("suite,name", MODELS, ids=["%s/%s" % m for m in MODELS])
def test_model_matches_expected_outputs(client, suite, name):
    c = case(suite, name)
    fn = client.load_onnx(c.model)
    for inputs, outputs in c.data_sets:
        assert_outputs_close(fn(*inputs), outputs, "%s/%s" % (suite, name))


# --- small models built here ---------------------------------------------

def make_model(nodes, inputs, outputs, initializers=(), opset=13, ir_version=7):
    """inputs/outputs: (name, elem_type, dims) with None for a symbolic dim."""
    pb = onnx_pb2()
    m = pb.ModelProto(ir_version=ir_version)
    m.opset_import.add(domain="", version=opset)
    g = m.graph
    g.name = "test_graph"
    for target, values in ((g.input, inputs), (g.output, outputs)):
        for name, elem, dims in values:
            v = target.add(name=name)
            t = v.type.tensor_type
            t.elem_type = elem
            t.shape.SetInParent()
            for d in dims:
                if d is None:
                    t.shape.dim.add(dim_param="N")
                else:
                    t.shape.dim.add(dim_value=d)
    for n in nodes:
        g.node.add().CopyFrom(n)
    for t in initializers:
        g.initializer.add().CopyFrom(t)
    return m.SerializeToString()


def node(op, inputs, outputs, **attrs):
    pb = onnx_pb2()
    n = pb.NodeProto(op_type=op, input=inputs, output=outputs, name=op + "_" + outputs[0])
    for key, value in attrs.items():
        a = n.attribute.add(name=key)
        if isinstance(value, int):
            a.type, a.i = pb.AttributeProto.INT, value
        elif isinstance(value, float):
            a.type, a.f = pb.AttributeProto.FLOAT, value
        else:
            a.type = pb.AttributeProto.INTS
            a.ints.extend(value)
    return n


FLOAT, INT64 = 1, 7


def two_output_model():
    return make_model([node("Add", ["a", "b"], ["sum"]), node("Mul", ["a", "b"], ["prod"])],
                      [("a", FLOAT, [None, 3]), ("b", FLOAT, [None, 3])],
                      [("sum", FLOAT, [None, 3]), ("prod", FLOAT, [None, 3])])


def test_names_keywords_and_tuple_outputs(client):
    fn = client.load_onnx(two_output_model(), name="addmul")
    assert fn.name == "addmul"
    assert fn.input_names == ["a", "b"]
    assert fn.output_names == ["sum", "prod"]
    assert fn.inputs[0].shape == (None, 3)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full((2, 3), 2, np.float32)
    s, p = fn(a, b)
    np.testing.assert_array_equal(s, a + b)
    np.testing.assert_array_equal(p, a * b)
    s2, p2 = fn(b=b, a=a)
    np.testing.assert_array_equal(s2, a + b)
    # Another batch size is another specialisation of the same graph.
    s3, _ = fn(np.ones((5, 3), np.float32), np.ones((5, 3), np.float32))
    assert s3.shape == (5, 3)


def test_single_output_is_an_array(client):
    fn = client.load_onnx(make_model([node("Relu", ["x"], ["y"])], [("x", FLOAT, [4])], [("y", FLOAT, [4])]))
    assert fn.name == "test_graph"
    out = fn(np.array([-1, 0, 2, -3], np.float32))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [0, 0, 2, 0])


def test_nchw_conv_pool_chain(client):
    rng = np.random.default_rng(0)
    pb = onnx_pb2()
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    wt = pb.TensorProto(name="w", data_type=FLOAT, dims=w.shape, raw_data=w.tobytes())
    model = make_model([node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                        node("Relu", ["c"], ["r"]),
                        node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
                       [("x", FLOAT, [1, 2, 6, 6])], [("y", FLOAT, [1, 4, 3, 3])], [wt])
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    y = client.load_onnx(model)(x)
    # Reference: direct NCHW convolution in numpy.
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 4, 6, 6), np.float32)
    for i in range(6):
        for j in range(6):
            conv[0, :, i, j] = np.tensordot(w, xp[0, :, i:i + 3, j:j + 3], axes=([1, 2, 3], [0, 1, 2]))
    ref = np.maximum(conv, 0).reshape(1, 4, 3, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


def test_shape_arithmetic_folds_at_import(client):
    # Reshape's shape computed from Shape, Gather and Concat (as exporters write it)
    # is folded while importing, per input shape.
    pb = onnx_pb2()
    idx = pb.TensorProto(name="i0", data_type=INT64, dims=[1], int64_data=[0])
    minus = pb.TensorProto(name="m1", data_type=INT64, dims=[1], int64_data=[-1])
    model = make_model([node("Shape", ["x"], ["s"]), node("Gather", ["s", "i0"], ["n"]),
                        node("Concat", ["n", "m1"], ["shape"], axis=0), node("Reshape", ["x", "shape"], ["y"])],
                       [("x", FLOAT, [None, 2, 3])], [("y", FLOAT, [None, 6])], [idx, minus])
    fn = client.load_onnx(model)
    for batch in (1, 4):
        x = np.arange(batch * 6, dtype=np.float32).reshape(batch, 2, 3)
        np.testing.assert_array_equal(fn(x), x.reshape(batch, 6))


def test_shape_input_is_specialised_on_its_value(client):
    fn = client.load_onnx(make_model([node("Reshape", ["x", "shape"], ["y"])],
                                     [("x", FLOAT, [2, 3]), ("shape", INT64, [2])], [("y", FLOAT, [None, None])]))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert fn(x, np.array([3, 2], np.int64)).shape == (3, 2)
    assert fn(x, np.array([1, 6], np.int64)).shape == (1, 6)


def test_sessions_share_a_model(client, target):
    # The same bytes in two sessions: one parsed model; closing one session leaves
    # the other's graph working.
    model = two_output_model()
    fn = client.load_onnx(model, name="shared")
    other = graphd.connect(target)
    fn2 = other.load_onnx(model, name="shared")
    a = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(fn2(a, a)[0], a + a)
    other.close()
    np.testing.assert_array_equal(fn(a, a)[1], a * a)


# --- bad models and bad inputs ------------------------------------------

def check_session_still_works(client):
    fn = client.load_onnx(make_model([node("Neg", ["x"], ["y"])], [("x", FLOAT, [2])], [("y", FLOAT, [2])]),
                          name="still_ok")
    np.testing.assert_array_equal(fn(np.array([1, -2], np.float32)), [-1, 2])


def test_not_onnx(client):
    with pytest.raises(errors.InvalidArgumentError, match="not an ONNX model"):
        client.load_onnx(b"\x00\x01 this is not a model")
    check_session_still_works(client)


def test_checker_failure(client):
    bad = make_model([node("Relu", ["x", "x"], ["y"])], [("x", FLOAT, [2])], [("y", FLOAT, [2])])
    with pytest.raises(errors.InvalidArgumentError, match="ONNX checker"):
        client.load_onnx(bad)
    check_session_still_works(client)


def test_unsupported_op_names_op_and_opset(client):
    # Bernoulli draws random numbers: not supported.
    bad = make_model([node("Bernoulli", ["x"], ["y"])], [("x", FLOAT, [2, 2])], [("y", FLOAT, [2, 2])], opset=15, ir_version=8)
    with pytest.raises(errors.UnimplementedError, match=r"ONNX op 'Bernoulli' \(opset 15\) is not supported"):
        client.load_onnx(bad)
    check_session_still_works(client)


def test_unsupported_opset(client):
    bad = make_model([node("Relu", ["x"], ["y"])], [("x", FLOAT, [2])], [("y", FLOAT, [2])], opset=18)
    with pytest.raises(errors.UnimplementedError, match="opset 18"):
        client.load_onnx(bad)
    check_session_still_works(client)


def test_external_data_refused(client, tmp_path):
    pb = onnx_pb2()
    secret = tmp_path / "weights.bin"
    secret.write_bytes(np.ones(2, np.float32).tobytes())
    w = pb.TensorProto(name="w", data_type=FLOAT, dims=[2], data_location=pb.TensorProto.EXTERNAL)
    w.external_data.add(key="location", value=str(secret))
    bad = make_model([node("Add", ["x", "w"], ["y"])], [("x", FLOAT, [2])], [("y", FLOAT, [2])], [w])
    with pytest.raises(errors.InvalidArgumentError, match="external data"):
        client.load_onnx(bad)
    check_session_still_works(client)


def test_failed_load_keeps_the_previous_graph(client):
    fn = client.load_onnx(make_model([node("Abs", ["x"], ["y"])], [("x", FLOAT, [2])], [("y", FLOAT, [2])]),
                          name="keep")
    with pytest.raises(errors.UnimplementedError):
        client.load_onnx(make_model([node("Bernoulli", ["x"], ["y"])], [("x", FLOAT, [2, 2])], [("y", FLOAT, [2, 2])],
                                    opset=15, ir_version=8),
                         name="keep")
    np.testing.assert_array_equal(fn(np.array([-1, 2], np.float32)), [1, 2])


def test_graph_count_is_bounded(client):
    model = make_model([node("Neg", ["x"], ["y"])], [("x", FLOAT, [2])], [("y", FLOAT, [2])])
    for i in range(256):
        client.load_onnx(model, name="g%d" % i)
    with pytest.raises(errors.ResourceExhaustedError, match="at most 256 graphs"):
        client.load_onnx(model, name="one_too_many")
    fn = client.load_onnx(model, name="g0")  # replacing is fine
    np.testing.assert_array_equal(fn(np.array([1, 2], np.float32)), [-1, -2])


def test_bad_inputs(client):
    fn = client.load_onnx(two_output_model(), name="inputs")
    a = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="missing input 'b'"):
        fn(a)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        fn(a, a, a)
    with pytest.raises(TypeError, match="no input named 'c'"):
        fn(a, c=a)
    with pytest.raises(errors.InvalidArgumentError, match="input 'b' of graph 'inputs' must be float32, got int64"):
        fn(a, np.ones((2, 3), np.int64))
    with pytest.raises(errors.InvalidArgumentError, match=r"input 'a' of graph 'inputs' must have shape \[\?,3\]"):
        fn(np.ones((2, 4), np.float32), np.ones((2, 4), np.float32))
    # A raw request with the wrong number of inputs is refused by the server too.
    from graphd.v1 import session_pb2
    from graphd import _tensor
    req = session_pb2.CallGraphRequest(session_handle=client.session_handle, name="inputs")
    req.inputs.add().CopyFrom(_tensor.make_tensor_proto(a))
    with pytest.raises(errors.InvalidArgumentError, match="takes 2 inputs"):
        client.connection.session("CallGraph", req)
    with pytest.raises(errors.NotFoundError, match="no graph named 'nope'"):
        client.connection.session("CallGraph", session_pb2.CallGraphRequest(
            session_handle=client.session_handle, name="nope"))
    s, _ = fn(a, a)
    np.testing.assert_array_equal(s, a + a)


def conv_relu6_model():
    rng = np.random.default_rng(3)
    pb = onnx_pb2()
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    wt = pb.TensorProto(name="w", data_type=FLOAT, dims=w.shape, raw_data=w.tobytes())
    lo = pb.TensorProto(name="lo", data_type=FLOAT, dims=[], raw_data=np.float32(0).tobytes())
    hi = pb.TensorProto(name="hi", data_type=FLOAT, dims=[], raw_data=np.float32(6).tobytes())
    model = make_model([node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), node("Clip", ["c", "lo", "hi"], ["y"])],
                       [("x", FLOAT, [1, 2, 5, 5])], [("y", FLOAT, [1, 4, 5, 5])], [wt, lo, hi])
    return model, rng.standard_normal((1, 2, 5, 5)).astype(np.float32) * 3


def test_graph_passes_run_on_onnx_models_and_can_be_disabled(client, start_server):
    """The server's passes run on ONNX functions: Conv + Clip becomes one ConvND with
    the clip as a post-op, unless --disable-passes conv_activation_fusion."""
    model, x = conv_relu6_model()
    fused = client.load_onnx(model, name="fused")
    y = fused(x)
    assert "Maximum" not in fused.to_dot() and "Minimum" not in fused.to_dot()
    server = start_server("--disable-passes", "conv_activation_fusion,elementwise_fusion")  # keeps the clip unfused
    with graphd.connect(server.target) as other:
        plain = other.load_onnx(model, name="plain")
        np.testing.assert_allclose(plain(x), y, rtol=1e-6, atol=1e-6)
        assert "Maximum" in plain.to_dot() and "Minimum" in plain.to_dot()
    assert y.max() <= 6.0 and y.min() >= 0.0 and y.max() > 0.0
