"""AutoGraph fidelity (issue 13): staged control flow must compute what TensorFlow
computes.

Each group is one module of function source, loaded once per test file (tf_module
adds `import tensorflow as tf` and @tf.function to every public top-level def). A case
names a function, its arguments as Python values and how they are sent: "py" (as
Python values: Python control flow runs while tracing), "tf" (as numpy
int32/float32/bool scalars and arrays: tensors on the server, so `if`/`while`/`for`
on them are staged), or a string of P/T per argument (mixed). Unless a case states
otherwise, the expected value comes from the ORACLE: the same source run by CPython
against a small stand-in for `tensorflow`. For these programs TensorFlow's documented
semantics are Python's (TensorFlow's own AutoGraph reference tests assert exactly
that, for Python and for tensor arguments); where TensorFlow differs, the case states
TensorFlow's value or its error (exception class and message fragment).

Groups follow the issue's defect classes. This file: class 1 (nested staged control
flow, hand-written and generated three-deep nests), class 4 (containers and
attributes in staged control flow) and class 8 (values returned from a tf.function).
test_autograph_fidelity_errors.py: classes 2, 3, 5, 6 and 7 and class 4's errors.
"""

import collections
import contextlib
import itertools
import sys
import types

import numpy as np
import pytest

import graphd

TIMEOUT = 10.0  # per call: a staged loop that never ends fails the case, not the run

# ---------------------------------------------------------------------------- oracle


def _const(value, dtype=None, **_):
    a = np.asarray(value, dtype=dtype)
    if dtype is None and a.dtype == np.int64:
        a = a.astype(np.int32)
    if dtype is None and a.dtype == np.float64:
        a = a.astype(np.float32)
    return a


class _Variable:
    def __init__(self, initial_value, dtype=None, **_):
        self.value = _const(initial_value, dtype)

    def assign(self, v):
        self.value = np.asarray(v, self.value.dtype)
        return self.value

    def assign_add(self, v):
        return self.assign(self.value + v)

    def read_value(self):
        return self.value

    def __add__(self, other):
        return self.value + other

    def __mul__(self, other):
        return self.value * other


def _shape(shape):
    return tuple(int(s) for s in np.atleast_1d(np.asarray(shape))) if np.ndim(shape) else ()


def _uniform(shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None):
    if np.dtype(dtype).kind == "i":
        return np.random.randint(int(minval), int(maxval), size=_shape(shape)).astype(dtype)
    return np.random.uniform(minval, 1 if maxval is None else maxval, _shape(shape)).astype(dtype)


def _fake_tensorflow():
    """Just enough of `tensorflow` for the sources below, with Python semantics."""
    tf = types.ModuleType("tensorflow")
    ns = types.SimpleNamespace
    tf.__dict__.update(
        function=lambda func=None, **_: func if func is not None else (lambda f: f),
        constant=_const, Variable=_Variable, TensorSpec=lambda *a, **k: None,
        TensorShape=lambda dims: dims,
        int32=np.int32, int64=np.int64, float32=np.float32, bool=np.bool_,
        range=lambda *a, **_: np.arange(*[int(x) for x in a], dtype=np.int32),
        zeros=lambda shape, dtype=np.float32: np.zeros(_shape(shape), dtype),
        ones=lambda shape, dtype=np.float32: np.ones(_shape(shape), dtype),
        cast=lambda x, dtype: np.asarray(x).astype(dtype),
        equal=np.equal, not_equal=np.not_equal, greater=np.greater, less=np.less,
        abs=np.abs, identity=np.asarray, reduce_sum=lambda x, axis=None: np.sum(x, axis),
        stack=lambda values, axis=0: np.stack(values, axis),
        concat=lambda values, axis: np.concatenate(values, axis),
        size=lambda x: np.int32(np.size(x)), unstack=lambda x: list(np.asarray(x)),
        pad=lambda t, paddings, mode="CONSTANT", constant_values=0: np.pad(
            np.asarray(t), np.asarray(paddings), constant_values=np.asarray(constant_values)),
        name_scope=lambda name, *a, **k: contextlib.nullcontext(),
        print=lambda *a, **k: None,
        random=ns(uniform=_uniform,
                  normal=lambda shape, *a, **k: np.random.normal(size=_shape(shape))),
        autograph=ns(trace=lambda *a: None,
                     experimental=ns(set_loop_options=lambda **k: None)))
    return tf


