// MatMul with a bias input, a fused activation and constant (prepacked) weights, as the
// matmul_fusion pass writes it, checked against reference loops: float32 (oneDNN, one
// thread and a team) and float64 (loops), runtime and Const weights, and the type
// checks of the op.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "executor/cpu/packed_weights.h"
#include "executor/cpu/team.h"
#include "tests/conformance/cpu/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

struct Fused {
  bool ta = false, tb = false;
  bool bias = false, bias_row = false;  // bias [n], or [1, n] when bias_row
  std::string activation;               // "", "Relu", "Clip", "Gelu"
  float lo = -0.5f, hi = 0.75f;
};

std::vector<double> Reference(const Tensor& a, const Tensor& b, const Tensor* bias, const Fused& f) {
  std::vector<double> va = ToDouble(a), vb = ToDouble(b), vc;
  if (bias != nullptr) vc = ToDouble(*bias);
  const int64_t m = a.shape().dim(f.ta ? 1 : 0), k = a.shape().dim(f.ta ? 0 : 1);
  const int64_t n = b.shape().dim(f.tb ? 0 : 1);
  std::vector<double> out(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += va[f.ta ? p * m + i : i * k + p] * vb[f.tb ? j * k + p : p * n + j];
      if (bias != nullptr) acc += vc[j];
      if (f.activation == "Relu") acc = std::max(acc, 0.0);
      if (f.activation == "Clip") acc = std::clamp(acc, double{f.lo}, double{f.hi});
      if (f.activation == "Gelu") acc = 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0)));
      out[i * n + j] = acc;
    }
  }
  return out;
}

AttrMap Attrs(const Fused& f, bool constant_weights) {
  AttrMap attrs{{"transpose_a", f.ta}, {"transpose_b", f.tb}};
  if (!f.activation.empty()) attrs["activation"] = f.activation;
  if (f.activation == "Clip") {
    attrs["clip_min"] = f.lo;
    attrs["clip_max"] = f.hi;
  }
  if (constant_weights) attrs["constant_weights"] = true;
  return attrs;
}

// Runs MatMul(a, b[, bias]) for each row count in `ms`, with b a Const when
// `constant_weights`, and checks every result.
template <typename T>
void Check(int64_t k, int64_t n, const std::vector<int64_t>& ms, const Fused& f, bool constant_weights, double tol) {
  SCOPED_TRACE(absl::StrCat(DTypeName(DTypeOf<T>::value), " k=", k, " n=", n, " ta=", f.ta, " tb=", f.tb,
                            " bias=", f.bias, " act=", f.activation, " const=", constant_weights));
  std::mt19937 rng(11);
  const DType dt = DTypeOf<T>::value;
  Tensor bv = Random<T>(f.tb ? Shape({n, k}) : Shape({k, n}), rng);
  Tensor cv = Random<T>(f.bias_row ? Shape({1, n}) : Shape({n}), rng);
  Graph g;
  const Node* a = AddPlaceholder(g, "a", dt, f.ta ? PartialShape(std::vector<int64_t>{k, -1}) : PartialShape(std::vector<int64_t>{-1, k}));
  const Node* b = constant_weights ? *g.AddNode({.name = "b", .op = "Const", .attrs = {{"value", bv}}})
                                   : AddPlaceholder(g, "b", dt, bv.shape());
  std::vector<OutputRef> inputs{{a, 0}, {b, 0}};
  if (f.bias) inputs.push_back({AddPlaceholder(g, "c", dt, cv.shape()), 0});
  auto mm = g.AddNode({.name = "mm", .op = "MatMul", .inputs = inputs, .attrs = Attrs(f, constant_weights)});
  ASSERT_TRUE(mm.ok()) << mm.status();
  for (int64_t m : ms) {
    Tensor av = Random<T>(f.ta ? Shape({k, m}) : Shape({m, k}), rng);
    Feeds feeds{{"a", av}};
    if (!constant_weights) feeds.emplace_back("b", bv);
    if (f.bias) feeds.emplace_back("c", cv);
    auto out = RunGraph(g, feeds, {"mm"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape({m, n}));
    ExpectClose((*out)[0], Reference(av, bv, f.bias ? &cv : nullptr, f), tol, tol);
  }
}

TEST(MatMulFusedTest, BiasAndActivationsMatchTheReference) {
  for (bool constant_weights : {false, true}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (const char* act : {"", "Relu", "Clip"}) {
          Fused f{.ta = ta, .tb = tb, .bias = true, .bias_row = tb, .activation = act};
          Check<float>(7, 5, {1, 3, 1}, f, constant_weights, 1e-5);
          Check<double>(7, 5, {2}, f, constant_weights, 1e-12);
        }
      }
    }
  }
  Check<float>(9, 4, {2}, Fused{.activation = "Relu"}, true, 1e-5);  // an activation, no bias
}

