// Function libraries in GraphDefs: If/While nodes naming library functions, and the
// checks the import makes (all or nothing, errors naming functions and nodes).
#include "compiler/import/function_library.h"

#include <string>
#include <vector>

#include "compiler/import/graphdef_import.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const TensorType kFloatScalar{DType::kFloat32, PartialShape(std::vector<int64_t>{})};
const TensorType kIntScalar{DType::kInt32, PartialShape(std::vector<int64_t>{})};
const TensorType kBoolScalar{DType::kBool, PartialShape(std::vector<int64_t>{})};

NodeDef Placeholder(const std::string& name, DType dtype) {
  return {.name = name,
          .op = "Placeholder",
          .attrs = {{"dtype", dtype}, {"shape", PartialShape(std::vector<int64_t>{})}}};
}
NodeDef Op(const std::string& name, const std::string& op, std::vector<std::string> inputs,
           AttrMap attrs = {}) {
  return {.name = name, .op = op, .inputs = std::move(inputs), .attrs = std::move(attrs)};
}
NodeDef Const(const std::string& name, Tensor value) {
  DType dtype = value.dtype();
  return {.name = name, .op = "Const", .attrs = {{"value", std::move(value)}, {"dtype", dtype}}};
}
Tensor Scalar(float v) { return Tensor::Scalar<float>(v); }
Tensor Scalar(int32_t v) { return Tensor::Scalar<int32_t>(v); }

// x -> x * factor (float scalars).
FunctionDef Scale(const std::string& name, float factor) {
  return {.name = name,
          .arg_names = {"x"},
          .arg_types = {kFloatScalar},
          .results = {"y"},
          .result_types = {kFloatScalar},
          .nodes = {Const("k", Scalar(factor)), Op("y", "Mul", {"x", "k"})}};
}

// If(p, x) with then/else naming `then_fn`/`else_fn`.
GraphDef IfGraph(const std::string& then_fn, const std::string& else_fn) {
  return {.nodes = {Placeholder("p", DType::kBool), Placeholder("x", DType::kFloat32),
                    Op("if", "If", {"p", "x"},
                       {{"then_branch", FuncName{then_fn}}, {"else_branch", FuncName{else_fn}}})}};
}

TEST(FunctionLibraryTest, IfNamesLibraryFunctions) {
  GraphDef def = IfGraph("double", "half");
  def.library = {Scale("half", 0.5f), Scale("double", 2.0f)};
  Graph g;
  FunctionLibrary lib;
  Status s = ImportGraphDef(def, g, &lib);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(lib.size(), 2);
  const Node* node = g.FindNode("if");
  ASSERT_NE(node, nullptr);
  ASSERT_EQ(node->num_outputs(), 1);
  EXPECT_EQ(node->output(0).dtype, DType::kFloat32);
  const FunctionRef* then_fn = std::get_if<FunctionRef>(&node->attrs().at("then_branch"));
  ASSERT_NE(then_fn, nullptr);
  EXPECT_EQ(*then_fn, lib.Find("double"));
  EXPECT_EQ((*then_fn)->num_args(), 1);
  EXPECT_EQ((*then_fn)->args[0]->name(), "x");
  EXPECT_EQ((*then_fn)->results[0].node->name(), "y");
}

TEST(FunctionLibraryTest, WhileWithCondAndBody) {
  FunctionDef cond{.name = "cond",
                   .arg_names = {"i"},
                   .arg_types = {kIntScalar},
                   .results = {"less:0"},
                   .nodes = {Const("n", Scalar(int32_t{10})), Op("less", "Less", {"i", "n"})}};
  FunctionDef body{.name = "body",
                   .arg_names = {"i"},
                   .arg_types = {kIntScalar},
                   .results = {"next"},
                   .nodes = {Const("one", Scalar(int32_t{1})), Op("next", "Add", {"i", "one"})}};
  GraphDef def{.nodes = {Const("start", Scalar(int32_t{0})),
                         Op("loop", "While", {"start"},
                            {{"cond", FuncName{"cond"}}, {"body", FuncName{"body"}}})},
               .library = {body, cond}};
  Graph g;
  FunctionLibrary lib;
  Status s = ImportGraphDef(def, g, &lib);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(g.FindNode("loop")->output(0).dtype, DType::kInt32);
}

