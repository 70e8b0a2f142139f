"""Sends an ONNX model to the server in chunks (SessionService.LoadGraphStream).

No message holds the whole model, so the server's --max-message-bytes bounds only a
chunk, and the model is never copied whole on the client: a file is read one chunk
at a time, and bytes are sliced through a memoryview. Each chunk is serialized by
hand (a LoadGraphChunk with only its ``data`` field is that field's tag, the length
as a varint, then the bytes), one copy per chunk instead of protobuf's two.
"""

import os

# Small enough to pipeline (the server takes one chunk while the next is on the
# wire), large enough that per-message costs vanish; a chunk message fits a server
# whose --max-message-bytes is as low as 1 MiB (the default is 64 MiB). The header
# goes alone in the first message, so its size never adds to a chunk's.
CHUNK_BYTES = (1 << 20) - 64

_METHOD = "/graphd.v1.SessionService/LoadGraphStream"
_DATA_TAG = b"\x1a"  # LoadGraphChunk.data: field 3, length-delimited


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _data_message(piece):
    return b"".join((_DATA_TAG, _varint(len(piece)), piece))


def _pieces(source, size):
    """The model's bytes in CHUNK_BYTES pieces: from a memoryview, or read from an
    open file."""
    if isinstance(source, memoryview):
        for start in range(0, size, CHUNK_BYTES):
            yield source[start:start + CHUNK_BYTES]
        return
    sent = 0
    while sent < size:
        piece = source.read(min(CHUNK_BYTES, size - sent))
        if not piece:
            raise OSError("the model file shrank while it was being sent (%d of %d bytes)" % (sent, size))
        sent += len(piece)
        yield piece


def _messages(header, source, size):
    from graphd.v1 import session_pb2
    yield session_pb2.LoadGraphChunk(header=header, total_bytes=size).SerializeToString()
    for piece in _pieces(source, size):
        yield _data_message(piece)


def load_graph_stream(connection, header, path_or_bytes, timeout=None):
    """LoadGraphStream with ``header`` (a LoadGraphRequest without the model) and the
    model from a path or bytes-like object; returns the LoadGraphResponse. Raises
    graphd.errors exceptions as every call does."""
    from graphd.v1 import session_pb2
    from graphd._rpc import SESSION_ROUTE_HEADER
    call = connection.channel.stream_unary(_METHOD, request_serializer=None,
                                           response_deserializer=session_pb2.LoadGraphResponse.FromString)
    handle = header.session_handle
    metadata = ((SESSION_ROUTE_HEADER, handle),) if 0 < len(handle) <= 128 else None
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        view = memoryview(path_or_bytes).cast("B")
        return connection.call(call, _messages(header, view, len(view)), timeout, metadata=metadata)
    with open(path_or_bytes, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return connection.call(call, _messages(header, f, size), timeout, metadata=metadata)
