"""Session.run fetch structures: flatten nested fetches to (tensor names,
target names) and rebuild the same structure from the fetched values."""

import collections

from graphd.v1.graph import Operation, Tensor

_TENSOR = "tensor"
_OP = "op"


class FetchPlan:
    """Parses ``fetches``: a Tensor, Operation, Variable, name ("y:0" is a
    tensor, "init" an operation) or any nesting of lists, tuples, namedtuples
    and dicts of these.

    ``tensor_names`` (unique, in first-seen order) are what Run must fetch;
    ``target_names`` (unique) are operations to run. ``build(values)`` takes
    one value per tensor name and returns the fetch structure with tensors
    replaced by values and operations by None.
    """

    def __init__(self, graph, fetches):
        self._graph = graph
        self.tensor_names = []
        self.target_names = []
        self._tensor_index = {}
        self._targets = set()
        self._template = self._parse(fetches)

    def _add_tensor(self, name):
        index = self._tensor_index.get(name)
        if index is None:
            index = self._tensor_index[name] = len(self.tensor_names)
            self.tensor_names.append(name)
        return (_TENSOR, index)

    def _add_target(self, name):
        if name not in self._targets:
            self._targets.add(name)
            self.target_names.append(name)
        return (_OP, None)

    def _check_graph(self, element):
        if self._graph is not None and element.graph is not self._graph:
            raise ValueError("Fetch %r is not an element of this session's graph." %
                             (element,))

    def _parse(self, fetch):
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        if isinstance(fetch, Tensor):
            self._check_graph(fetch)
            return self._add_tensor(fetch.name)
        if isinstance(fetch, Operation):
            self._check_graph(fetch)
            return self._add_target(fetch.name)
        if hasattr(fetch, "_as_graph_element"):  # Variable
            element = fetch._as_graph_element()
            self._check_graph(element)
            return self._add_tensor(element.name)
        if isinstance(fetch, str):
            if ":" in fetch:
                return self._add_tensor(fetch)
            return self._add_target(fetch)
        if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):  # namedtuple
            return ("namedtuple", type(fetch), [self._parse(f) for f in fetch])
        if isinstance(fetch, (list, tuple)):
            return (type(fetch).__name__ if type(fetch) in (list, tuple) else "seq",
                    type(fetch), [self._parse(f) for f in fetch])
        if isinstance(fetch, dict):
            return ("dict", fetch, [(k, self._parse(v)) for k, v in fetch.items()])
        raise TypeError("Fetch argument %r has invalid type %r; must be a Tensor, "
                        "Operation, Variable, name string, or a list/tuple/dict of "
                        "them." % (fetch, type(fetch)))

    def build(self, values):
        """The fetch structure with ``values`` (one per tensor name) in place."""
        if len(values) != len(self.tensor_names):
            raise ValueError("expected %d fetched values, got %d"
                             % (len(self.tensor_names), len(values)))
        return _build(self._template, values)


def _build(template, values):
    kind = template[0]
    if kind == _TENSOR:
        return values[template[1]]
    if kind == _OP:
        return None
    if kind == "namedtuple":
        return template[1](*[_build(t, values) for t in template[2]])
    if kind == "list":
        return [_build(t, values) for t in template[2]]
    if kind == "tuple":
        return tuple(_build(t, values) for t in template[2])
    if kind == "seq":  # list/tuple subclass
        return template[1](_build(t, values) for t in template[2])
    if kind == "dict":
        original = template[1]
        if isinstance(original, collections.defaultdict):
            out = collections.defaultdict(original.default_factory)
        else:
            try:
                out = type(original)()
            except TypeError:
                out = {}
        for key, sub in template[2]:
            out[key] = _build(sub, values)
        return out
    raise AssertionError("bad fetch template %r" % (template,))