// A function whose body holds an If naming other library functions (nested cond),
// listed before them.
TEST(FunctionLibraryTest, NestedFunctionsInAnyOrder) {
  FunctionDef outer{.name = "outer",
                    .arg_names = {"x", "q"},
                    .arg_types = {kFloatScalar, kBoolScalar},
                    .results = {"inner"},
                    .nodes = {Op("inner", "If", {"q", "x"},
                                 {{"then_branch", FuncName{"double"}},
                                  {"else_branch", FuncName{"half"}}})}};
  GraphDef def{.nodes = {Placeholder("p", DType::kBool), Placeholder("x", DType::kFloat32),
                         Op("if", "If", {"p", "x", "p"},
                            {{"then_branch", FuncName{"outer"}}, {"else_branch", FuncName{"outer"}}})},
               .library = {outer, Scale("double", 2.0f), Scale("half", 0.5f)}};
  Graph g;
  FunctionLibrary lib;
  Status s = ImportGraphDef(def, g, &lib);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(lib.size(), 3);
}

// Functions imported with one GraphDef serve the nodes of later ones.
TEST(FunctionLibraryTest, LaterGraphDefsNameEarlierFunctions) {
  Graph g;
  FunctionLibrary lib;
  ASSERT_TRUE(ImportGraphDef({.library = {Scale("double", 2.0f), Scale("half", 0.5f)}}, g, &lib).ok());
  Status s = ImportGraphDef(IfGraph("half", "double"), g, &lib);
  ASSERT_TRUE(s.ok()) << s;
  // A name once taken stays taken.
  Status again = ImportGraphDef({.library = {Scale("half", 0.25f)}}, g, &lib);
  EXPECT_EQ(again.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(again.message(), HasSubstr("duplicate function name 'half'"));
}

TEST(FunctionLibraryTest, UnknownFunctionIsNamed) {
  GraphDef def = IfGraph("double", "missing");
  def.library = {Scale("double", 2.0f)};
  Graph g;
  FunctionLibrary lib;
  Status s = ImportGraphDef(def, g, &lib);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("node 'if'"), HasSubstr("else_branch"),
                                 HasSubstr("unknown function 'missing'")));
  EXPECT_EQ(errors::NodeOf(s), "if");
  // All or nothing: neither the nodes nor the library's functions were kept.
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_EQ(lib.size(), 0);

  FunctionDef outer = Scale("outer", 1.0f);
  outer.nodes.push_back(Op("call", "If", {"x", "x"}, {{"then_branch", FuncName{"nowhere"}},
                                                      {"else_branch", FuncName{"nowhere"}}}));
  s = ImportGraphDef({.library = {outer}}, g, &lib);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("function 'outer'"), HasSubstr("node 'call'"),
                                 HasSubstr("unknown function 'nowhere'")));
}

TEST(FunctionLibraryTest, CyclesAreRefused) {
  auto calling = [](const std::string& name, const std::string& callee) {
    FunctionDef f = Scale(name, 1.0f);
    f.nodes.push_back(Op("p", "Const", {}, {{"value", Tensor::Scalar<bool>(true)},
                                             {"dtype", DType::kBool}}));
    f.nodes.push_back(Op("call", "If", {"p", "x"},
                         {{"then_branch", FuncName{callee}}, {"else_branch", FuncName{callee}}}));
    return f;
  };
  Graph g;
  FunctionLibrary lib;
  Status s = ImportGraphDef({.library = {calling("f", "g"), calling("g", "f")}}, g, &lib);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("cycle"), HasSubstr("'f'"), HasSubstr("'g'")));
  s = ImportGraphDef({.library = {calling("self", "self")}}, g, &lib);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("cycle"), HasSubstr("'self'")));
}

