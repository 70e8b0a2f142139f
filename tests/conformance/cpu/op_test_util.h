// Helpers for the op-family conformance tests on top of test_util.h: running ops with
// several outputs, checking inference errors, and string tensors.
#ifndef GRAPHD_TESTS_CONFORMANCE_CPU_OP_TEST_UTIL_H_
#define GRAPHD_TESTS_CONFORMANCE_CPU_OP_TEST_UTIL_H_

#include <string>
#include <vector>

#include "tests/conformance/cpu/test_util.h"

namespace graphd::executor::test {

// Runs node "out" = op(inputs...) and fetches all its outputs.
inline StatusOr<std::vector<Tensor>> RunOpAll(const std::string& op,
                                              const std::vector<Tensor>& inputs,
                                              AttrMap attrs = {}) {
  Graph g;
  NodeSpec spec{.name = "out", .op = op, .attrs = std::move(attrs)};
  Feeds feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = "in" + std::to_string(i);
    const Node* p = AddPlaceholder(g, name, inputs[i].dtype(), inputs[i].shape());
    if (p == nullptr) return errors::Internal("placeholder");
    spec.inputs.push_back({p, 0});
    feeds.emplace_back(name, inputs[i]);
  }
  ASSIGN_OR_RETURN(const Node* node, g.AddNode(std::move(spec)));
  std::vector<std::string> fetches;
  for (int i = 0; i < node->num_outputs(); ++i) fetches.push_back("out:" + std::to_string(i));
  return RunGraph(g, feeds, fetches);
}

// Adds node "out" = op(placeholders of `inputs`) to a fresh graph: the inference
// result (its output types) or error.
inline StatusOr<std::vector<TensorType>> Infer(const std::string& op,
                                               const std::vector<TensorType>& inputs,
                                               AttrMap attrs = {}) {
  Graph g;
  NodeSpec spec{.name = "out", .op = op, .attrs = std::move(attrs)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node* p = AddPlaceholder(g, "in" + std::to_string(i), inputs[i].dtype, inputs[i].shape);
    if (p == nullptr) return errors::Internal("placeholder");
    spec.inputs.push_back({p, 0});
  }
  ASSIGN_OR_RETURN(const Node* node, g.AddNode(std::move(spec)));
  std::vector<TensorType> out;
  for (int i = 0; i < node->num_outputs(); ++i) out.push_back(node->output(i));
  return out;
}

inline TensorType TT(DType dtype, std::vector<int64_t> dims) {
  return {dtype, PartialShape(std::move(dims))};
}

// The message of a failed inference ("" when it succeeded).
inline std::string InferError(const std::string& op, const std::vector<TensorType>& inputs,
                              AttrMap attrs = {}) {
  auto r = Infer(op, inputs, std::move(attrs));
  return r.ok() ? "" : std::string(r.status().message());
}

inline Tensor MakeStrings(const Shape& shape, const std::vector<std::string>& values) {
  Tensor t = Tensor::Allocate(DType::kString, shape).value();
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

inline std::vector<std::string> Strings(const Tensor& t) {
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.num_elements());
}

// Row-major multi-index of flat position `i` in `dims`.
inline std::vector<int64_t> Unflatten(int64_t i, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    index[k] = i % dims[k];
    i /= dims[k];
  }
  return index;
}

inline int64_t Flatten(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  int64_t i = 0;
  for (size_t k = 0; k < dims.size(); ++k) i = i * dims[k] + index[k];
  return i;
}

}  // namespace graphd::executor::test

#endif  // GRAPHD_TESTS_CONFORMANCE_CPU_OP_TEST_UTIL_H_
