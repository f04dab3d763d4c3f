// Shape dispatch: fitted over a real store of tuned shapes, written as JSON and as a C++ header.
// The stores here are filled by hand with timings of a known structure (which config is fast
// where), so that the right rule is known in advance.
#include "cutune/dispatch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include "cppgen/cpp_writer.hpp"
#include "cppgen/hostile.hpp"
#include "runtime_testing.hpp"

namespace cutune::testing {
namespace {

const TuningKey kKey{"toy", "v1", "", "cpu: test", "c++ 12"};

StoredResult toy_result(const std::string& problem, int block, bool vector, double time_ms) {
  StoredResult r;
  r.key = kKey;
  r.key.problem = problem;
  r.config_hash = fmt::format("block{}-{}", block, vector ? "vec" : "scalar");
  r.config_json = fmt::format(R"({{"block": {}, "vector": {}, "layout": "row"}})", block,
                              vector ? "true" : "false");
  r.measurement.outcome = Outcome::ok;
  r.measurement.time_ms = time_ms;
  return r;
}

// Three regimes along m (small blocks for small m, large for large), and a vector variant that is
// 1% faster when n is large. Every config is measured on every shape, as a warm-started tune of
// each shape with its neighbours' winners would leave them.
void fill_toy_store(Store& store) {
  const std::vector<std::pair<int, bool>> configs{{16, false}, {16, true},   {64, false},
                                                  {64, true},  {256, false}, {256, true}};
  for (std::int64_t m : {64, 128, 256, 512, 1024, 2048, 4096, 8192}) {
    for (std::int64_t n : {256, 4096}) {
      const std::string problem = fmt::format("dtype=f32,m={},n={}", m, n);
      for (auto [block, vector] : configs) {
        const int best_block = m <= 200 ? 16 : m <= 1500 ? 64 : 256;
        double t = 1.0 + 0.3 * std::abs(std::log2(static_cast<double>(block) / best_block));
        if (vector && n >= 1024) t *= 0.99;
        if (vector && n < 1024) t *= 1.02;
        store.record(toy_result(problem, block, vector, t * static_cast<double>(m * n) * 1e-6));
      }
    }
  }
}

std::string run_and_read(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  while (std::size_t got = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  EXPECT_EQ(pclose(pipe), 0) << command << "\n" << out;
  return out;
}

// Compiles the header with a program that prints pick_index over a grid (and checks one pick at
// compile time); returns the printed picks.
std::string header_picks(const TempDir& dir, const std::string& header,
                         const std::vector<std::pair<double, double>>& grid) {
  std::ofstream(dir / "dispatch.hpp") << header;
  std::ostringstream program;
  program << "#include <cstdio>\n#include \"dispatch.hpp\"\n"
          << "static_assert(toy_rules::pick_index(100, 100) >= 0);\n"
          << "int main() {\n";
  for (auto [m, n] : grid) {
    program << fmt::format("  std::printf(\"%d\\n\", toy_rules::pick_index({}, {}));\n", m, n);
  }
  program << "  return 0;\n}\n";
  std::ofstream(dir / "main.cpp") << program.str();
  const auto exe = dir / "picks";
  run_and_read(fmt::format("{} -std=c++17 -Wall -Wextra -Werror -o {} {} 2>&1", CUTUNE_TEST_CXX,
                           exe.string(), (dir / "main.cpp").string()));
  return run_and_read(exe.string());
}

std::vector<std::pair<double, double>> grid() {
  std::vector<std::pair<double, double>> out;
  for (double m = 3; m < 40000; m *= 1.7) {
    for (double n = 7; n < 20000; n *= 2.3) out.emplace_back(std::round(m), std::round(n));
  }
  return out;
}

std::string picks_of(const Dispatcher& d, const std::vector<std::pair<double, double>>& points) {
  std::string out;
  for (auto [m, n] : points) {
    Problem p = Problem::parse(fmt::format("dtype=f32,m={},n={}", m, n));
    out += std::to_string(d.pick(p)) + "\n";
  }
  return out;
}

TEST(Dispatch, TreeFindsTheRegimesAndStaysWithinFewConfigs) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  fill_toy_store(store);
  const Dispatcher d = Dispatcher::fit(store, {.family = "toy", .rule = "tree"});
  EXPECT_LE(d.config_count(), 8u);
  EXPECT_EQ(d.features(), (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(d.report().shapes.size(), 16u);
  EXPECT_EQ(d.report().held_out_unknown, 0u);
  EXPECT_GT(d.report().held_out_geomean, 0.97);
  EXPECT_DOUBLE_EQ(d.report().training_geomean, 1.0);
  // The regimes: block 16 for small m, 256 for large; vectors only for wide n.
  EXPECT_EQ(d.config(d.pick(Problem::parse("dtype=f32,m=100,n=8000")))["block"], 16);
  EXPECT_EQ(d.config(d.pick(Problem::parse("dtype=f32,m=100,n=8000")))["vector"], true);
  EXPECT_EQ(d.config(d.pick(Problem::parse("dtype=f32,m=700,n=100")))["block"], 64);
  EXPECT_EQ(d.config(d.pick(Problem::parse("dtype=f32,m=700,n=100")))["vector"], false);
  EXPECT_EQ(d.config(d.pick(Problem::parse("dtype=f32,m=30000,n=3000")))["block"], 256);
}

// The family, device and version reach the header's comments and the knob values its table: a
// program that includes it compiles, runs no injected code and prints the values back exactly.
TEST(Dispatch, HeaderEscapesHostileFamilyDeviceVersionAndKnobValues) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  const std::vector<std::string> hostile = hostile_strings();
  const TuningKey base{hostile[0], hostile[4], "", hostile[1], hostile[3]};
  for (std::size_t shape = 0; shape < hostile.size(); ++shape) {
    for (std::size_t c = 0; c < hostile.size(); ++c) {
      StoredResult r;
      r.key = base;
      r.key.problem = fmt::format("dtype=f32,m={},n=256", 64 << shape);
      r.config_json = nlohmann::json{{"block", c}, {"layout", hostile[c]}}.dump();
      r.config_hash = fmt::format("c{}", c);
      r.measurement.outcome = Outcome::ok;
      r.measurement.time_ms = c == shape ? 1.0 : 2.0;  // each config wins one shape
      store.record(r);
    }
  }
  const Dispatcher d = Dispatcher::fit(store, {.family = hostile[0], .max_configs = 16});
  ASSERT_GT(d.config_count(), 1u);
  std::ofstream(dir / "dispatch.hpp") << d.cpp_header("toy_rules");
  std::string expected;
  for (std::size_t i = 0; i < d.config_count(); ++i) {
    expected += d.config(i)["layout"].get<std::string>() + "|";
  }
  const std::string main_cpp =
      "#include <cstdio>\n#include \"dispatch.hpp\"\nint main() {\n"
      "  for (const auto& c : toy_rules::kConfigs) {\n" +
      print_statement("c.layout") + "  }\n}\n";
  EXPECT_EQ(compile_and_run(dir.path(), main_cpp, CUTUNE_TEST_CXX), expected);
}

TEST(Dispatch, HeaderRefusesKnobsThatAreNotIdentifiers) {
  for (const std::string knob : {"X Y", "class"}) {
    TempDir dir;
    auto store = Store::open(dir / "results.db");
    for (int m : {64, 4096}) {
      StoredResult r = toy_result(fmt::format("dtype=f32,m={},n=256", m), 16, false, 1.0);
      r.config_json = nlohmann::json{{knob, 1}}.dump();
      store.record(r);
    }
    const Dispatcher d = Dispatcher::fit(store, {.family = "toy"});
    EXPECT_THROW((void)d.cpp_header("toy_rules"), cppgen::NameError) << knob;
  }
}

TEST(Dispatch, FitIsDeterministicAndJsonRoundTrips) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  fill_toy_store(store);
  for (const std::string rule : {"tree", "nearest", "auto"}) {
    const Dispatcher a = Dispatcher::fit(store, {.family = "toy", .rule = rule});
    const Dispatcher b = Dispatcher::fit(store, {.family = "toy", .rule = rule});
    EXPECT_EQ(a.to_json().dump(), b.to_json().dump()) << rule;
    std::ofstream(dir / "rule.json") << a.to_json().dump(2);
    const Dispatcher loaded = Dispatcher::load(dir / "rule.json");
    EXPECT_EQ(loaded.to_json().dump(), a.to_json().dump()) << rule;
    EXPECT_EQ(picks_of(loaded, grid()), picks_of(a, grid())) << rule;
  }
}

TEST(Dispatch, GeneratedHeaderCompilesAloneAndPicksWhatTheRulePicks) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  fill_toy_store(store);
  for (const std::string rule : {"tree", "nearest"}) {
    const Dispatcher d = Dispatcher::fit(store, {.family = "toy", .rule = rule});
    EXPECT_EQ(header_picks(dir, d.cpp_header("toy_rules"), grid()), picks_of(d, grid())) << rule;
  }
}

TEST(Dispatch, UnknownPairsAreAvoidedAndReported) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  // Each shape measured only its own winner: any other pick is unknown.
  store.record(toy_result("dtype=f32,m=64,n=256", 16, false, 1.0));
  store.record(toy_result("dtype=f32,m=128,n=256", 16, false, 1.0));
  store.record(toy_result("dtype=f32,m=4096,n=256", 256, false, 1.0));
  store.record(toy_result("dtype=f32,m=8192,n=256", 256, false, 1.0));
  const Dispatcher d = Dispatcher::fit(store, {.family = "toy"});
  EXPECT_EQ(d.report().held_out_unknown, 0u) << d.report().rule;
  EXPECT_EQ(d.config_count(), 2u);
}