TEST(MatMulFusedTest, ProductsSplitByRowsWithTheHelperThreadMatchTheReference) {
  // 16..17 x 256 x 512: split between the calling and the helper thread (an odd row
  // count gives halves of 9 and 8 rows); 2 rows are not split.
  for (bool constant_weights : {false, true}) {
    Check<float>(256, 512, {16, 17, 2, 16}, Fused{.tb = true, .bias = true, .activation = "Relu"}, constant_weights,
                 1e-3);
  }
}

TEST(MatMulFusedTest, FewRowProductsSplitByColumnsMatchTheReference) {
  // 1..32 rows x 256 x 512 (and odd widths): split by columns, each half with its own
  // packed block of b; b plain and transposed, with a bias (offset per half) and an
  // activation. 300 columns split at 160, 40 are too narrow to split.
  for (bool constant_weights : {false, true}) {
    for (bool tb : {false, true}) {
      const Fused f{.tb = tb, .bias = true, .activation = "Relu"};
      Check<float>(256, 512, {1, 4, 32, 1}, f, constant_weights, 1e-3);
      Check<float>(300, 300, {1, 3}, f, constant_weights, 1e-3);
      Check<float>(2048, 40, {1}, f, constant_weights, 1e-3);
    }
  }
}

TEST(MatMulFusedTest, SplitProductsOnTheSingleTeamMatchTheReference) {
  // In single-team mode the leading thread runs the row and column halves on the
  // OpenMP team, one block per thread, instead of with the helper thread.
  cpu::SetSingleTeam(true);
  struct Restore {
    ~Restore() { cpu::SetSingleTeam(false); }  // also when a check returns early
  } restore;
  {
    cpu::TeamScope lead(/*lead=*/true);
    for (bool constant_weights : {false, true}) {
      for (bool tb : {false, true}) {
        const Fused f{.tb = tb, .bias = true, .activation = "Gelu"};
        Check<float>(256, 512, {16, 17, 4, 1}, f, constant_weights, 1e-3);  // rows; columns; one row
        Check<float>(300, 300, {3}, f, constant_weights, 1e-3);              // columns split at 160
      }
    }
  }
}

TEST(MatMulFusedTest, GeluMatchesTheReferenceOnEveryPath) {
  // The exact GELU (matmul_fusion's, from gelu_fusion): oneDNN's gelu_erf post-op on the
  // primitive's paths (one thread, the helper's row and column halves, the team), the
  // kernel's own erf on gemv.h's and double's loops. Inputs of [-1, 1) make outputs of
  // both signs, where GELU is curved.
  for (bool constant_weights : {false, true}) {
    const Fused f{.tb = true, .bias = true, .activation = "Gelu"};
    Check<float>(7, 5, {1, 3}, f, constant_weights, 1e-5);
    Check<double>(7, 5, {2}, f, constant_weights, 1e-12);
    Check<float>(256, 512, {1, 4, 17}, f, constant_weights, 1e-3);
    Check<float>(256, 130, {300}, f, constant_weights, 1e-3);
  }
  Check<float>(577, 1023, {1}, Fused{.tb = true, .bias = true, .activation = "Gelu"}, true, 1e-3);  // gemv
}

TEST(MatMulFusedTest, LargeProductsWithPackedWeightsMatchTheReference) {
  // 300 x 256 x 130 is past the one-thread limit: the primitive uses the OpenMP team.
  Check<float>(256, 130, {1, 16, 300}, Fused{.tb = true, .bias = true, .activation = "Relu"}, true, 1e-3);
}

