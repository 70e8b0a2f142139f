// TensorFlow objects the tracer exposes: dtypes (tf.float32, ...), TensorSpec, and
// tensor indexing.
#ifndef GRAPHD_COMPILER_TRACER_TF_OBJECTS_H_
#define GRAPHD_COMPILER_TRACER_TF_OBJECTS_H_

#include <string>

#include "compiler/tracer/objects.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace graphd::compiler::tracer {

class Tracer;

// tf.float32 and friends: one object per dtype, so `x.dtype == tf.int32` compares
// identities as in Python.
class DTypeObj : public Object {
 public:
  static Value Make(DType dtype);
  explicit DTypeObj(DType dtype) : dtype_(dtype) {}
  std::string TypeName() const override { return "DType"; }
  std::string Repr() const override { return "tf." + std::string(DTypeName(dtype_)); }
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  DType dtype() const { return dtype_; }

 private:
  DType dtype_;
};

// tf.TensorSpec(shape, dtype=tf.float32, name=None).
class TensorSpecObj : public Object {
 public:
  TensorSpecObj(PartialShape shape, DType dtype, std::string name)
      : shape(std::move(shape)), dtype(dtype), name(std::move(name)) {}
  std::string TypeName() const override { return "TensorSpec"; }
  std::string Repr() const override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& attr) override;
  PartialShape shape;
  DType dtype;
  std::string name;
};

// A DType from tf.float32-style objects or names ("float32").
StatusOr<DType> DTypeFromValue(const Value& v);
// A shape from None (unknown rank) or a list/tuple of ints and None.
StatusOr<PartialShape> ShapeFromValue(const Value& v);

// tensor[index] with Python's indexing rules as TensorFlow extends them: ints,
// slices, None (new axis), Ellipsis, and tuples of those become a StridedSlice; a
// scalar tensor index or a slice with tensor bounds on the first axis becomes a gather.
StatusOr<Value> SliceTensor(Interpreter& interp, Tracer& tracer, const Value& tensor, const Value& index);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TF_OBJECTS_H_
