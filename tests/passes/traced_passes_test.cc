// The passes on traced source functions: ModuleRuntime traces with the default
// pipeline (run on the function body and on every If branch and While body as each
// is finished), and the optimised functions still compute what the source says.
#include "compiler/passes/pipeline.h"
#include "compiler/tracer/module.h"
#include "compiler/tracer/tf_objects.h"
#include "core/graph/ir_text.h"
#include "core/output_sink.h"
#include "executor/cpu/cpu_device.h"
#include "executor/runtime/executor.h"
#include "gmock/gmock.h"
#include "server/constant_evaluator.h"

namespace graphd::compiler::passes {
namespace {

using tracer::ConcreteFunction;
using tracer::Value;
using ::testing::HasSubstr;
using ::testing::Not;

const executor::cpu::CpuDevice& Device() {
  static const executor::cpu::CpuDevice* device = new executor::cpu::CpuDevice();
  return *device;
}

class TracedPassesTest : public ::testing::Test {
 protected:
  void Load(const std::string& source, absl::flat_hash_set<std::string> disabled = {}) {
    PipelineOptions options;
    options.verify = true;
    options.disabled = std::move(disabled);
    auto pipeline = MakeDefaultPipeline(&evaluator_, std::move(options));
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    pipeline_ = *std::move(pipeline);
    auto module = tracer::ModuleRuntime::Load(source, "m.py", &token_, nullptr);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
    module_->set_passes(pipeline_.get());
  }
  ConcreteFunction Trace(const std::string& name, int num_float_args) {
    tracer::TraceArgs args;
    for (int i = 0; i < num_float_args; ++i) {
      args.args.push_back(Value::Obj(std::make_shared<tracer::TensorSpecObj>(PartialShape(), DType::kFloat32, "")));
    }
    auto cf = module_->Trace(name, args, &token_);
    EXPECT_TRUE(cf.ok()) << cf.status();
    return cf.ok() ? *std::move(cf) : ConcreteFunction{};
  }
  std::vector<Tensor> Run(const ConcreteFunction& cf, std::vector<float> args) {
    std::vector<Tensor> feeds;
    for (float a : args) feeds.push_back(Tensor::Scalar(a));
    auto plan = executor::Plan::Build(SpecForFunction(*cf.function), Device());
    EXPECT_TRUE(plan.ok()) << plan.status();
    VariableStore variables;
    auto out = executor::Execute(**plan, std::move(feeds),
                                 {.variables = &variables, .cancellation = &token_, .output = &printed_});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *std::move(out) : std::vector<Tensor>{};
  }
  static int Count(const Function& fn, const std::string& op) {
    int n = 0;
    for (int id = 0; id < fn.graph->num_nodes(); ++id) n += fn.graph->node(id)->op_name() == op;
    return n;
  }

  server::ExecutorConstantEvaluator evaluator_{Device()};
  std::unique_ptr<const Pipeline> pipeline_;
  CancellationToken token_;
  std::unique_ptr<tracer::ModuleRuntime> module_;
  OutputSink printed_;
};

constexpr char kSource[] = R"py(
import tensorflow as tf

def scale(x):
  return x * (tf.constant(2.0) + tf.constant(3.0))

def python_scale(x):
  return x * (2.0 + 3.0)

def square_twice(a, b):
  unused = tf.tanh(a)
  return a * b + a * b

def printed(x):
  tf.print(tf.constant(1) + tf.constant(2))
  return x

def branchy(x):
  if x > 0:
    y = x * (tf.constant(2.0) + tf.constant(3.0))
  else:
    y = x - tf.constant(1.0) * tf.constant(4.0)
  i = tf.constant(0)
  while i < 3:
    y = y + tf.constant(0.5) * tf.constant(2.0)
    i += 1
  return y
)py";

TEST_F(TracedPassesTest, ConstantsFoldToOneConst) {
  Load(kSource);
  for (const char* name : {"scale", "python_scale"}) {
    ConcreteFunction cf = Trace(name, 1);
    ASSERT_NE(cf.function, nullptr);
    const std::string ir = FunctionToText(*cf.function);
    EXPECT_EQ(Count(*cf.function, "Const"), 1) << ir;
    EXPECT_EQ(Count(*cf.function, "Mul"), 1) << ir;
    EXPECT_EQ(Count(*cf.function, "Add"), 0) << ir;
    EXPECT_THAT(ir, HasSubstr("Const[value=float32[]{5}]")) << ir;
    std::vector<Tensor> out = Run(cf, {1.5f});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_FLOAT_EQ(out[0].data<float>()[0], 7.5f);
  }
}

TEST_F(TracedPassesTest, EqualProductsBecomeOneAndDeadCodeGoes) {
  Load(kSource);
  ConcreteFunction cf = Trace("square_twice", 2);
  ASSERT_NE(cf.function, nullptr);
  const std::string ir = FunctionToText(*cf.function);
  EXPECT_EQ(Count(*cf.function, "Mul"), 1) << ir;
  EXPECT_EQ(Count(*cf.function, "Tanh"), 0) << ir;
  EXPECT_EQ(cf.function->num_args(), 2);
  std::vector<Tensor> out = Run(cf, {3.0f, 4.0f});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].data<float>()[0], 24.0f);
}

TEST_F(TracedPassesTest, DisabledPassesLeaveTheTraceAsItWas) {
  Load(kSource, {"constant_folding", "cse", "dce"});
  ConcreteFunction cf = Trace("square_twice", 2);
  ASSERT_NE(cf.function, nullptr);
  EXPECT_EQ(Count(*cf.function, "Mul"), 2);
  EXPECT_EQ(Count(*cf.function, "Tanh"), 1);
  std::vector<Tensor> out = Run(cf, {3.0f, 4.0f});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].data<float>()[0], 24.0f);
}

TEST_F(TracedPassesTest, SideEffectsStayAndSeeFoldedInputs) {
  Load(kSource);
  ConcreteFunction cf = Trace("printed", 1);
  ASSERT_NE(cf.function, nullptr);
  const std::string ir = FunctionToText(*cf.function);
  EXPECT_EQ(Count(*cf.function, "PrintV2"), 1) << ir;
  EXPECT_EQ(Count(*cf.function, "Add"), 0) << ir;
  Run(cf, {0.0f});
  EXPECT_EQ(printed_.TakeStderr(), "3\n");
}

TEST_F(TracedPassesTest, BranchesAndLoopBodiesAreOptimisedToo) {
  Load(kSource);
  ConcreteFunction cf = Trace("branchy", 1);
  ASSERT_NE(cf.function, nullptr);
  const std::string ir = FunctionToText(*cf.function);
  EXPECT_THAT(ir, HasSubstr("Const[value=float32[]{5}]")) << ir;   // then branch
  EXPECT_THAT(ir, HasSubstr("Const[value=float32[]{4}]")) << ir;   // else branch
  EXPECT_THAT(ir, HasSubstr("Const[value=float32[]{1}]")) << ir;   // loop body
  EXPECT_THAT(ir, Not(HasSubstr("{0.5}"))) << ir;
  EXPECT_FLOAT_EQ(Run(cf, {2.0f})[0].data<float>()[0], 13.0f);
  EXPECT_FLOAT_EQ(Run(cf, {-2.0f})[0].data<float>()[0], -3.0f);
}

}  // namespace
}  // namespace graphd::compiler::passes
