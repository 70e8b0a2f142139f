// ONNX reductions (axes from the attribute, or for ReduceSum at opset 13+ a constant
// input; keepdims default 1) and ArgMax/ArgMin.
#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"

namespace graphd::compiler::onnx_import {
namespace {

Status Reduce(NodeContext& n) {
  const std::string& t = n.op_type();
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  std::optional<std::vector<int64_t>> axes;
  if (t == "ReduceSum" && n.opset() >= 13) {
    if (n.has_input(1)) {
      ASSIGN_OR_RETURN(std::vector<int64_t> v, n.ConstInts(1, "axes"));
      axes = std::move(v);
    }
  } else {
    axes = n.Ints("axes");
  }
  bool keep = n.Int("keepdims", 1) != 0;
  if (axes && axes->empty()) axes.reset();
  if (!axes && n.Int("noop_with_empty_axes", 0) != 0) {
    ASSIGN_OR_RETURN(OutputRef y, n.Add("Identity", {x}));
    return n.SetOutput(0, y);
  }
  AttrMap attrs{{"keep_dims", keep}};
  if (axes) attrs["axis"] = IntList(*axes);
  DType dt = TypeOf(x).dtype;
  OutputRef y;
  if (t == "ReduceMean" || t == "ReduceSum" || t == "ReduceMax" || t == "ReduceMin" || t == "ReduceProd") {
    ASSIGN_OR_RETURN(y, n.Add(t.substr(6), {x}, attrs));
  } else if (t == "ReduceSumSquare" || t == "ReduceL2") {
    ASSIGN_OR_RETURN(OutputRef sq, n.Add("Square", {x}));
    ASSIGN_OR_RETURN(y, n.Add("Sum", {sq}, attrs));
    if (t == "ReduceL2") {
      ASSIGN_OR_RETURN(y, n.Add("Sqrt", {y}));
    }
  } else if (t == "ReduceL1") {
    ASSIGN_OR_RETURN(OutputRef a, n.Add("Abs", {x}));
    ASSIGN_OR_RETURN(y, n.Add("Sum", {a}, attrs));
  } else if (t == "ReduceLogSum") {
    ASSIGN_OR_RETURN(y, n.Add("Sum", {x}, attrs));
    ASSIGN_OR_RETURN(y, n.Add("Log", {y}));
  } else if (t == "ReduceLogSumExp") {
    // max + log(sum(exp(x - max))), stable for large inputs.
    AttrMap keep_attrs = attrs;
    keep_attrs["keep_dims"] = true;
    ASSIGN_OR_RETURN(OutputRef m, n.Add("Max", {x}, keep_attrs));
    ASSIGN_OR_RETURN(OutputRef d, n.Add("Sub", {x, m}));
    ASSIGN_OR_RETURN(OutputRef e, n.Add("Exp", {d}));
    ASSIGN_OR_RETURN(OutputRef s, n.Add("Sum", {e}, attrs));
    ASSIGN_OR_RETURN(OutputRef l, n.Add("Log", {s}));
    ASSIGN_OR_RETURN(OutputRef mk, n.Add("Max", {x}, attrs));
    ASSIGN_OR_RETURN(y, n.Add("Add", {l, mk}));
  } else {
    return n.Unsupported("");
  }
  (void)dt;
  return n.SetOutput(0, y);
}

Status ArgReduce(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(int rank, KnownRank(n, x, "the input"));
  ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(n, n.Int("axis", 0), rank));
  bool last = n.Int("select_last_index", 0) != 0;
  int64_t dim = TypeOf(x).shape.dim(static_cast<int>(axis));
  if (last) {
    // The last extremum is the first one of the reversed input, counted from the end.
    if (dim == kUnknownDim) return n.Unsupported("select_last_index=1 with an unknown dim");
    ASSIGN_OR_RETURN(x, n.Add("ReverseV2", {x}, {{"axis", IntList{axis}}}));
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add(n.op_type(), {x}, {{"axis", axis}, {"output_type", DType::kInt64}}));
  if (last) {
    ASSIGN_OR_RETURN(OutputRef top, n.Scalar(DType::kInt64, static_cast<double>(dim - 1)));
    ASSIGN_OR_RETURN(y, n.Add("Sub", {top, y}));
  }
  if (n.Int("keepdims", 1) != 0) {
    ASSIGN_OR_RETURN(y, ExpandDims(n, y, axis));
  }
  return n.SetOutput(0, y);
}

// CumSum(x, axis): the axis is a constant (or value) input.
Status CumSum(NodeContext& n) {
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  ASSIGN_OR_RETURN(std::vector<int64_t> axis, n.ConstInts(1, "axis"));
  if (axis.size() != 1) return n.Invalid("axis must hold one value");
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Cumsum", {x}, {{"axis", axis[0]},
                                                     {"exclusive", n.Int("exclusive", 0) != 0},
                                                     {"reverse", n.Int("reverse", 0) != 0}}));
  return n.SetOutput(0, y);
}

}  // namespace

void RegisterReductionOps(OpTable& table) {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    table[op] = Reduce;
  }
  table["ArgMax"] = ArgReduce;
  table["ArgMin"] = ArgReduce;
  table["CumSum"] = CumSum;
}

}  // namespace graphd::compiler::onnx_import
