// `cutune show` and `cutune export` run as the user runs them: the built tool in a child process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "store_testing.hpp"

namespace cutune {
namespace {

using testing::CommandResult;
using testing::failed;
using testing::gemm_key;
using testing::run_command;
using testing::TempDir;
using testing::timed;

std::string tool(const std::string& arguments) {
  return fmt::format("{} {}", CUTUNE_TOOL, arguments);
}

class ToolOnAStore : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::open(db_);
    store.record(timed(gemm_key(), 128, 0.75));
    store.record(timed(gemm_key(), 64, 0.5));
    store.record(failed(gemm_key(), 256, Outcome::launch_error, "too much shared memory"));
    store.record(timed(gemm_key("m=64,n=64,k=64,dtype=f32"), 32, 0.01));
    StoredResult on_cpu = timed({"softmax", "v3", "rows=8", "cpu", "g++ 12"}, 4, 0.002);
    on_cpu.measurement.device_name = "cpu";  // CPU worker 1
    store.record(on_cpu);
  }
  TempDir dir_;
  std::filesystem::path db_ = dir_ / "results.db";
};

TEST_F(ToolOnAStore, ShowPrintsTheBestConfigPerKey) {
  const CommandResult shown = run_command(tool(fmt::format("show --db {}", db_.string())));
  ASSERT_EQ(shown.status, 0) << shown.output;
  std::istringstream lines(shown.output);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  // The header, then per key its row and its config, then the legend.
  ASSERT_EQ(rows.size(), 8u) << shown.output;
  EXPECT_EQ(rows[0].rfind("KEY", 0), 0u);
  EXPECT_EQ(rows[1].rfind(gemm_key().hash().substr(0, 8), 0), 0u) << rows[1];
  EXPECT_NE(rows[1].find("m=2048,n=4096,k=4096,dtype=bf16"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("0.5000"), std::string::npos);
  EXPECT_NE(rows[1].find("  3"), std::string::npos) << "measurement count: " << rows[1];
  EXPECT_EQ(rows[2], "    block_m=64, layout=row, swizzle=true");
  EXPECT_NE(rows[5].find(" softmax "), std::string::npos);
  EXPECT_NE(rows[7].find("SPREAD: (p75 - p25) / median"), std::string::npos);
  for (const std::string& row : rows) EXPECT_LE(row.size(), 120u) << row;

  const CommandResult only_softmax =
      run_command(tool(fmt::format("show --db {} --family softmax", db_.string())));
  EXPECT_EQ(std::count(only_softmax.output.begin(), only_softmax.output.end(), '\n'), 4);
}

// The cells of a table row, cut at the columns' starts in its header (header names hold no
// spaces), trimmed.
std::vector<std::string> cells(const std::string& header, const std::string& row) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] != ' ' && (i == 0 || header[i - 1] == ' ')) starts.push_back(i);
  std::vector<std::string> out;
  for (std::size_t c = 0; c < starts.size(); ++c) {
    const std::size_t end = c + 1 < starts.size() ? starts[c + 1] : row.size();
    std::string cell = row.substr(starts[c], end - starts[c]);
    cell.erase(cell.find_last_not_of(' ') + 1);
    out.push_back(cell);
  }
  return out;
}

// A cell shows the fact, whole or cut to fit 120 columns (its end then "...").
void expect_shows(const std::string& cell, const std::string& fact) {
  if (cell.ends_with("...")) {
    EXPECT_EQ(fact.rfind(cell.substr(0, cell.size() - 3), 0), 0u) << cell << " vs " << fact;
  } else {
    EXPECT_EQ(cell, fact);
  }
}

