#include "compiler/tracer/nest.h"

#include <algorithm>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// Tuples, lists and sequence objects (namedtuples). A list that a staged loop turns
// into a TensorArray is one value, not a structure.
bool IsSequence(const Value& v) {
  return v.is(K::kTuple) || (v.is(K::kList) && v.as_list()->element_dtype == 0) ||
         (v.is(K::kObject) && v.as_object()->Items() != nullptr);
}

bool IsStructure(const Value& v) { return IsSequence(v) || v.is(K::kDict); }

const std::vector<Value>& Items(const Value& v) {
  if (v.is(K::kObject)) return *v.as_object()->Items();
  return v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items;
}

// A dict's item indices in the order its values flatten in: by key repr.
std::vector<size_t> SortedKeys(const DictObj& d) {
  std::vector<std::string> reprs;
  for (const auto& item : d.items) reprs.push_back(PyRepr(item.first));
  std::vector<size_t> order(d.items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return reprs[a] < reprs[b]; });
  return order;
}

Status Flatten(const Value& v, std::vector<Value>& leaves, int depth) {
  if (!IsStructure(v)) {
    leaves.push_back(v);
    return absl::OkStatus();
  }
  if (depth >= kMaxNestDepth) {
    return PyError("RecursionError", "a structure of values given to staged control flow or a tf.function is "
                                     "nested more than " + std::to_string(kMaxNestDepth) + " levels deep");
  }
  if (v.is(K::kDict)) {
    for (size_t i : SortedKeys(*v.as_dict())) RETURN_IF_ERROR(Flatten(v.as_dict()->items[i].second, leaves, depth + 1));
    return absl::OkStatus();
  }
  for (const Value& item : Items(v)) RETURN_IF_ERROR(Flatten(item, leaves, depth + 1));
  return absl::OkStatus();
}

std::optional<std::string> Mismatch(const Value& a, const Value& b, bool alike, int depth) {
  if (!IsStructure(a) && !IsStructure(b)) return std::nullopt;
  if (depth >= kMaxNestDepth) return "nested too deeply to compare";
  const bool same_kind = (a.kind() == b.kind() && a.TypeName() == b.TypeName()) ||
                         (alike && IsSequence(a) && IsSequence(b));
  if (!same_kind || IsStructure(a) != IsStructure(b)) {
    return "a " + a.TypeName() + " and a " + b.TypeName() + " are not the same structure";
  }
  if (a.is(K::kDict)) {
    const auto& ia = a.as_dict()->items;
    const auto& ib = b.as_dict()->items;
    if (ia.size() != ib.size()) {
      return "dicts of " + std::to_string(ia.size()) + " and " + std::to_string(ib.size()) + " keys";
    }
    for (size_t i = 0; i < ia.size(); ++i) {
      auto j = b.as_dict()->Find(ia[i].first);
      if (!j.ok() || *j < 0) return "the dicts have different keys";
      if (auto m = Mismatch(ia[i].second, ib[*j].second, alike, depth + 1)) return m;
    }
    return std::nullopt;
  }
  const auto& ia = Items(a);
  const auto& ib = Items(b);
  if (ia.size() != ib.size()) {
    return "a " + a.TypeName() + " of length " + std::to_string(ia.size()) + " and a " + b.TypeName() +
           " of length " + std::to_string(ib.size());
  }
  for (size_t i = 0; i < ia.size(); ++i) {
    if (auto m = Mismatch(ia[i], ib[i], alike, depth + 1)) return m;
  }
  return std::nullopt;
}

}  // namespace

bool IsTensorLikeObject(const Value& v) { return v.is(K::kObject) && v.as_object() && v.as_object()->IsTensorLike(); }

Status FlattenLeaves(const Value& v, std::vector<Value>& leaves) { return Flatten(v, leaves, 0); }

std::optional<std::string> StructureMismatch(const Value& a, const Value& b, bool sequences_alike) {
  return Mismatch(a, b, sequences_alike, 0);
}

Value PackLike(const Value& like, const std::vector<Value>& leaves, size_t* pos) {
  if (!IsStructure(like)) return leaves[(*pos)++];
  if (like.is(K::kDict)) {
    const DictObj& d = *like.as_dict();
    std::vector<Value> values(d.items.size());
    for (size_t i : SortedKeys(d)) values[i] = PackLike(d.items[i].second, leaves, pos);
    Value out = Value::NewDict();
    for (size_t i = 0; i < d.items.size(); ++i) out.as_dict()->items.emplace_back(d.items[i].first, values[i]);
    return out;
  }
  std::vector<Value> items;
  for (const Value& item : Items(like)) items.push_back(PackLike(item, leaves, pos));
  if (like.is(K::kObject)) return Value::Obj(like.as_object()->WithItems(std::move(items)));
  return like.is(K::kTuple) ? Value::Tuple(std::move(items)) : Value::List(std::move(items));
}

}  // namespace graphd::compiler::tracer