// A transient failure (the machine, not the config) is no verdict: the config's ok row before it
// still stands on that shape, as in the store's latest_per_config view.
TEST(Dispatch, ATransientRowIsNoVerdictOnTheConfig) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  for (int m : {64, 128, 256, 512}) {
    const std::string problem = fmt::format("dtype=f32,m={},n=256", m);
    store.record(toy_result(problem, 16, false, 1.0));
    store.record(toy_result(problem, 64, false, 2.0));
  }
  StoredResult killed = toy_result("dtype=f32,m=128,n=256", 16, false, 0);
  killed.measurement.outcome = Outcome::transient;
  store.record(killed);
  const Dispatcher d = Dispatcher::fit(store, {.family = "toy"});
  for (const DispatchShape& shape : d.report().shapes) {
    EXPECT_EQ(shape.best_config_hash, "block16-scalar") << shape.problem.canonical();
    EXPECT_DOUBLE_EQ(shape.best_ms, 1.0) << shape.problem.canonical();
  }
}

TEST(Dispatch, BadInputIsNamed) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  EXPECT_THROW((void)Dispatcher::fit(store, {.family = "toy"}), std::invalid_argument);
  store.record(toy_result("dtype=f32,m=64,n=256", 16, false, 1.0));
  store.record(toy_result("dtype=f16,m=64,n=256", 16, false, 1.0));
  try {
    (void)Dispatcher::fit(store, {.family = "toy"});
    FAIL() << "mixed dtypes accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("per dtype"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)Dispatcher::fit(store, {.family = "toy", .rule = "forest"}),
               std::invalid_argument);

  std::ofstream(dir / "bad.json") << R"({"format": "cutune-dispatch", "version": 1})";
  try {
    (void)Dispatcher::load(dir / "bad.json");
    FAIL() << "incomplete rule accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: missing 'family'"), std::string::npos)
        << e.what();
  }
  std::ofstream(dir / "other.json") << R"({"results": []})";
  EXPECT_THROW((void)Dispatcher::load(dir / "other.json"), std::invalid_argument);
}

