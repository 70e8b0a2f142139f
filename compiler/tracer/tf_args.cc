#include "compiler/tracer/tf_args.h"

#include <algorithm>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tf_objects.h"
#include "core/float_to_int.h"
#include "core/ops/strided_slice.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// The value of a node output known at trace time (a constant, the Shape of a tensor
// of known shape, or a StridedSlice of a known vector: tf.shape(x)[0]), or nullopt.
std::optional<Tensor> KnownOutput(const OutputRef& r, int depth = 0) {
  const Node* node = r.node;
  if (node == nullptr || depth > 8) return std::nullopt;
  if (node->op_name() == "Const") {
    auto it = node->attrs().find("value");
    if (it == node->attrs().end()) return std::nullopt;
    const Tensor* value = std::get_if<Tensor>(&it->second);
    return value ? std::optional<Tensor>(*value) : std::nullopt;
  }
  if (node->inputs().empty()) return std::nullopt;
  const OutputRef& in = node->inputs()[0];
  if (node->op_name() == "Shape") {
    const PartialShape& s = in.node->output(in.index).shape;
    if (!s.fully_defined()) return std::nullopt;
    auto out = Tensor::Allocate(DType::kInt64, Shape(std::vector<int64_t>{s.rank()}));
    if (!out.ok()) return std::nullopt;
    for (int i = 0; i < s.rank(); ++i) out->data<int64_t>()[i] = s.dim(i);
    return *out;
  }
  if (node->op_name() == "StridedSlice") {
    std::optional<Tensor> x = KnownOutput(in, depth + 1);
    if (!x || x->shape().rank() != 1 || (x->dtype() != DType::kInt32 && x->dtype() != DType::kInt64)) {
      return std::nullopt;
    }
    auto attrs = ops::ParseStridedSliceAttrs(node->attrs());
    if (!attrs.ok()) return std::nullopt;
    auto plan = ops::PlanStridedSlice(PartialShape(x->shape()), *attrs);
    if (!plan.ok() || plan->processing_shape.size() != 1 || plan->processing_shape[0] < 0) return std::nullopt;
    int64_t n = plan->processing_shape[0];
    auto out = Tensor::Allocate(DType::kInt64, Shape(plan->final_shape));
    if (!out.ok() || out->num_elements() != n) return std::nullopt;
    for (int64_t j = 0; j < n; ++j) {
      int64_t k = plan->begin[0] + j * plan->strides[0];
      out->data<int64_t>()[j] = x->dtype() == DType::kInt32 ? x->data<int32_t>()[k] : x->data<int64_t>()[k];
    }
    return *out;
  }
  return std::nullopt;
}

std::optional<Tensor> KnownValue(const TensorObj& t) {
  if (!t.symbolic()) return t.value;
  return KnownOutput(t.ref);
}

// The elements of a known integer (or bool) tensor, exactly; false for other dtypes.
bool IntElements(const Tensor& t, IntList& out) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (t.dtype()) {
      case DType::kInt32: out.push_back(t.data<int32_t>()[i]); break;
      case DType::kInt64: out.push_back(t.data<int64_t>()[i]); break;
      case DType::kInt16: out.push_back(t.data<int16_t>()[i]); break;
      case DType::kInt8: out.push_back(t.data<int8_t>()[i]); break;
      case DType::kUInt8: out.push_back(t.data<uint8_t>()[i]); break;
      case DType::kUInt16: out.push_back(t.data<uint16_t>()[i]); break;
      case DType::kUInt32: out.push_back(t.data<uint32_t>()[i]); break;
      case DType::kBool: out.push_back(t.data<bool>()[i] ? 1 : 0); break;
      default: return false;
    }
  }
  return true;
}

// The elements of a known tensor as doubles (ints exactly up to 2^53).
bool Elements(const Tensor& t, std::vector<double>& out) {
  if (t.dtype() == DType::kFloat32) {
    for (float v : t.flat<float>()) out.push_back(v);
    return true;
  }
  if (t.dtype() == DType::kFloat64) {
    for (double v : t.flat<double>()) out.push_back(v);
    return true;
  }
  IntList ints;
  if (!IntElements(t, ints)) return false;
  for (int64_t v : ints) out.push_back(static_cast<double>(v));
  return true;
}

Status CollectInts(const Value& v, const std::string& what, IntList& out) {
  if (v.is_int_like()) {
    out.push_back(v.as_int());
    return absl::OkStatus();
  }
  if (v.is(K::kList) || v.is(K::kTuple)) {
    for (const Value& e : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
      RETURN_IF_ERROR(CollectInts(e, what, out));
    }
    return absl::OkStatus();
  }
  if (v.is(K::kTensor)) {
    std::optional<Tensor> known = KnownValue(*v.as_tensor());
    if (known && IsInteger(known->dtype()) && IntElements(*known, out)) return absl::OkStatus();
    return PyError("TypeError", what + " must be known when the function is traced (a Python int or list of "
                                       "ints, or a constant integer tensor), got " + PyRepr(v));
  }
  return PyError("TypeError", what + " must be an int or a list of ints, got " + v.TypeName());
}

}  // namespace

