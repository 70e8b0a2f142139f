#include "compiler/import/onnx/node_context.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/tensor_proto.h"
#include "core/float_to_int.h"
#include "core/half.h"

namespace graphd::compiler::onnx_import {

// ---- ImportContext ----

Status ImportContext::Define(const std::string& name, OutputRef ref) {
  if (IsDefined(name)) {
    return errors::InvalidArgument(absl::StrCat("ONNX value '", name, "' is defined twice"));
  }
  values_.emplace(name, ref);
  return absl::OkStatus();
}

Status ImportContext::DefineConst(const std::string& name, Tensor value) {
  if (IsDefined(name)) {
    return errors::InvalidArgument(absl::StrCat("ONNX value '", name, "' is defined twice"));
  }
  consts_.emplace(name, std::move(value));
  return absl::OkStatus();
}

bool ImportContext::IsDefined(const std::string& name) const {
  return values_.contains(name) || consts_.contains(name) || kinds_.contains(name);
}

Status ImportContext::DefineValue(const std::string& name, ValueKind kind, std::vector<OutputRef> parts) {
  if (static_cast<int>(parts.size()) != kind.num_parts()) {
    return errors::Internal(absl::StrCat("ONNX value '", name, "' needs ", kind.num_parts(), " parts, got ",
                                         parts.size()));
  }
  if (kind.is_tensor()) return Define(name, parts[0]);
  if (IsDefined(name)) {
    return errors::InvalidArgument(absl::StrCat("ONNX value '", name, "' is defined twice"));
  }
  kinds_.emplace(name, kind);
  parts_.emplace(name, std::move(parts));
  return absl::OkStatus();
}

ValueKind ImportContext::KindOf(const std::string& name) const {
  auto it = kinds_.find(name);
  return it == kinds_.end() ? ValueKind{} : it->second;
}

StatusOr<std::vector<OutputRef>> ImportContext::GetParts(const std::string& name) {
  if (auto it = parts_.find(name); it != parts_.end()) return it->second;
  ASSIGN_OR_RETURN(OutputRef ref, Get(name));
  return std::vector<OutputRef>{ref};
}

StatusOr<OutputRef> ImportContext::Get(const std::string& name) {
  if (ValueKind k = KindOf(name); !k.is_tensor()) {
    return errors::InvalidArgument(absl::StrCat("ONNX value '", name, "' is ", k.optional ? "an optional" : "a sequence",
                                                ", not a tensor"));
  }
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  auto c = consts_.find(name);
  if (c == consts_.end()) {
    return errors::InvalidArgument(absl::StrCat("ONNX value '", name, "' is used before it is defined"));
  }
  ASSIGN_OR_RETURN(OutputRef ref, AddConst(name, c->second));
  values_.emplace(name, ref);
  return ref;
}

const Tensor* ImportContext::GetConst(const std::string& name) const {
  if (auto c = consts_.find(name); c != consts_.end()) return &c->second;
  auto a = arg_values_.find(name);
  return a == arg_values_.end() ? nullptr : &a->second;
}

void ImportContext::DefineArg(const std::string& name, int index, Tensor value) {
  arg_index_[name] = index;
  if (value.valid()) arg_values_[name] = std::move(value);
}

void ImportContext::WantValue(const std::string& name) {
  auto it = arg_index_.find(name);
  if (it == arg_index_.end()) return;
  if (std::find(wanted_.begin(), wanted_.end(), it->second) == wanted_.end()) wanted_.push_back(it->second);
}

std::string ImportContext::FreshName(const std::string& base) {
  std::string clean;
  for (char ch : base) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '.' || ch == '/' || ch == '-';
    clean.push_back(ok ? ch : '_');
  }
  if (clean.empty() || clean[0] == '_' || clean[0] == '/' || clean[0] == '-') clean.insert(0, "v");
  int& count = name_counts_[clean];
  std::string name = count == 0 ? clean : absl::StrCat(clean, "_", count);
  ++count;
  while (graph_.FindNode(name) != nullptr) name = absl::StrCat(clean, "_", count++);
  return name;
}

StatusOr<const Node*> ImportContext::AddNodeMulti(const std::string& base, const std::string& op,
                                                  std::vector<OutputRef> inputs, AttrMap attrs) {
  NodeSpec spec;
  spec.name = FreshName(base);
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  return graph_.AddNode(std::move(spec));
}

StatusOr<OutputRef> ImportContext::AddNode(const std::string& base, const std::string& op,
                                           std::vector<OutputRef> inputs, AttrMap attrs, int output) {
  ASSIGN_OR_RETURN(const Node* node, AddNodeMulti(base, op, std::move(inputs), std::move(attrs)));
  return OutputRef{node, output};
}

StatusOr<OutputRef> ImportContext::AddConst(const std::string& base, Tensor value) {
  DType dtype = value.dtype();
  return AddNode(base, "Const", {}, {{"value", std::move(value)}, {"dtype", dtype}});
}

// ---- NodeContext ----

std::string NodeContext::name() const {
  if (!node_.name().empty()) return node_.name();
  return node_.output_size() > 0 ? node_.output(0) : node_.op_type();
}

