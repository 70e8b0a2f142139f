"""TensorFlow-1-style op constructors (the ops graphd's server implements)."""

import numpy as np

from graphd import _tensor
from graphd.v1 import attrs as _attrs
from graphd.v1 import dtypes as _dtypes
from graphd.v1 import graph as _graph
from graphd.v1 import shapes as _shapes
from graphd.v1.graph import Tensor

_INT_RANGE = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1),
    "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1), "uint8": (0, 255),
    "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1),
}


# -- conversion ---------------------------------------------------------------
def _tensor_like(x):
    """The Tensor for a Tensor or Variable, else None."""
    if isinstance(x, Tensor):
        return x
    to_tensor = getattr(x, "_graphd_tensor", None)
    if to_tensor is not None:
        return to_tensor()
    return None


def _infer_dtype(value):
    """TensorFlow's dtype for a Python/numpy value: numpy values keep their
    dtype; Python floats are float32 and ints int32 (int64 if too large)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _dtypes.as_dtype(value.dtype)
    if _tensor.numpy_dtype_of(value).kind in ("U", "S", "O"):
        return _dtypes.string
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return _dtypes.float32
    if arr.dtype.kind in ("i", "u"):
        if arr.size and (arr.min() < -2**31 or arr.max() > 2**31 - 1):
            return _dtypes.int64
        return _dtypes.int32
    if arr.dtype.kind == "b":
        return _dtypes.bool
    if arr.dtype.kind in ("U", "S", "O"):
        return _dtypes.string
    raise TypeError("cannot infer a graphd dtype for %r (numpy dtype %s)"
                    % (value, arr.dtype))


def _to_numpy(value, dtype):
    """Converts ``value`` to a numpy array for ``dtype``; TypeError when that
    would change values (fractions or out-of-range numbers into integers,
    numbers into bool/string and back)."""
    if dtype == _dtypes.string:
        arr = np.asarray(value, dtype=object)
        for x in arr.reshape(-1):
            if not isinstance(x, (bytes, str)):
                raise TypeError("Expected string, got %r of type %r"
                                % (x, type(x).__name__))
        return arr
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if kind in ("U", "S"):
        raise TypeError("Expected %s, got %r" % (dtype.name, value))
    if kind == "O":  # e.g. Python ints beyond int64, or mixed objects
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError("Expected %s, got %r" % (dtype.name, value)) from None
        kind = "f"
    if dtype == _dtypes.bool:
        if kind != "b":
            raise TypeError("Expected bool, got %r" % (value,))
    elif dtype.is_integer:
        if kind == "f" and not np.all(np.mod(arr, 1) == 0):
            raise TypeError("Expected %s, got %r with fractional values"
                            % (dtype.name, value))
        lo, hi = _INT_RANGE[dtype.name]
        if arr.size and (arr.min() < lo or arr.max() > hi):
            raise TypeError("Value %r is out of range for %s" % (value, dtype.name))
    return arr.astype(dtype.as_numpy_dtype)


def constant(value, dtype=None, shape=None, name="Const"):
    """A Const node holding ``value`` (converted to ``dtype``; inferred as
    TensorFlow does when None). With ``shape``, a scalar (or one-element)
    value is broadcast and a value with that many elements is reshaped."""
    if _tensor_like(value) is not None:
        raise TypeError("constant() needs a Python/numpy value, got a Tensor")
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _infer_dtype(value)
    arr = _to_numpy(value, dtype)
    if shape is not None:
        target = tuple(int(d) for d in shape)
        count = int(np.prod(target, dtype=np.int64))
        if arr.size == count:
            arr = arr.reshape(target)
        elif arr.size == 1:
            arr = np.broadcast_to(arr.reshape(()), target).copy()
        else:
            raise ValueError("constant of %d elements cannot have shape %s"
                             % (arr.size, target))
    graph = _graph.get_default_graph()
    proto = _tensor.make_tensor_proto(arr, dtype.enum)
    op = graph.create_op("Const", [], [dtype], name=name or "Const",
                         attrs={"value": _attrs.tensor_attr(proto),
                                "dtype": _attrs.type_attr(dtype)},
                         shapes=[arr.shape])
    return op.outputs[0]


def convert_to_tensor(value, dtype=None, name=None):
    """A Tensor for a Tensor, Variable or Python/numpy value (a new Const)."""
    tensor = _tensor_like(value)
    if tensor is not None:
        if dtype is not None and _dtypes.as_dtype(dtype) != tensor.dtype:
            raise ValueError("Tensor conversion requested dtype %s for Tensor with "
                             "dtype %s: %r" % (_dtypes.as_dtype(dtype).name,
                                               tensor.dtype.name, tensor))
        return tensor
    return constant(value, dtype=dtype, name=name or "Const")


def _in_graph_of(tensors):
    """The graph ops on ``tensors`` go in (graph.graph_for) as a context manager."""
    return _graph.graph_for(tensors).as_default()


def _binary_inputs(op_type, x, y):
    tx, ty = _tensor_like(x), _tensor_like(y)
    with _in_graph_of((tx, ty)):
        if tx is None and ty is None:
            tx = convert_to_tensor(x)
        dtype = (tx if tx is not None else ty).dtype
        tx = tx if tx is not None else constant(x, dtype=dtype)
        ty = ty if ty is not None else constant(y, dtype=dtype)
    if tx.dtype != ty.dtype:
        raise TypeError("Input 'y' of '%s' Op has type %s that does not match type %s "
                        "of argument 'x'." % (op_type, ty.dtype.name, tx.dtype.name))
    return tx, ty


def _create(op_type, inputs, dtype, shape, name, attrs=None, graph=None):
    graph = graph or _graph.graph_for(inputs)
    return graph.create_op(op_type, inputs, [dtype], name=name or op_type,
                           attrs=attrs, shapes=[shape]).outputs[0]


def _elementwise(op_type, x, y, name):
    tx, ty = _binary_inputs(op_type, x, y)
    shape = _shapes.broadcast(tx.shape, ty.shape)
    return _create(op_type, [tx, ty], tx.dtype, shape, name)


# -- arithmetic ----------------------------------------------------------------
def add(x, y, name=None):
    return _elementwise("Add", x, y, name)


def subtract(x, y, name=None):
    return _elementwise("Sub", x, y, name)


def multiply(x, y, name=None):
    return _elementwise("Mul", x, y, name)


def maximum(x, y, name=None):
    return _elementwise("Maximum", x, y, name)


def minimum(x, y, name=None):
    return _elementwise("Minimum", x, y, name)


def div(x, y, name=None):
    """The raw Div op: integer inputs divide with truncation (C semantics)."""
    return _elementwise("Div", x, y, name)


truncatediv = div
realdiv = div


def divide(x, y, name=None):
    """x / y as TensorFlow's truediv: integer inputs are first cast to float
    (int8/int16/uint8 -> float32, int32/int64 -> float64), then Div."""
    tx, ty = _binary_inputs("Div", x, y)
    if tx.dtype.is_integer:
        target = (_dtypes.float64 if tx.dtype in (_dtypes.int32, _dtypes.int64)
                  else _dtypes.float32)
        tx, ty = cast(tx, target), cast(ty, target)
    return _elementwise("Div", tx, ty, name)


truediv = divide


def negative(x, name=None):
    """-x: Mul by -1 (Sub from 0 for unsigned integers)."""
    tx = convert_to_tensor(x)
    if tx.dtype in (_dtypes.bool, _dtypes.string):
        raise TypeError("cannot negate a %s tensor" % tx.dtype.name)
    with _in_graph_of([tx]):
        if tx.dtype == _dtypes.uint8:
            return subtract(constant(0, dtype=tx.dtype, name="zero"), tx, name=name or "Neg")
        return multiply(tx, constant(-1, dtype=tx.dtype, name="minus_one"),
                        name=name or "Neg")


def add_n(inputs, name=None):
    """Sum of a list of same-dtype tensors (a chain of Add nodes)."""
    inputs = [convert_to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("add_n needs at least one input")
    result = inputs[0]
    for i, x in enumerate(inputs[1:]):
        last = i == len(inputs) - 2
        result = add(result, x, name=(name or "AddN") if last else None)
    return result if len(inputs) > 1 else identity(result, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    ta, tb = _binary_inputs("MatMul", a, b)
    shape = _shapes.matmul(ta.shape, tb.shape, transpose_a, transpose_b)
    return _create("MatMul", [ta, tb], ta.dtype, shape, name,
                   attrs={"transpose_a": _attrs.bool_attr(transpose_a),
                          "transpose_b": _attrs.bool_attr(transpose_b)})


def _float_unary(op_type, x, name):
    t = convert_to_tensor(x)
    if not t.dtype.is_floating:
        raise TypeError("%s needs a floating-point input, got %s" % (op_type, t.dtype.name))
    return _create(op_type, [t], t.dtype, t.shape, name)


def relu(features, name=None):
    return _float_unary("Relu", features, name)


def sigmoid(x, name=None):
    return _float_unary("Sigmoid", x, name)


def tanh(x, name=None):
    return _float_unary("Tanh", x, name)


def sqrt(x, name=None):
    return _float_unary("Sqrt", x, name)


def rsqrt(x, name=None):
    return _float_unary("Rsqrt", x, name)


def exp(x, name=None):
    return _float_unary("Exp", x, name)


def log(x, name=None):
    return _float_unary("Log", x, name)


def square(x, name=None):
    t = convert_to_tensor(x)
    return _create("Square", [t], t.dtype, t.shape, name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot rows of ``depth`` along the last axis (graphd's OneHot)."""
    t = convert_to_tensor(indices)
    if not t.dtype.is_integer:
        raise TypeError("one_hot indices must be integers, got %s" % t.dtype.name)
    if axis not in (None, -1):
        raise ValueError("graphd's one_hot puts the new axis last")
    dtype = _dtypes.as_dtype(dtype or _dtypes.float32)
    attrs = {"depth": _attrs.int_attr(int(depth)), "dtype": _attrs.type_attr(dtype)}
    if on_value is not None:
        attrs["on_value"] = _attrs.float_attr(float(on_value))
    if off_value is not None:
        attrs["off_value"] = _attrs.float_attr(float(off_value))
    shape = None if t.shape is None else list(t.shape) + [int(depth)]
    return _create("OneHot", [t], dtype, shape, name, attrs=attrs)


