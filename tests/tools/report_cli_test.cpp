// `cutune report` end to end (issue 18): real tunes of the shipped CPU examples into a real store,
// the page written from the store afterwards, then opened in headless Chromium, which runs the
// page's script: the facts a newcomer asks for must be in the rendered DOM, every plot drawn, and
// no script error raised.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>

#include "../store/store_testing.hpp"
#include "cutune/store.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

using testing::read_text;
using testing::run_command;
using testing::TempDir;

// The tool with its caches under `dir`; stdout only.
std::string tool(const TempDir& dir, const std::string& arguments) {
  const auto result =
      run_command(fmt::format("env XDG_CACHE_HOME='{}' '{}' {} 2>'{}'", (dir / "cache").string(),
                              CUTUNE_TOOL, arguments, (dir / "stderr.txt").string()),
                  true);
  EXPECT_NE(result.status, -1) << read_text(dir / "stderr.txt");
  return result.output;
}

// The page's DOM after its scripts ran, as headless Chromium serialises it.
std::string rendered(const TempDir& dir, const fs::path& page) {
  return run_command(fmt::format("timeout 60 '{}' --headless=new --no-sandbox --disable-gpu "
                                 "--user-data-dir='{}' --dump-dom 'file://{}' 2>/dev/null",
                                 CUTUNE_CHROMIUM, (dir / "chromium").string(), page.string()),
                     true)
      .output;
}

// The text of the element with this id (its tags dropped); empty when there is none. Plain
// search: std::regex recurses per character and overflows the stack on a 200 KB page.
std::string text_of(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return {};
  const auto open = dom.rfind('<', at);
  const std::string tag = dom.substr(open + 1, dom.find_first_of(" >", open) - open - 1);
  const auto start = dom.find('>', at) + 1;
  const auto end = dom.find("</" + tag + ">", start);
  std::string text;
  bool in_tag = false;
  for (char c : dom.substr(start, end - start)) {
    if (c == '<' || c == '>') {
      in_tag = c == '<';
    } else if (!in_tag) {
      text += c;
    }
  }
  // The serialiser's entities, as the text reads.
  for (const auto& [entity, character] :
       {std::pair{"&lt;", "<"}, std::pair{"&gt;", ">"}, std::pair{"&amp;", "&"}}) {
    for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1))
      text.replace(at, std::string_view(entity).size(), character);
  }
  return text;
}

// The number in body's data-plots attribute (what the page's script drew); -1 when absent.
int plots_drawn(const std::string& dom) {
  const std::string attribute = "data-plots=\"";
  const auto at = dom.find(attribute);
  return at == std::string::npos ? -1 : std::atoi(dom.c_str() + at + attribute.size());
}

// body[data-axes]: each plot's axis range beside the range of the values it shows.
nlohmann::json axes_of(const std::string& dom) {
  const std::string attribute = "data-axes=\"";
  const auto at = dom.find(attribute);
  if (at == std::string::npos) return nullptr;
  std::string text = dom.substr(at + attribute.size(),
                                dom.find('"', at + attribute.size()) - at - attribute.size());
  for (const auto& [entity, character] : {std::pair{"&quot;", "\""}, std::pair{"&amp;", "&"}}) {
    for (auto p = text.find(entity); p != std::string::npos; p = text.find(entity, p + 1))
      text.replace(p, std::string_view(entity).size(), character);
  }
  return nlohmann::json::parse(text);
}

