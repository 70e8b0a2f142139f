"""``tf.nn``: the neural-network ops graphd implements."""

from graphd.v1 import ops as _ops
from graphd.v1.ops import log_softmax, relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh", "log_softmax", "softmax_cross_entropy_with_logits_v2",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits"]


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) over the last axis, per example."""
    return _ops.negative(_ops.reduce_sum(_ops.multiply(labels, log_softmax(logits)), axis=axis), name=name)


softmax_cross_entropy_with_logits = softmax_cross_entropy_with_logits_v2


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """softmax_cross_entropy_with_logits_v2 of one-hot labels (integer classes)."""
    logits = _ops.convert_to_tensor(logits)
    depth = logits.shape[-1] if logits.shape is not None else None
    if depth is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs the number of classes (logits' last dim)")
    onehot = _ops.one_hot(labels, depth, dtype=logits.dtype)
    return softmax_cross_entropy_with_logits_v2(onehot, logits, name=name)