def log_softmax(logits, axis=None, name=None):
    """Log-softmax over the last axis."""
    t = convert_to_tensor(logits)
    if axis is not None and axis != -1 and (t.shape is None or axis != len(t.shape) - 1):
        raise ValueError("graphd's LogSoftmax works over the last axis only")
    return _float_unary("LogSoftmax", t, name)


def softmax(logits, axis=None, name=None, dim=None):
    """Softmax over the last axis (the only axis graphd supports)."""
    axis = axis if axis is not None else dim
    t = convert_to_tensor(logits)
    if axis is not None and axis != -1 and (t.shape is None or axis != len(t.shape) - 1):
        raise ValueError("graphd's Softmax works over the last axis only")
    return _float_unary("Softmax", t, name)


# -- reductions, shapes, casts ---------------------------------------------------
def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    t = convert_to_tensor(input_tensor)
    if axis is None:
        axis = reduction_indices
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    attrs = {"keep_dims": _attrs.bool_attr(keepdims)}
    if axis is not None:
        axes = [int(axis)] if np.ndim(axis) == 0 else [int(a) for a in axis]
        attrs["axis"] = _attrs.ints_attr(axes)
    else:
        axes = None
    shape = _shapes.reduce(t.shape, axes, keepdims)
    return _create(op_type, [t], t.dtype, shape, name, attrs=attrs)


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None,
               reduction_indices=None, keep_dims=None):
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices,
                   keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None,
                reduction_indices=None, keep_dims=None):
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices,
                   keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None,
               reduction_indices=None, keep_dims=None):
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices,
                   keep_dims)


