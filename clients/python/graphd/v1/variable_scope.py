"""``tf.variable_scope``, ``tf.get_variable`` and the initializers (TensorFlow 1).

Initial values are computed on the client with numpy (a Const initial value), so
random initializers give other numbers than TensorFlow's for the same seed, with the
same distribution. ``get_variable`` with ``reuse`` returns the variable made before
under the same scoped name.
"""

import contextlib
import threading

import numpy as np

from graphd.v1 import dtypes as _dtypes
from graphd.v1 import graph as _graph
from graphd.v1 import variables as _variables

_state = threading.local()
_VARSTORE = "__graphd_varstore"


def _stack():
    if not hasattr(_state, "stack"):
        _state.stack = [("", False)]
    return _state.stack


class _Initializer:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, shape, dtype=_dtypes.float32, partition_info=None):
        return np.asarray(self._fn([int(d) for d in shape], _dtypes.as_dtype(dtype).as_numpy_dtype))


def zeros_initializer(dtype=_dtypes.float32):
    return _Initializer(lambda shape, dt: np.zeros(shape, dt))


def ones_initializer(dtype=_dtypes.float32):
    return _Initializer(lambda shape, dt: np.ones(shape, dt))


def constant_initializer(value=0, dtype=_dtypes.float32, verify_shape=False):
    return _Initializer(lambda shape, dt: np.broadcast_to(np.asarray(value, dt), shape).copy())


def random_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=_dtypes.float32):
    return _Initializer(lambda shape, dt: np.random.default_rng(seed).normal(mean, stddev, shape).astype(dt))


def random_uniform_initializer(minval=0.0, maxval=None, seed=None, dtype=_dtypes.float32):
    hi = 1.0 if maxval is None else maxval
    return _Initializer(lambda shape, dt: np.random.default_rng(seed).uniform(minval, hi, shape).astype(dt))


def truncated_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=_dtypes.float32):
    def draw(shape, dt):
        rng = np.random.default_rng(seed)
        out = rng.normal(0.0, 1.0, shape)
        bad = np.abs(out) > 2
        while bad.any():
            out[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
            bad = np.abs(out) > 2
        return (mean + stddev * out).astype(dt)
    return _Initializer(draw)


def glorot_uniform_initializer(seed=None, dtype=_dtypes.float32):
    def draw(shape, dt):
        fan_in = shape[-2] if len(shape) >= 2 else shape[0] if shape else 1
        fan_out = shape[-1] if shape else 1
        receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
        limit = np.sqrt(6.0 / ((fan_in + fan_out) * receptive))
        return np.random.default_rng(seed).uniform(-limit, limit, shape).astype(dt)
    return _Initializer(draw)


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, reuse=None, initializer=None, values=None):
    """Variables made inside are named ``scope/name``; ops get the same name scope."""
    graph = _graph.get_default_graph()
    outer, outer_reuse = _stack()[-1]
    if name_or_scope is not None:
        full = (outer + "/" if outer else "") + name_or_scope
    elif default_name is not None:
        full = graph.unique_name((outer + "/" if outer else "") + default_name)  # dense, dense_1, ...
    else:
        raise ValueError("variable_scope needs a name or a default_name")
    _stack().append((full, bool(reuse) or outer_reuse is True))
    try:
        with graph.name_scope(full + "/"):
            yield full
    finally:
        _stack().pop()


def get_variable(name, shape=None, dtype=_dtypes.float32, initializer=None, trainable=True, collections=None,
                 use_resource=None):
    """The variable ``scope/name``: made with ``initializer`` (Glorot uniform by default, as
    TensorFlow) or, under a reusing scope, the one made before."""
    scope, reuse = _stack()[-1]
    full = (scope + "/" if scope else "") + name
    graph = _graph.get_default_graph()
    store = graph.get_collection(_VARSTORE)
    found = [v for v in store if v[0] == full]
    if found:
        if not reuse:
            raise ValueError("Variable %s already exists, disallowed. Did you mean to set reuse=True in VarScope?"
                             % full)
        return found[0][1]
    if reuse is True:
        raise ValueError("Variable %s does not exist, or was not created with tf.get_variable()." % full)
    dtype = _dtypes.as_dtype(dtype)
    if initializer is None:
        initializer = glorot_uniform_initializer() if dtype.is_floating else zeros_initializer()
    if callable(initializer):
        if shape is None:
            raise ValueError("get_variable(%r) needs a shape with an initializer" % full)
        value = initializer(shape, dtype)
    else:
        value = np.asarray(initializer, dtype=dtype.as_numpy_dtype)
    with graph.name_scope(None):
        var = _variables.Variable(value.astype(dtype.as_numpy_dtype), name=full, trainable=trainable)
    graph.add_to_collection(_VARSTORE, (full, var))
    return var


def get_variable_scope_name():
    return _stack()[-1][0]
