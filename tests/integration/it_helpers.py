"""Helpers for the integration tests: raw protos and raw RPCs."""

import inspect
import io

import numpy as np

import graphd.v1 as tf
from graphd import _tensor
from graphd.v1 import graph_pb2, session_pb2, tensor_pb2


def node(name, op, inputs=(), **attrs):
    """A NodeDef; attrs are AttrValue protos."""
    n = graph_pb2.NodeDef(name=name, op=op, input=list(inputs))
    for key, value in attrs.items():
        n.attr[key].CopyFrom(value)
    return n


def const_node(name, value, dtype=None):
    proto = _tensor.make_tensor_proto(value, dtype)
    return node(name, "Const", value=graph_pb2.AttrValue(tensor=proto),
                dtype=graph_pb2.AttrValue(type=proto.dtype))


def raw_const_node(name, dtype, dims, content=b""):
    """A Const whose TensorProto is written by hand (possibly inconsistent)."""
    proto = tensor_pb2.TensorProto(dtype=dtype, content=content)
    proto.shape.dim.extend(dims)
    return node(name, "Const", value=graph_pb2.AttrValue(tensor=proto),
                dtype=graph_pb2.AttrValue(type=dtype))


def graph_def(*nodes):
    return graph_pb2.GraphDef(node=list(nodes))


def raw_extend(sess, gdef, version=None):
    """ExtendSession on a graphd.v1.Session's server session, bypassing the
    Session's bookkeeping. version defaults to the session's current one."""
    request = session_pb2.ExtendSessionRequest(
        session_handle=sess.session_handle, graph_def=gdef,
        current_graph_version=sess.graph_version if version is None else version)
    return sess.connection.session("ExtendSession", request)


def raw_run(sess, feeds=(), fetches=(), targets=(), timeout_in_ms=0, deadline=None):
    """Run with hand-made feeds: (name, TensorProto) pairs."""
    request = session_pb2.RunRequest(
        session_handle=sess.session_handle,
        feed=[session_pb2.NamedTensor(name=n, tensor=t) for n, t in feeds],
        fetch=list(fetches), target=list(targets),
        options=session_pb2.RunOptions(timeout_in_ms=timeout_in_ms))
    return sess.connection.session("Run", request, timeout=deadline)


def assert_mentions(error, *names):
    """The error message names at least one of ``names``."""
    message = str(error)
    assert any(n in message for n in names), (
        "expected the message to name one of %r, got: %r" % (names, message))


def matmul_chain(n, size=1000, name_prefix="chain"):
    """x, w placeholders [size, size] and h = x @ w @ w ... (n MatMuls)."""
    x = tf.placeholder(tf.float32, [size, size], name=name_prefix + "_x")
    w = tf.placeholder(tf.float32, [size, size], name=name_prefix + "_w")
    h = x
    for _ in range(n):
        h = tf.matmul(h, w)
    return x, w, h


def chain_feeds(x, w, size=1000, seed=0):
    """Feeds for matmul_chain with w = identity (so the result equals x)."""
    rng = np.random.default_rng(seed)
    xv = rng.standard_normal((size, size)).astype(np.float32)
    return {x: xv, w: np.eye(size, dtype=np.float32)}, xv


def torch_onnx_bytes(model, example, **kwargs):
    """``torch.onnx.export(model, example, **kwargs)`` into bytes, by the TorchScript
    exporter, which writes the ``opset_version`` asked for. From torch 2.9 the default
    is the dynamo exporter, which writes opset 18 and refuses dynamic axes that tracing
    saw fixed; Debian's torch has no ``dynamo`` parameter."""
    import torch
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    buf = io.BytesIO()
    torch.onnx.export(model, example, buf, **kwargs)
    return buf.getvalue()
