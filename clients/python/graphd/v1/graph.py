"""Graph: a TensorFlow-1-style graph built as a GraphDef (its Tensor and
Operation classes live in operation.py and are re-exported here).

A Graph only grows: nodes are appended in creation order, which lets every
Session ship just the nodes its server has not seen yet (see session.py).
"""

import contextlib
import re
import threading

from graphd.v1.operation import Operation, Tensor

_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")


class Graph:
    """A TensorFlow-1-style graph. Thread-safe for op creation."""

    def __init__(self):
        self._lock = threading.RLock()
        self._nodes = []            # NodeDef protos, creation order (what is shipped)
        self._ops = []              # Operation objects, same order
        self._ops_by_name = {}
        self._names_in_use = {}     # name -> use count (TensorFlow's uniquifier)
        self._name_stack = ""
        self._control_stack = []    # frames: list of Operations, or None (cleared)
        self._collections = {}
        self._functions = []        # FunctionDef protos of cond/while_loop bodies, shipped
        self._function_names = set()  # like nodes, in creation order

    # -- names -------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """Prefixes the current name scope and appends _1, _2... when taken."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        with self._lock:
            i = self._names_in_use.get(name, 0)
            if mark_as_used:
                self._names_in_use[name] = i + 1
            if i > 0:
                base = name
                while name in self._names_in_use or name in self._ops_by_name:
                    name = "%s_%d" % (base, i)
                    i += 1
                if mark_as_used:
                    self._names_in_use[name] = 1
        return name

    def get_name_scope(self):
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Prefixes "name/" to the ops created inside; yields the scope string
        ("name/", uniquified). A name ending in "/" re-enters that exact scope;
        None or "" resets to the top level."""
        old = self._name_stack
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield new + "/" if new else ""
        finally:
            self._name_stack = old

    # -- control dependencies ------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside get control inputs (``^name``) on every op in
        ``control_inputs`` (Operations, Tensors or Variables); None clears the
        enclosing control dependencies."""
        if control_inputs is None:
            frame = None
        else:
            frame = [_as_operation(self, c) for c in control_inputs]
        self._control_stack.append(frame)
        try:
            yield
        finally:
            self._control_stack.pop()

    def _current_control_inputs(self):
        ops = []
        for frame in reversed(self._control_stack):
            if frame is None:
                break
            ops[:0] = frame
        return ops

    # -- op creation -------------------------------------------------------
    def create_op(self, op_type, inputs=(), dtypes=(), name=None, attrs=None,
                  shapes=None, control_inputs=(), device=""):
        """Adds a node and returns its Operation.

        inputs: data input Tensors of this graph. dtypes: output dtypes.
        shapes: output static shapes (default: unknown rank). attrs: name ->
        AttrValue proto. name: default ``op_type``; uniquified under the name
        scope, except a name ending in "/" which is taken verbatim (without
        the slash) and must be unused.
        """
        from graphd.v1 import graph_pb2

        inputs = list(inputs)
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError("op %s input %r is not a Tensor" % (op_type, t))
            if t.graph is not self:
                raise ValueError("Tensor %s is from a different Graph" % t.name)
        dtypes = list(dtypes)
        shapes = list(shapes) if shapes is not None else [None] * len(dtypes)
        with self._lock:
            if name is not None and name.endswith("/"):
                node_name = name[:-1]
                if node_name in self._ops_by_name:
                    raise ValueError("Duplicate node name in graph: %r" % node_name)
                self._names_in_use.setdefault(node_name, 1)
            else:
                node_name = self.unique_name(name or op_type)
            if not _VALID_NAME.match(node_name):
                raise ValueError("%r is not a valid node name" % node_name)
            controls = []
            seen = set()
            for c in self._current_control_inputs() + [
                    _as_operation(self, c) for c in control_inputs]:
                if c.name not in seen:
                    seen.add(c.name)
                    controls.append(c)
            node = graph_pb2.NodeDef(name=node_name, op=op_type, device=device or "")
            node.input.extend(t._input_ref() for t in inputs)
            node.input.extend("^" + c.name for c in controls)
            for key, value in (attrs or {}).items():
                node.attr[key].CopyFrom(value)
            op = Operation(self, node, inputs, controls, dtypes, shapes)
            self._nodes.append(node)
            self._ops.append(op)
            self._ops_by_name[node_name] = op
        return op

    # -- lookup --------------------------------------------------------------
    def get_operations(self):
        with self._lock:
            return list(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings, got %r" % (name,))
        if ":" in name:
            raise ValueError("The name %r looks like a Tensor name; Operation names "
                             "have no ':'" % name)
        try:
            return self._ops_by_name[name]
        except KeyError:
            raise KeyError("The name %r refers to an Operation not in the graph." % name) \
                from None

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings, got %r" % (name,))
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError("The name %r refers to an Operation, not a Tensor; Tensor "
                             "names look like '<op_name>:<output_index>'." % name)
        op = self._ops_by_name.get(op_name)
        if op is None or int(index) >= len(op._outputs):
            raise KeyError("The name %r refers to a Tensor which does not exist." % name)
        return op._outputs[int(index)]

    def as_graph_element(self, obj):
        """A Tensor or Operation of this graph for ``obj`` (object or name)."""
        if isinstance(obj, str):
            if ":" in obj:
                return self.get_tensor_by_name(obj)
            return self.get_operation_by_name(obj)
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError("%r is not an element of this graph" % (obj,))
            return obj
        raise TypeError("cannot convert %r to a Tensor or Operation" % (obj,))

    def as_graph_def(self):
        """A GraphDef proto holding (copies of) every node, in creation order, and
        the function library (cond/while_loop bodies)."""
        return self._graph_def_slice((0, 0), self._shipping_mark())

    def _shipping_mark(self):
        """(node count, function count): what a GraphDef slice up to now holds. A
        node's functions are added before it, so a slice never names a function
        it lacks."""
        with self._lock:
            return len(self._nodes), len(self._functions)

    def _graph_def_slice(self, start, stop):
        """The nodes and functions between two shipping marks."""
        from graphd.v1 import graph_pb2
        with self._lock:
            graph_def = graph_pb2.GraphDef(node=self._nodes[start[0]:stop[0]])
            graph_def.library.function.extend(self._functions[start[1]:stop[1]])
            return graph_def

    # -- function library (see control_flow.py) -------------------------------
    def _unique_function_name(self, base):
        """A library function name not yet used in this graph: base, base_1..."""
        with self._lock:
            name, i = base, 0
            while name in self._function_names:
                i += 1
                name = "%s_%d" % (base, i)
            self._function_names.add(name)
            return name

    def _add_function(self, function_def):
        with self._lock:
            self._functions.append(function_def)

    def _can_capture_from(self, graph):
        """Whether ops of this graph may read tensors of ``graph``."""
        return graph is self

    # -- collections ---------------------------------------------------------
    def add_to_collection(self, name, value):
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def get_collection(self, name):
        with self._lock:
            return list(self._collections.get(name, ()))

    # -- default graph -------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        """Makes this the default graph (for this thread) inside the block."""
        _stack().append(self)
        try:
            yield self
        finally:
            _stack().pop()

    def __repr__(self):
        return "<graphd.v1.Graph with %d nodes>" % len(self._nodes)


def _as_operation(graph, obj):
    """Operation for a control input: an Operation, a Tensor's op, a Variable's op."""
    if isinstance(obj, Operation):
        op = obj
    elif isinstance(obj, Tensor):
        op = obj.op
    elif hasattr(obj, "_as_graph_element"):
        op = obj._as_graph_element().op
    elif isinstance(obj, str):
        op = graph.as_graph_element(obj)
        op = op.op if isinstance(op, Tensor) else op
    else:
        raise TypeError("cannot use %r as a control input" % (obj,))
    if op.graph is not graph:
        raise ValueError("control input %s is from a different Graph" % op.name)
    return op


_global_default = Graph()
_local = threading.local()


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def get_default_graph():
    """The innermost ``Graph.as_default()`` graph of this thread, else the
    global default graph."""
    stack = _stack()
    return stack[-1] if stack else _global_default


def reset_default_graph():
    """Replaces the global default graph with a new, empty one."""
    global _global_default
    if _stack():
        raise AssertionError("Do not use reset_default_graph() inside a "
                             "Graph.as_default() block.")
    _global_default = Graph()


def graph_for(tensors):
    """The graph ops reading ``tensors`` go in: the default graph when it may read
    them all (a cond/while_loop body captures tensors of enclosing graphs), else
    the graph of the first of them."""
    default = get_default_graph()
    graphs = [t.graph for t in tensors if t is not None]
    if not graphs or all(default._can_capture_from(g) for g in graphs):
        return default
    return graphs[0]


def control_dependencies(control_inputs):
    """``get_default_graph().control_dependencies(control_inputs)``."""
    return get_default_graph().control_dependencies(control_inputs)


def name_scope(name, default_name=None, values=None):
    """``get_default_graph().name_scope(name or default_name)``."""
    del values
    return get_default_graph().name_scope(name if name is not None else default_name)
