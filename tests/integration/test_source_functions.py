"""Function source through the real server and client: load a module, call its
functions with numpy and Python arguments; tracing happens once per signature; the
seed articles' outputs, prints and errors."""

import contextlib
import io

import numpy as np
import pytest

import graphd

SEEDS = '''
import tensorflow as tf

delta = 1.0

def huber_loss(a):
  if tf.abs(a) <= delta:
    loss = a * a / 2
  else:
    loss = delta * (tf.abs(a) - delta / 2)
  return loss

def collatz(a):
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter

@tf.function
def double(a):
  print("Tracing with", a)
  return a + a

@tf.function
def add(a, b):
  return a + b

@tf.function
def dense_layer(x, w, b):
  return add(tf.matmul(x, w), b)

@tf.function
def buggy_py_for_tf_break():
  x = 0
  for i in range(5):
    if tf.equal(i, 3):
      break
    x += i
  return x

@tf.function
def f_one_branch():
  if tf.constant(True):
    x = tf.ones([3, 3])
  return x

@tf.function
def structured(x, scale=2):
  return {"scaled": x * scale, "pair": (x, scale), "note": "ok"}
'''


@pytest.fixture
def mod(target):
    with graphd.connect(target) as client:
        yield client.load_module(SEEDS, filename="seeds.py")


def test_huber_loss_and_collatz(mod):
    np.testing.assert_allclose(mod.huber_loss(np.float32(9.0)), 8.5)
    np.testing.assert_allclose(mod.huber_loss(np.float32(0.5)), 0.125)
    out = mod.collatz(np.int32(27))
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.int32
    assert int(out) == 111


def test_tracing_once_per_signature_with_trace_time_print(mod):
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        assert int(mod.double(np.int32(1))) == 2
        assert int(mod.double(np.int32(5))) == 10          # same signature: no trace
        np.testing.assert_allclose(mod.double(np.float32(1.1)), 2.2, rtol=1e-6)
    assert captured.getvalue() == (
        'Tracing with Tensor("a:0", shape=(), dtype=int32)\n'
        'Tracing with Tensor("a:0", shape=(), dtype=float32)\n')
    assert mod.double.experimental_get_tracing_count() == 2


def test_functions_call_functions_and_return_structures(mod):
    out = mod.dense_layer(np.ones([3, 2], np.float32), np.ones([2, 2], np.float32), np.ones([2], np.float32))
    np.testing.assert_array_equal(out, np.full([3, 2], 3.0, np.float32))
    s = mod.structured(np.float32([1, 2]), scale=3)
    np.testing.assert_array_equal(s["scaled"], np.float32([3, 6]))
    np.testing.assert_array_equal(s["pair"][0], np.float32([1, 2]))
    # Python values a tf.function returns come back as tensors, as in TensorFlow.
    assert s["pair"][1] == 3 and s["pair"][1].dtype == np.int32 and s["note"] == b"ok"


def test_to_code_shows_the_autograph_conversion(mod):
    code = mod.collatz.to_code()
    assert code.startswith("def tf__collatz(a):\n")
    assert "ag__.while_stmt(loop_test, loop_body" in code
    assert "ag__.if_stmt(a % 2 == 0, if_body, else_body" in code


def test_user_errors_keep_their_python_class_and_line(mod):
    with pytest.raises(TypeError) as info:
        mod.buggy_py_for_tf_break()
    assert isinstance(info.value, graphd.errors.GraphdError)
    with pytest.raises(ValueError) as info:
        mod.f_one_branch()
    assert "'x' must also be initialized in the else branch" in str(info.value)
    assert 'File "seeds.py", line 47' in str(info.value)
    assert "if tf.constant(True):" in str(info.value)
    # The session still works.
    assert int(mod.collatz(np.int32(6))) == 8


def test_bad_modules_fail_clearly(target):
    with graphd.connect(target) as client:
        with pytest.raises(SyntaxError) as info:
            client.load_module("def f(:\n  pass\n", filename="broken.py")
        assert 'File "broken.py", line 1' in str(info.value)
        with pytest.raises(ImportError):
            client.load_module("import os\n")
        with pytest.raises(NameError):
            client.load_module("open('/etc/passwd')\n")
        m = client.load_module("def f(x):\n    while True:\n        pass\n")
        with pytest.raises(graphd.errors.OpError):
            m.f(1, _timeout=0.5)
        with pytest.raises(AttributeError):
            m.nope


PRINTS = '''
import tensorflow as tf

@tf.function
def f(x):
  print("Traced with", x)
  tf.print("Executed with", x)

def g(n):
  if n >= 0:
    while n < 5:
      n += 1
      print(n)
  return n

@tf.function
def sq(x):
  assert x != 0, 'Do not pass zero!'
  return x * x

@tf.function
def show(v):
  tf.print("v:", v)
  return v
'''


