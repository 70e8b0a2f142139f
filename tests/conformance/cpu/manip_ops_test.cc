// Transpose, ConcatV2, Pack, Unpack, Split, SplitV, Tile, ReverseV2 and Pad against
// index-mapping references, over several dtypes (strings included), empty tensors,
// negative axes, and Transpose's paths: a view, run copies, tiles, oneDNN's reorder.
#include <optional>

#include "executor/cpu/channel_interleave.h"
#include "executor/cpu/tile_transpose.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// want[i] = v[source(index of i in out_dims)] (source returns nullopt for `fill`).
std::vector<double> Gather(
    const std::vector<double>& v, const std::vector<int64_t>& in_dims,
    const std::vector<int64_t>& out_dims,
    const std::function<std::optional<std::vector<int64_t>>(std::vector<int64_t>)>& source,
    double fill = 0) {
  int64_t n = 1;
  for (int64_t d : out_dims) n *= d;
  std::vector<double> want;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<std::vector<int64_t>> src = source(Unflatten(i, out_dims));
    want.push_back(src ? v[Flatten(*src, in_dims)] : fill);
  }
  return want;
}

template <typename T>
void CheckTranspose(const Shape& shape, const std::vector<int64_t>& perm) {
  std::mt19937 rng(1);
  Tensor x = Random<T>(shape, rng, -100, 100);
  auto out = RunOp("Transpose", {x}, {{"perm", IntList(perm)}});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int64_t> out_dims;
  for (int64_t p : perm) out_dims.push_back(shape.dim(static_cast<int>(p)));
  ASSERT_EQ(out->shape(), Shape(out_dims));
  ExpectClose(*out, Gather(ToDouble(x), shape.dims(), out_dims,
                          [&](std::vector<int64_t> o) -> std::optional<std::vector<int64_t>> {
                std::vector<int64_t> src(o.size());
                for (size_t k = 0; k < o.size(); ++k) src[perm[k]] = o[k];
                return src;
              }));
}

// The strided-copy box of Transpose(x of `dims`, `perm`): output-ordered shape and
// source strides, row-major destination.
cpu::Box TransposeBox(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  std::vector<int64_t> in_strides = cpu::RowMajorStrides(dims);
  cpu::Box b;
  for (int64_t p : perm) {
    b.shape.push_back(dims[p]);
    b.src_strides.push_back(in_strides[p]);
  }
  b.dst_strides = cpu::RowMajorStrides(b.shape);
  return b;
}

TEST(ManipOpsTest, Transpose) {
  CheckTranspose<float>(Shape({2, 3}), {1, 0});
  CheckTranspose<float>(Shape({2, 3, 4}), {2, 0, 1});
  CheckTranspose<float>(Shape({32, 64, 8}), {1, 2, 0});  // oneDNN reorder
  CheckTranspose<float>(Shape({8, 16, 4, 9}), {0, 3, 1, 2});
  CheckTranspose<double>(Shape({5, 7}), {1, 0});
  CheckTranspose<int32_t>(Shape({3, 1, 4}), {1, 2, 0});
  CheckTranspose<int64_t>(Shape({0, 3}), {1, 0});
  CheckTranspose<uint8_t>(Shape({4, 5, 6}), {0, 2, 1});
  CheckTranspose<int16_t>(Shape({}), {});
  // Only size-1 axes move: the output is a view of the input's buffer.
  CheckTranspose<float>(Shape({1, 64, 256}), {1, 0, 2});
  CheckTranspose<int32_t>(Shape({3, 1, 1, 5}), {2, 0, 3, 1});
  // Trailing runs kept together: copies of runs, not a reorder.
  CheckTranspose<float>(Shape({64, 8, 32}), {1, 0, 2});
  CheckTranspose<float>(Shape({4, 5, 2, 17}), {1, 0, 2, 3});  // runs of 34
  // Strided last axes: tiles (below the reorder's size, and for other dtypes), with
  // partial tiles at the edges and outer axes walked around them.
  CheckTranspose<float>(Shape({8, 40, 37}), {0, 2, 1});
  CheckTranspose<int32_t>(Shape({64, 8, 32}), {1, 2, 0});
  CheckTranspose<int64_t>(Shape({3, 17, 2, 33}), {2, 3, 0, 1});
  CheckTranspose<uint8_t>(Shape({16, 16}), {1, 0});
  auto rev = RunOp("Transpose", {MakeStrings(Shape({2, 2}), {"a", "b", "c", "d"})});
  ASSERT_TRUE(rev.ok()) << rev.status();
  EXPECT_EQ(Strings(*rev), (std::vector<std::string>{"a", "c", "b", "d"}));
  std::vector<std::string> words;
  for (int i = 0; i < 18 * 20; ++i) words.push_back("w" + std::to_string(i));
  auto tiled = RunOp("Transpose", {MakeStrings(Shape({18, 20}), words)});  // strings through the tiles
  ASSERT_TRUE(tiled.ok()) << tiled.status();
  const std::vector<std::string> got = Strings(*tiled);
  ASSERT_EQ(got.size(), words.size());
  for (int r = 0; r < 20; ++r) {
    for (int c = 0; c < 18; ++c) EXPECT_EQ(got[r * 18 + c], words[c * 20 + r]) << r << "," << c;
  }
  EXPECT_THAT(InferError("Transpose", {TT(DType::kFloat32, {2, 3})}, {{"perm", IntList{0, 0}}}),
              HasSubstr("node 'out' (Transpose): perm [0,0] is not a permutation of 0..1"));
  EXPECT_THAT(InferError("Transpose", {TT(DType::kFloat32, {2, 3})}, {{"perm", IntList{0, 1, 2}}}),
              HasSubstr("perm [0,1,2] has 3 entries but the input [2,3] has rank 2"));
  EXPECT_THAT(InferError("Transpose", {TT(DType::kFloat32, {2, 3})}, {{"perm", IntList{0, -1}}}),
              HasSubstr("not a permutation"));
}