// Issue 18: `show --json` carries the facts of `show`'s table, KEY, ROWS and ON
// included, row by row, and each config as its line below the row writes it.
TEST_F(ToolOnAStore, ShowJsonCarriesTheSameFactsAsTheTable) {
  const CommandResult text = run_command(tool(fmt::format("show --db {}", db_.string())));
  const CommandResult json =
      run_command(tool(fmt::format("show --json --db {}", db_.string())), true);
  ASSERT_EQ(text.status, 0) << text.output;
  ASSERT_EQ(json.status, 0) << json.output;
  std::istringstream lines(text.output);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  const auto results = nlohmann::json::parse(json.output).at("results");
  ASSERT_EQ(results.size(), 3u);
  ASSERT_EQ(rows.size(), 2 * results.size() + 2) << text.output;
  EXPECT_EQ(cells(rows[0], rows[0]),
            (std::vector<std::string>{"KEY", "FAMILY", "PROBLEM", "DEVICE", "TOOLCHAIN", "TIME_MS",
                                      "SPREAD", "ROWS", "ON"}));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const std::vector<std::string> row = cells(rows[0], rows[1 + 2 * i]);
    ASSERT_EQ(row.size(), 9u) << rows[1 + 2 * i];
    expect_shows(row[0], r.at("key").get<std::string>());
    expect_shows(row[1], r.at("family").get<std::string>());
    expect_shows(row[2], r.at("problem").get<std::string>());
    expect_shows(row[3], r.at("device").get<std::string>());
    expect_shows(row[5], fmt::format("{:.4f}", r.at("time_ms").get<double>()));
    expect_shows(row[6], fmt::format("{:.1f}%", r.at("spread").get<double>() * 100));
    expect_shows(row[7], std::to_string(r.at("measured").get<int>()));
    expect_shows(row[8], r.at("measured_on").at("text").get<std::string>());
    std::string config;
    for (const auto& [knob, value] : r.at("config").items()) {
      config += fmt::format("{}{}={}", config.empty() ? "" : ", ", knob,
                            value.is_string() ? value.get<std::string>() : value.dump());
    }
    EXPECT_EQ(rows[2 + 2 * i], "    " + config);
  }
  // The samples were measured on device 1, a GPU named in the result.
  EXPECT_EQ(results[0].at("measured_on").at("device_index"), 1);
  EXPECT_EQ(results[0].at("measured_on").at("device_name"), "NVIDIA H200");
  EXPECT_EQ(results[0].at("measured_on").at("text"), "#1");  // the key's device names the GPU
  EXPECT_EQ(results[0].at("measured"), 3);
}

