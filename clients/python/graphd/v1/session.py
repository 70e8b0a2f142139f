"""TensorFlow-1-style Session running a graphd.v1.Graph on a graphd server.

Graph shipping: the graph's nodes go in CreateSession; later, before each run
or make_callable, the nodes added since are sent with ExtendSession (with the
session's current graph version). Nodes count as sent only after the server
accepted them.
"""

import contextlib
import math
import os
import sys
import threading

import numpy as np

from graphd import _rpc
from graphd import _tensor
from graphd import errors
from graphd.client import default_device, devices_from_response
from graphd.v1 import graph as _graph
from graphd.v1.fetches import FetchPlan
from graphd.v1.graph import Tensor


class ConfigProto:
    """Accepts TensorFlow's ConfigProto keywords. graphd uses
    ``operation_timeout_in_ms`` (the default run timeout); the rest is kept
    but ignored."""

    def __init__(self, **kwargs):
        self.operation_timeout_in_ms = kwargs.pop("operation_timeout_in_ms", 0)
        self.__dict__.update(kwargs)


def _default_timeout(config):
    if config is None:
        return None
    if isinstance(config, dict):
        ms = config.get("operation_timeout_in_ms", 0)
    else:
        ms = getattr(config, "operation_timeout_in_ms", 0)
    return ms / 1000.0 if ms and ms > 0 else None


def _pb():
    from graphd.v1 import session_pb2
    return session_pb2


def _feed_tensor(graph, key):
    """(name, dtype or None) for a feed_dict key / feed_list entry."""
    if isinstance(key, Tensor):
        if key.graph is not graph:
            raise ValueError("Feed key %r is not an element of this session's graph." % key)
        return key.name, key.dtype
    if hasattr(key, "_as_graph_element"):  # Variable
        tensor = key._as_graph_element()
        return tensor.name, tensor.dtype
    if isinstance(key, str):
        name = key if ":" in key else key + ":0"
        try:
            return name, graph.get_tensor_by_name(name).dtype
        except (KeyError, ValueError):
            return name, None  # unknown to this client: let the server judge it
    raise TypeError("Cannot interpret feed_dict key %r as a Tensor" % (key,))


def _feed_proto(name, dtype, value):
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_element"):
        raise TypeError("The value of a feed cannot be a graphd Tensor or Variable "
                        "(feed %s). Feed numpy values." % name)
    if dtype is None:
        return _tensor.make_tensor_proto(value)
    if dtype.name != "string":
        value = np.asarray(value, dtype=dtype.as_numpy_dtype)
    return _tensor.make_tensor_proto(value, dtype.enum)


