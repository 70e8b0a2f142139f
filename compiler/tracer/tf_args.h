// Shared by the files that build the `tf` namespace (tf_api*.cc): binding a call's
// arguments to TensorFlow's parameter names, reading values that must be known at
// trace time (axes, shapes, seeds: attributes in graphd's IR), and the entry points
// of each function family. Internal to the tracer.
#ifndef GRAPHD_COMPILER_TRACER_TF_ARGS_H_
#define GRAPHD_COMPILER_TRACER_TF_ARGS_H_

#include <map>
#include <string>
#include <vector>

#include "compiler/tracer/objects.h"
#include "compiler/tracer/tracer.h"
#include "core/attr_value.h"

namespace graphd::compiler::tracer {

// Binds a call's arguments to parameter names, as Python binds them to a def's
// parameters. Check() reports extra positional and unknown keyword arguments.
class Args {
 public:
  Args(std::string fn, const CallArgs& call, const std::vector<std::string>& params);

  // TypeError for too many positional or an unexpected keyword argument.
  Status Check() const;
  // Given and not None.
  bool Has(const std::string& p) const;
  // TypeError "missing required argument" when not given.
  StatusOr<Value> Get(const std::string& p) const;
  Value GetOr(const std::string& p, Value dflt) const;
  // A bool parameter (a Python bool or int, or None for the default); TypeError otherwise.
  StatusOr<bool> Flag(const std::string& p, bool dflt) const;
  // A dtype parameter (tf.float32, "float32", ...), `dflt` when absent or None.
  StatusOr<DType> DTypeOr(const std::string& p, DType dflt) const;
  // A str parameter, `dflt` when absent or None.
  StatusOr<std::string> StrOr(const std::string& p, const std::string& dflt) const;
  const std::string& fn() const { return fn_; }

 private:
  std::string fn_;
  std::map<std::string, Value> values_;
  bool extra_ = false;
  std::string unknown_;
};

// A builtin function value.
Value Fn(const std::string& name, BuiltinFn fn);

// The tf.Module class (tf_module.cc); `name_scope_fn` is tf.name_scope.
Value MakeModuleClass(Value name_scope_fn);

// An int or a list/tuple of ints (Python values only).
StatusOr<IntList> Axes(const Value& v);

// Integers known at trace time: a Python int or (nested) list/tuple of ints, or a
// tensor whose value is known (eager, a constant, or the Shape of a tensor whose
// shape is fully known). Nested lists are flattened row-major. `what` names the
// argument in the TypeError otherwise.
StatusOr<IntList> StaticInts(const Value& v, const std::string& what);
// One such integer (a scalar).
StatusOr<int64_t> StaticInt(const Value& v, const std::string& what);
// A Python number, or a scalar tensor whose value is known at trace time.
StatusOr<double> StaticNumber(const Value& v, const std::string& what);
// An integer known when the function is traced: a Python int or bool, an integer tensor
// of one element, or an integral float in int64's range (else TypeError naming `what`).
StatusOr<int64_t> StaticInteger(const Value& v, const std::string& what);

// The dtype and shape of a node output.
DType DTypeOf(const OutputRef& r);
const PartialShape& ShapeOf(const OutputRef& r);
// The dtype of `v` when it is a tensor, else kInvalid (a hint for ToTensor).
DType TensorDType(const Value& v);

// The function families (tf_api_*.cc). Each adds its functions to the namespaces
// given (tf and its submodules).
// constant convert_to_tensor cast zeros ones zeros_like ones_like fill range linspace eye.
void AddCreationFunctions(Namespace& tf);
// reshape expand_dims squeeze shape size rank broadcast_to transpose.
void AddShapeFunctions(Namespace& tf);
// concat stack unstack split tile gather slice pad one_hot reverse where.
void AddArrayFunctions(Namespace& tf);
// Elementwise math, reductions, matmul, truediv, cumsum, argmax/argmin, add_n.
void AddMathFunctions(Namespace& tf, Namespace& math, Namespace& linalg);
// tf.nn: activations, softmax, bias_add, conv2d, pools, moments.
void AddNnFunctions(Namespace& nn);
// cond while_loop Assert (also tf.debugging.Assert) print.
void AddControlFunctions(Namespace& tf, Namespace& debugging);
// tf.function, tf.TensorShape, tf.autograph (to_code, to_graph, convert,
// experimental.set_element_type / set_loop_options).
void AddFunctionAndAutograph(Namespace& tf, Namespace& autograph);
// tf.strings.join/length, tf.random.stateless_uniform/normal (and the stateful
// generators' clear error), tf.name_scope.
void AddMiscFunctions(Namespace& tf, Namespace& strings, Namespace& random);

// A PrintV2 of `values` (Python values become text of the template, tensors its
// fields) on `stream` ("stdout" or "stderr").
StatusOr<Value> PrintOp(Tracer& t, const std::vector<Value>& values, const std::string& sep,
                        const std::string& end, const char* stream);
// A str keyword argument of `call`, or `dflt`.
std::string KwString(const CallArgs& call, const std::string& name, const std::string& dflt);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_TF_ARGS_H_