def reshape(tensor, shape, name=None):
    """Reshape to a static list of ints (at most one -1)."""
    t = convert_to_tensor(tensor)
    if _tensor_like(shape) is not None:
        raise TypeError("graphd's reshape needs a static shape (list of ints)")
    dims = [int(d) for d in np.asarray(shape, dtype=np.int64).reshape(-1)]
    out = _shapes.reshape(t.shape, dims)
    return _create("Reshape", [t], t.dtype, out, name,
                   attrs={"shape": _attrs.ints_attr(dims)})


def cast(x, dtype, name=None):
    """Cast to ``dtype`` (returns ``x`` itself when it already has it)."""
    t = convert_to_tensor(x)
    dtype = _dtypes.as_dtype(dtype)
    if t.dtype == dtype:
        return t
    return _create("Cast", [t], dtype, t.shape, name, attrs={"DstT": _attrs.type_attr(dtype)})


def identity(input, name=None):  # pylint: disable=redefined-builtin
    t = convert_to_tensor(input)
    return _create("Identity", [t], t.dtype, t.shape, name)


# -- graph inputs and control flow ------------------------------------------------
def placeholder(dtype, shape=None, name=None):
    """A value fed at run time. shape None accepts any shape; None/-1 dims
    are unknown."""
    dtype = _dtypes.as_dtype(dtype)
    shape = _shapes.as_shape(shape)
    return _create("Placeholder", [], dtype, shape, name,
                   attrs={"dtype": _attrs.type_attr(dtype),
                          "shape": _attrs.shape_attr(shape)},
                   graph=_graph.get_default_graph())


def _static_dims(shape):
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)


def zeros(shape, dtype=_dtypes.float32, name=None):
    dtype = _dtypes.as_dtype(dtype)
    return constant(np.zeros(_static_dims(shape), dtype=dtype.as_numpy_dtype), dtype=dtype,
                    name=name or "zeros")


def ones(shape, dtype=_dtypes.float32, name=None):
    dtype = _dtypes.as_dtype(dtype)
    return constant(np.ones(_static_dims(shape), dtype=dtype.as_numpy_dtype), dtype=dtype,
                    name=name or "ones")


def no_op(name=None):
    return _graph.get_default_graph().create_op("NoOp", name=name or "NoOp")


def _flatten_ops(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten_ops(item)
        elif isinstance(item, dict):
            yield from _flatten_ops(list(item.values()))
        else:
            yield item


def group(*inputs, **kwargs):
    """A NoOp with control inputs on every op in ``inputs`` (nested lists ok)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: %s" % ", ".join(kwargs))
    items = list(_flatten_ops(inputs))
    graph = _graph.get_default_graph()
    for item in items:
        t = _tensor_like(item)
        graph = (t.graph if t is not None else getattr(item, "graph", graph))
        break
    return graph.create_op("NoOp", name=name or "group_deps", control_inputs=items)
