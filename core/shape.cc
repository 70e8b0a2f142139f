#include "core/shape.h"

#include <limits>

#include "absl/strings/str_join.h"

namespace graphd {
namespace {
bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}
}  // namespace

StatusOr<Shape> Shape::Make(std::vector<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return errors::InvalidArgument(
          absl::StrCat("negative dimension ", d, " in shape [", absl::StrJoin(dims, ","), "]"));
    }
    if (MulOverflows(count, d, &count)) {
      return errors::InvalidArgument(absl::StrCat(
          "shape [", absl::StrJoin(dims, ","), "] has more elements than fit in int64"));
    }
  }
  return Shape(std::move(dims));
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::ToString() const { return absl::StrCat("[", absl::StrJoin(dims_, ","), "]"); }

StatusOr<PartialShape> PartialShape::Make(std::vector<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < kUnknownDim) {
      return errors::InvalidArgument(
          absl::StrCat("negative dimension ", d, " in shape [", absl::StrJoin(dims, ","),
                       "] (only -1, meaning unknown, is allowed)"));
    }
    if (d >= 0 && MulOverflows(count, d, &count)) {
      return errors::InvalidArgument(absl::StrCat(
          "shape [", absl::StrJoin(dims, ","), "] has more elements than fit in int64"));
    }
  }
  return PartialShape(std::move(dims));
}

bool PartialShape::fully_defined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_) {
    if (d == kUnknownDim) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWith(const Shape& shape) const {
  if (!known_rank_) return true;
  if (rank() != shape.rank()) return false;
  for (int i = 0; i < rank(); ++i) {
    if (dims_[i] != kUnknownDim && dims_[i] != shape.dim(i)) return false;
  }
  return true;
}

int64_t PartialShape::num_elements() const {
  if (!fully_defined()) return kUnknownDim;
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (MulOverflows(n, d, &n)) return kUnknownDim;
  }
  return n;
}

std::string PartialShape::ToString() const {
  if (!known_rank_) return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < rank(); ++i) {
    if (i) out += ",";
    out += dims_[i] == kUnknownDim ? "?" : std::to_string(dims_[i]);
  }
  return out + "]";
}

StatusOr<PartialShape> BroadcastShapes(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return PartialShape::UnknownRank();
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      out[i] = db;
    } else if (db == 1) {
      out[i] = da;
    } else if (da == kUnknownDim || db == kUnknownDim) {
      out[i] = da == kUnknownDim ? db : da;
    } else if (da == db) {
      out[i] = da;
    } else {
      return errors::InvalidArgument(absl::StrCat("shapes ", a.ToString(), " and ",
                                                  b.ToString(), " cannot be broadcast"));
    }
  }
  return PartialShape(std::move(out));
}

}  // namespace graphd