def test_print_at_trace_time_and_tf_print_at_run_time(target):
    with graphd.connect(target) as client:
        mod = client.load_module(PRINTS)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            mod.f(1)
            mod.f(1)
            mod.f(2)
        # The seed: "Traced with 1 / Executed with 1 / Executed with 1 / Traced with 2 /
        # Executed with 2": Python values retrace per value, tf.print runs every call.
        assert out.getvalue() == "Traced with 1\nTraced with 2\n"
        assert err.getvalue() == "Executed with 1\nExecuted with 1\nExecuted with 2\n"
        assert mod.f.experimental_get_tracing_count() == 2


def test_print_of_tensors_in_a_staged_loop_runs_every_call(target):
    with graphd.connect(target) as client:
        mod = client.load_module(PRINTS)
        for _ in range(2):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert int(mod.g(np.int32(2))) == 5
            assert out.getvalue() == "3\n4\n5\n"
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            mod.show(np.float32([[1.5, 2], [3, 4]]))
        assert err.getvalue() == "v: [[1.5 2]\n [3 4]]\n"


def test_assert_on_a_tensor_fails_the_call_with_its_message(target):
    with graphd.connect(target) as client:
        mod = client.load_module(PRINTS)
        np.testing.assert_allclose(mod.sq(np.float32(3.0)), 9.0)
        with pytest.raises(graphd.errors.InvalidArgumentError) as info:
            mod.sq(np.float32(0.0))
        assert "Do not pass zero!" in str(info.value)
        assert "assert x != 0" in str(info.value)  # located at the user's line
        np.testing.assert_allclose(mod.sq(np.float32(-2.0)), 4.0)


SIGNATURE = '''
import tensorflow as tf

@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def next_collatz(x):
  print("Tracing with", x)
  return tf.where(tf.equal(x % 2, 0), x // 2, 3 * x + 1)
'''


def test_input_signature_pins_one_trace(target):
    with graphd.connect(target) as client:
        mod = client.load_module(SIGNATURE)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            np.testing.assert_array_equal(mod.next_collatz(np.int32([1, 2])), [4, 1])
            np.testing.assert_array_equal(mod.next_collatz(np.int32([5, 6, 7])), [16, 3, 22])
        assert out.getvalue() == 'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
        assert mod.next_collatz.experimental_get_tracing_count() == 1
        # "We specified a 1-D tensor in the input signature, so this should fail."
        with pytest.raises(ValueError) as info:
            mod.next_collatz(np.int32([[1, 2], [3, 4]]))
        assert "incompatible with input_signature" in str(info.value)
        with pytest.raises(ValueError):
            mod.next_collatz(np.float32([1.0]))


MYADD = '''
import tensorflow as tf
import numpy as np

@tf.function(autograph=True)
def myadd(a,b):
    for i in tf.range(3):
        tf.print(i)
    c = a+b
    print("tracing")
    return c
'''


def test_seed_myadd_with_strings_and_numbers(target):
    # Seed 004: the first call traces ("tracing") and prints 0 1 2 with tf.print; a call
    # with the same input types only prints 0 1 2; new types trace again.
    with graphd.connect(target) as client:
        mod = client.load_module(MYADD)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            r1 = mod.myadd(np.array(b"hello", dtype=object), np.array(b"world", dtype=object))
            r2 = mod.myadd(np.array(b"good", dtype=object), np.array(b"morning", dtype=object))
            r3 = mod.myadd(np.int32(1), np.int32(2))
        assert r1 == b"helloworld" and r2 == b"goodmorning" and int(r3) == 3
        assert out.getvalue() == "tracing\ntracing\n"
        assert err.getvalue() == "0\n1\n2\n" * 3


def test_get_concrete_function_with_tensor_spec(mod):
    # Seed 003: double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.string)).
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        double_strings = mod.double.get_concrete_function(graphd.TensorSpec(shape=None, dtype=graphd.string))
    assert out.getvalue() == 'Tracing with Tensor("a:0", shape=<unknown>, dtype=string)\n'
    assert double_strings(np.array(b"a", dtype=object)) == b"aa"
    assert double_strings(a=np.array(b"b", dtype=object)) == b"bb"
    # "Using a concrete trace with incompatible types will throw an error"
    with pytest.raises(graphd.errors.InvalidArgumentError):
        double_strings(np.int32(1))


CONCAT = '''
import tensorflow as tf

@tf.function
def buggy_concat():
  x = tf.ones([0, 10])
  for i in tf.range(5):
    x = tf.concat([x, tf.ones([1, 10])], axis=0)
  return x

@tf.function
def concat_with_padding():
  x = tf.zeros([5, 10])
  for i in tf.range(5):
    x = tf.concat([x[:i], tf.ones([1, 10]), tf.zeros([4-i, 10])], axis=0)
    x.set_shape([5, 10])
  return x
'''


