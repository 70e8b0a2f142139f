"""Tensor and Operation: the elements of a graphd.v1.Graph."""

from graphd.v1 import attrs as _attrs
from graphd.v1 import dtypes as _dtypes
from graphd.v1 import shapes as _shapes


class Tensor:
    """Output ``value_index`` of an Operation. Supports + - * / (and reflected
    forms) and unary -, with Python/numpy values converted to constants."""

    __array_priority__ = 100  # numpy defers to our reflected operators

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = _dtypes.as_dtype(dtype)
        self._shape = _shapes.as_shape(shape)

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def shape(self):
        """Tuple of dims (None = unknown), or None when the rank is unknown."""
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._value_index)

    def _input_ref(self):
        """How a NodeDef input refers to this tensor ("node" or "node:i")."""
        if self._value_index == 0:
            return self._op.name
        return self.name

    def eval(self, feed_dict=None, session=None):
        """Runs this tensor in ``session`` (default: the default session)."""
        from graphd.v1 import session as _session
        return _session._run_in(session, self.graph, self, feed_dict)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (
            self.name, "<unknown>" if self._shape is None else tuple(self._shape),
            self._dtype.name)

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("Using a graphd Tensor as a Python bool is not allowed; "
                        "its value exists only when a Session runs it.")

    def __iter__(self):
        raise TypeError("a graphd Tensor is not iterable")

    # Operators; graphd.v1.ops is imported lazily (it imports this module).
    def __add__(self, other):
        from graphd.v1 import ops
        return ops.add(self, other)

    def __radd__(self, other):
        from graphd.v1 import ops
        return ops.add(other, self)

    def __sub__(self, other):
        from graphd.v1 import ops
        return ops.subtract(self, other)

    def __rsub__(self, other):
        from graphd.v1 import ops
        return ops.subtract(other, self)

    def __mul__(self, other):
        from graphd.v1 import ops
        return ops.multiply(self, other)

    def __rmul__(self, other):
        from graphd.v1 import ops
        return ops.multiply(other, self)

    def __truediv__(self, other):
        from graphd.v1 import ops
        return ops.divide(self, other)

    def __rtruediv__(self, other):
        from graphd.v1 import ops
        return ops.divide(other, self)

    def __matmul__(self, other):
        from graphd.v1 import ops
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        from graphd.v1 import ops
        return ops.matmul(other, self)

    def __neg__(self):
        from graphd.v1 import ops
        return ops.negative(self)

    # Comparisons, % and // (floor), & | ~ (logical on bool), as TensorFlow 1's;
    # == and != stay Python identity, as there.
    def __lt__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.less(self, other)

    def __le__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.less_equal(self, other)

    def __gt__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.greater(self, other)

    def __ge__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.greater_equal(self, other)

    def __mod__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.floormod(self, other)

    def __rmod__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.floormod(other, self)

    def __floordiv__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.floordiv(self, other)

    def __rfloordiv__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.floordiv(other, self)

    def __and__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.logical_and(self, other)

    def __rand__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.logical_and(other, self)

    def __or__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.logical_or(self, other)

    def __ror__(self, other):
        from graphd.v1 import compare_ops
        return compare_ops.logical_or(other, self)

    def __invert__(self):
        from graphd.v1 import compare_ops
        return compare_ops.logical_not(self)


class Operation:
    """A node of a Graph: ``name``, ``type``, ``inputs``, ``control_inputs``,
    ``outputs``, ``node_def`` (a copy of its graphd.v1.NodeDef), ``graph``."""

    def __init__(self, graph, node_def, inputs, control_inputs, output_types,
                 output_shapes):
        self._graph = graph
        self._node_def = node_def
        self._inputs = tuple(inputs)
        self._control_inputs = tuple(control_inputs)
        self._outputs = tuple(Tensor(self, i, dt, sh)
                              for i, (dt, sh) in enumerate(zip(output_types, output_shapes)))

    name = property(lambda self: self._node_def.name)
    type = property(lambda self: self._node_def.op)
    device = property(lambda self: self._node_def.device)
    graph = property(lambda self: self._graph)
    inputs = property(lambda self: self._inputs)
    control_inputs = property(lambda self: list(self._control_inputs))
    outputs = property(lambda self: list(self._outputs))

    @property
    def node_def(self):
        copy = type(self._node_def)()
        copy.CopyFrom(self._node_def)
        return copy

    def values(self):
        return self._outputs

    def get_attr(self, name):
        """The decoded value of attribute ``name`` (ValueError if absent)."""
        if name not in self._node_def.attr:
            raise ValueError("Operation %r has no attr named %r" % (self.name, name))
        return _attrs.attr_to_python(self._node_def.attr[name])

    def run(self, feed_dict=None, session=None):
        """Runs this operation in ``session`` (default: the default session)."""
        from graphd.v1 import session as _session
        _session._run_in(session, self.graph, self, feed_dict)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self.name, self.type)
