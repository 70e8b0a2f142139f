// The structured signature that keys the function cache (with a content fingerprint,
// see function_cache.h): what a concrete function is specialised on, as a compact
// binary encoding of typed items. Tensors are (dtype, rank, dims) with unknown dims
// and rank allowed; Python values are themselves (int, float, bool, str, None and
// containers of these); front ends add named or raw items for what else keys them.
//
// Hashed and compared as bytes: building one into a reused key (Clear keeps the
// capacity) allocates nothing once the buffer has grown, so a cache hit builds no
// strings. The readable form ("(x: float32[2,3])") is the front end's, made only on a
// miss.
//
// The one retracing policy (tf.function's reduce_retracing) is here too: Generalize
// and Accepts over two keys.
//
// A value type; not thread-safe (use one per thread).
#ifndef GRAPHD_COMPILER_CACHE_SIGNATURE_KEY_H_
#define GRAPHD_COMPILER_CACHE_SIGNATURE_KEY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace graphd::compiler {

class SignatureKey {
 public:
  // Item tags (the first byte of each item).
  enum Tag : char {
    kTensor = 'T',   // dtype, rank (-1: unknown), dims (-1: unknown)
    // A tensor keyed by its value (traced as a constant): dtype, rank and dims as
    // kTensor's, its value in the items after. Never generalised, and not among
    // TensorShapes (a trace's shapes are those of its fed tensors).
    kConstTensor = 'K',
    kInt = 'i',
    kFloat = 'f',
    kBool = 'b',
    kStr = 's',
    kNone = 'n',
    kTuple = '(',    // followed by its item count, then the items
    kList = '[',
    kDict = '{',     // count, then key and value items alternately
    kName = 'k',     // a keyword argument's name (or another label)
    kRaw = 'r',      // front-end bytes compared exactly (an object's repr, a mode)
  };

  void Clear() { bytes_.clear(); }
  absl::string_view bytes() const { return bytes_; }
  bool empty() const { return bytes_.empty(); }

  void AddTensor(DType dtype, absl::Span<const int64_t> dims) {  // a fully known shape
    AddTensorItem(kTensor, dtype, dims);
  }
  void AddTensor(DType dtype, const PartialShape& shape);
  void AddConstTensor(DType dtype, absl::Span<const int64_t> dims) {  // then its value
    AddTensorItem(kConstTensor, dtype, dims);
  }
  void AddInt(int64_t v);
  void AddFloat(double v);
  void AddBool(bool v);
  void AddStr(absl::string_view v);
  void AddNone() { bytes_.push_back(kNone); }
  void OpenContainer(Tag tag, uint32_t count);
  void AddName(absl::string_view name);
  void AddRaw(absl::string_view bytes);

  // The most specific key both `previous` and `call` are instances of, when they
  // differ only in tensor shapes (same items, Python values and dtypes): dims that
  // differ become unknown, ranks that differ an unknown rank (TensorFlow's
  // most_specific_common_supertype). nullopt otherwise.
  static std::optional<SignatureKey> Generalize(const SignatureKey& previous, const SignatureKey& call);
  // True when a function specialised on `general` also serves `call`: the same items,
  // each tensor of the same dtype with a shape `general`'s shape stands for.
  static bool Accepts(const SignatureKey& general, const SignatureKey& call);
  // The shapes of its kTensor items, in order (to trace or build for a generalised key).
  std::vector<PartialShape> TensorShapes() const;

 private:
  void AppendInt(int64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof(v)); }
  void AddTensorItem(Tag tag, DType dtype, absl::Span<const int64_t> dims);
  void AppendLength(absl::string_view s);

  std::string bytes_;
};

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_SIGNATURE_KEY_H_
