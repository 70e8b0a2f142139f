// What the GPU device claims (GpuSupports over the kernel table, which is
// GpuDevice::SupportsOp). Registration does not touch the GPU, so this runs on every
// machine built with CUDA, GPU or not: placement decisions are checked here even
// where the kernels themselves cannot run.
#include <list>

#include "executor/gpu/gpu_kernels.h"
#include "gtest/gtest.h"
#include "tests/conformance/cpu/test_util.h"

namespace graphd::executor::gpu {
namespace {

using test::AddPlaceholder;

class GpuSupportTest : public ::testing::Test {
 protected:
  GpuSupportTest() { RegisterGpuKernels(table_, nullptr); }

  // Whether the GPU claims node "n" = op(placeholders of `inputs`) with `attrs`.
  bool Supports(const std::string& op, const std::vector<std::pair<DType, PartialShape>>& inputs, AttrMap attrs = {}) {
    Graph& g = graphs_.emplace_back();
    NodeSpec spec{.name = "n", .op = op, .attrs = std::move(attrs)};
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Node* p = AddPlaceholder(g, "in" + std::to_string(i), inputs[i].first, inputs[i].second);
      if (p == nullptr) return false;
      spec.inputs.push_back({p, 0});
    }
    StatusOr<const Node*> n = g.AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() && GpuSupports(table_, **n);
  }