TEST(Dispatch, PickRejectsAProblemOfAnotherKind) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  fill_toy_store(store);
  const Dispatcher d = Dispatcher::fit(store, {.family = "toy"});
  EXPECT_THROW((void)d.pick(Problem::parse("dtype=f16,m=64,n=256")), std::invalid_argument);
  EXPECT_THROW((void)d.pick(Problem::parse("dtype=f32,m=64")), std::invalid_argument);
}

TEST(Dispatch, RuntimeUsesTheRuleForUntunedShapes) {
  TempDir dir;
  const Family family = scale_family();
  {
    auto store = Store::open(dir / "results.db");
    store.record(scale_result(family, 1000, scale_config(32, 2), 0.01));
    store.record(scale_result(family, 100000, scale_config(1024, 8), 0.5));
  }
  auto store = Store::open(dir / "results.db", OpenMode::read_only);
  const Dispatcher d = Dispatcher::fit(store, {.family = "test_scale"});
  std::ofstream(dir / "rule.json") << d.to_json().dump();

  Runtime runtime;  // no store: a deployment with only the rule
  runtime.add_family(scale_family());
  runtime.add_dispatch(Dispatcher::load(dir / "rule.json"));
  const Kernel& small = runtime.get("test_scale", scale_problem(900));
  EXPECT_EQ(small.origin(), KernelOrigin::dispatch);
  EXPECT_EQ(small.config(), scale_config(32, 2));
  EXPECT_EQ(runtime.get("test_scale", scale_problem(200000)).config(), scale_config(1024, 8));
  expect_scales(small, 900);
}

