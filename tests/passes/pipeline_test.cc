// The pipeline: order, disabling passes by name, verification after each pass, IR
// dumps; and the verifier itself.
#include "compiler/passes/pipeline.h"

#include "compiler/passes/pass_test_util.h"
#include "core/current_cancellation.h"
#include "executor/cpu/cpu_device.h"
#include "gmock/gmock.h"
#include "server/constant_evaluator.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Text;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const ConstantEvaluator& Evaluator() {
  static const executor::cpu::CpuDevice* device = new executor::cpu::CpuDevice();
  static const server::ExecutorConstantEvaluator* evaluator = new server::ExecutorConstantEvaluator(*device);
  return *evaluator;
}

// x * (2 + 3) + (x*y + x*y), with a dead node.
FunctionBody Sample() {
  return BodyBuilder()
      .Arg("x")
      .Arg("y")
      .Const("c2", 2.0f)
      .Const("c3", 3.0f)
      .Node("add", "Add", {"c2", "c3"})
      .Node("scaled", "Mul", {"x", "add"})
      .Node("m1", "Mul", {"x", "y"})
      .Node("m2", "Mul", {"x", "y"})
      .Node("sum", "Add", {"m1", "m2"})
      .Node("dead", "Tanh", {"y"})
      .Node("r", "Add", {"scaled", "sum"})
      .Return({"r"});
}

PipelineOptions Verified(absl::flat_hash_set<std::string> disabled = {}) {
  PipelineOptions o;
  o.disabled = std::move(disabled);
  o.verify = true;
  return o;
}

TEST(PipelineTest, DefaultPipelineFoldsMergesAndCleansUp) {
  auto pipeline = MakeDefaultPipeline(&Evaluator(), Verified());
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_THAT((*pipeline)->PassNames(), ElementsAre("constant_folding", "algebraic_simplification", "cse", "dce",
                                                     "layernorm_fusion", "gelu_fusion", "batchnorm_folding", "conv_add_fusion",
                                                     "conv_activation_fusion", "matmul_fusion", "conv_layout", "conv_input_scale",
                                                     "elementwise_fusion"));
  EXPECT_THAT(DefaultPassNames(), ElementsAre("constant_folding", "algebraic_simplification", "cse", "dce",
                                              "layernorm_fusion", "gelu_fusion", "batchnorm_folding", "conv_add_fusion",
                                              "conv_activation_fusion", "matmul_fusion", "conv_layout", "conv_input_scale",
                                              "elementwise_fusion"));
  FunctionBody body = Sample();
  auto changed = (*pipeline)->Run(body);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "y = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "add/folded = Const[value=float32[]{5}]() : float32[]\n"
            "r_elementwise_fusion = FusedElementwise[program=\"Mul x0 #5; Mul x0 x1; Add t1 t1; Add t0 t2\"](x, y) : "
            "float32[]\n"
            "return r_elementwise_fusion\n");
  auto fn = std::move(body).ToFunction();
  ASSERT_TRUE(fn.ok()) << fn.status();
  EXPECT_EQ((*fn)->num_args(), 2);
}

TEST(PipelineTest, PassesCanBeDisabledByName) {
  auto pipeline = MakeDefaultPipeline(&Evaluator(), Verified({"constant_folding", "dce", "elementwise_fusion"}));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  FunctionBody body = Sample();
  ASSERT_TRUE((*pipeline)->Run(body).ok());
  const std::string text = Text(body);
  EXPECT_THAT(text, HasSubstr("add = Add(c2, c3)"));   // not folded
  EXPECT_THAT(text, HasSubstr("dead = Tanh(y)"));      // not removed
  EXPECT_THAT(text, HasSubstr("sum = Add(m1, m1)"));   // but merged
  EXPECT_THAT(text, ::testing::Not(HasSubstr("m2 =")));
}

TEST(PipelineTest, WithoutAnEvaluatorThereIsNoFolding) {
  auto pipeline = MakeDefaultPipeline(nullptr, Verified({"constant_folding", "elementwise_fusion"}));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_THAT((*pipeline)->PassNames(), ElementsAre("algebraic_simplification", "cse", "dce", "layernorm_fusion", "gelu_fusion",
                                                     "batchnorm_folding",
                                                     "conv_add_fusion", "conv_activation_fusion",
                                                     "matmul_fusion", "conv_layout", "conv_input_scale",
                                                     "elementwise_fusion"));
  FunctionBody body = Sample();
  ASSERT_TRUE((*pipeline)->Run(body).ok());
  EXPECT_THAT(Text(body), HasSubstr("add = Add(c2, c3)"));
}

TEST(PipelineTest, UnknownPassNamesAreRejected) {
  auto pipeline = MakeDefaultPipeline(&Evaluator(), Verified({"cse", "fusion"}));
  ASSERT_FALSE(pipeline.ok());
  EXPECT_EQ(pipeline.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pipeline.status().message(), HasSubstr("unknown pass 'fusion' (passes: constant_folding, algebraic_simplification, cse, "
                                                             "dce, layernorm_fusion, gelu_fusion, batchnorm_folding, conv_add_fusion, conv_activation_fusion, matmul_fusion, conv_layout, "
                                                             "conv_input_scale, elementwise_fusion)"));
}

