"""Function source on the server: ``client.load_module(source)`` and calling the
functions it defines, tf.function style."""

import sys

import numpy as np

from graphd import _tensor, pictures


def to_pyvalue(value, pb):
    """A Python value as a graphd.v1.PyValue (numpy arrays and scalars as tensors)."""
    out = pb.PyValue()
    if value is None:
        out.none = True
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int):
        out.int_value = value
    elif isinstance(value, float):
        out.float_value = value
    elif isinstance(value, str):
        out.str_value = value
    elif isinstance(value, bytes):
        out.bytes_value = value
    elif isinstance(value, (np.ndarray, np.generic)):
        out.tensor.CopyFrom(_tensor.make_tensor_proto(np.asarray(value)))
    elif isinstance(value, (list, tuple)):
        items = out.list if isinstance(value, list) else out.tuple
        items.SetInParent()
        for item in value:
            items.items.add().CopyFrom(to_pyvalue(item, pb))
    elif isinstance(value, dict):
        out.dict.SetInParent()
        for k, v in value.items():
            out.dict.keys.add().CopyFrom(to_pyvalue(k, pb))
            out.dict.values.add().CopyFrom(to_pyvalue(v, pb))
    else:
        raise TypeError("graphd cannot send a %s to the server" % type(value).__name__)
    return out


def from_pyvalue(p):
    """A graphd.v1.PyValue as a Python value (tensors as numpy arrays)."""
    kind = p.WhichOneof("kind")
    if kind is None or kind == "none":
        return None
    if kind == "tensor":
        return np.asarray(_tensor.tensor_proto_to_ndarray(p.tensor))
    if kind == "list":
        return [from_pyvalue(i) for i in p.list.items]
    if kind == "tuple":
        return tuple(from_pyvalue(i) for i in p.tuple.items)
    if kind == "dict":
        return {from_pyvalue(k): from_pyvalue(v) for k, v in zip(p.dict.keys, p.dict.values)}
    return getattr(p, kind)


class TensorSpec:
    """Describes a tensor argument, as ``tf.TensorSpec``: ``shape`` (None for any
    rank; None dimensions for any size) and ``dtype`` (a graphd dtype)."""

    def __init__(self, shape=None, dtype=None, name=None):
        from graphd.v1 import dtypes
        self.shape = None if shape is None else tuple(shape)
        self.dtype = dtypes.as_dtype(dtype if dtype is not None else dtypes.float32)
        self.name = name

    def to_proto(self):
        from graphd.v1 import tensor_pb2
        spec = tensor_pb2.TensorSpec(dtype=self.dtype.enum)
        if self.shape is None:
            spec.shape.unknown_rank = True
        else:
            spec.shape.dim.extend(-1 if d is None else int(d) for d in self.shape)
        return spec

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=graphd.%s, name=%r)" % (self.shape, self.dtype.name, self.name)


def _call(module, name, args, kwargs, timeout=None, specs=(), trace_only=False, response_out=None):
    from graphd.v1 import session_pb2 as pb
    request = pb.CallRequest(
        session_handle=module._client.session_handle, module_id=module.module_id, function=name,
        args=[to_pyvalue(a, pb) for a in args],
        kwargs=[pb.NamedValue(name=k, value=to_pyvalue(v, pb)) for k, v in kwargs.items()],
        concrete_signature=[s.to_proto() for s in specs], trace_only=trace_only)
    if timeout is not None:
        request.options.timeout_in_ms = max(1, int(timeout * 1000))
    response = module._client.connection.session("Call", request, timeout)
    if response.stdout:
        sys.stdout.write(response.stdout)
    if response.stderr:
        sys.stderr.write(response.stderr)
    if response_out is not None:
        response_out.append(response)
    return from_pyvalue(response.output)


class ConcreteFunction:
    """One trace of a function for fixed argument specs (get_concrete_function).
    Calling it with arguments that do not fit raises InvalidArgumentError."""

    def __init__(self, function, specs):
        self._function = function
        self.structured_input_signature = tuple(specs)
        responses = []
        _call(function._module, function.__name__, (), {}, specs=specs, trace_only=True,
              response_out=responses)
        self._dot = responses[0].graph_dot

    def __call__(self, *args, **kwargs):
        return _call(self._function._module, self._function.__name__, args, kwargs,
                     specs=self.structured_input_signature)

    def to_dot(self):
        """The concrete function's graph (after the server's graph passes) as Graphviz
        DOT text: nodes with op, dtype and shape; if/while bodies as clusters."""
        return self._dot

    def render(self, path, format=None):
        """Writes the graph to ``path``: DOT text for ``.dot``/``.gv``, otherwise drawn
        by Graphviz's ``dot`` program (``format`` defaults to the file's extension,
        e.g. svg or png). Raises RuntimeError when Graphviz is not installed."""
        return pictures.render_dot(self._dot, path, format)


class Function:
    """A function of a loaded module; calling it calls it on the server."""

    def __init__(self, module, name):
        self._module = module
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        timeout = kwargs.pop("_timeout", None)
        return _call(self._module, self.__name__, args, kwargs, timeout=timeout)

    def get_concrete_function(self, *specs):
        """Traces the function for ``specs`` (graphd.TensorSpec) and returns that
        concrete function."""
        return ConcreteFunction(self, specs)

    def experimental_get_tracing_count(self):
        return self.describe().tracing_count

    def placement(self, index=0):
        """Where concrete function ``index`` runs: ``(dict node name -> device
        name, copies per call)`` (see graphd.GraphFunction.placement)."""
        from graphd.graphs import _placement
        return _placement(self.describe(), self.__name__, index)

    def describe(self):
        from graphd.v1 import session_pb2 as pb
        return self._module._client.connection.session("DescribeFunction", pb.DescribeFunctionRequest(
            session_handle=self._module._client.session_handle, module_id=self._module.module_id,
            function=self.__name__))

    def to_code(self):
        from graphd.v1 import session_pb2 as pb
        return self._module._client.connection.session("ToCode", pb.ToCodeRequest(
            session_handle=self._module._client.session_handle, module_id=self._module.module_id,
            function=self.__name__)).code

    def __getattr__(self, name):
        # A method of a module-level object: mod.model.step(...) calls "model.step".
        if name.startswith("_"):
            raise AttributeError(name)
        return Function(self._module, self.__name__ + "." + name)

    def __repr__(self):
        return "<graphd function %s>" % self.__name__


class Module:
    """A module loaded into the session; its functions and top-level objects are
    attributes (``mod.f(x)``, ``mod.model(x)`` for its __call__, ``mod.model.step(x)``)."""

    def __init__(self, client, module_id, functions):
        self._client = client
        self.module_id = module_id
        self.functions = tuple(functions)

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.functions:
            raise AttributeError("the module has no function %r (it has: %s)" % (name, ", ".join(self.functions)))
        return Function(self, name)


def load_module(client, source, filename="<module>"):
    from graphd.v1 import session_pb2 as pb
    response = client.connection.session("LoadModule", pb.LoadModuleRequest(
        session_handle=client.session_handle, source=source, filename=filename))
    if response.stdout:
        sys.stdout.write(response.stdout)
    if response.stderr:
        sys.stderr.write(response.stderr)
    return Module(client, response.module_id, response.function)
