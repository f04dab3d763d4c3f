#include "gemm_fp8/gemm_fp8_inputs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace cutune::gemm_fp8 {

float decode_e4m3(std::uint8_t bits) {
  const int exponent = (bits >> 3) & 0xf;
  const int mantissa = bits & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return std::nanf("");
  const float magnitude = exponent == 0 ? std::ldexp(mantissa / 8.0f, -6)
                                        : std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
  return (bits & 0x80) != 0 ? -magnitude : magnitude;
}

std::uint8_t encode_e4m3(float value) {
  if (std::isnan(value)) return 0x7f;
  // The positive finite bytes 0x00..0x7e increase with their value.
  static const std::array<float, 0x7f> kValues = [] {
    std::array<float, 0x7f> values{};
    for (std::size_t bits = 0; bits < values.size(); ++bits) {
      values[bits] = decode_e4m3(static_cast<std::uint8_t>(bits));
    }
    return values;
  }();
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const float magnitude = std::fabs(value);
  const auto first_not_below = std::lower_bound(kValues.begin(), kValues.end(), magnitude);
  if (first_not_below == kValues.end()) return sign | 0x7e;  // saturated
  const auto above = static_cast<std::uint8_t>(first_not_below - kValues.begin());
  if (above == 0 || kValues[above] == magnitude) return sign | above;
  const auto below = static_cast<std::uint8_t>(above - 1);
  const float up = kValues[above] - magnitude;
  const float down = magnitude - kValues[below];
  const bool take_above = up < down || (up == down && (above & 1) == 0);
  return sign | (take_above ? above : below);
}

std::vector<std::uint8_t> random_e4m3(std::uint64_t count,
                                      const std::function<std::uint64_t()>& next) {
  constexpr double kSigma = 64;
  const auto uniform = [&next] {  // in (0, 1): 53 random bits and a half
    return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53;
  };
  std::vector<std::uint8_t> out(count);
  for (std::uint8_t& value : out) {
    const double normal =
        std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    value = encode_e4m3(static_cast<float>(std::clamp(kSigma * normal, -448.0, 448.0)));
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

std::vector<float> dequantized(const std::vector<std::uint8_t>& values, std::int64_t rows,
                               std::int64_t k, const std::vector<float>& scales,
                               const ScaleLayout& layout, bool a_side) {
  std::vector<float> out(values.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const std::size_t scale = a_side ? layout.a_index(r, kk) : layout.b_index(r, kk);
      out[static_cast<std::size_t>(r * k + kk)] =
          decode_e4m3(values[static_cast<std::size_t>(r * k + kk)]) * scales[scale];
    }
  }
  return out;
}

}  // namespace cutune::gemm_fp8