_FAKE_TF = _fake_tensorflow()


class Oracle:
    """The module's source executed by CPython with the stand-in `tensorflow`."""

    def __init__(self, src, filename):
        saved = sys.modules.get("tensorflow")
        sys.modules["tensorflow"] = _FAKE_TF
        try:
            self.ns = {"__name__": "oracle_" + filename.split(".")[0]}
            exec(compile(src, filename, "exec"), self.ns)  # noqa: S102 (our own test source)
        finally:
            if saved is None:
                del sys.modules["tensorflow"]
            else:
                sys.modules["tensorflow"] = saved

    def __call__(self, name, args):
        return self.ns[name](*args)


# ----------------------------------------------------------------------------- cases

Case = collections.namedtuple("Case", "fn kind args expect")
Raises = collections.namedtuple("Raises", "exc fragment")
ORACLE = "oracle"
ZERO_TRIPS = Raises(graphd.errors.InvalidArgumentError, "loop must iterate at least once")
ALL_KINDS = ("py", "tf", "TP", "PT")  # two-argument functions: all four ways to send


def cases(fn, *argsets, kinds=("py", "tf"), expect=ORACLE):
    """One case per argument set and kind; an argument set that is not a tuple is
    the single argument."""
    return [Case(fn, kind, a if isinstance(a, tuple) else (a,), expect)
            for a in argsets for kind in kinds]


def raises(fn, kinds, argsets, exc, fragment):
    return cases(fn, *argsets, kinds=kinds, expect=Raises(exc, fragment))


def ids(case_list):
    return ["%s-%s-%s" % (c.fn, c.kind, ",".join(repr(a) for a in c.args)) for c in case_list]


def _as_tensor(v):
    if isinstance(v, bool):
        return np.bool_(v)
    if isinstance(v, int):
        return np.int32(v)
    if isinstance(v, float):
        return np.float32(v)
    if isinstance(v, list):  # an empty list is an empty int32 vector, as the loops sum ints
        a = np.asarray(v)
        return a.astype(np.float32 if a.dtype.kind == "f" and a.size else
                        np.bool_ if a.dtype.kind == "b" else np.int32)
    return v


def sent(kind, args):
    mask = {"py": "P" * len(args), "tf": "T" * len(args)}.get(kind, kind)
    assert len(mask) == len(args), "kind %r does not fit %r" % (kind, args)
    return tuple(_as_tensor(a) if m == "T" else a for a, m in zip(args, mask))


def same(got, want):
    """Structure equal (dict, list/tuple element-wise, None) and values equal as numpy
    arrays (floats to float32 precision); dtypes are class 8's business."""
    if isinstance(want, _Variable):
        want = want.value
    if isinstance(want, dict):
        return (isinstance(got, dict) and set(got) == set(want)
                and all(same(got[k], want[k]) for k in want))
    if isinstance(want, (list, tuple)):
        return (isinstance(got, (list, tuple)) and len(got) == len(want)
                and all(same(g, w) for g, w in zip(got, want)))
    if want is None or got is None:
        return want is None and got is None
    if isinstance(got, (dict, list, tuple, str, bytes)):
        return False
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape:
        return False
    if g.dtype.kind == "f" or w.dtype.kind == "f":
        return bool(np.allclose(g, w, rtol=1e-5, atol=1e-6))
    return bool(np.array_equal(g, w))


def tf_module(src):
    """The source as sent: `import tensorflow as tf` on top and @tf.function on every
    top-level function whose name does not start with an underscore."""
    lines = [("@tf.function\n" + l) if l.startswith("def ") and not l.startswith("def _") else l
             for l in src.split("\n")]
    return ("" if "import tensorflow as tf" in src else "import tensorflow as tf\n") + "\n".join(lines)


