// The parts of TensorFlow's Python library that graphd writes in its own Python
// subset, as TensorFlow writes them in Python: tf.keras.optimizers (SGD, Adam,
// RMSprop with apply_gradients and minimize) and tf.clip_by_global_norm /
// tf.linalg.global_norm. They run in every module before its own code, in a
// namespace of their own, and their update rules are TensorFlow 2's (Keras 2.11+).
#include "compiler/tracer/prelude.h"

namespace graphd::compiler::tracer {

const char* PreludeSource() {
  return R"py(import tensorflow as tf


def global_norm(t_list, name=None):
  total = None
  for t in t_list:
    if t is None:
      continue
    s = tf.reduce_sum(tf.square(t))
    total = s if total is None else total + s
  if total is None:
    raise ValueError("global_norm() needs at least one tensor")
  return tf.sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
  t_list = list(t_list)
  if use_norm is None:
    use_norm = global_norm(t_list)
  clip_norm = tf.cast(clip_norm, use_norm.dtype)
  scale = clip_norm * tf.minimum(1.0 / use_norm, 1.0 / clip_norm)
  clipped = []
  for t in t_list:
    clipped.append(None if t is None else tf.identity(t * tf.cast(scale, t.dtype)))
  return clipped, use_norm


class Optimizer(object):
  """Keras's optimizer: slots per variable, created by the first apply_gradients."""

  def __init__(self, name, learning_rate):
    self.name = name
    self.learning_rate = learning_rate
    self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name=name + "/iter")
    self._slot_vars = []
    self._slot_values = []

  def _slots(self, var):
    for i in range(len(self._slot_vars)):
      if self._slot_vars[i] is var:
        return self._slot_values[i]
    slots = {}
    for slot in self._slot_names():
      slots[slot] = tf.Variable(tf.zeros_like(var), trainable=False, name=var.name[:-2] + "/" + slot)
    self._slot_vars.append(var)
    self._slot_values.append(slots)
    return slots

  def _slot_names(self):
    return []

  def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False):
    pairs = [(g, v) for g, v in grads_and_vars if g is not None]
    if not pairs:
      raise ValueError("No gradients provided for any variable.")
    for g, v in pairs:
      self._update(tf.cast(g, v.dtype), v, self._slots(v))
    return self.iterations.assign_add(1)

  def minimize(self, loss, var_list, tape=None):
    if tape is None:
      if not callable(loss):
        raise ValueError("`tape` is required when a `Tensor` loss is passed.")
      with tf.GradientTape() as t:
        value = loss()
      grads = t.gradient(value, var_list)
    else:
      grads = tape.gradient(loss, var_list)
    return self.apply_gradients(zip(grads, var_list))

  def _lr(self, var):
    return tf.cast(self.learning_rate, var.dtype)


class SGD(Optimizer):

  def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD"):
    super().__init__(name, learning_rate)
    if momentum < 0 or momentum > 1:
      raise ValueError("`momentum` must be between [0, 1].")
    self.momentum = momentum
    self.nesterov = nesterov

  def _slot_names(self):
    return ["momentum"] if self.momentum != 0 else []

  def _update(self, g, var, slots):
    lr = self._lr(var)
    if self.momentum == 0:
      var.assign_add(-g * lr)
      return
    m = slots["momentum"]
    momentum = tf.cast(self.momentum, var.dtype)
    m.assign(-g * lr + m * momentum)
    if self.nesterov:
      var.assign_add(-g * lr + m * momentum)
    else:
      var.assign_add(m)


class Adam(Optimizer):

  def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-07, amsgrad=False, name="Adam"):
    super().__init__(name, learning_rate)
    if amsgrad:
      raise NotImplementedError("Adam(amsgrad=True) is not supported by graphd")
    self.beta_1 = beta_1
    self.beta_2 = beta_2
    self.epsilon = epsilon

  def _slot_names(self):
    return ["m", "v"]

  def _update(self, g, var, slots):
    lr = self._lr(var)
    step = tf.cast(self.iterations + 1, var.dtype)
    beta_1_power = tf.pow(tf.cast(self.beta_1, var.dtype), step)
    beta_2_power = tf.pow(tf.cast(self.beta_2, var.dtype), step)
    alpha = lr * tf.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)
    m = slots["m"]
    v = slots["v"]
    m.assign_add((g - m) * (1.0 - self.beta_1))
    v.assign_add((tf.square(g) - v) * (1.0 - self.beta_2))
    var.assign_sub((m * alpha) / (tf.sqrt(v) + self.epsilon))


class RMSprop(Optimizer):

  def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-07, centered=False, name="RMSprop"):
    super().__init__(name, learning_rate)
    self.rho = rho
    self.momentum = momentum
    self.epsilon = epsilon
    self.centered = centered

  def _slot_names(self):
    names = ["velocity"]
    if self.momentum > 0:
      names.append("momentum")
    if self.centered:
      names.append("average_gradient")
    return names

  def _update(self, g, var, slots):
    lr = self._lr(var)
    velocity = slots["velocity"]
    velocity.assign(self.rho * velocity + (1.0 - self.rho) * tf.square(g))
    if self.centered:
      average = slots["average_gradient"]
      average.assign(self.rho * average + (1.0 - self.rho) * g)
      denominator = velocity - tf.square(average) + self.epsilon
    else:
      denominator = velocity + self.epsilon
    increment = lr * g * tf.math.rsqrt(denominator)
    if self.momentum > 0:
      m = slots["momentum"]
      m.assign(self.momentum * m + increment)
      var.assign_add(-m)
    else:
      var.assign_add(-increment)


tf.keras.optimizers.Optimizer = Optimizer
tf.keras.optimizers.SGD = SGD
tf.keras.optimizers.Adam = Adam
tf.keras.optimizers.RMSprop = RMSprop
tf.clip_by_global_norm = clip_by_global_norm
tf.linalg.global_norm = global_norm
)py";
}

}  // namespace graphd::compiler::tracer