// Short axes (2 to 8) moved to or from the innermost position run through
// channel_interleave.h's shuffles: images to channels-last and back, with and without a
// batch, size-1 axes between, the two-thread split (from 64K elements) and 32-bit
// integers; a ninth channel and a batch that is not outermost take the other paths.
TEST(ManipOpsTest, TransposeMovesShortChannelAxes) {
  CheckTranspose<float>(Shape({1, 3, 224, 224}), {0, 2, 3, 1});
  CheckTranspose<float>(Shape({1, 224, 224, 3}), {0, 3, 1, 2});
  CheckTranspose<float>(Shape({2, 3, 5, 7}), {0, 2, 3, 1});
  CheckTranspose<float>(Shape({3, 7, 5, 8}), {0, 3, 1, 2});
  for (int64_t c = 2; c <= 9; ++c) {
    CheckTranspose<float>(Shape({1, c, 9, 11}), {0, 2, 3, 1});
    CheckTranspose<float>(Shape({2, 9, 11, c}), {0, 3, 1, 2});
  }
  CheckTranspose<int32_t>(Shape({2, 4, 33, 35}), {0, 2, 3, 1});
  CheckTranspose<int32_t>(Shape({2, 33, 35, 4}), {0, 3, 1, 2});
  CheckTranspose<float>(Shape({3, 1000}), {1, 0});
  CheckTranspose<float>(Shape({1000, 5}), {1, 0});
  CheckTranspose<float>(Shape({1, 3, 1, 50, 40}), {0, 2, 3, 4, 1});
  CheckTranspose<float>(Shape({3, 2, 50}), {2, 0, 1});
  CheckTranspose<float>(Shape({4, 50, 3}), {1, 0, 2});
  CheckTranspose<float>(Shape({50, 4, 3}), {2, 0, 1});
  CheckTranspose<float>(Shape({3, 50, 2}), {2, 1, 0});
  CheckTranspose<double>(Shape({1, 3, 8, 8}), {0, 2, 3, 1});
  // Empty tensors (an axis of 0 where the channels would be, or elsewhere).
  CheckTranspose<float>(Shape({0, 3}), {1, 0});
  CheckTranspose<float>(Shape({3, 0}), {1, 0});
  CheckTranspose<float>(Shape({1, 3, 0, 5}), {0, 2, 3, 1});
  CheckTranspose<float>(Shape({2, 0, 5, 7}), {0, 2, 3, 1});
  CheckTranspose<int32_t>(Shape({0, 5, 7, 3}), {0, 3, 1, 2});
}

