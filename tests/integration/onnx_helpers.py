"""Helpers for ONNX tests: onnx.proto's Python classes (generated from Debian's
libonnx-dev with protoc into a temporary directory, never committed), TensorProto
to numpy, and the test cases of Debian's libonnx-testdata.

Test data of sequence and optional inputs/outputs are SequenceProto/OptionalProto
(onnx_data.proto here: Debian ships no onnx-data.proto); which one a file holds
follows from the model's declared type. A sequence reads as a list of arrays, an
optional as None or its value (as the graphd client takes and returns them)."""

import glob
import importlib.util
import os
import subprocess
import tempfile

import numpy as np

ONNX_PROTO = "/usr/include/onnx/onnx.proto"
ONNX_DATA_PROTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx_data.proto")
# Debian's libonnx-testdata; GRAPHD_ONNX_TESTDATA points elsewhere (a copy carried to a
# machine without the package: scripts/device-bundle.sh --onnx-testdata).
TESTDATA = os.environ.get("GRAPHD_ONNX_TESTDATA") or "/usr/share/libonnx-testdata/data"
# Where protoc is missing, GRAPHD_ONNX_PB2_DIR holds the modules generated ahead
# (onnx_pb2.py, onnx_data_pb2.py).
PB2_DIR = os.environ.get("GRAPHD_ONNX_PB2_DIR")
# The ONNX backend runner's tolerances.
RTOL = 1e-3
ATOL = 1e-7

_PB2 = {}


def _generated(proto, module_name):
    """The protoc-generated Python module of ``proto``, generated once per process."""
    if module_name not in _PB2:
        base = os.path.splitext(os.path.basename(proto))[0] + "_pb2.py"
        if PB2_DIR and os.path.exists(os.path.join(PB2_DIR, base)):
            out = PB2_DIR
        else:
            out = tempfile.mkdtemp(prefix="graphd-onnx-pb2-")
            subprocess.run(["protoc", "-I", os.path.dirname(proto), "--python_out=" + out, proto], check=True)
        spec = importlib.util.spec_from_file_location(module_name, os.path.join(out, base))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _PB2[module_name] = module
    return _PB2[module_name]


def onnx_pb2():
    """The onnx.proto module (ModelProto, TensorProto...): the onnx package's own where it
    is installed (a second copy of package 'onnx' in one process is a protobuf error
    once torch.onnx imported it), else generated from Debian's onnx.proto."""
    try:
        import onnx.onnx_ml_pb2 as installed
        return installed
    except ImportError:
        return _generated(ONNX_PROTO, "graphd_test_onnx_pb2")


def onnx_data_pb2():
    """SequenceProto and OptionalProto (onnx_data.proto)."""
    return _generated(ONNX_DATA_PROTO, "graphd_test_onnx_data_pb2")


# TensorProto.DataType -> (numpy dtype, typed field)
_TYPES = {
    1: (np.float32, "float_data"), 2: (np.uint8, "int32_data"), 3: (np.int8, "int32_data"),
    4: (np.uint16, "int32_data"), 5: (np.int16, "int32_data"), 6: (np.int32, "int32_data"),
    7: (np.int64, "int64_data"), 8: (object, "string_data"), 9: (np.bool_, "int32_data"),
    10: (np.float16, "int32_data"), 11: (np.float64, "double_data"), 12: (np.uint32, "uint64_data"),
    13: (np.uint64, "uint64_data"),
}


def tensor_to_numpy(t):
    """An onnx TensorProto as a numpy array."""
    dtype, field = _TYPES[t.data_type]
    shape = tuple(t.dims)
    if t.data_type == 8:
        return np.array(list(t.string_data), dtype=object).reshape(shape)
    if t.HasField("raw_data"):
        return np.frombuffer(t.raw_data, dtype=dtype).reshape(shape).copy()
    values = getattr(t, field)
    if t.data_type == 10:
        return np.array(values, dtype=np.uint16).view(np.float16).reshape(shape)
    return np.array(values, dtype=dtype).reshape(shape)


def _parse_tensor(data):
    t = onnx_pb2().TensorProto()
    t.ParseFromString(data)
    return tensor_to_numpy(t)


def _parse_sequence(data):
    seq = onnx_data_pb2().SequenceProto()
    seq.ParseFromString(data)
    if seq.sequence_values or seq.optional_values:
        raise NotImplementedError("sequences of sequences or optionals")
    return [_parse_tensor(t) for t in seq.tensor_values]


def _parse_optional(data):
    opt = onnx_data_pb2().OptionalProto()
    opt.ParseFromString(data)
    if opt.HasField("tensor_value"):
        return _parse_tensor(opt.tensor_value)
    if opt.HasField("sequence_value"):
        return _parse_sequence(opt.sequence_value)
    if opt.HasField("optional_value"):
        raise NotImplementedError("optionals of optionals")
    return None