StatusOr<OutputRef> NodeContext::input(int i) {
  if (!has_input(i)) return Invalid(absl::StrCat("input ", i, " is missing"));
  return ctx_.Get(node_.input(i));
}

StatusOr<TensorType> NodeContext::input_type(int i) {
  ASSIGN_OR_RETURN(OutputRef ref, input(i));
  return ref.node->output(ref.index);
}

StatusOr<Tensor> NodeContext::ConstInput(int i, absl::string_view what) {
  if (!has_input(i)) return Invalid(absl::StrCat("input ", i, " (", what, ") is missing"));
  const Tensor* t = ctx_.GetConst(node_.input(i));
  if (t == nullptr) {
    // The node's other attribute-like inputs (after the data input) are wanted too,
    // so that one trial build finds them all.
    for (int j = std::min(i, 1); j < node_.input_size(); ++j) {
      if (j == i || (has_input(j) && ctx_.GetConst(node_.input(j)) == nullptr)) ctx_.WantValue(node_.input(j));
    }
    return Unsupported(absl::StrCat(what, " (input '", node_.input(i),
                                    "') must be a constant (an initializer or a Constant node)"));
  }
  return *t;
}

StatusOr<std::vector<int64_t>> NodeContext::ConstInts(int i, absl::string_view what) {
  ASSIGN_OR_RETURN(Tensor t, ConstInput(i, what));
  auto v = IntValues(t);
  if (!v.ok()) return Invalid(absl::StrCat(what, ": ", v.status().message()));
  return *v;
}

const onnx::AttributeProto* NodeContext::attr(absl::string_view name) const {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t NodeContext::Int(absl::string_view name, int64_t fallback) const {
  const auto* a = attr(name);
  return a ? a->i() : fallback;
}

float NodeContext::Float(absl::string_view name, float fallback) const {
  const auto* a = attr(name);
  return a ? a->f() : fallback;
}

std::string NodeContext::Str(absl::string_view name, const std::string& fallback) const {
  const auto* a = attr(name);
  return a ? a->s() : fallback;
}

std::optional<std::vector<int64_t>> NodeContext::Ints(absl::string_view name) const {
  const auto* a = attr(name);
  if (a == nullptr) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

Status NodeContext::SetOutput(int i, OutputRef ref) {
  if (i >= node_.output_size() || node_.output(i).empty()) return absl::OkStatus();
  return ctx_.Define(node_.output(i), ref);
}

StatusOr<OutputRef> NodeContext::Add(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs,
                                     int output) {
  auto r = ctx_.AddNode(name(), op, std::move(inputs), std::move(attrs), output);
  if (!r.ok()) return Invalid(r.status().message());
  return r;
}

StatusOr<const Node*> NodeContext::AddMulti(const std::string& op, std::vector<OutputRef> inputs,
                                            AttrMap attrs) {
  auto r = ctx_.AddNodeMulti(name(), op, std::move(inputs), std::move(attrs));
  if (!r.ok()) return Invalid(r.status().message());
  return r;
}

StatusOr<OutputRef> NodeContext::Const(Tensor value) { return ctx_.AddConst(name() + "/const", std::move(value)); }

StatusOr<OutputRef> NodeContext::Scalar(DType dtype, double value) {
  Tensor t;
  switch (dtype) {
    case DType::kFloat32: t = Tensor::Scalar<float>(static_cast<float>(value)); break;
    case DType::kFloat64: t = Tensor::Scalar<double>(value); break;
    case DType::kInt32: t = Tensor::Scalar<int32_t>(TruncateToInt<int32_t>(value)); break;
    case DType::kInt64: t = Tensor::Scalar<int64_t>(TruncateToInt<int64_t>(value)); break;
    case DType::kInt8: t = Tensor::Scalar<int8_t>(TruncateToInt<int8_t>(value)); break;
    case DType::kInt16: t = Tensor::Scalar<int16_t>(TruncateToInt<int16_t>(value)); break;
    case DType::kUInt8: t = Tensor::Scalar<uint8_t>(TruncateToInt<uint8_t>(value)); break;
    case DType::kUInt16: t = Tensor::Scalar<uint16_t>(TruncateToInt<uint16_t>(value)); break;
    case DType::kUInt32: t = Tensor::Scalar<uint32_t>(TruncateToInt<uint32_t>(value)); break;
    case DType::kUInt64: t = Tensor::Scalar<uint64_t>(TruncateToInt<uint64_t>(value)); break;
    case DType::kFloat16: t = Tensor::Scalar<Float16>(Float16(value)); break;
    case DType::kBFloat16: t = Tensor::Scalar<BFloat16>(BFloat16(value)); break;
    default:
      return Unsupported(absl::StrCat("element type ", DTypeName(dtype), " is not supported here"));
  }
  return Const(std::move(t));
}

Status NodeContext::Unsupported(absl::string_view why) const {
  return errors::Unimplemented(absl::StrCat("ONNX op '", op_type(), "' (opset ", opset(),
                                            ") is not supported", why.empty() ? "" : ": ", why,
                                            " (node '", name(), "')"));
}

Status NodeContext::Invalid(absl::string_view why) const {
  return errors::InvalidArgument(absl::StrCat("ONNX op '", op_type(), "' (node '", name(), "'): ", why));
}

}  // namespace graphd::compiler::onnx_import