class Session:
    """A session on a graphd server, running ``graph`` (default: the default graph).

    target: "host:port", "grpc://host:port" or "grpcs://host:port" (default: $GRAPHD_TARGET).
    token, root_certificates, private_key, certificate_chain: as :func:`graphd.connect`.
    config: a ConfigProto (or dict); ``operation_timeout_in_ms`` sets the
    default run timeout. device: "cpu" or "gpu" (ops without a GPU kernel run
    on the CPU); None/"" = $GRAPHD_DEVICE, else the server's CPU. Thread-safe: runs from many threads may share one Session.
    """

    def __init__(self, target="", graph=None, config=None, device=None, token=None, root_certificates=None,
                 private_key=None, certificate_chain=None):
        target = target or os.environ.get("GRAPHD_TARGET", "")
        if not target:
            raise ValueError("graphd.v1.Session needs a server target (host:port or "
                             "grpc://host:port) or $GRAPHD_TARGET")
        self._closed = True  # until CreateSession succeeded
        self._graph = graph if graph is not None else _graph.get_default_graph()
        self._default_timeout = _default_timeout(config)
        self._lock = threading.Lock()      # graph shipping and close
        self._callables = set()
        self._conn = _rpc.Connection(target, token=token, root_certificates=root_certificates,
                                     private_key=private_key, certificate_chain=certificate_chain)
        pb = _pb()
        try:
            sent = self._graph._shipping_mark()
            request = pb.CreateSessionRequest(
                graph_def=self._graph._graph_def_slice((0, 0), sent),
                options=pb.SessionOptions(device=default_device(device)))
            response = self._conn.session("CreateSession", request)
        except BaseException:
            self._conn.close()
            raise
        self._handle = response.session_handle
        self._version = response.graph_version
        self._sent = sent
        self._closed = False
        self._default_stack = []

    # -- properties ---------------------------------------------------------------
    graph = property(lambda self: self._graph)
    session_handle = property(lambda self: self._handle)
    graph_version = property(lambda self: self._version)
    target = property(lambda self: self._conn.target)

    @property
    def connection(self):
        """The underlying graphd._rpc.Connection (raw stubs)."""
        return self._conn

    def _check_open(self):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    # -- graph shipping -------------------------------------------------------------
    def _extend(self):
        """Sends the graph's unsent nodes and functions (if any) with ExtendSession."""
        if self._graph._shipping_mark() == self._sent:
            return
        with self._lock:
            count = self._graph._shipping_mark()
            if count == self._sent:
                return
            request = _pb().ExtendSessionRequest(
                session_handle=self._handle,
                graph_def=self._graph._graph_def_slice(self._sent, count),
                current_graph_version=self._version)
            response = self._conn.session("ExtendSession", request)
            self._version = response.new_graph_version
            self._sent = count

    # -- running --------------------------------------------------------------------
    def _run_options(self, timeout, options):
        """(RunOptions, gRPC deadline seconds) for a call."""
        if options is not None and getattr(options, "timeout_in_ms", 0) and timeout is None:
            timeout = options.timeout_in_ms / 1000.0
        if timeout is None:
            timeout = self._default_timeout
        if timeout is None:
            return _pb().RunOptions(), None
        if timeout <= 0:
            raise ValueError("timeout must be positive, got %r" % timeout)
        return _pb().RunOptions(timeout_in_ms=max(1, int(math.ceil(timeout * 1000)))), timeout

    def _feeds(self, feed_dict):
        feeds = {}
        for key, value in (feed_dict or {}).items():
            name, dtype = _feed_tensor(self._graph, key)
            feeds[name] = _feed_proto(name, dtype, value)
        return feeds

    def run(self, fetches, feed_dict=None, timeout=None, options=None, run_metadata=None):
        """Runs the fetches; returns their values in the same structure
        (numpy arrays, numpy scalars for 0-d tensors, None for operations).

        timeout: seconds for this run (RunOptions.timeout_in_ms and the gRPC
        deadline). options: a RunOptions proto (timeout_in_ms; trace=True to
        time every step). run_metadata: a RunMetadata proto filled with the
        server's timings (and, with trace, step_stats: node, op, device,
        start_ns, duration_ns per step).
        """
        if isinstance(timeout, _pb().RunOptions):  # TF's positional (fetches, feed, options)
            options, timeout = timeout, None
        self._check_open()
        plan = FetchPlan(self._graph, fetches)
        feeds = self._feeds(feed_dict)
        run_options, deadline = self._run_options(timeout, options)
        run_options.trace = bool(getattr(options, "trace", False))
        self._extend()
        if not plan.tensor_names and not plan.target_names:
            return plan.build([])
        pb = _pb()
        request = pb.RunRequest(
            session_handle=self._handle,
            feed=[pb.NamedTensor(name=n, tensor=t) for n, t in feeds.items()],
            fetch=plan.tensor_names, target=plan.target_names, options=run_options)
        response = self._conn.session("Run", request, timeout=deadline)
        _echo_printed(response)
        if run_metadata is not None:
            run_metadata.CopyFrom(response.metadata)
        return plan.build(_values(response.tensor, plan, lambda t: t.tensor))

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """Compiles (feeds, fetches) once on the server and returns a function
        taking the feed values positionally (keyword ``timeout`` too) and
        returning the fetch structure. Released when the session closes."""
        del accept_options  # options/run_metadata keywords are always accepted
        self._check_open()
        plan = FetchPlan(self._graph, fetches)
        feeds = [_feed_tensor(self._graph, key) for key in (feed_list or [])]
        self._extend()
        pb = _pb()
        request = pb.MakeCallableRequest(
            session_handle=self._handle,
            options=pb.CallableOptions(feed=[name for name, _ in feeds],
                                       fetch=plan.tensor_names,
                                       target=plan.target_names))
        handle = self._conn.session("MakeCallable", request).handle
        with self._lock:
            self._callables.add(handle)
        return _Callable(self, handle, plan, feeds)

    def list_devices(self):
        """The server's devices, as graphd.Device namedtuples."""
        response = self._conn.session("ListDevices", _pb().ListDevicesRequest())
        return devices_from_response(response)

    # -- lifetime ---------------------------------------------------------------------
    def close(self, timeout=None):
        """Releases callables, closes the server session and the channel.
        Idempotent; a session the server already dropped closes quietly."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            handles, self._callables = list(self._callables), set()
        pb = _pb()
        try:
            for handle in handles:
                try:
                    self._conn.session("ReleaseCallable", pb.ReleaseCallableRequest(
                        session_handle=self._handle, handle=handle), timeout)
                except errors.OpError:
                    pass
            self._conn.close_session(self._handle, timeout)
        finally:
            self._conn.close()

    def __del__(self):
        if getattr(self, "_closed", True) or sys.is_finalizing():
            return
        try:
            self.close(timeout=2.0)
        except Exception:  # best effort: never raise from a finalizer
            pass

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the default session (and its graph the default graph)."""
        with self._graph.as_default():
            _default_sessions().append(self)
            try:
                yield self
            finally:
                _default_sessions().pop()

    def __enter__(self):
        ctx = self.as_default()
        ctx.__enter__()
        self._default_stack.append(ctx)
        return self

    def __exit__(self, exc_type, exc_value, tb):
        self._default_stack.pop().__exit__(exc_type, exc_value, tb)
        try:
            self.close()
        except errors.OpError:
            if exc_type is None:
                raise

    def __repr__(self):
        return "<graphd.v1.Session target=%r handle=%s%s>" % (
            self.target, self._handle, " closed" if self._closed else "")


