"""Traced graphs on the server: ``sess.load_onnx(path_or_bytes)`` and
``sess.load_graph(graph, outputs)`` return a callable :class:`GraphFunction`."""

import os

import numpy as np

from graphd import _tensor, _upload, pictures


class GraphValue:
    """A graph input or output as the model declares it: ``name``, ``dtype`` (a
    numpy dtype, or None when graphd has none for it; float32 for bfloat16),
    ``datatype`` (the graphd.v1.DataType value) and ``shape`` (a tuple with None
    for unknown dims, or None for an unknown rank). ``sequence`` is True for an
    ONNX sequence of tensors and ``optional`` for an ONNX optional; their
    ``dtype`` and ``shape`` are those of the tensors they hold."""

    def __init__(self, info):
        self.sequence = bool(info.sequence)
        self.optional = bool(info.optional)
        from graphd.v1 import dtypes
        self.name = info.name
        self.datatype = int(info.spec.dtype)
        try:
            self.dtype = dtypes.as_dtype(info.spec.dtype).as_numpy_dtype
        except Exception:  # noqa: BLE001 - a dtype numpy cannot hold
            self.dtype = None
        shape = info.spec.shape
        self.shape = None if shape.unknown_rank else tuple(None if d < 0 else int(d) for d in shape.dim)

    @property
    def kind(self):
        """"tensor", "sequence", "optional" or "optional sequence"."""
        base = "sequence" if self.sequence else "tensor"
        return ("optional " + base if self.sequence else "optional") if self.optional else base

    def __repr__(self):
        return "GraphValue(name=%r, kind=%s, dtype=%s, shape=%s)" % (self.name, self.kind, self.dtype, self.shape)


def _array(value, spec):
    array = np.asarray(value)
    if spec.dtype is not None and not isinstance(value, np.ndarray) and array.dtype != spec.dtype:
        array = array.astype(spec.dtype)  # Python scalars and lists take the declared dtype
    return array


def _tensor_proto(value, spec):
    """``value`` as a TensorProto of the type ``spec`` declares."""
    array = _array(value, spec)
    datatype = None
    if spec.datatype == _tensor.DT_BFLOAT16 and array.dtype.kind == "f":
        datatype = _tensor.DT_BFLOAT16  # floats (numpy has no bfloat16) rounded to nearest even
    return _tensor.make_tensor_proto(array, datatype)


def _encode(value, spec, out, optional):
    """Fills ``out`` (a graphd.v1.GraphValue) with ``value`` as ``spec`` declares it."""
    if optional:
        out.optional.SetInParent()
        if value is not None:
            _encode(value, spec, out.optional.value, False)
        return
    if spec.sequence:
        if isinstance(value, np.ndarray) or not isinstance(value, (list, tuple)):
            raise TypeError("input %r is a sequence of tensors: pass a list of arrays, got %s" % (
                spec.name, type(value).__name__))
        seq = out.sequence
        seq.SetInParent()
        if spec.dtype is not None:
            seq.dtype = _tensor.datatype_from_numpy(np.dtype(spec.dtype))
        for item in value:
            seq.tensors.add().CopyFrom(_tensor_proto(item, spec))
        return
    out.tensor.CopyFrom(_tensor_proto(value, spec))


def _decode(value):
    """A graphd.v1.GraphValue as an array, a list of arrays, or None (an empty optional)."""
    kind = value.WhichOneof("kind")
    if kind == "tensor":
        return np.asarray(_tensor.tensor_proto_to_ndarray(value.tensor))
    if kind == "sequence":
        return [np.asarray(_tensor.tensor_proto_to_ndarray(t)) for t in value.sequence.tensors]
    if kind == "optional":
        return _decode(value.optional.value) if value.optional.HasField("value") else None
    raise ValueError("the server returned an empty graph value")


