"""``tf.nn``: the neural-network ops graphd implements."""

import numpy as np

from graphd.v1 import attrs as _attrs
from graphd.v1 import ops as _ops
from graphd.v1.ops import log_softmax, relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh", "log_softmax", "softmax_cross_entropy_with_logits_v2",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits", "conv2d",
           "max_pool", "avg_pool", "max_pool2d", "avg_pool2d", "bias_add"]


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


def _window4(v, what):
    v = [int(x) for x in np.asarray(v).reshape(-1)]
    if len(v) == 1:
        return [1, v[0], v[0], 1]
    if len(v) == 2:
        return [1, v[0], v[1], 1]
    if len(v) == 4:
        return v
    raise ValueError("%s must have 1, 2 or 4 entries, got %d" % (what, len(v)))


def _out_dim(size, window, stride, dilation, padding):
    if size is None:
        return None
    if padding == "SAME":
        return -(-size // stride)
    effective = (window - 1) * dilation + 1
    return max(0, -(-(size - effective + 1) // stride))


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, data_format="NHWC",  # noqa: A002
           dilations=None, name=None, filters=None):
    """NHWC input, HWIO filter; padding SAME or VALID."""
    if data_format != "NHWC":
        raise ValueError("graphd's conv2d takes NHWC data")
    x = _ops.convert_to_tensor(input)
    f = _ops.convert_to_tensor(filter if filter is not None else filters)
    strides = _window4(strides if strides is not None else 1, "conv2d strides")
    dil = _window4(dilations if dilations is not None else 1, "conv2d dilations")
    padding = padding.upper() if isinstance(padding, str) else padding
    shape = None
    if x.shape is not None and f.shape is not None:
        n, h, w, _ = x.shape
        kh, kw, _, o = f.shape
        shape = [n, _out_dim(h, kh, strides[1], dil[1], padding), _out_dim(w, kw, strides[2], dil[2], padding), o]
    return _ops._create("Conv2D", [x, f], x.dtype, shape, name or "Conv2D",
                        attrs={"strides": _attrs.ints_attr(strides), "dilations": _attrs.ints_attr(dil),
                               "padding": _attrs.str_attr(padding), "data_format": _attrs.str_attr("NHWC")})


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    if data_format != "NHWC":
        raise ValueError("graphd's pools take NHWC data")
    x = _ops.convert_to_tensor(value)
    ksize, strides = _window4(ksize, "ksize"), _window4(strides, "strides")
    padding = padding.upper()
    shape = None
    if x.shape is not None:
        n, h, w, c = x.shape
        shape = [n, _out_dim(h, ksize[1], strides[1], 1, padding), _out_dim(w, ksize[2], strides[2], 1, padding), c]
    return _ops._create(op_type, [x], x.dtype, shape, name or op_type,
                        attrs={"ksize": _attrs.ints_attr(ksize), "strides": _attrs.ints_attr(strides),
                               "padding": _attrs.str_attr(padding), "data_format": _attrs.str_attr("NHWC")})


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    return _pool("MaxPool", value if value is not None else input, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    return _pool("AvgPool", value if value is not None else input, ksize, strides, padding, data_format, name)


max_pool2d = max_pool
avg_pool2d = avg_pool


def bias_add(value, bias, data_format=None, name=None):
    x = _ops.convert_to_tensor(value)
    b = _ops.convert_to_tensor(bias, dtype=x.dtype)
    return _ops._create("BiasAdd", [x, b], x.dtype, x.shape, name or "BiasAdd",
                        attrs={"data_format": _attrs.str_attr(data_format or "NHWC")})