class Loaded:
    """Modules loaded through one session, one per group, with their oracles."""

    def __init__(self, client):
        self.client, self.cache = client, {}

    def get(self, group, src):
        if group not in self.cache:
            src = tf_module(src)
            oracle = Oracle(src, group + ".py")  # a failure here is a broken test source
            try:
                self.cache[group] = (self.client.load_module(src, filename=group + ".py"), oracle)
            except graphd.errors.OpError as e:
                self.cache[group] = e
        got = self.cache[group]
        if isinstance(got, Exception):
            pytest.fail("loading module %s failed: %s: %s" % (group, type(got).__name__, got),
                        pytrace=False)
        return got


@pytest.fixture(scope="module")
def modules(server):
    with graphd.connect(server.target) as client:
        yield Loaded(client)


def check(modules, group, src, case):
    mod, oracle = modules.get(group, src)
    fn = getattr(mod, case.fn)
    args = sent(case.kind, case.args)
    where = "%s%r sent as %s" % (case.fn, case.args, case.kind)
    if isinstance(case.expect, Raises):
        with pytest.raises(case.expect.exc) as info:
            got = fn(*args, _timeout=TIMEOUT)
            print("%s returned %r" % (where, got))
        assert case.expect.fragment in str(info.value), (
            "%s: TensorFlow's message contains %r; got: %s" % (where, case.expect.fragment, info.value))
        return
    if case.expect is ORACLE:
        try:
            want = oracle(case.fn, case.args)
        except Exception as e:  # noqa: BLE001
            pytest.fail("the oracle raised %s: %s (the case is wrong)" % (type(e).__name__, e))
    else:
        want = case.expect
    got = fn(*args, _timeout=TIMEOUT)
    assert same(got, want), "%s: got %r, TensorFlow gives %r" % (where, got, want)


# ------------------------------------------------------- class 1: nested control flow

C1_SRC = '''
def all_of_three(x, y, z):
    return x and y and z
def any_of_three(x, y, z):
    return x or y or z
def or_then_and(x, y, z):
    return x or y and z and not x
def any_with_lambda(x, y, z):
    late = lambda: z
    return x or y or late()
def strictly_between(lo, v, hi):
    return lo < v and v < hi
def branch_in_branch(x, y):
    r = 0
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    return r
def inner_reads_outer(x):
    y = 0
    if x > 0:
        y = -2 * x
        if y < -2:
            x = 3 * x
    else:
        y = 4 * x
    return x, y
def inner_one_sided(x):
    y = 0
    if x > 0:
        if x < 3:
            y = x * 5
            x = -x
    return x, y
def ternaries_in_branches(x):
    if x > 0:
        x = x - 10 if x > 4 else -x
    else:
        x = 2 * x if x > -4 else 1
    y = 3 * x if x < 0 else x
    return x, y
def ternary_of_ternary(x):
    return (1 if x > 2 else 2) if x > 0 else (3 if x > -2 else 4)
def not_and_or_mix(x, y):
    if not (x > 0) or (y > 0 and x < 5):
        r = 1
    elif x > 10:
        r = 2
    else:
        r = 3
    return r
def successive_branches(a, b):
    s = 0
    i = 0
    if i < a:
        s = s * 10 + 1
        i += 1
    else:
        s = s * 11 + 2
    i = 0
    if i < b:
        s = s * 10 + i + 3
        i += 1
    return s
def count_pairs(a, b):
    count = 0
    while a > 0:
        left = b
        while left > 0:
            count += a
            left -= 1
        a -= 1
    return count
def drain_together(a, b):
    rounds = 1
    while a > 0:
        rounds += 1
        left = b
        while left > 0:
            a -= 1
            left -= 1
        a -= 1
    return rounds
def grid_sum(n, m):
    total = 0
    for i in tf.range(n):
        for j in range(m):
            if (i + j) % 2 == 0:
                total += i * 10 + j
    return total
def skip_odd_inner(x, y):
    s = 0
    while x > 0:
        x -= 1
        k = y
        while k > 0:
            k -= 1
            if (x + k) % 2 > 0:
                continue
            s += x + k
    return s
def stop_inner_early(x, y):
    s = 0
    while x > 0:
        x -= 1
        k = y
        while k > 0:
            k -= 1
            if (x + k) % 3 == 0:
                break
            s += x * 10 + k
    return s
def break_or_continue_inner(x, y):
    s = 0
    while x > 0:
        x -= 1
        k = y
        while k > 0:
            k -= 1
            if (x + k) % 2 > 0:
                break
            else:
                s += k
                continue
            s += 1000
    return s
def rows_and_cells(mat):
    s = 0
    for row in mat:
        for v in row:
            if v % 2 > 0:
                continue
            if v > 6:
                break
            s = s * 10 + v
    return s
def loop_in_branch_in_loop(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            for j in tf.range(i):
                s += j
        else:
            s -= 1 if s > 0 else 0
    return s
def while_with_and_condition(n, cap):
    i = 0
    s = 0
    while i < n and s < cap:
        i += 1
        s += i
    return i, s
def three_deep(n):
    acc = 0
    for i in tf.range(n):
        j = 0
        while j < i:
            j += 1
            if (i + j) % 2 == 0:
                acc += i * j
            else:
                acc += 1 if j > 1 else 2
    return acc
'''

