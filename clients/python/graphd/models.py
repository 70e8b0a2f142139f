"""Served models: the server's model repository (graphd --model-repository), reached
through graphd's own client. ``client.model(name, version=None)`` returns a
:class:`ServedModel`, called like a loaded graph; ``client.models()`` lists the
repository. Requests go over the KServe v2 gRPC protocol on the same channel (raw
contents), so they are batched and counted like any KServe client's."""

import collections
import struct

import numpy as np

from graphd import errors

# KServe v2 datatype <-> numpy dtype. BF16 has no numpy dtype.
_NUMPY = {
    "BOOL": np.bool_, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
    "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64,
    "FP16": np.float16, "FP32": np.float32, "FP64": np.float64, "BYTES": np.object_,
}

TensorMetadata = collections.namedtuple("TensorMetadata", ["name", "datatype", "shape"])
ModelIndex = collections.namedtuple("ModelIndex", ["name", "version", "state", "reason"])


def _stub(client):
    from graphd.kserve import grpc_service_pb2_grpc
    conn = client.connection
    stub = getattr(conn, "_inference_stub", None)
    if stub is None:
        stub = conn._inference_stub = grpc_service_pb2_grpc.GRPCInferenceServiceStub(conn.channel)
    return stub


def _raw(array, datatype):
    if datatype == "BYTES":
        out = bytearray()
        for item in array.ravel():
            data = item.encode() if isinstance(item, str) else bytes(item)
            out += struct.pack("<I", len(data)) + data
        return bytes(out)
    return np.ascontiguousarray(array, dtype=_NUMPY[datatype]).tobytes()


def _from_raw(raw, datatype, shape):
    if datatype == "BYTES":
        items, at = [], 0
        while at < len(raw):
            (n,) = struct.unpack_from("<I", raw, at)
            items.append(raw[at + 4:at + 4 + n])
            at += 4 + n
        return np.array(items, dtype=np.object_).reshape(shape)
    if datatype not in _NUMPY:
        raise TypeError("output datatype %s has no numpy dtype" % datatype)
    return np.frombuffer(raw, dtype=_NUMPY[datatype]).reshape(shape).copy()


class ServedModel:
    """A version of a served model. Call it with numpy inputs, positionally in the
    model's input order or by input name; returns one array for a single-output
    model, else a tuple in output order (``outputs=[names]`` picks and orders them).
    ``version`` None follows the server's choice (the highest loaded version) on
    every call. ``inputs`` / ``outputs`` list :class:`TensorMetadata` (-1: any size)."""

    def __init__(self, client, name, version=None, timeout=None):
        from graphd.kserve import grpc_service_pb2 as pb
        self._client = client
        self.name = name
        self.version = None if version is None else str(version)
        meta = client.connection.call(_stub(client).ModelMetadata,
                                      pb.ModelMetadataRequest(name=name, version=self.version or ""), timeout)
        self.versions = list(meta.versions)
        self.platform = meta.platform
        self.inputs = [TensorMetadata(t.name, t.datatype, list(t.shape)) for t in meta.inputs]
        self.outputs = [TensorMetadata(t.name, t.datatype, list(t.shape)) for t in meta.outputs]

    @property
    def input_names(self):
        return [t.name for t in self.inputs]

    @property
    def output_names(self):
        return [t.name for t in self.outputs]

    def __call__(self, *args, timeout=None, outputs=None, **kwargs):
        from graphd.kserve import grpc_service_pb2 as pb
        names = self.input_names
        if len(args) > len(names):
            raise TypeError("%s() takes %d inputs (%s), got %d" % (self.name, len(names), ", ".join(names), len(args)))
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError("%s() has no input named %r (inputs: %s)" % (self.name, key, ", ".join(names)))
            if key in values:
                raise TypeError("%s() got input %r twice" % (self.name, key))
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError("%s() is missing input%s %s" % (self.name, "" if len(missing) == 1 else "s",
                                                            ", ".join(missing)))
        request = pb.ModelInferRequest(model_name=self.name, model_version=self.version or "")
        for spec in self.inputs:
            array = np.asarray(values[spec.name], dtype=_NUMPY.get(spec.datatype))
            request.inputs.add(name=spec.name, datatype=spec.datatype, shape=list(array.shape))
            request.raw_input_contents.append(_raw(array, spec.datatype))
        for name in outputs or []:
            request.outputs.add(name=name)
        response = self._client.connection.call(_stub(self._client).ModelInfer, request, timeout)
        result = tuple(_from_raw(raw, out.datatype, list(out.shape))
                       for out, raw in zip(response.outputs, response.raw_output_contents))
        return result[0] if len(result) == 1 else result

    def __repr__(self):
        return "<graphd.ServedModel %s version=%s inputs=%s outputs=%s>" % (
            self.name, self.version or "latest", self.input_names, self.output_names)


def list_models(client, timeout=None):
    """The repository's models and loaded versions as :class:`ModelIndex`."""
    from graphd.kserve import grpc_service_pb2 as pb
    response = client.connection.call(_stub(client).RepositoryIndex, pb.RepositoryIndexRequest(), timeout)
    return [ModelIndex(m.name, m.version or None, m.state, m.reason) for m in response.models]


__all__ = ["ServedModel", "TensorMetadata", "ModelIndex", "list_models", "errors"]
