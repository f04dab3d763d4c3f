// The replay backend against real recorded spaces (data/spaces, see its README) and small
// files written here. The expected values are read from the files by this test's own parser.
#include "cutune/replay.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/diversity.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

const std::filesystem::path kSpaces = CUTUNE_TEST_SPACES;

nlohmann::json read_gzipped_json(const std::filesystem::path& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, n);
  gzclose(file);
  return nlohmann::json::parse(text);
}

class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("cutune-replay-" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return path_ / name;
  }
  std::filesystem::path missing() const { return path_ / "missing.json.gz"; }

 private:
  std::filesystem::path path_;
};

TEST(Replay, KernelTunerCacheBecomesASpaceOfEnumKnobs) {
  const auto recorded = load_recorded_space(kSpaces / "A100.json.gz");
  const Recording& r = recorded->recording();
  EXPECT_EQ(r.format, "kernel_tuner_cache");
  EXPECT_EQ(r.device_name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(r.kernel_name, "convolution_kernel");
  const Space& space = recorded->space();
  ASSERT_EQ(space.knob_count(), 10u);
  EXPECT_EQ(space.names().front(), "block_size_x");
  EXPECT_EQ(space.fragment(0).kind(), "enum");
  EXPECT_EQ(space.size(View::search), 16u * 5 * 4 * 4 * 2 * 2 * 2);
  EXPECT_EQ(r.entries.size(), 4362u);
  EXPECT_EQ(recorded->ok_count(), 4201u);
  std::map<Outcome, int> failures;
  for (const auto& e : r.entries) {
    if (!e.measurement.ok()) ++failures[e.measurement.outcome];
  }
  EXPECT_EQ(failures[Outcome::compile_error], 6);
  EXPECT_EQ(failures[Outcome::launch_error], 155);
  // Kernel Tuner's block_size_x is the thread block's x side: whole warps are preferred.
  ASSERT_EQ(space.preferences().size(), 1u);
  EXPECT_TRUE(space.preferred(space.complete({{"block_size_x", 64}}), {}, {}));
  EXPECT_FALSE(space.preferred(space.complete({{"block_size_x", 48}}), {}, {}));
  // `cutune space` counts the distinct configs it holds for: 8 of the 16 block widths.
  const DiversityReport report = measure_diversity(recorded->tuning_space(), {}, {}, 300, 0);
  ASSERT_EQ(report.preference_names,
            std::vector<std::string>{"block_size_x is a whole number of warps"});
  EXPECT_GT(report.preference_holds[0], report.distinct / 3);
  EXPECT_LT(report.preference_holds[0], 2 * report.distinct / 3);
  EXPECT_EQ(report.to_json()["preferences"][0]["holds"], report.preference_holds[0]);
}

TEST(Replay, EveryConfigReplaysItsRecordedTimeExactly) {
  const auto recorded = load_recorded_space(kSpaces / "A100.json.gz");
  const nlohmann::json file = read_gzipped_json(kSpaces / "A100.json.gz");
  ReplayEvaluator evaluator(recorded);
  const Space& space = recorded->space();
  std::vector<Config> configs;
  std::vector<nlohmann::json> expected;
  for (const auto& [key, entry] : file["cache"].items()) {
    PartialConfig partial;
    for (const auto& name : space.names()) partial[name] = Value::from_json(entry[name]);
    configs.push_back(space.complete(partial));
    expected.push_back(entry["time"]);
  }
  const std::vector<Measurement> results = evaluator.evaluate(configs);
  ASSERT_EQ(results.size(), configs.size());
  double optimum = INFINITY;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (expected[i].is_number()) {
      ASSERT_TRUE(results[i].ok()) << configs[i].to_string();
      ASSERT_EQ(results[i].time_ms, expected[i].get<double>()) << configs[i].to_string();
      EXPECT_EQ(results[i].repetitions, 32);
      optimum = std::min(optimum, results[i].time_ms);
    } else {
      ASSERT_FALSE(results[i].ok()) << configs[i].to_string();
      EXPECT_EQ(results[i].detail, expected[i].get<std::string>());
    }
    // Recorded configs are legal: normalization keeps them as they are.
    const Normalized n = space.normalize(configs[i], {}, {});
    ASSERT_TRUE(n.config.has_value());
    EXPECT_EQ(*n.config, configs[i]);
  }
  EXPECT_EQ(recorded->optimum_ms(), optimum);
}

TEST(Replay, T4FileHoldsTheSameMeasurementsAsTheCache) {
  const auto cache = load_recorded_space(kSpaces / "A100.json.gz");
  const auto t4 = load_recorded_space(kSpaces / "A100_T4.json.gz");
  EXPECT_EQ(t4->recording().format, "t4");
  ASSERT_EQ(t4->space().names(), cache->space().names());
  ASSERT_EQ(t4->recording().entries.size(), cache->recording().entries.size());
  ReplayEvaluator t4_evaluator(t4);
  for (const RecordedEntry& entry : cache->recording().entries) {
    const Config config = t4->config_of(entry);
    const Measurement m = t4_evaluator.evaluate(std::span(&config, 1)).front();
    ASSERT_EQ(m.outcome, entry.measurement.outcome) << config.to_string();
    if (m.ok()) {
      ASSERT_EQ(m.time_ms, entry.measurement.time_ms) << config.to_string();
    }
  }
}

