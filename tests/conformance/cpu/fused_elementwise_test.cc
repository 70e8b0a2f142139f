// FusedElementwise (the elementwise_fusion pass's op) against the same computation
// written as one node per instruction and run by the unfused kernels, on random data
// of several shapes (empty, tiny, one block, many blocks, split across threads); its
// exp / log / tanh / sigmoid against the C library on special values; and the op's
// checks.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/ops/elementwise_program.h"
#include "tests/conformance/cpu/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// Runs `program` over inputs of `shapes` (values in [lo, hi]) fused and unfused and
// compares the results.
void Check(const std::string& text, const std::vector<Shape>& shapes, double lo = -2, double hi = 2) {
  SCOPED_TRACE(text);
  auto program = ops::ParseElementwiseProgram(text, static_cast<int>(shapes.size()));
  ASSERT_TRUE(program.ok()) << program.status();
  std::mt19937 rng(7);
  Graph fused, unfused;
  Feeds feeds;
  std::vector<OutputRef> fused_inputs, unfused_inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = absl::StrCat("x", i);
    fused_inputs.push_back({AddPlaceholder(fused, name, DType::kFloat32, shapes[i]), 0});
    unfused_inputs.push_back({AddPlaceholder(unfused, name, DType::kFloat32, shapes[i]), 0});
    feeds.emplace_back(name, Random<float>(shapes[i], rng, lo, hi));
  }
  ASSERT_TRUE(fused.AddNode({.name = "out", .op = "FusedElementwise", .inputs = fused_inputs,
                             .attrs = {{"program", text}}}).ok());
  std::vector<OutputRef> temps;
  for (size_t j = 0; j < program->instrs.size(); ++j) {
    const ops::EwInstr& instr = program->instrs[j];
    NodeSpec spec{.name = j + 1 == program->instrs.size() ? "out" : absl::StrCat("t", j),
                  .op = std::string(ops::EwOpName(instr.op))};
    for (size_t k = 0; k < instr.operands.size(); ++k) {
      const ops::EwOperand& o = instr.operands[k];
      switch (o.kind) {
        case ops::EwOperand::Kind::kInput: spec.inputs.push_back(unfused_inputs[o.index]); break;
        case ops::EwOperand::Kind::kTemp: spec.inputs.push_back(temps[o.index]); break;
        case ops::EwOperand::Kind::kConst: {
          auto c = unfused.AddNode({.name = absl::StrCat("c", j, "_", k), .op = "Const",
                                    .attrs = {{"value", Tensor::Scalar<float>(o.value)}}});
          ASSERT_TRUE(c.ok()) << c.status();
          spec.inputs.push_back({*c, 0});
          break;
        }
      }
    }
    auto node = unfused.AddNode(std::move(spec));
    ASSERT_TRUE(node.ok()) << node.status();
    temps.push_back({*node, 0});
  }
  auto want = RunGraph(unfused, feeds, {"out"});
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = RunGraph(fused, feeds, {"out"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].shape(), (*want)[0].shape());
  // oneDNN's exp / log / tanh / logistic (the unfused kernels on large tensors) are
  // a few ulp off; fast_math.h is within ~1.5 ulp (the test below).
  ExpectClose((*got)[0], ToDouble((*want)[0]), 1e-5, 1e-6);
}

const std::vector<Shape> kShapes = {Shape({0}),     Shape({3, 0, 2}), Shape({}),         Shape({1}),
                                    Shape({7}),     Shape({1024}),    Shape({33, 65}),   Shape({2, 1500}),
                                    Shape({70001}), Shape({4, 64, 1030})};

TEST(FusedElementwiseTest, MatchesTheUnfusedOpsOnManyShapes) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.ToString());
    Check("Mul x0 x1; Add t0 #1; Tanh t1; Mul t2 #0.5", {s, s});
    Check("Neg x0; Sigmoid t0; Mul t0 t1; Relu t2; Sub t3 x1", {s, s});
    Check("Maximum x0 #-0.5; Minimum t0 #0.75; Div t1 x1; Add t2 x0", {s, s}, 0.5, 3);
    Check("Sub x0 x1; Square t0; Mul t1 x2; Exp t2", {s, Shape({}), s});  // a runtime scalar
  }
}

