"""``tf.nn``: the neural-network ops graphd implements."""

from graphd.v1.ops import relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh"]
