#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cppgen/cpp_writer.hpp"
#include "cppgen/hostile.hpp"
#include "store_testing.hpp"

namespace cutune {
namespace {

using testing::gemm_key;
using testing::TempDir;
using testing::timed;

StoredResult with_config(const TuningKey& key, const std::string& hash, double time_ms,
                         const std::string& config_json) {
  StoredResult result = timed(key, 0, time_ms);
  result.config_hash = hash;
  result.config_json = config_json;
  return result;
}

TuningKey key_of(const std::string& family, const std::string& problem, const std::string& device,
                 const std::string& toolchain = "g++ 12") {
  return {family, "v1", problem, device, toolchain};
}

// Kinds the generator must tell apart: bool, integer, number (an integer in one config and a
// fraction in another), string, fixed-length integer list, mixed kinds (JSON text), and family
// names that are not identifiers as they stand.
std::vector<StoredResult> sample_results() {
  return {
      with_config(key_of("gemm", "m=1", "A"), "fast", 0.25,
                  R"({"block_m": 128, "swizzle": true, "layout": "row", "order": [0, 1, 2],
                      "ratio": 0.5, "tile_m": 17, "count": 3,
                      "mixed": 1})"),
      with_config(key_of("gemm", "m=1", "A", "clang 16"), "slow", 0.75,
                  R"({"block_m": 64, "swizzle": false, "layout": "col", "order": [2, 1, 0],
                      "ratio": 1, "tile_m": 9, "count": 0,
                      "mixed": "x"})"),
      with_config(key_of("gemm", "m=2", "A"), "other", 1.5,
                  R"({"block_m": -9223372036854775808, "swizzle": false, "layout": "a\"b\\c",
                      "order": [1, 0, 2], "ratio": 2, "tile_m": 2, "count": 1,
                      "mixed": [1, {"a": null}]})"),
      with_config(key_of("flash-attn v2", "q=\"1\"\n\xc3\xa9", "B"), "fa", 3.0, R"({})"),
      with_config(key_of("9lives", "n=9", "B"), "cat", 9.0, R"({"lives": 9})"),
  };
}

std::string run_compiler(const std::string& arguments) {
  const std::string command = fmt::format("{} {} 2>&1", CUTUNE_TEST_CXX, arguments);
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  char buffer[4096];
  while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  return status == 0 ? "" : fmt::format("{} failed:\n{}", command, output);
}

TEST(ExportHeader, CompilesOnItsOwnAndFindsTheFastestConfigAtCompileTime) {
  TempDir dir;
  std::ofstream(dir / "tuned.hpp") << export_cpp_header(sample_results(), "app::tuned");
  std::ofstream(dir / "use.cpp") << R"(#include "tuned.hpp"
namespace t = app::tuned;
static_assert(t::gemm_entries.size() == 3);
constexpr const t::gemm_entry* fast = t::find_gemm("m=1", "A");
static_assert(fast->config_hash == "fast" && fast->time_ms == 0.25);
static_assert(fast->toolchain == "g++ 12" && fast->family_version == "v1");
static_assert(fast->config.block_m == 128 && fast->config.swizzle && fast->config.layout == "row");
static_assert(fast->config.order[0] == 0 && fast->config.order[2] == 2);
static_assert(fast->config.ratio == 0.5 && fast->config.tile_m == 17 && fast->config.count == 3);
static_assert(fast->config.mixed == "1");
constexpr const t::gemm_entry* other = t::find_gemm("m=2", "A");
static_assert(other->config.block_m < -9223372036854775807 && other->config.ratio == 2.0);
static_assert(other->config.layout == "a\"b\\c" && other->config.mixed == "[1,{\"a\":null}]");
static_assert(t::find_gemm("m=1", "B") == nullptr && t::find_gemm("m=3", "A") == nullptr);
static_assert(t::find_flash_attn_v2("q=\"1\"\n\xc3\xa9", "B")->config_hash == "fa");
static_assert(t::find_k_9lives("n=9", "B")->config.lives == 9);
int main() { return t::find_gemm("m=1", "A")->config.block_m == 128 ? 0 : 1; }
)";
  const auto flags = "-std=c++17 -Wall -Wextra -Werror -pedantic -fsyntax-only";
  EXPECT_EQ(run_compiler(fmt::format("{} {}", flags, (dir / "use.cpp").string())), "");
  // A header alone and twice in one translation unit: self-contained and guarded.
  std::ofstream(dir / "twice.cpp") << "#include \"tuned.hpp\"\n#include \"tuned.hpp\"\n";
  EXPECT_EQ(run_compiler(fmt::format("{} {}", flags, (dir / "twice.cpp").string())), "");
}

TEST(ExportHeader, EmptyResultsGiveAnEmptyNamespace) {
  const std::string header = export_cpp_header({}, "tuned");
  EXPECT_NE(header.find("namespace tuned {"), std::string::npos);
  EXPECT_EQ(header.find("struct"), std::string::npos);
}