TEST(FusedElementwiseTest, EveryOpMatches) {
  const Shape s({3, 700});
  Check("Abs x0; Sqrt t0; Rsqrt t0; Add t1 t2; Reciprocal t3", {s}, -4, 4);
  Check("Exp x0; Log t0; Neg t1; Sub t2 #1; Sigmoid t3; Tanh t4", {s}, -20, 20);
  Check("Log x0; Tanh t0; Div #1 t1; Maximum t2 #-3; Minimum #3 t3", {s}, 1e-3, 1e3);
  Check("Exp x0; Sigmoid x0; Tanh x0", {s}, -90, 90);
  Check("Mul x0 #0.70710677; Erf t0; Add t1 #1; Mul x0 t2; Mul t3 #0.5", {s}, -6, 6);  // GELU
  Check("Add x0 x0; Mul t0 t0", {Shape({})});  // scalars only
}

TEST(FusedElementwiseTest, FastMathMatchesTheLibraryOnSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {0.f, -0.f, 1e-40f, -1e-40f, 1e-7f, 0.3f, -0.3f, 0.625f, 1.f, -1.f, 10.f,
                                 -10.f, 80.f, 88.7f, 89.f, -87.f, -100.f, -104.f, -110.f, 1e30f, inf, -inf, nan};
  Tensor x = Make<float>(Shape({static_cast<int64_t>(xs.size())}), xs);
  struct Fn {
    const char* op;
    double (*ref)(double);
  };
  for (Fn f : {Fn{"Exp", [](double v) { return std::exp(v); }}, Fn{"Log", [](double v) { return std::log(v); }},
               Fn{"Tanh", [](double v) { return std::tanh(v); }},
               Fn{"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
               Fn{"Erf", [](double v) { return std::erf(v); }}}) {
    SCOPED_TRACE(f.op);
    auto got = RunOp("FusedElementwise", {x}, {{"program", absl::StrCat(f.op, " x0")}});
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<double> want;
    for (float v : xs) {
      double r = f.ref(v);
      // float32 results: overflow to inf.
      if (std::abs(r) > std::numeric_limits<float>::max()) r = r > 0 ? inf : -inf;
      want.push_back(r);
    }
    ExpectClose(*got, want, 3e-7, 1e-37);  // results below float's normal range may flush to 0
  }
}

// fast_math::Erf, fused and as the Erf op, within 3 ulp of the exact value over a
// dense sweep of [-5, 5] (both of its polynomial pieces and the saturated tail).
TEST(FusedElementwiseTest, ErfIsWithinThreeUlpOnASweep) {
  std::vector<float> xs;
  for (int i = -200000; i <= 200000; ++i) xs.push_back(static_cast<float>(i) * 2.5e-5f);
  Tensor x = Make<float>(Shape({static_cast<int64_t>(xs.size())}), xs);
  for (const auto& [op, attrs] : {std::pair<std::string, AttrMap>{"FusedElementwise", {{"program", "Erf x0"}}},
                                  std::pair<std::string, AttrMap>{"Erf", {}}}) {
    SCOPED_TRACE(op);
    auto got = RunOp(op, {x}, attrs);
    ASSERT_TRUE(got.ok()) << got.status();
    const float* y = got->data<float>();
    double worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = std::erf(static_cast<double>(xs[i]));
      const float w = static_cast<float>(want);
      const double ulp = std::nextafter(std::abs(w), std::numeric_limits<float>::infinity()) - std::abs(w);
      worst = std::max(worst, std::abs(y[i] - want) / ulp);
    }
    EXPECT_LE(worst, 3.0);
  }
}

