// Shared by the runtime tests: the tiny CPU spec of tests/runtime/data and a family built from it,
// with compiled kernels cached under the build folder so that reruns skip the compiler.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "store/store_testing.hpp"

namespace cutune::testing {

inline const KernelSpec& scale_spec() {
  static const KernelSpec spec =
      load_spec(std::filesystem::path(CUTUNE_RUNTIME_TEST_DATA) / "scale.json");
  return spec;
}

inline Family scale_family() {
  return cpu_spec_family(scale_spec(), {.cache_dir = CUTUNE_RUNTIME_TEST_CACHE});
}

inline Problem scale_problem(std::int64_t n) { return Problem::parse("n=" + std::to_string(n)); }

// Runs a loaded scale kernel on n inputs and checks y = 3 x + 1.
inline void expect_scales(const Kernel& kernel, std::int64_t n) {
  std::vector<float> x(static_cast<std::size_t>(n)), y(x.size(), -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17);
  void* buffers[] = {x.data(), y.data()};
  const std::int64_t scalars[] = {n};
  kernel.as<CpuKernel>()(buffers, scalars);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 3.0f * x[i] + 1.0f) << "at " << i;
}

// A result as a tune of this machine would have stored it.
inline StoredResult scale_result(const Family& family, std::int64_t n, const Config& config,
                                 double time_ms) {
  StoredResult r;
  r.key = family.key(scale_problem(n), family.device_key, family.toolchain);
  r.config_hash = config.hash_hex();
  r.config_json = config.to_string();
  r.measurement.outcome = Outcome::ok;
  r.measurement.time_ms = time_ms;
  r.measurement.repetitions = 5;
  r.tune_id = "test";
  return r;
}

inline Config scale_config(std::int64_t chunk, std::int64_t unroll) {
  return scale_spec().tuning->space.complete({{"CHUNK", chunk}, {"UNROLL", unroll}});
}

}  // namespace cutune::testing
