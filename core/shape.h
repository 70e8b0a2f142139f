// Tensor shapes. `Shape` is fully known (every dimension >= 0). `PartialShape` may
// have unknown dimensions (kUnknownDim) or an unknown rank; it is what shape
// inference and placeholders work with.
#ifndef GRAPHD_CORE_SHAPE_H_
#define GRAPHD_CORE_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphd {

inline constexpr int64_t kUnknownDim = -1;

class Shape {
 public:
  Shape() = default;  // a scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Validates dims (>= 0) and that the element count fits in int64.
  static StatusOr<Shape> Make(std::vector<int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Product of dims (1 for a scalar). Only valid for shapes made by Make or known sane.
  int64_t num_elements() const;
  std::string ToString() const;  // "[2,3]"; "[]" for a scalar

  bool operator==(const Shape& other) const { return dims_ == other.dims_; }
  bool operator!=(const Shape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

class PartialShape {
 public:
  PartialShape() = default;  // unknown rank
  explicit PartialShape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}
  PartialShape(const Shape& shape) : known_rank_(true), dims_(shape.dims()) {}  // NOLINT

  static PartialShape UnknownRank() { return PartialShape(); }
  // Validates each dim is >= 0 or kUnknownDim.
  static StatusOr<PartialShape> Make(std::vector<int64_t> dims);

  bool known_rank() const { return known_rank_; }
  int rank() const { return static_cast<int>(dims_.size()); }  // requires known_rank()
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool fully_defined() const;
  // The known shape; requires fully_defined().
  Shape ToShape() const { return Shape(dims_); }
  // True when `shape` is one of the shapes this partial shape stands for.
  bool IsCompatibleWith(const Shape& shape) const;
  // Known element count, or kUnknownDim (also when it would overflow int64).
  int64_t num_elements() const;
  std::string ToString() const;  // "<unknown>", "[?,3]"

  bool operator==(const PartialShape& o) const {
    return known_rank_ == o.known_rank_ && dims_ == o.dims_;
  }

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

// Numpy broadcasting of two shapes; InvalidArgument when incompatible.
StatusOr<PartialShape> BroadcastShapes(const PartialShape& a, const PartialShape& b);

}  // namespace graphd

#endif  // GRAPHD_CORE_SHAPE_H_
