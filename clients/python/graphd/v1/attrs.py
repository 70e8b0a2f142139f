"""Python values <-> graphd.v1.AttrValue protos (NodeDef attributes)."""

from graphd import _tensor
from graphd.v1 import dtypes
from graphd.v1 import shapes


def _graph_pb2():
    from graphd.v1 import graph_pb2
    return graph_pb2


def _tensor_pb2():
    from graphd.v1 import tensor_pb2
    return tensor_pb2


def shape_proto(shape):
    """TensorShape proto for a static shape (None = unknown rank; None dims -1)."""
    proto = _tensor_pb2().TensorShape()
    shape = shapes.as_shape(shape)
    if shape is None:
        proto.unknown_rank = True
    else:
        proto.dim.extend(-1 if d is None else int(d) for d in shape)
    return proto


def type_attr(dtype):
    return _graph_pb2().AttrValue(type=dtypes.as_dtype(dtype).enum)


def shape_attr(shape):
    return _graph_pb2().AttrValue(shape=shape_proto(shape))


def bool_attr(value):
    return _graph_pb2().AttrValue(b=bool(value))


def int_attr(value):
    return _graph_pb2().AttrValue(i=int(value))


def str_attr(value):
    return _graph_pb2().AttrValue(s=value.encode() if isinstance(value, str) else bytes(value))


def float_attr(value):
    return _graph_pb2().AttrValue(f=float(value))


def ints_attr(values):
    attr = _graph_pb2().AttrValue()
    attr.list.SetInParent()  # an empty list is still a list
    attr.list.i.extend(int(v) for v in values)
    return attr


def tensor_attr(proto):
    return _graph_pb2().AttrValue(tensor=proto)


def attr_to_python(attr):
    """Decodes an AttrValue: type -> DType, shape -> TensorShape/None, tensor ->
    numpy value, list -> list, scalars as themselves."""
    kind = attr.WhichOneof("value")
    if kind is None:
        return None
    if kind == "type":
        return dtypes.as_dtype(attr.type)
    if kind == "shape":
        return _shape_from_proto(attr.shape)
    if kind == "tensor":
        return _tensor.tensor_proto_to_value(attr.tensor)
    if kind == "list":
        lst = attr.list
        if lst.type:
            return [dtypes.as_dtype(t) for t in lst.type]
        if lst.shape:
            return [_shape_from_proto(s) for s in lst.shape]
        if lst.tensor:
            return [_tensor.tensor_proto_to_value(t) for t in lst.tensor]
        for field in ("s", "i", "f", "b"):
            values = getattr(lst, field)
            if values:
                return list(values)
        return []
    return getattr(attr, kind)


def _shape_from_proto(proto):
    if proto.unknown_rank:
        return None
    return shapes.TensorShape(None if d < 0 else d for d in proto.dim)
