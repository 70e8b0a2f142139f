#include "compiler/autodiff/grad_builder.h"

#include "absl/strings/str_cat.h"

namespace graphd::compiler::autodiff {

StatusOr<const Node*> GraphSink::Add(const std::string& op, const std::string& base, std::vector<OutputRef> inputs,
                                     AttrMap attrs) {
  std::string name;
  do {
    name = absl::StrCat(prefix_, base, "_", count_++);
  } while (graph_.FindNode(name) != nullptr);
  return graph_.AddNode({.name = name, .op = op, .inputs = std::move(inputs), .attrs = std::move(attrs)});
}

StatusOr<const Node*> GradBuilder::NodeOf(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs) {
  return sink_.Add(op, op, std::move(inputs), std::move(attrs));
}

StatusOr<OutputRef> GradBuilder::Op(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs) {
  ASSIGN_OR_RETURN(const Node* n, NodeOf(op, std::move(inputs), std::move(attrs)));
  return OutputRef{n, 0};
}

StatusOr<OutputRef> GradBuilder::Scalar(DType dtype, double value) {
  if (dtype == DType::kFloat32) return Op("Const", {}, {{"value", Tensor::Scalar<float>(static_cast<float>(value))}});
  if (dtype == DType::kFloat64) return Op("Const", {}, {{"value", Tensor::Scalar<double>(value)}});
  ASSIGN_OR_RETURN(OutputRef c, Op("Const", {}, {{"value", Tensor::Scalar<double>(value)}}));
  return Cast(c, dtype);
}

StatusOr<OutputRef> GradBuilder::Scale(OutputRef a, double value) {
  ASSIGN_OR_RETURN(OutputRef c, Scalar(TypeOf(a).dtype, value));
  return Mul(a, c);
}

StatusOr<OutputRef> GradBuilder::Cast(OutputRef a, DType to) {
  if (TypeOf(a).dtype == to) return a;
  return Op("Cast", {a}, {{"DstT", to}});
}

StatusOr<OutputRef> GradBuilder::Sum(OutputRef g, IntList axes, bool keep_dims) {
  return Op("Sum", {g}, {{"axis", std::move(axes)}, {"keep_dims", keep_dims}});
}

StatusOr<OutputRef> GradBuilder::Reshape(OutputRef g, const PartialShape& shape) {
  if (TypeOf(g).shape == shape) return g;
  if (!shape.known_rank()) return errors::Unimplemented("a gradient needs the rank of its operand");
  IntList dims;
  int unknown = 0;
  for (int64_t d : shape.dims()) {
    unknown += d == kUnknownDim;
    dims.push_back(d == kUnknownDim ? -1 : d);
  }
  if (unknown > 1) {
    return errors::Unimplemented(
        absl::StrCat("a gradient needs to reshape to ", shape.ToString(), ", which has more than one unknown dimension"));
  }
  return Op("Reshape", {g}, {{"shape", dims}});
}

StatusOr<OutputRef> GradBuilder::SumToShape(OutputRef g, const PartialShape& shape) {
  const PartialShape& gs = TypeOf(g).shape;
  if (gs == shape && (shape.known_rank() && shape.fully_defined())) return g;
  if (!gs.known_rank() || !shape.known_rank()) {
    return errors::Unimplemented("the gradient of a broadcasting op needs the ranks of its operands");
  }
  const int lead = gs.rank() - shape.rank();
  if (lead < 0) return errors::Internal(absl::StrCat("gradient ", gs.ToString(), " is smaller than ", shape.ToString()));
  IntList axes;
  for (int i = 0; i < gs.rank(); ++i) {
    if (i < lead) {
      axes.push_back(i);
      continue;
    }
    const int64_t want = shape.dim(i - lead), have = gs.dim(i);
    if (want == 1 && have != 1) {
      axes.push_back(i);
    } else if (want == kUnknownDim && have != 1) {
      // Unknown here: it may have been broadcast (1) or matched (the same size); which
      // one decides whether to sum, and the trace cannot tell.
      return errors::Unimplemented(absl::StrCat(
          "the gradient of a broadcasting op needs the operand shape ", shape.ToString(),
          " to be known (dimension ", i - lead, " is unknown); trace with concrete shapes or an input_signature "
          "without None in broadcast dimensions"));
    }
  }
  if (axes.empty()) return Reshape(g, shape);
  ASSIGN_OR_RETURN(OutputRef s, Sum(g, axes, /*keep_dims=*/false));
  return Reshape(s, shape);
}

StatusOr<OutputRef> GradBuilder::SumToOperand(OutputRef g, OutputRef operand) {
  auto s = SumToShape(g, TypeOf(operand).shape);
  if (s.ok() || s.status().code() != absl::StatusCode::kUnimplemented) return s;
  return Op("SumToShapeOf", {g, operand});
}

Status NeedsStaticShape(const Node& node, absl::string_view what) {
  return errors::Unimplemented(absl::StrCat("the gradient of ", node.op_name(), " (node '", node.name(),
                                            "') needs a known shape: ", what));
}

}  // namespace graphd::compiler::autodiff
