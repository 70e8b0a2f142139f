"""Seed 003 (tf.function and AutoGraph), second half: AutoGraph control flow, loops
and their rules, through the real server; see test_seed_000_001.py."""

import numpy as np
import pytest

import graphd
from seed_helpers import PREAMBLE_003, load

SIMPLE_LOOP_003 = '''
import tensorflow as tf

# Simple loop

@tf.function
def f(x):
  while tf.reduce_sum(x) > 1:
    tf.print(x)
    x = tf.tanh(x)
  return x
'''


# seed 003, line 426: a while loop on a tensor condition, tf.print in each iteration.
# The article calls f(tf.random.uniform([5])); the client call uses a fixed input so the
# result and the number of printed lines can be checked, the script a stateless one.
def test_003_l426_simple_while_loop(client, capsys):
    mod = load(client, SIMPLE_LOOP_003, "seed003_l426a.py")
    x0 = np.float32([0.9, 0.8, 0.7, 0.6, 0.5])
    expected, iterations = x0, 0
    while expected.sum() > 1:
        expected, iterations = np.tanh(expected), iterations + 1
    capsys.readouterr()
    np.testing.assert_allclose(mod.f(x0), expected, rtol=1e-5)
    err = capsys.readouterr().err
    assert err.count("\n") == iterations == 34, err
    assert err.startswith("[0.9 0.8 0.7 0.6 0.5]\n"), err


    # The script's f(tf.random.uniform([5])): stateful random ops are outside graphd's tf
    # API, so the input comes from tf.random.stateless_uniform.
    mod = load(client, SIMPLE_LOOP_003 + '''
x0 = tf.random.stateless_uniform([5], seed=(1, 2))
result = f(x0)

def get():
  return x0, result
''', "seed003_l426b.py")
    x0, result = mod.get()
    assert x0.shape == (5,) and x0.dtype == np.float32
    assert np.all(x0 >= 0) and np.all(x0 < 1)
    expected, iterations = x0, 0
    while expected.sum() > 1:
        expected, iterations = np.tanh(expected), iterations + 1
    np.testing.assert_allclose(result, expected, rtol=1e-5)
    err = capsys.readouterr().err
    assert err.count("\n") == iterations, (iterations, err)


TO_CODE_003 = '''
import tensorflow as tf

# If you're curious you can inspect the code autograph generates.
# It feels like reading assembly language, though.

def f(x):
  while tf.reduce_sum(x) > 1:
    tf.print(x)
    x = tf.tanh(x)
  return x

print(tf.autograph.to_code(f))
'''


# seed 003, line 440: tf.autograph.to_code(f) prints the generated code.
def test_003_l440_autograph_to_code(client, capsys):
    capsys.readouterr()
    mod = load(client, TO_CODE_003, "seed003_l440.py")
    out = capsys.readouterr().out
    assert out.startswith("def tf__f(x):\n"), out
    assert "ag__.while_stmt(loop_test, loop_body" in out, out
    assert "return tf.reduce_sum(x) > 1" in out and "x = tf.tanh(x)" in out, out
    assert out == mod.f.to_code() + "\n"


TEST_TF_COND_003 = '''
def test_tf_cond(f, *args):
  g = f.get_concrete_function(*args).graph
  if any(node.name == 'cond' for node in g.as_graph_def().node):
    print("{}({}) uses tf.cond.".format(
        f.__name__, ', '.join(map(str, args))))
  else:
    print("{}({}) executes normally.".format(
        f.__name__, ', '.join(map(str, args))))
'''


# seed 003, line 458: the test_tf_cond helper (looks for a node named 'cond').
def test_003_l458_test_tf_cond_helper(client):
    mod = load(client, "import tensorflow as tf\n" + TEST_TF_COND_003, "seed003_l458.py")
    assert "test_tf_cond" in mod.functions


CONDS_003 = '''
import tensorflow as tf

@tf.function
def hyperparam_cond(x, training=True):
  if training:
    x = tf.nn.dropout(x, rate=0.5)
  return x

@tf.function
def maybe_tensor_cond(x):
  if x < 0:
    x = -x
  return x
'''


