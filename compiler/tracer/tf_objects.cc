#include "compiler/tracer/tf_objects.h"

#include <array>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {

using K = Value::Kind;

Value DTypeObj::Make(DType dtype) {
  static auto* cache = [] {
    auto* values = new std::array<Value, kNumDTypes>();
    for (int i = 0; i < kNumDTypes; ++i) (*values)[i] = Value::Obj(std::make_shared<DTypeObj>(static_cast<DType>(i)));
    return values;
  }();
  return (*cache)[static_cast<int>(dtype)];
}

StatusOr<Value> DTypeObj::GetAttr(Interpreter& interp, const std::string& name) {
  if (name == "name") return Value::Str(std::string(DTypeName(dtype_)));
  if (name == "is_floating") return Value::Bool(IsFloating(dtype_));
  if (name == "is_integer") return Value::Bool(IsInteger(dtype_));
  return Object::GetAttr(interp, name);
}

std::string TensorSpecObj::Repr() const {
  return "TensorSpec(shape=" + ShapeRepr(shape) + ", dtype=tf." + std::string(DTypeName(dtype)) + ", name=" +
         (name.empty() ? "None" : StrRepr(name)) + ")";
}

StatusOr<Value> TensorSpecObj::GetAttr(Interpreter& interp, const std::string& attr) {
  if (attr == "dtype") return DTypeObj::Make(dtype);
  if (attr == "name") return name.empty() ? Value::None() : Value::Str(name);
  if (attr == "shape") {
    if (!shape.known_rank()) return Value::None();
    std::vector<Value> dims;
    for (int64_t d : shape.dims()) dims.push_back(d == kUnknownDim ? Value::None() : Value::Int(d));
    return Value::Tuple(std::move(dims));
  }
  return Object::GetAttr(interp, attr);
}

StatusOr<DType> DTypeFromValue(const Value& v) {
  if (auto d = v.object_as<DTypeObj>()) return d->dtype();
  if (v.is(K::kStr)) {
    auto d = DTypeFromName(v.as_str() == "float" ? "float32" : v.as_str());
    if (d.ok()) return *d;
  }
  return PyError("TypeError", "Cannot convert " + PyRepr(v) + " to a dtype");
}

StatusOr<PartialShape> ShapeFromValue(const Value& v) {
  if (v.is_none()) return PartialShape::UnknownRank();
  if (!v.is(K::kList) && !v.is(K::kTuple)) return PyError("TypeError", "a shape must be a list or tuple, got " + v.TypeName());
  std::vector<int64_t> dims;
  for (const Value& d : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
    if (d.is_none()) {
      dims.push_back(kUnknownDim);
    } else if (d.is_int_like() && d.as_int() >= 0) {
      dims.push_back(d.as_int());
    } else {
      return PyError("TypeError", "shape dimensions must be non-negative ints or None, got " + PyRepr(d));
    }
  }
  auto shape = PartialShape::Make(std::move(dims));
  if (!shape.ok()) return PyError("ValueError", std::string(shape.status().message()));
  return *shape;
}

