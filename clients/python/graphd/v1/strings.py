"""tf.strings for graphd.v1 graphs: join and length."""

from graphd.v1 import dtypes as _dtypes
from graphd.v1 import ops as _ops
from graphd.v1 import shapes as _shapes


def _string_tensors(inputs):
    tensors = [_ops._tensor_like(x) for x in inputs]
    with _ops._in_graph_of(tensors):
        tensors = [t if t is not None else _ops.convert_to_tensor(x, dtype=_dtypes.string)
                   for t, x in zip(tensors, inputs)]
    for t in tensors:
        if t.dtype != _dtypes.string:
            raise TypeError("tf.strings needs string tensors, got %s" % t.dtype.name)
    return tensors


def join(inputs, separator="", name=None):
    """Elementwise concatenation of string tensors (broadcast), with ``separator``."""
    tensors = _string_tensors(list(inputs))
    if not tensors:
        raise ValueError("strings.join needs at least one input")
    shape = _shapes.TensorShape(())
    for t in tensors:
        shape = _shapes.broadcast(shape, t.shape)
    from graphd.v1 import graph_pb2
    return _ops._create("StringJoin", tensors, _dtypes.string, shape, name,
                        attrs={"separator": graph_pb2.AttrValue(s=separator.encode("utf-8"))})


def length(input, unit="BYTE", name=None):  # pylint: disable=redefined-builtin
    """Length of each string, in bytes ("BYTE") or Unicode characters ("UTF8_CHAR")."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("unit must be BYTE or UTF8_CHAR, got %r" % (unit,))
    (t,) = _string_tensors([input])
    from graphd.v1 import graph_pb2
    return _ops._create("StringLength", [t], _dtypes.int32, t.shape, name,
                        attrs={"unit": graph_pb2.AttrValue(s=unit.encode("utf-8"))})
