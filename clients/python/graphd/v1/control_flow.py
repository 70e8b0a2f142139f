"""TensorFlow-1 control flow: cond and while_loop, as TensorFlow's cond_v2/while_v2.

Each Python callable is traced once into a FuncGraph whose FunctionDef joins the
graph's function library; the If/While node names the functions in its
then_branch/else_branch or cond/body attributes. Tensors of enclosing graphs that
a callable reads are captured: they become extra inputs of the If/While node
(after the predicate / after the loop variables) and extra arguments of every
function of the node, in one order. A While body passes its captures through
unchanged, so the node's outputs are the loop variables, then the captures.
"""

from graphd.v1 import compare_ops as _compare
from graphd.v1 import dtypes as _dtypes
from graphd.v1 import graph as _graph
from graphd.v1 import nest as _nest
from graphd.v1 import ops as _ops
from graphd.v1 import shapes as _shapes
from graphd.v1.func_graph import FuncGraph
from graphd.v1.operation import Operation

_COND_MISMATCH = ("true_fn and false_fn arguments to tf.cond must have the same number, "
                  "type, and overall structure of return values.")


# -- helpers --------------------------------------------------------------------
def _func_attr(name):
    from graphd.v1 import graph_pb2
    return graph_pb2.AttrValue(func=name)


def _common_shape(a, b):
    """The most specific shape both ``a`` and ``b`` are instances of."""
    if a is None or b is None or len(a) != len(b):
        return None
    return _shapes.TensorShape(x if x == y else None for x, y in zip(a, b))


def _shape_str(shape):
    return "<unknown>" if shape is None else str(tuple(shape))


def _compatible(shape, invariant):
    return invariant is None or _shapes.TensorShape(invariant).is_compatible_with(shape)


def _union(*capture_lists):
    seen, out = set(), []
    for captures in capture_lists:
        for t in captures:
            if id(t) not in seen:
                seen.add(id(t))
                out.append(t)
    return out


def _to_body_tensor(func_graph, value, what, dtype=None):
    """``value`` (a callable's output leaf) as a tensor of ``func_graph``."""
    if isinstance(value, Operation):
        raise TypeError("%s returned the Operation %r; graphd.v1 control flow returns "
                        "tensors only (use tf.control_dependencies and an identity)"
                        % (what, value.name))
    if value is None:
        raise TypeError("%s returned None inside its outputs" % what)
    with func_graph.as_default():
        return func_graph.capture(_ops.convert_to_tensor(value, dtype=dtype))


def _function_base(node_name):
    return node_name.replace("/", "_")