TEST(FusedElementwiseTest, ChannelBroadcastInputsMatchTheUnfusedOps) {
  // A batch norm after a concat (x - mean) * scale + offset, then Relu, with [C, 1, 1]
  // and [1, C, 1, 1] operands (runs of H*W), channels-last [C] (period C), [W] and
  // [H, W] trailing blocks, [N, C, 1, 1] (a squeeze-excite scale per image and channel)
  // and [1, 1, 1] (one value): across block boundaries and OpenMP-split sizes.
  const char* bn = "Sub x0 x1; Mul t0 x2; Add t1 x3; Relu t2";
  for (const Shape& out : {Shape({2, 7, 9, 11}), Shape({1, 3, 1, 1}), Shape({2, 16, 128, 128})}) {
    SCOPED_TRACE(out.ToString());
    const int64_t c = out.dim(1);
    Check(bn, {out, Shape({c, 1, 1}), Shape({1, c, 1, 1}), Shape({c, 1, 1})});
    Check("Mul x0 x1; Sigmoid t0", {out, Shape({out.dim(0), c, 1, 1})});
    Check("Mul x1 x0; Add t0 x2", {out, Shape({out.dim(3)}), Shape({out.dim(2), out.dim(3)})});
    Check("Sub x1 x0", {out, Shape({1, 1, 1})});
  }
  const Shape nhwc({2, 9, 11, 7});
  Check(bn, {nhwc, Shape({7}), Shape({1, 1, 7}), Shape({7})});
  // Channels-last operands of one count make blocks a multiple of it, spread once per
  // thread: counts that do not divide the block, above it, split across threads, and
  // above four blocks (spread per block again).
  for (const Shape& out : {Shape({1, 56, 56, 96}), Shape({1, 30, 30, 1500}), Shape({1, 2, 3, 4097}),
                           Shape({3, 5, 1024})}) {
    SCOPED_TRACE(out.ToString());
    const int64_t c = out.dim(out.rank() - 1);
    Check(bn, {out, Shape({c}), Shape({1, 1, c}), Shape({c})});
  }
}

TEST(FusedElementwiseTest, RejectsBadProgramsAndShapes) {
  Graph g;
  const Node* a = AddPlaceholder(g, "a", DType::kFloat32, PartialShape(std::vector<int64_t>{2, 3}));
  const Node* b = AddPlaceholder(g, "b", DType::kFloat32, PartialShape(std::vector<int64_t>{4}));
  const Node* c = AddPlaceholder(g, "c", DType::kFloat32, PartialShape(std::vector<int64_t>{2, 3, 4}));
  const Node* gap = AddPlaceholder(g, "gap", DType::kFloat32, PartialShape(std::vector<int64_t>{2, 1, 4}));
  const Node* u = AddPlaceholder(g, "u", DType::kFloat32, PartialShape(std::vector<int64_t>{-1, 3}));
  const Node* i = AddPlaceholder(g, "i", DType::kInt32, PartialShape(std::vector<int64_t>{2, 3}));
  auto add = [&](std::vector<OutputRef> in, std::string program) {
    return g.AddNode({.name = "f", .op = "FusedElementwise", .inputs = std::move(in), .attrs = {{"program", program}}})
        .status();
  };
  EXPECT_THAT(add({{a, 0}, {b, 0}}, "Add x0 x1").message(), HasSubstr("reach the output by a channel broadcast"));
  EXPECT_THAT(add({{c, 0}, {gap, 0}}, "Add x0 x1").message(),
              HasSubstr("does not reach the output's [2,3,4] by a channel broadcast"));
  EXPECT_THAT(add({{u, 0}, {b, 0}}, "Add x0 x1").message(), HasSubstr("reach the output by a channel broadcast"));
  EXPECT_THAT(add({{i, 0}}, "Neg x0").message(), HasSubstr("expected float32"));
  EXPECT_THAT(add({{a, 0}}, "Neg x1").message(), HasSubstr("not an input"));
  EXPECT_THAT(add({{a, 0}}, "Neg t0").message(), HasSubstr("not an earlier result"));
  EXPECT_THAT(add({{a, 0}}, "Cosh x0").message(), HasSubstr("unknown op"));
  EXPECT_THAT(add({{a, 0}}, "Add x0").message(), HasSubstr("takes 2 operand(s)"));
  EXPECT_THAT(add({{a, 0}}, "").message(), HasSubstr("empty program"));
  EXPECT_TRUE(add({{a, 0}}, "Add x0 #-inf; Mul t0 #nan").ok());
}

}  // namespace
}  // namespace graphd::executor::test
