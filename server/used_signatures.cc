#include "server/used_signatures.h"

namespace graphd::server {

void UsedSignatures::Record(const Fingerprint& content, const compiler::SignatureKey& key,
                            const std::shared_ptr<const compiler::CompiledFunction>& function, bool pin) {
  std::string k(key.bytes());
  if (auto it = items_.find(k); it != items_.end()) {
    it->second.content = content;
    it->second.function = function;
    it->second.pinned = pin ? function : nullptr;
    return;
  }
  if (order_.size() >= kMaxItems) {
    items_.erase(order_.front());
    order_.pop_front();
  }
  items_.emplace(k, Item{key, content, function, pin ? function : nullptr});
  order_.push_back(std::move(k));
}

const UsedSignatures::Item* UsedSignatures::Find(absl::string_view key) const {
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : &it->second;
}

std::shared_ptr<const compiler::CompiledFunction> UsedSignatures::FindAccepting(const compiler::SignatureKey& call,
                                                                                compiler::FunctionCache& cache,
                                                                                compiler::SignatureKey* key) const {
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const Item& item = items_.at(*it);
    if (!compiler::SignatureKey::Accepts(item.key, call)) continue;
    auto found = cache.Lookup(item.content, item.key.bytes());
    if (found == nullptr) found = item.pinned;
    if (found != nullptr) {
      *key = item.key;
      return found;
    }
  }
  return nullptr;
}

compiler::SignatureKey UsedSignatures::Generalized(const compiler::SignatureKey& call) const {
  if (!order_.empty()) {
    if (auto general = compiler::SignatureKey::Generalize(items_.at(order_.back()).key, call)) {
      return *std::move(general);
    }
  }
  return call;
}

}  // namespace graphd::server
