// Every registered op is accounted for (issue 14), so that adding an op or a kernel
// without its test, or an op without a GPU kernel, fails here instead of silently
// running untested or on the CPU:
// - every op has a CPU kernel, except the ops the executor runs itself (Arg, If,
//   While);
// - every op is named (as a string literal) by a CPU conformance test in
//   tests/conformance/cpu/, or listed with a reason in ops_without_cpu_test.txt;
// - the ops without a GPU kernel are exactly those listed in
//   gpu/ops_without_gpu_kernel.txt (checked where graphd is built with CUDA).
// A listed op that is now covered fails too: the lists only shrink. And the OpTrait
// bits passes rely on hold for what inference says of each op that has them.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/graph/op_registry.h"
#include "executor/cpu/kernels.h"
#include "executor/gpu/gpu_support.h"
#include "executor/kernel_registry.h"
#include "gmock/gmock.h"

namespace graphd::executor::test {
namespace {

const std::filesystem::path kTests = std::filesystem::path(GRAPHD_SOURCE_DIR) / "tests" / "conformance";
const std::set<std::string> kRuntimeOps = {"Arg", "If", "While"};

std::set<std::string> RegisteredOps() {
  std::vector<std::string> names = OpRegistry::Global().OpNames();
  return {names.begin(), names.end()};
}

// "Op: reason" lines (# comments and blank lines skipped) of a list file.
std::map<std::string, std::string> ReadList(const std::filesystem::path& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    std::string op = line.substr(0, colon);
    std::string reason = colon == std::string::npos ? "" : line.substr(colon + 1);
    EXPECT_FALSE(reason.find_first_not_of(' ') == std::string::npos) << path << ": '" << op << "' has no reason";
    out[op] = reason;
  }
  return out;
}

// Every string literal of the CPU conformance tests.
std::set<std::string> LiteralsOfCpuTests() {
  std::set<std::string> out;
  const std::regex literal("\"([A-Za-z0-9_]+)\"");
  for (const auto& entry : std::filesystem::directory_iterator(kTests / "cpu")) {
    if (entry.path().extension() != ".cc") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), literal), end; it != end; ++it) out.insert((*it)[1]);
  }
  return out;
}

// `listed` must be exactly the ops of `ops` for which `uncovered` holds.
void ExpectListIsExact(const std::string& what, const std::set<std::string>& ops,
                       const std::map<std::string, std::string>& listed,
                       const std::function<bool(const std::string&)>& uncovered) {
  for (const std::string& op : ops) {
    if (uncovered(op)) {
      EXPECT_TRUE(listed.contains(op)) << op << ": " << what << " (list it with a reason, or cover it)";
    } else {
      EXPECT_FALSE(listed.contains(op)) << op << " is listed as without " << what << " but now has it: remove it";
    }
  }
  for (const auto& [op, reason] : listed) EXPECT_TRUE(ops.contains(op)) << op << " is listed but is not an op";
}

// Output types inferred for `op` over float32 inputs of `shape`.
StatusOr<std::vector<TensorType>> InferOver(const OpDef& op, const PartialShape& shape, const AttrMap& attrs) {
  const int n = op.num_inputs == OpDef::kVariadic ? std::max(op.min_inputs, 1) : op.num_inputs;
  std::vector<TensorType> inputs(n, TensorType{DType::kFloat32, shape});
  InferenceContext c("out", op, inputs, attrs);
  RETURN_IF_ERROR(op.infer(c));
  return c.outputs();
}

// Every OpId the passes match on names exactly one registered op: a renamed or removed
// op fails here instead of a pass silently no longer matching it.
TEST(OpCoverageTest, EveryOpIdNamesOneRegisteredOp) {
  std::vector<int> seen(static_cast<int>(OpId::kCount), 0);
  for (const std::string& name : RegisteredOps()) {
    const OpDef& op = *OpRegistry::Global().Find(name);
    ++seen[static_cast<int>(op.id)];
  }
  for (int id = 1; id < static_cast<int>(OpId::kCount); ++id) {
    EXPECT_EQ(seen[id], 1) << "OpId " << id << " is given to " << seen[id] << " ops (core/ops/op_traits.cc)";
  }
  EXPECT_EQ(OpRegistry::Global().Find("ConvND")->id, OpId::kConvND);
  EXPECT_EQ(OpRegistry::Global().Find("Const")->id, OpId::kConst);
  EXPECT_EQ(OpRegistry::Global().Find("Softmax")->id, OpId::kOther);
}

TEST(OpCoverageTest, TraitsHoldForWhatInferenceSays) {
  const PartialShape shape(std::vector<int64_t>{2, 3, 4, 5});
  int elementwise = 0, reductions = 0;
  for (const std::string& name : RegisteredOps()) {
    const OpDef& op = *OpRegistry::Global().Find(name);
    if (op.Has(kElementwise)) {
      ++elementwise;
      auto out = InferOver(op, shape, {});
      ASSERT_TRUE(out.ok()) << name << ": " << out.status();
      ASSERT_EQ(out->size(), 1u) << name;
      EXPECT_EQ((*out)[0].shape, shape) << name << " is marked elementwise";
      EXPECT_FALSE(op.stateful) << name;
    }
    if (op.Has(kAxisReduction)) {
      ++reductions;
      auto out = InferOver(op, shape, {{"axis", IntList{1, 3}}, {"keep_dims", true}});
      ASSERT_TRUE(out.ok()) << name << ": " << out.status();
      ASSERT_EQ(out->size(), 1u) << name;
      EXPECT_EQ((*out)[0].shape, PartialShape(std::vector<int64_t>{2, 1, 4, 1})) << name << " is marked a reduction";
    }
  }
  EXPECT_GE(elementwise, 39);
  EXPECT_EQ(reductions, 5);
}

TEST(OpCoverageTest, EveryOpHasACpuKernel) {
  KernelRegistry registry;
  cpu::RegisterCpuKernels(registry);
  std::vector<std::string> with_kernel = registry.Ops(cpu::kCpu);
  const std::set<std::string> kernels(with_kernel.begin(), with_kernel.end());
  for (const std::string& op : RegisteredOps()) {
    if (kRuntimeOps.contains(op)) continue;
    EXPECT_TRUE(kernels.contains(op)) << op << " has no CPU kernel";
  }
  EXPECT_GT(kernels.size(), 100u);
}

TEST(OpCoverageTest, EveryOpHasACpuConformanceTestOrIsListed) {
  const std::set<std::string> literals = LiteralsOfCpuTests();
  std::set<std::string> ops = RegisteredOps();
  for (const std::string& op : kRuntimeOps) ops.erase(op);
  ExpectListIsExact("a CPU conformance test", ops, ReadList(kTests / "ops_without_cpu_test.txt"),
                    [&](const std::string& op) { return !literals.contains(op); });
}

TEST(OpCoverageTest, OpsWithoutAGpuKernelAreListed) {
  const std::vector<std::string> gpu = gpu::GpuKernelOps();
  if (gpu.empty()) GTEST_SKIP() << "graphd is built without CUDA: no GPU kernel table";
  const std::set<std::string> with_kernel(gpu.begin(), gpu.end());
  ExpectListIsExact("a GPU kernel", RegisteredOps(), ReadList(kTests / "gpu" / "ops_without_gpu_kernel.txt"),
                    [&](const std::string& op) { return !with_kernel.contains(op); });
}

}  // namespace
}  // namespace graphd::executor::test