TEST(FunctionLibraryTest, BranchesMustAgree) {
  // Arity: then takes one argument, else two.
  FunctionDef two = Scale("two", 1.0f);
  two.arg_names.push_back("extra");
  two.arg_types.push_back(kFloatScalar);
  GraphDef def = IfGraph("one", "two");
  def.library = {Scale("one", 1.0f), two};
  Graph g;
  FunctionLibrary lib;
  Status s = ImportGraphDef(def, g, &lib);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("else_branch 'two' takes 2 arguments")));
  EXPECT_EQ(errors::NodeOf(s), "if");

  // Result dtypes: float in one branch, int in the other.
  FunctionDef as_int{.name = "as_int",
                     .arg_names = {"x"},
                     .arg_types = {kFloatScalar},
                     .results = {"c"},
                     .nodes = {Op("c", "Cast", {"x"}, {{"DstT", DType::kInt32}})}};
  def = IfGraph("one", "as_int");
  def.library = {Scale("one", 1.0f), as_int};
  s = ImportGraphDef(def, g, &lib);
  EXPECT_THAT(s.message(), HasSubstr("result 0 is float32 in the true branch and int32"));
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_EQ(lib.size(), 0);

  // Argument dtype: the branch takes int32 but the If passes float32.
  FunctionDef takes_int{.name = "takes_int",
                        .arg_names = {"x"},
                        .arg_types = {kIntScalar},
                        .results = {"c"},
                        .nodes = {Op("c", "Cast", {"x"}, {{"DstT", DType::kFloat32}})}};
  def = IfGraph("takes_int", "takes_int");
  def.library = {takes_int};
  s = ImportGraphDef(def, g, &lib);
  EXPECT_THAT(s.message(), HasSubstr("argument 0 is int32, given float32"));
}

TEST(FunctionLibraryTest, MalformedFunctionsAreNamed) {
  struct Case {
    FunctionDef def;
    std::string message;
  };
  FunctionDef placeholder = Scale("ph", 1.0f);
  placeholder.nodes.push_back(Placeholder("feed", DType::kFloat32));
  FunctionDef bad_result = Scale("bad_result", 1.0f);
  bad_result.results = {"nowhere:0"};
  FunctionDef wrong_type = Scale("wrong_type", 1.0f);
  wrong_type.result_types = {kIntScalar};
  FunctionDef dup_arg = Scale("dup_arg", 1.0f);
  dup_arg.arg_names = {"x", "x"};
  dup_arg.arg_types = {kFloatScalar, kFloatScalar};
  FunctionDef arg_clash = Scale("arg_clash", 1.0f);
  arg_clash.nodes.push_back(Const("x", Scalar(1.0f)));
  FunctionDef bad_op = Scale("bad_op", 1.0f);
  bad_op.nodes.push_back(Op("z", "NoSuchOp", {"x"}));
  FunctionDef counts = Scale("counts", 1.0f);
  counts.arg_types.push_back(kFloatScalar);
  std::vector<Case> cases = {
      {placeholder, "function 'ph': node 'feed' is a Placeholder"},
      {bad_result, "function 'bad_result': result 0 'nowhere:0' is not a tensor of the body"},
      {wrong_type, "function 'wrong_type': result 0 'y' is float32 [] but is declared int32 []"},
      {dup_arg, "function 'dup_arg': duplicate argument name 'x'"},
      {arg_clash, "function 'arg_clash': duplicate node name 'x'"},
      {bad_op, "function 'bad_op':"},
      {counts, "function 'counts': 1 argument names for 2 argument types"},
      {Scale("bad name", 1.0f), "invalid function name 'bad name'"},
      {Scale("", 1.0f), "function #0 has no name"},
  };
  for (const Case& c : cases) {
    Graph g;
    FunctionLibrary lib;
    Status s = ImportGraphDef({.library = {c.def}}, g, &lib);
    EXPECT_FALSE(s.ok()) << c.message;
    EXPECT_THAT(s.message(), HasSubstr(c.message));
    EXPECT_EQ(lib.size(), 0);
  }
  Graph g;
  FunctionLibrary lib;
  Status dup = ImportGraphDef({.library = {Scale("f", 1.0f), Scale("f", 2.0f)}}, g, &lib);
  EXPECT_THAT(dup.message(), HasSubstr("duplicate function name 'f'"));
}

// Without a library argument, functions serve only the nodes of the same GraphDef.
TEST(FunctionLibraryTest, NullLibraryIsScratch) {
  GraphDef def = IfGraph("double", "half");
  def.library = {Scale("half", 0.5f), Scale("double", 2.0f)};
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, g).ok());
  GraphDef later = IfGraph("double", "half");
  later.nodes.erase(later.nodes.begin(), later.nodes.begin() + 2);
  later.nodes[0].name = "if2";
  Status s = ImportGraphDef(later, g);
  EXPECT_THAT(s.message(), HasSubstr("names an unknown function 'half'"));
}

}  // namespace
}  // namespace graphd::compiler