std::function<std::unique_ptr<Evaluator>(const Problem&)> scale_evaluators() {
  return [family = scale_family()](const Problem& p) {
    return family.make_evaluator(p, {}).evaluator;
  };
}

TEST(Dispatch, CrossMeasureMeasuresEachCandidateAsRepairedForTheShape) {
  TempDir dir;
  const Family family = scale_family();
  auto store = Store::open(dir / "results.db");
  store.record(scale_result(family, 2000, scale_config(32, 2), 0.01));
  store.record(scale_result(family, 50000, scale_config(1024, 8), 0.5));
  store.record(scale_result(family, 300, scale_config(256, 1), 0.001));  // 256 fits n=300 only
  const DispatchOptions options{.family = "test_scale"};
  const Space& space = scale_spec().tuning->space;
  EXPECT_EQ(cross_measure(store, options, space, Device::host_cpu(), scale_evaluators()), 6u);
  // n=300 cannot run CHUNK=1024: the space repairs it (CHUNK down to 256) and that config ran.
  bool repaired_ran = false;
  for (const TuningKey& key : store.keys({.family = "test_scale"})) {
    for (const StoredResult& r : store.results(key)) {
      if (r.tune_id != "cross-measure") continue;
      EXPECT_EQ(r.measurement.outcome, Outcome::ok) << key.problem << " " << r.config_json;
      if (key.problem == "n=300") {
        EXPECT_NE(r.config_hash, scale_config(1024, 8).hash_hex());
      }
      repaired_ran |= key.problem == "n=300" && r.config_hash == scale_config(256, 8).hash_hex();
    }
  }
  EXPECT_TRUE(repaired_ran);
  EXPECT_EQ(cross_measure(store, options, space, Device::host_cpu(), scale_evaluators()), 0u)
      << "nothing left unknown";
  // Fitted with the space's repair, every held-out pick has a measured time.
  const Dispatcher fitted = Dispatcher::fit(
      store, {.family = "test_scale", .repair_space = &space, .repair_device = Device::host_cpu()});
  EXPECT_EQ(fitted.report().held_out_unknown, 0u) << fitted.report().rule;
  for (const DispatchShape& s : fitted.report().shapes) {
    EXPECT_TRUE(s.picked_ms.has_value()) << s.problem.canonical();
  }
  // And the picked config, repaired for a problem smaller than every tuned one, is legal there.
  const auto tiny = fitted.config_for(scale_problem(5), space, Device::host_cpu());
  ASSERT_TRUE(tiny.has_value());
  EXPECT_LE(tiny->at(space.index_of("CHUNK")).as_int(), 5);
}