// The plan of a * w^T with w a Const (constant_weights), built in `g` (which the plan
// refers to): `a` is [?, w's columns].
StatusOr<std::unique_ptr<const Plan>> ConstantWeightsPlan(Graph& g, const Tensor& w) {
  const Node* a = AddPlaceholder(g, "a", DType::kFloat32, PartialShape(std::vector<int64_t>{-1, w.shape().dim(1)}));
  const Node* b = *g.AddNode({.name = "w", .op = "Const", .attrs = {{"value", w}}});
  RETURN_IF_ERROR(g.AddNode({.name = "mm", .op = "MatMul", .inputs = {{a, 0}, {b, 0}},
                             .attrs = {{"transpose_b", true}, {"constant_weights", true}}})
                      .status());
  const std::vector<std::string> feeds{"a"}, fetches{"mm"}, targets;
  ASSIGN_OR_RETURN(auto spec, compiler::Prune(g, feeds, fetches, targets));
  return Plan::Build(spec, Device());
}

TEST(MatMulFusedTest, OneRowAgainstLargeConstantWeightsMatchesTheReference) {
  // k x n of 512K elements and more: one row runs gemv.h's loops over the weights as
  // they are, in OpenMP column blocks; several rows, or fewer weights, the packed
  // primitive. Odd widths leave remainders at every level.
  for (bool tb : {false, true}) {
    for (const char* act : {"", "Relu", "Clip"}) {
      const Fused f{.tb = tb, .bias = true, .bias_row = tb, .activation = act, .lo = -1.f, .hi = 2.f};
      Check<float>(1024, 1027, {1, 2, 1}, f, true, 1e-3);
    }
    Check<float>(4099, 2051, {1}, Fused{.tb = tb}, true, 1e-3);
    Check<float>(577, 1023, {1}, Fused{.tb = tb, .bias = true, .bias_row = tb}, true, 1e-3);  // just past 512K
    Check<float>(511, 1025, {1}, Fused{.tb = tb, .bias = true, .bias_row = tb}, true, 1e-3);  // just below: packed
    Check<float>(1031, 1021, {1}, Fused{.tb = tb, .activation = "Relu"}, false, 1e-3);  // not a Const: oneDNN
  }
}

TEST(MatMulFusedTest, OneRowAgainstLargeConstantWeightsPacksNothing) {
  const cpu::PackedWeightsStats before = cpu::GetPackedWeightsStats();
  std::mt19937 rng(7);
  Tensor w = Random<float>(Shape({1024, 1030}), rng);
  Graph g;
  auto plan = ConstantWeightsPlan(g, w);
  ASSERT_TRUE(plan.ok()) << plan.status();
  Tensor av = Random<float>(Shape({1, 1030}), rng);
  CancellationToken token;
  auto out = Execute(**plan, {av}, {.cancellation = &token});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose((*out)[0], Reference(av, w, nullptr, Fused{.tb = true}), 1e-3, 1e-3);
  EXPECT_EQ(cpu::GetPackedWeightsStats().bytes, before.bytes);
}

TEST(MatMulFusedTest, ConstantWeightsArePackedOnceWhileThePlanLives) {
  const cpu::PackedWeightsStats before = cpu::GetPackedWeightsStats();
  std::mt19937 rng(5);
  Tensor w = Random<float>(Shape({64, 32}), rng);
  Graph g;
  auto plan = ConstantWeightsPlan(g, w);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (int64_t m : {2, 2, 5}) {
    Tensor av = Random<float>(Shape({m, 32}), rng);
    CancellationToken token;
    auto out = Execute(**plan, {av}, {.cancellation = &token});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose((*out)[0], Reference(av, w, nullptr, Fused{.tb = true}), 1e-5, 1e-5);
    EXPECT_GT(cpu::GetPackedWeightsStats().entries, before.entries);
  }
  plan->reset();
  EXPECT_EQ(cpu::GetPackedWeightsStats().entries, before.entries);
}