# seed 003, line 471: `if` on a Python value runs while tracing; `if` on a tensor
# becomes tf.cond. Left out: hyperparam_cond with training=True, the default, which calls
# tf.nn.dropout (a stateful random op, outside graphd's tf API: calling it is rejected
# with an error naming it); hyperparam_cond is measured with training=False instead.
def test_003_l471_if_on_python_value_vs_tensor(client, capsys):
    mod = load(client, CONDS_003, "seed003_l471a.py")
    assert int(mod.maybe_tensor_cond(np.int32(-1))) == 1
    assert int(mod.maybe_tensor_cond(np.int32(4))) == 4
    assert int(mod.maybe_tensor_cond(-1)) == 1
    x = np.ones([1000], np.float32)
    np.testing.assert_array_equal(mod.hyperparam_cond(x, training=False), x)
    with pytest.raises(AttributeError) as info:
        mod.hyperparam_cond(x)
    assert "dropout" in str(info.value), str(info.value)

    capsys.readouterr()
    load(client, CONDS_003 + TEST_TF_COND_003 + '''
test_tf_cond(hyperparam_cond, tf.ones([1], dtype=tf.float32), False)
test_tf_cond(maybe_tensor_cond, tf.constant(-1))
test_tf_cond(maybe_tensor_cond, -1)
''', "seed003_l471b.py")
    assert capsys.readouterr().out == (
        "hyperparam_cond(tf.Tensor([1.], shape=(1,), dtype=float32), False) executes normally.\n"
        "maybe_tensor_cond(tf.Tensor(-1, shape=(), dtype=int32)) uses tf.cond.\n"
        "maybe_tensor_cond(-1) executes normally.\n")


BOTH_BRANCHES_003 = '''
import tensorflow as tf

@tf.function
def f():
  x = tf.constant(0)
  if tf.constant(True):
    x = x + 1
    print("Tracing `then` branch")
  else:
    x = x - 1
    print("Tracing `else` branch")
  return x
'''


# seed 003, line 496: tf.cond traces both branches: both prints run; the result is 1.
def test_003_l496_cond_traces_both_branches(client, capsys):
    mod = load(client, BOTH_BRANCHES_003, "seed003_l496a.py")
    capsys.readouterr()
    assert int(mod.f()) == 1
    assert capsys.readouterr().out == "Tracing `then` branch\nTracing `else` branch\n"
    assert int(mod.f()) == 1
    assert capsys.readouterr().out == ""

    load(client, BOTH_BRANCHES_003 + "\nf()\n", "seed003_l496b.py")
    assert capsys.readouterr().out == "Tracing `then` branch\nTracing `else` branch\n"


ONE_BRANCH_003 = '''
@tf.function
def f():
  if tf.constant(True):
    x = tf.ones([3, 3])
  return x
'''


# seed 003, line 512: a tensor `if` that defines x in one branch only is a ValueError.
def test_003_l512_one_branch_defines_x_is_an_error(client):
    mod = load(client, "import tensorflow as tf\n" + ONE_BRANCH_003, "seed003_l512a.py")
    with pytest.raises(ValueError) as info:
        mod.f()
    assert "must also be initialized in the else branch" in str(info.value)
    assert "'x'" in str(info.value) or "`x`" in str(info.value), str(info.value)

    # The script's `with assert_raises(ValueError): f()` (the assert_raises helper is outside graphd's
    # subset): f() is called bare at module level and the error checked on the client.
    with pytest.raises(ValueError) as info:
        load(client, PREAMBLE_003 + ONE_BRANCH_003 + '''
# Throws an error because both branches need to define `x`.
f()
''', "seed003_l512b.py")
    assert "must also be initialized in the else branch" in str(info.value)


TEST_UNROLLED_003 = '''
def test_dynamically_unrolled(f, *args):
  g = f.get_concrete_function(*args).graph
  if any(node.name == 'while' for node in g.as_graph_def().node):
    print("{}({}) uses tf.while_loop.".format(
        f.__name__, ', '.join(map(str, args))))
  elif any(node.name == 'ReduceDataset' for node in g.as_graph_def().node):
    print("{}({}) uses tf.data.Dataset.reduce.".format(
        f.__name__, ', '.join(map(str, args))))
  else:
    print("{}({}) gets unrolled.".format(
        f.__name__, ', '.join(map(str, args))))
'''


