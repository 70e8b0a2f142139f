// GPU kernel conformance for the NN ops (ConvND and the pools on cuDNN, Softmax,
// LogSoftmax, BiasAdd, Sum/Mean/Max/Min)
// against the CPU kernels, as gpu_kernels_test.cc. Convolutions sum up to a few hundred
// products, so they get an absolute slack of 1e-4 besides 1e-4 relative. Nodes the GPU
// refuses (channels_last, asymmetric pads, ceil_mode) are checked to run correctly on
// the CPU fallback inside a GPU plan. Skips, saying why, where there is no GPU.
#include "tests/conformance/gpu/gpu_test_util.h"

namespace graphd::executor::test {
namespace {

Shape S(std::initializer_list<int64_t> dims) { return Shape(dims); }

struct ConvCase {
  Shape x, w;
  AttrMap attrs;
};

TEST(GpuNnKernelsTest, ConvND) {
  std::mt19937 rng(11);
  const std::vector<ConvCase> cases = {
      {S({2, 3, 8, 8}), S({4, 3, 3, 3}), {{"pads", IntList{1, 1, 1, 1}}}},
      {S({2, 3, 9, 7}), S({5, 3, 3, 2}), {{"strides", IntList{2, 1}}}},
      {S({1, 2, 11, 11}), S({3, 2, 3, 3}), {{"dilations", IntList{2, 2}}, {"pads", IntList{2, 1, 2, 1}}}},
      {S({1, 6, 7, 7}), S({6, 2, 3, 3}), {{"group", int64_t{3}}, {"pads", IntList{1, 1, 1, 1}}}},
      {S({1, 4, 6, 6}), S({4, 1, 3, 3}), {{"group", int64_t{4}}}},  // depthwise
      {S({2, 16, 14, 14}), S({32, 16, 1, 1}), {}},
      {S({2, 3, 10}), S({4, 3, 3}), {{"pads", IntList{1, 1}}, {"strides", IntList{2}}}},  // 1-D
      {S({1, 2, 4, 5, 6}), S({3, 2, 2, 2, 2}), {{"pads", IntList{1, 0, 1, 1, 0, 1}}}},    // 3-D
      {S({0, 3, 5, 5}), S({2, 3, 3, 3}), {}},                                             // empty batch
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.x.ToString() + " * " + c.w.ToString());
    Tensor x = Random<float>(c.x, rng), w = Random<float>(c.w, rng);
    ExpectOpMatches("ConvND", {x, w}, c.attrs, 1e-4, 1e-4);
    Tensor bias = Random<float>(S({c.w.dim(0)}), rng);
    AttrMap attrs = c.attrs;
    ExpectOpMatches("ConvND", {x, w, bias}, attrs, 1e-4, 1e-4);
    attrs["activation"] = std::string("Relu");
    ExpectOpMatches("ConvND", {x, w, bias}, attrs, 1e-4, 1e-4);
    attrs["activation"] = std::string("Clip");
    attrs["clip_min"] = 0.f;
    attrs["clip_max"] = 6.f;
    ExpectOpMatches("ConvND", {x, w}, attrs, 1e-4, 1e-4);
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

// y = relu(conv(x, w) + bias + r), the conv_add_fusion form.
TEST(GpuNnKernelsTest, ConvNDResidual) {
  std::mt19937 rng(12);
  Tensor x = Random<float>(S({2, 4, 6, 6}), rng), w = Random<float>(S({8, 4, 3, 3}), rng);
  Tensor bias = Random<float>(S({8}), rng), r = Random<float>(S({2, 8, 6, 6}), rng);
  AttrMap attrs = {{"pads", IntList{1, 1, 1, 1}}, {"residual", true}, {"activation", std::string("Relu")}};
  ExpectOpMatches("ConvND", {x, w, bias, r}, attrs, 1e-4, 1e-4);
  attrs.erase("activation");
  ExpectOpMatches("ConvND", {x, w, r}, attrs, 1e-4, 1e-4);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuNnKernelsTest, ConvNDTheGpuRefusesRunsOnTheCpu) {
  std::mt19937 rng(13);
  Tensor x = Random<float>(S({1, 3, 6, 6}), rng), w = Random<float>(S({2, 3, 2, 2}), rng);
  // Asymmetric pads (ONNX SAME_UPPER with an even kernel).
  ExpectOpMatches("ConvND", {x, w}, {{"pads", IntList{0, 0, 1, 1}}}, 1e-4, 1e-4, /*expect_on_gpu=*/false);
  // channels_last: x is [N, H, W, C].
  Tensor xl = Random<float>(S({1, 6, 6, 3}), rng);
  ExpectOpMatches("ConvND", {xl, w}, {{"channels_last", true}}, 1e-4, 1e-4, /*expect_on_gpu=*/false);
  Graph g;
  const Node* p = AddPlaceholder(g, "x", DType::kFloat32, S({1, 3, 6, 6}));
  const Node* f = AddPlaceholder(g, "w", DType::kFloat32, S({2, 3, 2, 2}));
  const Node* conv =
      g.AddNode({.name = "c", .op = "ConvND", .inputs = {{p, 0}, {f, 0}}, .attrs = {{"pads", IntList{0, 0, 1, 1}}}})
          .value();
  EXPECT_NE(GpuClaims(*conv), std::optional<bool>(true));
  GRAPHD_SKIP_WITHOUT_GPU();
}

// TensorFlow's NHWC ops (run as permuted channels-first cuDNN ops).
TEST(GpuNnKernelsTest, Conv2DAndPoolsNhwc) {
  std::mt19937 rng(19);
  const AttrMap same = {{"padding", std::string("SAME")}, {"strides", IntList{1, 1, 1, 1}}};
  ExpectOpMatches("Conv2D", {Random<float>(S({2, 9, 9, 3}), rng), Random<float>(S({3, 3, 3, 5}), rng)}, same, 1e-4,
                  1e-4);
  ExpectOpMatches("Conv2D", {Random<float>(S({1, 9, 8, 4}), rng), Random<float>(S({3, 1, 4, 2}), rng)},
                  {{"padding", std::string("VALID")}, {"strides", IntList{1, 2, 3, 1}}}, 1e-4, 1e-4);
  ExpectOpMatches(
      "Conv2D", {Random<float>(S({1, 11, 11, 2}), rng), Random<float>(S({3, 3, 2, 2}), rng)},
      {{"padding", std::string("SAME")}, {"strides", IntList{1, 1, 1, 1}}, {"dilations", IntList{1, 2, 2, 1}}}, 1e-4,
      1e-4);
  ExpectOpMatches("Conv2D", {Random<float>(S({1, 6, 6, 3}), rng), Random<float>(S({3, 3, 3, 4}), rng)},
                  {{"padding", std::string("EXPLICIT")},
                   {"strides", IntList{1, 1, 1, 1}},
                   {"explicit_paddings", IntList{0, 0, 2, 2, 1, 1, 0, 0}}},
                  1e-4, 1e-4);
  // SAME with an even kernel pads one side more: the CPU runs it.
  ExpectOpMatches("Conv2D", {Random<float>(S({1, 8, 8, 3}), rng), Random<float>(S({2, 2, 3, 4}), rng)}, same, 1e-4,
                  1e-4, /*expect_on_gpu=*/false);
  const AttrMap pool = {
      {"padding", std::string("VALID")}, {"strides", IntList{1, 2, 2, 1}}, {"ksize", IntList{1, 2, 2, 1}}};
  const AttrMap pool_same = {
      {"padding", std::string("SAME")}, {"strides", IntList{1, 1, 1, 1}}, {"ksize", IntList{1, 3, 3, 1}}};
  for (const AttrMap* attrs : {&pool, &pool_same}) {
    Tensor x = Random<float>(S({2, 8, 8, 3}), rng, -5, 5);
    ExpectOpMatches("MaxPool", {x}, *attrs, 0, 0);
    ExpectOpMatches("AvgPool", {x}, *attrs, 1e-5, 1e-6);
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

// A Const filter is permuted once per kernel: later runs of the same plan reuse it.
TEST(GpuNnKernelsTest, Conv2DConstFilterAcrossRuns) {
  std::mt19937 rng(20);
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, S({1, 7, 7, 3}));
  const Node* f =
      g.AddNode({.name = "f", .op = "Const", .attrs = {{"value", Random<float>(S({3, 3, 3, 4}), rng)}}}).value();
  ASSERT_TRUE(g.AddNode({.name = "out",
                         .op = "Conv2D",
                         .inputs = {{x, 0}, {f, 0}},
                         .attrs = {{"padding", std::string("SAME")}, {"strides", IntList{1, 1, 1, 1}}}})
                  .ok());
  std::vector<Tensor> inputs = {Random<float>(S({1, 7, 7, 3}), rng), Random<float>(S({1, 7, 7, 3}), rng)};
  ExpectGpuMatchesCpu(g, {{"x", inputs[0]}}, {"out"}, 1e-4, 1e-4);
  GRAPHD_SKIP_WITHOUT_GPU();
  const std::vector<std::string> feeds = {"x"}, fetches = {"out"};
  StatusOr<ExecutionSpec> spec = compiler::Prune(g, feeds, fetches, {});
  ASSERT_TRUE(spec.ok()) << spec.status();
  StatusOr<std::unique_ptr<const Plan>> plan = Plan::Build(*spec, *Gpu().device);
  ASSERT_TRUE(plan.ok()) << plan.status();
  for (const Tensor& in : inputs) {
    StatusOr<std::vector<Tensor>> want = RunGraph(g, {{"x", in}}, {"out"});
    ASSERT_TRUE(want.ok()) << want.status();
    VariableStore vars;
    CancellationToken token;
    StatusOr<std::vector<Tensor>> got = Execute(**plan, {in}, {.variables = &vars, .cancellation = &token});
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectSameResult((*got)[0], (*want)[0], 1e-4, 1e-4);
  }
}

TEST(GpuNnKernelsTest, Pools) {
  std::mt19937 rng(14);
  const std::vector<std::pair<Shape, AttrMap>> cases = {
      {S({2, 3, 8, 8}), {{"kernel_shape", IntList{2, 2}}, {"strides", IntList{2, 2}}}},
      {S({1, 4, 7, 9}), {{"kernel_shape", IntList{3, 3}}, {"pads", IntList{1, 1, 1, 1}}}},
      {S({1, 2, 9, 9}), {{"kernel_shape", IntList{3, 2}}, {"strides", IntList{2, 3}}, {"pads", IntList{1, 0, 1, 0}}}},
      {S({2, 3, 10}), {{"kernel_shape", IntList{3}}, {"strides", IntList{2}}}},
      {S({1, 2, 4, 6, 6}), {{"kernel_shape", IntList{2, 2, 2}}, {"strides", IntList{2, 2, 2}}}},
      {S({0, 2, 4, 4}), {{"kernel_shape", IntList{2, 2}}}},
  };
  for (const auto& [shape, attrs] : cases) {
    SCOPED_TRACE(shape.ToString());
    Tensor x = Random<float>(shape, rng, -5, 5);
    ExpectOpMatches("MaxPoolND", {x}, attrs, 0, 0);
    ExpectOpMatches("AvgPoolND", {x}, attrs, 1e-5, 1e-6);
    AttrMap include = attrs;
    include["count_include_pad"] = true;
    ExpectOpMatches("AvgPoolND", {x}, include, 1e-5, 1e-6);
  }
  // ceil_mode: the CPU runs it.
  ExpectOpMatches("MaxPoolND", {Random<float>(S({1, 1, 5, 5}), rng)},
                  {{"kernel_shape", IntList{2, 2}}, {"strides", IntList{2, 2}}, {"ceil_mode", true}}, 0, 0,
                  /*expect_on_gpu=*/false);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuNnKernelsTest, Softmax) {
  std::mt19937 rng(15);
  for (const Shape& s : {S({5}), S({3, 7}), S({2, 3, 1000}), S({0, 4}), S({4, 1}), S({2, 70000})}) {
    SCOPED_TRACE(s.ToString());
    ExpectOpMatches("Softmax", {Random<float>(s, rng, -20, 20)}, {}, 1e-4, 1e-7);
    ExpectOpMatches("LogSoftmax", {Random<float>(s, rng, -20, 20)}, {}, 1e-4, 1e-5);
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuNnKernelsTest, BiasAdd) {
  std::mt19937 rng(17);
  ExpectOpMatches("BiasAdd", {Random<float>(S({2, 3, 4, 5}), rng), Random<float>(S({5}), rng)}, {}, 1e-6, 0);
  ExpectOpMatches("BiasAdd", {Random<float>(S({2, 3, 4, 5}), rng), Random<float>(S({3}), rng)},
                  {{"data_format", std::string("NCHW")}}, 1e-6, 0);
  ExpectOpMatches("BiasAdd", {Random<float>(S({7, 3}), rng), Random<float>(S({3}), rng)}, {}, 1e-6, 0);
  ExpectOpMatches("BiasAdd", {Random<float>(S({0, 3}), rng), Random<float>(S({3}), rng)}, {}, 1e-6, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuNnKernelsTest, Reductions) {
  std::mt19937 rng(16);
  Tensor x = Random<float>(S({2, 3, 4, 5}), rng);
  for (const char* op : {"Mean", "Sum", "Max", "Min"}) {
    SCOPED_TRACE(op);
    ExpectOpMatches(op, {x}, {{"axis", IntList{2, 3}}, {"keep_dims", true}}, 1e-4, 1e-6);  // global pool
    ExpectOpMatches(op, {x}, {{"axis", IntList{2, 3}}}, 1e-4, 1e-6);
    ExpectOpMatches(op, {x}, {{"axis", int64_t{-1}}}, 1e-4, 1e-6);
    ExpectOpMatches(op, {x}, {{"axis", IntList{0, 2}}}, 1e-4, 1e-6);
    ExpectOpMatches(op, {x}, {}, 1e-4, 1e-6);
    ExpectOpMatches(op, {Random<float>(S({0, 3}), rng)}, {{"axis", IntList{1}}}, 1e-4, 1e-6);
    ExpectOpMatches(op, {Random<float>(S({0, 3}), rng)}, {{"axis", IntList{0}}}, 1e-4, 1e-6);  // empty reduction
    ExpectOpMatches(op, {Random<float>(S({4, 20000}), rng)}, {{"axis", IntList{1}}}, 1e-4, 1e-4);
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

}  // namespace
}  // namespace graphd::executor::test