# -- cond -------------------------------------------------------------------------
def _trace_branch(graph, fn, name, what):
    func_graph = FuncGraph(graph, name)
    with func_graph.as_default():
        out = fn()
    if out is None:
        return func_graph, None, []
    leaves = [_to_body_tensor(func_graph, v, what) for v in _nest.flatten(out)]
    return func_graph, out, leaves


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, decided when the graph runs.

    pred: a bool scalar Tensor (not a Python bool). Both callables take no
    arguments and return the same structure of tensors (or Python values) with
    the same dtypes; the result has that structure (with strict=False a
    one-element list or tuple is unpacked, as in TensorFlow 1). Callables that
    return None give an If without outputs, and cond returns that Operation.
    """
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    pred = _ops.convert_to_tensor(pred)
    if pred.dtype != _dtypes.bool:
        raise TypeError("pred must be a bool tensor, got %s" % pred.dtype.name)
    if pred.shape is not None and len(pred.shape) != 0:
        raise ValueError("pred must be a scalar, got shape %s" % _shape_str(pred.shape))
    graph = _graph.graph_for([pred])
    with graph.as_default():
        node_name = graph.unique_name(name or "cond")
        base = _function_base(node_name)
        true_graph, true_out, true_leaves = _trace_branch(
            graph, true_fn, graph._unique_function_name(base + "_true"), "true_fn")
        false_graph, false_out, false_leaves = _trace_branch(
            graph, false_fn, graph._unique_function_name(base + "_false"), "false_fn")
        if not _nest.same_structure(true_out, false_out):
            raise ValueError("%s\n\ntrue_fn output: %r\nfalse_fn output: %r"
                             % (_COND_MISMATCH, true_out, false_out))
        for i, (t, f) in enumerate(zip(true_leaves, false_leaves)):
            if t.dtype != f.dtype:
                raise TypeError("%s Output %d is %s in true_fn but %s in false_fn."
                                % (_COND_MISMATCH, i, t.dtype.name, f.dtype.name))
        captures = _union(true_graph.captures, false_graph.captures)
        functions = []
        for func_graph, leaves in ((true_graph, true_leaves), (false_graph, false_leaves)):
            args = [func_graph.capture(c) for c in captures]
            functions.append(func_graph.to_function_def(args, leaves))
        for fdef in functions:
            graph._add_function(fdef)
        op = graph.create_op(
            "If", [pred] + captures, [t.dtype for t in true_leaves], name=node_name + "/",
            attrs={"then_branch": _func_attr(functions[0].name),
                   "else_branch": _func_attr(functions[1].name)},
            shapes=[_common_shape(t.shape, f.shape) for t, f in zip(true_leaves, false_leaves)],
            control_inputs=_union(true_graph.outer_control_inputs,
                                  false_graph.outer_control_inputs))
    if true_out is None:
        return op
    result = _nest.pack_sequence_as(true_out, op.outputs)
    if not strict and isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


# -- while_loop ---------------------------------------------------------------------
def _invariants(structure, loop_tensors, shape_invariants, single):
    if shape_invariants is None:
        return [t.shape for t in loop_tensors]
    given = [shape_invariants] if single else shape_invariants
    try:
        leaves = _nest.flatten_up_to(structure, given)
    except ValueError:
        raise ValueError("shape_invariants must have the same structure as loop_vars: "
                         "%r vs %r" % (shape_invariants, structure)) from None
    invariants = [_shapes.as_shape(s) for s in leaves]
    for t, inv in zip(loop_tensors, invariants):
        if not _compatible(t.shape, inv):
            raise ValueError("The shape invariant specified for %s is not compatible with "
                             "the initial shape of the loop variable. It enters the loop "
                             "with shape %s, but the specified shape invariant is %s."
                             % (t.name, _shape_str(t.shape), _shape_str(inv)))
    return invariants


def _loop_args(func_graph, loop_tensors, invariants):
    return [func_graph.add_arg(t.dtype, inv, t.op.name.split("/")[-1])
            for t, inv in zip(loop_tensors, invariants)]


def _call(fn, structure, args, single):
    packed = _nest.pack_sequence_as(structure, args)
    return fn(packed[0]) if single else fn(*packed)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """Repeats ``body`` while ``cond`` is true (TensorFlow 1's tf.while_loop).

    loop_vars: a (nested) list/tuple of tensors or Python/numpy values (a single
    value is passed and returned as itself). cond(*vars) returns a bool scalar;
    body(*vars) returns the next values, same structure and dtypes, shapes
    within the shape invariants (default: the initial shapes). With
    maximum_iterations the loop also stops after that many iterations. Returns
    the final values in the structure of loop_vars; a single loop variable is
    returned unwrapped unless return_same_structure.
    """
    del back_prop, swap_memory  # no gradients; no memory swapping
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    flat_vars = _nest.flatten(structure)
    if not flat_vars:
        raise ValueError("No loop variables provided")
    graph = _graph.graph_for([_ops._tensor_like(v) for v in flat_vars])
    with graph.as_default():
        node_name = graph.unique_name(name or "while")
        base = _function_base(node_name)
        with graph.name_scope(node_name + "/"):
            loop_tensors = [_ops.convert_to_tensor(v) for v in flat_vars]
            invariants = _invariants(structure, loop_tensors, shape_invariants, single)
            counted = maximum_iterations is not None
            if counted:
                limit = _ops.convert_to_tensor(maximum_iterations, dtype=_dtypes.int32)
                if limit.shape is not None and len(limit.shape) != 0:
                    raise ValueError("maximum_iterations must be a scalar, got shape %s"
                                     % _shape_str(limit.shape))
                loop_tensors = [_ops.constant(0, _dtypes.int32, name="iteration")] + loop_tensors
                invariants = [_shapes.TensorShape(())] + invariants

        cond_graph = FuncGraph(graph, graph._unique_function_name(base + "_cond"))
        cond_args = _loop_args(cond_graph, loop_tensors, invariants)
        with cond_graph.as_default():
            test = _call(cond, structure, cond_args[1:] if counted else cond_args, single)
            test = _to_body_tensor(cond_graph, test, "cond")
            if test.dtype != _dtypes.bool:
                raise TypeError("cond must return a bool tensor, got %s" % test.dtype.name)
            if test.shape is not None and len(test.shape) != 0:
                raise ValueError("cond must return a scalar, got shape %s"
                                 % _shape_str(test.shape))
            if counted:
                test = _compare.logical_and(_compare.less(cond_args[0], limit), test)

        body_graph = FuncGraph(graph, graph._unique_function_name(base + "_body"))
        body_args = _loop_args(body_graph, loop_tensors, invariants)
        with body_graph.as_default():
            out = _call(body, structure, body_args[1:] if counted else body_args, single)
            if len(flat_vars) == 1 and not _nest.is_nested(out):
                out = [out]
            flat_out = _nest.flatten(out)
            if len(flat_out) != len(flat_vars):
                raise ValueError("body returned %d values for %d loop variables"
                                 % (len(flat_out), len(flat_vars)))
            start = 1 if counted else 0
            results = []
            for i, value in enumerate(flat_out):
                var = loop_tensors[start + i]
                leaf = _ops._tensor_like(value)
                t = _to_body_tensor(body_graph, value, "body",
                                    dtype=None if leaf is not None else var.dtype)
                if t.dtype != var.dtype:
                    raise TypeError("Loop variable %d (%s) enters the loop as %s but body "
                                    "returns %s" % (i, var.name, var.dtype.name, t.dtype.name))
                if not _compatible(t.shape, invariants[start + i]):
                    raise ValueError(
                        "Input tensor '%s' enters the loop with shape %s, but has shape %s "
                        "after one iteration. To allow the shape to vary across "
                        "iterations, use the `shape_invariants` argument of tf.while_loop "
                        "to specify a less-specific shape."
                        % (var.name, _shape_str(invariants[start + i]), _shape_str(t.shape)))
                results.append(t)
            if counted:
                results.insert(0, _ops.add(body_args[0], 1))

        captures = _union(cond_graph.captures, body_graph.captures)
        cond_caps = [cond_graph.capture(c) for c in captures]
        body_caps = [body_graph.capture(c) for c in captures]
        cond_def = cond_graph.to_function_def(cond_args + cond_caps, [test])
        body_def = body_graph.to_function_def(body_args + body_caps, results + body_caps)
        graph._add_function(cond_def)
        graph._add_function(body_def)
        op = graph.create_op(
            "While", loop_tensors + captures,
            [t.dtype for t in loop_tensors] + [c.dtype for c in captures],
            name=node_name + "/",
            attrs={"cond": _func_attr(cond_def.name), "body": _func_attr(body_def.name)},
            shapes=list(invariants) + [c.shape for c in captures],
            control_inputs=_union(cond_graph.outer_control_inputs,
                                  body_graph.outer_control_inputs))
    outputs = op.outputs[1 if counted else 0:len(loop_tensors)]
    packed = _nest.pack_sequence_as(structure, outputs)
    if single or (not return_same_structure and len(flat_vars) == 1):
        return packed[0]
    return packed