TEST(MatMulFusedTest, ConstantWeightsMustComeFromAConst) {
  Graph g;
  const Node* a = AddPlaceholder(g, "a", DType::kFloat32, PartialShape(std::vector<int64_t>{2, 3}));
  const Node* b = AddPlaceholder(g, "b", DType::kFloat32, PartialShape(std::vector<int64_t>{3, 4}));
  ASSERT_TRUE(g.AddNode({.name = "mm", .op = "MatMul", .inputs = {{a, 0}, {b, 0}},
                         .attrs = {{"constant_weights", true}}})
                  .ok());
  std::mt19937 rng(1);
  auto out = RunGraph(g, {{"a", Random<float>(Shape({2, 3}), rng)}, {"b", Random<float>(Shape({3, 4}), rng)}},
                      {"mm"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("constant_weights is set but input 1 comes from Placeholder"));
}

TEST(MatMulFusedTest, TypeChecksRejectBadBiasesAndActivations) {
  Graph g;
  const Node* a = AddPlaceholder(g, "a", DType::kFloat32, PartialShape(std::vector<int64_t>{2, 3}));
  const Node* b = AddPlaceholder(g, "b", DType::kFloat32, PartialShape(std::vector<int64_t>{3, 4}));
  const Node* col = AddPlaceholder(g, "col", DType::kFloat32, PartialShape(std::vector<int64_t>{4, 1}));
  const Node* short_bias = AddPlaceholder(g, "short", DType::kFloat32, PartialShape(std::vector<int64_t>{3}));
  const Node* i = AddPlaceholder(g, "i", DType::kInt32, PartialShape(std::vector<int64_t>{2, 2}));
  const Node* ib = AddPlaceholder(g, "ib", DType::kInt32, PartialShape(std::vector<int64_t>{2}));
  auto add = [&](std::vector<OutputRef> inputs, AttrMap attrs = {}) {
    return g.AddNode({.name = "mm", .op = "MatMul", .inputs = std::move(inputs), .attrs = std::move(attrs)}).status();
  };
  EXPECT_THAT(add({{a, 0}, {b, 0}, {col, 0}}).message(), HasSubstr("bias must have shape [4] or [1, 4]"));
  EXPECT_THAT(add({{a, 0}, {b, 0}, {short_bias, 0}}).message(), HasSubstr("bias must have shape [4]"));
  EXPECT_THAT(add({{a, 0}, {b, 0}}, {{"activation", std::string("Tanh")}}).message(),
              HasSubstr("unknown activation 'Tanh'"));
  EXPECT_THAT(add({{a, 0}, {b, 0}}, {{"activation", std::string("Clip")}, {"clip_min", 1.f}, {"clip_max", 0.f}})
                  .message(),
              HasSubstr("clip_min 1 exceeds clip_max 0"));
  EXPECT_THAT(add({{i, 0}, {i, 0}, {ib, 0}}).message(), HasSubstr("a bias or activation needs float32 or float64"));
  EXPECT_THAT(add({{a, 0}, {b, 0}, {short_bias, 0}, {short_bias, 0}}).message(), HasSubstr("expected 2 or 3 inputs"));
}

// One Const used by two MatMuls with constant_weights: a * W and a * W^T (tied
// weights). Both kernels ask the packed-weights cache for the same buffer and target
// layout, from different plain layouts: each gets its own copy.
TEST(MatMulFusedTest, OneConstReadPlainAndTransposedByTwoMatMuls) {
  std::mt19937 rng(5);
  const int64_t k = 64, m = 4;
  Tensor w = Random<float>(Shape({k, k}), rng), av = Random<float>(Shape({m, k}), rng);
  Graph g;
  const Node* a = AddPlaceholder(g, "a", DType::kFloat32, Shape({m, k}));
  const Node* wc = *g.AddNode({.name = "w", .op = "Const", .attrs = {{"value", w}}});
  ASSERT_TRUE(g.AddNode({.name = "plain", .op = "MatMul", .inputs = {{a, 0}, {wc, 0}},
                         .attrs = {{"constant_weights", true}}})
                  .ok());
  ASSERT_TRUE(g.AddNode({.name = "transposed", .op = "MatMul", .inputs = {{a, 0}, {wc, 0}},
                         .attrs = {{"transpose_b", true}, {"constant_weights", true}}})
                  .ok());
  auto out = RunGraph(g, {{"a", av}}, {"plain", "transposed"});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want_plain(m * k), want_t(m * k);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      double p = 0, t = 0;
      for (int64_t q = 0; q < k; ++q) {
        p += double(av.data<float>()[i * k + q]) * w.data<float>()[q * k + j];
        t += double(av.data<float>()[i * k + q]) * w.data<float>()[j * k + q];
      }
      want_plain[i * k + j] = p;
      want_t[i * k + j] = t;
    }
  {
    SCOPED_TRACE("a * W");
    ExpectClose((*out)[0], want_plain, 1e-4, 1e-4);
  }
  {
    SCOPED_TRACE("a * W^T");
    ExpectClose((*out)[1], want_t, 1e-4, 1e-4);
  }
}

}  // namespace
}  // namespace graphd::executor::test