// Transposes that move no run together go through tile_transpose.h's 8x8 tiles: the
// AVX2 and the portable loops give CopyBox's result bit for bit (random 32-bit
// patterns, NaNs among them), over tile edges, outer axes of any stride, the team
// split (ViT's keys) and the boxes they must refuse.
TEST(ManipOpsTest, TransposeTilesMatchTheStridedCopy) {
  std::mt19937 rng(9);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{8, 8}, {1, 0}},           {{9, 13}, {1, 0}},          {{64, 8, 32}, {1, 2, 0}},
      {{197, 12, 64}, {1, 2, 0}}, {{3, 17, 2, 33}, {2, 3, 0, 1}}, {{8, 40, 37}, {0, 2, 1}},
      {{2, 31, 3, 24}, {3, 0, 2, 1}}};
  for (const auto& [dims, perm] : cases) {
    const cpu::Box box = TransposeBox(dims, perm);
    Tensor x = Tensor::Allocate(DType::kInt32, Shape(dims)).value();
    for (int64_t i = 0; i < x.num_elements(); ++i) x.data<int32_t>()[i] = static_cast<int32_t>(rng());
    Tensor want = Tensor::Allocate(DType::kInt32, Shape(box.shape)).value();
    ASSERT_TRUE(cpu::CopyBox(x, want, box, nullptr).ok());
    for (bool portable : {false, true}) {
      SCOPED_TRACE(absl::StrCat(Shape(dims).ToString(), " perm ", absl::StrJoin(perm, ","), " portable ", portable));
      Tensor got = Tensor::Allocate(DType::kInt32, Shape(box.shape)).value();
      const std::optional<Status> done = portable ? cpu::CopyTransposedTilesPortable(x, got, box, nullptr)
                                                  : cpu::CopyTransposedTiles(x, got, box, nullptr);
      ASSERT_TRUE(done.has_value());
      ASSERT_TRUE(done->ok()) << *done;
      for (int64_t i = 0; i < want.num_elements(); ++i) {
        ASSERT_EQ(got.data<int32_t>()[i], want.data<int32_t>()[i]) << i;
      }
    }
    CheckTranspose<float>(Shape(dims), perm);  // and through the op
    CancellationToken token;
    token.Cancel();
    Tensor cancelled = Tensor::Allocate(DType::kInt32, Shape(box.shape)).value();
    const std::optional<Status> stopped = cpu::CopyTransposedTiles(x, cancelled, box, &token);
    ASSERT_TRUE(stopped.has_value());
    EXPECT_EQ(stopped->code(), absl::StatusCode::kCancelled);
  }
  auto takes = [](DType dtype, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
    const cpu::Box b = TransposeBox(dims, perm);
    Tensor src = Tensor::Allocate(dtype, Shape(dims)).value();
    Tensor dst = Tensor::Allocate(dtype, Shape(b.shape)).value();
    return cpu::CopyTransposedTiles(src, dst, b, nullptr).has_value();
  };
  EXPECT_TRUE(takes(DType::kFloat32, {197, 12, 64}, {1, 2, 0}));
  EXPECT_FALSE(takes(DType::kFloat32, {197, 12, 64}, {1, 0, 2}));  // runs of 64: not tiles
  EXPECT_FALSE(takes(DType::kFloat32, {7, 64}, {1, 0}));           // an axis under 8
  EXPECT_FALSE(takes(DType::kFloat64, {64, 64}, {1, 0}));          // 8-byte values
  EXPECT_FALSE(takes(DType::kFloat32, {0, 64}, {1, 0}));           // empty
}

