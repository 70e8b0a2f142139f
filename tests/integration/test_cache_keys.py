"""Cache keys that capture everything the cached value depends on: two requests that
differ only in one component get two entries (each its own result), and the same
request one. Each case once shared an entry and gave the second request the first
one's result."""

import os

import grpc
import numpy as np

from graphd.kserve import grpc_service_pb2 as pb
from graphd.kserve import grpc_service_pb2_grpc as pb_grpc


# A module's first lines: a class whose instances scale by their own k.
_PRELUDE = '''
import collections
import tensorflow as tf

class A:
  def __init__(self, k):
    self.k = k
  def scale(self, x):
    return x * self.k
'''


def _values(outputs):
    return [np.asarray(o).tolist() for o in outputs]


# compiler/cache/call_signature.cc once keyed an object it did not know by its repr,
# which often does not say which object it is: a bound method is "<method object>",
# a builtin bound to a dict or a variable "<built-in function get>", two classes named
# K "<class 'K'>", and a namedtuple's repr shows an instance as "<A object>", a
# float16 tensor's values as "?" and a tensor of more than 1000 values only by its
# edges. Now: methods by instance and function, namedtuples by class and items, other
# objects by identity.
REPR_SRC = _PRELUDE + '''
a = A(2.0)
b = A(3.0)

@tf.function
def apply(x, fn):
  return fn(x)

bound_a = apply(tf.constant(1.0), a.scale)
bound_b = apply(tf.constant(1.0), b.scale)

d2 = {"k": 2.0}
d3 = {"k": 3.0}

@tf.function
def lookup(x, get):
  return x * get("k")

get_2 = lookup(tf.constant(1.0), d2.get)
get_3 = lookup(tf.constant(1.0), d3.get)

v2 = tf.Variable(2.0)
v3 = tf.Variable(3.0)

@tf.function
def read(x, reader):
  return x * reader()

var_2 = read(tf.constant(1.0), v2.read_value)
var_3 = read(tf.constant(1.0), v3.read_value)

class K:
  k = 2.0
K2 = K
class K:
  k = 3.0
K3 = K

@tf.function
def by_class(x, c):
  return x * c.k

class_2 = by_class(tf.constant(1.0), K2)
class_3 = by_class(tf.constant(1.0), K3)

P = collections.namedtuple("P", ["t"])

@tf.function
def field_k(x, p):
  return x * p.t.k

nt_inst_2 = field_k(tf.constant(1.0), P(a))
nt_inst_3 = field_k(tf.constant(1.0), P(b))

@tf.function
def field_sum(x, p):
  return x + tf.reduce_sum(tf.cast(p.t, tf.float32))

nt_big_0 = field_sum(tf.constant(0.0), P(tf.zeros([2000])))
nt_big_1 = field_sum(tf.constant(0.0), P(tf.concat([tf.zeros([1000]), tf.ones([1]), tf.zeros([999])], 0)))
nt_half_1 = field_sum(tf.constant(0.0), P(tf.cast(tf.constant([1.0]), tf.float16)))
nt_half_5 = field_sum(tf.constant(0.0), P(tf.cast(tf.constant([5.0]), tf.float16)))

def results():
  return (bound_a, bound_b, get_2, get_3, var_2, var_3, class_2, class_3,
          nt_inst_2, nt_inst_3, nt_big_0, nt_big_1, nt_half_1, nt_half_5)
'''


def test_arguments_whose_repr_is_ambiguous_get_their_own_trace(client):
    mod = client.load_module(REPR_SRC, filename="review_repr.py")
    got = _values(mod.results())
    want = [2.0, 3.0,  # a.scale, b.scale
            2.0, 3.0,  # d2.get, d3.get
            2.0, 3.0,  # v2.read_value, v3.read_value
            2.0, 3.0,  # two classes named K
            2.0, 3.0,  # P(a), P(b)
            0.0, 1.0,  # P(2000 zeros), P(the same with a one in the middle)
            1.0, 5.0]  # P(float16 [1.0]), P(float16 [5.0])
    assert got == want


