// The lookup-only runtime reading what the store exports: tuned shapes get their winners, untuned
// ones the nearest tuned shape of their kind, and the program is told.
#include "cutune/lookup.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "lookup_testing.hpp"

namespace cutune::testing {
namespace {

struct Fixture {
  TempDir dir;
  Store store = Store::open(dir / "results.db");
  std::vector<LookupEvent> events;
  std::vector<LookupAnswer> event_answers;

  Fixture() { fill_toy_store(store); }
  LookupTable table() {
    return LookupTable::from_json(exported(store), {.on_fallback = [this](const LookupEvent& e) {
                                    events.push_back(e);
                                    event_answers.push_back(*e.answer);
                                  }});
  }
};

TEST(Lookup, TunedShapesGetTheirWinnersInAnyArgumentOrder) {
  Fixture f;
  const auto table = f.table();
  EXPECT_EQ(table.size(), 8u);
  for (int m : {64, 256, 1024, 4096}) {
    const auto query = table.prepare("toy", fmt::format("n=512, m={},dtype=f32", m));
    EXPECT_EQ(query.problem(), fmt::format("dtype=f32,m={},n=512", m));
    EXPECT_EQ(query.device(), "cpu: test");  // the family's only device
    const LookupAnswer& answer = table.find(query);
    EXPECT_EQ(answer.source, LookupSource::tuned);
    EXPECT_EQ(answer.config.at("block"), m / 16) << m;
    EXPECT_EQ(answer.config.at("layout"), "row");
    EXPECT_DOUBLE_EQ(answer.time_ms, 1.0);
  }
  EXPECT_TRUE(f.events.empty());
}

TEST(Lookup, AnUntunedShapeTakesTheNearestTunedShapeOfItsKindAndSaysSo) {
  Fixture f;
  const auto table = f.table();
  const auto query = table.prepare("toy", "dtype=f16,m=1800,n=512");
  const LookupAnswer& answer = table.find(query);
  EXPECT_EQ(answer.source, LookupSource::nearest);
  EXPECT_EQ(answer.tuned_problem, "dtype=f16,m=1024,n=512");  // not f32's, not 4096
  EXPECT_EQ(answer.config.at("block"), 64);
  EXPECT_GT(answer.distance, 0.5);
  ASSERT_EQ(f.events.size(), 1u);
  EXPECT_EQ(f.events[0].problem, "dtype=f16,m=1800,n=512");
  EXPECT_EQ(f.event_answers[0].tuned_problem, "dtype=f16,m=1024,n=512");
  EXPECT_NE(f.events[0].message.find("untuned"), std::string::npos) << f.events[0].message;
  EXPECT_NE(f.events[0].message.find("m=1024"), std::string::npos) << f.events[0].message;

  // Asked again: the same answer, told once.
  EXPECT_EQ(&table.find(table.prepare("toy", "m=1800,n=512,dtype=f16")), &answer);
  EXPECT_EQ(f.events.size(), 1u);
  // Far above every tuned shape (4.6 from m=4096): no neighbour stands in, the default does.
  const LookupAnswer& far = table.find(table.prepare("toy", "dtype=f32,m=100000,n=512"));
  EXPECT_EQ(far.source, LookupSource::default_config);
  EXPECT_TRUE(far.config.is_null());  // no default_config given: the program's own default
  EXPECT_NE(far.message.find("within distance 1"), std::string::npos) << far.message;
}

TEST(Lookup, NoShapeOfTheSameKindGivesTheDefaultNotAGuess) {
  Fixture f;
  LookupOptions options{.on_fallback = [](const LookupEvent&) {}};
  options.default_config = [](const std::string& family, const std::string& problem) {
    return nlohmann::json{{"family", family}, {"problem", problem}};
  };
  const auto table = LookupTable::from_json(exported(f.store), options);
  for (const char* problem : {"dtype=bf16,m=64,n=512", "dtype=f32,k=3,m=64,n=512"}) {
    const LookupAnswer& answer = table.find(table.prepare("toy", problem));
    EXPECT_EQ(answer.source, LookupSource::default_config) << problem;
    EXPECT_EQ(answer.config.at("problem"), problem);
    EXPECT_EQ(to_string(answer.source), "default_config");
  }
  EXPECT_THROW(table.prepare("other", "m=1"), LookupError);
  EXPECT_THROW(table.prepare("toy", "m"), LookupError);
  EXPECT_THROW(table.prepare("toy", "m=1,m=2"), LookupError);
}

TEST(Lookup, SeveralDevicesMustBeNamed) {
  Fixture f;
  fill_toy_store(f.store, "NVIDIA H200 sm_90");
  f.store.record(toy_result("dtype=f32,m=64,n=512", 256, 0.1, "NVIDIA H200 sm_90"));
  const auto table = f.table();
  EXPECT_THROW(table.prepare("toy", "dtype=f32,m=64,n=512"), LookupError);
  EXPECT_EQ(table.find(table.prepare("toy", "dtype=f32,m=64,n=512", "NVIDIA H200 sm_90"))
                .config.at("block"),
            256);
  EXPECT_EQ(
      table.find(table.prepare("toy", "dtype=f32,m=64,n=512", "cpu: test")).config.at("block"), 4);
}

TEST(Lookup, ReadsTheExportedFileAndRefusesOthersNamingThem) {
  Fixture f;
  std::ofstream(f.dir / "winners.json") << export_json(f.store.best_per_key());
  EXPECT_EQ(LookupTable::load(f.dir / "winners.json").size(), 8u);
  std::ofstream(f.dir / "other.json") << R"({"format": "something-else", "results": []})";
  try {
    LookupTable::load(f.dir / "other.json");
    FAIL() << "no error";
  } catch (const LookupError& error) {
    EXPECT_NE(std::string(error.what()).find("other.json"), std::string::npos) << error.what();
  }
  EXPECT_THROW(LookupTable::load(f.dir / "missing.json"), LookupError);
}

}  // namespace
}  // namespace cutune::testing