// Issue 32: every plot's axis spans its data without leaving most of its range empty (a log axis
// within 1.5x of the data's ratio, a linear one within 1.5x of its span); the tournament's axis
// does not start at 0, its labels are whole and finalists whose intervals do not overlap are
// drawn apart. How far apart depends on how close a real tune's intervals came, which a loaded
// machine changes (two intervals 0.0008 apart on an axis spanning 0.24 came out 1.98 px apart):
// the 2-pixel bar is TheTournamentPlotSeparatesIntervalsThatDoNotOverlap's, on fixed intervals.
void expect_axes_span_their_data(const std::string& dom) {
  const nlohmann::json axes = axes_of(dom);
  ASSERT_TRUE(axes.is_array()) << "no data-axes on the page";
  EXPECT_GE(axes.size(), 3u);  // both convergence plots and the scatter at least
  bool tournament = false;
  for (const auto& a : axes) {
    SCOPED_TRACE(a.dump());
    const double min = a.at("min"), max = a.at("max");
    const double lo = a.at("data_min"), hi = a.at("data_max");
    EXPECT_LE(min, lo * (1 + 1e-9));
    EXPECT_GE(max, hi * (1 - 1e-9));
    if (a.at("log").get<bool>()) {
      EXPECT_LE(max / min, std::max(hi / lo, 1.0) * 2.3);
      if (hi > lo) {
        EXPECT_LE(max / min, hi / lo * 1.5);
      }
    } else if (hi > lo) {
      EXPECT_LE(max - min, (hi - lo) * 1.5);
    }
    if (a.at("plot") == "plot-tournament") {
      tournament = true;
      EXPECT_GT(min, 0.0);
      EXPECT_TRUE(a.at("labels_whole").get<bool>());
      if (!a.at("min_gap_px").is_null()) {
        EXPECT_GT(a.at("min_gap_px").get<double>(), 0.0);
      }
    }
  }
  EXPECT_TRUE(tournament) << "no tournament plot";
}

// Every knob=value of a config as the page writes it.
void expect_config_on(const std::string& text, const std::string& config_json) {
  const nlohmann::json config = nlohmann::json::parse(config_json);
  for (const auto& [knob, value] : config.items()) {
    const std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    EXPECT_NE(text.find(knob + "=" + shown), std::string::npos) << knob << " in " << text;
  }
}

class ReportOfRealTunes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    // A space where most configs fail, each its own way (all 22 modes, so that every kind of
    // failure is on the page), then a tune where the search wins.
    tool(*dir_,
         fmt::format("tune {}/cpu/faults/faults.json --strategy exhaustive --budget 22 --db '{}'",
                     CUTUNE_EXAMPLES_DIR, db().string()));
    matmul_text_ = tool(
        *dir_, fmt::format("tune {}/cpu/matmul/matmul.json --problem m=96,n=96,k=96 --budget 12 "
                           "--seed 5 --db '{}'",
                           CUTUNE_EXAMPLES_DIR, db().string()));
  }
  static void TearDownTestSuite() { delete dir_; }
  static fs::path db() { return *dir_ / "results.db"; }

  // The decision the store holds for the key of `family`.
  static Decision decision_of(const std::string& family) {
    auto store = Store::open(db(), OpenMode::read_only);
    for (const TuningKey& key : store.keys({.family = family})) return *store.decision(key);
    ADD_FAILURE() << "no key of " << family;
    return {};
  }

  static TempDir* dir_;
  static std::string matmul_text_;  // what the matmul tune printed
};

TempDir* ReportOfRealTunes::dir_ = nullptr;
std::string ReportOfRealTunes::matmul_text_;

// Issue 18: the tune's text report keeps to 120 columns (its configs cut in the tables, the
// winner's printed whole), and `show` too.
TEST_F(ReportOfRealTunes, TuneAndShowTextFit120Columns) {
  const std::string shown = tool(*dir_, fmt::format("show --db '{}'", db().string()));
  EXPECT_NE(matmul_text_.find("winning config"), std::string::npos) << matmul_text_;
  EXPECT_NE(shown.find("cpu_matmul"), std::string::npos) << shown;
  for (const std::string& text : {matmul_text_, shown}) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 120u) << line;
  }
}