# reduce_retracing generalises the shapes of fed tensors only (SignatureKey::kTensor):
# a tensor inside a container is traced as a constant (kConstTensor, its value in the
# key), so two of the same bytes but different shapes once generalised to one key
# whose function had the second one baked in, and a third shape got its result.
GENERALIZE_SRC = '''
import tensorflow as tf

@tf.function(reduce_retracing=True)
def column_sums(x, c):
  return x + tf.reduce_sum(c[0], axis=0)

base = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
r_2x3 = column_sums(tf.constant(0.0), (tf.reshape(base, [2, 3]),))
r_3x2 = column_sums(tf.constant(0.0), (tf.reshape(base, [3, 2]),))
r_1x6 = column_sums(tf.constant(0.0), (tf.reshape(base, [1, 6]),))

def results():
  return r_2x3, r_3x2, r_1x6
'''


def test_reduce_retracing_never_generalises_a_constant_argument(client):
    mod = client.load_module(GENERALIZE_SRC, filename="review_generalize.py")
    got = _values(mod.results())
    assert got == [[5.0, 7.0, 9.0], [9.0, 12.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]


# server/source_calls.cc Reshape gives the trace's tensor specs the generalised key's
# TensorShapes() in order; that list once held the shapes of constants in containers
# too, so the spec of x got c[0]'s shape [3] and the function refused x of shape [5].
RESHAPE_SRC = '''
import tensorflow as tf

@tf.function(reduce_retracing=True)
def size_of(c, x):
  return tf.shape(x)[0] + 0 * tf.size(c[0])

c = (tf.constant([1.0, 2.0, 3.0]),)
r_2 = size_of(c, tf.zeros([2]))
r_5 = size_of(c, tf.zeros([5]))

def results():
  return r_2, r_5
'''


def test_reduce_retracing_gives_fed_tensors_their_own_shapes(client):
    mod = client.load_module(RESHAPE_SRC, filename="review_reshape.py")
    assert _values(mod.results()) == [2, 5]


# server/models/model_manager.cc LoadModel keeps serving a loaded version whose model
# file (path, size, mtime) is unchanged, unless config.pbtxt changed: every version
# depends on it (here the function a source model serves).
SERVE_SRC = """
import tensorflow as tf

@tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
def double(x):
    return x * 2.0


@tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
def triple(x):
    return x * 3.0
"""


def test_a_reload_after_a_config_change_serves_the_new_config(tmp_path, start_server):
    root = tmp_path / "repo"
    os.makedirs(root / "m" / "1")
    (root / "m" / "1" / "model.py").write_text(SERVE_SRC)
    (root / "m" / "config.pbtxt").write_text('function: "double"\n')
    server = start_server("--model-repository", str(root), "--model-control-mode", "explicit")
    x = np.array([1.0, 2.0], np.float32)

    def infer(stub):
        req = pb.ModelInferRequest(model_name="m")
        req.inputs.add(name="x", datatype="FP32", shape=[2])
        req.raw_input_contents.append(x.tobytes())
        resp = stub.ModelInfer(req, timeout=30)
        return np.frombuffer(resp.raw_output_contents[0], np.float32).tolist()

    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="m"), timeout=60)
        assert infer(stub) == [2.0, 4.0]
        (root / "m" / "config.pbtxt").write_text('function: "triple"\n')
        stub.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="m"), timeout=60)
        assert infer(stub) == [3.0, 6.0]


# The same objects (a method of one instance, a module-level builtin, one class, a
# namedtuple of equal values) key one trace, however often they are passed.
SAME_SRC = _PRELUDE + '''
a = A(2.0)
P = collections.namedtuple("P", ["t"])

@tf.function
def apply(x, fn):
  return fn(x)

@tf.function
def field(x, p):
  return x * p.t

r = [apply(tf.constant(1.0), a.scale), apply(tf.constant(2.0), a.scale),
     apply(tf.constant(-1.0), tf.nn.relu), apply(tf.constant(3.0), tf.nn.relu),
     field(tf.constant(1.0), P(2.0)), field(tf.constant(2.0), P(2.0))]

def results():
  return r
'''


def test_the_same_objects_key_one_trace(client):
    mod = client.load_module(SAME_SRC, filename="same_objects.py")
    assert _values(mod.results()) == [2.0, 4.0, 0.0, 3.0, 2.0, 4.0]
    assert mod.apply.experimental_get_tracing_count() == 2  # a.scale once, tf.nn.relu once
    assert mod.field.experimental_get_tracing_count() == 1
