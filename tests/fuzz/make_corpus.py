#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora and dictionaries (build outputs, never committed).

  make_corpus.py OUT_DIR

OUT_DIR/seeds/<target>/ gets one file per seed and OUT_DIR/<name>.dict the dictionaries:
  requests  every request type, well formed (byte 0: the method, as requests_fuzzer.cc)
  source    Python sources harvested from the repository's tests (string constants that
            parse as Python and define a function or use tf.)
  graphdef  GraphDefs built with the Python client's graphd.v1 (TF1) API
  onnx      the smaller models of Debian's ONNX backend test data
  codecs    tensors, call arguments, GraphDefs, KServe v2 gRPC and HTTP requests
  python.dict  Python keywords and operators, and the names the tracer defines (tf.*)
  ops.dict     op names of graphd's registry and of the ONNX importer

Runs with /usr/bin/python3 and the generated stubs (PYTHONPATH=clients/python).
"""

import ast
import glob
import hashlib
import json
import keyword
import os
import re
import struct
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

from graphd.kserve import grpc_service_pb2 as kserve  # noqa: E402
from graphd.v1 import diagnostics_pb2, graph_pb2, session_pb2, tensor_pb2  # noqa: E402

ONNX_TESTDATA = "/usr/share/libonnx-testdata/data"
MAX_ONNX_SEED_BYTES = 16 << 10
MAX_SOURCE_SEED_BYTES = 8 << 10


def write_seeds(out, target, seeds):
    d = os.path.join(out, "seeds", target)
    os.makedirs(d, exist_ok=True)
    for seed in seeds:
        if isinstance(seed, str):
            seed = seed.encode()
        with open(os.path.join(d, hashlib.sha1(seed).hexdigest()), "wb") as f:
            f.write(seed)
    return len(seeds)


def tensor(dtype, shape, content=b"", strings=()):
    t = tensor_pb2.TensorProto(dtype=dtype, content=content, string_val=list(strings))
    t.shape.dim.extend(shape)
    return t


def floats(*values):
    return struct.pack("<%df" % len(values), *values)


# -- sources ---------------------------------------------------------------------------
def harvest_sources():
    """String constants of the Python tests that are whole programs for the source path."""
    found = set()
    for path in sorted(glob.glob(os.path.join(REPO, "tests", "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            try:
                tree = ast.parse(f.read())
            except SyntaxError:
                continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if len(text) > MAX_SOURCE_SEED_BYTES or ("def " not in text and "tf." not in text):
                continue
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            found.add(text)
    return sorted(found)


# -- graphs ----------------------------------------------------------------------------
def client_graphs():
    """GraphDefs made the way a TF1 client makes them."""
    import graphd.v1 as tf
    builders = []

    def arithmetic():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.matmul(x, tf.constant([[1.0], [2.0], [3.0]]))
        return tf.nn.relu(y + 1.0, name="out")

    def shapes():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        return tf.reshape(tf.reduce_sum(x, axis=0), [-1, 1], name="out")

    def control():
        p = tf.placeholder(tf.bool, [], name="p")
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
        i = tf.constant(0)
        _, z = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v + y), [i, y])
        return tf.identity(z, name="out")

    def variables():
        v = tf.Variable(tf.zeros([3]), name="v")
        return tf.assign_add(v, tf.ones([3]), name="out")

    def reductions():
        x = tf.placeholder(tf.int32, [4, 4], name="x")
        return tf.reduce_sum(tf.cast(x, tf.float32), axis=1, name="out")

    builders = [arithmetic, shapes, control, variables, reductions]
    graphs = []
    for build in builders:
        tf.reset_default_graph()
        try:
            build()
        except Exception as e:  # an API the client lacks: say so, keep the others
            print(f"make_corpus: graph {build.__name__} skipped: {e}", file=sys.stderr)
            continue
        gdef = tf.get_default_graph().as_graph_def()
        graphs.append(gdef if isinstance(gdef, graph_pb2.GraphDef) else graph_pb2.GraphDef.FromString(
            gdef.SerializeToString()))
    tf.reset_default_graph()
    # Ops the client has no builder for, as raw nodes: Tile (sizes multiply), Fill.
    raw = graph_pb2.GraphDef()
    raw.node.add(name="x", op="Placeholder").attr["dtype"].type = tensor_pb2.DT_FLOAT
    m = raw.node.add(name="m", op="Const")
    m.attr["value"].tensor.CopyFrom(tensor(tensor_pb2.DT_INT32, [1], struct.pack("<i", 3)))
    raw.node.add(name="tiled", op="Tile", input=["x", "m"])
    raw.node.add(name="out", op="Fill", input=["m", "x"])
    graphs.append(raw)
    return graphs


# -- ONNX ------------------------------------------------------------------------------
def onnx_models():
    paths = sorted(glob.glob(os.path.join(ONNX_TESTDATA, "**", "model.onnx"), recursive=True))
    out = []
    for p in paths:
        if os.path.getsize(p) <= MAX_ONNX_SEED_BYTES:
            with open(p, "rb") as f:
                out.append(f.read())
    return out


# -- requests --------------------------------------------------------------------------
def method_paths():
    """Full method names, sorted: requests_fuzzer.cc's byte 0 indexes this list."""
    paths = []
    for module, name in [(session_pb2, "SessionService"), (diagnostics_pb2, "DiagnosticsService"),
                         (kserve, "GRPCInferenceService")]:
        service = module.DESCRIPTOR.services_by_name[name]
        paths += ["/%s/%s" % (service.full_name, m.name) for m in service.methods]
    return sorted(paths)