# seed 003, line 536: the test_dynamically_unrolled helper (node named 'while').
def test_003_l536_test_dynamically_unrolled_helper(client):
    mod = load(client, "import tensorflow as tf\n" + TEST_UNROLLED_003, "seed003_l536.py")
    assert "test_dynamically_unrolled" in mod.functions


FOR_LOOPS_003 = '''
import tensorflow as tf

@tf.function
def for_in_range():
  x = 0
  for i in range(5):
    x += i
  return x

@tf.function
def for_in_tfrange():
  x = tf.constant(0, dtype=tf.int32)
  for i in tf.range(5):
    x += i
  return x
'''


# seed 003, line 552: for over range() is unrolled, for over tf.range is a while loop.
# Left out: for_in_tfdataset (for over tf.data.Dataset.range, "uses
# tf.data.Dataset.reduce"): tf.data datasets are outside graphd's scope.
def test_003_l552_for_loops_unrolled_or_staged(client, capsys):
    mod = load(client, FOR_LOOPS_003, "seed003_l552a.py")
    assert int(mod.for_in_range()) == 10
    out = mod.for_in_tfrange()
    assert out.dtype == np.int32 and int(out) == 10

    capsys.readouterr()
    load(client, FOR_LOOPS_003 + TEST_UNROLLED_003 + '''
test_dynamically_unrolled(for_in_range)
test_dynamically_unrolled(for_in_tfrange)
''', "seed003_l552b.py")
    assert capsys.readouterr().out == ("for_in_range() gets unrolled.\n"
                                       "for_in_tfrange() uses tf.while_loop.\n")


WHILE_LOOPS_003 = '''
import tensorflow as tf

@tf.function
def while_py_cond():
  x = 5
  while x > 0:
    x -= 1
  return x

@tf.function
def while_tf_cond():
  x = tf.constant(5)
  while x > 0:
    x -= 1
  return x
'''


# seed 003, line 586: while on a Python condition is unrolled, on a tensor a while loop.
def test_003_l586_while_loops_unrolled_or_staged(client, capsys):
    mod = load(client, WHILE_LOOPS_003, "seed003_l586a.py")
    assert int(mod.while_py_cond()) == 0
    assert int(mod.while_tf_cond()) == 0

    capsys.readouterr()
    load(client, WHILE_LOOPS_003 + TEST_UNROLLED_003 + '''
test_dynamically_unrolled(while_py_cond)
test_dynamically_unrolled(while_tf_cond)
''', "seed003_l586b.py")
    assert capsys.readouterr().out == ("while_py_cond() gets unrolled.\n"
                                       "while_tf_cond() uses tf.while_loop.\n")


BREAKS_003 = '''
@tf.function
def buggy_while_py_true_tf_break(x):
  while True:
    if tf.equal(x, 0):
      break
    x -= 1
  return x

@tf.function
def while_tf_true_tf_break(x):
  while tf.constant(True):
    if tf.equal(x, 0):
      break
    x -= 1
  return x
'''

BREAKS_003_FOR = '''
@tf.function
def buggy_py_for_tf_break():
  x = 0
  for i in range(5):
    if tf.equal(i, 3):
      break
    x += i
  return x

@tf.function
def tf_for_tf_break():
  x = 0
  for i in tf.range(5):
    if tf.equal(i, 3):
      break
    x += i
  return x
'''


