"""Static shapes on the client: a tuple of dims (None = unknown dim) or None
(unknown rank), plus the inference rules of the ops graphd.v1 builds."""

import operator
from functools import reduce as _reduce


class TensorShape(tuple):
    """A tuple of dimension sizes (int or None) with a few TensorFlow methods."""

    @property
    def ndims(self):
        return len(self)

    rank = ndims

    @property
    def dims(self):
        return list(self)

    def as_list(self):
        return list(self)

    def is_fully_defined(self):
        return all(d is not None for d in self)

    def num_elements(self):
        """Number of elements, or None when a dimension is unknown."""
        if not self.is_fully_defined():
            return None
        return _reduce(operator.mul, self, 1)

    def is_compatible_with(self, other):
        other = as_shape(other)
        if other is None:
            return True
        if len(other) != len(self):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self, other))


def as_shape(shape):
    """Normalizes a user shape to TensorShape or None (unknown rank).

    Accepts None, an int (a vector of that length), or a sequence of ints,
    None or -1 (both mean unknown).
    """
    if shape is None:
        return None
    if isinstance(shape, TensorShape):
        return shape
    if isinstance(shape, int):
        shape = (shape,)
    dims = []
    for d in shape:
        if d is None or (not isinstance(d, bool) and int(d) == -1):
            dims.append(None)
            continue
        d = int(d)
        if d < 0:
            raise ValueError("dimension %d in shape %r must be >= 0 (or -1/None)"
                             % (d, tuple(shape)))
        dims.append(d)
    return TensorShape(dims)


def unknown_shape():
    return None


def broadcast(a, b):
    """numpy broadcasting of two static shapes; ValueError when incompatible."""
    if a is None or b is None:
        return None
    out = []
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    for x, y in zip(pa, pb):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        elif x == y:
            out.append(x)
        else:
            raise ValueError("Incompatible shapes for broadcasting: %s and %s"
                             % (tuple(a), tuple(b)))
    return TensorShape(out)


def matmul(a, b, transpose_a=False, transpose_b=False):
    """Shape of MatMul(a, b); both must be rank 2 when known."""
    for name, s in (("a", a), ("b", b)):
        if s is not None and len(s) != 2:
            raise ValueError("MatMul input %s must be rank 2, got shape %s" % (name, s))
    if a is None or b is None:
        m = None if a is None else a[1 if transpose_a else 0]
        n = None if b is None else b[0 if transpose_b else 1]
        return TensorShape((m, n))
    m, ka = (a[1], a[0]) if transpose_a else (a[0], a[1])
    kb, n = (b[1], b[0]) if transpose_b else (b[0], b[1])
    if ka is not None and kb is not None and ka != kb:
        raise ValueError("MatMul inner dimensions differ: %s x %s (transpose_a=%s, "
                         "transpose_b=%s)" % (tuple(a), tuple(b), transpose_a, transpose_b))
    return TensorShape((m, n))


def normalize_axes(axis, rank):
    """axis (None, int or list) -> sorted list of non-negative axes, or None
    when ``rank`` is unknown and axes are negative."""
    if axis is None:
        return None if rank is None else list(range(rank))
    axes = [axis] if isinstance(axis, int) else [int(a) for a in axis]
    if rank is None:
        return None if any(a < 0 for a in axes) else sorted(set(axes))
    out = set()
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError("axis %d out of range for rank %d" % (a, rank))
        out.add(a % rank)
    return sorted(out)


def reduce(shape, axis, keepdims):
    """Shape of a reduction (Sum/Mean/Max) over ``axis`` (None = all axes)."""
    if shape is None:
        if axis is None and not keepdims:
            return TensorShape(())
        return None
    axes = normalize_axes(axis, len(shape))
    if keepdims:
        return TensorShape(1 if i in axes else d for i, d in enumerate(shape))
    return TensorShape(d for i, d in enumerate(shape) if i not in axes)


def reshape(shape, new_shape):
    """Shape of Reshape(x, new_shape) where new_shape is a list of ints with
    at most one -1; checks element counts when they are known."""
    new_shape = [int(d) for d in new_shape]
    if sum(1 for d in new_shape if d == -1) > 1:
        raise ValueError("reshape: at most one dimension may be -1, got %s" % new_shape)
    if any(d < -1 for d in new_shape):
        raise ValueError("reshape: invalid target shape %s" % new_shape)
    known = _reduce(operator.mul, (d for d in new_shape if d != -1), 1)
    total = None
    if shape is not None and all(d is not None for d in shape):
        total = _reduce(operator.mul, shape, 1)
    if -1 not in new_shape:
        if total is not None and total != known:
            raise ValueError("Cannot reshape a tensor with %d elements to shape %s"
                             % (total, new_shape))
        return TensorShape(new_shape)
    if total is None:
        return TensorShape(None if d == -1 else d for d in new_shape)
    if known == 0 or total % known:
        if known == 0 and total == 0:
            return TensorShape(None if d == -1 else d for d in new_shape)
        raise ValueError("Cannot reshape a tensor with %d elements to shape %s"
                         % (total, new_shape))
    return TensorShape(total // known if d == -1 else d for d in new_shape)
