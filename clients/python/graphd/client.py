"""``graphd.connect``: a plain client holding one (empty-graph) server session."""

import collections
import os
import sys
import threading

from graphd import _rpc

Device = collections.namedtuple("Device", ["name", "device_type", "memory_limit",
                                           "description"])
ServerInfo = collections.namedtuple("ServerInfo", ["version", "active_sessions", "gpu_bytes_in_use",
                                                 "gpu_bytes_cached", "function_cache"])
# The server's function cache (shared by every session): hits, misses, compiles
# (concrete functions made), waits (misses that joined another caller's compile),
# evictions, entries and bytes (constants held).
FunctionCacheStats = collections.namedtuple("FunctionCacheStats", ["hits", "misses", "compiles", "waits",
                                                                   "evictions", "entries", "bytes"])


def devices_from_response(response):
    return [Device(d.name, d.device_type, d.memory_limit, d.description)
            for d in response.device]


class Client:
    """A connection to a graphd server with one open session.

    Create it with :func:`graphd.connect`. ``timeout`` is the default per-RPC
    deadline in seconds (None: no deadline). Use it as a context manager, or
    call :meth:`close`, which closes the session and then the channel.
    Thread-safe.
    """

    def __init__(self, target, timeout=None, device="", token=None, root_certificates=None, private_key=None,
                 certificate_chain=None):
        from graphd.v1 import session_pb2

        self._closed = True  # until CreateSession succeeded
        self._conn = _rpc.Connection(target, timeout=timeout, token=token, root_certificates=root_certificates,
                                     private_key=private_key, certificate_chain=certificate_chain)
        self._lock = threading.Lock()
        try:
            request = session_pb2.CreateSessionRequest(
                options=session_pb2.SessionOptions(device=default_device(device)))
            response = self._conn.session("CreateSession", request)
        except BaseException:
            self._conn.close()
            raise
        self._session_handle = response.session_handle
        self._closed = False

    # -- properties --------------------------------------------------------
    @property
    def target(self):
        return self._conn.target

    @property
    def session_handle(self):
        return self._session_handle

    @property
    def connection(self):
        """The underlying :class:`graphd._rpc.Connection` (raw stubs)."""
        return self._conn

    @property
    def closed(self):
        return self._closed

    # -- calls -------------------------------------------------------------
    def list_devices(self, timeout=None):
        """Devices the server offers, as :class:`Device` namedtuples."""
        from graphd.v1 import session_pb2

        response = self._conn.session("ListDevices", session_pb2.ListDevicesRequest(),
                                      timeout)
        return devices_from_response(response)

    def health(self, service="", timeout=None):
        """Returns "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN" or "UNKNOWN"."""
        return self._conn.health(service, timeout)

    def server_info(self, timeout=None):
        """The server's version, number of open sessions, GPU memory (bytes held by
        live tensors, bytes cached for reuse; 0 without a GPU) and function cache
        counters (:class:`FunctionCacheStats`) as :class:`ServerInfo`."""
        from graphd.v1 import diagnostics_pb2

        response = self._conn.call(self._conn.diagnostics_stub.GetServerInfo,
                                   diagnostics_pb2.GetServerInfoRequest(), timeout)
        c = response.function_cache
        cache = FunctionCacheStats(c.hits, c.misses, c.compiles, c.waits, c.evictions, c.entries, c.bytes)
        return ServerInfo(response.version, response.active_sessions, response.gpu_bytes_in_use,
                          response.gpu_bytes_cached, cache)

    def echo(self, payload=b"", timeout=None):
        """DiagnosticsService.Echo: returns ``payload`` as the server sent it back."""
        from graphd.v1 import diagnostics_pb2

        response = self._conn.call(self._conn.diagnostics_stub.Echo,
                                   diagnostics_pb2.EchoRequest(payload=payload), timeout)
        return response.payload

    def load_module(self, source, filename="<module>"):
        """Loads function source (tf.function style) into the session; returns a
        module whose functions are attributes: ``mod.f(np.float32(1.0))``."""
        from graphd import functions
        return functions.load_module(self, source, filename)

    def function(self, py_fn=None, input_signature=None):
        """Ships ``py_fn``'s source (and the plain values it references) to the
        server as a tf.function; use as ``@client.function`` or
        ``client.function(fn, input_signature=[graphd.TensorSpec(...)])``."""
        from graphd import shipping
        return shipping.function(self, py_fn, input_signature)

    def model(self, name, version=None, timeout=None):
        """A model the server serves from its repository (graphd --model-repository):
        a callable :class:`graphd.models.ServedModel` (like :meth:`load_onnx`'s, but
        shared by every client and batched by the server). Raises NotFoundError for a
        model or version that is not loaded."""
        from graphd import models
        return models.ServedModel(self, name, version, timeout)

    def models(self, timeout=None):
        """The server's model repository: a list of :class:`graphd.models.ModelIndex`
        (name, version, state, reason)."""
        from graphd import models
        return models.list_models(self, timeout)

    def load_onnx(self, path_or_bytes, name=None, timeout=None, reduce_retracing=False):
        """Loads an ONNX model (a path, read here, or the model's bytes) into the
        session; returns a callable :class:`graphd.graphs.GraphFunction`. Each input
        shape is built once; with ``reduce_retracing`` a new shape gets a build
        generalised against the last one (differing dims unknown) that later shapes
        reuse."""
        from graphd import graphs
        return graphs.load_onnx(self, path_or_bytes, name, timeout, reduce_retracing)

    def load_graph(self, graph, outputs, inputs=None, name=None, timeout=None, reduce_retracing=False):
        """Registers a graphd.v1 graph (or GraphDef proto) as a callable function:
        Placeholders ``inputs`` (default: all, in creation order) in, tensors
        ``outputs`` out (tensors or "node:i" names); cond/while_loop bodies come
        with it. Returns a :class:`graphd.graphs.GraphFunction`."""
        from graphd import graphs
        return graphs.load_graph(self, graph, outputs, inputs, name, timeout, reduce_retracing)

    def close(self, timeout=None):
        """Closes the session, then the channel. Idempotent. A session the
        server already dropped closes quietly; other CloseSession errors are
        raised after the channel is closed."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._conn.close_session(self._session_handle, timeout)
        finally:
            self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, tb):
        from graphd import errors
        try:
            self.close()
        except errors.OpError:
            if exc_type is None:
                raise

    def __del__(self):
        if getattr(self, "_closed", True) or sys.is_finalizing():
            return
        try:
            self.close(timeout=2.0)
        except Exception:  # best effort: never raise from a finalizer
            pass

    def __repr__(self):
        return "<graphd.Client target=%r session=%s%s>" % (
            self.target, self._session_handle, " closed" if self._closed else "")


def default_device(device):
    """``device`` when given, else the environment's ``GRAPHD_DEVICE`` (so a whole
    program or test suite can be pointed at the GPU), else "" (the server's CPU)."""
    return device or os.environ.get("GRAPHD_DEVICE", "")


def connect(target, timeout=None, device="", token=None, root_certificates=None, private_key=None,
            certificate_chain=None):
    """Connects to a graphd server at ``target`` ("host:port", "grpc://host:port", or
    "grpcs://host:port" for TLS) and opens a session. ``timeout`` is the default
    per-RPC deadline in seconds. ``device``: "" or "cpu", or "gpu" (ops with a
    GPU kernel run on the GPU, the rest on the CPU; FAILED_PRECONDITION "no GPU
    device" on a server without one); "" means ``$GRAPHD_DEVICE`` or the CPU.
    ``token``: the tenant's bearer token (default ``$GRAPHD_TOKEN``). TLS:
    ``root_certificates`` (PEM; None: the system's roots), and for mutual TLS
    ``private_key`` and ``certificate_chain``; any of them (or grpcs://) turns TLS on.
    Returns a :class:`Client`."""
    return Client(target, timeout=timeout, device=device, token=token, root_certificates=root_certificates,
                  private_key=private_key, certificate_chain=certificate_chain)


def health(target, service="", timeout=5.0):
    """One health check against ``target`` without opening a session.

    Returns "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN" or "UNKNOWN"; raises
    graphd.errors.UnavailableError (or DeadlineExceededError) when the server
    cannot be reached.
    """
    conn = _rpc.Connection(target, timeout=timeout)
    try:
        return conn.health(service)
    finally:
        conn.close()
