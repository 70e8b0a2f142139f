"""Training on the server: tf.Module, tf.keras.optimizers, tf.clip_by_global_norm.

Models are trained by tf.function train steps sent as source; the results are
checked against numpy and torch references computed here.
"""

import numpy as np
import pytest
import torch

import graphd

MODULES = '''
import tensorflow as tf

class Dense(tf.Module):
  def __init__(self, n_in, n_out, name=None):
    super().__init__(name=name)
    self.w = tf.Variable(tf.ones([n_in, n_out]) * 0.5, name="w")
    self.b = tf.Variable(tf.zeros([n_out]), name="b")
    self.calls = tf.Variable(0, trainable=False, name="calls")

  def __call__(self, x):
    return tf.nn.relu(tf.matmul(x, self.w) + self.b)

class Net(tf.Module):
  def __init__(self):
    super().__init__()
    self.second = Dense(3, 1)
    self.first = Dense(2, 3, name="layer_one")
    self.extra = [tf.Variable(1.0, name="e0"), {"b": tf.Variable(2.0, name="eb"), "a": tf.Variable(3.0, name="ea")}]

  @tf.function
  def __call__(self, x):
    with self.name_scope:
      return self.second(self.first(x))

  @tf.function
  def scaled(self, x, k):
    return self(x) * k

net = Net()

@tf.function
def run(x):
  return net(x)

@tf.function
def shapes():
  return [tf.shape(v) for v in net.trainable_variables], [tf.shape(v) for v in net.variables]

def inheritance():
  return isinstance(net, tf.Module), isinstance(net.first, Dense), issubclass(Net, tf.Module)
'''


@pytest.fixture
def modules(client):
    return client.load_module(MODULES, filename="modules.py")


def test_module_variables_in_tensorflows_order(modules):
    trainable, every = modules.shapes()
    # Net's own leaves in attribute order (extra: e0, then the dict by key: ea, eb),
    # then the submodules found (first, second), each b before w.
    assert [list(s) for s in trainable] == [[], [], [], [3], [2, 3], [1], [3, 1]]
    # `variables` adds the untrainable counters, in attribute order ("calls" < "w").
    assert [list(s) for s in every] == [[], [], [], [3], [], [2, 3], [1], [], [3, 1]]


def test_module_call_and_decorated_method(modules):
    x = np.ones([1, 2], np.float32)
    np.testing.assert_allclose(modules.run(x), [[1.5]])


def test_module_names_and_subclassing(client):
    src = MODULES + '''
@tf.function
def names():
  return tf.constant(net.name), tf.constant(net.first.name), tf.constant(net.second.name), len(net.submodules)
'''
    mod = client.load_module(src, filename="names.py")
    name, first, second, n = mod.names()
    assert (name, first, second) == (b"net", b"layer_one", b"dense")
    assert int(n) == 2


def test_invalid_module_name_is_a_value_error(client):
    src = '''
import tensorflow as tf
class M(tf.Module):
  def __init__(self):
    super().__init__(name="not valid")
m = M()
'''
    with pytest.raises(ValueError, match="not a valid module name"):
        client.load_module(src, filename="badname.py")


LINEAR = '''
import tensorflow as tf

w = tf.Variable(tf.zeros([3, 1]))
b = tf.Variable(0.0)

@tf.function
def train_step(x, y, lr):
  with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
  gw, gb = tape.gradient(loss, [w, b])
  w.assign_sub(lr * gw)
  b.assign_sub(lr * gb)
  return loss

@tf.function
def weights():
  return w.read_value(), b.read_value()
'''


def test_linear_regression_with_assign_sub(client):
    mod = client.load_module(LINEAR, filename="linear.py")
    rng = np.random.default_rng(0)
    x = rng.normal(size=[64, 3]).astype(np.float32)
    true_w = np.array([[2.0], [-1.0], [0.5]], np.float32)
    y = x @ true_w + 0.3
    losses = [float(mod.train_step(x, y, np.float32(0.1))) for _ in range(200)]
    assert losses[-1] < 1e-4 < losses[0]
    w, b = mod.weights()
    np.testing.assert_allclose(w, true_w, atol=1e-2)
    assert float(b) == pytest.approx(0.3, abs=1e-2)


