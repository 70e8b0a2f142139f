// Test harness for source-level tests: a module parsed, converted by AutoGraph and
// run (its top level without eager ops), whose functions are traced into concrete
// functions and executed on the CPU device.
#ifndef GRAPHD_TESTS_CONFORMANCE_TRACE_TRACE_HARNESS_H_
#define GRAPHD_TESTS_CONFORMANCE_TRACE_TRACE_HARNESS_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/autograph/converter.h"
#include "compiler/frontend/parser.h"
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/trace.h"
#include "compiler/tracer/tracer.h"
#include "tests/conformance/cpu/test_util.h"

namespace graphd::compiler::tracer::test {

class SourceModule {
 public:
  explicit SourceModule(const std::string& source, const std::string& filename = "m.py") {
    auto parsed = ParseModule(std::make_shared<SourceFile>(filename, source));
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) return;
    module_ = std::make_shared<ast::Module>(autograph::ConvertModule(*parsed));
    globals_ = std::make_shared<Namespace>("__main__");
    globals_->Set("ag__", Value::Obj(MakeStagingRuntime()));
    interp_ = std::make_unique<Interpreter>(globals_, MakeTracingBuiltins());
    Value tf = Value::Obj(MakeTfModule());
    interp_->RegisterModule("tensorflow", tf);
    interp_->RegisterModule("tensorflow.compat.v2", tf);
    Status s = interp_->ExecModule(*module_);
    EXPECT_TRUE(s.ok()) << s;
  }

  // Traces function `name` with `args` (TensorSpec values or Python values).
  StatusOr<ConcreteFunction> Trace(const std::string& name, std::vector<Value> args) {
    const Value* fn = globals_ ? globals_->Find(name) : nullptr;
    if (fn == nullptr) return errors::NotFound(name);
    return TraceFunction(*interp_, *fn, TraceArgs{.args = std::move(args)});
  }

 private:
  std::shared_ptr<ast::Module> module_;
  std::shared_ptr<Namespace> globals_;
  std::unique_ptr<Interpreter> interp_;
};

inline Value Spec(DType dtype, std::vector<int64_t> dims = {}) {
  return Value::Obj(std::make_shared<TensorSpecObj>(PartialShape(dims), dtype, ""));
}

// Runs a concrete function once on the CPU device.
inline StatusOr<std::vector<Tensor>> Execute(const ConcreteFunction& cf, std::vector<Tensor> feeds) {
  ASSIGN_OR_RETURN(auto plan, executor::Plan::Build(SpecForFunction(*cf.function), executor::test::Device()));
  VariableStore vars;
  CancellationToken token;
  return executor::Execute(*plan, std::move(feeds), {.variables = &vars, .cancellation = &token});
}

}  // namespace graphd::compiler::tracer::test

#endif  // GRAPHD_TESTS_CONFORMANCE_TRACE_TRACE_HARNESS_H_
