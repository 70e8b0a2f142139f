"""try/except/else/finally, raise and context managers in function source, through the
real server: Python exceptions raised and caught while tracing (as TensorFlow runs a
tf.function's Python), the class hierarchy, exception objects, user exception classes,
and the limits user code must not be able to swallow."""

import numpy as np
import pytest

import graphd

SOURCE = '''
import tensorflow as tf

class ConfigError(ValueError):
    def describe(self):
        return 'config: ' + str(self.args[0])

class Tracker:
    def __init__(self):
        self.log = []
    def __enter__(self):
        self.log.append('enter')
        return self
    def __exit__(self, kind, value, tb):
        self.log.append('exit')
        return False

def lookup(d, key):
    try:
        value = d[key]
    except (IndexError, LookupError) as e:
        return 'missing ' + str(e)
    else:
        return 'found ' + str(value)
    finally:
        d['visited'] = True

@tf.function
def safe_lookup(x):
    d = {'a': 1}
    found = lookup(d, 'a')
    missing = lookup(d, 'b')
    return x + 1, found, missing, d['visited']

@tf.function
def reraise(x):
    try:
        raise KeyError('k')
    except KeyError:
        raise

@tf.function
def chained(x):
    try:
        [][1]
    except IndexError as e:
        raise ValueError('bad index') from e

@tf.function
def user_error(mode):
    try:
        raise ConfigError(mode)
    except ValueError as e:
        note = e.describe() + ' / ' + type(e).__name__ + ' / ' + repr(e)
    if mode == 'fatal':
        raise ConfigError('fatal mode')
    return note

@tf.function
def finally_runs_on_error(x):
    t = Tracker()
    steps = []
    try:
        with t:
            try:
                steps.append('body')
                raise RuntimeError('boom')
            finally:
                steps.append('inner finally')
    except RuntimeError as e:
        steps.append('caught ' + str(e))
    return x, steps, t.log

@tf.function
def raise_under_tensor_condition(x):
    if x > 0:
        raise ValueError('raised while tracing, whatever x is')
    return x

@tf.function
def not_an_exception(x):
    raise 5

@tf.function
def catch_a_number(x):
    try:
        pass
    except 5:  # not evaluated: nothing was raised
        pass
    try:
        raise ValueError('x')
    except 5:
        pass
    return x

@tf.function
def spin(x):
    n = 0
    while True:
        try:
            n += 1
        except BaseException:
            n = 0
        except:
            n = 0
'''


@pytest.fixture
def mod(target):
    with graphd.connect(target) as client:
        yield client.load_module(SOURCE, filename="exceptions.py")


def test_caught_by_class_hierarchy_with_else_and_finally(mod):
    y, found, missing, visited = mod.safe_lookup(np.int32(1))
    assert int(y) == 2 and found == b"found 1" and missing == b"missing 'b'" and bool(visited)


def test_bare_raise_and_raise_from_reach_the_client_as_their_class(mod):
    with pytest.raises(KeyError):
        mod.reraise(np.int32(0))
    with pytest.raises(ValueError) as info:
        mod.chained(np.int32(0))
    assert "bad index" in str(info.value)


def test_user_exception_classes(mod):
    note = mod.user_error("safe")
    assert note == b"config: safe / ConfigError / ConfigError('safe')"
    # Raised to the client: its nearest builtin class, its own name in the message.
    with pytest.raises(ValueError) as info:
        mod.user_error("fatal")
    assert "ConfigError: fatal mode" in str(info.value)
    assert 'File "exceptions.py"' in str(info.value)


def test_finally_and_exit_run_when_an_exception_passes(mod):
    x, steps, log = mod.finally_runs_on_error(np.int32(3))
    assert [s.item().decode() for s in steps] == ["body", "inner finally", "caught boom"]
    assert [s.item().decode() for s in log] == ["enter", "exit"]


def test_raise_under_a_tensor_condition_raises_while_tracing(mod):
    # Both branches of a tensor `if` are traced, as in TensorFlow.
    for x in (np.int32(-1), np.int32(1)):
        with pytest.raises(ValueError) as info:
            mod.raise_under_tensor_condition(x)
        assert "raised while tracing" in str(info.value)


def test_bad_raise_and_except_are_type_errors(mod):
    with pytest.raises(TypeError) as info:
        mod.not_an_exception(np.int32(0))
    assert "exceptions must derive from BaseException" in str(info.value)
    with pytest.raises(TypeError) as info:
        mod.catch_a_number(np.int32(0))
    assert "do not inherit from BaseException" in str(info.value)
    assert int(mod.safe_lookup(np.int32(4))[0]) == 5  # the session keeps working


def test_the_deadline_cannot_be_caught(mod):
    # A loop that catches everything still stops at the call's deadline (the server's
    # limits are not Python exceptions user code can swallow).
    with pytest.raises(graphd.errors.OpError) as info:
        mod.spin(np.int32(0), _timeout=0.5)
    assert not isinstance(info.value, (ValueError, TypeError, RuntimeError))
    assert int(mod.safe_lookup(np.int32(1))[0]) == 2
