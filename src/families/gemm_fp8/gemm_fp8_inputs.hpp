// The fp8 family's check inputs on the host: seeded fp8 operands and scales laid out as
// gemm_fp8_abi.hpp says, and their dequantization, whose fp32 product is the reference every
// config (and cuBLASLt) is checked against (gemm_fp8_worker_mode.cpp). Plain C++, no CUDA, so
// that the layout and the decoding are tested on any machine. Nothing here throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "gemm_fp8/gemm_fp8_problem.hpp"

namespace cutune::gemm_fp8 {

// The value of an fp8 byte (OCP FP8: e4m3 bias 7 with 0x7f and 0xff NaN and no infinity, e5m2
// bias 15 with IEEE infinities and NaNs; both with subnormals).
float decode_fp8(Format format, std::uint8_t bits);

// The fp8 byte nearest `value` (ties to the even mantissa), saturated to the largest finite value
// (448 in e4m3, 57344 in e5m2); NaN gives 0x7f.
std::uint8_t encode_fp8(Format format, float value);

// `count` fp8 values as a quantizer makes them from normal data: N(0, 64^2) clamped to +-448 and
// rounded to `format`, so that products span the exponents real fp8 operands do (the range on
// which accumulation in the tensor core's reduced precision shows its error at deep K); `next`
// draws 64 random bits.
std::vector<std::uint8_t> random_fp8(Format format, std::uint64_t count,
                                     const std::function<std::uint64_t()>& next);
// `count` scales in [2^-4, 4), as amax-derived scales fall.
std::vector<float> random_scales(std::uint64_t count, const std::function<std::uint64_t()>& next);

// Where the scale of an element lives in the scale_a and scale_b arrays of gemm_fp8_abi.hpp.
struct ScaleLayout {
  Scaling scaling = Scaling::tensor;
  std::int64_t m = 0, n = 0, k_blocks = 0, n_blocks = 0;

  explicit ScaleLayout(const Fp8Problem& problem);
  std::size_t a_count() const;
  std::size_t b_count() const;
  std::size_t a_index(std::int64_t row, std::int64_t kk) const;     // element (row, kk) of A
  std::size_t b_index(std::int64_t column, std::int64_t kk) const;  // element (column, kk) of B
};

// A rows x k operand (row-major, of `format`) times its scales, in fp32; `a_side` picks A's
// indices.
std::vector<float> dequantized(const std::vector<std::uint8_t>& values, Format format,
                               std::int64_t rows, std::int64_t k, const std::vector<float>& scales,
                               const ScaleLayout& layout, bool a_side);

}  // namespace cutune::gemm_fp8