// Copies of 256 KB and more are split over the team along their outermost dimension
// (strided_copy.cc): the parts together give the element-by-element reference, for
// uneven part sizes, strided rows (a slice) and a transpose's runs; a cancelled token
// stops them with its status.
TEST(ManipOpsTest, LargeStridedCopiesSplitOverTheTeam) {
  std::mt19937 rng(4);
  for (const auto& [dims, perm] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{197, 12, 64}, {1, 0, 2}}, {{3, 197, 4, 97}, {2, 1, 0, 3}}, {{1031, 70}, {0, 1}}}) {
    cpu::Box box = TransposeBox(dims, perm);
    if (perm == std::vector<int64_t>{0, 1}) {  // a slice: columns [5, 70) of rows of 75
      box.shape[1] = 65;
      box.src_strides = {75, 1};
      box.src_offset = 5;
      box.dst_strides = cpu::RowMajorStrides(box.shape);
    }
    int64_t src_size = 1, dst_size = 1;
    for (int64_t d : dims) src_size *= d;
    for (int64_t d : box.shape) dst_size *= d;
    if (box.src_offset != 0) src_size = 1031 * 75;
    Tensor x = Tensor::Allocate(DType::kInt32, Shape({src_size})).value();
    for (int64_t i = 0; i < src_size; ++i) x.data<int32_t>()[i] = static_cast<int32_t>(rng());
    Tensor got = Tensor::Allocate(DType::kInt32, Shape({dst_size})).value();
    SCOPED_TRACE(Shape(box.shape).ToString());
    ASSERT_TRUE(cpu::CopyBox(x, got, box, nullptr).ok());
    std::vector<int64_t> index(box.shape.size(), 0);
    for (int64_t i = 0; i < dst_size; ++i) {
      int64_t s = box.src_offset, left = i;
      for (int k = static_cast<int>(box.shape.size()) - 1; k >= 0; --k) {
        s += left % box.shape[k] * box.src_strides[k];
        left /= box.shape[k];
      }
      ASSERT_EQ(got.data<int32_t>()[i], x.data<int32_t>()[s]) << i;
    }
    CancellationToken token;
    token.Cancel();
    EXPECT_EQ(cpu::CopyBox(x, got, box, &token).code(), absl::StatusCode::kCancelled);
  }
}

// Which boxes the shuffles take: exactly the short-axis transposes.
TEST(ManipOpsTest, ChannelInterleaveTakesOnlyShortAxisTransposes) {
  auto takes = [&](DType dtype, const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
    const cpu::Box b = TransposeBox(dims, perm);
    Tensor src = Tensor::Allocate(dtype, Shape(dims)).value();
    Tensor dst = Tensor::Allocate(dtype, Shape(b.shape)).value();
    return cpu::CopyChannelInterleave(src, dst, b);
  };
  EXPECT_TRUE(takes(DType::kFloat32, {1, 3, 224, 224}, {0, 2, 3, 1}));
  EXPECT_TRUE(takes(DType::kFloat32, {2, 224, 224, 8}, {0, 3, 1, 2}));
  EXPECT_TRUE(takes(DType::kInt32, {1, 2, 1, 10}, {0, 2, 3, 1}));
  EXPECT_FALSE(takes(DType::kFloat32, {1, 9, 10, 10}, {0, 2, 3, 1}));   // nine channels
  EXPECT_FALSE(takes(DType::kFloat64, {1, 3, 10, 10}, {0, 2, 3, 1}));   // 8-byte elements
  EXPECT_FALSE(takes(DType::kFloat32, {4, 50, 3}, {1, 0, 2}));          // runs, not a transpose
  EXPECT_FALSE(takes(DType::kFloat32, {3, 50, 2}, {2, 1, 0}));          // batch not outermost
  EXPECT_FALSE(takes(DType::kFloat32, {3, 4, 50}, {2, 0, 1}));          // both axes long (12, 50)
  EXPECT_FALSE(takes(DType::kFloat32, {16, 16}, {1, 0}));
  EXPECT_FALSE(takes(DType::kFloat32, {9, 0}, {1, 0}));  // empty: no channels to move
}

