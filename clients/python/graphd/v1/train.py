"""``tf.train`` (TensorFlow 1): optimizers whose update ops run on the server.

GradientDescentOptimizer, MomentumOptimizer and AdamOptimizer build TensorFlow 1's
update rules from graph ops: ``minimize(loss)`` is ``compute_gradients`` (the
server's tf.gradients) then ``apply_gradients``, whose result is the train op to
``sess.run``. Slots (momentum accumulators, Adam's m and v) and Adam's beta powers are
untrainable variables, initialised by ``tf.global_variables_initializer()`` made
after ``minimize``.
"""

from graphd.v1 import dtypes as _dtypes
from graphd.v1 import graph as _graph
from graphd.v1 import ops as _ops
from graphd.v1 import variables as _variables
from graphd.v1.gradients import gradients as _gradients

GLOBAL_STEP = "global_step"


class Saver:
    """Saves the session's variables to a file on the client (numpy .npz, keyed by
    variable name) and restores them by feeding assign ops made here."""

    def __init__(self, var_list=None, max_to_keep=5, name=None):
        if var_list is None:
            var_list = _variables.global_variables()
        if isinstance(var_list, dict):
            items = sorted(var_list.items())
        else:
            items = [(v.name.split(":")[0], v) for v in var_list]
        if not items:
            raise ValueError("No variables to save")
        graph = _graph.graph_for([_ops._tensor_like(v) for _, v in items])
        self._vars = items
        self._feeds = []
        with graph.as_default(), graph.name_scope(name or "save"):
            for key, v in items:
                ph = _ops.placeholder(v.dtype, v.shape, name="restore_" + key.replace("/", "_"))
                self._feeds.append((ph, _variables.assign(v, ph)))

    def save(self, sess, save_path, global_step=None):
        import numpy as np
        path = save_path if global_step is None else "%s-%d" % (save_path, int(global_step))
        if not path.endswith(".npz"):
            path += ".npz"
        values = sess.run([v for _, v in self._vars])
        np.savez(path, **{key: value for (key, _), value in zip(self._vars, values)})
        return path

    def restore(self, sess, save_path):
        import numpy as np
        path = save_path if save_path.endswith(".npz") else save_path + ".npz"
        with np.load(path) as data:
            missing = [key for key, _ in self._vars if key not in data]
            if missing:
                raise ValueError("%s holds no value for %s" % (path, ", ".join(missing)))
            feed = {ph: data[key] for (key, _), (ph, _) in zip(self._vars, self._feeds)}
        sess.run([op for _, op in self._feeds], feed)


def get_global_step(graph=None):
    graph = graph or _graph.get_default_graph()
    steps = graph.get_collection(GLOBAL_STEP)
    return steps[0] if steps else None


def get_or_create_global_step(graph=None):
    graph = graph or _graph.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        with graph.as_default():
            step = _variables.Variable(_ops.constant(0, dtype=_dtypes.int64), trainable=False, name="global_step")
        graph.add_to_collection(GLOBAL_STEP, step)
    return step


create_global_step = get_or_create_global_step


class Optimizer:
    """TensorFlow 1's Optimizer: compute_gradients, apply_gradients, minimize."""

    def __init__(self, use_locking, name):
        del use_locking
        self._name = name
        self._slots = {}

    def get_name(self):
        return self._name

    def compute_gradients(self, loss, var_list=None, gate_gradients=None, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        if var_list is None:
            var_list = _variables.trainable_variables()
        var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = _gradients(loss, var_list, grad_ys=None if grad_loss is None else [grad_loss])
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: %s"
                             % ([v.name for _, v in grads_and_vars],))
        graph = _graph.graph_for([_ops._tensor_like(v) for _, v in pairs])
        with graph.as_default(), graph.name_scope(name or self._name):
            self._prepare(pairs)
            updates = [self._apply(g, v) for g, v in pairs]
            finish = self._finish(updates)
            if global_step is None:
                return _ops.group(finish, name="update")
            with graph.control_dependencies([finish]):
                return _variables.assign_add(global_step, _ops.constant(1, dtype=global_step.dtype),
                                             name="update").op

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=None, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, grad_loss=grad_loss)
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def get_slot(self, var, name):
        return self._slots.get((var.name, name))

    def _slot(self, var, name):
        key = (var.name, name)
        if key not in self._slots:
            base = var.name.split(":")[0]
            with _graph.get_default_graph().name_scope(None):
                self._slots[key] = _variables.Variable(
                    _ops.zeros(var.shape, dtype=var.dtype), trainable=False, name=base + "/" + self._name + "_" + name)
        return self._slots[key]

    def _prepare(self, pairs):
        pass

    def _finish(self, updates):
        return _ops.group(*updates, name="updates")

    def _cast(self, value, var):
        return _ops.cast(_ops.convert_to_tensor(value), var.dtype)


class GradientDescentOptimizer(Optimizer):

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply(self, g, var):
        return _variables.assign_sub(var, self._cast(self._lr, var) * g)


class MomentumOptimizer(Optimizer):

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._momentum = momentum
        self._nesterov = use_nesterov

    def _prepare(self, pairs):
        for _, v in pairs:
            self._slot(v, "momentum")

    def _apply(self, g, var):
        lr, mu = self._cast(self._lr, var), self._cast(self._momentum, var)
        accum = _variables.assign(self._slot(var, "momentum"), self._slot(var, "momentum") * mu + g)
        if self._nesterov:
            return _variables.assign_sub(var, lr * (g + mu * accum))
        return _variables.assign_sub(var, lr * accum)


class AdamOptimizer(Optimizer):

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon
        self._powers = None

    def _prepare(self, pairs):
        for _, v in pairs:
            self._slot(v, "m")
            self._slot(v, "v")
        if self._powers is None:
            dtype = pairs[0][1].dtype
            with _graph.get_default_graph().name_scope(None):
                self._powers = (
                    _variables.Variable(_ops.constant(self._beta1, dtype=dtype), trainable=False, name="beta1_power"),
                    _variables.Variable(_ops.constant(self._beta2, dtype=dtype), trainable=False, name="beta2_power"))

    def _apply(self, g, var):
        b1p, b2p = (self._cast(p, var) for p in self._powers)
        b1, b2 = self._cast(self._beta1, var), self._cast(self._beta2, var)
        one = self._cast(1.0, var)
        lr = self._cast(self._lr, var) * _ops.sqrt(one - b2p) / (one - b1p)
        m = _variables.assign(self._slot(var, "m"), self._slot(var, "m") * b1 + (one - b1) * g)
        v = _variables.assign(self._slot(var, "v"), self._slot(var, "v") * b2 + (one - b2) * g * g)
        return _variables.assign_sub(var, lr * m / (_ops.sqrt(v) + self._cast(self._epsilon, var)))

    def _finish(self, updates):
        graph = _graph.get_default_graph()
        with graph.control_dependencies(updates):
            b1p, b2p = self._powers
            u1 = _variables.assign(b1p, b1p * self._beta1)
            u2 = _variables.assign(b2p, b2p * self._beta2)
        return _ops.group(*(updates + [u1, u2]), name="updates")
