// StridedSlice: a table of Python indexing expressions, each turned into attributes the
// way TensorFlow's tensor.__getitem__ does and checked against an independent
// numpy-semantics reference (slice.indices clamping, negative steps, None, Ellipsis,
// integer indices), plus hand-written mask combinations and the errors.
#include <optional>
#include <variant>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

struct Sl {  // start:stop:step with optional parts
  std::optional<int64_t> start, stop, step;
};
struct NewAxis {};
struct Dots {};
using Item = std::variant<Sl, int64_t, NewAxis, Dots>;

// tensor[items] -> StridedSlice attributes, as tf.Tensor.__getitem__ builds them.
AttrMap ToAttrs(const std::vector<Item>& items) {
  IntList begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis = 0, new_axis = 0, shrink = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const int64_t bit = int64_t{1} << i;
    if (const Sl* s = std::get_if<Sl>(&items[i])) {
      begin.push_back(s->start.value_or(0));
      end.push_back(s->stop.value_or(0));
      strides.push_back(s->step.value_or(1));
      if (!s->start) begin_mask |= bit;
      if (!s->stop) end_mask |= bit;
    } else if (const int64_t* k = std::get_if<int64_t>(&items[i])) {
      begin.push_back(*k);
      end.push_back(*k + 1);
      strides.push_back(1);
      shrink |= bit;
    } else {
      begin.push_back(0);
      end.push_back(0);
      strides.push_back(1);
      (std::holds_alternative<Dots>(items[i]) ? ellipsis : new_axis) |= bit;
    }
  }
  return {{"begin", begin},           {"end", end},           {"strides", strides},
          {"begin_mask", begin_mask}, {"end_mask", end_mask}, {"ellipsis_mask", ellipsis},
          {"new_axis_mask", new_axis}, {"shrink_axis_mask", shrink}};
}

// numpy: the result of x[items] for x of `dims` holding 0, 1, 2, ... (row-major), or
// nullopt when an integer index is out of bounds.
struct Ref {
  std::vector<int64_t> shape;
  std::vector<double> values;
};
std::optional<Ref> NumpyIndex(const std::vector<int64_t>& dims, std::vector<Item> items) {
  int consumed = 0;
  for (const Item& it : items) consumed += std::holds_alternative<Sl>(it) || std::holds_alternative<int64_t>(it);
  auto dots = std::find_if(items.begin(), items.end(),
                           [](const Item& it) { return std::holds_alternative<Dots>(it); });
  std::vector<Item> full_slices(dims.size() - consumed, Sl{});
  if (dots == items.end()) {
    items.insert(items.end(), full_slices.begin(), full_slices.end());
  } else {
    dots = items.erase(dots);
    items.insert(dots, full_slices.begin(), full_slices.end());
  }
  // Per input dimension: the list of indices it contributes; shape per output dimension.
  std::vector<std::vector<int64_t>> picks;
  std::vector<int64_t> shape;
  std::vector<int> out_dim_of_input;  // -1 when the input dim is indexed away
  int d = 0;
  for (const Item& it : items) {
    if (std::holds_alternative<NewAxis>(it)) {
      shape.push_back(1);
      continue;
    }
    const int64_t n = dims[d++];
    std::vector<int64_t> pick;
    if (const int64_t* k = std::get_if<int64_t>(&it)) {
      int64_t i = *k < 0 ? *k + n : *k;
      if (i < 0 || i >= n) return std::nullopt;
      pick.push_back(i);
      out_dim_of_input.push_back(-1);
    } else {
      const Sl& s = std::get<Sl>(it);
      const int64_t step = s.step.value_or(1);
      auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
        if (!v) return dflt;
        int64_t x = *v < 0 ? *v + n : *v;
        return step > 0 ? std::clamp<int64_t>(x, 0, n) : std::clamp<int64_t>(x, -1, n - 1);
      };
      const int64_t start = clamp(s.start, step > 0 ? 0 : n - 1);
      const int64_t stop = clamp(s.stop, step > 0 ? n : -1);
      for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) pick.push_back(i);
      out_dim_of_input.push_back(static_cast<int>(shape.size()));
      shape.push_back(static_cast<int64_t>(pick.size()));
    }
    picks.push_back(pick);
  }
  Ref ref{shape, {}};
  // Enumerate the cartesian product of picks in input-dimension order; that is also the
  // output's row-major order because new axes have size 1.
  std::vector<size_t> at(picks.size(), 0);
  for (const auto& p : picks) {
    if (p.empty()) return ref;
  }
  while (true) {
    std::vector<int64_t> index;
    for (size_t k = 0; k < picks.size(); ++k) index.push_back(picks[k][at[k]]);
    ref.values.push_back(static_cast<double>(Flatten(index, dims)));
    int k = static_cast<int>(picks.size()) - 1;
    for (; k >= 0; --k) {
      if (++at[k] < picks[k].size()) break;
      at[k] = 0;
    }
    if (k < 0) return ref;
  }
}

