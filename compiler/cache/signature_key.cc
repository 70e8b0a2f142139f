#include "compiler/cache/signature_key.h"

#include <cstring>

namespace graphd::compiler {
namespace {

int64_t ReadInt(absl::string_view b, size_t at) {
  int64_t v;
  std::memcpy(&v, b.data() + at, sizeof(v));
  return v;
}

// The byte length of the item starting at `at` (kTensor, kConstTensor: tag, dtype, rank,
// dims).
size_t ItemSize(absl::string_view b, size_t at) {
  switch (b[at]) {
    case SignatureKey::kTensor:
    case SignatureKey::kConstTensor: {
      int64_t rank = ReadInt(b, at + 2);
      return 2 + 8 + 8 * static_cast<size_t>(rank < 0 ? 0 : rank);
    }
    case SignatureKey::kInt:
    case SignatureKey::kFloat:
      return 9;
    case SignatureKey::kBool:
      return 2;
    case SignatureKey::kNone:
      return 1;
    case SignatureKey::kTuple:
    case SignatureKey::kList:
    case SignatureKey::kDict:
      return 5;
    default:  // kStr, kName, kRaw: tag, u32 length, bytes
      uint32_t n;
      std::memcpy(&n, b.data() + at + 1, sizeof(n));
      return 5 + n;
  }
}

struct TensorItem {
  DType dtype;
  int64_t rank;
  const char* dims;
  int64_t dim(int64_t i) const {
    int64_t v;
    std::memcpy(&v, dims + 8 * i, sizeof(v));
    return v;
  }
};

TensorItem ReadTensor(absl::string_view b, size_t at) {
  return {static_cast<DType>(static_cast<uint8_t>(b[at + 1])), ReadInt(b, at + 2), b.data() + at + 10};
}

// Walks `a` and `b` item by item; non-tensor items must be equal bytes, and each
// tensor pair goes to `on_tensors` (false stops the walk: not matching).
template <typename F>
bool Walk(absl::string_view a, absl::string_view b, F on_tensors) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    size_t na = ItemSize(a, i), nb = ItemSize(b, j);
    if (a[i] == SignatureKey::kTensor && b[j] == SignatureKey::kTensor) {
      if (!on_tensors(ReadTensor(a, i), ReadTensor(b, j))) return false;
    } else if (a.substr(i, na) != b.substr(j, nb)) {
      return false;
    }
    i += na;
    j += nb;
  }
  return i == a.size() && j == b.size();
}

}  // namespace

void SignatureKey::AppendLength(absl::string_view s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  bytes_.append(reinterpret_cast<const char*>(&n), sizeof(n));
  bytes_.append(s.data(), s.size());
}

void SignatureKey::AddTensorItem(Tag tag, DType dtype, absl::Span<const int64_t> dims) {
  bytes_.push_back(tag);
  bytes_.push_back(static_cast<char>(static_cast<uint8_t>(dtype)));
  AppendInt(static_cast<int64_t>(dims.size()));
  for (int64_t d : dims) AppendInt(d);
}

void SignatureKey::AddTensor(DType dtype, const PartialShape& shape) {
  bytes_.push_back(kTensor);
  bytes_.push_back(static_cast<char>(static_cast<uint8_t>(dtype)));
  if (!shape.known_rank()) {
    AppendInt(-1);
    return;
  }
  AppendInt(shape.rank());
  for (int i = 0; i < shape.rank(); ++i) AppendInt(shape.dim(i));
}

void SignatureKey::AddInt(int64_t v) {
  bytes_.push_back(kInt);
  AppendInt(v);
}

void SignatureKey::AddFloat(double v) {
  bytes_.push_back(kFloat);
  bytes_.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void SignatureKey::AddBool(bool v) {
  bytes_.push_back(kBool);
  bytes_.push_back(v ? 1 : 0);
}

void SignatureKey::AddStr(absl::string_view v) {
  bytes_.push_back(kStr);
  AppendLength(v);
}

void SignatureKey::OpenContainer(Tag tag, uint32_t count) {
  bytes_.push_back(tag);
  bytes_.append(reinterpret_cast<const char*>(&count), sizeof(count));
}

void SignatureKey::AddName(absl::string_view name) {
  bytes_.push_back(kName);
  AppendLength(name);
}

void SignatureKey::AddRaw(absl::string_view raw) {
  bytes_.push_back(kRaw);
  AppendLength(raw);
}

std::optional<SignatureKey> SignatureKey::Generalize(const SignatureKey& previous, const SignatureKey& call) {
  absl::string_view a = previous.bytes_, b = call.bytes_;
  SignatureKey out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    size_t na = ItemSize(a, i), nb = ItemSize(b, j);
    if (a[i] == kTensor && b[j] == kTensor) {
      TensorItem p = ReadTensor(a, i), c = ReadTensor(b, j);
      if (p.dtype != c.dtype) return std::nullopt;
      if (p.rank < 0 || p.rank != c.rank) {
        out.AddTensor(p.dtype, PartialShape());
      } else {
        out.bytes_.append(a.data() + i, 10);  // tag, dtype, rank
        for (int64_t d = 0; d < p.rank; ++d) out.AppendInt(p.dim(d) == c.dim(d) ? p.dim(d) : kUnknownDim);
      }
    } else if (a.substr(i, na) == b.substr(j, nb)) {
      out.bytes_.append(a.data() + i, na);
    } else {
      return std::nullopt;
    }
    i += na;
    j += nb;
  }
  if (i != a.size() || j != b.size()) return std::nullopt;
  return out;
}

bool SignatureKey::Accepts(const SignatureKey& general, const SignatureKey& call) {
  return Walk(general.bytes_, call.bytes_, [](const TensorItem& g, const TensorItem& c) {
    if (g.dtype != c.dtype) return false;
    if (g.rank < 0) return true;
    if (c.rank != g.rank) return false;
    for (int64_t d = 0; d < g.rank; ++d) {
      if (g.dim(d) != kUnknownDim && g.dim(d) != c.dim(d)) return false;
    }
    return true;
  });
}

std::vector<PartialShape> SignatureKey::TensorShapes() const {
  std::vector<PartialShape> shapes;
  for (size_t at = 0; at < bytes_.size(); at += ItemSize(bytes_, at)) {
    if (bytes_[at] != kTensor) continue;
    TensorItem t = ReadTensor(bytes_, at);
    if (t.rank < 0) {
      shapes.emplace_back();
      continue;
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < t.rank; ++d) dims.push_back(t.dim(d));
    shapes.emplace_back(dims);
  }
  return shapes;
}

}  // namespace graphd::compiler