class _Callable:
    """The function make_callable returns."""

    def __init__(self, session, handle, plan, feeds):
        self._session = session
        self._handle = handle
        self._plan = plan
        self._feeds = feeds

    handle = property(lambda self: self._handle)

    def __call__(self, *args, timeout=None, options=None, run_metadata=None):
        if len(args) != len(self._feeds):
            raise TypeError("callable takes %d feed values, got %d"
                            % (len(self._feeds), len(args)))
        session = self._session
        session._check_open()
        pb = _pb()
        run_options, deadline = session._run_options(timeout, options)
        request = pb.RunCallableRequest(
            session_handle=session._handle, handle=self._handle,
            feed=[_feed_proto(name, dtype, value)
                  for (name, dtype), value in zip(self._feeds, args)],
            options=run_options)
        response = session._conn.session("RunCallable", request, timeout=deadline)
        _echo_printed(response)
        if run_metadata is not None:
            run_metadata.CopyFrom(response.metadata)
        return self._plan.build(_values(response.fetch, self._plan, lambda t: t))


def _echo_printed(response):
    """Writes what the run printed (tf.print) to this process's streams."""
    if response.stdout:
        sys.stdout.write(response.stdout)
    if response.stderr:
        sys.stderr.write(response.stderr)


def _values(tensors, plan, get_proto):
    if len(tensors) != len(plan.tensor_names):
        raise errors.InternalError(None, None, "server returned %d tensors for %d "
                                   "fetches" % (len(tensors), len(plan.tensor_names)))
    return [_tensor.tensor_proto_to_value(get_proto(t)) for t in tensors]


_local = threading.local()


def _default_sessions():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def get_default_session():
    """The innermost ``with Session(...)`` / ``as_default()`` session of this
    thread, or None."""
    stack = _default_sessions()
    return stack[-1] if stack else None


def _run_in(session, graph, fetch, feed_dict):
    """Tensor.eval / Operation.run: run ``fetch`` in ``session`` or the default."""
    session = session or get_default_session()
    if session is None:
        raise ValueError("Cannot evaluate without a session: pass session= or use "
                         "`with tf.Session(target):`.")
    if session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate a tensor or "
                         "operation of a different graph.")
    return session.run(fetch, feed_dict)