# seed 003, line 612: a break that depends on a tensor needs a tensor loop condition /
# iterable: the Python-loop versions are TypeErrors, the tensor ones are while loops
# (while_tf_true_tf_break(5) == 0, tf_for_tf_break() == 0 + 1 + 2 == 3).
def test_003_l612_tensor_break_needs_tensor_loop(client, capsys):
    mod = load(client, "import tensorflow as tf\n" + BREAKS_003 + BREAKS_003_FOR, "seed003_l612a.py")
    with pytest.raises(TypeError) as info:
        mod.buggy_while_py_true_tf_break(5)
    # TensorFlow's message (today's TensorFlow raises NotImplementedError; graphd's
    # OperatorNotAllowedInGraphError is both classes).
    assert "started as non-Tensor, then changed to Tensor" in str(info.value), str(info.value)
    assert isinstance(info.value, NotImplementedError)
    assert int(mod.while_tf_true_tf_break(5)) == 0
    assert int(mod.while_tf_true_tf_break(np.int32(7))) == 0
    with pytest.raises(TypeError) as info:
        mod.buggy_py_for_tf_break()
    assert "not supported in Python for loops" in str(info.value), str(info.value)
    assert int(mod.tf_for_tf_break()) == 3

    # The script, less its two `with assert_raises(TypeError):` blocks (the
    # assert_raises helper is outside graphd's subset): each wrapped call is made bare at
    # the end of a script of its own and its TypeError checked on the client.
    capsys.readouterr()
    load(client, PREAMBLE_003 + TEST_UNROLLED_003 + BREAKS_003 + '''
test_dynamically_unrolled(while_tf_true_tf_break, 5)
''' + BREAKS_003_FOR + '''
test_dynamically_unrolled(tf_for_tf_break)
''', "seed003_l612b.py")
    assert capsys.readouterr().out == ("while_tf_true_tf_break(5) uses tf.while_loop.\n"
                                       "tf_for_tf_break() uses tf.while_loop.\n")
    with pytest.raises(TypeError) as info:
        load(client, PREAMBLE_003 + TEST_UNROLLED_003 + BREAKS_003 + '''
test_dynamically_unrolled(buggy_while_py_true_tf_break, 5)
''', "seed003_l612c.py")
    assert "started as non-Tensor, then changed to Tensor" in str(info.value), str(info.value)
    with pytest.raises(TypeError) as info:
        load(client, PREAMBLE_003 + TEST_UNROLLED_003 + BREAKS_003_FOR + '''
test_dynamically_unrolled(buggy_py_for_tf_break)
''', "seed003_l612d.py")
    assert "not supported in Python for loops" in str(info.value), str(info.value)


RNN_003 = '''
import tensorflow as tf

batch_size = 2
seq_len = 3
feature_size = 4

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
'''


# seed 003, line 661: accumulating a staged loop's results in a tf.TensorArray. The
# client cannot pass the Python function rnn_step, so a one-line wrapper `run` passes it
# for the client call; the article's own module-level call runs at load.
def test_003_l661_dynamic_rnn_tensor_array(client):
    mod = load(client, RNN_003 + '''
@tf.function
def run(input_data, initial_state):
  return dynamic_rnn(rnn_step, input_data, initial_state)
''', "seed003_l661a.py")
    x = np.random.default_rng(0).uniform(size=[2, 3, 4]).astype(np.float32)
    np.testing.assert_allclose(mod.run(x, np.zeros([2, 4], np.float32)), np.cumsum(x, axis=1),
                               rtol=1e-6)

    # The article's call, with tf.random.stateless_uniform for tf.random.uniform (stateful
    # random ops are outside graphd's tf API).
    mod = load(client, RNN_003 + '''
input_data = tf.random.stateless_uniform([batch_size, seq_len, feature_size], seed=(1, 2))
result = dynamic_rnn(rnn_step,
            input_data,
            tf.zeros([batch_size, feature_size]))

def get_result():
  return input_data, result
''', "seed003_l661b.py")
    x, out = mod.get_result()
    assert x.shape == (2, 3, 4) and x.dtype == np.float32
    assert np.all(x >= 0) and np.all(x < 1)
    assert out.shape == (2, 3, 4) and out.dtype == np.float32
    np.testing.assert_allclose(out, np.cumsum(x, axis=1), rtol=1e-6)


UNINITIALIZED_003 = '''
@tf.function
def buggy_loop_var_uninitialized():
  for i in tf.range(3):
    x = i
  return x

@tf.function
def f():
  x = tf.constant(0)
  for i in tf.range(3):
    x = i
  return x
'''