Args::Args(std::string fn, const CallArgs& call, const std::vector<std::string>& params) : fn_(std::move(fn)) {
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (i < params.size()) {
      values_[params[i]] = call.args[i];
    } else {
      extra_ = true;
    }
  }
  for (const auto& [k, v] : call.kwargs) {
    if (std::find(params.begin(), params.end(), k) == params.end()) unknown_ = k;
    values_[k] = v;
  }
}

Status Args::Check() const {
  if (extra_) return PyError("TypeError", fn_ + "() got too many positional arguments");
  if (!unknown_.empty()) {
    return PyError("TypeError", fn_ + "() got an unexpected keyword argument '" + unknown_ + "'");
  }
  return absl::OkStatus();
}

bool Args::Has(const std::string& p) const {
  auto it = values_.find(p);
  return it != values_.end() && !it->second.is_none();
}

StatusOr<Value> Args::Get(const std::string& p) const {
  auto it = values_.find(p);
  if (it == values_.end()) return PyError("TypeError", fn_ + "() missing required argument: '" + p + "'");
  return it->second;
}

Value Args::GetOr(const std::string& p, Value dflt) const {
  auto it = values_.find(p);
  return it == values_.end() ? dflt : it->second;
}

StatusOr<bool> Args::Flag(const std::string& p, bool dflt) const {
  if (!Has(p)) return dflt;
  const Value& v = values_.at(p);
  if (!v.is_int_like()) return PyError("TypeError", fn_ + "() argument '" + p + "' must be a bool, got " + v.TypeName());
  return v.as_int() != 0;
}

StatusOr<DType> Args::DTypeOr(const std::string& p, DType dflt) const {
  if (!Has(p)) return dflt;
  return DTypeFromValue(values_.at(p));
}

StatusOr<std::string> Args::StrOr(const std::string& p, const std::string& dflt) const {
  if (!Has(p)) return dflt;
  const Value& v = values_.at(p);
  if (!v.is(K::kStr)) return PyError("TypeError", fn_ + "() argument '" + p + "' must be a str, got " + v.TypeName());
  return v.as_str();
}

Value Fn(const std::string& name, BuiltinFn fn) {
  return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn)));
}

StatusOr<IntList> Axes(const Value& v) {
  if (v.is_int_like()) return IntList{v.as_int()};
  IntList out;
  if (v.is(K::kList) || v.is(K::kTuple)) {
    for (const Value& a : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
      if (!a.is_int_like()) return PyError("TypeError", "axis must be an int or a list of ints");
      out.push_back(a.as_int());
    }
    return out;
  }
  return PyError("TypeError", "axis must be an int or a list of ints, got " + v.TypeName());
}

StatusOr<IntList> StaticInts(const Value& v, const std::string& what) {
  IntList out;
  RETURN_IF_ERROR(CollectInts(v, what, out));
  return out;
}

StatusOr<int64_t> StaticInt(const Value& v, const std::string& what) {
  if (v.is(K::kList) || v.is(K::kTuple)) {
    return PyError("TypeError", what + " must be an int, got " + v.TypeName());
  }
  ASSIGN_OR_RETURN(IntList ints, StaticInts(v, what));
  if (ints.size() != 1 || (v.is(K::kTensor) && v.as_tensor()->shape.rank() != 0)) {
    return PyError("TypeError", what + " must be a scalar int, got " + PyRepr(v));
  }
  return ints[0];
}

StatusOr<double> StaticNumber(const Value& v, const std::string& what) {
  if (v.is_number()) return v.as_float();
  if (v.is(K::kTensor)) {
    std::optional<Tensor> known = KnownValue(*v.as_tensor());
    std::vector<double> values;
    if (known && known->num_elements() == 1 && Elements(*known, values)) return values[0];
  }
  return PyError("TypeError", what + " must be a number known when the function is traced, got " + PyRepr(v));
}

StatusOr<int64_t> StaticInteger(const Value& v, const std::string& what) {
  if (v.is_int_like()) return v.as_int();
  if (v.is(K::kTensor)) {
    std::optional<Tensor> known = KnownValue(*v.as_tensor());
    IntList ints;
    if (known && known->num_elements() == 1 && IntElements(*known, ints)) return ints[0];
  }
  ASSIGN_OR_RETURN(double d, StaticNumber(v, what));
  std::optional<int64_t> i = TruncateInRange<int64_t>(d);
  if (!i || static_cast<double>(*i) != d) {
    return PyError("TypeError", what + " " + PyRepr(v) + " is not an integer (the tensor's dtype is an integer type)");
  }
  return *i;
}

DType DTypeOf(const OutputRef& r) { return r.node->output(r.index).dtype; }
const PartialShape& ShapeOf(const OutputRef& r) { return r.node->output(r.index).shape; }
DType TensorDType(const Value& v) { return v.is(K::kTensor) ? v.as_tensor()->dtype : DType::kInvalid; }

std::string KwString(const CallArgs& call, const std::string& name, const std::string& dflt) {
  for (const auto& [k, v] : call.kwargs) {
    if (k == name && v.is(K::kStr)) return v.as_str();
  }
  return dflt;
}

}  // namespace graphd::compiler::tracer