TEST(Replay, EachEntryCarriesWhatTheOriginalTunerSpentOnIt) {
  // The file's first entry: compile_time 918.599 ms, benchmark_time 126.383 ms, verification 0.
  const auto cache = load_recorded_space(kSpaces / "A100.json.gz");
  const RecordedEntry& first = cache->recording().entries.front();
  EXPECT_NEAR(first.compile_s, 0.918599, 1e-6);
  EXPECT_NEAR(first.benchmark_s, 0.126383, 1e-6);
  // T4 has the compile time, and no benchmark time: its timed runtimes stand in (under 32 ms of
  // kernel time here, so well below the benchmark time that includes the tuner's own work).
  const auto t4 = load_recorded_space(kSpaces / "A100_T4.json.gz");
  const RecordedEntry& same = t4->recording().entries.front();
  EXPECT_NEAR(same.compile_s, 0.918599, 1e-6);
  EXPECT_GT(same.benchmark_s, 0.0);
  EXPECT_LT(same.benchmark_s, first.benchmark_s);
}

TEST(Replay, MissingConfigsAreDroppedByTheSpaceAndInvalidWhenEvaluated) {
  const auto recorded = load_recorded_space(kSpaces / "A100.json.gz");
  const Space& space = recorded->space();
  std::size_t missing = 0;
  ReplayEvaluator evaluator(recorded);
  for (const Config& config : space.enumerate(View::search, 20000)) {
    if (recorded->find(config) != nullptr) continue;
    ++missing;
    const Normalized n = space.normalize(config, {}, {});
    EXPECT_FALSE(n.config.has_value());
    EXPECT_NE(n.failure.find("recorded"), std::string::npos);
    const Measurement m = evaluator.evaluate(std::span(&config, 1)).front();
    EXPECT_EQ(m.outcome, Outcome::invalid_config);
    EXPECT_NE(m.detail.find("not in the recording"), std::string::npos);
  }
  EXPECT_EQ(missing, 10240u - 4362u);
}

TEST(Replay, PlainJsonCacheWithFailuresAndFloatKnobs) {
  TempDir dir;
  const auto path = dir.write("small.json", R"({
    "device_name": "Test GPU", "kernel_name": "k", "objective": "time",
    "tune_params_keys": ["bx", "f"],
    "tune_params": {"bx": [32, 64], "f": [0.5, 1.5]},
    "cache": {
      "32,0.5": {"bx": 32, "f": 0.5, "time": 2.25, "times": [2.0, 2.5, 2.25]},
      "64,0.5": {"bx": 64, "f": 0.5, "time": "InvalidConfig"},
      "64,1.5": {"bx": 64, "f": 1.5, "time": 1.125}
    }})");
  const auto recorded = load_recorded_space(path);
  EXPECT_EQ(recorded->name(), "k@Test GPU");
  EXPECT_EQ(recorded->optimum_ms(), 1.125);
  ReplayEvaluator evaluator(recorded);
  EXPECT_EQ(evaluator.device_name(), "Test GPU");
  const Space& space = recorded->space();
  const std::vector<Config> configs{space.complete({{"bx", 32}, {"f", 0.5}}),
                                    space.complete({{"bx", 64}, {"f", 0.5}}),
                                    space.complete({{"bx", 32}, {"f", 1.5}})};
  const auto results = evaluator.evaluate(configs);
  EXPECT_EQ(results[0].time_ms, 2.25);
  EXPECT_EQ(results[0].repetitions, 3);
  EXPECT_DOUBLE_EQ(results[0].spread, 0.5 / 2.25);
  EXPECT_DOUBLE_EQ(results[0].iqr_spread, (2.375 - 2.125) / 2.25);  // quartiles of 2, 2.25, 2.5
  EXPECT_EQ(results[0].min_ms, 2.0);
  EXPECT_EQ(results[0].max_ms, 2.5);
  EXPECT_EQ(results[1].outcome, Outcome::invalid_config);
  EXPECT_EQ(results[2].outcome, Outcome::invalid_config);  // absent from the recording
}

TEST(Replay, BadFilesAreRejectedNamingFileAndPlace) {
  TempDir dir;
  const auto expect_error = [](const std::filesystem::path& path, const std::string& needle) {
    try {
      read_recording(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const RecordingError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path.string()), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  expect_error(dir.missing(), "cannot open");
  expect_error(dir.write("text.json", "not json"), "not JSON");
  expect_error(dir.write("other.json", R"({"a": 1})"), "neither a Kernel Tuner cache");
  expect_error(dir.write("objective.json", R"({"objective": "GFLOP/s", "tune_params_keys": ["x"],
      "tune_params": {"x": [1]}, "cache": {}})"),
               "GFLOP/s");
  expect_error(dir.write("value.json", R"({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]},
      "cache": {"3": {"x": 3, "time": 1.0}}})"),
               "x = 3 is not among the listed values");
  expect_error(dir.write("knob.json", R"({"tune_params_keys": ["x", "y"],
      "tune_params": {"x": [1]}, "cache": {}})"),
               "missing \"y\"");
  expect_error(dir.write("t4.json", R"({"results": [{"configuration": {"x": 1},
      "objectives": ["time"], "measurements": [{"name": "energy", "value": 3}]}]})"),
               "results[0].measurements");
}

}  // namespace
}  // namespace cutune
