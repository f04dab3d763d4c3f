// The one rule for a shape never tuned (cutune/lookup.hpp), asked of every reader of stored or
// exported winners: cutune::Runtime over the store, cutune::Runtime over the exported file (what
// Python's Runtime("best.json") runs; Runtime(db) runs the first), and the lookup-only LookupTable
// over that same export, given the family as a deploying program would give it
// (family_lookup_options). All
// three give the same config and origin, and the same warning saying which.
#include <fstream>
#include <optional>

#include "cutune/lookup.hpp"
#include "runtime_testing.hpp"

namespace cutune::testing {
namespace {

struct Answer {
  Config config;
  std::string origin;
  std::string warning;
};

// A store that tuned n=300, 4096 and 65536, and its export.
struct Tuned {
  TempDir dir;
  Tuned() {
    const Family family = scale_family();
    auto store = Store::open(dir / "results.db");
    store.record(scale_result(family, 300, scale_config(256, 2), 0.01));
    store.record(scale_result(family, 4096, scale_config(256, 4), 0.01));
    store.record(scale_result(family, 65536, scale_config(1024, 8), 0.02));
    std::ofstream(dir / "best.json") << export_json(store.best_per_key());
  }
};

Answer from_runtime(RuntimeOptions options, std::int64_t n) {
  std::vector<std::string> warnings;
  options.on_warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  Runtime runtime(options);
  runtime.add_family(scale_family());
  const Kernel& kernel = runtime.get("test_scale", scale_problem(n));
  expect_scales(kernel, n);
  return {kernel.config(), std::string(to_string(kernel.origin())),
          warnings.empty() ? "" : warnings.back()};
}

Answer from_lookup_table(const std::filesystem::path& file, std::int64_t n) {
  const TuningSpace& tuning = *scale_spec().tuning;
  std::string warning;
  LookupOptions options = family_lookup_options({scale_family()});
  options.on_fallback = [&warning](const LookupEvent& e) { warning = e.message; };
  const auto table = LookupTable::load(file, options);
  const LookupAnswer& answer = table.find(
      table.prepare("test_scale", scale_problem(n).canonical(), scale_family().device_key));
  return {tuning.space.from_json(answer.config), std::string(to_string(answer.source)), warning};
}

// The three readers' answers for n, checked equal; the store's is returned.
Answer agreed(const Tuned& tuned, std::int64_t n) {
  const Answer store = from_runtime({.store = tuned.dir / "results.db"}, n);
  const Answer exported = from_runtime({.winners = tuned.dir / "best.json"}, n);
  const Answer table = from_lookup_table(tuned.dir / "best.json", n);
  for (const Answer* other : {&exported, &table}) {
    EXPECT_EQ(other->config, store.config) << "n=" << n;
    EXPECT_EQ(other->origin, store.origin) << "n=" << n;
    EXPECT_EQ(other->warning, store.warning) << "n=" << n;
  }
  return store;
}

TEST(UntunedRule, ATunedShapeGetsItsWinnerEverywhere) {
  const Tuned tuned;
  const Answer a = agreed(tuned, 4096);
  EXPECT_EQ(a.origin, "store");
  EXPECT_EQ(a.config, scale_config(256, 4));
  EXPECT_EQ(a.warning, "");
}

TEST(UntunedRule, ANearShapeGetsTheNearestWinnerRepairedEverywhere) {
  const Tuned tuned;
  const Answer near = agreed(tuned, 6000);  // log2 distance 0.55 from 4096
  EXPECT_EQ(near.origin, "nearest");
  EXPECT_EQ(near.config, scale_config(256, 4));
  EXPECT_NE(near.warning.find("nearest tuned shape 'n=4096'"), std::string::npos) << near.warning;
  // n=200 is 0.58 from n=300, whose CHUNK=256 the space repairs down to fit n: 128.
  const Answer repaired = agreed(tuned, 200);
  EXPECT_EQ(repaired.origin, "nearest");
  EXPECT_EQ(repaired.config, scale_config(128, 2));
}

TEST(UntunedRule, AFarShapeGetsTheDefaultConfigEverywhereAndIsTold) {
  const Tuned tuned;
  for (const std::int64_t n : {100, 1 << 20}) {  // 1.6 below 300, 4 above 65536
    const Answer far = agreed(tuned, n);
    EXPECT_EQ(far.origin, "default_config") << n;
    EXPECT_EQ(far.config,
              default_config(*scale_spec().tuning, scale_problem(n), Device::host_cpu()));
    EXPECT_NE(far.warning.find("no tuned shape of its kind within distance 1"), std::string::npos)
        << far.warning;
  }
}

}  // namespace
}  // namespace cutune::testing
