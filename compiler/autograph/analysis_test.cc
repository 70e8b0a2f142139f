#include "compiler/autograph/analysis.h"

#include "compiler/frontend/parser.h"
#include "gtest/gtest.h"

namespace graphd::compiler::autograph {
namespace {

ast::Body Body(const std::string& source) {
  auto m = ParseModule(std::make_shared<SourceFile>("t.py", source));
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? m->body : ast::Body{};
}

TEST(AnalysisTest, AssignedNamesSkipNestedScopes) {
  ast::Body b = Body(
      "a = 1\n(b, [c, d]) = x\ne.f = 2\ng[0] = 3\nfor i in r:\n    h += 1\n"
      "def k():\n    inner = 1\nimport numpy as np\nimport os.path\nz = [w for w in y]\n");
  EXPECT_EQ(AssignedNames(b), (NameSet{"a", "b", "c", "d", "i", "h", "k", "np", "os", "z"}));
}

TEST(AnalysisTest, ReadNamesExcludeLambdaParamsAndComprehensionTargets) {
  ast::Body b = Body("v = (lambda p, q=dflt: p + q + free)([e for e in it if e > lim])\n");
  auto* assign = b[0]->As<ast::Assign>();
  EXPECT_EQ(ReadNames(*assign->value), (NameSet{"dflt", "free", "it", "lim"}));
}

TEST(AnalysisTest, LivenessThroughBranchesAndLoops) {
  ast::Body b = Body("x = a\nif c:\n    y = x\nelse:\n    y = b\nwhile y < n:\n    y = y + d\n");
  EXPECT_EQ(LiveIn(b, {"y"}), (NameSet{"a", "b", "c", "d", "n"}));
  std::vector<NameSet> outs = LiveOuts(b, {"y"});
  EXPECT_EQ(outs[0], (NameSet{"b", "c", "d", "n", "x"}));
  EXPECT_EQ(outs[1], (NameSet{"d", "n", "y"}));
}

TEST(AnalysisTest, ClosuresReadFreeNamesWhereDefined) {
  ast::Body b = Body("def f(p):\n    return p + outer\nouter = 1\n");
  EXPECT_EQ(FreeNames(b[0]->As<ast::FunctionDef>()->args, b[0]->As<ast::FunctionDef>()->body),
            (NameSet{"outer"}));
  EXPECT_EQ(LiveIn(*b[0], {"f"}), (NameSet{"outer"}));
}

TEST(AnalysisTest, DefinedAfterNeedsBothBranches) {
  ast::Body b = Body("if c:\n    x = 1\n    y = 1\nelse:\n    x = 2\nfor i in r:\n    z = 1\n");
  NameSet after_if = DefinedAfter(*b[0], {"c"});
  EXPECT_EQ(after_if, (NameSet{"c", "x"}));
  EXPECT_EQ(DefinedAfter(*b[1], after_if), after_if);  // loops may not run
}

TEST(AnalysisTest, LoopExitsBelongToTheInnermostLoop) {
  ast::Body b = Body("while a:\n    for i in r:\n        break\n    if c:\n        continue\n");
  const ast::Body& outer = b[0]->As<ast::While>()->body;
  EXPECT_FALSE(ContainsLoopExit(outer, ast::StmtKind::kBreak));
  EXPECT_TRUE(ContainsLoopExit(outer, ast::StmtKind::kContinue));
  EXPECT_FALSE(ContainsReturn(outer));
}

}  // namespace
}  // namespace graphd::compiler::autograph