MLP = '''
import tensorflow as tf

class Dense(tf.Module):
  def __init__(self, w, b, activation=None):
    super().__init__()
    self.w = tf.Variable(w)
    self.b = tf.Variable(b)
    self.activation = activation

  def __call__(self, x):
    y = tf.matmul(x, self.w) + self.b
    return self.activation(y) if self.activation is not None else y

class MLP(tf.Module):
  def __init__(self, w1, b1, w2, b2):
    super().__init__()
    self.hidden = Dense(w1, b1, tf.nn.relu)
    self.out = Dense(w2, b2)

  def __call__(self, x):
    return self.out(self.hidden(x))

model = None
opt = None

def build(w1, b1, w2, b2, kind):
  global model, opt
  model = MLP(w1, b1, w2, b2)
  if kind == 0:
    opt = tf.keras.optimizers.Adam(learning_rate=0.01)
  elif kind == 1:
    opt = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True)
  else:
    opt = tf.keras.optimizers.RMSprop(learning_rate=0.005, momentum=0.5, centered=True)

@tf.function
def train_step(x, labels):
  with tf.GradientTape() as tape:
    logits = model(x)
    loss = tf.reduce_mean(-tf.reduce_sum(tf.one_hot(labels, 3) * tf.nn.log_softmax(logits), axis=1))
  grads = tape.gradient(loss, model.trainable_variables)
  grads, norm = tf.clip_by_global_norm(grads, 5.0)
  opt.apply_gradients(zip(grads, model.trainable_variables))
  return loss

@tf.function
def predict(x):
  return tf.argmax(model(x), axis=1)

@tf.function
def iterations():
  return opt.iterations.read_value()
'''


def blobs(rng, n):
    centers = np.array([[2.0, 0.0], [-2.0, 1.0], [0.0, -2.5]], np.float32)
    labels = rng.integers(0, 3, n)
    x = centers[labels] + rng.normal(scale=0.7, size=[n, 2]).astype(np.float32)
    return x.astype(np.float32), labels.astype(np.int32)


def test_mlp_module_trained_with_adam_classifies(client):
    rng = np.random.default_rng(1)
    x, labels = blobs(rng, 256)
    w1 = rng.normal(scale=0.5, size=[2, 16]).astype(np.float32)
    w2 = rng.normal(scale=0.5, size=[16, 3]).astype(np.float32)
    src = MLP + "\nbuild(%r, %r, %r, %r, 0)\n" % (
        w1.tolist(), [0.0] * 16, w2.tolist(), [0.0] * 3)
    mod = client.load_module(src, filename="mlp.py")
    first = float(mod.train_step(x, labels))
    for _ in range(150):
        last = float(mod.train_step(x, labels))
    assert last < first / 3
    test_x, test_labels = blobs(rng, 200)
    accuracy = np.mean(np.asarray(mod.predict(test_x)) == test_labels)
    assert accuracy >= 0.95
    assert int(mod.iterations()) == 151


def torch_reference(kind, w1, w2, x, labels, steps):
    """The same model and updates in torch (Keras's update rules, written out)."""
    params = [torch.tensor(w1, dtype=torch.float64), torch.zeros(16, dtype=torch.float64),
              torch.tensor(w2, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)]
    for p in params:
        p.requires_grad_(True)
    slots = [dict(m=torch.zeros_like(p), v=torch.zeros_like(p), a=torch.zeros_like(p)) for p in params]
    xt = torch.tensor(x, dtype=torch.float64)
    yt = torch.tensor(labels, dtype=torch.long)
    losses = []
    for t in range(1, steps + 1):
        h = torch.relu(xt @ params[0] + params[1])
        logits = h @ params[2] + params[3]
        loss = torch.nn.functional.cross_entropy(logits, yt)
        grads = torch.autograd.grad(loss, params)
        norm = torch.sqrt(sum(torch.sum(g * g) for g in grads))
        scale = 5.0 * torch.minimum(1.0 / norm, torch.tensor(1.0 / 5.0, dtype=torch.float64))
        grads = [g * scale for g in grads]
        losses.append(float(loss))
        with torch.no_grad():
            for p, g, s in zip(params, grads, slots):
                if kind == 0:  # Adam, lr 0.01
                    s["m"] += (g - s["m"]) * 0.1
                    s["v"] += (g * g - s["v"]) * 0.001
                    alpha = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                    p -= s["m"] * alpha / (torch.sqrt(s["v"]) + 1e-7)
                elif kind == 1:  # SGD, lr 0.05, momentum 0.9, nesterov
                    s["m"].copy_(-g * 0.05 + s["m"] * 0.9)
                    p += -g * 0.05 + s["m"] * 0.9
                else:  # RMSprop, lr 0.005, rho 0.9, momentum 0.5, centered
                    s["v"].copy_(0.9 * s["v"] + 0.1 * g * g)
                    s["a"].copy_(0.9 * s["a"] + 0.1 * g)
                    inc = 0.005 * g / torch.sqrt(s["v"] - s["a"] * s["a"] + 1e-7)
                    s["m"].copy_(0.5 * s["m"] + inc)
                    p -= s["m"]
    return losses


