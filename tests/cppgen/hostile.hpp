// Texts that break naive C++ generation, and a way to compile and run a program that includes a
// generated header, for every test of a path that writes C++ (export --header, dispatch).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace cutune::testing {

inline std::vector<std::string> hostile_strings() {
  using namespace std::string_literals;
  return {
      // Ends a // comment: a program that includes the header would print PWNED at start-up.
      "x\nextern \"C\" int puts(const char*); inline int pwned = puts(\"PWNED\");\n//",
      "carriage\rreturn",
      "nul\0byte"s,
      "quote\" back\\slash \\",
      "trigraph ?\?/ and ?\?= and ?\?'",
      "caf\xc3\xa9 \xe2\x9c\x93",
      "closes */ a block /* comment",
      "ends with a backslash\\",
      "\t\v\f\a\b\x1b[0m",
  };
}

// The bytes a program prints (stdout), after compiling `main_cpp` in `dir` with -std=c++17 and
// every warning an error, trigraphs on (as -std=c++11 and older have them). An empty string and a
// test failure if it does not compile or run.
inline std::string compile_and_run(const std::filesystem::path& dir, const std::string& main_cpp,
                                   const std::string& compiler) {
  std::ofstream(dir / "main.cpp") << main_cpp;
  const auto exe = dir / "main";
  const std::string build = compiler +
                            " -std=c++17 -trigraphs -Wall -Wextra -Werror -pedantic -o " +
                            exe.string() + " " + (dir / "main.cpp").string() + " 2>&1";
  auto run = [](const std::string& command, std::string& out) {
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return false;
    char buffer[4096];
    while (std::size_t got = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
    return pclose(pipe) == 0;
  };
  std::string log;
  if (!run(build, log)) {
    ADD_FAILURE() << "generated header does not compile:\n" << log;
    return {};
  }
  std::string out;
  EXPECT_TRUE(run(exe.string(), out)) << out;
  return out;
}

// The C++ statements that print a std::string_view expression's bytes and a separator.
inline std::string print_statement(const std::string& expression) {
  return "  std::fwrite((" + expression + ").data(), 1, (" + expression +
         ").size(), stdout);\n  std::fputc('|', stdout);\n";
}

}  // namespace cutune::testing