TEST(ManipOpsTest, ConcatV2) {
  std::mt19937 rng(2);
  for (auto [shapes, axis] : std::vector<std::pair<std::vector<Shape>, int64_t>>{
           {{Shape({2, 3}), Shape({4, 3})}, 0},
           {{Shape({2, 3}), Shape({2, 1}), Shape({2, 0}), Shape({2, 5})}, -1},
           {{Shape({2, 3, 4}), Shape({2, 2, 4})}, 1},
           {{Shape({3})}, 0},
           {{Shape({0, 2}), Shape({0, 2})}, 0},
           // Large enough for the rows to be copied on the intra-op threads: channels-last
           // feature maps side by side (DenseNet), and a middle axis.
           {{Shape({1, 56, 56, 32}), Shape({1, 56, 56, 64}), Shape({1, 56, 56, 3})}, 3},
           {{Shape({40, 30, 24}), Shape({40, 12, 24})}, 1}}) {
    std::vector<Tensor> inputs;
    std::vector<std::vector<double>> values;
    for (const Shape& s : shapes) {
      inputs.push_back(Random<int64_t>(s, rng, -9, 9));
      values.push_back(ToDouble(inputs.back()));
    }
    auto out = RunOp("ConcatV2", inputs, {{"axis", axis}});
    ASSERT_TRUE(out.ok()) << out.status();
    const int rank = shapes[0].rank();
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    std::vector<int64_t> out_dims = shapes[0].dims();
    out_dims[a] = 0;
    for (const Shape& s : shapes) out_dims[a] += s.dim(a);
    ASSERT_EQ(out->shape(), Shape(out_dims));
    std::vector<double> want;
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      std::vector<int64_t> index = Unflatten(i, out_dims);
      size_t k = 0;
      while (index[a] >= shapes[k].dim(a)) index[a] -= shapes[k++].dim(a);
      want.push_back(values[k][Flatten(index, shapes[k].dims())]);
    }
    ExpectClose(*out, want);
  }
  auto strings = RunOp("ConcatV2", {MakeStrings(Shape({1}), {"x"}), MakeStrings(Shape({2}), {"y", "z"})},
                       {{"axis", int64_t{0}}});
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(Strings(*strings), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_THAT(InferError("ConcatV2", {TT(DType::kFloat32, {2, 3}), TT(DType::kFloat32, {2, 4})},
                         {{"axis", int64_t{0}}}),
              HasSubstr("node 'out' (ConcatV2): cannot concatenate input 1 of shape [2,4]: dimension 1 is 4, expected 3"));
  EXPECT_THAT(InferError("ConcatV2", {TT(DType::kFloat32, {2}), TT(DType::kFloat32, {2, 4})},
                         {{"axis", int64_t{0}}}),
              HasSubstr("different ranks"));
  EXPECT_THAT(InferError("ConcatV2", {TT(DType::kFloat32, {2}), TT(DType::kInt32, {2})},
                         {{"axis", int64_t{0}}}),
              HasSubstr("input 0 is float32 but input 1 is int32"));
  EXPECT_THAT(InferError("ConcatV2", {TT(DType::kFloat32, {2})}, {{"axis", int64_t{1}}}),
              HasSubstr("axis 1 is out of range for a tensor of rank 1"));
  EXPECT_THAT(InferError("ConcatV2", {TT(DType::kFloat32, {})}, {{"axis", int64_t{0}}}),
              HasSubstr("cannot concatenate scalars"));
  auto partial = Infer("ConcatV2", {TT(DType::kFloat32, {-1, 3}), TT(DType::kFloat32, {2, -1})},
                       {{"axis", int64_t{0}}});
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_EQ((*partial)[0].shape, PartialShape(std::vector<int64_t>{-1, 3}));
}

