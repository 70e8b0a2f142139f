"""One connection to a graphd server: a channel, its stubs, and error mapping.

Every call goes through :meth:`Connection.call`, which applies the default
deadline and turns ``grpc.RpcError`` into :mod:`graphd.errors` exceptions.
"""

import os
import secrets

import grpc

from graphd import _channel
from graphd import _stats
from graphd import errors

# Readable health states, indexed by HealthCheckResponse.ServingStatus.
_SERVING_STATUS = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}


# Request metadata with the session a call belongs to: a proxy in front of several
# replicas (deploy/proxy) hashes it to send every call of the session to the replica
# that holds it. Stateless calls (KServe ModelInfer, health, echo) go without it, so
# any replica may answer them.
SESSION_ROUTE_HEADER = "graphd-session"


class Connection:
    """A channel to one server plus its SessionService, DiagnosticsService and
    Health stubs. Thread-safe (gRPC channels and stubs are).

    SessionService calls carry ``graphd-session: <the request's session_handle>``;
    CreateSession carries a fresh random handle, which the server adopts for the
    session it makes (a proxy must route CreateSession the same way as the calls
    after it, before any server has answered)."""

    _metadata = None  # sent with every call: the bearer token, when there is one

    def __init__(self, target, timeout=None, token=None, root_certificates=None, private_key=None,
                 certificate_chain=None):
        # Generated modules are imported here, not at module import, so that
        # importing graphd works (and says what is missing) without stubs.
        from graphd.v1 import diagnostics_pb2_grpc, health_pb2_grpc, session_pb2_grpc

        self.target = _channel.parse_target(target)
        self.timeout = timeout
        self.channel = _channel.make_channel(target, root_certificates, private_key, certificate_chain)
        # The tenant's bearer token (graphd --tenants-file): the argument, else $GRAPHD_TOKEN.
        token = token if token is not None else os.environ.get("GRAPHD_TOKEN") or None
        self._metadata = (("authorization", "Bearer " + token),) if token else None
        self.session_stub = session_pb2_grpc.SessionServiceStub(self.channel)
        self.diagnostics_stub = diagnostics_pb2_grpc.DiagnosticsServiceStub(self.channel)
        self.health_stub = health_pb2_grpc.HealthStub(self.channel)
        self._closed = False

    def call(self, method, request, timeout=None, metadata=None):
        """Invokes a stub method (e.g. ``conn.session_stub.Run``).

        ``timeout`` (seconds) overrides the connection's default deadline.
        Raises a graphd.errors.OpError subclass on any non-OK status. A
        response carrying RunMetadata is recorded for graphd.last_call_stats().
        """
        if timeout is None:
            timeout = self.timeout
        if self._metadata:
            metadata = self._metadata + tuple(metadata or ())
        try:
            response = method(request, timeout=timeout, metadata=metadata)
        except grpc.RpcError as e:
            raise errors.from_rpc_error(e) from None
        _stats.record(response)
        return response

    def session(self, name, request, timeout=None):
        """Calls SessionService.<name>, routed to this connection's session's replica."""
        # 32 lowercase hex digits, the form of the server's own handles.
        handle = secrets.token_hex(16) if name == "CreateSession" else getattr(request, "session_handle", "")
        # (A handle far longer than any real one is no session's: no route, and no
        # header over gRPC's metadata limit; the server answers NOT_FOUND.)
        metadata = ((SESSION_ROUTE_HEADER, handle),) if 0 < len(handle) <= 128 else None
        return self.call(getattr(self.session_stub, name), request, timeout, metadata=metadata)

    def close_session(self, handle, timeout=None):
        """Closes server session ``handle``; one the server already dropped
        (closed or expired: NotFound) counts as closed."""
        from graphd.v1 import session_pb2

        try:
            self.session("CloseSession",
                         session_pb2.CloseSessionRequest(session_handle=handle), timeout)
        except errors.NotFoundError:
            pass

    def health(self, service="", timeout=None):
        """Returns the serving status of ``service`` as a string ("SERVING",
        "NOT_SERVING", "SERVICE_UNKNOWN" or "UNKNOWN")."""
        from graphd.v1 import health_pb2

        request = health_pb2.HealthCheckRequest(service=service)
        try:
            response = self.call(self.health_stub.Check, request, timeout)
        except errors.NotFoundError:
            return "SERVICE_UNKNOWN"  # the health protocol's answer for unknown names
        return _SERVING_STATUS.get(response.status, "UNKNOWN")

    def close(self):
        if not self._closed:
            self._closed = True
            self.channel.close()

    @property
    def closed(self):
        return self._closed
