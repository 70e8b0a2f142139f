"""Every registered gradient against central finite differences, through the server.

Each case is an expression of float64 tensors x (and y). The server computes
d/dx sum(expr * w) with a tf.GradientTape in a tf.function; the test computes the same
by central differences of the forward function, also run on the server. w is random
so that no gradient hides behind a symmetric sum. Shapes cover broadcasting and
empty tensors.
"""

import numpy as np
import pytest

import graphd

RNG = np.random.default_rng(18)


def pos(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def sym(*shape):
    return RNG.uniform(-1.0, 1.0, shape)


def away(*shape):
    """Values away from 0 (for kinks at 0: relu, abs, max)."""
    return RNG.choice([-1.0, 1.0], shape) * RNG.uniform(0.3, 1.5, shape)


def distinct(*shape):
    """Distinct values (max/min ties change the gradient)."""
    n = int(np.prod(shape))
    return (RNG.permutation(n).astype(np.float64) * 0.37 - 1.0 + RNG.uniform(0, 0.05, n)).reshape(shape)


# (name, expression of x [and y], inputs)
CASES = [
    # unary math
    ("abs", "tf.abs(x)", [away(2, 3)]),
    ("neg", "-x", [sym(4)]),
    ("square", "tf.square(x)", [sym(2, 3)]),
    ("exp", "tf.exp(x)", [sym(3)]),
    ("log", "tf.math.log(x)", [pos(3, 2)]),
    ("sqrt", "tf.sqrt(x)", [pos(4)]),
    ("rsqrt", "tf.math.rsqrt(x)", [pos(4)]),
    ("reciprocal", "tf.math.reciprocal(x)", [pos(3)]),
    ("sin", "tf.sin(x)", [sym(3)]),
    ("cos", "tf.cos(x)", [sym(3)]),
    ("tan", "tf.tan(x)", [sym(3)]),
    ("asin", "tf.asin(x * 0.8)", [sym(3)]),
    ("acos", "tf.acos(x * 0.8)", [sym(3)]),
    ("atan", "tf.atan(x)", [sym(3)]),
    ("sinh", "tf.sinh(x)", [sym(3)]),
    ("cosh", "tf.cosh(x)", [sym(3)]),
    ("asinh", "tf.asinh(x)", [sym(3)]),
    ("acosh", "tf.acosh(x + 1.5)", [pos(3)]),
    ("atanh", "tf.atanh(x * 0.8)", [sym(3)]),
    ("erf", "tf.math.erf(x)", [sym(3)]),
    ("sign", "tf.sign(x) * x", [away(3)]),
    # activations
    ("tanh", "tf.tanh(x)", [sym(2, 3)]),
    ("sigmoid", "tf.sigmoid(x)", [sym(2, 3)]),
    ("relu", "tf.nn.relu(x)", [away(2, 3)]),
    ("relu6", "tf.nn.relu6(x * 5.0)", [away(2, 3)]),
    ("softplus", "tf.nn.softplus(x)", [sym(3)]),
    ("softsign", "tf.nn.softsign(x)", [away(3)]),
    ("elu", "tf.nn.elu(x)", [away(3)]),
    ("leaky_relu", "tf.nn.leaky_relu(x)", [away(3)]),
    ("gelu", "tf.nn.gelu(x)", [sym(4)]),
    ("gelu_tanh", "tf.nn.gelu(x, approximate=True)", [sym(4)]),
    ("softmax", "tf.nn.softmax(x)", [sym(2, 4)]),
    ("log_softmax", "tf.nn.log_softmax(x)", [sym(2, 4)]),
    ("clip", "tf.clip_by_value(x, -0.5, 0.5)", [away(5)]),
    # binary, with broadcasting
    ("add_bcast", "x + y", [sym(2, 3), sym(3)]),
    ("sub_bcast", "x - y", [sym(2, 1), sym(1, 3)]),
    ("mul_bcast", "x * y", [sym(2, 3), sym(2, 1)]),
    ("mul_scalar", "x * y", [sym(2, 3), sym()]),
    ("div", "x / y", [sym(2, 3), pos(3)]),
    ("maximum", "tf.maximum(x, y)", [distinct(2, 3), distinct(3)]),
    ("minimum", "tf.minimum(x, y)", [distinct(2, 3), distinct(2, 1)]),
    ("pow", "tf.pow(x, y)", [pos(2, 3), sym(3)]),
    ("squared_difference", "tf.math.squared_difference(x, y)", [sym(3), sym(2, 3)]),
    ("add_empty", "x + y", [sym(0, 3), sym(3)]),
    # linear algebra
    ("matmul", "tf.matmul(x, y)", [sym(2, 3), sym(3, 4)]),
    ("matmul_ta", "tf.matmul(x, y, transpose_a=True)", [sym(3, 2), sym(3, 4)]),
    ("matmul_tb", "tf.matmul(x, y, transpose_b=True)", [sym(2, 3), sym(4, 3)]),
    ("matmul_tt", "tf.matmul(x, y, transpose_a=True, transpose_b=True)", [sym(3, 2), sym(4, 3)]),
    ("batch_matmul", "tf.matmul(x, y)", [sym(2, 2, 3), sym(3, 2)]),
    ("batch_matmul_adj", "tf.linalg.matmul(x, y, adjoint_b=True)", [sym(1, 2, 3), sym(2, 4, 3)]),
    # reductions
    ("sum_all", "tf.reduce_sum(x)", [sym(2, 3)]),
    ("sum_axis", "tf.reduce_sum(x, axis=1)", [sym(2, 3, 2)]),
    ("sum_keep", "tf.reduce_sum(x, axis=[0, 2], keepdims=True)", [sym(2, 3, 2)]),
    ("mean_axis", "tf.reduce_mean(x, axis=-1)", [sym(2, 3)]),
    ("max_axis", "tf.reduce_max(x, axis=0)", [distinct(3, 2)]),
    ("min_all", "tf.reduce_min(x)", [distinct(2, 3)]),
    ("sum_empty", "tf.reduce_sum(x, axis=0)", [sym(0, 2)]),
    # shapes and rearrangements
    ("identity", "tf.identity(x)", [sym(3)]),
    ("reshape", "tf.reshape(x, [3, 2])", [sym(2, 3)]),
    ("expand_dims", "tf.expand_dims(x, 1)", [sym(3)]),
    ("squeeze", "tf.squeeze(x)", [sym(3, 1)]),
    ("transpose", "tf.transpose(x, [2, 0, 1])", [sym(2, 3, 2)]),
    ("concat", "tf.concat([x, y, x], axis=1)", [sym(2, 1), sym(2, 3)]),
    ("stack", "tf.stack([x, y], axis=1)", [sym(3), sym(3)]),
    ("unstack", "tf.unstack(x, axis=1)[1] * 2.0 + tf.unstack(x, axis=1)[0]", [sym(2, 3)]),
    ("split", "tf.split(x, 3, axis=1)[2] - tf.split(x, 3, axis=1)[0]", [sym(2, 3)]),
    ("split_sizes", "tf.split(x, [1, 2], axis=0)[1]", [sym(3, 2)]),
    ("tile", "tf.tile(x, [2, 3])", [sym(2, 2)]),
    ("pad", "tf.pad(x, [[1, 0], [2, 1]])", [sym(2, 2)]),
    ("reverse", "tf.reverse(x, [1])", [sym(2, 3)]),
    ("broadcast_to", "tf.broadcast_to(x, [2, 3])", [sym(3)]),
    # indexing
    ("slice", "tf.slice(x, [1, 0], [2, 2])", [sym(3, 3)]),
    ("strided_step", "x[::2]", [sym(5)]),
    ("strided_reverse", "x[::-2, 1:]", [sym(5, 3)]),
    ("strided_shrink_newaxis", "x[1, None, :2]", [sym(3, 3)]),
    ("strided_ellipsis", "x[..., 1]", [sym(2, 2, 3)]),
    ("gather", "tf.gather(x, [2, 0, 2])", [sym(3, 2)]),
    ("gather_axis1", "tf.gather(x, [[1, 1], [0, 2]], axis=1)", [sym(2, 3)]),
    ("where", "tf.where(x > 0.0, x * y, y - x)", [away(2, 3), sym(3)]),
    # convolutions and pools (NHWC input, HWIO filter)
    ("conv2d_valid", "tf.nn.conv2d(x, y, 1, 'VALID')", [sym(2, 5, 4, 2), sym(3, 2, 2, 3)]),
    ("conv2d_same_stride", "tf.nn.conv2d(x, y, [1, 2, 2, 1], 'SAME')", [sym(1, 5, 6, 2), sym(3, 3, 2, 2)]),
    ("conv2d_dilated", "tf.nn.conv2d(x, y, 1, 'SAME', dilations=2)", [sym(1, 6, 5, 1), sym(2, 3, 1, 2)]),
    ("max_pool", "tf.nn.max_pool2d(x, 2, 2, 'VALID')", [distinct(1, 4, 4, 2)]),
    ("max_pool_same", "tf.nn.max_pool2d(x, 3, 2, 'SAME')", [distinct(2, 5, 5, 1)]),
    ("avg_pool_same", "tf.nn.avg_pool2d(x, 3, 2, 'SAME')", [sym(1, 5, 4, 2)]),
]


def make_source():
    lines = ["import tensorflow as tf", ""]
    for name, expr, inputs in CASES:
        params = "x, y" if len(inputs) == 2 else "x"
        lines += [
            "@tf.function",
            "def out_%s(%s):" % (name, params),
            "  return %s" % expr,
            "",
            "@tf.function",
            "def grad_%s(w, %s):" % (name, params),
            "  with tf.GradientTape() as tape:",
            "    tape.watch([%s])" % params,
            "    r = tf.reduce_sum((%s) * w)" % expr,
            "  return tape.gradient(r, [%s])" % params,
            "",
        ]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def mod(server):
    with graphd.connect(server.target) as client:
        yield client.load_module(make_source(), filename="gradcheck.py")


def numeric_gradient(f, inputs, w, eps=1e-6):
    grads = []
    for i, x in enumerate(inputs):
        g = np.zeros_like(x)
        for idx in np.ndindex(*x.shape):
            plus = [a.copy() for a in inputs]
            minus = [a.copy() for a in inputs]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            fp = np.sum(np.asarray(f(*plus)) * w)
            fm = np.sum(np.asarray(f(*minus)) * w)
            g[idx] = (fp - fm) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("name,expr,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(mod, name, expr, inputs):
    inputs = [np.asarray(a, np.float64) for a in inputs]
    f = getattr(mod, "out_" + name)
    out = np.asarray(f(*inputs))
    assert out.dtype == np.float64
    w = RNG.uniform(0.5, 1.5, out.shape)
    analytic = getattr(mod, "grad_" + name)(w, *inputs)
    numeric = numeric_gradient(f, inputs, w)
    assert len(analytic) == len(inputs)
    for a, n, x in zip(analytic, numeric, inputs):
        a = np.asarray(a)
        assert a.shape == x.shape, name
        np.testing.assert_allclose(a, n, rtol=1e-5, atol=1e-7, err_msg=name)


EXTRA = """
import tensorflow as tf

@tf.function
def stopped(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * tf.stop_gradient(x) + tf.stop_gradient(x * x)
  return tape.gradient(y, x)

@tf.function
def through_cast(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.cast(tf.cast(x, tf.float32) * 3.0, tf.float64))
    n = tf.reduce_sum(tf.cast(tf.cast(x, tf.int32), tf.float64))
  return tape.gradient([y, n], x)

@tf.function
def no_gradient(x):
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.cumsum(x)
  return tape.gradient(y, x)
"""


@pytest.fixture(scope="module")
def extra(server):
    with graphd.connect(server.target) as client:
        yield client.load_module(EXTRA, filename="gradextra.py")


def test_stop_gradient_blocks_its_path(extra):
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(extra.stopped(x), x)


def test_cast_passes_gradients_between_floats_only(extra):
    # float64 -> float32 -> float64 carries 3.0 per element; the int32 path adds none.
    np.testing.assert_allclose(extra.through_cast(np.array([0.5, 1.5])), [3.0, 3.0])


def test_op_without_gradient_is_a_lookup_error_naming_it(extra):
    with pytest.raises(LookupError) as info:
        extra.no_gradient(np.array([1.0, 2.0]))
    assert "no gradient is defined for op Cumsum" in str(info.value)
    assert "gradextra.py" in str(info.value)
    # The session goes on.
    np.testing.assert_allclose(extra.stopped(np.array([2.0])), [2.0])
