"""tf.print for graphd.v1 graphs: a PrintV2 node. What it prints while a Session
runs comes back with the run's result and is written to this process's
sys.stdout / sys.stderr (as TensorFlow prints in-process)."""

import sys

from graphd.v1 import graph as _graph
from graphd.v1 import ops as _ops

_STREAMS = {"stdout": "stdout", "stderr": "stderr"}


def _stream_name(output_stream):
    if output_stream is sys.stdout or output_stream is sys.__stdout__:
        return "stdout"
    if output_stream is sys.stderr or output_stream is sys.__stderr__:
        return "stderr"
    if isinstance(output_stream, str) and output_stream in _STREAMS:
        return _STREAMS[output_stream]
    raise ValueError("graphd's tf.print writes to sys.stdout or sys.stderr, got %r"
                     % (output_stream,))


def print_(*inputs, **kwargs):
    """Prints ``inputs`` (tensors, variables and Python values, joined by
    ``sep``, then ``end``) each time the returned op runs; inside a
    cond/while_loop function it runs with every call of the function.
    Keywords: output_stream (sys.stderr), sep (" "), end ("\\n"), name;
    summarize is accepted and ignored."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    name = kwargs.pop("name", None)
    kwargs.pop("summarize", None)
    if kwargs:
        raise TypeError("print() got unexpected keyword arguments: %s" % ", ".join(kwargs))
    stream = _stream_name(output_stream)
    pieces, tensors = [], []
    for value in inputs:
        tensor = _ops._tensor_like(value)
        if tensor is not None:
            tensors.append(tensor)
            pieces.append("{}")
        else:
            pieces.append(str(value))
    graph = _graph.graph_for(tensors)
    attrs = {"template": _string_attr(sep.join(pieces)), "output_stream": _string_attr(stream),
             "end": _string_attr(end)}
    return graph.create_op("PrintV2", tensors, [], name=name or "PrintV2", attrs=attrs)


def _string_attr(text):
    from graphd.v1 import graph_pb2
    return graph_pb2.AttrValue(s=text.encode("utf-8"))
