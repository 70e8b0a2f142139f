// tf.Variable for the source path: a named tensor in the session's VariableStore.
// In traced code reads and updates are ReadVariableOp / Assign*VariableOp nodes
// (ordered by automatic control dependencies); a variable created while tracing is
// initialised by its first run only; creating one on a later trace of the same
// function is TensorFlow's ValueError.
#ifndef GRAPHD_COMPILER_TRACER_VARIABLES_H_
#define GRAPHD_COMPILER_TRACER_VARIABLES_H_

#include <string>

#include "compiler/tracer/objects.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace graphd::compiler::tracer {

class VariableObj : public Object {
 public:
  VariableObj(std::string store_name, std::string display_name, DType dtype, PartialShape shape)
      : store_name_(std::move(store_name)), display_name_(std::move(display_name)), dtype_(dtype),
        shape_(std::move(shape)) {}
  std::string TypeName() const override { return "ResourceVariable"; }
  std::string Repr() const override;
  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override;
  bool IsTensorLike() const override { return true; }
  StatusOr<Value> AsTensor(Interpreter& interp) override;

  const std::string& store_name() const { return store_name_; }
  // tf.Variable(trainable=...): whether tapes watch it when it is read.
  bool trainable() const { return trainable_; }
  void set_trainable(bool t) { trainable_ = t; }
  DType dtype() const { return dtype_; }
  const PartialShape& shape() const { return shape_; }

 private:
  StatusOr<Value> Update(Interpreter& interp, const std::string& op, const Value& value);

  std::string store_name_, display_name_;
  DType dtype_;
  PartialShape shape_;
  bool trainable_ = true;
};

// tf.Variable(initial_value, trainable=True, name=None, dtype=None, shape=None).
StatusOr<Value> MakeVariable(Interpreter& interp, CallArgs& call);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_VARIABLES_H_