# seed 003, line 693: a variable first set inside a staged loop and used after it. The
# article's TensorFlow (2.0/2.1) raised ValueError ("'x' must be defined before the
# loop"); TensorFlow since 2.4 traces one iteration to learn what x becomes, starts it
# as zeros of that, and fails at run time only if the loop runs zero times (issue 13,
# class 3). graphd follows today's TensorFlow: both functions return 2.
def test_003_l693_loop_var_defined_in_the_loop(client):
    mod = load(client, "import tensorflow as tf\n" + UNINITIALIZED_003, "seed003_l693a.py")
    assert int(mod.buggy_loop_var_uninitialized()) == 2
    assert int(mod.f()) == 2

    # The script, less `with assert_raises(ValueError):` (the assert_raises helper is
    # outside graphd's subset): both calls run at load.
    mod = load(client, PREAMBLE_003 + UNINITIALIZED_003 + '''
result = f()
loop_defined = buggy_loop_var_uninitialized()

def get_results():
  return result, loop_defined
''', "seed003_l693b.py")
    assert [int(v) for v in mod.get_results()] == [2, 2]


TYPE_CHANGES_003 = '''
@tf.function
def buggy_loop_type_changes():
  x = tf.constant(0, dtype=tf.float32)
  for i in tf.range(3): # Yields tensors of type tf.int32...
    x = i
  return x
'''


# seed 003, line 713: a loop variable whose dtype changes in a staged loop:
# tf.errors.InvalidArgumentError.
def test_003_l713_loop_var_dtype_change_is_an_error(client):
    mod = load(client, "import tensorflow as tf\n" + TYPE_CHANGES_003, "seed003_l713a.py")
    with pytest.raises(graphd.errors.InvalidArgumentError) as info:
        mod.buggy_loop_type_changes()
    assert "'x' has dtype float32 before the loop, but dtype int32" in str(info.value)

    # The script's `with assert_raises(tf.errors.InvalidArgumentError):
    # buggy_loop_type_changes()` (the assert_raises helper is outside graphd's subset): the call is made
    # bare at module level and the error checked on the client.
    with pytest.raises(graphd.errors.InvalidArgumentError) as info:
        load(client, PREAMBLE_003 + TYPE_CHANGES_003 + "\nbuggy_loop_type_changes()\n",
             "seed003_l713b.py")
    assert "'x' has dtype float32 before the loop, but dtype int32" in str(info.value)


CONCAT_003 = '''
@tf.function
def buggy_concat():
  x = tf.ones([0, 10])
  for i in tf.range(5):
    x = tf.concat([x, tf.ones([1, 10])], axis=0)
  return x
'''
# The article's `with assert_raises(ValueError): buggy_concat()` (the assert_raises helper is
# outside graphd's subset): the call is made bare at the end of a script of its own.
CONCAT_003_ERROR = "\nbuggy_concat()\n"
CONCAT_003_PADDING = '''
@tf.function
def concat_with_padding():
  x = tf.zeros([5, 10])
  for i in tf.range(5):
    x = tf.concat([x[:i], tf.ones([1, 10]), tf.zeros([4-i, 10])], axis=0)
    x.set_shape([5, 10])
  return x

result = concat_with_padding()

def get_result():
  return result
'''
SHAPE_CHANGE_MESSAGE = "shape (0, 10) before the loop, but shape (1, 10) after one iteration"


# seed 003, line 726: a loop variable whose shape changes is a ValueError (buggy_concat);
# concat_with_padding keeps the shape with set_shape and returns ones([5, 10]).
def test_003_l726_loop_var_shape_change(client):
    mod = load(client, "import tensorflow as tf\n" + CONCAT_003 + CONCAT_003_PADDING,
               "seed003_l726a.py")
    with pytest.raises(ValueError) as info:
        mod.buggy_concat()
    assert SHAPE_CHANGE_MESSAGE in str(info.value)
    np.testing.assert_array_equal(mod.concat_with_padding(), np.ones([5, 10], np.float32))
    np.testing.assert_array_equal(mod.get_result(), np.ones([5, 10], np.float32))

    with pytest.raises(ValueError) as info:
        load(client, PREAMBLE_003 + CONCAT_003 + CONCAT_003_ERROR, "seed003_l726b.py")
    assert SHAPE_CHANGE_MESSAGE in str(info.value)
