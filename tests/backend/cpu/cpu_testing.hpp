// The CPU evaluator tests' fixture: the shipped examples, and a private compile cache per test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cutune/cpu.hpp"

namespace cutune {

inline const std::filesystem::path examples = CUTUNE_EXAMPLES_DIR;

// Issue 17: a timeout is the config's own verdict (hang, compile_timeout) only when the config got
// its limit in CPU. On a machine loaded beyond what a retry with a stretched limit makes up for,
// it is transient instead and says that other work starved it. Whether `m` is one of the two.
inline bool verdict_or_starved(const Measurement& m, Outcome verdict) {
  return m.outcome == verdict ||
         (m.outcome == Outcome::transient && m.detail.find("starved it") != std::string::npos);
}

class CpuEvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = std::filesystem::temp_directory_path() /
             ("cutune-cpu-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(cache_);
  }
  void TearDown() override { std::filesystem::remove_all(cache_); }
  CpuOptions options() const {
    CpuOptions o;
    o.cache_dir = cache_;
    o.jobs = 2;
    return o;
  }
  std::filesystem::path cache_;
};

}  // namespace cutune