// Issue 18: the failed configs are listed with their reason, as text and as JSON with the same
// facts; a config whose latest measurement succeeded is not listed.
TEST_F(ToolOnAStore, ShowFailuresListsEachFailedConfigWithItsFirstErrorLine) {
  {
    auto store = Store::open(db_);
    store.record(
        failed(gemm_key(), 512, Outcome::compile_error,
               "In function 'void k()':\nk.cu:3:5: error: static assertion failed: tile too "
               "big\n(full log: /cache/k.log)"));
  }
  const CommandResult text =
      run_command(tool(fmt::format("show --failures --db {}", db_.string())));
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_NE(text.output.find("launch_error"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("too much shared memory"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("k.cu:3:5: error: static assertion failed: tile too big"),
            std::string::npos)
      << text.output;
  EXPECT_EQ(text.output.find("In function"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("full log: /cache/k.log"), std::string::npos) << text.output;
  EXPECT_EQ(text.output.find("softmax"), std::string::npos) << "nothing of it failed";

  const CommandResult json =
      run_command(tool(fmt::format("show --failures --json --db {}", db_.string())), true);
  ASSERT_EQ(json.status, 0) << json.output;
  const auto document = nlohmann::json::parse(json.output);
  ASSERT_EQ(document.at("keys").size(), 1u);
  const auto& failures = document.at("keys").at(0).at("failures");
  ASSERT_EQ(failures.size(), 2u);
  // By outcome, in the order of the Outcome enum: compile_error before launch_error.
  EXPECT_EQ(failures.at(0).at("outcome"), "compile_error");
  EXPECT_EQ(failures.at(0).at("first_error_line"),
            "k.cu:3:5: error: static assertion failed: tile too big");
  EXPECT_EQ(failures.at(0).at("log"), "/cache/k.log");
  EXPECT_EQ(failures.at(1).at("outcome"), "launch_error");
  EXPECT_EQ(failures.at(1).at("config").at("block_m"), 256);
  EXPECT_TRUE(failures.at(1).at("log").is_null());
}

// show --failures judges each config by its latest verdict, the store's rule (its
// latest_per_config view, Store::latest_results): a transient row leaves the verdict before it
// (ok or failed) standing, a config with only transient rows has none, and an ok measurement after
// a failure clears it.
TEST_F(ToolOnAStore, ShowFailuresJudgesEachConfigByItsLatestVerdictAsTheStoreDoes) {
  {
    auto store = Store::open(db_);
    store.record(failed(gemm_key(), 64, Outcome::transient, "killed from outside 3 times"));
    store.record(failed(gemm_key(), 256, Outcome::transient, "No space left on device"));
    store.record(failed(gemm_key(), 512, Outcome::transient, "killed from outside 3 times"));
    store.record(failed(gemm_key(), 32, Outcome::compile_error, "k.cu:1:1: error: too big"));
    store.record(timed(gemm_key(), 32, 0.6));
  }
  const CommandResult shown =
      run_command(tool(fmt::format("show --failures --json --db {}", db_.string())), true);
  ASSERT_EQ(shown.status, 0) << shown.output;
  const auto document = nlohmann::json::parse(shown.output);
  ASSERT_EQ(document.at("keys").size(), 1u) << shown.output;
  std::vector<std::string> listed;
  for (const auto& f : document.at("keys").at(0).at("failures"))
    listed.push_back(f.at("config_hash"));
  EXPECT_EQ(listed, std::vector<std::string>{"cfg-256"}) << shown.output;
  EXPECT_EQ(document.at("keys").at(0).at("failures").at(0).at("outcome"), "launch_error");

  std::vector<std::string> failed_in_store;
  for (const StoredResult& r : Store::open(db_, OpenMode::read_only).latest_results(gemm_key())) {
    if (!r.measurement.ok()) failed_in_store.push_back(r.config_hash);
  }
  EXPECT_EQ(listed, failed_in_store);
}

TEST_F(ToolOnAStore, ShowFindsTheStoreThroughCutuneDb) {
  const CommandResult shown =
      run_command(fmt::format("CUTUNE_DB={} {}", db_.string(), tool("show --json --device cpu")));
  ASSERT_EQ(shown.status, 0) << shown.output;
  const auto document = nlohmann::json::parse(shown.output);
  ASSERT_EQ(document["results"].size(), 1u);
  EXPECT_EQ(document["results"][0]["family"], "softmax");
}

TEST_F(ToolOnAStore, ExportWritesJsonAndAHeaderThatCompiles) {
  const auto json_path = dir_ / "best.json";
  const auto header_path = dir_ / "tuned.hpp";
  const CommandResult exported =
      run_command(tool(fmt::format("export --db {} --json {} --header {} --namespace my::t",
                                   db_.string(), json_path.string(), header_path.string())));
  ASSERT_EQ(exported.status, 0) << exported.output;
  EXPECT_NE(exported.output.find("exported 3 tuned config(s) of 2 families"), std::string::npos)
      << exported.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(json_path))["results"].size(), 3u);

  std::ofstream(dir_ / "use.cpp") << R"(#include "tuned.hpp"
static_assert(my::t::find_gemm("m=2048,n=4096,k=4096,dtype=bf16", "NVIDIA H200 sm_90")
                  ->config.block_m == 64);
static_assert(my::t::find_softmax("rows=8", "cpu")->config.layout == "row");
)";
  const CommandResult compiled =
      run_command(fmt::format("{} -std=c++17 -Wall -Wextra -Werror -fsyntax-only {}",
                              CUTUNE_TEST_CXX, (dir_ / "use.cpp").string()));
  EXPECT_EQ(compiled.status, 0) << compiled.output;
}

TEST_F(ToolOnAStore, BadInputFailsWithAMessageNamingIt) {
  const CommandResult nothing = run_command(tool(fmt::format("export --db {}", db_.string())));
  EXPECT_NE(nothing.status, 0);
  EXPECT_NE(nothing.output.find("nothing to write: pass --json FILE, --header FILE"),
            std::string::npos);

  const auto missing = dir_ / "missing.db";
  const CommandResult absent = run_command(tool(fmt::format("show --db {}", missing.string())));
  EXPECT_EQ(absent.status, 1);
  EXPECT_NE(absent.output.find(missing.string() + ": no such file"), std::string::npos)
      << absent.output;
  EXPECT_FALSE(std::filesystem::exists(missing));

  const CommandResult bad_namespace = run_command(tool(fmt::format(
      "export --db {} --header {} --namespace 1x", db_.string(), (dir_ / "h.hpp").string())));
  EXPECT_EQ(bad_namespace.status, 1);
  EXPECT_NE(bad_namespace.output.find("\"1x\" is not a C++ namespace name"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "h.hpp"));
}

}  // namespace
}  // namespace cutune
