// The signature key of a source function call (compiler/cache/signature_key.h):
// what the function cache and a session's trace record are keyed on. Built on every
// call, so it allocates nothing for what calls pass (tensors, Python scalars,
// strings, and tuples, lists and dicts of these) once the key's buffer has grown:
// a cache hit builds no strings.
#ifndef GRAPHD_COMPILER_CACHE_CALL_SIGNATURE_H_
#define GRAPHD_COMPILER_CACHE_CALL_SIGNATURE_H_

#include <string>
#include <utility>
#include <vector>

#include "compiler/cache/signature_key.h"
#include "core/status.h"
#include "compiler/tracer/value.h"

namespace graphd::compiler {

// Adds positional `args`, then each keyword as its name and value. Top-level eager
// tensors are keyed by dtype and shape (they are fed); anything else by value: a
// tensor inside a container (traced as a constant) by dtype, shape and elements, a
// tf.Variable by its store name, a function by its serial, an instance of a user
// class by its identity, other objects by their type and repr (which allocates).
// InvalidArgument when containers nest deeper than kMaxArgDepth.
inline constexpr int kMaxArgDepth = 100;
Status AddCallArgs(const std::vector<tracer::Value>& args,
                 const std::vector<std::pair<std::string, tracer::Value>>& kwargs,
                 SignatureKey& key);

// A pinned signature (input_signature, or a concrete function's `mode` "concrete"):
// the mode and each TensorSpec.
void AddPinnedSignature(absl::string_view mode, const std::vector<tracer::Value>& specs,
                        SignatureKey& key);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_CALL_SIGNATURE_H_