Tensor Iota(const std::vector<int64_t>& dims) {
  Tensor t = Tensor::Allocate(DType::kInt32, Shape(dims)).value();
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<int32_t>()[i] = static_cast<int32_t>(i);
  return t;
}

Sl S(std::optional<int64_t> a = {}, std::optional<int64_t> b = {}, std::optional<int64_t> c = {}) {
  return Sl{a, b, c};
}

TEST(StridedSliceTest, TableAgainstNumpySemantics) {
  const std::vector<int64_t> dims = {4, 5, 6};
  const std::vector<std::vector<Item>> table = {
      {S(1, 3)},
      {S(), S(1, 4)},
      {S({}, {}, -1)},
      {S({}, {}, 2), S({}, {}, -2), S(1, {}, 3)},
      {int64_t{-1}},
      {int64_t{1}, int64_t{-2}, int64_t{3}},
      {S(1, {}), NewAxis{}, S({}, {}, 2), int64_t{3}},  // x[1:, None, ::2, 3]
      {Dots{}, int64_t{1}},
      {NewAxis{}, Dots{}, NewAxis{}},
      {int64_t{1}, Dots{}, int64_t{2}},
      {Dots{}, S({}, {}, -1), NewAxis{}},
      {S(10, {})},
      {S(-10, 2)},
      {S(3, 1)},
      {S(3, 1, -1)},
      {S(-1, -10, -1)},
      {S(), S(100, -100, -1)},
      {NewAxis{}},
      {Dots{}},
      {S(), S(), S()},
      {int64_t{0}, int64_t{0}, int64_t{0}},
      {S({}, -1), S(1, -1), S(-3, {})},
      {S(2, {}, -1)},
      {S({}, {}, -3)},
      {S(), NewAxis{}, S(), NewAxis{}},
      {S(1, 2), Dots{}, NewAxis{}, int64_t{0}},
      {S({}, {}, 7), S(4, 0, -2), S(-1, {}, -4)},
      {Dots{}, NewAxis{}, NewAxis{}},
      {S(-100, 100), S(-100, 100, -1)},
      {S(), int64_t{-5}, S({}, {}, -1)},
      {NewAxis{}, int64_t{2}, NewAxis{}, S(1, 3), Dots{}},
  };
  for (size_t c = 0; c < table.size(); ++c) {
    SCOPED_TRACE(absl::StrCat("case ", c));
    std::optional<Ref> want = NumpyIndex(dims, table[c]);
    ASSERT_TRUE(want.has_value());
    AttrMap attrs = ToAttrs(table[c]);
    auto inferred = Infer("StridedSlice", {TT(DType::kInt32, dims)}, attrs);
    ASSERT_TRUE(inferred.ok()) << inferred.status();
    EXPECT_EQ((*inferred)[0].shape, PartialShape(want->shape));
    auto out = RunOp("StridedSlice", {Iota(dims)}, attrs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->shape(), Shape(want->shape));
    ExpectClose(*out, want->values);
  }
}

TEST(StridedSliceTest, OneDimensionalAndScalarResults) {
  for (const std::vector<Item>& items : std::vector<std::vector<Item>>{
           {int64_t{0}}, {int64_t{-7}}, {S(-3, {})}, {S({}, {}, -2)}, {NewAxis{}, S(2, 5)}}) {
    std::optional<Ref> want = NumpyIndex({7}, items);
    ASSERT_TRUE(want.has_value());
    auto out = RunOp("StridedSlice", {Iota({7})}, ToAttrs(items));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->shape(), Shape(want->shape));
    ExpectClose(*out, want->values);
  }
}