TEST(ManipOpsTest, PackAndUnpack) {
  std::mt19937 rng(3);
  {
    // Large enough for the rows to be copied on the intra-op threads.
    std::vector<Tensor> inputs;
    for (int i = 0; i < 3; ++i) inputs.push_back(Random<float>(Shape({200, 120}), rng));
    auto packed = RunOp("Pack", inputs, {{"axis", int64_t{1}}});
    ASSERT_TRUE(packed.ok()) << packed.status();
    ASSERT_EQ(packed->shape(), Shape({200, 3, 120}));
    std::vector<double> want;
    for (int64_t r = 0; r < 200; ++r) {
      for (int i = 0; i < 3; ++i) {
        for (int64_t c = 0; c < 120; ++c) want.push_back(inputs[i].data<float>()[r * 120 + c]);
      }
    }
    ExpectClose(*packed, want);
  }
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    std::vector<Tensor> inputs;
    for (int i = 0; i < 3; ++i) inputs.push_back(Random<float>(Shape({2, 4}), rng));
    auto packed = RunOp("Pack", inputs, {{"axis", axis}});
    ASSERT_TRUE(packed.ok()) << packed.status();
    const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
    std::vector<int64_t> dims = {2, 4};
    dims.insert(dims.begin() + a, 3);
    ASSERT_EQ(packed->shape(), Shape(dims));
    std::vector<double> want;
    for (int64_t i = 0; i < packed->num_elements(); ++i) {
      std::vector<int64_t> index = Unflatten(i, dims);
      int64_t which = index[a];
      index.erase(index.begin() + a);
      want.push_back(ToDouble(inputs[which])[Flatten(index, {2, 4})]);
    }
    ExpectClose(*packed, want);
    auto unpacked = RunOpAll("Unpack", {*packed}, {{"axis", axis}, {"num", int64_t{3}}});
    ASSERT_TRUE(unpacked.ok()) << unpacked.status();
    ASSERT_EQ(unpacked->size(), 3u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ((*unpacked)[i].shape(), Shape({2, 4}));
      ExpectClose((*unpacked)[i], ToDouble(inputs[i]));
    }
  }
  auto scalars = RunOp("Pack", {MakeStrings(Shape(), {"a"}), MakeStrings(Shape(), {"b"})});
  ASSERT_TRUE(scalars.ok()) << scalars.status();
  EXPECT_EQ(scalars->shape(), Shape({2}));
  EXPECT_EQ(Strings(*scalars), (std::vector<std::string>{"a", "b"}));
  auto no_num = RunOpAll("Unpack", {Make<int32_t>(Shape({2, 0}), {})}, {{"axis", int64_t{0}}});
  ASSERT_TRUE(no_num.ok()) << no_num.status();
  ASSERT_EQ(no_num->size(), 2u);
  EXPECT_EQ((*no_num)[1].shape(), Shape({0}));
  EXPECT_THAT(InferError("Pack", {TT(DType::kFloat32, {2}), TT(DType::kFloat32, {3})}),
              HasSubstr("node 'out' (Pack): cannot stack input 1 of shape [3]"));
  EXPECT_THAT(InferError("Pack", {TT(DType::kFloat32, {2})}, {{"axis", int64_t{2}}}),
              HasSubstr("axis 2 is out of range for a tensor of rank 2"));
  EXPECT_THAT(InferError("Unpack", {TT(DType::kFloat32, {2, 3})}, {{"num", int64_t{3}}}),
              HasSubstr("node 'out' (Unpack): num is 3 but dimension 0 of [2,3] has size 2"));
  EXPECT_THAT(InferError("Unpack", {TT(DType::kFloat32, {-1, 3})}), HasSubstr("cannot infer num"));
}

TEST(ManipOpsTest, SplitAndSplitV) {
  std::mt19937 rng(4);
  Tensor x = Random<double>(Shape({4, 6}), rng);
  auto halves = RunOpAll("Split", {x}, {{"num_split", int64_t{3}}, {"axis", int64_t{-1}}});
  ASSERT_TRUE(halves.ok()) << halves.status();
  ASSERT_EQ(halves->size(), 3u);
  std::vector<double> v = ToDouble(x);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ((*halves)[p].shape(), Shape({4, 2}));
    std::vector<double> want;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j) want.push_back(v[i * 6 + p * 2 + j]);
    ExpectClose((*halves)[p], want);
  }
  auto pieces = RunOpAll("SplitV", {x}, {{"size_splits", IntList{1, -1, 0}}, {"axis", int64_t{0}}});
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  ASSERT_EQ(pieces->size(), 3u);
  EXPECT_EQ((*pieces)[0].shape(), Shape({1, 6}));
  EXPECT_EQ((*pieces)[1].shape(), Shape({3, 6}));
  EXPECT_EQ((*pieces)[2].shape(), Shape({0, 6}));
  ExpectClose((*pieces)[1], std::vector<double>(v.begin() + 6, v.end()));
  auto strings = RunOpAll("Split", {MakeStrings(Shape({2}), {"l", "r"})}, {{"num_split", int64_t{2}}});
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(Strings((*strings)[1]), std::vector<std::string>{"r"});
  EXPECT_THAT(InferError("Split", {TT(DType::kFloat32, {5})}, {{"num_split", int64_t{2}}}),
              HasSubstr("node 'out' (Split): dimension 0 of [5] (size 5) is not divisible by num_split 2"));
  EXPECT_THAT(InferError("SplitV", {TT(DType::kFloat32, {5})}, {{"size_splits", IntList{2, 2}}}),
              HasSubstr("node 'out' (SplitV): size_splits [2,2] do not add up"));
  EXPECT_THAT(InferError("SplitV", {TT(DType::kFloat32, {5})}, {{"size_splits", IntList{-1, -1}}}),
              HasSubstr("at most one -1"));
}