TEST(ExportHeader, RejectsBadNamespaceAndBadConfig) {
  EXPECT_THROW(export_cpp_header({}, "my-tuned"), std::invalid_argument);
  EXPECT_THROW(export_cpp_header({}, "a::"), std::invalid_argument);
  EXPECT_THROW(export_cpp_header({}, "class"), std::invalid_argument);
  EXPECT_NO_THROW(export_cpp_header({}, "a::b_2"));
  try {
    export_cpp_header({with_config(gemm_key(), "bad", 1.0, "not json")}, "tuned");
    FAIL() << "exported a config that is not JSON";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("config bad"), std::string::npos) << error.what();
  }
}

// Every text a store holds comes back byte for byte from a program that includes the header, and
// none of it adds code (the first hostile string would call system() from a static initialiser).
TEST(ExportHeader, EscapesEveryStoredStringAndTheProgramPrintsThemBack) {
  TempDir dir;
  const std::vector<std::string> hostile = testing::hostile_strings();
  const std::size_t n = hostile.size();
  std::vector<StoredResult> results;
  std::string expected;
  const std::string family = hostile[0];
  for (std::size_t i = 0; i < n; ++i) {
    // The problem's number prefix fixes the order of the table.
    const TuningKey key{family, hostile[(i + 3) % n], fmt::format("{:02}", i) + hostile[i],
                        hostile[(i + 1) % n], hostile[(i + 2) % n]};
    StoredResult result = with_config(key, hostile[(i + 4) % n], 1.0,
                                      nlohmann::json{{"mode", hostile[(i + 5) % n]}}.dump());
    results.push_back(result);
    for (const std::string& text : {key.problem, key.device, key.toolchain, key.family_version,
                                    result.config_hash, hostile[(i + 5) % n]}) {
      expected += text + "|";
    }
  }
  std::ofstream(dir / "tuned.hpp") << export_cpp_header(results, "tuned");
  const std::string prefix = "tuned::" + cppgen::mangled_identifier(family);
  std::string main_cpp = "#include <cstdio>\n#include \"tuned.hpp\"\nint main() {\n";
  main_cpp += "  for (const auto& e : " + prefix + "_entries) {\n";
  for (const char* field : {"e.problem", "e.device", "e.toolchain", "e.family_version",
                            "e.config_hash", "e.config.mode"}) {
    main_cpp += testing::print_statement(field);
  }
  main_cpp += "  }\n}\n";
  EXPECT_EQ(testing::compile_and_run(dir.path(), main_cpp, CUTUNE_TEST_CXX), expected);
}

TEST(ExportHeader, RefusesKnobNamesThatAreNotIdentifiersNamingTheKnob) {
  for (const std::string knob : {"X Y", "class", "tile-m", "9lives", "std", "a\nb"}) {
    const nlohmann::json config{{knob, 1}};
    try {
      export_cpp_header({with_config(gemm_key(), "h", 1.0, config.dump())}, "tuned");
      FAIL() << "exported a knob named " << knob;
    } catch (const cppgen::NameError& error) {
      EXPECT_NE(std::string(error.what()).find(cppgen::string_literal(knob)), std::string::npos)
          << error.what();
    }
  }
}

TEST(ExportJson, HoldsKeyConfigAndTiming) {
  const auto document = nlohmann::json::parse(export_json(sample_results()));
  EXPECT_EQ(document["format"], "cutune-best");
  EXPECT_EQ(document["version"], 2);
  ASSERT_EQ(document["results"].size(), 5u);
  const auto& first = document["results"][0];
  EXPECT_EQ(first["family"], "gemm");
  EXPECT_EQ(first["problem"], "m=1");
  EXPECT_EQ(first["device"], "A");
  EXPECT_EQ(first["toolchain"], "g++ 12");
  EXPECT_EQ(first["family_version"], "v1");
  EXPECT_EQ(first["config_hash"], "fast");
  EXPECT_EQ(first["config"]["order"], nlohmann::json::array({0, 1, 2}));
  EXPECT_EQ(first["config"]["tile_m"], 17);
  EXPECT_DOUBLE_EQ(first["time_ms"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(first["spread"].get<double>(), 0.005);
  EXPECT_DOUBLE_EQ(first["range_spread"].get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(first["min_ms"].get<double>(), 0.25 * 0.99);
  EXPECT_DOUBLE_EQ(first["max_ms"].get<double>(), 0.25 * 1.01);
  EXPECT_EQ(first["repetitions"], 100);
  EXPECT_EQ(first["tune_id"], "tune-1");
}

TEST(ExportJson, OfAStoreRoundTripsThroughTheStore) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  for (const StoredResult& result : sample_results()) store.record(result);
  const auto document = nlohmann::json::parse(export_json(store.best_per_key()));
  ASSERT_EQ(document["results"].size(), 5u);  // the clang key is a key of its own
  std::set<std::string> hashes;
  for (const auto& row : document["results"]) hashes.insert(row["config_hash"]);
  EXPECT_EQ(hashes, (std::set<std::string>{"fast", "slow", "other", "fa", "cat"}));
}

}  // namespace
}  // namespace cutune
