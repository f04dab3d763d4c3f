// A Kernel Tuner cache recorded on a real GPU (data/spaces) imported as a spec, replayed through
// the real tune loop into a store (every config, as Kernel Tuner's brute force ran them),
// exported as a Kernel Tuner cache and as T4, and compared with the original field by field.
#include <gtest/gtest.h>
#include <zlib.h>

#include "cutune/kernel_tuner.hpp"
#include "cutune/replay.hpp"
#include "cutune/tune.hpp"
#include "kt_testing.hpp"

namespace cutune::testing {
namespace {

using json = nlohmann::json;

json read_gzipped_json(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr) << path;
  std::string text;
  char buffer[1 << 16];
  for (int got; (got = gzread(file, buffer, sizeof buffer)) > 0;) text.append(buffer, got);
  gzclose(file);
  return json::parse(text);
}

TEST(KernelTunerRoundTrip, RecordedCacheImportedReplayedExportedIsTheSame) {
  const std::string path = CUTUNE_SPACES_DIR "/convolution_milo/A100.json.gz";
  const json original = read_gzipped_json(path);

  // Imported: the spec's knobs are the cache's tunable parameters, in order.
  const auto imported = spec_from_kt_cache(original, {}, path);
  ASSERT_EQ(imported.at("knobs").size(), original.at("tune_params_keys").size());
  for (std::size_t i = 0; i < imported.at("knobs").size(); ++i) {
    const std::string name = original.at("tune_params_keys").at(i);
    EXPECT_EQ(imported.at("knobs").at(i).at("name"), name);
    EXPECT_EQ(imported.at("knobs").at(i).at("choices"), original.at("tune_params").at(name));
  }
  EXPECT_EQ(imported.at("problem"), json({{"size_x", 4096}, {"size_y", 4096}}));
  TempDir dir;
  const KernelSpec spec = load_imported(dir, imported);
  EXPECT_EQ(spec.name, original.at("kernel_name"));

  // Replayed: every config through tune(), results in a store.
  const auto recorded = load_recorded_space(path);
  FamilyEvaluator target{std::make_unique<ReplayEvaluator>(recorded), {}};
  const Evaluator& evaluator = *target.evaluator;
  Store store = Store::open(dir / "results.db");
  const Problem problem = Problem::parse("size_x=4096,size_y=4096");
  TuneOptions options;
  options.strategy = "exhaustive";
  options.max_evaluations = 100000;
  options.finishing = false;
  options.batch_size = 512;
  Family family;
  family.name = spec.name;
  family.version = spec.version;
  family.tuning = &recorded->tuning_space();
  tune(family, problem, target, &store, options);
  const TuningKey key = family.key(problem, evaluator.device_name(), evaluator.toolchain());

  // Exported, with the spec's knob order and choices (as `cutune export --spec` does).
  KtExportInfo info;
  for (const auto& knob : imported.at("knobs")) {
    info.knob_order.push_back(knob.at("name"));
    info.tune_params[knob.at("name").get<std::string>()] = knob.at("choices");
  }
  const std::vector<StoredResult> rows = store.latest_results(key);
  const json exported = json::parse(kt_cache(rows, info).dump());
  for (const char* field : {"device_name", "kernel_name", "problem_size", "tune_params_keys",
                            "tune_params", "objective"}) {
    EXPECT_EQ(exported.at(field), original.at(field)) << field;
  }
  // Compared: every recorded config, its knob values and its time or failure marker.
  const json& before = original.at("cache");
  const json& after = exported.at("cache");
  EXPECT_EQ(after.size(), before.size());
  std::size_t failures = 0;
  std::size_t times_kept = 0;
  for (const auto& [cache_key, entry] : before.items()) {
    ASSERT_TRUE(after.contains(cache_key)) << cache_key;
    const json& out = after.at(cache_key);
    for (const auto& name : original.at("tune_params_keys")) {
      EXPECT_EQ(out.at(name.get<std::string>()), entry.at(name.get<std::string>())) << cache_key;
    }
    EXPECT_EQ(out.at("time"), entry.at("time")) << cache_key;  // bit-exact times, same markers
    failures += entry.at("time").is_string() ? 1 : 0;
    // Each repetition's time, as recorded (issue 32: the store kept only summaries). A finalist's
    // latest row is the tournament's, whose times are its rounds'.
    if (entry.contains("times") && !entry.at("time").is_string()) {
      ASSERT_TRUE(out.contains("times")) << cache_key;
      times_kept += out.at("times") == entry.at("times") ? 1 : 0;
    }
  }
  EXPECT_GE(times_kept + 12, before.size() - failures);
  EXPECT_EQ(failures, 161u);  // data/spaces/README.md: 6 failed to compile, 155 at run time

  // T4: one result per config, its invalidity and time as the T4 recording of the same tune.
  const json t4 = json::parse(kt_t4(rows, info).dump());
  const json original_t4 = read_gzipped_json(CUTUNE_SPACES_DIR "/convolution_milo/A100_T4.json.gz");
  EXPECT_EQ(t4.at("schema_version"), "1.0.0");
  ASSERT_EQ(t4.at("results").size(), original_t4.at("results").size());
  std::map<std::string, const json*> by_config;
  for (const json& r : original_t4.at("results")) by_config[r.at("configuration").dump()] = &r;
  for (const json& r : t4.at("results")) {
    const auto it = by_config.find(r.at("configuration").dump());
    ASSERT_NE(it, by_config.end()) << r.at("configuration").dump();
    EXPECT_EQ(r.at("invalidity"), it->second->at("invalidity"));
    EXPECT_EQ(r.at("correctness"), it->second->at("correctness"));
    EXPECT_EQ(r.at("measurements").at(0).at("value"),
              it->second->at("measurements").at(0).at("value"));
  }
}

}  // namespace
}  // namespace cutune::testing