template <typename T>
void CheckTile(const Shape& shape, const std::vector<int64_t>& multiples) {
  std::mt19937 rng(5);
  Tensor x = Random<T>(shape, rng, -20, 20);
  auto out = RunOp("Tile", {x}, {{"multiples", IntList(multiples)}});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int64_t> dims;
  for (int k = 0; k < shape.rank(); ++k) dims.push_back(shape.dim(k) * multiples[k]);
  ASSERT_EQ(out->shape(), Shape(dims));
  ExpectClose(*out, Gather(ToDouble(x), shape.dims(), dims,
                          [&](std::vector<int64_t> o) -> std::optional<std::vector<int64_t>> {
                for (int k = 0; k < shape.rank(); ++k) o[k] %= shape.dim(k);
                return o;
              }));
}

TEST(ManipOpsTest, Tile) {
  CheckTile<float>(Shape({2, 3}), {2, 1});
  CheckTile<int32_t>(Shape({2, 3}), {1, 3});
  CheckTile<int64_t>(Shape({2, 1, 3}), {2, 4, 2});
  CheckTile<uint8_t>(Shape({3}), {0});
  CheckTile<double>(Shape({}), {});
  auto s = RunOp("Tile", {MakeStrings(Shape({2}), {"a", "b"})}, {{"multiples", IntList{2}}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"a", "b", "a", "b"}));
  EXPECT_THAT(InferError("Tile", {TT(DType::kFloat32, {2, 3})}, {{"multiples", IntList{2}}}),
              HasSubstr("node 'out' (Tile): multiples [2] has 1 entries but the input [2,3] has rank 2"));
  EXPECT_THAT(InferError("Tile", {TT(DType::kFloat32, {2})}, {{"multiples", IntList{-1}}}),
              HasSubstr("has entry -1 < 0"));
}

TEST(ManipOpsTest, ReverseV2) {
  std::mt19937 rng(6);
  Shape shape({3, 4, 5});
  Tensor x = Random<int32_t>(shape, rng, -50, 50);
  for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {-1}, {0, 2}, {1, 0, 2}}) {
    auto out = RunOp("ReverseV2", {x}, {{"axis", IntList(axes)}});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose(*out, Gather(ToDouble(x), shape.dims(), shape.dims(),
                             [&](std::vector<int64_t> o) -> std::optional<std::vector<int64_t>> {
                  for (int64_t a : axes) {
                    int k = static_cast<int>(a < 0 ? a + 3 : a);
                    o[k] = shape.dim(k) - 1 - o[k];
                  }
                  return o;
                }));
  }
  auto e = RunOp("ReverseV2", {Make<float>(Shape({0, 2}), {})}, {{"axis", IntList{0}}});
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(InferError("ReverseV2", {TT(DType::kFloat32, {2})}, {{"axis", IntList{0, -1}}}),
              HasSubstr("node 'out' (ReverseV2): axis -1 given twice"));
}

template <typename T>
void CheckPad(const Shape& shape, const std::vector<int64_t>& pads, const std::string& mode,
              double value) {
  std::mt19937 rng(7);
  Tensor x = Random<T>(shape, rng, -20, 20);
  AttrMap attrs{{"paddings", IntList(pads)}, {"mode", mode}};
  if (value != 0) attrs["constant_values"] = static_cast<float>(value);
  auto out = RunOp("Pad", {x}, attrs);
  ASSERT_TRUE(out.ok()) << mode << ": " << out.status();
  std::vector<int64_t> dims;
  for (int k = 0; k < shape.rank(); ++k) dims.push_back(shape.dim(k) + pads[2 * k] + pads[2 * k + 1]);
  ASSERT_EQ(out->shape(), Shape(dims));
  ExpectClose(*out, Gather(ToDouble(x), shape.dims(), dims,
                          [&](std::vector<int64_t> o) -> std::optional<std::vector<int64_t>> {
                for (int k = 0; k < shape.rank(); ++k) {
                  int64_t i = o[k] - pads[2 * k], d = shape.dim(k);
                  if (mode == "CONSTANT" && (i < 0 || i >= d)) return std::nullopt;
                  if (i < 0) i = mode == "REFLECT" ? -i : -i - 1;
                  if (i >= d) i = mode == "REFLECT" ? 2 * d - 2 - i : 2 * d - 1 - i;
                  o[k] = i;
                }
                return o;
              }, value), 1e-6);
}