  GpuKernelTable table_;
  std::list<Graph> graphs_;
};

PartialShape P(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }
constexpr DType kF = DType::kFloat32;

TEST_F(GpuSupportTest, Elementwise) {
  EXPECT_TRUE(Supports("Add", {{kF, P({2, 3})}, {kF, P({3})}}));
  EXPECT_TRUE(Supports("Div", {{kF, P({2})}, {kF, P({2})}}));
  // Integer division stays on the CPU, which reports zero divisors and lowest / -1.
  EXPECT_FALSE(Supports("Div", {{DType::kInt64, P({2})}, {DType::kInt64, P({2})}}));
  EXPECT_FALSE(Supports("Div", {{DType::kInt32, P({2})}, {DType::kInt32, P({2})}}));
  EXPECT_TRUE(Supports("Sub", {{DType::kInt64, P({2})}, {DType::kInt64, P({2})}}));
  EXPECT_FALSE(Supports("Add", {{DType::kFloat64, P({2})}, {DType::kFloat64, P({2})}}));
  EXPECT_FALSE(Supports("Add", {{kF, PartialShape::UnknownRank()}, {kF, P({2})}}));
  EXPECT_FALSE(Supports("Add", {{kF, P({1, 1, 1, 1, 1, 1, 1, 1, 2})}, {kF, P({2})}}));  // rank 9
  EXPECT_TRUE(Supports("Pow", {{kF, P({2})}, {kF, P({2})}}));
  EXPECT_FALSE(Supports("Pow", {{DType::kInt32, P({2})}, {DType::kInt32, P({2})}}));
  EXPECT_FALSE(Supports("FloorMod", {{kF, P({2})}, {kF, P({2})}}));
  EXPECT_TRUE(Supports("Relu", {{kF, P({2})}}));
  EXPECT_FALSE(Supports("Relu", {{DType::kFloat64, P({2})}}));
  EXPECT_TRUE(Supports("Abs", {{DType::kInt32, P({2})}}));
  EXPECT_FALSE(Supports("Exp", {{DType::kFloat64, P({2})}}));
  EXPECT_TRUE(Supports("Floor", {{kF, P({2})}}));
  EXPECT_TRUE(Supports("Sign", {{DType::kInt64, P({2})}}));
  EXPECT_TRUE(Supports("Gelu", {{kF, P({2})}}, {{"approximate", true}}));
  EXPECT_FALSE(Supports("Atan", {{kF, P({2})}}));
  EXPECT_TRUE(Supports("Cast", {{DType::kBool, P({2})}}, {{"DstT", DType::kFloat32}}));
  EXPECT_TRUE(Supports("Cast", {{kF, P({2})}}, {{"DstT", DType::kInt64}}));
  EXPECT_FALSE(Supports("Cast", {{DType::kFloat64, P({2})}}, {{"DstT", DType::kFloat32}}));
  EXPECT_FALSE(Supports("Cast", {{kF, P({2})}}, {{"DstT", DType::kFloat16}}));
  EXPECT_FALSE(Supports("Cast", {{kF, P({2})}}, {{"DstT", DType::kString}}));
}

TEST_F(GpuSupportTest, FusedElementwise) {
  EXPECT_TRUE(
      Supports("FusedElementwise", {{kF, P({2, 3})}, {kF, P({})}}, {{"program", std::string("Mul x0 x1; Relu t0")}}));
  std::string long_program = "Neg x0";
  for (int i = 0; i < 64; ++i) long_program += "; Neg t" + std::to_string(i);  // 65 instructions
  EXPECT_FALSE(Supports("FusedElementwise", {{kF, P({2})}}, {{"program", long_program}}));
}

TEST_F(GpuSupportTest, DataMovement) {
  EXPECT_TRUE(Supports("Identity", {{DType::kUInt8, P({2})}}));
  EXPECT_TRUE(Supports("Reshape", {{DType::kInt64, P({2, 3})}}, {{"shape", IntList{-1}}}));
  EXPECT_TRUE(Supports("Squeeze", {{kF, P({1, 3})}}));
  EXPECT_TRUE(Supports("ExpandDims", {{DType::kBool, P({3})}}, {{"axis", int64_t{0}}}));
  EXPECT_FALSE(Supports("Identity", {{DType::kString, P({2})}}));
  EXPECT_FALSE(Supports("Placeholder", {}, {{"dtype", kF}}));
  EXPECT_TRUE(Supports("Transpose", {{DType::kFloat16, P({2, 3})}}, {{"perm", IntList{1, 0}}}));
  EXPECT_FALSE(Supports("Transpose", {{DType::kString, P({2, 3})}}, {{"perm", IntList{1, 0}}}));
  EXPECT_TRUE(Supports("Slice", {{DType::kBool, P({2, 3})}}, {{"begin", IntList{0, 1}}, {"size", IntList{2, 2}}}));
  EXPECT_TRUE(Supports("StridedSlice", {{kF, P({4, 5})}},
                       {{"begin", IntList{1}}, {"end", IntList{3}}, {"strides", IntList{-1}}}));
  EXPECT_TRUE(Supports("ConcatV2", {{DType::kInt64, P({2, 3})}, {DType::kInt64, P({1, 3})}}, {{"axis", int64_t{0}}}));
  EXPECT_FALSE(Supports("ConcatV2", {{DType::kString, P({2})}, {DType::kString, P({1})}}, {{"axis", int64_t{0}}}));
}

TEST_F(GpuSupportTest, MatMul) {
  EXPECT_TRUE(Supports("MatMul", {{kF, P({2, 3})}, {kF, P({3, 4})}}, {{"transpose_a", false}}));
  EXPECT_TRUE(Supports("MatMul", {{kF, P({2, 3})}, {kF, P({3, 4})}, {kF, P({4})}},
                       {{"activation", std::string("Clip")}, {"clip_min", 0.f}, {"clip_max", 6.f}}));
  EXPECT_FALSE(Supports("MatMul", {{DType::kInt32, P({2, 3})}, {DType::kInt32, P({3, 4})}}));
  EXPECT_TRUE(Supports("BatchMatMulV2", {{kF, P({5, 2, 3})}, {kF, P({3, 4})}}));
  EXPECT_FALSE(Supports("BatchMatMulV2", {{DType::kFloat64, P({5, 2, 3})}, {DType::kFloat64, P({3, 4})}}));
}

TEST_F(GpuSupportTest, ConvAndPools) {
  const std::pair<DType, PartialShape> x{kF, P({1, 3, 8, 8})}, w{kF, P({4, 3, 3, 3})};
  EXPECT_TRUE(Supports("ConvND", {x, w}, {{"pads", IntList{1, 1, 1, 1}}, {"activation", std::string("Relu")}}));
  EXPECT_TRUE(Supports("ConvND", {x, w, {kF, P({4})}, {kF, P({1, 4, 6, 6})}}, {{"residual", true}}));
  EXPECT_TRUE(Supports("ConvND", {{kF, P({1, 3, 8})}, {kF, P({4, 3, 3})}}));
  EXPECT_FALSE(Supports("ConvND", {x, w}, {{"pads", IntList{0, 0, 1, 1}}}));
  EXPECT_FALSE(Supports("ConvND", {{kF, P({1, 8, 8, 3})}, w}, {{"channels_last", true}}));
  EXPECT_FALSE(Supports("ConvND", {{DType::kFloat64, P({1, 3, 8, 8})}, {DType::kFloat64, P({4, 3, 3, 3})}}));
  EXPECT_FALSE(Supports("ConvTransposeND", {{kF, P({1, 3, 8, 8})}, {kF, P({3, 4, 3, 3})}}));
  const AttrMap same = {{"padding", std::string("SAME")}, {"strides", IntList{1, 1, 1, 1}}};
  EXPECT_TRUE(Supports("Conv2D", {{kF, P({1, 8, 8, 3})}, {kF, P({3, 3, 3, 4})}}, same));
  EXPECT_FALSE(Supports("Conv2D", {{kF, P({1, 8, 8, 3})}, {kF, P({2, 2, 3, 4})}}, same));   // pads 0 / 1
  EXPECT_FALSE(Supports("Conv2D", {{kF, P({1, -1, 8, 3})}, {kF, P({3, 3, 3, 4})}}, same));  // height unknown
  EXPECT_TRUE(
      Supports("MaxPool", {{kF, P({1, 8, 8, 3})}},
               {{"padding", std::string("VALID")}, {"strides", IntList{1, 2, 2, 1}}, {"ksize", IntList{1, 2, 2, 1}}}));
  EXPECT_FALSE(
      Supports("AvgPool", {{kF, P({1, 7, 7, 3})}},  // SAME pads 0 before, 1 after
               {{"padding", std::string("SAME")}, {"strides", IntList{1, 2, 2, 1}}, {"ksize", IntList{1, 2, 2, 1}}}));
  const AttrMap pool = {{"kernel_shape", IntList{2, 2}}, {"strides", IntList{2, 2}}};
  EXPECT_TRUE(Supports("MaxPoolND", {x}, pool));
  EXPECT_TRUE(Supports("AvgPoolND", {x}, pool));
  AttrMap ceil = pool;
  ceil["ceil_mode"] = true;
  EXPECT_FALSE(Supports("MaxPoolND", {x}, ceil));
  AttrMap indices = pool;
  indices["indices"] = true;
  EXPECT_FALSE(Supports("MaxPoolND", {x}, indices));
  EXPECT_FALSE(Supports("MaxPoolND", {{DType::kInt32, P({1, 3, 8, 8})}}, pool));
}

TEST_F(GpuSupportTest, NnOps) {
  EXPECT_TRUE(Supports("Softmax", {{kF, P({2, 5})}}));
  EXPECT_TRUE(Supports("LogSoftmax", {{kF, P({2, 5})}}));
  EXPECT_FALSE(Supports("LogSoftmax", {{DType::kFloat64, P({2, 5})}}));
  EXPECT_TRUE(Supports("BiasAdd", {{kF, P({2, 3, 5})}, {kF, P({3})}}, {{"data_format", std::string("NCHW")}}));
  EXPECT_FALSE(Supports("BiasAdd", {{DType::kInt32, P({2, 3})}, {DType::kInt32, P({3})}}));
  EXPECT_TRUE(Supports("Mean", {{kF, P({2, 3, 4, 4})}}, {{"axis", IntList{2, 3}}, {"keep_dims", true}}));
  EXPECT_FALSE(Supports("Mean", {{DType::kInt32, P({2, 3})}}));
  EXPECT_TRUE(Supports("Sum", {{kF, P({2, 3})}}));
  EXPECT_TRUE(Supports("Max", {{kF, P({2, 3})}}, {{"axis", int64_t{1}}}));
  EXPECT_FALSE(Supports("Prod", {{kF, P({2, 3})}}));
  EXPECT_FALSE(Supports("Sum", {{DType::kInt64, P({2, 3})}}));
}

}  // namespace
}  // namespace graphd::executor::gpu
