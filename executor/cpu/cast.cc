#include "executor/cpu/cast.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/float_to_int.h"
#include "core/half.h"
#include "executor/cpu/dispatch.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kBlock = int64_t{1} << 16;  // elements between cancellation polls

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// One element of S as D (the rules in cast.h).
template <typename D, typename S>
inline D Convert(S s) {
  if constexpr (std::is_same_v<D, bool>) {
    if constexpr (kIsHalf<S>) {
      return static_cast<float>(s) != 0.0f;
    } else {
      return s != S{};
    }
  } else if constexpr (kIsHalf<D>) {
    if constexpr (kIsHalf<S>) {
      return D(static_cast<float>(s));
    } else {
      return D(s);
    }
  } else if constexpr (kIsHalf<S>) {
    return Convert<D>(static_cast<float>(s));
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    return TruncateToInt<D>(s);
  } else {
    return static_cast<D>(s);
  }
}

Status Check(const CancellationToken* token) { return token ? token->Check() : absl::OkStatus(); }

// --- numbers as text ----------------------------------------------------------------

std::string_view Trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// A float/double from the whole of `text` (see cast.h), or nullopt.
template <typename F>
std::optional<F> ParseFloat(std::string_view text) {
  std::string_view s = Trim(text);
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  F value{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, std::chars_format::general);
  if (ptr != s.data() + s.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Overflow or underflow: strtod's infinity or (sub)normal/zero result.
    std::string copy(s);
    if constexpr (std::is_same_v<F, float>) {
      return std::strtof(copy.c_str(), nullptr);
    } else {
      return std::strtod(copy.c_str(), nullptr);
    }
  }
  if (ec != std::errc()) return std::nullopt;
  return value;
}

// An integer of type I from `text`: an integer literal, or a number truncated toward
// zero; nullopt when it is not a number or out of I's range.
template <typename I>
std::optional<I> ParseInteger(std::string_view text) {
  std::string_view s = Trim(text);
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  using Wide = std::conditional_t<std::is_signed_v<I>, int64_t, uint64_t>;
  Wide wide{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), wide);
  if (ec == std::errc() && ptr == s.data() + s.size()) {
    if (!std::in_range<I>(wide)) return std::nullopt;
    return static_cast<I>(wide);
  }
  std::optional<double> d = ParseFloat<double>(s);
  if (!d || !std::isfinite(*d)) return std::nullopt;
  double t = std::trunc(*d);
  // [min, max] of I as doubles: min is a power of two (exact); max + 1 too.
  const double lo = static_cast<double>(std::numeric_limits<I>::min());
  const double hi_exclusive = static_cast<double>(std::numeric_limits<I>::max() / 2 + 1) * 2.0;
  if (t < lo || t >= hi_exclusive) return std::nullopt;
  return static_cast<I>(t);
}

template <typename D>
StatusOr<D> ParseElement(const std::string& text, DType dst) {
  std::optional<D> value;
  if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>) {
    value = ParseFloat<D>(text);
  } else if constexpr (kIsHalf<D>) {
    if (auto d = ParseFloat<double>(text)) value = D(*d);
  } else if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool>) {
    value = ParseInteger<D>(text);
  } else {
    return errors::Unimplemented(absl::StrCat("cannot cast string to ", DTypeName(dst)));
  }
  if (!value) {
    return errors::InvalidArgument(
        absl::StrCat("cannot convert string \"", text.substr(0, 64), text.size() > 64 ? "..." : "",
                     "\" to ", DTypeName(dst)));
  }
  return *value;
}

template <typename S>
std::string FormatElement(S s, DType src) {
  if constexpr (kIsHalf<S>) {
    return FloatToString(static_cast<float>(s), src);
  } else if constexpr (std::is_floating_point_v<S>) {
    return FloatToString(s, src);
  } else {
    return absl::StrCat(+s);  // unary + so that 8-bit integers print as numbers
  }
}

// The bits of `value` rounded to a 16-bit float dtype.
uint16_t HalfBits(double value, DType dtype) {
  return dtype == DType::kFloat16 ? Float16(value).bits : BFloat16(value).bits;
}

}  // namespace

std::string FloatToString(double value, DType dtype) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  char buf[64];
  char* end = buf + sizeof(buf);
  if (dtype == DType::kFloat64) return std::string(buf, std::to_chars(buf, end, value).ptr);
  if (dtype == DType::kFloat32) {
    return std::string(buf, std::to_chars(buf, end, static_cast<float>(value)).ptr);
  }
  // 16-bit floats: the fewest significant digits that round back to the same bits,
  // then written in the shortest plain or scientific form of that decimal value.
  const uint16_t bits = HalfBits(value, dtype);
  for (int precision = 1; precision <= 9; ++precision) {
    auto r = std::to_chars(buf, end, value, std::chars_format::general, precision);
    double back = 0;
    std::from_chars(buf, r.ptr, back);
    if (HalfBits(back, dtype) == bits) return std::string(buf, std::to_chars(buf, end, back).ptr);
  }
  return std::string(buf, std::to_chars(buf, end, static_cast<float>(value)).ptr);
}

bool CanCast(DType src, DType dst) {
  if (src == dst) return true;
  auto numeric_or_bool = [](DType d) { return IsNumeric(d) || d == DType::kBool; };
  if (src == DType::kString) return IsNumeric(dst);
  if (dst == DType::kString) return IsNumeric(src);
  return numeric_or_bool(src) && numeric_or_bool(dst);
}

StatusOr<Tensor> CastTensor(const Tensor& in, DType dst, const CancellationToken* token) {
  const DType src = in.dtype();
  if (src == dst) return in;
  if (!CanCast(src, dst)) {
    return errors::Unimplemented(absl::StrCat("cannot cast ", DTypeName(src), " to ", DTypeName(dst)));
  }
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dst, in.shape()));
  const int64_t n = in.num_elements();
  Status status = DispatchConvertible(src == DType::kString ? dst : src, [&]<typename T>() -> Status {
    for (int64_t start = 0; start < n; start += kBlock) {
      RETURN_IF_ERROR(Check(token));
      const int64_t end = std::min(n, start + kBlock);
      if (src == DType::kString) {
        const std::string* s = in.data<std::string>();
        T* d = out.data<T>();
        for (int64_t i = start; i < end; ++i) {
          ASSIGN_OR_RETURN(d[i], ParseElement<T>(s[i], dst));
        }
      } else if (dst == DType::kString) {
        const T* s = in.data<T>();
        std::string* d = out.data<std::string>();
        for (int64_t i = start; i < end; ++i) d[i] = FormatElement(s[i], src);
      } else {
        const T* s = in.data<T>();
        RETURN_IF_ERROR(DispatchConvertible(dst, [&]<typename D>() -> Status {
          D* d = out.data<D>();
          for (int64_t i = start; i < end; ++i) d[i] = Convert<D>(s[i]);
          return absl::OkStatus();
        }));
      }
    }
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(status);
  return out;
}

}  // namespace graphd::executor::cpu