class GraphFunction:
    """A graph loaded into a session. Call it with numpy inputs, positionally in
    graph-input order or by input name; returns one array for a single-output
    graph, else a tuple in graph-output order.

    ONNX sequences and optionals (see :class:`GraphValue`'s ``kind``): a sequence
    input takes a list (or tuple) of arrays and a sequence output comes back as a
    list of arrays; an optional input takes None (empty) or its value, and an
    optional output comes back as None or its value (an array, or a list of
    arrays for an optional sequence).

    ``import_seconds`` is the time the server spent importing the model (parsing,
    checking, a first build); the rest of the load was the transfer."""

    def __init__(self, client, response):
        self._client = client
        self.name = response.name
        self.inputs = [GraphValue(i) for i in response.inputs]
        self.outputs = [GraphValue(o) for o in response.outputs]
        self.opset = response.opset
        self.import_seconds = response.import_us / 1e6

    @property
    def input_names(self):
        return [i.name for i in self.inputs]

    @property
    def output_names(self):
        return [o.name for o in self.outputs]

    def _bind(self, args, kwargs):
        names = self.input_names
        if len(args) > len(names):
            raise TypeError("%s() takes %d input%s (%s), got %d" % (
                self.name, len(names), "" if len(names) == 1 else "s", ", ".join(names), len(args)))
        values = list(args) + [None] * (len(names) - len(args))
        given = [True] * len(args) + [False] * (len(names) - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError("%s() has no input named %r (inputs: %s)" % (self.name, key, ", ".join(names)))
            i = names.index(key)
            if given[i]:
                raise TypeError("%s() got input %r twice" % (self.name, key))
            values[i], given[i] = value, True
        missing = [n for n, g in zip(names, given) if not g]
        if missing:
            raise TypeError("%s() is missing input%s %s" % (
                self.name, "" if len(missing) == 1 else "s", ", ".join(repr(m) for m in missing)))
        return values

    def __call__(self, *args, timeout=None, **kwargs):
        from graphd.v1 import session_pb2
        values = self._bind(args, kwargs)
        request = session_pb2.CallGraphRequest(session_handle=self._client.session_handle, name=self.name)
        if all(not (spec.sequence or spec.optional) for spec in self.inputs):
            for value, spec in zip(values, self.inputs):
                request.inputs.add().CopyFrom(_tensor_proto(value, spec))
        else:
            for value, spec in zip(values, self.inputs):
                _encode(value, spec, request.values.add(), spec.optional)
        response = self._client.connection.session("CallGraph", request, timeout)
        if len(response.values):
            outputs = tuple(_decode(v) for v in response.values)
        else:
            outputs = tuple(np.asarray(_tensor.tensor_proto_to_ndarray(t)) for t in response.outputs)
        return outputs[0] if len(outputs) == 1 else outputs

    def _describe(self, include_graphs):
        from graphd.v1 import session_pb2
        request = session_pb2.DescribeFunctionRequest(session_handle=self._client.session_handle, function=self.name,
                                                      include_graphs=include_graphs)
        return self._client.connection.session("DescribeFunction", request, None)

    def signatures(self):
        """The concrete input signatures built so far, e.g. ``"(x: float32[2,3])"``
        (one per input shape the graph was called with)."""
        return list(self._describe(False).signature)

    def placement(self, index=0):
        """Where concrete function ``index`` (see signatures()) runs: ``(dict node
        name -> device name, copies per call)``. In a ``device="gpu"`` session ops
        without a GPU kernel show ``/device:CPU:0``."""
        return _placement(self._describe(False), self.name, index)

    def _concrete(self, index):
        concrete = self._describe(True).concrete
        if not concrete:
            raise ValueError("%s has no concrete function yet: call it first" % self.name)
        if not 0 <= index < len(concrete):
            raise IndexError("%s has %d concrete function%s, no index %d" % (
                self.name, len(concrete), "" if len(concrete) == 1 else "s", index))
        return concrete[index]

    def to_dot(self, index=0):
        """Graphviz DOT text of concrete function ``index`` (see signatures()): nodes
        with op, dtype and shape; If/Loop bodies as clusters. Before any call, the
        function built for the declared input shapes."""
        return self._concrete(index).dot

    def graph_def(self, index=0):
        """Concrete function ``index`` as ``(GraphDef proto, input names, output
        names)``: arguments are Placeholders, If/While bodies library functions;
        ``client.load_graph(g, outputs, inputs)`` loads it back."""
        c = self._concrete(index)
        return c.graph_def, list(c.input_names), list(c.output_names)

    def render(self, path, index=0, format=None):
        """Draws concrete function ``index`` to ``path`` (svg, png... by Graphviz's
        ``dot``; ``.dot``/``.gv`` write the DOT text)."""
        return pictures.render_dot(self.to_dot(index), path, format)

    def __repr__(self):
        return "<graphd.GraphFunction %r inputs=%s outputs=%s>" % (self.name, self.input_names, self.output_names)


def _placement(response, name, index):
    placements = response.placement
    if not placements:
        raise ValueError("%s has no concrete function yet: call it first" % name)
    if not 0 <= index < len(placements):
        raise IndexError("%s has %d concrete function%s, no index %d" % (
            name, len(placements), "" if len(placements) == 1 else "s", index))
    p = placements[index]
    return dict(p.node_device), p.copies


def load_onnx(client, path_or_bytes, name=None, timeout=None, reduce_retracing=False):
    """Reads the model (on the client: the server never opens a path) and
    registers it in ``client``'s session. The model goes in chunks
    (LoadGraphStream), so its size is bounded by the server's memory, not by its
    message limit."""
    from graphd.v1 import session_pb2
    if not isinstance(path_or_bytes, (bytes, bytearray, memoryview, str, os.PathLike)):
        raise TypeError("load_onnx takes a path or the model's bytes, got %s" % type(path_or_bytes).__name__)
    header = session_pb2.LoadGraphRequest(session_handle=client.session_handle, name=name or "",
                                          reduce_retracing=reduce_retracing)
    response = _upload.load_graph_stream(client.connection, header, path_or_bytes, timeout)
    return GraphFunction(client, response)


def _tensor_name(t, what):
    """"node" / "node:i" for a name, or a graphd.v1 Tensor / Operation."""
    if isinstance(t, str):
        return t
    name = getattr(t, "name", None)
    if isinstance(name, str):
        return name
    raise TypeError("%s must be tensor names or graphd.v1 tensors, got %r" % (what, t))


def load_graph(client, graph, outputs, inputs=None, name=None, timeout=None, reduce_retracing=False):
    """Registers a GraphDef (a graphd.v1.Graph or a GraphDef proto) as a function:
    ``inputs`` are its Placeholders (default: all, in creation order), ``outputs``
    the tensors it returns (tensors or names)."""
    from graphd.v1 import session_pb2
    graph_def = graph.as_graph_def() if hasattr(graph, "as_graph_def") else graph
    if isinstance(outputs, (str,)) or not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    request = session_pb2.LoadGraphRequest(session_handle=client.session_handle, name=name or "",
                                           reduce_retracing=reduce_retracing)
    request.graph_def.CopyFrom(graph_def)
    request.output_names.extend(_tensor_name(t, "outputs") for t in outputs)
    if inputs is not None:
        # A Placeholder is named by its node: "x:0" and "x" both mean node x.
        request.input_names.extend(_tensor_name(t, "inputs").split(":")[0] for t in inputs)
    response = client.connection.session("LoadGraph", request, timeout)
    return GraphFunction(client, response)
