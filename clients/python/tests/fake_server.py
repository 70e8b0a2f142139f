"""An in-process fake graphd server (Python gRPC) that records requests.

It does not execute graphs: Run returns, per fetch, the fed value when the
fetch is fed, the Const value when it names a Const node, else a float32 0.
It checks graph versions and rejects nodes whose op is "Bogus" with
UNIMPLEMENTED plus an ErrorDetail in trailing metadata, as graphd does.
"""

import threading
import time
from concurrent import futures

import grpc

from graphd.v1 import (diagnostics_pb2, diagnostics_pb2_grpc, error_pb2, health_pb2,
                       health_pb2_grpc, session_pb2, session_pb2_grpc, tensor_pb2)

DETAIL_KEY = "graphd-error-detail-bin"


def _abort(context, code, error_class, message, node=""):
    detail = error_pb2.ErrorDetail(error_class=error_class, message=message,
                                   node_name=node)
    context.set_trailing_metadata(((DETAIL_KEY, detail.SerializeToString()),))
    context.abort(code, message)


class FakeSessionService(session_pb2_grpc.SessionServiceServicer):
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []          # (method name, request) in arrival order
        self.sessions = {}          # handle -> {"nodes": {name: NodeDef}, "version": int}
        self.callables = {}         # (handle, id) -> CallableOptions
        self.next_id = 1

    def _record(self, name, request):
        with self.lock:
            self.requests.append((name, request))

    def calls(self, name):
        with self.lock:
            return [r for n, r in self.requests if n == name]

    def _session(self, handle, context):
        with self.lock:
            s = self.sessions.get(handle)
        if s is None:
            _abort(context, grpc.StatusCode.NOT_FOUND, "NotFoundError",
                   "session %s not found (closed, expired or on another replica)" % handle)
        return s

    def _check_nodes(self, graph_def, context):
        for node in graph_def.node:
            if node.op == "Bogus":
                _abort(context, grpc.StatusCode.UNIMPLEMENTED, "UnimplementedError",
                       "op Bogus (node %s) is not implemented" % node.name, node.name)

    def CreateSession(self, request, context):
        self._record("CreateSession", request)
        self._check_nodes(request.graph_def, context)
        with self.lock:
            handle = "%032x" % self.next_id
            self.next_id += 1
            self.sessions[handle] = {
                "nodes": {n.name: n for n in request.graph_def.node},
                "version": 1 if request.graph_def.node else 0}
            version = self.sessions[handle]["version"]
        return session_pb2.CreateSessionResponse(session_handle=handle,
                                                 graph_version=version)

    def ExtendSession(self, request, context):
        self._record("ExtendSession", request)
        s = self._session(request.session_handle, context)
        if request.current_graph_version != s["version"]:
            _abort(context, grpc.StatusCode.ABORTED, "AbortedError", "stale graph version")
        self._check_nodes(request.graph_def, context)
        with self.lock:
            s["nodes"].update({n.name: n for n in request.graph_def.node})
            s["version"] += 1
            return session_pb2.ExtendSessionResponse(new_graph_version=s["version"])

    def _value(self, session, name, feeds):
        if name in feeds:
            return feeds[name]
        node = session["nodes"].get(name.split(":")[0])
        if node is not None and node.op == "Const":
            return node.attr["value"].tensor
        return tensor_pb2.TensorProto(dtype=tensor_pb2.DT_FLOAT, content=b"\0\0\0\0")

    def Run(self, request, context):
        self._record("Run", request)
        s = self._session(request.session_handle, context)
        if any(f.startswith("slow") for f in request.fetch):
            time.sleep(2.0)
        feeds = {f.name: f.tensor for f in request.feed}
        return session_pb2.RunResponse(
            tensor=[session_pb2.NamedTensor(name=f, tensor=self._value(s, f, feeds))
                    for f in request.fetch],
            metadata=session_pb2.RunMetadata(total_us=42))

    def MakeCallable(self, request, context):
        self._record("MakeCallable", request)
        self._session(request.session_handle, context)
        with self.lock:
            handle = self.next_id
            self.next_id += 1
            self.callables[(request.session_handle, handle)] = request.options
        return session_pb2.MakeCallableResponse(handle=handle)

    def RunCallable(self, request, context):
        self._record("RunCallable", request)
        s = self._session(request.session_handle, context)
        options = self.callables[(request.session_handle, request.handle)]
        feeds = dict(zip(options.feed, request.feed))
        return session_pb2.RunCallableResponse(
            fetch=[self._value(s, f, feeds) for f in options.fetch])

    def ReleaseCallable(self, request, context):
        self._record("ReleaseCallable", request)
        with self.lock:
            self.callables.pop((request.session_handle, request.handle), None)
        return session_pb2.ReleaseCallableResponse()

    def CloseSession(self, request, context):
        self._record("CloseSession", request)
        self._session(request.session_handle, context)
        with self.lock:
            del self.sessions[request.session_handle]
        return session_pb2.CloseSessionResponse()

    def ListDevices(self, request, context):
        return session_pb2.ListDevicesResponse(device=[session_pb2.DeviceAttributes(
            name="/device:CPU:0", device_type="CPU", memory_limit=1 << 30,
            description="fake")])


class FakeHealth(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        if request.service not in ("", "readiness"):
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")
        return health_pb2.HealthCheckResponse(
            status=health_pb2.HealthCheckResponse.SERVING)


class FakeDiagnostics(diagnostics_pb2_grpc.DiagnosticsServiceServicer):
    def __init__(self, sessions):
        self._sessions = sessions

    def Echo(self, request, context):
        return diagnostics_pb2.EchoResponse(payload=request.payload)

    def GetServerInfo(self, request, context):
        return diagnostics_pb2.GetServerInfoResponse(
            version="fake", active_sessions=len(self._sessions.sessions),
            function_cache=diagnostics_pb2.FunctionCacheStats(hits=3, compiles=2, entries=2, bytes=64))


def start():
    """Starts a fake server on a free loopback port: (grpc.Server, target, service)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    service = FakeSessionService()
    session_pb2_grpc.add_SessionServiceServicer_to_server(service, server)
    health_pb2_grpc.add_HealthServicer_to_server(FakeHealth(), server)
    diagnostics_pb2_grpc.add_DiagnosticsServiceServicer_to_server(
        FakeDiagnostics(service), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, "127.0.0.1:%d" % port, service
