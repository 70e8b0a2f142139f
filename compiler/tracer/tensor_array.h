// tf.TensorArray for the source path: an immutable value whose state is its stacked
// buffer tensor [n, element...] (or nothing before the first write). write() returns a
// new TensorArray, so in a staged loop it is an ordinary loop variable (carried as its
// buffer; staging.cc unwraps and rewraps it).
#ifndef GRAPHD_COMPILER_TRACER_TENSOR_ARRAY_H_
#define GRAPHD_COMPILER_TRACER_TENSOR_ARRAY_H_

#include <string>

#include "compiler/tracer/objects.h"
#include "core/dtype.h"

namespace graphd::compiler::tracer {

class TensorArrayObj : public Object {
 public:
  // `buffer`: a tensor value, or None before any write.
  TensorArrayObj(DType dtype, Value buffer) : dtype_(dtype), buffer_(std::move(buffer)) {}
  std::string TypeName() const override { return "TensorArray"; }
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;

  DType dtype() const { return dtype_; }
  const Value& buffer() const { return buffer_; }
  // The buffer as a tensor value (an empty [0] tensor before any write).
  StatusOr<Value> BufferTensor(Interpreter& interp) const;

 private:
  DType dtype_;
  Value buffer_;
};

// tf.TensorArray(dtype, size=0, dynamic_size=False, element_shape=None, ...).
StatusOr<Value> MakeTensorArray(Interpreter& interp, CallArgs& call);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TENSOR_ARRAY_H_
