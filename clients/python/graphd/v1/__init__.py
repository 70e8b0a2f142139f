"""graphd.v1: a TensorFlow-1-compatible graph API running on a graphd server.

    import graphd.v1 as tf
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    y = tf.nn.relu(tf.matmul(x, w) + 1.0)
    with tf.Session("grpc://localhost:50051") as sess:
        sess.run(tf.global_variables_initializer())
        print(sess.run(y, {x: [[1, 2, 3]]}))

The generated protobuf modules (graphd.v1.*_pb2) live in this package too;
this module imports them only through explicit submodule imports.
"""

import importlib.util as _importlib_util

if _importlib_util.find_spec("graphd.v1.session_pb2") is None:
    raise ImportError(
        "graphd's generated protobuf modules (graphd/v1/*_pb2.py) are missing: run "
        "`make build`, or from the repository root: protoc -I proto "
        "--python_out=clients/python --grpc_python_out=clients/python "
        "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin "
        "proto/graphd/v1/*.proto")

from graphd import errors
from graphd.v1 import dtypes
from graphd.v1 import nn
from graphd.v1 import strings
from graphd.v1 import layers
from graphd.v1 import train
from graphd.v1.array_ops import (argmax, argmin, concat, expand_dims, gather, placeholder_with_default, squeeze,
                                 stack, transpose)
from graphd.v1.variable_scope import (constant_initializer, get_variable, glorot_uniform_initializer,
                                      ones_initializer, random_normal_initializer, random_uniform_initializer,
                                      truncated_normal_initializer, variable_scope, zeros_initializer)
from graphd.v1.gradients import gradients
from graphd.v1.compare_ops import (equal, floordiv, floormod, greater, greater_equal, less,
                                   less_equal, logical_and, logical_not, logical_or, mod,
                                   not_equal)
from graphd.v1.control_flow import cond, while_loop
from graphd.v1.logging_ops import print_ as print  # noqa: A001 (tf.print)
from graphd.v1.dtypes import (DType, as_dtype, bfloat16, bool, double, float16, float32,
                              float64, half, int8, int16, int32, int64, string, uint8,
                              uint16, uint32, uint64)
from graphd.v1.graph import (Graph, Operation, Tensor, control_dependencies,
                             get_default_graph, name_scope, reset_default_graph)
from graphd.v1.ops import (add, add_n, cast, constant, convert_to_tensor, div, divide, exp,
                           group, identity, log, matmul, maximum, minimum, multiply, negative,
                           no_op, one_hot, ones, placeholder, realdiv, reduce_max, reduce_mean,
                           reduce_sum, reshape, rsqrt, sigmoid, sqrt, square, subtract, tanh,
                           truediv, truncatediv, zeros)
from graphd.v1.session import ConfigProto, Session, get_default_session
from graphd.v1.session_pb2 import RunMetadata, RunOptions
from graphd.v1.shapes import TensorShape
from graphd.v1.variables import (Variable, all_variables, assign, assign_add, assign_sub,
                                 global_variables, global_variables_initializer,
                                 initialize_all_variables, trainable_variables,
                                 variables_initializer)

GraphKeys = type("GraphKeys", (), {"GLOBAL_VARIABLES": "variables",
                                   "TRAINABLE_VARIABLES": "trainable_variables"})

__all__ = [
    # dtypes
    "DType", "as_dtype", "dtypes", "float32", "float64", "float16", "bfloat16", "half",
    "double", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
    "string",
    # graphs
    "Graph", "Operation", "Tensor", "TensorShape", "GraphKeys", "get_default_graph",
    "reset_default_graph", "control_dependencies", "name_scope",
    # ops
    "placeholder", "constant", "convert_to_tensor", "zeros", "ones", "identity", "no_op",
    "group", "add", "add_n", "subtract", "multiply", "divide", "div", "truediv", "realdiv",
    "truncatediv", "negative", "maximum", "minimum", "matmul", "sigmoid", "tanh", "nn",
    "reduce_sum", "reduce_mean", "reduce_max", "reshape", "cast",
    # comparisons, logic and control flow
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
    "logical_or", "logical_not", "floormod", "mod", "floordiv", "cond", "while_loop",
    "print", "strings", "layers", "concat", "stack", "gather", "transpose", "argmax", "argmin", "expand_dims",
    "squeeze", "placeholder_with_default", "variable_scope", "get_variable", "zeros_initializer",
    "ones_initializer", "constant_initializer", "random_normal_initializer", "random_uniform_initializer",
    "truncated_normal_initializer", "glorot_uniform_initializer", "train", "gradients", "sqrt", "rsqrt", "exp", "log", "square", "one_hot",
    # variables
    "Variable", "assign", "assign_add", "assign_sub", "global_variables", "all_variables",
    "trainable_variables", "global_variables_initializer", "initialize_all_variables",
    "variables_initializer",
    # sessions and errors
    "Session", "ConfigProto", "RunOptions", "RunMetadata", "get_default_session", "errors",
]
