// The CPU evaluator tests' fixture: the shipped examples, and a private compile cache per test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cutune/cpu.hpp"

namespace cutune {

inline const std::filesystem::path examples = CUTUNE_EXAMPLES_DIR;

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
