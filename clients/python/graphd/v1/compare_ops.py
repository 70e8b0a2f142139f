"""Comparisons, logical ops and floor division/modulo (TensorFlow 1 names), with
numpy broadcasting. Comparisons and logical ops give bool tensors."""

from graphd.v1 import dtypes as _dtypes
from graphd.v1 import ops as _ops
from graphd.v1 import shapes as _shapes


def _compare(op_type, x, y, name):
    tx, ty = _ops._binary_inputs(op_type, x, y)
    return _ops._create(op_type, [tx, ty], _dtypes.bool, _shapes.broadcast(tx.shape, ty.shape),
                        name)


def less(x, y, name=None):
    return _compare("Less", x, y, name)


def less_equal(x, y, name=None):
    return _compare("LessEqual", x, y, name)


def greater(x, y, name=None):
    return _compare("Greater", x, y, name)


def greater_equal(x, y, name=None):
    return _compare("GreaterEqual", x, y, name)


def equal(x, y, name=None):
    return _compare("Equal", x, y, name)


def not_equal(x, y, name=None):
    return _compare("NotEqual", x, y, name)


def _bool_tensor(op_type, x, dtype=_dtypes.bool):
    t = _ops._tensor_like(x)
    t = t if t is not None else _ops.convert_to_tensor(x, dtype=dtype)
    if t.dtype != _dtypes.bool:
        raise TypeError("%s needs bool inputs, got %s" % (op_type, t.dtype.name))
    return t


def _logical(op_type, x, y, name):
    with _ops._in_graph_of([_ops._tensor_like(x), _ops._tensor_like(y)]):
        tx, ty = _bool_tensor(op_type, x), _bool_tensor(op_type, y)
    return _ops._create(op_type, [tx, ty], _dtypes.bool, _shapes.broadcast(tx.shape, ty.shape),
                        name)


def logical_and(x, y, name=None):
    return _logical("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    return _logical("LogicalOr", x, y, name)


def logical_not(x, name=None):
    t = _bool_tensor("LogicalNot", x)
    return _ops._create("LogicalNot", [t], _dtypes.bool, t.shape, name)


def floormod(x, y, name=None):
    """x - floor(x / y) * y (the result has the sign of y), as Python's %."""
    return _ops._elementwise("FloorMod", x, y, name)


mod = floormod


def floordiv(x, y, name=None):
    """floor(x / y), as Python's //."""
    return _ops._elementwise("FloorDiv", x, y, name)
