// What the compile driver (compile.h) makes and the function cache (function_cache.h)
// holds: one concrete function, optimised for a device and planned, immutable once
// made and shared by every session that calls it (their variables are resolved per
// run; see executor's RunContext).
//
// compiler/ does not see the executor: a plan is an Executable, made by the
// CompileTarget's PlanBuilder the server wires, and read back by the server, which
// knows its type.
#ifndef GRAPHD_COMPILER_CACHE_COMPILED_FUNCTION_H_
#define GRAPHD_COMPILER_CACHE_COMPILED_FUNCTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/graph/function.h"

namespace graphd::compiler {

// A runnable form of a function (the executor's Plan).
class Executable {
 public:
  virtual ~Executable() = default;
};

// What a front end keeps with a concrete function (the source path: the output
// structure and the trace's printed text).
class FrontEndData {
 public:
  virtual ~FrontEndData() = default;
};

// The measured time of a concrete function's latest successful run, which decides
// whether a cache-hit call is short enough to run inline on the thread that received
// it (see server/service/pooled_call.h). Thread-safe.
class RunCost {
 public:
  void Record(int64_t us) { last_us_.store(us, std::memory_order_relaxed); }
  // True when it has run and its latest run took at most `limit_us`.
  bool Within(int64_t limit_us) const {
    int64_t last = last_us_.load(std::memory_order_relaxed);
    return last >= 0 && last <= limit_us;
  }

 private:
  std::atomic<int64_t> last_us_{-1};
};

struct CompiledFunction {
  // Unique in the process: sessions key their own bookkeeping (which concrete
  // functions they have used, initialised) on it.
  uint64_t id = 0;
  // Readable: "(x: float32[2,3])"; what DescribeFunction lists.
  std::string signature;
  // The optimised function the plan runs (the plan points into it).
  FunctionRef function;
  std::unique_ptr<const Executable> plan;
  // Run once per variable store before the first run (the initialisers of variables a
  // traced function created on its first trace), or null.
  std::unique_ptr<const Executable> init_plan;
  FunctionRef init_function;  // what init_plan points into
  std::shared_ptr<const FrontEndData> front_end;
  // Bytes of constants it holds (what the cache's byte bound counts).
  int64_t bytes = 0;
  int64_t compile_us = 0;
  mutable RunCost cost;
};

// Bytes of the constant tensors in `function` and the functions its nodes name.
int64_t ConstantBytes(const Function& function);

// A fresh CompiledFunction::id.
uint64_t NextCompiledFunctionId();

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_COMPILED_FUNCTION_H_
