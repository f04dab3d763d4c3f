// The compile pool tests' fixture: a private folder per test, sources written into it, and a
// request that compiles one into a shared object with the real compiler.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "eval/compile_pool.hpp"

namespace cutune::eval {

using namespace std::chrono_literals;

class CompilePoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cutune-pool-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  CompileRequest shared_object(const std::filesystem::path& source, const std::string& define) {
    std::ifstream in(source);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    return {{"c++", "-O0", "-shared", "-fPIC", "-D" + define, source.string(), "-o", "{output}"},
            text + "\n" + define,
            ".so",
            60s};
  }
  std::filesystem::path dir_;
};

}  // namespace cutune::eval
