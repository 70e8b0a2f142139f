// Test helpers for pass golden tests: bodies built node by node in the order given
// (inputs named "x", "x:1", "^x"), printed as IR text, and one pass run followed by
// verification.
#ifndef GRAPHD_COMPILER_PASSES_PASS_TEST_UTIL_H_
#define GRAPHD_COMPILER_PASSES_PASS_TEST_UTIL_H_

#include <string>
#include <vector>

#include "compiler/passes/function_body.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/verifier.h"
#include "core/graph/ir_text.h"
#include "core/graph/node_def.h"
#include "gtest/gtest.h"

namespace graphd::compiler::passes::test {

inline PartialShape Dims(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }

class BodyBuilder {
 public:
  BodyBuilder() { body_.name = "f"; body_.graph = std::make_unique<Graph>(); }

  BodyBuilder& Arg(const std::string& name, DType dtype = DType::kFloat32, PartialShape shape = Dims({})) {
    auto n = body_.graph->AddNode({.name = name, .op = "Arg", .attrs = {{"dtype", dtype}, {"shape", shape}}});
    EXPECT_TRUE(n.ok()) << n.status();
    if (n.ok()) body_.args.push_back(*n);
    return *this;
  }
  template <typename T>
  BodyBuilder& Const(const std::string& name, T value) {
    return Node(name, "Const", {}, {{"value", Tensor::Scalar<T>(value)}});
  }
  BodyBuilder& Node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                    AttrMap attrs = {}) {
    NodeSpec spec{.name = name, .op = op, .attrs = std::move(attrs)};
    for (const std::string& in : inputs) {
      if (!in.empty() && in[0] == '^') {
        spec.control_inputs.push_back(body_.graph->FindNode(in.substr(1)));
      } else {
        spec.inputs.push_back(Ref(in));
      }
    }
    auto n = body_.graph->AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return *this;
  }
  FunctionBody Return(const std::vector<std::string>& results) {
    for (const std::string& r : results) body_.results.push_back(Ref(r));
    return std::move(body_);
  }

 private:
  OutputRef Ref(const std::string& name) {
    auto parsed = ParseTensorName(name);
    EXPECT_TRUE(parsed.ok()) << name;
    const graphd::Node* node = body_.graph->FindNode(parsed->node);
    EXPECT_NE(node, nullptr) << name;
    return {node, parsed->index};
  }

  FunctionBody body_;
};

// A Const's attributes: {"value": t}.
inline AttrMap Value(Tensor t) { return {{"value", std::move(t)}}; }

// A float32, float64 or int32 tensor of `dims` with every element `v`.
inline Tensor Filled(DType dtype, std::vector<int64_t> dims, double v) {
  Tensor t = *Tensor::Allocate(dtype, Shape(std::move(dims)));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (dtype == DType::kFloat32) t.data<float>()[i] = static_cast<float>(v);
    if (dtype == DType::kFloat64) t.data<double>()[i] = v;
    if (dtype == DType::kInt32) t.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return t;
}

inline std::string Text(const FunctionBody& body) { return GraphToText(*body.graph, &body.results); }

// Runs `pass` on `body`, checks the result with VerifyBody, returns whether it changed.
inline bool RunPass(const Pass& pass, FunctionBody& body) {
  auto changed = pass.Run(body);
  EXPECT_TRUE(changed.ok()) << changed.status();
  Status valid = VerifyBody(body);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Text(body);
  return changed.ok() && *changed;
}

}  // namespace graphd::compiler::passes::test

#endif  // GRAPHD_COMPILER_PASSES_PASS_TEST_UTIL_H_
