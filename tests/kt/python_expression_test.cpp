// The Python slice Kernel Tuner descriptions use: value lists evaluated as Python would, and
// restrictions written as spec expressions (import_test.cpp checks that the spec's expression
// engine then agrees with Python's truth values over a whole space).
#include "kt/python_expression.hpp"

#include <gtest/gtest.h>

namespace cutune::kt {
namespace {

using json = nlohmann::json;

json eval(const std::string& text) { return evaluate_python(parse_python(text)); }

TEST(PythonExpression, ValueListsAsPythonBuildsThem) {
  EXPECT_EQ(eval("[16*i for i in range(1,9)]"), json({16, 32, 48, 64, 80, 96, 112, 128}));
  EXPECT_EQ(eval("[2**i for i in range(6)]"), json({1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(eval("[i for i in range(3,35,2) if i % 3 == 0]"), json({3, 9, 15, 21, 27, 33}));
  EXPECT_EQ(eval("list(range(10, 0, -4))"), json({10, 6, 2}));
  EXPECT_EQ(eval("[128+64*i for i in range(15)]").size(), 15u);
  EXPECT_EQ(eval("[0, 1, ]"), json({0, 1}));
  EXPECT_EQ(eval("['fast', \"slow\"]"), json({"fast", "slow"}));
  EXPECT_EQ(eval("[1.5, 2e3, -3]"), json({1.5, 2000.0, -3}));
  EXPECT_EQ(eval("-7 // 2"), json(-4));  // floor division, as Python
  EXPECT_EQ(eval("-7 % 3"), json(2));    // the sign of the divisor, as Python
  EXPECT_EQ(eval("2 ** 3 ** 2"), json(512));
  EXPECT_EQ(eval("-2 ** 2"), json(-4));
  EXPECT_EQ(eval("max([3, 9, 4]) + min(2, 5)"), json(11));
  EXPECT_EQ(eval("{'block_size_x': [32, 64], 'tile': [1, 2]}"),
            json({{"block_size_x", {32, 64}}, {"tile", {1, 2}}}));
  EXPECT_EQ(evaluate_python(parse_python("(P[0] + max(f) - 1) * P[1]"),
                            {{"P", {4096, 2048}}, {"f", {3, 15, 7}}}),
            json((4096 + 15 - 1) * 2048));
}

// Issue 32: "-I\\path" lost its backslash. Python's rules: known escapes decoded, an unknown one
// ("\\d") kept with its backslash, raw strings kept whole.
TEST(PythonExpression, StringEscapesAsPythonReadsThem) {
  EXPECT_EQ(eval(R"('-IC:\\cuda\\include')"), json(R"(-IC:\cuda\include)"));
  EXPECT_EQ(eval(R"("a\tb\n")"), json("a\tb\n"));
  EXPECT_EQ(eval(R"('\d+\.cu')"), json(R"(\d+\.cu)"));
  EXPECT_EQ(eval(R"(r'\n\\x')"), json(R"(\n\\x)"));
  EXPECT_EQ(eval(R"('it\'s')"), json("it's"));
  EXPECT_EQ(eval(R"('\x41\101\u00e9')"), json("AA\xc3\xa9"));
  EXPECT_THROW(eval(R"('\x4')"), PythonError);
}

TEST(PythonExpression, RestrictionsBecomeSpecExpressions) {
  EXPECT_EQ(to_spec_expression(parse_python("block_size_x*block_size_y<=1024")),
            "((block_size_x * block_size_y) <= 1024)");
  EXPECT_EQ(to_spec_expression(parse_python("use_padding==0 or (block_size_x % 32 != 0)")),
            "((use_padding == 0) || ((block_size_x % 32) != 0))");
  EXPECT_EQ(to_spec_expression(parse_python("not a and 1 < b <= 8")),
            "(!(a) && ((1 < b) && (b <= 8)))");
  EXPECT_EQ(to_spec_expression(parse_python("n // t ** 2 > 4")), "(floor((n) / ((t ^ 2))) > 4)");
  EXPECT_EQ(to_spec_expression(parse_python("mode == 'fast' or 'slow' != mode")),
            "((mode == mode_fast) || (mode_slow != mode))");
  EXPECT_EQ(to_spec_expression(parse_python("True and max(a, b) >= int(c)")),
            "(1 && (max(a, b) >= floor(c)))");
}

TEST(PythonExpression, RefusesWhatItCannotSayWithThePlace) {
  for (const char* text : {"lambda p: p", "x in [1, 2]", "a.b > 1", "f(x) > 1", "[1, 2] == a",
                           "(a > 1", "a > 'unterminated"}) {
    EXPECT_THROW(to_spec_expression(parse_python(text)), PythonError) << text;
  }
  try {
    parse_python("a > 1 )");
    FAIL();
  } catch (const PythonError& error) {
    EXPECT_NE(std::string(error.what()).find("column 7"), std::string::npos) << error.what();
  }
  EXPECT_THROW(eval("range(1, 5, 0)"), PythonError);
  EXPECT_THROW(eval("unknown + 1"), PythonError);
}

}  // namespace
}  // namespace cutune::kt