TEST(PipelineTest, DumpsTheIrBeforeAndAfterEachPass) {
  PipelineOptions options = Verified({"cse"});
  std::vector<std::string> stages;
  std::string after_fold;
  options.dump = [&](absl::string_view stage, const FunctionBody& body) {
    stages.emplace_back(stage);
    if (stage == "constant_folding") after_fold = Text(body);
  };
  auto pipeline = MakeDefaultPipeline(&Evaluator(), std::move(options));
  ASSERT_TRUE(pipeline.ok());
  FunctionBody body = Sample();
  ASSERT_TRUE((*pipeline)->Run(body).ok());
  EXPECT_THAT(stages, ElementsAre("input", "constant_folding", "algebraic_simplification", "dce",
                                  "layernorm_fusion", "gelu_fusion", "batchnorm_folding", "conv_add_fusion", "conv_activation_fusion",
                                  "matmul_fusion", "conv_layout", "conv_input_scale", "elementwise_fusion"));
  EXPECT_THAT(after_fold, HasSubstr("add/folded = Const"));
  EXPECT_THAT(after_fold, HasSubstr("dead = Tanh(y)"));
}

// A pass that breaks the body: it rewires a use to a node added after the consumer
// and does not compact.
class BreakingPass : public Pass {
 public:
  absl::string_view name() const override { return "breaking"; }
  StatusOr<bool> Run(FunctionBody& body) const override {
    const Node* c2 = body.graph->FindNode("c2");
    ASSIGN_OR_RETURN(const Node* late, body.graph->AddNode({.name = "late", .op = "Const",
                                                            .attrs = {{"value", Tensor::Scalar(7.0f)}}}));
    RETURN_IF_ERROR(body.ReplaceAllUses({c2, 0}, {late, 0}).status());
    return true;
  }
};

TEST(PipelineTest, VerificationNamesThePassThatBrokeTheBody) {
  std::vector<std::unique_ptr<const Pass>> passes;
  passes.push_back(std::make_unique<BreakingPass>());
  auto pipeline = Pipeline::Make(std::move(passes), Verified());
  ASSERT_TRUE(pipeline.ok());
  FunctionBody body = Sample();
  auto result = (*pipeline)->Run(body);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(), HasSubstr("after pass breaking, f is not valid"));
  EXPECT_THAT(result.status().message(), HasSubstr("'add'"));
}

TEST(PipelineTest, DuplicatePassNamesAreRejected) {
  std::vector<std::unique_ptr<const Pass>> passes;
  passes.push_back(std::make_unique<BreakingPass>());
  passes.push_back(std::make_unique<BreakingPass>());
  EXPECT_FALSE(Pipeline::Make(std::move(passes), {}).ok());
}

// A pass that counts its runs and cancels `token` (the call being cancelled while a
// pass runs, as CloseSession or the client would from another thread).
class CancellingPass : public Pass {
 public:
  CancellingPass(std::string name, CancellationToken* token, int* runs) : name_(std::move(name)), token_(token), runs_(runs) {}
  absl::string_view name() const override { return name_; }
  StatusOr<bool> Run(FunctionBody& body) const override {
    ++*runs_;
    if (token_ != nullptr) token_->Cancel();
    return false;
  }

 private:
  std::string name_;
  CancellationToken* token_;
  int* runs_;
};

TEST(PipelineTest, StopsBetweenPassesWhenTheCurrentCallIsCancelled) {
  CancellationToken token;
  int first = 0, second = 0;
  std::vector<std::unique_ptr<const Pass>> passes;
  passes.push_back(std::make_unique<CancellingPass>("first", &token, &first));
  passes.push_back(std::make_unique<CancellingPass>("second", nullptr, &second));
  auto pipeline = Pipeline::Make(std::move(passes), Verified());
  ASSERT_TRUE(pipeline.ok());
  FunctionBody body = Sample();
  {
    ScopedCancellation scope(&token);
    auto result = (*pipeline)->Run(body);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
    EXPECT_THAT(result.status().message(), HasSubstr("before pass second"));
  }
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 0);
  // Outside the call's scope the same pipeline runs to the end.
  EXPECT_EQ(CurrentCancellation(), nullptr);
  FunctionBody again = Sample();
  ASSERT_TRUE((*pipeline)->Run(again).ok());
  EXPECT_EQ(second, 1);
}

TEST(PipelineTest, APassedDeadlineStopsBeforeTheFirstPass) {
  CancellationToken token(CancellationToken::Clock::now() - std::chrono::seconds(1));
  int runs = 0;
  std::vector<std::unique_ptr<const Pass>> passes;
  passes.push_back(std::make_unique<CancellingPass>("only", nullptr, &runs));
  auto pipeline = Pipeline::Make(std::move(passes), Verified());
  ASSERT_TRUE(pipeline.ok());
  FunctionBody body = Sample();
  ScopedCancellation scope(&token);
  auto result = (*pipeline)->Run(body);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(runs, 0);
}

TEST(VerifierTest, AcceptsAValidBodyAndRejectsBrokenArgumentLists) {
  FunctionBody body = Sample();
  EXPECT_TRUE(VerifyBody(body).ok());
  body.args.pop_back();
  Status s = VerifyBody(body);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("2 Arg nodes but 1 arguments"));
  body.args.push_back(body.args[0]);
  EXPECT_FALSE(VerifyBody(body).ok());
}

}  // namespace
}  // namespace graphd::compiler::passes
