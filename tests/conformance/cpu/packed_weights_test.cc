// The process-wide packed-weights cache (executor/cpu/packed_weights.h): one packed
// copy per (constant buffer, layout), shared, reordered correctly, and freed when the
// last holder or the source goes.
#include "executor/cpu/packed_weights.h"

#include <numeric>
#include <vector>

#include "executor/cpu/dnnl_util.h"
#include "gtest/gtest.h"

namespace graphd::executor::cpu {
namespace {

using dnnl::memory;

Tensor Weights(int64_t o, int64_t i) {
  std::vector<float> v(o * i);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(k);
  return Tensor::FromVector<float>(Shape({o, i}), v).value();
}

TEST(PackedWeightsTest, SharedPerSourceAndLayoutAndReordered) {
  Tensor w = Weights(3, 4);
  memory::desc plain({3, 4}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc transposed({3, 4}, memory::data_type::f32, memory::format_tag::ba);
  auto a = GetPackedWeights(w, plain, transposed);
  auto b = GetPackedWeights(w, plain, transposed);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->get(), b->get());
  const float* packed = static_cast<const float*>((*a)->memory.get_data_handle());
  // Column-major: element (r, c) at c * 3 + r.
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) EXPECT_EQ(packed[c * 3 + r], w.data<float>()[r * 4 + c]);
  }
  auto other_layout = GetPackedWeights(w, plain, plain);
  ASSERT_TRUE(other_layout.ok());
  EXPECT_NE(other_layout->get(), a->get());
  Tensor copy = w.Clone().value();  // same values, another buffer: another entry
  auto from_copy = GetPackedWeights(copy, plain, transposed);
  ASSERT_TRUE(from_copy.ok());
  EXPECT_NE(from_copy->get(), a->get());
}

TEST(PackedWeightsTest, FreedWithLastHolder) {
  const PackedWeightsStats before = GetPackedWeightsStats();
  Tensor w = Weights(8, 8);
  memory::desc plain({8, 8}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc target({8, 8}, memory::data_type::f32, memory::format_tag::ba);
  {
    auto held = GetPackedWeights(w, plain, target);
    ASSERT_TRUE(held.ok());
    EXPECT_EQ(GetPackedWeightsStats().entries, before.entries + 1);
    EXPECT_EQ(GetPackedWeightsStats().bytes, before.bytes + 8 * 8 * sizeof(float));
  }
  EXPECT_EQ(GetPackedWeightsStats().entries, before.entries);
  EXPECT_EQ(GetPackedWeightsStats().bytes, before.bytes);
}

TEST(PackedWeightsTest, SourceTooSmallIsAnError) {
  Tensor w = Weights(2, 2);
  memory::desc big({4, 4}, memory::data_type::f32, memory::format_tag::ab);
  auto r = GetPackedWeights(w, big, big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("needs 64 bytes"), std::string::npos) << r.status();
}

// The same source and target layout requested from two plain layouts (row-major and
// its transpose) are two copies, each reordered from its own.
TEST(PackedWeightsTest, ThePlainLayoutIsPartOfTheKey) {
  std::vector<float> v(12);
  std::iota(v.begin(), v.end(), 0.f);
  Tensor w = Tensor::FromVector<float>(Shape({3, 4}), v).value();  // also read as a [4, 3] transposed
  using dnnl::memory;
  // Logical [3, 4]: row-major (ab), or the buffer read as the transpose of a [4, 3] (strides {1, 3}).
  memory::desc ab({3, 4}, memory::data_type::f32, memory::dims{4, 1});
  memory::desc tr({3, 4}, memory::data_type::f32, memory::dims{1, 3});
  memory::desc target({3, 4}, memory::data_type::f32, memory::format_tag::ab);
  auto p1 = GetPackedWeights(w, ab, target);
  auto p2 = GetPackedWeights(w, tr, target);
  ASSERT_TRUE(p1.ok() && p2.ok());
  const float* packed = static_cast<const float*>((*p2)->memory.get_data_handle());
  // Element (r, c) of the transposed view is v[c * 3 + r].
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(packed[r * 4 + c], v[c * 3 + r]) << "(" << r << ", " << c << ")";
}

}  // namespace
}  // namespace graphd::executor::cpu
