// Powers of two and stepped integer ranges, each with an optional narrower search range.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "fragment_base.hpp"

namespace cutune {
namespace {

using namespace fragments;

class PowerOfTwoFragment : public IndexedFragment {
 public:
  PowerOfTwoFragment(std::int64_t lo, std::int64_t hi, std::optional<std::int64_t> default_value,
                     std::int64_t search_lo, std::int64_t search_hi)
      : lo_(lo), hi_(hi) {
    auto require_power = [](std::int64_t v, const char* what) {
      if (v <= 0 || (v & (v - 1)) != 0) {
        throw std::invalid_argument(std::string(what) + " " + std::to_string(v) +
                                    " is not a power of two");
      }
    };
    require_power(lo, "lower bound");
    require_power(hi, "upper bound");
    if (lo > hi) {
      throw std::invalid_argument("power-of-two range [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "] is empty");
    }
    if (search_lo == 0) search_lo = lo;
    if (search_hi == 0) search_hi = hi;
    require_power(search_lo, "search lower bound");
    require_power(search_hi, "search upper bound");
    if (search_lo < lo || search_hi > hi || search_lo > search_hi) {
      throw std::invalid_argument("search range [" + std::to_string(search_lo) + ", " +
                                  std::to_string(search_hi) + "] is not a non-empty part of " +
                                  describe(View::full));
    }
    const std::int64_t size = log2(hi) - log2(lo) + 1;
    const std::int64_t first = log2(search_lo) - log2(lo);
    search_lo_ = search_lo;
    search_hi_ = search_hi;
    init(size, {}, first, log2(search_hi) - log2(search_lo) + 1,
         default_index_of(default_value.value_or(search_lo)));
  }

  std::string_view kind() const override { return "power_of_two"; }
  std::string describe(View view) const override {
    const bool full = view == View::full;
    return "powers of two in [" + std::to_string(full ? lo_ : search_lo_) + ", " +
           std::to_string(full ? hi_ : search_hi_) + "]";
  }

  std::size_t feature_count() const override { return 1; }
  void encode_features(const Value& v, std::span<double> out) const override {
    out[0] = static_cast<double>(log2(value_at(checked_index(v)).as_int()));
  }
  Value decode_features(std::span<const double> features) const override {
    const double exponent = std::isfinite(features[0]) ? std::round(features[0]) : 0.0;
    const auto clamped = static_cast<std::int64_t>(std::clamp<double>(
        exponent, static_cast<double>(log2(lo_)), static_cast<double>(log2(hi_))));
    return std::int64_t{1} << clamped;
  }

 protected:
  Value value_at(std::int64_t index) const override { return lo_ << index; }
  std::optional<std::int64_t> index_of(const Value& v) const override {
    if (!v.is_int()) return std::nullopt;
    const std::int64_t x = v.as_int();
    if (x < lo_ || x > hi_ || (x & (x - 1)) != 0) return std::nullopt;
    return log2(x) - log2(lo_);
  }

 private:
  static std::int64_t log2(std::int64_t v) {
    return std::bit_width(static_cast<std::uint64_t>(v)) - 1;
  }
  std::int64_t lo_, hi_, search_lo_ = 0, search_hi_ = 0;
};

class IntegerFragment : public IndexedFragment {
 public:
  IntegerFragment(std::int64_t lo, std::int64_t hi, std::int64_t step,
                  std::optional<std::int64_t> default_value, std::optional<std::int64_t> search_lo,
                  std::optional<std::int64_t> search_hi)
      : lo_(lo), step_(step) {
    if (step <= 0)
      throw std::invalid_argument("integer step " + std::to_string(step) + " is not positive");
    if (lo > hi) {
      throw std::invalid_argument("integer range [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "] is empty");
    }
    hi_ = lo + (hi - lo) / step * step;
    const std::int64_t size = (hi_ - lo) / step + 1;
    const std::int64_t slo = search_lo.value_or(lo);
    const std::int64_t shi = search_hi.value_or(hi_);
    const auto first = index_of(slo);
    const auto last = index_of(shi);
    if (!first || !last || *first > *last) {
      throw std::invalid_argument("search range [" + std::to_string(slo) + ", " +
                                  std::to_string(shi) + "] is not a non-empty part of " +
                                  describe(View::full));
    }
    search_lo_ = slo;
    search_hi_ = shi;
    init(size, {}, *first, *last - *first + 1, default_index_of(default_value.value_or(slo)));
  }

  std::string_view kind() const override { return "integer"; }
  std::string describe(View view) const override {
    const bool full = view == View::full;
    return fmt::format("[{}, {}] step {}", full ? lo_ : search_lo_, full ? hi_ : search_hi_, step_);
  }

  std::size_t feature_count() const override { return 1; }
  void encode_features(const Value& v, std::span<double> out) const override {
    out[0] = static_cast<double>(value_at(checked_index(v)).as_int());
  }
  Value decode_features(std::span<const double> features) const override {
    const double x = std::isfinite(features[0]) ? features[0] : static_cast<double>(lo_);
    const double steps = std::round((x - static_cast<double>(lo_)) / static_cast<double>(step_));
    return value_at(
        static_cast<std::int64_t>(std::clamp<double>(steps, 0.0, static_cast<double>(size() - 1))));
  }

 protected:
  Value value_at(std::int64_t index) const override { return lo_ + index * step_; }
  std::optional<std::int64_t> index_of(const Value& v) const override {
    if (!v.is_int()) return std::nullopt;
    const std::int64_t x = v.as_int();
    if (x < lo_ || x > hi_ || (x - lo_) % step_ != 0) return std::nullopt;
    return (x - lo_) / step_;
  }

 private:
  std::int64_t lo_, hi_ = 0, step_, search_lo_ = 0, search_hi_ = 0;
};

}  // namespace

FragmentPtr power_of_two_fragment(std::int64_t lo, std::int64_t hi,
                                  std::optional<std::int64_t> default_value, std::int64_t search_lo,
                                  std::int64_t search_hi) {
  return std::make_shared<PowerOfTwoFragment>(lo, hi, default_value, search_lo, search_hi);
}

FragmentPtr integer_fragment(std::int64_t lo, std::int64_t hi, std::int64_t step,
                             std::optional<std::int64_t> default_value,
                             std::optional<std::int64_t> search_lo,
                             std::optional<std::int64_t> search_hi) {
  return std::make_shared<IntegerFragment>(lo, hi, step, default_value, search_lo, search_hi);
}

}  // namespace cutune