def test_loop_shapes_buggy_concat_and_concat_with_padding(target):
    with graphd.connect(target) as client:
        mod = client.load_module(CONCAT)
        with pytest.raises(ValueError) as info:
            mod.buggy_concat()
        assert "shape (0, 10) before the loop, but shape (1, 10) after one iteration" in str(info.value)
        np.testing.assert_array_equal(mod.concat_with_padding(), np.ones([5, 10], np.float32))


EAGER = '''
import tensorflow as tf

third = tf.cast(tf.constant(1) / 3, tf.float32)  # int / int is float64, as in TF
base = tf.zeros([2, tf.constant(3)]) + third
v = tf.Variable(base)

@tf.function
def read():
  return v + 0.0
'''


def test_module_level_code_runs_eagerly(target):
    with graphd.connect(target) as client:
        mod = client.load_module(EAGER)
        np.testing.assert_allclose(mod.read(), np.full([2, 3], 1.0 / 3))


RNN = '''
import tensorflow as tf

def rnn_step(inp, state):
  return inp + state

@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
  # [batch, time, features] -> [time, batch, features]
  input_data = tf.transpose(input_data, [1, 0, 2])
  max_seq_len = input_data.shape[0]

  states = tf.TensorArray(tf.float32, size=max_seq_len)
  state = initial_state
  for i in tf.range(max_seq_len):
    state = rnn_step(input_data[i], state)
    states = states.write(i, state)
  return tf.transpose(states.stack(), [1, 0, 2])

@tf.function
def run(input_data, initial_state):
  return dynamic_rnn(rnn_step, input_data, initial_state)
'''


def test_seed_dynamic_rnn_with_tensor_array(target):
    batch_size, seq_len, feature_size = 2, 3, 4
    rng = np.random.default_rng(0)
    x = rng.uniform(size=[batch_size, seq_len, feature_size]).astype(np.float32)
    with graphd.connect(target) as client:
        mod = client.load_module(RNN)
        out = mod.run(x, np.zeros([batch_size, feature_size], np.float32))
    # state_t = x_t + state_{t-1}: the running sum over time.
    np.testing.assert_allclose(out, np.cumsum(x, axis=1), rtol=1e-6)


LISTS = '''
import tensorflow as tf
from tensorflow import autograph

def f(n):
  z = []
  # We ask you to tell us the element dtype of the list
  autograph.set_element_type(z, tf.int32)
  for i in range(n):
    z.append(i)
  # when you're done with the list, stack it
  # (this is just like np.stack)
  return autograph.stack(z)
'''


def test_seed_list_append_in_a_staged_loop_and_stack(target):
    with graphd.connect(target) as client:
        mod = client.load_module(LISTS)
        np.testing.assert_array_equal(mod.f(np.int32(5)), np.arange(5, dtype=np.int32))  # staged
        np.testing.assert_array_equal(mod.f(3), np.arange(3, dtype=np.int32))  # Python loop, unrolled


PICTURE = '''
import tensorflow as tf

@tf.function
def clipped_sum(x, n):
  s = tf.constant(0.0)
  for i in tf.range(n):
    s += x[i]
  if s > 10.0:
    s = tf.constant(10.0)
  return s
'''


def test_concrete_function_to_dot_and_render(target, tmp_path, monkeypatch):
    with graphd.connect(target) as client:
        mod = client.load_module(PICTURE)
        cf = mod.clipped_sum.get_concrete_function(graphd.TensorSpec([None], graphd.float32),
                                                    graphd.TensorSpec([], graphd.int32))
        dot = cf.to_dot()
        assert dot.startswith('digraph "clipped_sum" {')
        assert '"x" [label="x\\nArg\\nfloat32[?]", shape=ellipse];' in dot
        # The for loop is a While whose cond and body are clusters; the if is an If.
        assert "\\nWhile\\n" in dot and "\\nIf\\n" in dot
        assert ".cond @" in dot and ".body @" in dot
        assert ".then_branch @" in dot and ".else_branch @" in dot
        assert dot.rstrip().endswith("}")
        path = cf.render(str(tmp_path / "f.dot"))
        assert open(path).read() == dot
        # Without Graphviz's dot program an image cannot be drawn: a clear error.
        monkeypatch.setenv("PATH", str(tmp_path))
        with pytest.raises(RuntimeError, match="Graphviz"):
            cf.render(str(tmp_path / "f.svg"))
        # The concrete function still runs.
        assert float(cf(np.array([4, 5, 6], np.float32), np.int32(2))) == 9.0