_BOOLS3 = ((True, True, True), (True, False, True), (False, True, False), (False, False, False))
C1_CASES = (
    cases("all_of_three", *_BOOLS3) + cases("any_of_three", *_BOOLS3)
    + cases("or_then_and", *_BOOLS3) + cases("any_with_lambda", *_BOOLS3)
    + cases("strictly_between", (1, 2, 3), (2, 1, 3), (3, 2, 1), (1, 3, 2))
    + cases("branch_in_branch", (-1, 1), (1, -1), (2, 3), kinds=ALL_KINDS)
    + cases("inner_reads_outer", -1, 1, 2) + cases("inner_one_sided", -1, 1, 4)
    + cases("ternaries_in_branches", -5, -1, 1, 3, 6) + cases("ternary_of_ternary", -3, -1, 1, 3)
    + cases("not_and_or_mix", (-1, -1), (3, 1), (11, -1), (7, -1), kinds=ALL_KINDS)
    + cases("successive_branches", (0, 0), (0, 1), (1, 0), (1, 1), kinds=ALL_KINDS)
    + cases("count_pairs", (0, 2), (2, 0), (2, 3), kinds=ALL_KINDS)
    + cases("drain_together", (0, 1), (3, 1), (4, 2), kinds=("py", "tf", "TP"))
    + cases("grid_sum", (0, 2), (2, 3), (3, 1), kinds=("py", "tf", "TP"))
    + cases("skip_odd_inner", (0, 2), (2, 2), (3, 3), kinds=ALL_KINDS)
    + cases("stop_inner_early", (2, 3), (3, 4), (1, 0), kinds=("py", "tf", "PT"))
    + cases("break_or_continue_inner", (2, 3), (3, 4), (1, 0), kinds=("py", "tf", "PT"))
    + cases("rows_and_cells", [[2, 3, 4], [8, 6, 1]], [[1, 2], [4, 10]], [[5]])
    + cases("loop_in_branch_in_loop", 0, 3, 4) + cases("three_deep", 0, 1, 4)
    + cases("while_with_and_condition", (0, 5), (5, 4), (3, 100)))


@pytest.mark.parametrize("case", C1_CASES, ids=ids(C1_CASES))
def test_class1_nested_staged_control_flow(case, modules, target):
    check(modules, "class1_nested", C1_SRC, case)


