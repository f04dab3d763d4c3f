#include "cppgen/cpp_writer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cutune::cppgen {
namespace {

TEST(CppWriter, ChecksIdentifiersAndNamesWhatIsRefused) {
  EXPECT_EQ(checked_identifier("TILE_M", "knob"), "TILE_M");
  EXPECT_EQ(checked_identifier("_x9", "knob"), "_x9");
  for (const std::string bad :
       {"", "X Y", "9a", "class", "int", "std", "and", "a-b", "caf\xc3\xa9"}) {
    try {
      (void)checked_identifier(bad, "knob");
      FAIL() << "accepted '" << bad << "'";
    } catch (const NameError& error) {
      EXPECT_EQ(std::string(error.what()).rfind("knob " + string_literal(bad), 0), 0u)
          << error.what();
    }
  }
}

TEST(CppWriter, NamespacesAreUsableNamesJoinedByColons) {
  EXPECT_NO_THROW(check_namespace("app::tuned_2", "export"));
  for (const char* bad : {"my-tuned", "a::", "::a", "class", "a::int", "a b", "a;b"}) {
    EXPECT_THROW(check_namespace(bad, "export"), NameError) << bad;
  }
}

TEST(CppWriter, LiteralsHoldOnlyPrintableAsciiAndNoCommentOrTrigraphBreaker) {
  const std::string literal = string_literal(std::string("a\nb\r\0\"\\?\?/*/\xc3\xa9", 14));
  EXPECT_EQ(literal, R"("a\012b\015\000\"\\\?\?/*\057\303\251")");
  for (const char c : literal) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
  EXPECT_EQ(string_view_literal(std::string("a\0b", 3)), R"(std::string_view("a\000b", 3))");
}

TEST(CppWriter, MangledIdentifiersAreUsableAndUniqueOnesDistinct) {
  EXPECT_EQ(mangled_identifier("flash-attn v2"), "flash_attn_v2");
  EXPECT_EQ(mangled_identifier("9lives"), "k_9lives");
  EXPECT_EQ(mangled_identifier("class"), "k_class");
  EXPECT_EQ(mangled_identifier("\n"), "k_");
  std::set<std::string> taken;
  EXPECT_EQ(unique_identifier("a-b", taken), "a_b");
  EXPECT_EQ(unique_identifier("a b", taken), "a_b_2");
  EXPECT_TRUE(is_usable_name(mangled_identifier("x\nextern \"C\" int system(const char*);")));
}

}  // namespace
}  // namespace cutune::cppgen
