// A small CNN in the form the ONNX importer and the passes produce (conv + bias + Relu
// fused, a residual conv, max pooling, global average pooling as Mean, a fused
// elementwise tail, a MatMul with bias, Softmax) runs entirely on the GPU: every node
// is claimed (checked without a GPU too), the plan copies only the feed in and the
// fetch out, and the result matches the CPU's.
#include "tests/conformance/gpu/gpu_test_util.h"

namespace graphd::executor::test {
namespace {

Shape S(std::initializer_list<int64_t> dims) { return Shape(dims); }

const Node* Add(Graph& g, NodeSpec spec) {
  StatusOr<const Node*> n = g.AddNode(std::move(spec));
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : nullptr;
}

const Node* Const(Graph& g, const std::string& name, Tensor value) {
  return Add(g, {.name = name, .op = "Const", .attrs = {{"value", std::move(value)}}});
}

TEST(GpuModelTest, SmallCnnRunsEntirelyOnTheGpu) {
  std::mt19937 rng(21);
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, S({2, 3, 16, 16}));
  const Node* w1 = Const(g, "w1", Random<float>(S({8, 3, 3, 3}), rng, -0.5, 0.5));
  const Node* b1 = Const(g, "b1", Random<float>(S({8}), rng));
  const Node* c1 = Add(
      g, {.name = "conv1",
          .op = "ConvND",
          .inputs = {{x, 0}, {w1, 0}, {b1, 0}},
          .attrs = {{"pads", IntList{1, 1, 1, 1}}, {"activation", std::string("Relu")}, {"constant_filter", true}}});
  const Node* p1 = Add(g, {.name = "pool1",
                           .op = "MaxPoolND",
                           .inputs = {{c1, 0}},
                           .attrs = {{"kernel_shape", IntList{2, 2}}, {"strides", IntList{2, 2}}}});
  const Node* w2 = Const(g, "w2", Random<float>(S({8, 8, 3, 3}), rng, -0.3, 0.3));
  const Node* c2 = Add(g, {.name = "conv2",
                           .op = "ConvND",
                           .inputs = {{p1, 0}, {w2, 0}, {p1, 0}},
                           .attrs = {{"pads", IntList{1, 1, 1, 1}},
                                     {"residual", true},
                                     {"activation", std::string("Clip")},
                                     {"clip_min", 0.f},
                                     {"clip_max", 6.f}}});
  const Node* gap = Add(g, {.name = "gap", .op = "Mean", .inputs = {{c2, 0}}, .attrs = {{"axis", IntList{2, 3}}}});
  const Node* scale = Const(g, "scale", Tensor::Scalar<float>(0.5f));
  const Node* fused = Add(g, {.name = "fused",
                              .op = "FusedElementwise",
                              .inputs = {{gap, 0}, {scale, 0}},
                              .attrs = {{"program", std::string("Mul x0 x1; Tanh t0")}}});
  const Node* wf = Const(g, "wf", Random<float>(S({8, 10}), rng));
  const Node* bf = Const(g, "bf", Random<float>(S({10}), rng));
  const Node* fc = Add(g, {.name = "fc", .op = "MatMul", .inputs = {{fused, 0}, {wf, 0}, {bf, 0}}});
  const Node* out = Add(g, {.name = "out", .op = "Softmax", .inputs = {{fc, 0}}});
  ASSERT_NE(out, nullptr);
  for (const Node* n : {w1, b1, c1, p1, w2, c2, gap, scale, fused, wf, bf, fc, out}) {
    EXPECT_NE(GpuClaims(*n), std::optional<bool>(false)) << n->name() << " (" << n->op_name() << ")";
  }
  const Tensor input = Random<float>(S({2, 3, 16, 16}), rng);
  ExpectGpuMatchesCpu(g, {{"x", input}}, {"out", "gap"}, 1e-4, 1e-5);
  GRAPHD_SKIP_WITHOUT_GPU();
  const std::vector<std::string> feeds = {"x"}, fetches = {"out"};
  StatusOr<ExecutionSpec> spec = compiler::Prune(g, feeds, fetches, {});
  ASSERT_TRUE(spec.ok()) << spec.status();
  StatusOr<std::unique_ptr<const Plan>> plan = Plan::Build(*spec, *Gpu().device);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ((*plan)->num_copies(), 2) << "the feed in and the fetch out only";
}

}  // namespace
}  // namespace graphd::executor::test