# Generated three-deep nests: each level is an `if`, a `while`, a `for` over tf.range or a
# `for` over range, on the arguments (n, m, k); payloads use ternaries and and/or; one
# break/continue/return is placed at some level. Only programs TensorFlow accepts are
# generated, in both kinds:
#  * break/continue test the index of the loop they leave, so they are Python in Python
#    loops and staged in staged loops (a tensor break in a Python loop is an error);
#  * a return inside a staged loop must be reached on every path through the loop body
#    (TF: "a return statement cannot be placed inside this TensorFlow loop" otherwise), so
#    returns sit in an if/else that returns on both sides, under loops only; with "py"
#    arguments `for ... in tf.range` is still staged, so the enclosing loops must be all
#    staged or all Python;
#  * a staged loop holding a return needs one iteration (TF's runtime assert).
_BOUNDS = ("n", "m", "k")
_TAILS = {1: ["t = t + (1 if s > 2 else 0)"],
          2: ["if s % 2 == 0 or t > 3:", "    t = t + 1"],
          3: ["if not s > 30:", "    s = s + 1"]}


def _program(name, kinds, jump):
    out = ["def %s(n, m, k):" % name, "    s = 0", "    t = 1"]
    what, at = jump or (None, 0)

    def level(d, pad, idx, loop_idx):
        if d == 4:
            out.append(pad + "s = s + (%s + 1 if %s %% 2 == 0 and s < 20 else 1)" % (idx, idx))
            return
        kind, b = kinds[d - 1], _BOUNDS[d - 1]
        if kind == "if":
            cond = ("%s > %d and %s %% 3 != 2" % (b, d - 1, loop_idx) if loop_idx
                    else "%s > 0 or %s < -5" % (b, b))
            out.append(pad + "if %s:" % cond)
            body(d, pad + "    ", loop_idx or b, loop_idx)
            out.extend([pad + "else:", pad + "    t = t + %s" % b])
            return
        if kind == "while":
            v = "w%d" % d
            out.extend([pad + "%s = 0" % v, pad + "while %s < %s:" % (v, b), pad + "    %s += 1" % v])
        else:
            v = "x%d" % d
            out.append(pad + "for %s in %s(%s):" % (v, "tf.range" if kind == "for_tf" else "range", b))
        body(d, pad + "    ", v, v)

    def body(d, pad, idx, loop_idx):
        if what == "continue" and at == d:
            out.extend([pad + "if %s %% 2 == 1:" % loop_idx, pad + "    continue"])
        level(d + 1, pad, idx, loop_idx)
        out.extend(pad + line for line in _TAILS[d])
        if what == "break" and at == d:
            out.extend([pad + "if %s == 1:" % loop_idx, pad + "    break"])
        if what == "return" and at == d:
            out.extend([pad + "if %s == 1:" % loop_idx, pad + "    return s, t",
                        pad + "else:", pad + "    return t, s"])

    level(1, "    ", None, None)
    out.append("    return s, t")
    return "\n".join(out) + "\n"


def _jumps(kinds):
    found = []
    for d in (1, 2, 3):
        loops = [k for k in kinds[:d] if k != "if"]
        if loops:
            found += [("continue", d), ("break", d)]
        if (len(loops) == d and
                (all(k == "for_tf" for k in loops) or "for_tf" not in loops)):
            found.append(("return", d))
    return found


def _generated():
    src, case_list = [], []
    for i, kinds in enumerate(itertools.product(("if", "while", "for_tf", "for_range"), repeat=3)):
        valid = _jumps(kinds)
        others = [j for j in valid if j[0] != "return"]
        returns = [j for j in valid if j[0] == "return"]
        variants = [None] + [j[-1 - i % len(j)] for j in (others, returns) if j]
        for jump in variants:
            name = "g_" + "_".join(kinds) + ("" if jump is None else "_%s%d" % jump)
            src.append(_program(name, kinds, jump))
            for args in ((0, 1, 3), (1, 3, 0), (3, 2, 2)):
                for kind in ("py", "tf"):
                    staged_return = jump is not None and jump[0] == "return" and (
                        kind == "tf" or kinds[0] == "for_tf")
                    expect = ZERO_TRIPS if staged_return and args[0] == 0 else ORACLE
                    case_list.append(Case(name, kind, args, expect))
    return "\n".join(src), case_list


GEN_SRC, GEN_CASES = _generated()