def request_seeds(sources, graphs, models):
    paths = method_paths()
    seeds = []

    def add(method, message, flags=0):
        seeds.append(bytes([paths.index(method) | flags]) + message.SerializeToString())

    s = "/graphd.v1.SessionService/"
    vec = tensor(tensor_pb2.DT_FLOAT, [3], floats(1, 2, 3))
    add(s + "CreateSession", session_pb2.CreateSessionRequest())
    add(s + "ListDevices", session_pb2.ListDevicesRequest())
    add(s + "CloseSession", session_pb2.CloseSessionRequest(session_handle="0" * 32), flags=0x80)
    for g in graphs:
        add(s + "ExtendSession", session_pb2.ExtendSessionRequest(graph_def=g))
        add(s + "LoadGraph", session_pb2.LoadGraphRequest(graph_def=g, output_names=["out"]))
    run = session_pb2.RunRequest(fetch=["out:0"])
    run.feed.add(name="x:0", tensor=tensor(tensor_pb2.DT_FLOAT, [2], floats(1, 2)))
    add(s + "Run", run)
    add(s + "MakeCallable", session_pb2.MakeCallableRequest())
    add(s + "RunCallable", session_pb2.RunCallableRequest())
    add(s + "ReleaseCallable", session_pb2.ReleaseCallableRequest())
    for src in sources[:40]:
        add(s + "LoadModule", session_pb2.LoadModuleRequest(source=src))
    call = session_pb2.CallRequest(function="f")
    call.args.add(tensor=vec)
    call.args.add(list=session_pb2.PyList(items=[session_pb2.PyValue(int_value=3),
                                                 session_pb2.PyValue(str_value="s")]))
    add(s + "Call", call)
    add(s + "ToCode", session_pb2.ToCodeRequest(function="f"))
    add(s + "DescribeFunction", session_pb2.DescribeFunctionRequest(function="f"))
    for m in models[:10]:
        add(s + "LoadGraph", session_pb2.LoadGraphRequest(onnx_model=m))
    add(s + "CallGraph", session_pb2.CallGraphRequest(name="g", inputs=[vec]))
    add("/graphd.v1.DiagnosticsService/Echo", diagnostics_pb2.EchoRequest(payload=b"x"))
    add("/graphd.v1.DiagnosticsService/GetServerInfo", diagnostics_pb2.GetServerInfoRequest())
    k = "/inference.GRPCInferenceService/"
    for name in ["ServerLive", "ServerReady", "ServerMetadata", "RepositoryIndex"]:
        add(k + name, getattr(kserve, name + "Request")())
    for name in ["ModelReady", "ModelMetadata", "ModelStatistics", "RepositoryModelLoad",
                 "RepositoryModelUnload"]:
        add(k + name, getattr(kserve, name + "Request")(), flags=0x40)  # bit 6: model_name "add"
    for infer in infer_requests():
        add(k + "ModelInfer", infer, flags=0x40)
    return seeds


def infer_requests():
    typed = kserve.ModelInferRequest(model_name="add")
    x = typed.inputs.add(name="x", datatype="FP32", shape=[3])
    x.contents.fp32_contents.extend([1, 2, 3])
    raw = kserve.ModelInferRequest(model_name="add")
    raw.inputs.add(name="x", datatype="FP32", shape=[2])
    raw.raw_input_contents.append(floats(1, 2))
    strings = kserve.ModelInferRequest(model_name="add")
    s = strings.inputs.add(name="s", datatype="BYTES", shape=[2])
    s.contents.bytes_contents.extend([b"a", b"bc"])
    raw_strings = kserve.ModelInferRequest(model_name="add")
    raw_strings.inputs.add(name="s", datatype="BYTES", shape=[1])
    raw_strings.raw_input_contents.append(struct.pack("<I", 2) + b"hi")
    return [typed, raw, strings, raw_strings]


