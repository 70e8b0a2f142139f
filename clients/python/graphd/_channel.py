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
    elif target.startswith("grpcs://"):
        target = target[len("grpcs://"):].rstrip("/")
    elif "://" in target:
        raise ValueError("unsupported target scheme in %r (use host:port, grpc://host:port "
                         "or grpcs://host:port)" % target)
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


def make_channel(target, root_certificates=None, private_key=None, certificate_chain=None):
    """Opens a channel to ``target`` (see parse_target): TLS when the target is
    ``grpcs://...`` or any certificate is given (``root_certificates`` None: the
    system's roots; ``private_key`` and ``certificate_chain``: a client certificate
    for mutual TLS, PEM bytes), else plaintext."""
    secure = target.strip().startswith("grpcs://") or any(
        x is not None for x in (root_certificates, private_key, certificate_chain))
    if not secure:
        return grpc.insecure_channel(parse_target(target), options=CHANNEL_OPTIONS)
    credentials = grpc.ssl_channel_credentials(root_certificates=_pem(root_certificates),
                                               private_key=_pem(private_key),
                                               certificate_chain=_pem(certificate_chain))
    return grpc.secure_channel(parse_target(target), credentials, options=CHANNEL_OPTIONS)


def _pem(value):
    """PEM bytes from bytes, str, or None."""
    return value.encode() if isinstance(value, str) else value