@pytest.mark.parametrize("case", GEN_CASES, ids=ids(GEN_CASES))
def test_class1_generated_three_deep(case, modules, target):
    check(modules, "class1_generated", GEN_SRC, case)


# ---------------------------------------- class 4: containers and attributes (composites)

C4_SRC = '''
def dict_key_set_in_branches(a):
    x = {'a': a}
    if x['a'] > 0:
        x['b'] = 1
    else:
        x['b'] = -1
    return x
def list_item_set_in_branches(a):
    x = [a, 0]
    if x[0] > 0:
        x[1] = 1
    else:
        x[1] = -1
    return x
def nested_dict_set_in_branches(a):
    x = {'in': {'v': a}}
    if x['in']['v'] > 0:
        x['in']['w'] = a * 2
    else:
        x['in']['w'] = a - 2
    return x
def item_changed_in_one_branch(a):
    x = [a, 5]
    if a > 2:
        x[1] = 7
    return x[1]
def key_added_on_one_side(a):
    x = {'a': a}
    if x['a'] > 0:
        x['b'] = 1
    return x
def key_added_in_else(a):
    x = {'a': a}
    if x['a'] > 0:
        pass
    else:
        x['b'] = 1
    return x
def deep_key_added_on_one_side(a):
    x = {'a': {'a': a}}
    if x['a']['a'] > 0:
        x['a']['b'] = 1
    return x
def missing_outer_key(a):
    x = {'a': {'a': a}}
    if x['a']['a'] > 0:
        x['b']['a'] = 1
    else:
        x['b']['a'] = -1
    return x
def list_item_counted_in_while(x):
    y = [3, 0]
    while x > 0:
        x -= 1
        y[0] += 1
    return y
def dict_item_counted_in_while(x, a, b):
    y = {'a': a, 'b': b}
    while x > 0:
        x -= 1
        y['a'] += 1
    return y
def dict_drives_while(a, b):
    y = {'a': a, 'b': b}
    while y['b'] <= 10:
        y['a'] += 1
        y['b'] *= 2
    return y
def list_drives_while(a, b):
    y = [a, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y
def key_created_in_while(b):
    y = {'b': b}
    while y['b'] <= 10:
        y['a'] = y['b'] + 1
        y['b'] *= 2
    return y
def dict_item_in_range(n, a):
    y = {'a': a, 'z': 0}
    for _ in range(n):
        y['a'] += 1
    return y
def list_item_in_range(n, x):
    y = [x, 1]
    for i in range(n):
        x -= 1
        y[0] += i
    return y, x
def key_created_in_range(n, x):
    y = {}
    for i in range(n):
        x -= i
        y['a'] = x
    return y
def deep_items_in_tf_range(n):
    d = {'p': {'q': 0}, 'r': [1, 2]}
    for i in tf.range(n):
        d['p']['q'] += i
        d['r'][1] *= 2
    return d
class Box:
    pass
def attr_set_under_condition(x):
    b = Box()
    b.v = 0
    if x > 5:
        b.v = 7
    return b.v
def attr_set_in_branches(x):
    b = Box()
    b.v = x
    if b.v > 0:
        b.v = b.v * 2
    else:
        b.v = -b.v
    return b.v
def attrs_in_while(x):
    b = Box()
    b.v = x
    b.n = 0
    while b.v > 0:
        b.v -= 1
        b.n += 2
    return b.v, b.n
def attr_in_tf_range(n):
    b = Box()
    b.total = 0
    for i in tf.range(n):
        b.total += i
    return b.total
'''

