"""``tf.layers`` (TensorFlow 1): dense, built on tf.get_variable."""

from graphd.v1 import ops as _ops
from graphd.v1 import variable_scope as _vs


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None,
          trainable=True, name=None, reuse=None):
    """activation(inputs @ kernel + bias), variables ``<name>/kernel`` and ``<name>/bias``."""
    x = _ops.convert_to_tensor(inputs)
    if x.shape is None or x.shape[-1] is None:
        raise ValueError("dense() needs the last dimension of its input to be known")
    with _vs.variable_scope(name, default_name="dense", reuse=reuse):
        kernel = _vs.get_variable("kernel", [x.shape[-1], units], x.dtype, kernel_initializer, trainable=trainable)
        y = _ops.matmul(x, kernel)
        if use_bias:
            bias = _vs.get_variable("bias", [units], x.dtype, bias_initializer or _vs.zeros_initializer(),
                                    trainable=trainable)
            y = y + bias
        return activation(y) if activation is not None else y