TEST_F(ReportOfRealTunes, PageOfTheLatestTuneAnswersTheNewcomersQuestions) {
  const fs::path page = *dir_ / "latest.html";
  const std::string said =
      tool(*dir_, fmt::format("report --last --db '{}' --html '{}'", db().string(), page.string()));
  EXPECT_NE(said.find("cpu_matmul"), std::string::npos) << said;
  const Decision d = decision_of("cpu_matmul");
  const std::string dom = rendered(*dir_, page);
  ASSERT_FALSE(dom.empty()) << "Chromium rendered nothing";

  // Which config won, by how much over the default, how sure the tournament is.
  expect_config_on(text_of(dom, "winner"), d.winner_json);
  const std::string speedup = text_of(dom, "speedup");
  EXPECT_NE(speedup.find(fmt::format("{:.3f}x the default config", d.speedup)), std::string::npos)
      << speedup;
  EXPECT_NE(speedup.find(fmt::format("95% interval [{:.3f}, {:.3f}] over {} paired rounds",
                                     d.speedup_low, d.speedup_high, d.rounds)),
            std::string::npos)
      << speedup;
  const std::string sure = text_of(dom, "sureness");
  EXPECT_NE(sure.find(d.winner_hash == d.default_hash ? "the default is deployed"
                      : d.speedup_low > 1             ? "Sure: the whole interval is above 1"
                                                      : "Not sure"),
            std::string::npos)
      << sure;
  // Against the reference: the CPU backend times none, and the page says so.
  EXPECT_NE(text_of(dom, "reference").find("none timed"), std::string::npos);
  // Which knobs mattered: every knob of the space that the samples varied is ranked.
  const std::string knobs = text_of(dom, "knobs");
  for (const char* knob : {"BM", "BN", "BK"})
    EXPECT_NE(knobs.find(knob), std::string::npos) << knobs;
  // The plots: both convergence plots, the scatter, a plot per ranked knob (at most six) and
  // the tournament's intervals, drawn without a script error.
  EXPECT_EQ(text_of(dom, "script-errors"), "");
  EXPECT_GE(plots_drawn(dom), 5);
}

TEST_F(ReportOfRealTunes, PageOfTheFaultsTuneExplainsEveryFailure) {
  const Decision d = decision_of("cpu_faults");
  const fs::path page = *dir_ / "faults.html";
  tool(*dir_,
       fmt::format("report {} --db '{}' --html '{}'", d.tune_id, db().string(), page.string()));
  const std::string dom = rendered(*dir_, page);
  // Only MODE=fast and MODE=slow run correctly; fast wins as the default.
  expect_config_on(text_of(dom, "winner"), R"({"MODE": "fast"})");
  EXPECT_NE(text_of(dom, "sureness").find("the default is deployed"), std::string::npos);
  const std::string failures = text_of(dom, "failures");
  for (const char* reason : {"compile_error", "crash", "hang", "wrong_result"})
    EXPECT_NE(failures.find(reason), std::string::npos) << reason << " in " << failures;
  // The endless compile is a compile_timeout; on a machine so loaded that it never got half its
  // limit in CPU, the evaluator gives no verdict on it (src/eval/starvation.hpp): transient.
  EXPECT_TRUE(failures.find("compile_timeout") != std::string::npos ||
              failures.find("transient") != std::string::npos)
      << failures;
  // The compile error's first error line (the static_assert's message), and its log's path.
  EXPECT_NE(failures.find("error: static assertion failed: this mode does not compile"),
            std::string::npos)
      << failures;
  EXPECT_NE(failures.find((*dir_ / "cache").string()), std::string::npos) << failures;
  EXPECT_EQ(text_of(dom, "script-errors"), "");
}

