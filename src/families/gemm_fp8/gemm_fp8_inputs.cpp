#include "gemm_fp8/gemm_fp8_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace cutune::gemm_fp8 {

namespace {

// An OCP FP8 format's encoding: below the sign, the exponent bits over `mantissa_bits` bits of
// mantissa; magnitudes above `max_finite` are NaN (e4m3) or infinity and NaN (e5m2).
struct Encoding {
  int mantissa_bits;
  int bias;
  std::uint8_t max_finite;
};

Encoding encoding(Format format) {
  return format == Format::e5m2 ? Encoding{2, 15, 0x7b} : Encoding{3, 7, 0x7e};
}

// The positive finite values of `format` by their byte 0x00..max_finite, increasing.
const std::vector<float>& finite_values(Format format) {
  static const auto table = [](Format f) {
    std::vector<float> values(encoding(f).max_finite + 1u);
    for (std::size_t bits = 0; bits < values.size(); ++bits) {
      values[bits] = decode_fp8(f, static_cast<std::uint8_t>(bits));
    }
    return values;
  };
  static const std::vector<float> e4m3 = table(Format::e4m3), e5m2 = table(Format::e5m2);
  return format == Format::e5m2 ? e5m2 : e4m3;
}

}  // namespace

float decode_fp8(Format format, std::uint8_t bits) {
  const Encoding e = encoding(format);
  const int magnitude_bits = bits & 0x7f;
  const bool negative = (bits & 0x80) != 0;
  if (magnitude_bits > e.max_finite) {
    const bool infinite = format == Format::e5m2 && magnitude_bits == 0x7c;
    if (!infinite) return std::nanf("");
    return negative ? -std::numeric_limits<float>::infinity()
                    : std::numeric_limits<float>::infinity();
  }
  const int exponent = magnitude_bits >> e.mantissa_bits;
  const float fraction =
      static_cast<float>(magnitude_bits & ((1 << e.mantissa_bits) - 1)) / (1 << e.mantissa_bits);
  const float magnitude = exponent == 0 ? std::ldexp(fraction, 1 - e.bias)
                                        : std::ldexp(1.0f + fraction, exponent - e.bias);
  return negative ? -magnitude : magnitude;
}

std::uint8_t encode_fp8(Format format, float value) {
  if (std::isnan(value)) return 0x7f;
  const std::vector<float>& values = finite_values(format);
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const float magnitude = std::fabs(value);
  const auto first_not_below = std::lower_bound(values.begin(), values.end(), magnitude);
  if (first_not_below == values.end()) return sign | encoding(format).max_finite;  // saturated
  const auto above = static_cast<std::uint8_t>(first_not_below - values.begin());
  if (above == 0 || values[above] == magnitude) return sign | above;
  const auto below = static_cast<std::uint8_t>(above - 1);
  const float up = values[above] - magnitude;
  const float down = magnitude - values[below];
  const bool take_above = up < down || (up == down && (above & 1) == 0);
  return sign | (take_above ? above : below);
}

std::vector<std::uint8_t> random_fp8(Format format, std::uint64_t count,
                                     const std::function<std::uint64_t()>& next) {
  constexpr double kSigma = 64;
  const auto uniform = [&next] {  // in (0, 1): 53 random bits and a half
    return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53;
  };
  std::vector<std::uint8_t> out(count);
  for (std::uint8_t& value : out) {
    const double normal =
        std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    value = encode_fp8(format, static_cast<float>(std::clamp(kSigma * normal, -448.0, 448.0)));
  }
  return out;
}

std::vector<float> random_scales(std::uint64_t count, const std::function<std::uint64_t()>& next) {
  std::vector<float> out(count);
  for (float& scale : out) {
    const std::uint64_t r = next();
    scale = std::ldexp(1.0f + static_cast<float>(r % 1024) / 1024.0f,
                       -4 + static_cast<int>((r >> 10) % 6));
  }
  return out;
}

ScaleLayout::ScaleLayout(const Fp8Problem& p)
    : scaling(p.scaling),
      m(p.m),
      n(p.n),
      k_blocks((p.k + rules::kScaleBlock - 1) / rules::kScaleBlock),
      n_blocks((p.n + rules::kScaleBlock - 1) / rules::kScaleBlock) {}

std::size_t ScaleLayout::a_count() const {
  if (scaling == Scaling::tensor) return 1;
  return static_cast<std::size_t>(scaling == Scaling::row_col ? m : k_blocks * m);
}

std::size_t ScaleLayout::b_count() const {
  if (scaling == Scaling::tensor) return 1;
  return static_cast<std::size_t>(scaling == Scaling::row_col ? n : k_blocks * n_blocks);
}

std::size_t ScaleLayout::a_index(std::int64_t row, std::int64_t kk) const {
  if (scaling == Scaling::tensor) return 0;
  return static_cast<std::size_t>(scaling == Scaling::row_col ? row
                                                              : kk / rules::kScaleBlock * m + row);
}

std::size_t ScaleLayout::b_index(std::int64_t column, std::int64_t kk) const {
  if (scaling == Scaling::tensor) return 0;
  return static_cast<std::size_t>(scaling == Scaling::row_col ? column
                                                              : kk / rules::kScaleBlock * n_blocks +
                                                                    column / rules::kScaleBlock);
}

std::vector<float> dequantized(const std::vector<std::uint8_t>& values, Format format,
                               std::int64_t rows, std::int64_t k, const std::vector<float>& scales,
                               const ScaleLayout& layout, bool a_side) {
  std::vector<float> out(values.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const std::size_t scale = a_side ? layout.a_index(r, kk) : layout.b_index(r, kk);
      out[static_cast<std::size_t>(r * k + kk)] =
          decode_fp8(format, values[static_cast<std::size_t>(r * k + kk)]) * scales[scale];
    }
  }
  return out;
}

}  // namespace cutune::gemm_fp8
