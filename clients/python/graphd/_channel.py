"""Target parsing and gRPC channel creation."""

import grpc

DEFAULT_PORT = 50051

# The client accepts and sends messages up to 1 GiB, so the server's
# --max-message-bytes is the limit that applies.
MAX_MESSAGE_BYTES = 1 << 30

CHANNEL_OPTIONS = (
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
)


def parse_target(target):
    """Normalizes a server address to a gRPC target string.

    Accepts "host:port", "grpc://host:port", "[v6addr]:port", a bare "host"
    (port 50051), and gRPC's own "unix:..." / "dns:..." / "ipv4:..." forms,
    which pass through unchanged.
    """
    if not isinstance(target, str):
        raise TypeError("target must be a str, got %r" % type(target).__name__)
    target = target.strip()
    for prefix in ("unix:", "unix-abstract:", "dns:", "ipv4:", "ipv6:"):
        if target.startswith(prefix):
            return target
    if target.startswith("grpc://"):
        target = target[len("grpc://"):].rstrip("/")
    elif "://" in target:
        raise ValueError("unsupported target scheme in %r (use host:port or "
                         "grpc://host:port)" % target)
    if not target:
        raise ValueError("empty graphd target (expected host:port or grpc://host:port)")
    if target.startswith("["):  # [v6]:port or [v6]
        if target.endswith("]"):
            return "%s:%d" % (target, DEFAULT_PORT)
        return target
    if ":" not in target:
        return "%s:%d" % (target, DEFAULT_PORT)
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError("malformed graphd target %r (expected host:port)" % target)
    return target


def make_channel(target):
    """Opens an insecure channel to ``target`` (see parse_target)."""
    return grpc.insecure_channel(parse_target(target), options=CHANNEL_OPTIONS)
