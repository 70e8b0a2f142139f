#include "compiler/cache/signature_key.h"

#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

PartialShape PS(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }

SignatureKey Key(DType dtype, const PartialShape& shape, int64_t python_value) {
  SignatureKey k;
  k.AddTensor(dtype, shape);
  k.AddName("n");
  k.AddInt(python_value);
  return k;
}

TEST(SignatureKeyTest, EqualItemsGiveEqualBytesAndDifferentItemsDoNot) {
  EXPECT_EQ(Key(DType::kFloat32, PS({2, 3}), 1).bytes(), Key(DType::kFloat32, PS({2, 3}), 1).bytes());
  EXPECT_NE(Key(DType::kFloat32, PS({2, 3}), 1).bytes(), Key(DType::kFloat32, PS({3, 2}), 1).bytes());
  EXPECT_NE(Key(DType::kFloat32, PS({2, 3}), 1).bytes(), Key(DType::kInt32, PS({2, 3}), 1).bytes());
  EXPECT_NE(Key(DType::kFloat32, PS({2, 3}), 1).bytes(), Key(DType::kFloat32, PS({2, 3}), 2).bytes());
  // Structure is part of the key: a string "ab" is not the strings "a", "b".
  SignatureKey one, two;
  one.AddStr("ab");
  two.AddStr("a");
  two.AddStr("b");
  EXPECT_NE(one.bytes(), two.bytes());
  SignatureKey t, l;
  t.OpenContainer(SignatureKey::kTuple, 1);
  t.AddInt(1);
  l.OpenContainer(SignatureKey::kList, 1);
  l.AddInt(1);
  EXPECT_NE(t.bytes(), l.bytes());
}

TEST(SignatureKeyTest, GeneralizeMakesDifferingDimsUnknownAndAcceptsBoth) {
  SignatureKey a = Key(DType::kFloat32, PS({2, 3}), 7);
  SignatureKey b = Key(DType::kFloat32, PS({5, 3}), 7);
  auto g = SignatureKey::Generalize(a, b);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->TensorShapes(), std::vector<PartialShape>{PS({kUnknownDim, 3})});
  EXPECT_TRUE(SignatureKey::Accepts(*g, a));
  EXPECT_TRUE(SignatureKey::Accepts(*g, b));
  EXPECT_TRUE(SignatureKey::Accepts(*g, Key(DType::kFloat32, PS({9, 3}), 7)));
  EXPECT_FALSE(SignatureKey::Accepts(*g, Key(DType::kFloat32, PS({9, 4}), 7)));
  EXPECT_FALSE(SignatureKey::Accepts(*g, Key(DType::kFloat32, PS({9, 3}), 8)));  // Python value
  EXPECT_FALSE(SignatureKey::Accepts(*g, Key(DType::kFloat64, PS({9, 3}), 7)));
  EXPECT_FALSE(SignatureKey::Accepts(*g, Key(DType::kFloat32, PS({9, 3, 1}), 7)));
}

TEST(SignatureKeyTest, RanksThatDifferGeneralizeToUnknownRank) {
  auto g = SignatureKey::Generalize(Key(DType::kInt32, PS({2}), 0), Key(DType::kInt32, PS({2, 2}), 0));
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(g->TensorShapes()[0].known_rank());
  EXPECT_TRUE(SignatureKey::Accepts(*g, Key(DType::kInt32, PS({1, 2, 3}), 0)));
  EXPECT_FALSE(SignatureKey::Accepts(*g, Key(DType::kFloat32, PS({1}), 0)));
}

TEST(SignatureKeyTest, KeysThatDifferInMoreThanShapesDoNotGeneralize) {
  EXPECT_FALSE(SignatureKey::Generalize(Key(DType::kFloat32, PS({2}), 1), Key(DType::kFloat32, PS({3}), 2)));
  EXPECT_FALSE(SignatureKey::Generalize(Key(DType::kFloat32, PS({2}), 1), Key(DType::kInt64, PS({3}), 1)));
  SignatureKey shorter;
  shorter.AddTensor(DType::kFloat32, PS({2}));
  EXPECT_FALSE(SignatureKey::Generalize(Key(DType::kFloat32, PS({2}), 1), shorter));
  EXPECT_FALSE(SignatureKey::Accepts(shorter, Key(DType::kFloat32, PS({2}), 1)));
}

}  // namespace
}  // namespace graphd::compiler
