"""TensorFlow-1-style variables: a VariableV2 node that lives in the server
session, initialized by ``<name>/Assign`` and read through ``<name>/read``."""

from graphd.v1 import attrs as _attrs
from graphd.v1 import dtypes as _dtypes
from graphd.v1 import graph as _graph
from graphd.v1 import ops as _ops
from graphd.v1.graph import Tensor

GLOBAL_VARIABLES = "variables"
TRAINABLE_VARIABLES = "trainable_variables"


class Variable:
    """A session-resident variable.

    Nodes created for ``Variable(v, name="w")``: ``w/initial_value`` (Const),
    ``w`` (VariableV2), ``w/Assign`` (the initializer) and ``w/read``
    (Identity; the value used when the variable appears in ops). Fetching the
    variable fetches ``w:0``.
    """

    __array_priority__ = 100

    def __init__(self, initial_value=None, dtype=None, name=None, trainable=True,
                 validate_shape=True, collections=None):
        if isinstance(dtype, type(True)):  # TF's positional order: (value, trainable)
            trainable, dtype = dtype, None
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_tensor = _ops._tensor_like(initial_value)
        graph = init_tensor.graph if init_tensor is not None else _graph.get_default_graph()
        with graph.as_default(), graph.control_dependencies(None), \
                graph.name_scope(name or "Variable") as scope:
            if callable(initial_value) and init_tensor is None:
                initial_value = initial_value()
            if init_tensor is None:
                init_tensor = _ops.convert_to_tensor(initial_value, dtype=dtype,
                                                     name="initial_value")
            elif dtype is not None and _dtypes.as_dtype(dtype) != init_tensor.dtype:
                init_tensor = _ops.cast(init_tensor, dtype)
            self._dtype = init_tensor.dtype
            shape = init_tensor.shape if validate_shape else None
            var_op = graph.create_op(
                "VariableV2", [], [self._dtype], name=scope, shapes=[shape],
                attrs={"dtype": _attrs.type_attr(self._dtype),
                       "shape": _attrs.shape_attr(shape)})
            self._variable = var_op.outputs[0]
            self._initial_value = init_tensor
            self._initializer_op = graph.create_op(
                "Assign", [self._variable, init_tensor], [self._dtype], name="Assign",
                shapes=[init_tensor.shape],
                attrs={"validate_shape": _attrs.bool_attr(validate_shape)})
            self._snapshot = _ops.identity(self._variable, name="read")
        self._trainable = trainable
        if collections is None:
            collections = [GLOBAL_VARIABLES]
            if trainable:
                collections.append(TRAINABLE_VARIABLES)
        for key in collections:
            graph.add_to_collection(key, self)

    # -- properties --------------------------------------------------------
    name = property(lambda self: self._variable.name)
    op = property(lambda self: self._variable.op)
    graph = property(lambda self: self._variable.graph)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._variable.shape)
    initializer = property(lambda self: self._initializer_op)
    initial_value = property(lambda self: self._initial_value)
    trainable = property(lambda self: self._trainable)
    device = property(lambda self: self._variable.device)

    def get_shape(self):
        return self.shape

    def value(self):
        """The snapshot ``<name>/read:0`` (what ops see)."""
        return self._snapshot

    def read_value(self):
        """A new Identity reading the variable."""
        graph = self.graph
        with graph.as_default(), graph.name_scope(self.op.name + "/"):
            return _ops.identity(self._variable, name="read")

    def _as_graph_element(self):
        return self._variable

    def _graphd_tensor(self):
        return self._snapshot

    # -- updates -----------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        del use_locking
        return _update("Assign", self, value, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        del use_locking
        return _update("AssignAdd", self, delta, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        del use_locking
        return _update("AssignSub", self, delta, name, read_value)

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (
            self.name, "<unknown>" if self.shape is None else tuple(self.shape),
            self._dtype.name)

    def __bool__(self):
        raise TypeError("Using a graphd Variable as a Python bool is not allowed.")

    # Operators act on the snapshot, as TensorFlow's do.
    def __add__(self, o):
        return _ops.add(self, o)

    def __radd__(self, o):
        return _ops.add(o, self)

    def __sub__(self, o):
        return _ops.subtract(self, o)

    def __rsub__(self, o):
        return _ops.subtract(o, self)

    def __mul__(self, o):
        return _ops.multiply(self, o)

    def __rmul__(self, o):
        return _ops.multiply(o, self)

    def __truediv__(self, o):
        return _ops.divide(self, o)

    def __rtruediv__(self, o):
        return _ops.divide(o, self)

    def __matmul__(self, o):
        return _ops.matmul(self, o)

    def __rmatmul__(self, o):
        return _ops.matmul(o, self)

    def __neg__(self):
        return _ops.negative(self)


def _variable_tensor(ref):
    """The VariableV2 output for a Variable or a VariableV2 tensor."""
    if isinstance(ref, Variable):
        return ref._variable
    if isinstance(ref, Tensor) and ref.op.type == "VariableV2":
        return ref
    raise TypeError("the first argument of assign ops must be a Variable (or the "
                    "output of a VariableV2 node), got %r" % (ref,))


def _update(op_type, ref, value, name, read_value=True):
    var = _variable_tensor(ref)
    graph = _graph.graph_for([var])  # a cond/while_loop body when inside one
    with graph.as_default():
        value = _ops.convert_to_tensor(value, dtype=var.dtype)
        attrs = None
        shape = var.shape
        if op_type == "Assign":
            attrs = {"validate_shape": _attrs.bool_attr(True)}
            shape = var.shape if var.shape is not None else value.shape
        op = graph.create_op(op_type, [var, value], [var.dtype], name=name or op_type,
                             attrs=attrs, shapes=[shape])
    return op.outputs[0] if read_value else op


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Assign(ref, value): output 0 is the new value."""
    del use_locking
    if validate_shape is False:
        var = _variable_tensor(ref)
        graph = _graph.graph_for([var])
        with graph.as_default():
            value = _ops.convert_to_tensor(value, dtype=var.dtype)
            return graph.create_op(
                "Assign", [var, value], [var.dtype], name=name or "Assign",
                attrs={"validate_shape": _attrs.bool_attr(False)},
                shapes=[value.shape]).outputs[0]
    return _update("Assign", ref, value, name)


def assign_add(ref, value, use_locking=None, name=None):
    del use_locking
    return _update("AssignAdd", ref, value, name)


def assign_sub(ref, value, use_locking=None, name=None):
    del use_locking
    return _update("AssignSub", ref, value, name)


def global_variables():
    return _graph.get_default_graph().get_collection(GLOBAL_VARIABLES)


all_variables = global_variables


def trainable_variables():
    return _graph.get_default_graph().get_collection(TRAINABLE_VARIABLES)


def variables_initializer(var_list, name="init"):
    """A NoOp named ``name`` with control inputs on each variable's initializer."""
    graph = var_list[0].graph if var_list else _graph.get_default_graph()
    return graph.create_op("NoOp", name=name,
                           control_inputs=[v.initializer for v in var_list])


def global_variables_initializer():
    """``variables_initializer(global_variables(), name="init")``."""
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer
