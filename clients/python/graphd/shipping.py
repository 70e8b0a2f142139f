"""``client.function``: ship a Python function's source to the server.

The function's source (``inspect.getsource``) is sent with the plain values it
references by name (numbers, strings, bools, None, tuples/lists/dicts of those, numpy
arrays) and other shipped functions; ``import tensorflow as tf`` and
``import numpy as np`` are added. The server compiles it as a tf.function.
"""

import inspect
import textwrap

import numpy as np

_PLAIN = (bool, int, float, str, bytes, type(None))


def _literal(value):
    """Python source for a plain value, or None when it cannot be shipped."""
    if isinstance(value, _PLAIN):
        return repr(value)
    if isinstance(value, (list, tuple)):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        body = ", ".join(items)
        return "[%s]" % body if isinstance(value, list) else "(%s%s)" % (body, "," if len(items) == 1 else "")
    if isinstance(value, dict):
        pairs = [(_literal(k), _literal(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{%s}" % ", ".join("%s: %s" % kv for kv in pairs)
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind not in "biuf":
            return None
        return "tf.constant(%s, dtype=tf.%s)" % (repr(array.tolist()), array.dtype.name if array.dtype.name != "bool" else "bool")
    return None


def _function_source(py_fn):
    source = textwrap.dedent(inspect.getsource(py_fn))
    lines = source.splitlines()
    # Drop the decorators the client applied (@client.function, @sess.function(...)).
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    return "\n".join(lines) + "\n"


def _decorator(fn, input_signature):
    if input_signature is None:
        return "@tf.function"
    specs = ", ".join("tf.TensorSpec(shape=%r, dtype=tf.%s)" % (
        None if s.shape is None else list(s.shape), s.dtype.name) for s in input_signature)
    return "@tf.function(input_signature=(%s,))" % specs


def module_source(py_fn, input_signature=None):
    """The module text that defines ``py_fn`` on the server. The function keeps its
    line numbers from its file (so tracebacks point at the right lines); the values it
    references go on the first line, other shipped functions after it."""
    values, helpers, seen = [], [], {py_fn.__name__}

    def collect(fn):
        globals_ = getattr(fn, "__globals__", {})
        closure = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
        for name in list(fn.__code__.co_names) + list(fn.__code__.co_freevars):
            if name in ("tf", "np") or name in seen:
                continue
            value = closure[name] if name in closure else globals_.get(name, _MISSING)
            if value is _MISSING:
                continue
            shipped = getattr(value, "__graphd_python__", value)
            if inspect.isfunction(shipped):
                seen.add(name)
                helpers.append(shipped)
                collect(shipped)
                continue
            literal = _literal(value)
            if literal is not None:
                seen.add(name)
                values.append("%s = %s" % (name, literal))

    collect(py_fn)
    head = "; ".join(["import tensorflow as tf", "import numpy as np"] + values)
    body = _function_source(py_fn)
    try:
        _, start = inspect.getsourcelines(py_fn)
        first_def_line = start + (len(textwrap.dedent(inspect.getsource(py_fn)).splitlines()) -
                                  len(body.splitlines()))
    except (OSError, TypeError):
        first_def_line = 0
    lines = [head]
    # Blank lines so that the decorator lands just above the def's original line.
    lines.extend([""] * max(1, first_def_line - 3))
    lines.append(_decorator(py_fn, input_signature))
    lines.append(body.rstrip("\n"))
    for helper in helpers:
        lines.extend(["", "@tf.function", _function_source(helper).rstrip("\n")])
    return "\n".join(lines) + "\n"


_MISSING = object()


def function(client, py_fn=None, input_signature=None):
    """``@client.function`` / ``client.function(fn, input_signature=...)``."""
    def wrap(fn):
        mod = client.load_module(module_source(fn, input_signature), filename=inspect.getsourcefile(fn) or "<shipped>")
        remote = getattr(mod, fn.__name__)
        remote.__graphd_python__ = fn
        remote.__graphd_source__ = module_source(fn, input_signature)
        return remote
    return wrap if py_fn is None else wrap(py_fn)
