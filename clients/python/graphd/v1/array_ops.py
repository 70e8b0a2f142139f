"""More TensorFlow 1 array ops for graphd.v1: concat, stack, gather, transpose,
argmax/argmin, expand_dims, squeeze and placeholder_with_default."""

import numpy as np

from graphd.v1 import attrs as _attrs
from graphd.v1 import dtypes as _dtypes
from graphd.v1 import graph as _graph
from graphd.v1 import shapes as _shapes
from graphd.v1.ops import _create, convert_to_tensor, identity


def _dims(t):
    return None if t.shape is None else list(t.shape)


def _axis(axis, rank, what):
    axis = int(axis)
    if rank is not None and not -rank <= axis < rank:
        raise ValueError("%s axis %d is out of range for rank %d" % (what, axis, rank))
    return axis + rank if (axis < 0 and rank is not None) else axis


def concat(values, axis, name="concat"):
    ts = [convert_to_tensor(v) for v in values]
    if not ts:
        raise ValueError("concat needs at least one tensor")
    dims = _dims(ts[0])
    shape = None
    if dims is not None and all(_dims(t) is not None for t in ts):
        a = _axis(axis, len(dims), "concat")
        sizes = [_dims(t)[a] for t in ts]
        dims[a] = None if any(s is None for s in sizes) else sum(sizes)
        shape = _shapes.as_shape(dims)
    return _create("ConcatV2", ts, ts[0].dtype, shape, name, attrs={"axis": _attrs.int_attr(int(axis))})


def stack(values, axis=0, name="stack"):
    ts = [convert_to_tensor(v) for v in values]
    if not ts:
        raise ValueError("stack needs at least one tensor")
    dims = _dims(ts[0])
    shape = None
    if dims is not None:
        a = _axis(axis, len(dims) + 1, "stack")
        shape = _shapes.as_shape(dims[:a] + [len(ts)] + dims[a:])
    return _create("Pack", ts, ts[0].dtype, shape, name, attrs={"axis": _attrs.int_attr(int(axis))})


def gather(params, indices, axis=0, batch_dims=0, name=None):
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices)
    shape = None
    if _dims(p) is not None and _dims(i) is not None:
        a = _axis(axis, len(_dims(p)), "gather")
        shape = _shapes.as_shape(_dims(p)[:a] + _dims(i) + _dims(p)[a + 1:])
    return _create("GatherV2", [p, i], p.dtype, shape, name or "GatherV2",
                   attrs={"axis": _attrs.int_attr(int(axis)), "batch_dims": _attrs.int_attr(int(batch_dims))})


def transpose(a, perm=None, name="transpose"):
    t = convert_to_tensor(a)
    dims = _dims(t)
    if perm is None:
        if dims is None:
            raise ValueError("transpose without perm needs a known rank")
        perm = list(range(len(dims)))[::-1]
    perm = [int(p) for p in perm]
    shape = None if dims is None else _shapes.as_shape([dims[p] for p in perm])
    return _create("Transpose", [t], t.dtype, shape, name, attrs={"perm": _attrs.ints_attr(perm)})


def _arg(op_type, input, axis, output_type, name):  # pylint: disable=redefined-builtin
    t = convert_to_tensor(input)
    axis = 0 if axis is None else int(axis)
    out = _dtypes.as_dtype(output_type)
    dims = _dims(t)
    shape = None
    if dims is not None:
        a = _axis(axis, len(dims), op_type)
        shape = _shapes.as_shape(dims[:a] + dims[a + 1:])
    return _create(op_type, [t], out, shape, name or op_type,
                   attrs={"axis": _attrs.int_attr(axis), "output_type": _attrs.type_attr(out)})


def argmax(input, axis=None, name=None, dimension=None, output_type=_dtypes.int64):  # pylint: disable=redefined-builtin
    return _arg("ArgMax", input, axis if axis is not None else dimension, output_type, name)


def argmin(input, axis=None, name=None, dimension=None, output_type=_dtypes.int64):  # pylint: disable=redefined-builtin
    return _arg("ArgMin", input, axis if axis is not None else dimension, output_type, name)


def expand_dims(input, axis, name=None):  # pylint: disable=redefined-builtin
    t = convert_to_tensor(input)
    dims = _dims(t)
    shape = None
    if dims is not None:
        a = _axis(axis, len(dims) + 1, "expand_dims")
        shape = _shapes.as_shape(dims[:a] + [1] + dims[a:])
    return _create("ExpandDims", [t], t.dtype, shape, name or "ExpandDims", attrs={"axis": _attrs.int_attr(int(axis))})


def squeeze(input, axis=None, name=None):  # pylint: disable=redefined-builtin
    t = convert_to_tensor(input)
    axes = [] if axis is None else ([int(axis)] if np.ndim(axis) == 0 else [int(a) for a in axis])
    dims = _dims(t)
    shape = None
    if dims is not None:
        drop = {_axis(a, len(dims), "squeeze") for a in axes} if axes else {i for i, d in enumerate(dims) if d == 1}
        shape = _shapes.as_shape([d for i, d in enumerate(dims) if i not in drop])
    return _create("Squeeze", [t], t.dtype, shape, name or "Squeeze", attrs={"squeeze_dims": _attrs.ints_attr(axes)})


def placeholder_with_default(input, shape, name=None):  # pylint: disable=redefined-builtin
    """``input`` unless fed: an Identity (any tensor may be fed by name)."""
    t = convert_to_tensor(input)
    with _graph.graph_for([t]).as_default():
        out = identity(t, name=name or "PlaceholderWithDefault")
    out._shape = _shapes.as_shape(shape) if shape is not None else out.shape
    return out
