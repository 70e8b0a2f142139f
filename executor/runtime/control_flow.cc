#include "executor/runtime/control_flow.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "core/graph/function.h"
#include "executor/runtime/executor.h"

namespace graphd::executor {
namespace {

// Fed by the caller of the body; nothing to compute.
class ArgKernel : public OpKernel {
 public:
  Status Compute(KernelContext&) override { return absl::OkStatus(); }
};

// The plans of the function bodies built under the outermost BodyPlan call on this
// thread, by function and device. A function that several If/While nodes use (the
// branches of an If naming the same function, or nesting reaching it along several
// paths) is planned once and its plan shared (plans are immutable): building is then
// linear in the distinct functions, where planning per use was exponential in the
// nesting depth (a client's 300 nested Ifs whose branches both name the next).
using PlanMemo = absl::flat_hash_map<std::pair<const Function*, const Device*>, std::shared_ptr<const Plan>>;
thread_local PlanMemo* plan_memo = nullptr;

StatusOr<std::shared_ptr<const Plan>> BodyPlan(const Node& node, absl::string_view attr, const Device& device) {
  const FunctionRef& fn = std::get<FunctionRef>(node.attrs().find(attr)->second);
  PlanMemo own;
  const bool outermost = plan_memo == nullptr;
  if (outermost) plan_memo = &own;
  struct Reset {
    bool active;
    ~Reset() {
      if (active) plan_memo = nullptr;
    }
  } reset{outermost};
  const auto key = std::make_pair(fn.get(), &device);
  if (auto it = plan_memo->find(key); it != plan_memo->end()) return it->second;
  ASSIGN_OR_RETURN(std::unique_ptr<const Plan> plan, Plan::Build(SpecForFunction(*fn), device));
  std::shared_ptr<const Plan> shared = std::move(plan);
  plan_memo->emplace(key, shared);
  return shared;
}

RunContext BodyContext(const KernelContext& ctx) {
  return RunContext{.variables = ctx.variable_store(), .cancellation = &ctx.cancellation(), .output = ctx.output()};
}

// Reads a bool scalar (If's condition, While's cond result).
bool Truth(const Tensor& t) { return t.data<bool>()[0]; }

class IfKernel : public OpKernel {
 public:
  IfKernel(std::shared_ptr<const Plan> then_plan, std::shared_ptr<const Plan> else_plan)
      : then_(std::move(then_plan)), else_(std::move(else_plan)) {}

  Status Compute(KernelContext& ctx) override {
    std::vector<Tensor> args;
    args.reserve(ctx.num_inputs() - 1);
    for (int i = 1; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
    const Plan& branch = Truth(ctx.input(0)) ? *then_ : *else_;
    ASSIGN_OR_RETURN(std::vector<Tensor> results, Execute(branch, std::move(args), BodyContext(ctx)));
    for (size_t i = 0; i < results.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(results[i]));
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const Plan> then_, else_;
};

class WhileKernel : public OpKernel {
 public:
  WhileKernel(std::shared_ptr<const Plan> cond, std::shared_ptr<const Plan> body)
      : cond_(std::move(cond)), body_(std::move(body)) {}

  // Runs cond and body in place through one runner each: the loop variables move
  // from one iteration to the next and buffers are reused, so a scalar iteration
  // allocates nothing.
  Status Compute(KernelContext& ctx) override {
    std::vector<Tensor> vars;
    vars.reserve(ctx.num_inputs());
    for (int i = 0; i < ctx.num_inputs(); ++i) vars.push_back(ctx.input(i));
    RunContext run = BodyContext(ctx);
    // The token is checked once per iteration, here.
    PlanRunner cond(*cond_, /*check_each_step=*/false), body(*body_, /*check_each_step=*/false);
    std::vector<Tensor> c;
    c.reserve(vars.size());
    while (true) {
      RETURN_IF_ERROR(ctx.cancellation().Check());
      c.assign(vars.begin(), vars.end());
      RETURN_IF_ERROR(cond.Run(c, run));
      const bool again = Truth(c[0]);
      for (Tensor& t : c) cond.Recycle(std::move(t));
      if (!again) break;
      RETURN_IF_ERROR(body.Run(vars, run));
    }
    for (size_t i = 0; i < vars.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(vars[i]));
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const Plan> cond_, body_;
};

}  // namespace

bool IsRuntimeOp(const Node& node) {
  const std::string& op = node.op_name();
  return op == "Arg" || op == "If" || op == "While";
}

StatusOr<std::unique_ptr<OpKernel>> CreateRuntimeKernel(const Node& node, const Device& device) {
  const std::string& op = node.op_name();
  if (op == "Arg") return std::unique_ptr<OpKernel>(std::make_unique<ArgKernel>());
  if (op == "If") {
    ASSIGN_OR_RETURN(auto then_plan, BodyPlan(node, "then_branch", device));
    ASSIGN_OR_RETURN(auto else_plan, BodyPlan(node, "else_branch", device));
    return std::unique_ptr<OpKernel>(std::make_unique<IfKernel>(std::move(then_plan), std::move(else_plan)));
  }
  if (op == "While") {
    ASSIGN_OR_RETURN(auto cond, BodyPlan(node, "cond", device));
    ASSIGN_OR_RETURN(auto body, BodyPlan(node, "body", device));
    return std::unique_ptr<OpKernel>(std::make_unique<WhileKernel>(std::move(cond), std::move(body)));
  }
  return errors::Internal(absl::StrCat("'", op, "' is not a runtime op"));
}

}  // namespace graphd::executor