@pytest.mark.parametrize("kind", [0, 1, 2], ids=["adam", "sgd_nesterov", "rmsprop_centered_momentum"])
def test_optimizers_follow_keras_update_rules_step_by_step(client, kind):
    rng = np.random.default_rng(2)
    x, labels = blobs(rng, 32)
    w1 = rng.normal(scale=0.5, size=[2, 16]).astype(np.float32)
    w2 = rng.normal(scale=0.5, size=[16, 3]).astype(np.float32)
    src = MLP + "\nbuild(%r, %r, %r, %r, %d)\n" % (w1.tolist(), [0.0] * 16, w2.tolist(), [0.0] * 3, kind)
    mod = client.load_module(src, filename="opt.py")
    losses = [float(mod.train_step(x, labels)) for _ in range(8)]
    expected = torch_reference(kind, w1, w2, x, labels, 8)
    np.testing.assert_allclose(losses, expected, rtol=2e-4)


def test_apply_gradients_without_any_gradient_is_a_value_error(client):
    src = '''
import tensorflow as tf
v = tf.Variable(1.0)
u = tf.Variable(2.0)
opt = tf.keras.optimizers.SGD(0.1)

@tf.function
def step(x):
  with tf.GradientTape() as tape:
    y = u * x
  grads = tape.gradient(y, [v])
  opt.apply_gradients(zip(grads, [v]))
  return y
'''
    mod = client.load_module(src, filename="nograd.py")
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        mod.step(np.float32(1.0))


def test_minimize_with_a_loss_callable(client):
    src = '''
import tensorflow as tf
v = tf.Variable(3.0)
opt = tf.keras.optimizers.SGD(learning_rate=0.25)

@tf.function
def step():
  opt.minimize(lambda: v * v, [v])
  return v.read_value()
'''
    mod = client.load_module(src, filename="minimize.py")
    # v <- v - 0.25 * 2v = v / 2
    assert float(mod.step()) == pytest.approx(1.5)
    assert float(mod.step()) == pytest.approx(0.75)


def test_clip_by_global_norm(client):
    src = '''
import tensorflow as tf

@tf.function
def clip(a, b, c):
  return tf.clip_by_global_norm([a, b], c)
'''
    mod = client.load_module(src, filename="clip.py")
    a = np.array([3.0, 0.0], np.float32)
    b = np.array([[4.0]], np.float32)
    (ca, cb), norm = mod.clip(a, b, np.float32(2.5))
    assert float(norm) == pytest.approx(5.0)
    np.testing.assert_allclose(ca, a / 2)
    np.testing.assert_allclose(cb, b / 2)
    (ca, cb), norm = mod.clip(a, b, np.float32(10.0))
    np.testing.assert_allclose(ca, a)


LENET = '''
import tensorflow as tf

class LeNet(tf.Module):
  def __init__(self):
    super().__init__()
    self.c1 = tf.Variable(tf.zeros([5, 5, 1, 6]))
    self.c2 = tf.Variable(tf.zeros([5, 5, 6, 16]))
    self.f1 = tf.Variable(tf.zeros([400, 120]))
    self.f2 = tf.Variable(tf.zeros([120, 84]))
    self.f3 = tf.Variable(tf.zeros([84, 10]))
    self.b1 = tf.Variable(tf.zeros([6]))
    self.b3 = tf.Variable(tf.zeros([120]))

  def __call__(self, x):
    h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(x, self.c1, 1, "SAME") + self.b1), 2, 2, "VALID")
    h = tf.nn.avg_pool2d(tf.nn.relu(tf.nn.conv2d(h, self.c2, 1, "VALID")), 2, 2, "VALID")
    h = tf.reshape(h, [-1, 400])
    h = tf.nn.relu(tf.matmul(h, self.f1) + self.b3)
    h = tf.tanh(tf.matmul(h, self.f2))
    return tf.matmul(h, self.f3)

net = LeNet()
opt = tf.keras.optimizers.SGD(learning_rate=0.05)

@tf.function
def load(c1, c2, f1, f2, f3):
  for v, value in zip([net.c1, net.c2, net.f1, net.f2, net.f3], [c1, c2, f1, f2, f3]):
    v.assign(value)
  return 0

@tf.function
def step(x, labels):
  with tf.GradientTape() as tape:
    logits = net(x)
    loss = tf.reduce_mean(-tf.reduce_sum(tf.one_hot(labels, 10) * tf.nn.log_softmax(logits), axis=1))
  opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))
  return loss

@tf.function
def weights():
  return net.c1.read_value(), net.c2.read_value(), net.f1.read_value(), net.b1.read_value()
'''