C4_CASES = (
    cases("dict_key_set_in_branches", 0, 1) + cases("list_item_set_in_branches", 0, 1)
    + cases("nested_dict_set_in_branches", -1, 3) + cases("item_changed_in_one_branch", 1, 3)
    + cases("key_added_on_one_side", 0, 1, kinds=("py",))
    + cases("key_added_in_else", 0, 1, kinds=("py",))
    + cases("deep_key_added_on_one_side", 0, 1, kinds=("py",))
    + cases("list_item_counted_in_while", 0, 2)
    + cases("dict_item_counted_in_while", (0, 3, 0), (2, 7, 0), kinds=("py", "tf", "TPP"))
    + cases("dict_drives_while", (0, 3), (0, 6), (0, 11), kinds=("py", "tf", "PT"))
    + cases("list_drives_while", (0, 3), (0, 6), (0, 11), kinds=("py", "tf", "PT"))
    + cases("key_created_in_while", 5, 10) + cases("key_created_in_while", 11, kinds=("py",))
    + cases("dict_item_in_range", (0, 1), (2, 1), kinds=("py", "tf", "TP"))
    + cases("list_item_in_range", (0, 1), (3, 1), kinds=("py", "tf", "TP"))
    + cases("key_created_in_range", (1, 0), (2, 0), kinds=("py", "tf", "TP"))
    + cases("key_created_in_range", (0, 0), kinds=("py",))
    + cases("deep_items_in_tf_range", 0, 3)
    + cases("attr_set_under_condition", 1, 6) + cases("attr_set_in_branches", -2, 3)
    + cases("attrs_in_while", 0, 3) + cases("attr_in_tf_range", 0, 4))


@pytest.mark.parametrize("case", C4_CASES, ids=ids(C4_CASES))
def test_class4_containers_and_attributes(case, modules, target):
    check(modules, "class4_composites", C4_SRC, case)


# --------------------------------------------- class 8: values returned from tf.function

C8_SRC = '''
v = tf.Variable(2.5)
w = tf.Variable([1, 2, 3])
def an_int():
    return 7
def a_float():
    return 0.25
def a_bool():
    return True
def from_python_args(x, y):
    return x + 1, y * 0.5, x > y
def counted_in_python(n):
    c = 0
    for _ in range(n):
        c += 2
    return c
def nested_python_values():
    return {'i': 1, 'f': [2.5, False]}
def the_variable():
    return v
def variables_in_structure():
    return {'w': w, 'pair': (v, 1)}
def nothing():
    return None
'''

T = collections.namedtuple("T", "dtype value")  # a tensor result: numpy dtype and value

C8_CASES = [
    ("an_int", (), T(np.int32, 7)),
    ("a_float", (), T(np.float32, 0.25)),
    ("a_bool", (), T(np.bool_, True)),
    ("from_python_args", (3, 2), (T(np.int32, 4), T(np.float32, 1.0), T(np.bool_, True))),
    ("counted_in_python", (3,), T(np.int32, 6)),
    ("nested_python_values", (), {"i": T(np.int32, 1),
                                  "f": [T(np.float32, 2.5), T(np.bool_, False)]}),
    ("the_variable", (), T(np.float32, 2.5)),
    ("variables_in_structure", (), {"w": T(np.int32, [1, 2, 3]),
                                    "pair": (T(np.float32, 2.5), T(np.int32, 1))}),
    ("nothing", (), None),
]


def _typed_same(got, want):
    if isinstance(want, T):
        return (isinstance(got, (np.ndarray, np.generic)) and got.dtype == want.dtype
                and got.shape == np.shape(want.value) and np.array_equal(got, want.value))
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(
            _typed_same(got[k], want[k]) for k in want)
    if isinstance(want, (list, tuple)):
        return (type(got) is type(want) and len(got) == len(want)
                and all(_typed_same(g, x) for g, x in zip(got, want)))
    return got is want


@pytest.mark.parametrize("fn,args,want", C8_CASES, ids=[c[0] for c in C8_CASES])
def test_class8_python_values_come_back_as_tensors_of_tf_dtypes(fn, args, want, modules, target):
    # TF converts every non-None output of a tf.function to a tensor: Python int -> int32,
    # float -> float32, bool -> bool; a tf.Variable output is its value.
    mod, _ = modules.get("class8_returns", C8_SRC)
    got = getattr(mod, fn)(*args, _timeout=TIMEOUT)
    assert _typed_same(got, want), "%s%r: got %r, TensorFlow gives %r" % (fn, args, got, want)
