// The check's host-side inputs (gemm_fp8_inputs.hpp): e4m3 and e5m2 decoding, the range of the
// seeded values, and the scale layout of gemm_fp8_abi.hpp, on which the reference product rests.
#include "gemm_fp8/gemm_fp8_inputs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace cutune::gemm_fp8 {
namespace {

TEST(Fp8Inputs, DecodesE4m3) {
  EXPECT_EQ(decode_fp8(Format::e4m3, 0x38), 1.0f);    // exponent 7 (the bias), mantissa 0
  EXPECT_EQ(decode_fp8(Format::e4m3, 0xb8), -1.0f);   // the sign bit
  EXPECT_EQ(decode_fp8(Format::e4m3, 0x7e), 448.0f);  // the largest finite value
  EXPECT_EQ(decode_fp8(Format::e4m3, 0x01), std::ldexp(1.0f, -9));  // the smallest subnormal
  EXPECT_EQ(decode_fp8(Format::e4m3, 0x3c), 1.5f);
  EXPECT_TRUE(std::isnan(decode_fp8(Format::e4m3, 0x7f)));
  EXPECT_TRUE(std::isnan(decode_fp8(Format::e4m3, 0xff)));
}

TEST(Fp8Inputs, EncodesToTheNearestE4m3) {
  for (int bits = 0; bits < 0x100; ++bits) {  // every finite byte round-trips
    if ((bits & 0x7f) == 0x7f) continue;
    EXPECT_EQ(encode_fp8(Format::e4m3, decode_fp8(Format::e4m3, static_cast<std::uint8_t>(bits))),
              bits)
        << bits;
  }
  EXPECT_EQ(encode_fp8(Format::e4m3, 1.0625f),
            0x38);  // halfway between 1 and 1.125: the even mantissa
  EXPECT_EQ(encode_fp8(Format::e4m3, 1.1875f),
            0x3a);  // halfway between 1.125 and 1.25: the even mantissa
  EXPECT_EQ(encode_fp8(Format::e4m3, 1.07f), 0x39);
  EXPECT_EQ(encode_fp8(Format::e4m3, -1000.0f), 0xfe);  // saturated to -448
  EXPECT_EQ(encode_fp8(Format::e4m3, std::ldexp(1.0f, -11)),
            0x00);  // under half the smallest subnormal
  EXPECT_EQ(encode_fp8(Format::e4m3, std::nanf("")), 0x7f);
}

TEST(Fp8Inputs, DecodesE5m2) {
  EXPECT_EQ(decode_fp8(Format::e5m2, 0x3c), 1.0f);      // exponent 15 (the bias), mantissa 0
  EXPECT_EQ(decode_fp8(Format::e5m2, 0xbe), -1.5f);     // the sign bit, mantissa 0b10
  EXPECT_EQ(decode_fp8(Format::e5m2, 0x7b), 57344.0f);  // the largest finite value
  EXPECT_EQ(decode_fp8(Format::e5m2, 0x01), std::ldexp(1.0f, -16));  // the smallest subnormal
  EXPECT_EQ(decode_fp8(Format::e5m2, 0x7c), std::numeric_limits<float>::infinity());
  EXPECT_EQ(decode_fp8(Format::e5m2, 0xfc), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(decode_fp8(Format::e5m2, 0x7d)));
  EXPECT_TRUE(std::isnan(decode_fp8(Format::e5m2, 0xff)));
}

TEST(Fp8Inputs, EncodesToTheNearestE5m2) {
  for (int bits = 0; bits < 0x100; ++bits) {  // every finite byte round-trips
    if ((bits & 0x7f) > 0x7b) continue;
    EXPECT_EQ(encode_fp8(Format::e5m2, decode_fp8(Format::e5m2, static_cast<std::uint8_t>(bits))),
              bits)
        << bits;
  }
  EXPECT_EQ(encode_fp8(Format::e5m2, 1.125f), 0x3c);  // halfway between 1 and 1.25: even mantissa
  EXPECT_EQ(encode_fp8(Format::e5m2, 1.375f), 0x3e);  // halfway between 1.25 and 1.5: even
  EXPECT_EQ(encode_fp8(Format::e5m2, 448.0f), 0x5f);  // e4m3's largest: 1.75 x 2^8 in e5m2 too
  EXPECT_EQ(encode_fp8(Format::e5m2, -1e6f), 0xfb);   // saturated to -57344
  EXPECT_EQ(encode_fp8(Format::e5m2, std::nanf("")), 0x7f);
}

TEST(Fp8Inputs, SeededValuesAreAQuantizedNormal) {
  std::uint64_t state = 1;
  const auto next = [&state] {  // any 64-bit stream will do; SplitMix64's step
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  constexpr int kCount = 20000;
  float largest = 0;
  double magnitude_sum = 0;
  int negative = 0, under_one = 0;
  for (std::uint8_t bits : random_fp8(Format::e4m3, kCount, next)) {
    const float v = decode_fp8(Format::e4m3, bits);
    ASSERT_TRUE(std::isfinite(v));
    largest = std::max(largest, std::fabs(v));
    magnitude_sum += std::fabs(v);
    negative += v < 0;
    under_one += std::fabs(v) < 1;
  }
  EXPECT_GT(negative, 9000);
  EXPECT_LT(negative, 11000);
  EXPECT_NEAR(magnitude_sum / kCount, 64 * 0.7979, 2.0);  // E|N(0, 64^2)| = 64 sqrt(2 / pi)
  EXPECT_GT(largest, 192.0f);                             // four sigma and more are drawn
  EXPECT_LE(largest, 448.0f);
  EXPECT_GT(under_one, 100);  // about 1.2 % of N(0, 64^2) lies within +-1
  EXPECT_LT(under_one, 400);
  for (float s : random_scales(5000, next)) {
    EXPECT_GE(s, 1.0f / 16);
    EXPECT_LT(s, 4.0f);
  }
}

TEST(Fp8Inputs, ScalesLieWhereTheAbiSays) {
  const ScaleLayout tensor({300, 520, 1000, Scaling::tensor});
  EXPECT_EQ(tensor.a_count(), 1u);
  EXPECT_EQ(tensor.b_index(519, 999), 0u);

  const ScaleLayout row_col({300, 520, 1000, Scaling::row_col});
  EXPECT_EQ(row_col.a_count(), 300u);
  EXPECT_EQ(row_col.b_count(), 520u);
  EXPECT_EQ(row_col.a_index(7, 999), 7u);
  EXPECT_EQ(row_col.b_index(519, 0), 519u);

  // Block: scale_a[k/128][m], scale_b[k/128][ceil(n/128)]; 1024 / 128 = 8 k-blocks, n: 5 blocks.
  const ScaleLayout block({300, 520, 1024, Scaling::block});
  EXPECT_EQ(block.a_count(), 8u * 300);
  EXPECT_EQ(block.b_count(), 8u * 5);
  EXPECT_EQ(block.a_index(7, 127), 7u);
  EXPECT_EQ(block.a_index(7, 128), 300u + 7);
  EXPECT_EQ(block.b_index(127, 1023), 7u * 5);
  EXPECT_EQ(block.b_index(519, 256), 2u * 5 + 4);
}

TEST(Fp8Inputs, DequantizationScalesEachElementByItsBlock) {
  const ScaleLayout block({1, 256, 256, Scaling::block});
  const std::vector<std::uint8_t> ones(256, 0x38);  // 1.0 each
  // B is 256 x 256: two column blocks by two k-blocks, scales 1, 2 (k-block 0), 4, 8 (k-block 1).
  std::vector<std::uint8_t> b(256 * 256, 0x38);
  const std::vector<float> b_scales{1, 2, 4, 8};
  const std::vector<float> db = dequantized(b, Format::e4m3, 256, 256, b_scales, block, false);
  EXPECT_EQ(db[0 * 256 + 0], 1);    // column 0, k 0
  EXPECT_EQ(db[200 * 256 + 0], 2);  // column block 1
  EXPECT_EQ(db[0 * 256 + 200], 4);  // k-block 1
  EXPECT_EQ(db[200 * 256 + 200], 8);
  const std::vector<float> a_scales{3, 5};
  const std::vector<float> da = dequantized(ones, Format::e4m3, 1, 256, a_scales, block, true);
  EXPECT_EQ(da[127], 3);
  EXPECT_EQ(da[128], 5);
  // The same bytes mean other values in e5m2: 0x3c is its 1.0, 0x38 its 0.5.
  const std::vector<std::uint8_t> e5m2_ones(256, 0x3c);
  EXPECT_EQ(dequantized(e5m2_ones, Format::e5m2, 1, 256, a_scales, block, true)[128], 5);
  EXPECT_EQ(dequantized(ones, Format::e5m2, 1, 256, a_scales, block, true)[128], 2.5f);
}

TEST(Fp8Inputs, SeededE5m2ValuesSpanTheSameRange) {
  std::uint64_t state = 7;
  const auto next = [&state] {
    return state = state * 6364136223846793005ull + 1442695040888963407ull;
  };
  float largest = 0;
  for (std::uint8_t bits : random_fp8(Format::e5m2, 20000, next)) {
    const float v = decode_fp8(Format::e5m2, bits);
    ASSERT_TRUE(std::isfinite(v));
    largest = std::max(largest, std::fabs(v));
  }
  EXPECT_GE(largest, 192.0f);  // four sigma and more: 192, 224, 256, ... in e5m2's steps
  EXPECT_LE(largest, 448.0f);
}

}  // namespace
}  // namespace cutune::gemm_fp8
