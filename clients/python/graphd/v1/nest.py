"""Nested structures of values (TensorFlow's tf.nest, the subset control flow needs):
lists, tuples, namedtuples and dicts (by sorted key) nest; anything else is a leaf."""


def is_nested(value):
    return isinstance(value, (list, tuple, dict))


def _children(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(structure):
    """The leaves of ``structure``, depth first."""
    if not is_nested(structure):
        return [structure]
    leaves = []
    for child in _children(structure):
        leaves.extend(flatten(child))
    return leaves


def flatten_up_to(structure, value):
    """``value`` flattened only as deep as ``structure`` nests (its leaves may be
    sequences themselves, e.g. shapes). ValueError when it does not nest alike."""
    if not is_nested(structure):
        return [value]
    if not is_nested(value) or isinstance(value, dict) != isinstance(structure, dict):
        raise ValueError("%r does not have the structure of %r" % (value, structure))
    if isinstance(structure, dict) and sorted(structure) != sorted(value):
        raise ValueError("%r does not have the keys of %r" % (value, structure))
    children, likes = _children(value), _children(structure)
    if len(children) != len(likes):
        raise ValueError("%r does not have the structure of %r" % (value, structure))
    out = []
    for like, child in zip(likes, children):
        out.extend(flatten_up_to(like, child))
    return out


def _rebuild(like, children):
    if isinstance(like, dict):
        return type(like)((k, v) for k, v in zip(sorted(like), children))
    if isinstance(like, tuple) and hasattr(like, "_fields"):  # namedtuple
        return type(like)(*children)
    return type(like)(children)


def pack_sequence_as(structure, flat):
    """``flat`` (a list of leaves) in the shape of ``structure``."""
    flat = list(flat)
    count = len(flatten(structure))
    if count != len(flat):
        raise ValueError("the structure has %d leaves but %d values were given"
                         % (count, len(flat)))

    def pack(like, it):
        if not is_nested(like):
            return next(it)
        return _rebuild(like, [pack(child, it) for child in _children(like)])

    return pack(structure, iter(flat))


def same_structure(a, b):
    """Whether ``a`` and ``b`` nest the same way (leaf values aside). Lists and
    tuples count as the same kind of sequence, as TensorFlow's check_types=False."""
    if is_nested(a) != is_nested(b):
        return False
    if not is_nested(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(same_structure(x, y) for x, y in zip(ca, cb))
