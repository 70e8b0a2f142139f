// A cache-hit source call allocates nothing on its signature path (issue 14): the
// call's key built into a reused buffer, the session's trace record and the function
// cache looked up. This binary counts every operator new while the path runs.
#include <atomic>
#include <cstdlib>
#include <new>

#include "compiler/cache/function_cache.h"
#include "compiler/tracer/tensor_value.h"
#include "gtest/gtest.h"
#include "compiler/cache/call_signature.h"
#include "server/used_signatures.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<int64_t> allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace graphd::server {
namespace {

using compiler::tracer::Value;

Value EagerTensor(DType dtype, std::vector<int64_t> dims) {
  auto t = std::make_shared<compiler::tracer::TensorObj>();
  Tensor value = *Tensor::Allocate(dtype, Shape(dims));
  t->dtype = dtype;
  t->shape = PartialShape(value.shape());
  t->value = value;
  return Value::Tensor(std::move(t));
}

TEST(CallSignatureTest, ACacheHitAllocatesNothingOnTheSignaturePath) {
  std::vector<Value> args = {EagerTensor(DType::kFloat32, {8, 224, 224}), EagerTensor(DType::kInt64, {}),
                             Value::Int(3), Value::Float(0.5), Value::Bool(true), Value::None(),
                             Value::Str("a string long enough not to fit in the small-string buffer"),
                             Value::Tuple({Value::Int(1), Value::List({Value::Str("x"), Value::Float(2)})})};
  Value dict = Value::NewDict();
  dict.as_dict()->items.emplace_back(Value::Str("k"), Value::Int(7));
  std::vector<std::pair<std::string, Value>> kwargs = {{"training", Value::Bool(false)}, {"options", dict}};

  compiler::FunctionCache cache;
  UsedSignatures traces;
  const Fingerprint content = Fingerprinter().Add("module").Finish();
  compiler::SignatureKey key;
  ASSERT_TRUE(compiler::AddCallArgs(args, kwargs, key).ok());
  auto compiled = cache.GetOrCompile(content, key.bytes(), [] {
    auto f = std::make_shared<compiler::CompiledFunction>();
    f->id = compiler::NextCompiledFunctionId();
    return StatusOr<std::shared_ptr<compiler::CompiledFunction>>(f);
  });
  ASSERT_TRUE(compiled.ok());
  traces.Record(content, key, *compiled);

  allocations = 0;
  counting = true;
  int hits = 0;
  for (int i = 0; i < 1000; ++i) {
    key.Clear();
    if (!AddCallArgs(args, kwargs, key).ok()) break;
    const UsedSignatures::Item* item = traces.Find(key.bytes());
    if (item != nullptr && cache.Lookup(item->content, key.bytes()) != nullptr) ++hits;
  }
  counting = false;
  EXPECT_EQ(hits, 1000);
  EXPECT_EQ(allocations.load(), 0) << "allocations on 1000 cache-hit signature paths";

  // The counter works: a miss's key copy allocates.
  counting = true;
  std::string copy(key.bytes());
  counting = false;
  EXPECT_GT(allocations.load(), 0);
  EXPECT_FALSE(copy.empty());
}

TEST(CallSignatureTest, ArgumentsNestedTooDeeplyAreRefused) {
  Value v = Value::Int(1);
  for (int i = 0; i < 1000; ++i) v = Value::List({v});
  compiler::SignatureKey key;
  Status s = compiler::AddCallArgs({v}, {}, key);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("nest deeper"), std::string::npos) << s;
}

}  // namespace
}  // namespace graphd::server