// Issue 18: `report --json` carries the facts the page shows, fact by fact: what the JSON says
// is what the rendered page says, for a tune that won and for one where most configs failed.
void expect_page_states_the_facts(const std::string& dom, const nlohmann::json& facts) {
  const std::string key = text_of(dom, "key");
  EXPECT_NE(key.find(fmt::format("{} configs measured, {} failed",
                                 facts.at("configs_measured").get<int>(),
                                 facts.at("configs_failed").get<int>())),
            std::string::npos)
      << key;
  EXPECT_NE(key.find(facts.at("tune_id").get<std::string>()), std::string::npos) << key;
  const auto& winner = facts.at("winner");
  ASSERT_FALSE(winner.is_null());
  expect_config_on(text_of(dom, "winner"), winner.at("config").dump());
  EXPECT_NE(
      text_of(dom, "winner").find(fmt::format("{:.5g} ms", winner.at("time_ms").get<double>())),
      std::string::npos);
  const auto& speedup = facts.at("speedup");
  ASSERT_EQ(speedup.at("from"), "tournament");
  const std::string said = text_of(dom, "speedup");
  EXPECT_NE(said.find(fmt::format("{:.3f}x the default config ({:.5g} ms), 95% interval [{:.3f}, "
                                  "{:.3f}] over {} paired rounds",
                                  speedup.at("ratio").get<double>(),
                                  facts.at("default").at("time_ms").get<double>(),
                                  speedup.at("low").get<double>(), speedup.at("high").get<double>(),
                                  speedup.at("rounds").get<int>())),
            std::string::npos)
      << said << "\n"
      << speedup;
  EXPECT_EQ(text_of(dom, "sureness"), facts.at("sureness").at("text").get<std::string>());
  // The CPU backend times no reference: null in the JSON, "none timed" on the page.
  EXPECT_TRUE(facts.at("reference").is_null());
  EXPECT_NE(text_of(dom, "reference").find("none timed"), std::string::npos);
  // The knobs in the JSON's rank order, each with its ratio and fastest value.
  const std::string knobs = text_of(dom, "knobs");
  std::size_t after = 0;
  for (const auto& k : facts.at("knobs")) {
    const std::string item =
        fmt::format("{}: {:.2f}x between its values' median times; fastest {} ",
                    k.at("knob").get<std::string>(), k.at("ratio").get<double>(),
                    k.at("fastest").at("value").get<std::string>());
    const std::size_t at = knobs.find(item, after);
    EXPECT_NE(at, std::string::npos) << item << " after " << after << " in " << knobs;
    if (at != std::string::npos) after = at + item.size();
  }
  // Every failure group: its outcome, first error line and where its log is.
  const std::string failures = text_of(dom, "failures");
  for (const auto& g : facts.at("failures")) {
    EXPECT_NE(failures.find(g.at("first_error_line").get<std::string>()), std::string::npos) << g;
    if (!g.at("log").is_null()) {
      EXPECT_NE(failures.find(g.at("log").get<std::string>()), std::string::npos) << g;
    }
  }
  if (facts.at("failures").empty()) {
    EXPECT_EQ(failures, "Nothing failed.");
  }
  expect_axes_span_their_data(dom);
  // The failure groups: most frequent first, then by outcome and first line.
  const auto& groups = facts.at("failures");
  for (std::size_t i = 1; i < groups.size(); ++i) {
    const auto& a = groups[i - 1];
    const auto& b = groups[i];
    const auto rank = [](const nlohmann::json& g) {
      return std::tuple(-g.at("configs").get<int>(), g.at("outcome").get<std::string>(),
                        g.at("first_error_line").get<std::string>());
    };
    EXPECT_LE(rank(a), rank(b)) << a << " before " << b;
  }
  // The convergence data: one sample per measured config, the best time never rising.
  const auto& samples = facts.at("convergence");
  EXPECT_EQ(samples.size(), facts.at("configs_measured").get<std::size_t>());
  double best = INFINITY;
  for (const auto& sample : samples) {
    // Every timed result says which device measured it.
    if (sample.at("outcome") == "ok") {
      EXPECT_EQ(sample.at("device"), "cpu worker #0");
    }
    if (sample.at("best_ms").is_null()) continue;
    EXPECT_LE(sample.at("best_ms").get<double>(), best);
    best = sample.at("best_ms").get<double>();
  }
}

TEST_F(ReportOfRealTunes, JsonCarriesTheFactsThePageShows) {
  for (const std::string family : {"cpu_matmul", "cpu_faults"}) {
    const Decision d = decision_of(family);
    const fs::path page = *dir_ / (family + "-facts.html");
    const std::string json =
        tool(*dir_, fmt::format("report {} --json --db '{}'", d.tune_id, db().string()));
    EXPECT_FALSE(fs::exists("cutune-report.html")) << "--json alone writes no page";
    tool(*dir_,
         fmt::format("report {} --db '{}' --html '{}'", d.tune_id, db().string(), page.string()));
    const nlohmann::json facts = nlohmann::json::parse(json);
    EXPECT_EQ(facts.at("format"), "cutune-report");
    EXPECT_EQ(facts.at("winner").at("config"), nlohmann::json::parse(d.winner_json));
    EXPECT_DOUBLE_EQ(facts.at("speedup").at("ratio").get<double>(), d.speedup);
    const std::string dom = rendered(*dir_, page);
    ASSERT_FALSE(dom.empty()) << "Chromium rendered nothing";
    SCOPED_TRACE(family);
    expect_page_states_the_facts(dom, facts);
  }
}