def test_lenet_training_matches_torch(client):
    rng = np.random.default_rng(3)
    shapes = {"c1": [5, 5, 1, 6], "c2": [5, 5, 6, 16], "f1": [400, 120], "f2": [120, 84], "f3": [84, 10]}
    init = {k: (rng.normal(size=s) * np.sqrt(2.0 / np.prod(s[:-1]))).astype(np.float32) for k, s in shapes.items()}
    x = rng.normal(size=[8, 28, 28, 1]).astype(np.float32)
    labels = rng.integers(0, 10, 8).astype(np.int32)
    mod = client.load_module(LENET, filename="lenet.py")
    mod.load(*[init[k] for k in ["c1", "c2", "f1", "f2", "f3"]])
    losses = [float(mod.step(x, labels)) for _ in range(3)]

    t = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    b1 = torch.zeros(6, requires_grad=True)
    b3 = torch.zeros(120, requires_grad=True)
    params = [t["c1"], t["c2"], t["f1"], t["f2"], t["f3"], b1, b3]
    xt = torch.tensor(x).permute(0, 3, 1, 2)
    expected = []
    for _ in range(3):
        h = torch.nn.functional.conv2d(xt, t["c1"].permute(3, 2, 0, 1), padding=2) + b1[None, :, None, None]
        h = torch.nn.functional.max_pool2d(torch.relu(h), 2)
        h = torch.nn.functional.avg_pool2d(torch.relu(torch.nn.functional.conv2d(h, t["c2"].permute(3, 2, 0, 1))), 2)
        h = h.permute(0, 2, 3, 1).reshape(-1, 400)  # NHWC order, as the model flattens
        h = torch.relu(h @ t["f1"] + b3)
        h = torch.tanh(h @ t["f2"])
        loss = torch.nn.functional.cross_entropy(h @ t["f3"], torch.tensor(labels, dtype=torch.long))
        expected.append(float(loss))
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= 0.05 * g
    np.testing.assert_allclose(losses, expected, rtol=1e-4)
    c1, c2, f1, b = mod.weights()
    np.testing.assert_allclose(c1, t["c1"].detach().numpy(), atol=1e-4)
    np.testing.assert_allclose(c2, t["c2"].detach().numpy(), atol=1e-4)
    np.testing.assert_allclose(f1, t["f1"].detach().numpy(), atol=1e-4)
    np.testing.assert_allclose(b, b1.detach().numpy(), atol=1e-4)
    assert not np.allclose(c1, init["c1"], atol=1e-4)  # the step moved the filters


OBJECTS = '''
import tensorflow as tf

class Scale(tf.Module):
  def __init__(self):
    super().__init__()
    self.k = tf.Variable(2.0)
    self.inner = Inner()

  @tf.function
  def __call__(self, x):
    return x * self.k

  @tf.function
  def train(self, x, target):
    with tf.GradientTape() as tape:
      loss = tf.reduce_sum(tf.square(self(x) - target))
    self.k.assign_sub(0.05 * tape.gradient(loss, self.k))
    return loss

class Inner(tf.Module):
  @tf.function
  def double(self, x):
    return x * 2.0

  # A method's input_signature leaves out self, as in TensorFlow.
  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.float32)])
  def shift(self, x, by):
    return x + by

scale = Scale()
shifted = scale.inner.shift(tf.constant([1.0, 2.0]), 0.5)  # module-level calls too
'''


def test_module_objects_are_callable_from_the_client(client):
    mod = client.load_module(OBJECTS, filename="objects.py")
    assert "scale" in mod.functions
    np.testing.assert_allclose(mod.scale(np.float32([1.0, 3.0])), [2.0, 6.0])
    np.testing.assert_allclose(mod.scale.inner.double(np.float32(4.0)), 8.0)
    np.testing.assert_allclose(mod.scale.inner.shift(np.float32([1.0, 2.0, 3.0]), 0.5), [1.5, 2.5, 3.5])
    np.testing.assert_allclose(mod.scale.inner.shift(np.float32([4.0]), by=np.float32(1.0)), [5.0])
    assert mod.scale.inner.shift.experimental_get_tracing_count() == 1  # one trace for the signature
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        mod.scale.inner.shift(np.int32([1]), 0.5)
    for _ in range(40):
        mod.scale.train(np.float32([1.0, 2.0]), np.float32([3.0, 6.0]))
    np.testing.assert_allclose(mod.scale(np.float32(1.0)), 3.0, rtol=1e-3)
    with pytest.raises(graphd.errors.NotFoundError, match="scale.missing"):
        mod.scale.missing(np.float32(1.0))
    with pytest.raises(AttributeError):
        mod.scale._secret  # private attributes are not offered
    with pytest.raises(graphd.errors.NotFoundError, match="not a function, a method or a callable object"):
        mod.scale.k(np.float32(1.0))