TEST(StridedSliceTest, HandWrittenMasks) {
  Tensor x = Iota({6});
  // begin_mask ignores the begin value: [3:4] with begin masked is [:4].
  auto a = RunOp("StridedSlice", {x}, {{"begin", IntList{3}}, {"end", IntList{4}},
                                       {"strides", IntList{1}}, {"begin_mask", int64_t{1}}});
  ASSERT_TRUE(a.ok()) << a.status();
  ExpectClose(*a, {0, 1, 2, 3});
  // end_mask with a negative stride runs to the front: [2::-1].
  auto b = RunOp("StridedSlice", {x}, {{"begin", IntList{2}}, {"end", IntList{0}},
                                       {"strides", IntList{-1}}, {"end_mask", int64_t{1}}});
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectClose(*b, {2, 1, 0});
  // new_axis wins over shrink on the same index; the slice then applies to the next index.
  auto c = RunOp("StridedSlice", {x}, {{"begin", IntList{0, 1}}, {"end", IntList{0, 3}},
                                       {"strides", IntList{1, 1}}, {"new_axis_mask", int64_t{1}},
                                       {"shrink_axis_mask", int64_t{1}}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->shape(), Shape({1, 2}));
  ExpectClose(*c, {1, 2});
  // Strings slice like numbers.
  auto s = RunOp("StridedSlice", {MakeStrings(Shape({3}), {"a", "b", "c"})},
                 ToAttrs({S({}, {}, -1)}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"c", "b", "a"}));
  // Empty input.
  auto e = RunOp("StridedSlice", {Make<float>(Shape({0, 3}), {})}, ToAttrs({S(), int64_t{1}}));
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), Shape({0}));
}

TEST(StridedSliceTest, PartialShapes) {
  auto r = Infer("StridedSlice", {TT(DType::kFloat32, {-1, 5, 6})},
                 ToAttrs({S(1, {}), NewAxis{}, S({}, {}, 2), int64_t{3}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, PartialShape(std::vector<int64_t>{-1, 1, 3}));
  auto shrunk = Infer("StridedSlice", {TT(DType::kFloat32, {-1, 5})}, ToAttrs({int64_t{0}}));
  ASSERT_TRUE(shrunk.ok()) << shrunk.status();
  EXPECT_EQ((*shrunk)[0].shape, PartialShape(std::vector<int64_t>{5}));
  auto unknown_rank = Infer("StridedSlice", {{DType::kFloat32, PartialShape()}}, ToAttrs({int64_t{0}}));
  ASSERT_TRUE(unknown_rank.ok());
  EXPECT_FALSE((*unknown_rank)[0].shape.known_rank());
  // Out of bounds only at run time.
  Graph g;
  const Node* p = AddPlaceholder(g, "p", DType::kInt32, PartialShape(std::vector<int64_t>{-1}));
  ASSERT_TRUE(g.AddNode({.name = "ss", .op = "StridedSlice", .inputs = {{p, 0}},
                         .attrs = ToAttrs({int64_t{3}})}).ok());
  auto bad = RunGraph(g, {{"p", Iota({2})}}, {"ss"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("node 'ss' (StridedSlice): slice index 3 of dimension 0 out of bounds"));
}

TEST(StridedSliceTest, Errors) {
  const std::vector<TensorType> in = {TT(DType::kInt32, {4, 5, 6})};
  EXPECT_THAT(InferError("StridedSlice", in, ToAttrs({int64_t{4}})),
              HasSubstr("node 'out' (StridedSlice): slice index 4 of dimension 0 out of bounds"));
  EXPECT_THAT(InferError("StridedSlice", in, ToAttrs({S(), int64_t{-6}})),
              HasSubstr("slice index -6 of dimension 1 out of bounds"));
  EXPECT_THAT(InferError("StridedSlice", in, ToAttrs({S({}, {}, 0)})),
              HasSubstr("strides[0] must be non-zero"));
  EXPECT_THAT(InferError("StridedSlice", in,
                         ToAttrs({int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}})),
              HasSubstr("index out of range using input dim 3"));
  EXPECT_THAT(InferError("StridedSlice", in, ToAttrs({Dots{}, Dots{}})),
              HasSubstr("multiple ellipses"));
  EXPECT_THAT(InferError("StridedSlice", in, {{"begin", IntList{0}}, {"end", IntList{1, 2}},
                                              {"strides", IntList{1}}}),
              HasSubstr("begin, end and strides must have the same length"));
  std::optional<Ref> none = NumpyIndex({4, 5, 6}, {int64_t{4}});
  EXPECT_FALSE(none.has_value());  // the reference agrees it is an error
}

}  // namespace
}  // namespace graphd::executor::test
