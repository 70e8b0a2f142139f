"""FuncGraph: the graph a cond branch or while_loop cond/body is traced into.

A FuncGraph records the ops its Python callable creates. Tensors of enclosing
graphs read inside become *captures*: each gets an argument of the function
(an "Arg" pseudo-op, not a shipped node) and the caller passes the outer tensor
as an extra input of its If/While node, as TensorFlow's cond_v2/while_v2 do.
Variables are not captured by value: a body that uses a VariableV2 output
(assign, assign_add...) gets its own VariableV2 node of the same name, which
the server resolves to the same session variable. Control inputs on ops of
enclosing graphs are lifted onto the If/While node.

Once made into a FunctionDef (``to_function_def``) the graph is finished: ops
can no longer be added, so tensors leaked out of a body fail loudly.
"""

from graphd.v1 import attrs as _attrs
from graphd.v1 import graph as _graph
from graphd.v1.operation import Operation, Tensor


class FuncGraph(_graph.Graph):
    """A function body nested in ``outer_graph`` (a Graph or FuncGraph)."""

    def __init__(self, outer_graph, name):
        super().__init__()
        self.outer_graph = outer_graph
        self.name = name
        self._captures = {}       # id(outer tensor) -> (outer tensor, arg tensor)
        self._capture_order = []  # outer tensors, first use first
        self._outer_controls = []  # ops of enclosing graphs used as control inputs
        self._pending_functions = []  # FunctionDefs of nested bodies, until finished
        self._finished = False

    # -- nesting ---------------------------------------------------------------
    def _root(self):
        graph = self
        while isinstance(graph, FuncGraph):
            graph = graph.outer_graph
        return graph

    def _can_capture_from(self, graph):
        return graph is self or self.outer_graph._can_capture_from(graph)

    def _unique_function_name(self, base):
        return self._root()._unique_function_name(base)

    def _add_function(self, function_def):
        # Nested bodies join the library only when this body is finished too.
        self._pending_functions.append(function_def)

    # -- arguments and captures --------------------------------------------------
    def add_arg(self, dtype, shape, name):
        """A new argument tensor (output 0 of an "Arg" pseudo-op named ``name``,
        uniquified at the top level of the body)."""
        from graphd.v1 import graph_pb2
        with self._lock:
            saved, self._name_stack = self._name_stack, ""
            try:
                arg_name = self.unique_name(name)
            finally:
                self._name_stack = saved
            node = graph_pb2.NodeDef(name=arg_name, op="Arg")
            op = Operation(self, node, [], [], [dtype], [shape])
            self._ops_by_name[arg_name] = op
        return op.outputs[0]

    @property
    def captures(self):
        """The captured outer tensors (tensors of ``outer_graph``), in order."""
        return list(self._capture_order)

    def capture(self, tensor):
        """The tensor of this graph standing for ``tensor`` (of an enclosing graph)."""
        if tensor.graph is self:
            return tensor
        if not self._can_capture_from(tensor.graph):
            raise ValueError("Tensor %s is from a graph that does not enclose this "
                             "cond/while_loop function (%s)" % (tensor.name, self.name))
        if tensor.op.type == "VariableV2":
            return self._local_variable(tensor)
        key = id(tensor)
        if key in self._captures:
            return self._captures[key][1]
        outer = tensor
        if tensor.graph is not self.outer_graph:
            outer = self.outer_graph.capture(tensor)
        arg = self.add_arg(tensor.dtype, tensor.shape, tensor.op.name)
        self._captures[key] = (tensor, arg)
        self._captures.setdefault(id(outer), (outer, arg))
        self._capture_order.append(outer)
        return arg

    def _local_variable(self, var_tensor):
        name = var_tensor.op.name
        existing = self._ops_by_name.get(name)
        if existing is not None and existing.type == "VariableV2":
            return existing.outputs[0]
        if existing is not None:
            raise ValueError("cannot use variable %s inside %s: the function already "
                             "has a node named %r" % (name, self.name, name))
        node = var_tensor.op.node_def
        return self.create_op("VariableV2", [], [var_tensor.dtype], name=name + "/",
                              attrs=dict(node.attr), shapes=[var_tensor.shape]).outputs[0]

    # -- op creation ---------------------------------------------------------------
    def create_op(self, op_type, inputs=(), dtypes=(), name=None, attrs=None,
                  shapes=None, control_inputs=(), device=""):
        if self._finished:
            raise ValueError("cannot add op %s to the finished function %s (a tensor "
                             "made inside a cond/while_loop function was used outside "
                             "it)" % (name or op_type, self.name))
        inputs = [self.capture(t) if isinstance(t, Tensor) else t for t in inputs]
        own = []
        for c in control_inputs:
            op = _graph._as_operation(self._owner_of(c), c)
            if op.graph is self:
                own.append(op)
            else:
                self._lift_control(op)
        return super().create_op(op_type, inputs, dtypes, name=name, attrs=attrs,
                                 shapes=shapes, control_inputs=own, device=device)

    def control_dependencies(self, control_inputs):
        """As Graph.control_dependencies; ops of enclosing graphs become control
        inputs of the If/While node instead."""
        if control_inputs is None:
            return super().control_dependencies(None)
        own = []
        for c in control_inputs:
            op = _graph._as_operation(self._owner_of(c), c)
            if op.graph is self:
                own.append(op)
            else:
                self._lift_control(op)
        return super().control_dependencies(own)

    def _owner_of(self, obj):
        """The graph an Operation/Tensor/Variable belongs to, for _as_operation."""
        if isinstance(obj, (Operation, Tensor)):
            return obj.graph
        if hasattr(obj, "_as_graph_element"):
            return obj._as_graph_element().graph
        return self

    def _lift_control(self, op):
        if not self._can_capture_from(op.graph):
            raise ValueError("control input %s is from a graph that does not enclose "
                             "this cond/while_loop function" % op.name)
        if op not in self._outer_controls:
            self._outer_controls.append(op)

    @property
    def outer_control_inputs(self):
        return list(self._outer_controls)

    # -- finishing -------------------------------------------------------------------
    def to_function_def(self, args, results):
        """Finishes the graph and returns its FunctionDef (named ``self.name``)
        taking ``args`` (its Arg tensors, in order) and returning ``results`` (its
        tensors). Nested bodies' FunctionDefs move to the enclosing graph first."""
        from graphd.v1 import graph_pb2
        fdef = graph_pb2.FunctionDef(name=self.name)
        for a in args:
            if a.graph is not self or a.op.type != "Arg":
                raise ValueError("%s is not an argument of %s" % (a.name, self.name))
            fdef.input_name.append(a.op.name)
            fdef.input.add(dtype=a.dtype.enum, shape=_attrs.shape_proto(a.shape))
        for r in results:
            if r.graph is not self:
                raise ValueError("%s is not a tensor of %s" % (r.name, self.name))
            fdef.output_tensor.append(r.name)
            fdef.output.add(dtype=r.dtype.enum, shape=_attrs.shape_proto(r.shape))
        with self._lock:
            self._finished = True
            fdef.node.extend(self._nodes)
            pending, self._pending_functions = self._pending_functions, []
        for nested in pending:
            self.outer_graph._add_function(nested)
        return fdef