// Issue 32: two finalists whose intervals nearly touch but do not overlap (1.2100 and 1.2125) are
// apart on the page: an axis from 0 draws them within a pixel of each other.
TEST(ReportCli, TheTournamentPlotSeparatesIntervalsThatDoNotOverlap) {
  TempDir dir;
  const fs::path db = dir / "results.db";
  {
    Store store = Store::open(db);
    const TuningKey key = testing::gemm_key();
    std::vector<std::int64_t> rows;
    for (int block : {64, 128, 256}) rows.push_back(store.record(testing::timed(key, block, 1.0)));
    nlohmann::json finalists = nlohmann::json::array();
    const auto finalist = [&](int block, const char* role, double ratio, double low, double high) {
      finalists.push_back({{"config_hash", fmt::format("cfg-{}", block)},
                           {"config", {{"block_m", block}, {"swizzle", true}, {"layout", "row"}}},
                           {"role", role},
                           {"outcome", "ok"},
                           {"time_ms", 1.0 / ratio},
                           {"ratio", ratio},
                           {"ratio_low", low},
                           {"ratio_high", high}});
    };
    finalist(64, "default", 1.0, 1.0, 1.0);
    finalist(128, "search", 1.205, 1.2, 1.21);
    finalist(256, "search", 1.216, 1.2125, 1.22);
    Decision d;
    d.key = key;
    d.tune_id = "tune-1";
    d.winner_hash = "cfg-256";
    d.winner_json = R"({"block_m": 256, "swizzle": true, "layout": "row"})";
    d.winner_measurement = rows[2];
    d.default_hash = "cfg-64";
    d.speedup = 1.216;
    d.speedup_low = 1.2125;
    d.speedup_high = 1.22;
    d.rounds = 15;
    d.finalists_json = finalists.dump();
    d.timestamp = 1.8e9;
    store.record_decision(d);
  }
  const fs::path page = dir / "tournament.html";
  run_command(fmt::format("'{}' report tune-1 --db '{}' --html '{}'", CUTUNE_TOOL, db.string(),
                          page.string()));
  const std::string dom = rendered(dir, page);
  EXPECT_EQ(text_of(dom, "script-errors"), "");
  const nlohmann::json axes = axes_of(dom);
  ASSERT_TRUE(axes.is_array()) << "no data-axes on the page";
  bool found = false;
  for (const auto& a : axes) {
    if (a.at("plot") != "plot-tournament") continue;
    found = true;
    EXPECT_GT(a.at("min").get<double>(), 0.9) << a;
    ASSERT_FALSE(a.at("min_gap_px").is_null()) << a;
    EXPECT_GE(a.at("min_gap_px").get<double>(), 2.0) << a;
    EXPECT_TRUE(a.at("labels_whole").get<bool>()) << a;
  }
  EXPECT_TRUE(found) << "no tournament plot";
}

TEST(ReportCli, AnUnknownSelectorIsRefusedByName) {
  TempDir dir;
  const fs::path db = dir / "results.db";
  Store::open(db).record(testing::timed(testing::gemm_key(), 64, 0.5));
  const auto result =
      run_command(fmt::format("'{}' report no-such-tune --db '{}' --html '{}'", CUTUNE_TOOL,
                              db.string(), (dir / "none.html").string()));
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.output.find("no tune id or key hash"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("'no-such-tune'"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(dir / "none.html"));
}

// Issue 18: every command's help fits 120 columns, the tune's help names its strategies, and
// --version names the version, the git revision and the toolchain.
TEST(CliOutput, HelpFitsAndVersionNamesRevisionAndToolchain) {
  for (const char* command :
       {"", "tune", "show", "report", "space", "export", "dispatch", "bench-strategies"}) {
    const auto help = run_command(fmt::format("'{}' {} --help", CUTUNE_TOOL, command));
    EXPECT_EQ(help.status, 0) << command;
    std::istringstream lines(help.output);
    for (std::string line; std::getline(lines, line);)
      EXPECT_LE(line.size(), 120u) << "cutune " << command << " --help: " << line;
  }
  const std::string tune_help = run_command(fmt::format("'{}' tune --help", CUTUNE_TOOL)).output;
  for (const char* strategy : {"random", "exhaustive", "pattern", "de", "lfbo", "hybrid"})
    EXPECT_NE(tune_help.find(strategy), std::string::npos) << strategy;

  const auto version = run_command(fmt::format("'{}' --version", CUTUNE_TOOL));
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.output.rfind("cutune 0.", 0), 0u) << version.output;
  EXPECT_NE(version.output.find("(git "), std::string::npos) << version.output;
  EXPECT_NE(version.output.find("built with "), std::string::npos) << version.output;
}

}  // namespace
}  // namespace cutune
