"""``tf.gradients`` for graphd.v1 graphs.

The server differentiates: for each source x the graph gets one node of op
``Gradients`` (inputs ``[ys..., grad_ys..., x]``) that the server expands on
import into the gradient nodes and an Identity of the result. A source that no
op path joins to any of ys gives None here, as TensorFlow; one joined only through
ops without a gradient (comparisons, ArgMax, ...) gets zeros from the server.
"""

from graphd.v1 import attrs as _attrs
from graphd.v1 import graph as _graph
from graphd.v1 import ops as _ops


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _reaches(source, targets):
    """Whether some op path leads from ``source`` to one of ``targets``."""
    wanted = {t.op.name for t in targets}
    seen = set()
    stack = [t.op for t in targets]
    producers = set()
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        producers.add(op.name)
        for t in op.inputs:
            stack.append(t.op)
    return source.op.name in producers or source.op.name in wanted


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None):
    """d(sum of ys)/d(x) for each x in xs (variables or tensors); None where x
    does not reach ys."""
    if stop_gradients is not None:
        raise NotImplementedError("tf.gradients(stop_gradients=...) is not supported by graphd")
    ys = [_ops.convert_to_tensor(y) for y in _as_list(ys)]
    sources = [_ops._tensor_like(x) for x in _as_list(xs)]
    if any(s is None for s in sources):
        raise TypeError("tf.gradients sources must be tensors or variables")
    seeds = [] if grad_ys is None else [_ops.convert_to_tensor(g) for g in _as_list(grad_ys)]
    if seeds and len(seeds) != len(ys):
        raise ValueError("grad_ys has %d tensors for %d ys" % (len(seeds), len(ys)))
    graph = _graph.graph_for(ys + sources + seeds)
    out = []
    with graph.as_default(), graph.name_scope(name):
        for x in sources:
            if not _reaches(x, ys):
                out.append(None)
                continue
            op = graph.create_op(
                "Gradients", ys + seeds + [x], [x.dtype], name=x.op.name.replace("/", "_") + "_grad",
                attrs={"num_ys": _attrs.int_attr(len(ys)), "num_grad_ys": _attrs.int_attr(len(seeds))},
                shapes=[x.shape])
            out.append(op.outputs[0])
    return out