# -- codecs ----------------------------------------------------------------------------
def codec_seeds(graphs):
    T = tensor_pb2
    tensors = [tensor(T.DT_FLOAT, [3], floats(1, 2, 3)), tensor(T.DT_INT64, [2, 1], struct.pack("<2q", 4, -5)),
               tensor(T.DT_BOOL, [2], b"\x01\x00"), tensor(T.DT_STRING, [2], strings=[b"a", b""]),
               tensor(T.DT_HALF, [], b"\x00\x3c"), tensor(T.DT_UINT8, [0, 4])]
    P = session_pb2.PyValue
    values = [P(none=True), P(int_value=7), P(float_value=0.5), P(str_value="s"), P(tensor=tensors[0]),
              P(list=session_pb2.PyList(items=[P(int_value=1), P(tuple=session_pb2.PyList(items=[P(bool_value=True)]))])),
              P(dict=session_pb2.PyDict(keys=[P(str_value="k")], values=[P(int_value=2)])),
              P(tensor_spec=T.TensorSpec(dtype=T.DT_FLOAT, shape=T.TensorShape(dim=[-1, 3])))]
    seeds = [b"\x00" + t.SerializeToString() for t in tensors]
    seeds += [b"\x01" + v.SerializeToString() for v in values]
    seeds += [b"\x02" + g.SerializeToString() for g in graphs]
    seeds += [b"\x03" + r.SerializeToString() for r in infer_requests()]
    body = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 2], "data": [[1, 2], [3, 4]]}],
                       "outputs": [{"name": "y", "parameters": {"binary_data": True}}]}).encode()
    seeds.append(b"\x04\x00\x00\x00" + body)
    header = json.dumps({"inputs": [{"name": "x", "datatype": "INT32", "shape": [2],
                                     "parameters": {"binary_data_size": 8}}]}).encode()
    seeds.append(b"\x04\x01" + struct.pack("<H", len(header)) + header + struct.pack("<2i", 1, 2))
    strings = json.dumps({"inputs": [{"name": "s", "datatype": "BYTES", "shape": [1], "data": ["abc"]}]}).encode()
    seeds.append(b"\x04\x00\x00\x00" + strings)
    return seeds


# -- dictionaries ----------------------------------------------------------------------
def dict_file(path, words):
    def quote(word):  # libFuzzer's form: printable ASCII, \\ \" and \xNN only
        out = []
        for b in word.encode("utf-8"):
            c = chr(b)
            out.append("\\" + c if c in '"\\' else c if 32 <= b < 127 else "\\x%02x" % b)
        return '"' + "".join(out) + '"'

    with open(path, "w", encoding="utf-8") as f:
        for w in sorted(set(words)):
            f.write(quote(w) + "\n")
    return len(set(words))


def python_words():
    words = list(keyword.kwlist) + ["@tf.function", "tf.", "(", ")", "[", "]", "{", "}", ":", "\n    ",
                                    "lambda", "**", "//", "->", "==", "!=", "+=", "[::-1]", "\"\"\"",
                                    "f\"{", "input_signature=", "tf.TensorSpec(", "2**62", "1e308"]
    for path in glob.glob(os.path.join(REPO, "compiler", "tracer", "*.cc")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        words += re.findall(r'(?:Set|Fn|Args a)\("([A-Za-z_][A-Za-z0-9_]*)"', text)
    return words


def op_words():
    words = []
    for path in glob.glob(os.path.join(REPO, "core", "ops", "*.cc")) + \
            glob.glob(os.path.join(REPO, "compiler", "import", "onnx", "*.cc")):
        with open(path, encoding="utf-8") as f:
            words += re.findall(r'"([A-Z][A-Za-z0-9]{1,40})"', f.read())
    return words


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    sources = harvest_sources()
    graphs = client_graphs()
    models = onnx_models()
    counts = {
        "source": write_seeds(out, "source", sources),
        "graphdef": write_seeds(out, "graphdef", [g.SerializeToString() for g in graphs]),
        "onnx": write_seeds(out, "onnx", models),
        "requests": write_seeds(out, "requests", request_seeds(sources, graphs, models)),
        "codecs": write_seeds(out, "codecs", codec_seeds(graphs)),
        "python.dict": dict_file(os.path.join(out, "python.dict"), python_words()),
        "ops.dict": dict_file(os.path.join(out, "ops.dict"), op_words()),
    }
    print("make_corpus: " + ", ".join("%s %d" % kv for kv in counts.items()))


if __name__ == "__main__":
    main()