TEST(ManipOpsTest, PadAllModes) {
  CheckPad<float>(Shape({2, 3}), {1, 2, 0, 1}, "CONSTANT", 0);
  CheckPad<double>(Shape({2, 3}), {1, 0, 2, 2}, "CONSTANT", 1.5);
  CheckPad<int32_t>(Shape({3, 4}), {2, 2, 3, 1}, "REFLECT", 0);
  CheckPad<int64_t>(Shape({3, 4}), {3, 3, 4, 0}, "SYMMETRIC", 0);
  CheckPad<uint8_t>(Shape({0, 2}), {1, 1, 0, 0}, "CONSTANT", 7);
  CheckPad<float>(Shape({4, 5, 6}), {1, 1, 2, 3, 0, 5}, "SYMMETRIC", 0);
  CheckPad<float>(Shape({}), {}, "CONSTANT", 0);
  auto s = RunOp("Pad", {MakeStrings(Shape({1}), {"m"})},
                 {{"paddings", IntList{1, 1}}, {"constant_values", std::string("_")}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"_", "m", "_"}));
  auto b = RunOp("Pad", {MakeBool(Shape({1}), {1})}, {{"paddings", IntList{0, 1}}});
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectClose(*b, {1, 0});
  EXPECT_THAT(InferError("Pad", {TT(DType::kFloat32, {3})}, {{"paddings", IntList{3, 0}}, {"mode", std::string("REFLECT")}}),
              HasSubstr("node 'out' (Pad): REFLECT paddings of dimension 0 must be <= 2 for size 3"));
  EXPECT_THAT(InferError("Pad", {TT(DType::kFloat32, {3})}, {{"paddings", IntList{1, 1, 1, 1}}}),
              HasSubstr("paddings [1,1,1,1] are for rank 2 but the input [3] has rank 1"));
  EXPECT_THAT(InferError("Pad", {TT(DType::kFloat32, {3})}, {{"paddings", IntList{1, 1}}, {"mode", std::string("WRAP")}}),
              HasSubstr("attribute 'mode' is 'WRAP'"));
}

// TensorArrayWriteGrad(dy, buffer_shape, index): the value's gradient is dy's row
// `index`; the buffer's is dy cut to the buffer's rows with that row zeroed ([0] for
// the empty buffer; [rows] alone, as a loop's gradient gives it, stands for
// [rows, element...]).
TEST(TensorArrayGradTest, WriteGradSplitsTheRows) {
  const std::vector<float> rows = {1, 2, 3, 4, 5, 6};
  const Tensor dy = *Tensor::FromVector<float>(Shape({3, 2}), rows);
  auto run = [&](std::vector<int64_t> buffer_shape, int32_t index) {
    const int64_t n = static_cast<int64_t>(buffer_shape.size());
    return RunOpAll("TensorArrayWriteGrad",
                    {dy, *Tensor::FromVector<int64_t>(Shape({n}), buffer_shape), Tensor::Scalar<int32_t>(index)});
  };
  auto grown = run({2, 2}, 2);  // the write grew the buffer from 2 rows to 3
  ASSERT_TRUE(grown.ok()) << grown.status();
  EXPECT_EQ((*grown)[0].shape(), Shape({2, 2}));
  ExpectClose((*grown)[0], {1, 2, 3, 4});
  ExpectClose((*grown)[1], {5, 6});
  auto inside = run({3, 2}, 1);
  ASSERT_TRUE(inside.ok()) << inside.status();
  ExpectClose((*inside)[0], {1, 2, 0, 0, 5, 6});
  ExpectClose((*inside)[1], {3, 4});
  auto rows_only = run({3}, 0);
  ASSERT_TRUE(rows_only.ok()) << rows_only.status();
  EXPECT_EQ((*rows_only)[0].shape(), Shape({3, 2}));
  ExpectClose((*rows_only)[0], {0, 0, 3, 4, 5, 6});
  auto empty = run({0}, 0);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), Shape({0}));
  ExpectClose((*empty)[1], {1, 2});
  auto outside = run({3, 2}, 3);
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(), HasSubstr("row 3 is not in the gradient [3,2]"));
  auto too_many = run({4, 2}, 0);
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(), HasSubstr("a buffer of 4 rows does not fit the gradient [3,2]"));
}

}  // namespace
}  // namespace graphd::executor::test