// The CPU bar on a small instance: winners of large shapes are illegal on small ones as tuned;
// after cross-measuring each shape's best configs as repaired for every shape, no held-out pick
// fails, and the curve has one point per config budget.
TEST(Dispatch, NoHeldOutPickFailsOnRealMeasurements) {
  TempDir dir;
  const Family family = scale_family();
  auto store = Store::open(dir / "results.db");
  const std::vector<std::pair<std::int64_t, Config>> tuned{
      {24, scale_config(16, 1)},     {100, scale_config(64, 2)},     {700, scale_config(512, 4)},
      {5000, scale_config(1024, 8)}, {20000, scale_config(1024, 4)}, {60000, scale_config(256, 8)}};
  for (const auto& [n, config] : tuned) {
    store.record(scale_result(family, n, config, 0.001 * static_cast<double>(n)));
    store.record(scale_result(family, n, scale_config(4, 1), 0.01 * static_cast<double>(n)));
  }
  const Space& space = scale_spec().tuning->space;
  DispatchOptions options{.family = "test_scale",
                          .max_configs = 3,
                          .repair_space = &space,
                          .repair_device = Device::host_cpu(),
                          .candidates_per_shape = 2,
                          .remeasure = true};
  EXPECT_GT(cross_measure(store, options, space, Device::host_cpu(), scale_evaluators()), 0u);
  const Dispatcher d = Dispatcher::fit(store, options);
  const DispatchReport& r = d.report();
  EXPECT_EQ(r.shapes.size(), tuned.size());
  EXPECT_EQ(r.held_out_unknown, 0u) << r.rule;
  for (const DispatchShape& s : r.shapes) {
    EXPECT_TRUE(s.picked_ms.has_value())
        << s.problem.canonical() << " picked " << s.picked_config_hash;
  }
  ASSERT_EQ(r.curve.size(), 3u);
  for (std::size_t i = 0; i < r.curve.size(); ++i) {
    EXPECT_EQ(r.curve[i].configs, i + 1);
    EXPECT_GT(r.curve[i].held_out_geomean, 0.0);
  }
  EXPECT_LE(d.config_count(), 3u);
  // Every config the rule holds, repaired, runs every tuned shape and a shape below them all.
  for (std::int64_t n : {5, 24, 700, 60000}) {
    const auto config = d.config_for(scale_problem(n), space, Device::host_cpu());
    ASSERT_TRUE(config.has_value()) << n;
    EXPECT_TRUE(space.legal(*config, scale_problem(n), Device::host_cpu())) << n;
  }
}

// A held-out shape's own winner is no candidate for it: the held-out pick must come from the
// other shapes' configs.
TEST(Dispatch, HeldOutPicksComeFromTheOtherShapes) {
  TempDir dir;
  auto store = Store::open(dir / "results.db");
  // Three shapes, each with a winner of its own that also runs (slower) on the others.
  for (int shape = 0; shape < 3; ++shape) {
    for (int block : {16, 64, 256}) {
      const bool own = block == (16 << (2 * shape));
      store.record(toy_result(fmt::format("dtype=f32,m={},n=256", 64 << (3 * shape)), block, false,
                              own ? 1.0 : 2.0));
    }
  }
  const Dispatcher d = Dispatcher::fit(store, {.family = "toy"});
  for (const DispatchShape& s : d.report().shapes) {
    EXPECT_NE(s.picked_config_hash, s.best_config_hash) << s.problem.canonical();
    ASSERT_TRUE(s.picked_ms.has_value());
    EXPECT_DOUBLE_EQ(*s.picked_ms, 2.0);
  }
  EXPECT_DOUBLE_EQ(d.report().held_out_geomean, 0.5);
}

}  // namespace
}  // namespace cutune::testing