def parse_value(data, type_proto=None):
    """A test data file's bytes as ``type_proto`` (an onnx TypeProto; None: a
    tensor) declares them: an array, a list of arrays, or None/value."""
    kind = type_proto.WhichOneof("value") if type_proto is not None else "tensor_type"
    if kind == "sequence_type":
        return _parse_sequence(data)
    if kind == "optional_type":
        return _parse_optional(data)
    return _parse_tensor(data)


def read_tensor(path, type_proto=None):
    with open(path, "rb") as f:
        return parse_value(f.read(), type_proto)


def _indexed(paths):
    return sorted(paths, key=lambda p: int(os.path.basename(p).split("_")[1].split(".")[0]))


class Case:
    """One test folder: ``model`` (path), ``data_sets``: [(inputs, outputs)]."""

    def __init__(self, directory):
        self.directory = directory
        self.name = os.path.basename(directory)
        self.model = os.path.join(directory, "model.onnx")
        model = onnx_pb2().ModelProto()
        with open(self.model, "rb") as f:
            model.ParseFromString(f.read())
        initializers = {t.name for t in model.graph.initializer}
        in_types = [v.type for v in model.graph.input if v.name not in initializers]
        out_types = [v.type for v in model.graph.output]

        def typed(types, i):
            return types[i] if i < len(types) else None

        self.data_sets = []
        for ds in sorted(glob.glob(os.path.join(directory, "test_data_set_*"))):
            inputs = [read_tensor(p, typed(in_types, i))
                      for i, p in enumerate(_indexed(glob.glob(os.path.join(ds, "input_*.pb"))))]
            outputs = [read_tensor(p, typed(out_types, i))
                       for i, p in enumerate(_indexed(glob.glob(os.path.join(ds, "output_*.pb"))))]
            self.data_sets.append((inputs, outputs))


def case(suite, name):
    return Case(os.path.join(TESTDATA, suite, name))


DT_BFLOAT16 = 4  # graphd.v1.DataType


def bfloat16_bits_to_float32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def declared_bfloat16(fn, inputs, outputs):
    """ONNX 1.12's test data holds bfloat16 tensors as their uint16 bits (data_type
    UINT16), and graphd's client gives bfloat16 values as float32: the inputs and
    expected outputs ``fn`` declares bfloat16 are converted from bits to float32.
    Returns (inputs, outputs, indices of the bfloat16 outputs)."""
    def convert(values, specs):
        return [bfloat16_bits_to_float32(v)
                if s.datatype == DT_BFLOAT16 and isinstance(v, np.ndarray) and v.dtype == np.uint16 else v
                for v, s in zip(values, specs)]
    bf16 = {i for i, s in enumerate(fn.outputs) if s.datatype == DT_BFLOAT16}
    return convert(inputs, fn.inputs), convert(outputs, fn.outputs), bf16


def _assert_value_close(g, w, where, bfloat16=False):
    if w is None or g is None:
        assert g is None and w is None, "%s: %r, expected %r" % (where, g, w)
        return
    if isinstance(w, list):
        assert isinstance(g, list), "%s: got %s, expected a sequence" % (where, type(g).__name__)
        assert len(g) == len(w), "%s: a sequence of %d tensors, expected %d" % (where, len(g), len(w))
        for k, (gk, wk) in enumerate(zip(g, w)):
            _assert_value_close(gk, wk, "%s[%d]" % (where, k), bfloat16)
        return
    assert isinstance(g, np.ndarray), "%s: got %s, expected an array" % (where, type(g).__name__)
    assert g.shape == w.shape, "%s: shape %s, expected %s" % (where, g.shape, w.shape)
    if bfloat16:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=2.0 ** -7, atol=0,
                                   err_msg="%s (bfloat16)" % where)
    elif w.dtype == object:
        assert g.tolist() == [x.encode() if isinstance(x, str) else x for x in w.tolist()], where
    elif w.dtype == np.bool_ or np.issubdtype(w.dtype, np.integer):
        np.testing.assert_array_equal(g, w, err_msg=where)
    else:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=RTOL, atol=ATOL,
                                   err_msg=where)


def assert_outputs_close(got, want, where="", bfloat16_outputs=()):
    """Compares a graph call's result (one value or a tuple) with the expected
    outputs (arrays; lists of arrays for sequences; None or a value for optionals).

    Outputs in ``bfloat16_outputs`` may differ by one bfloat16 ulp (relative 2^-7):
    ONNX 1.12's Cast tests made their expected bfloat16 values by truncation, graphd
    rounds to nearest even (as later ONNX releases do); ONNX's own runner, comparing
    the uint16 bit patterns with rtol 1e-3, accepts the same difference."""
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want), "%s: %d outputs, expected %d" % (where, len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        _assert_value_close(g, w, "%s output %d" % (where, i), i in bfloat16_outputs)