namespace {

bool IsEllipsis(const Value& v) { return v.is(K::kObject) && v.as_object() && v.as_object()->TypeName() == "ellipsis"; }

bool HasTensor(const Value& v) {
  if (v.is(K::kTensor)) return true;
  if (auto s = v.object_as<SliceObj>()) return s->start.is(K::kTensor) || s->stop.is(K::kTensor) || s->step.is(K::kTensor);
  return false;
}

// x[i] (scalar tensor i) or x[a:b:c] with tensor bounds on axis 0: a gather.
StatusOr<Value> GatherIndex(Tracer& tracer, OutputRef x, const Value& index) {
  AttrMap attrs = {{"axis", int64_t{0}}, {"batch_dims", int64_t{0}}};
  if (index.is(K::kTensor)) {
    ASSIGN_OR_RETURN(OutputRef i, tracer.ToTensor(index));
    return tracer.Op("GatherV2", {x, i}, attrs, "strided_slice");
  }
  auto s = index.object_as<SliceObj>();
  DType dt = DType::kInt32;
  for (const Value* part : {&s->start, &s->stop, &s->step}) {
    if (part->is(K::kTensor)) dt = part->as_tensor()->dtype;
  }
  const TensorType& type = x.node->output(x.index);
  Value stop = s->stop;
  if (stop.is_none()) {
    if (!type.shape.known_rank() || type.shape.rank() == 0 || type.shape.dim(0) == kUnknownDim) {
      return PyError("NotImplementedError", "slicing to the end with a tensor start needs a known first dimension");
    }
    stop = Value::Int(type.shape.dim(0));
  }
  ASSIGN_OR_RETURN(OutputRef start, tracer.ToTensor(s->start.is_none() ? Value::Int(0) : s->start, dt));
  ASSIGN_OR_RETURN(OutputRef limit, tracer.ToTensor(stop, dt));
  ASSIGN_OR_RETURN(OutputRef delta, tracer.ToTensor(s->step.is_none() ? Value::Int(1) : s->step, dt));
  ASSIGN_OR_RETURN(Value positions, tracer.Op("Range", {start, limit, delta}, {}, "range"));
  ASSIGN_OR_RETURN(OutputRef pos, tracer.ToTensor(positions));
  return tracer.Op("GatherV2", {x, pos}, attrs, "strided_slice");
}

}  // namespace

StatusOr<Value> SliceTensor(Interpreter&, Tracer& tracer, const Value& tensor, const Value& index) {
  ASSIGN_OR_RETURN(OutputRef x, tracer.ToTensor(tensor));
  std::vector<Value> parts = index.is(K::kTuple) ? index.as_tuple() : std::vector<Value>{index};
  if (parts.size() == 1 && HasTensor(parts[0])) return GatherIndex(tracer, x, parts[0]);
  IntList begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Value& p = parts[i];
    int64_t bit = int64_t{1} << i;
    if (HasTensor(p)) {
      return PyError("NotImplementedError", "tensor-valued indices are supported alone on the first axis only");
    }
    if (p.is_int_like()) {
      begin.push_back(p.as_int());
      end.push_back(p.as_int() + 1);
      strides.push_back(1);
      shrink_mask |= bit;
    } else if (p.is_none()) {
      begin.push_back(0), end.push_back(0), strides.push_back(1);
      new_axis_mask |= bit;
    } else if (IsEllipsis(p)) {
      begin.push_back(0), end.push_back(0), strides.push_back(1);
      ellipsis_mask |= bit;
    } else if (auto s = p.object_as<SliceObj>()) {
      for (const Value* v : {&s->start, &s->stop, &s->step}) {
        if (!v->is_none() && !v->is_int_like()) return PyError("TypeError", "slice indices must be integers, None or tensors");
      }
      begin.push_back(s->start.is_none() ? 0 : s->start.as_int());
      end.push_back(s->stop.is_none() ? 0 : s->stop.as_int());
      strides.push_back(s->step.is_none() ? 1 : s->step.as_int());
      if (strides.back() == 0) return PyError("ValueError", "slice step cannot be zero");
      if (s->start.is_none()) begin_mask |= bit;
      if (s->stop.is_none()) end_mask |= bit;
    } else {
      return PyError("TypeError", "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                                  "tensors are valid indices, got " + PyRepr(p));
    }
  }
  return tracer.Op("StridedSlice", {x},
                   {{"begin", begin}, {"end", end}, {"strides", strides}, {"begin_mask", begin_mask},
                    {"end_mask", end_mask}, {"ellipsis_mask", ellipsis_mask}, {"new_axis_mask", new_axis_mask},
                    {"shrink_axis_mask", shrink_mask}},
                   "strided_slice");
}

}  // namespace graphd::compiler::tracer
