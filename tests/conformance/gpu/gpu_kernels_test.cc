// GPU kernel conformance: each GPU kernel against the CPU kernel (the reference
// semantics) on random inputs of several shapes, empty and broadcast ones included,
// through RunGraphOn(GPU) vs RunGraph (CPU). float32 within 1e-4 relative (plus a small
// absolute slack for sums that cancel); integers and bools exactly. Each case also
// expects the GPU to claim the node, so it is the GPU kernel that is compared. Skips,
// saying why, where there is no GPU.
#include "tests/conformance/gpu/gpu_test_util.h"

namespace graphd::executor::test {
namespace {

Shape S(std::initializer_list<int64_t> dims) { return Shape(dims); }

Tensor RandomOf(DType dtype, const Shape& shape, std::mt19937& rng, double lo = -3, double hi = 3) {
  switch (dtype) {
    case DType::kInt32:
      return Random<int32_t>(shape, rng, lo * 10, hi * 10);
    case DType::kInt64:
      return Random<int64_t>(shape, rng, lo * 10, hi * 10);
    default:
      return Random<float>(shape, rng, lo, hi);
  }
}

// Avoids zeros (divisors) and near-ties.
Tensor Divisor(DType dtype, const Shape& shape, std::mt19937& rng) {
  Tensor t = RandomOf(dtype, shape, rng, 1, 3);
  return t;
}

const std::vector<std::pair<Shape, Shape>> kBroadcastCases = {
    {S({2, 3}), S({2, 3})}, {S({2, 3}), S({3})},    {S({4, 1, 5}), S({3, 1})},
    {S({}), S({2, 2})},     {S({0, 3}), S({3})},    {S({2, 0}), S({1, 1})},
    {S({7, 1}), S({1, 9})}, {S({1000}), S({1000})}, {S({2, 1, 3, 1, 2, 1, 2, 1}), S({1, 2, 1, 3, 1, 2, 1, 2})}};

TEST(GpuKernelsTest, Binary) {
  std::mt19937 rng(1);
  for (const auto& [a, b] : kBroadcastCases) {
    ExpectOpMatches("Pow", {Random<float>(a, rng, 0.1, 3), Random<float>(b, rng, -3, 3)});
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}) {
    for (DType dtype : {DType::kFloat32, DType::kInt32, DType::kInt64}) {
      for (const auto& [a, b] : kBroadcastCases) {
        SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + a.ToString() + " " + b.ToString());
        Tensor x = RandomOf(dtype, a, rng);
        Tensor y = std::string(op) == "Div" ? Divisor(dtype, b, rng) : RandomOf(dtype, b, rng);
        // Integer Div runs on the CPU, which reports zero divisors (elementwise_kernels.cc).
        const bool on_gpu = std::string(op) != "Div" || dtype == DType::kFloat32;
        ExpectOpMatches(op, {x, y}, {}, 1e-4, 1e-6, on_gpu);
        if (std::string(op) != "Div") ExpectOpMatches(op, {y, x});  // x may hold zeros
      }
    }
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, Unary) {
  std::mt19937 rng(2);
  const std::vector<Shape> shapes = {S({7}), S({3, 4, 5}), S({0, 2}), S({}), S({100000})};
  for (const char* op : {"Relu", "Relu6", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Square", "Sign", "Floor", "Ceil",
                         "Round", "Erf", "Sin", "Cos", "Gelu"}) {
    for (const Shape& s : shapes) ExpectOpMatches(op, {Random<float>(s, rng, -8, 8)}, {}, 1e-4, 1e-6);
  }
  for (const Shape& s : shapes) {
    ExpectOpMatches("Gelu", {Random<float>(s, rng, -8, 8)}, {{"approximate", true}}, 1e-4, 1e-6);
    ExpectOpMatches("Reciprocal", {Random<float>(s, rng, 0.1, 8)});
    // Round: halves round to even.
    Tensor halves = Random<float>(s, rng, -8, 8);
    for (float& v : halves.flat<float>()) v = std::round(v) + 0.5f;
    ExpectOpMatches("Round", {halves}, {}, 0, 0);
  }
  for (const char* op : {"Log", "Sqrt", "Rsqrt"}) {
    for (const Shape& s : shapes) ExpectOpMatches(op, {Random<float>(s, rng, 0.01, 50)});
  }
  for (const char* op : {"Neg", "Abs", "Square", "Sign"}) {
    for (const Shape& s : shapes) {
      ExpectOpMatches(op, {Random<int32_t>(s, rng, -1000, 1000)});
      ExpectOpMatches(op, {Random<int64_t>(s, rng, -100000, 100000)});
    }
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, Cast) {
  std::mt19937 rng(3);
  const DType types[] = {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kBool};
  for (DType src : types) {
    for (DType dst : types) {
      for (const Shape& s : {S({5, 6}), S({0}), S({})}) {
        SCOPED_TRACE(std::string(DTypeName(src)) + " -> " + std::string(DTypeName(dst)));
        Tensor x =
            src == DType::kBool ? MakeBool(s, std::vector<int>(s.num_elements(), 1)) : RandomOf(src, s, rng, -100, 100);
        if (src == DType::kBool) {
          for (int64_t i = 0; i < s.num_elements(); ++i) x.data<bool>()[i] = rng() % 2;
        }
        if (src == DType::kFloat32) {  // some exact zeros too
          for (int64_t i = 0; i < s.num_elements(); i += 3) x.data<float>()[i] = 0;
        }
        ExpectOpMatches("Cast", {x}, {{"DstT", dst}}, 0, 0);
      }
    }
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, ViewsAndIdentity) {
  std::mt19937 rng(4);
  for (DType dtype : {DType::kFloat32, DType::kInt64, DType::kInt32}) {
    Tensor x = RandomOf(dtype, S({2, 1, 3, 1}), rng);
    ExpectOpMatches("Identity", {x}, {}, 0, 0);
    ExpectOpMatches("Reshape", {x}, {{"shape", IntList{3, -1}}}, 0, 0);
    ExpectOpMatches("Reshape", {x}, {{"shape", IntList{6}}}, 0, 0);
    ExpectOpMatches("Squeeze", {x}, {}, 0, 0);
    ExpectOpMatches("Squeeze", {x}, {{"squeeze_dims", IntList{-1}}}, 0, 0);
    ExpectOpMatches("ExpandDims", {x}, {{"axis", int64_t{-1}}}, 0, 0);
    ExpectOpMatches("ExpandDims", {x}, {{"axis", int64_t{0}}}, 0, 0);
    ExpectOpMatches("Reshape", {RandomOf(dtype, S({0, 4}), rng)}, {{"shape", IntList{4, 0}}}, 0, 0);
  }
  ExpectOpMatches("Identity", {MakeBool(S({3}), {1, 0, 1})}, {}, 0, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, ConstUploadedOnce) {
  std::mt19937 rng(5);
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{3, 4}));
  const Node* c = g.AddNode({.name = "c", .op = "Const", .attrs = {{"value", Random<float>(S({4}), rng)}}}).value();
  const Node* ci =
      g.AddNode({.name = "ci", .op = "Const", .attrs = {{"value", Random<int64_t>(S({2}), rng, -9, 9)}}}).value();
  ASSERT_TRUE(g.AddNode({.name = "out", .op = "Mul", .inputs = {{x, 0}, {c, 0}}}).ok());
  EXPECT_NE(GpuClaims(*c), std::optional<bool>(false));
  EXPECT_NE(GpuClaims(*ci), std::optional<bool>(false));
  ExpectGpuMatchesCpu(g, {{"x", Random<float>(S({3, 4}), rng)}}, {"out", "c", "ci"}, 1e-6, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, Transpose) {
  std::mt19937 rng(8);
  ExpectOpMatches("Transpose", {Random<float>(S({2, 3, 4, 5}), rng)}, {{"perm", IntList{0, 2, 3, 1}}}, 0, 0);
  ExpectOpMatches("Transpose", {Random<float>(S({2, 3, 4, 5}), rng)}, {{"perm", IntList{0, 3, 1, 2}}}, 0, 0);
  ExpectOpMatches("Transpose", {Random<int64_t>(S({7, 9}), rng, -99, 99)}, {}, 0, 0);  // no perm: reversed
  ExpectOpMatches("Transpose", {MakeBool(S({2, 3}), {1, 0, 0, 1, 1, 0})}, {{"perm", IntList{1, 0}}}, 0, 0);
  ExpectOpMatches("Transpose", {Random<int32_t>(S({0, 3}), rng)}, {{"perm", IntList{1, 0}}}, 0, 0);
  ExpectOpMatches("Transpose", {Random<float>(S({}), rng)}, {{"perm", IntList{}}}, 0, 0);
  ExpectOpMatches("Transpose", {Random<float>(S({2, 1, 2, 1, 2, 1, 2, 3}), rng)},
                  {{"perm", IntList{7, 6, 5, 4, 3, 2, 1, 0}}}, 0, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, BroadcastTo) {
  std::mt19937 rng(18);
  ExpectOpMatches("BroadcastTo", {Random<float>(S({3, 1}), rng)}, {{"shape", IntList{2, 3, 4}}}, 0, 0);
  ExpectOpMatches("BroadcastTo", {Random<int64_t>(S({}), rng, -9, 9)}, {{"shape", IntList{5}}}, 0, 0);
  ExpectOpMatches("BroadcastTo", {MakeBool(S({1, 2}), {1, 0})}, {{"shape", IntList{3, 2}}}, 0, 0);
  ExpectOpMatches("BroadcastTo", {Random<float>(S({2, 1}), rng)}, {{"shape", IntList{2, 0}}}, 0, 0);
  ExpectOpMatches("BroadcastTo", {Random<int32_t>(S({4}), rng)}, {{"shape", IntList{4}}}, 0, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, Slices) {
  std::mt19937 rng(22);
  const Tensor x = Random<float>(S({4, 5, 6}), rng);
  const Tensor xi = Random<int64_t>(S({4, 5, 6}), rng, -99, 99);
  ExpectOpMatches("Slice", {x}, {{"begin", IntList{1, 0, 2}}, {"size", IntList{2, -1, 3}}}, 0, 0);
  ExpectOpMatches("Slice", {xi}, {{"begin", IntList{0, 5, 0}}, {"size", IntList{4, 0, 6}}}, 0, 0);  // empty
  ExpectOpMatches("Slice", {xi}, {{"begin", IntList{0, 0, 0}}, {"size", IntList{-1, -1, -1}}}, 0, 0);
  auto strided = [](IntList begin, IntList end, IntList strides, int64_t begin_mask, int64_t end_mask,
                    int64_t shrink = 0, int64_t new_axis = 0, int64_t ellipsis = 0) {
    return AttrMap{{"begin", begin},
                   {"end", end},
                   {"strides", strides},
                   {"begin_mask", begin_mask},
                   {"end_mask", end_mask},
                   {"shrink_axis_mask", shrink},
                   {"new_axis_mask", new_axis},
                   {"ellipsis_mask", ellipsis}};
  };
  ExpectOpMatches("StridedSlice", {x}, strided({1, 0, 0}, {3, 0, 0}, {1, 2, -1}, 0b110, 0b110), 0,
                  0);                                                               // x[1:3, ::2, ::-1]
  ExpectOpMatches("StridedSlice", {xi}, strided({-1}, {0}, {1}, 0, 0, 0b1), 0, 0);  // x[-1]
  ExpectOpMatches("StridedSlice", {x},
                  strided({1, 0, 0, 3}, {0, 0, 0, 4}, {1, 1, 2, 1}, 0b0110, 0b0111, 0b1000, 0b0010), 0,
                  0);  // x[1:, None, ::2, 3]
  ExpectOpMatches("StridedSlice", {x}, strided({0, 1}, {0, 2}, {1, 1}, 0, 0, 0b10, 0, 0b01), 0, 0);  // x[..., 1]
  ExpectOpMatches("StridedSlice", {xi}, strided({3, 4, 5}, {0, 0, 0}, {-2, -3, -2}, 0, 0b111), 0, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, ConcatV2) {
  std::mt19937 rng(9);
  ExpectOpMatches("ConcatV2",
                  {Random<float>(S({2, 3, 4}), rng), Random<float>(S({2, 1, 4}), rng), Random<float>(S({2, 0, 4}), rng),
                   Random<float>(S({2, 5, 4}), rng)},
                  {{"axis", int64_t{1}}}, 0, 0);
  ExpectOpMatches("ConcatV2", {Random<int64_t>(S({2, 3}), rng), Random<int64_t>(S({4, 3}), rng)},
                  {{"axis", int64_t{0}}}, 0, 0);
  ExpectOpMatches("ConcatV2", {Random<int32_t>(S({2, 3}), rng), Random<int32_t>(S({2, 2}), rng)},
                  {{"axis", int64_t{-1}}}, 0, 0);
  ExpectOpMatches("ConcatV2", {Random<float>(S({0, 3}), rng), Random<float>(S({0, 2}), rng)}, {{"axis", int64_t{1}}}, 0,
                  0);
  ExpectOpMatches("ConcatV2", {Random<float>(S({3}), rng)}, {{"axis", int64_t{0}}}, 0, 0);
  GRAPHD_SKIP_WITHOUT_GPU();
}

// FusedElementwise (the elementwise_fusion pass's op): programs over every instruction.
TEST(GpuKernelsTest, FusedElementwise) {
  std::mt19937 rng(10);
  const std::vector<std::pair<std::string, int>> programs = {
      {"Mul x0 x1; Add t0 #1; Tanh t1; Mul t2 #0.5", 2},
      {"Sub x0 x1; Abs t0; Add t1 #0.25; Log t2; Neg t3; Exp t4; Sqrt t5; Rsqrt t6; Reciprocal t7; Square t8", 2},
      {"Maximum x0 x1; Minimum t0 x2; Sigmoid t1; Relu x0; Div t2 #3; Add t3 t4", 3},
      {"Relu x0", 1},
  };
  for (const auto& [program, inputs] : programs) {
    for (const Shape& shape : {S({3, 4, 5}), S({0, 7}), S({100000})}) {
      SCOPED_TRACE(program + " " + shape.ToString());
      std::vector<Tensor> in;
      for (int i = 0; i < inputs; ++i) {
        // The last input of a 3-input program is a scalar (broadcast to every element).
        in.push_back(Random<float>(i == 2 ? S({}) : shape, rng, -2, 2));
      }
      ExpectOpMatches("FusedElementwise", in, {{"program", program}}, 1e-4, 1e-6);
    }
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

struct MatMulCase {
  int64_t m, k, n;
};

TEST(GpuKernelsTest, MatMul) {
  std::mt19937 rng(6);
  for (const MatMulCase& c :
       std::vector<MatMulCase>{{1, 1, 1}, {3, 4, 5}, {64, 128, 32}, {0, 4, 5}, {3, 0, 5}, {3, 4, 0}, {257, 33, 129}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(absl::StrCat(c.m, "x", c.k, "x", c.n, " ta=", ta, " tb=", tb));
        Tensor a = Random<float>(ta ? S({c.k, c.m}) : S({c.m, c.k}), rng);
        Tensor b = Random<float>(tb ? S({c.n, c.k}) : S({c.k, c.n}), rng);
        AttrMap attrs = {{"transpose_a", ta}, {"transpose_b", tb}};
        ExpectOpMatches("MatMul", {a, b}, attrs, 1e-4, 1e-5);
        Tensor bias = Random<float>(S({c.n}), rng);
        ExpectOpMatches("MatMul", {a, b, bias}, attrs, 1e-4, 1e-5);
        attrs["activation"] = std::string("Relu");
        ExpectOpMatches("MatMul", {a, b, bias}, attrs, 1e-4, 1e-5);
        attrs["activation"] = std::string("Clip");
        attrs["clip_min"] = -0.5f;
        attrs["clip_max"] = 0.75f;
        ExpectOpMatches("MatMul", {a, b}, attrs, 1e-4, 1e-5);
      }
    }
  }
  GRAPHD_SKIP_WITHOUT_GPU();
}

TEST(GpuKernelsTest, BatchMatMul) {
  std::mt19937 rng(7);
  const std::vector<std::pair<Shape, Shape>> cases = {{S({2, 3, 4}), S({2, 4, 5})}, {S({2, 3, 4}), S({4, 5})},
                                                      {S({3, 4}), S({6, 4, 5})},    {S({2, 1, 3, 4}), S({1, 3, 4, 5})},
                                                      {S({0, 3, 4}), S({0, 4, 5})}, {S({5, 3, 0}), S({5, 0, 2})}};
  for (const auto& [xs, ys] : cases) {
    ExpectOpMatches("BatchMatMulV2", {Random<float>(xs, rng), Random<float>(ys, rng)}, {}, 1e-4, 1e-5);
  }
  // Adjoints: x stored [.., K, M], y stored [.., N, K].
  ExpectOpMatches("BatchMatMulV2", {Random<float>(S({2, 4, 3}), rng), Random<float>(S({2, 5, 4}), rng)},
                  {{"adj_x", true}, {"adj_y", true}}, 1e-4, 1e-5);
  GRAPHD_SKIP_WITHOUT_GPU();
}

}  // namespace
}  // namespace graphd::executor::test
