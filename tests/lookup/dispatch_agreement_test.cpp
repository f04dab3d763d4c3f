// The lookup runtime evaluates dispatch rules without the runtime library: its picks must be the
// real Dispatcher's, for tree and nearest-neighbour rules, over a grid of shapes.
#include <gtest/gtest.h>

#include "cutune/dispatch.hpp"
#include "cutune/lookup.hpp"
#include "lookup_testing.hpp"

namespace cutune::testing {
namespace {

TEST(LookupDispatch, PicksWhatTheDispatcherPicks) {
  for (const std::string kind : {"tree", "nearest"}) {
    TempDir dir;
    Store store = Store::open(dir / "results.db");
    for (int m : {64, 256, 1024, 4096}) {
      for (int block : {4, 16, 64, 256}) {
        const double off = std::abs(std::log2(static_cast<double>(block) * 16 / m));
        store.record(toy_result(fmt::format("dtype=f32,m={},n=512", m), block, 1.0 + off));
      }
    }
    const Dispatcher dispatcher =
        Dispatcher::fit(store, {.family = "toy", .device = "cpu: test", .rule = kind});
    std::vector<LookupEvent> events;
    auto table = LookupTable::from_json(
        exported(store), {.on_fallback = [&](const LookupEvent& e) { events.push_back(e); }});
    table.add_dispatch(dispatcher.to_json());
    std::size_t asked = 0;
    for (int m = 3; m < 20000; m = m * 5 / 4 + 1) {
      const std::string problem = fmt::format("dtype=f32,m={},n=512", m);
      const LookupAnswer& answer = table.find(table.prepare("toy", problem));
      const std::size_t expected = dispatcher.pick(Problem::parse(problem));
      if (answer.source == LookupSource::tuned) continue;  // the store's own winner comes first
      ++asked;
      EXPECT_EQ(answer.source, LookupSource::dispatch) << problem;
      EXPECT_EQ(answer.config, dispatcher.config(expected)) << kind << " " << problem;
    }
    EXPECT_GT(asked, 20u);
    EXPECT_EQ(events.size(), asked);
    // Outside the rule (another dtype): the rule does not apply and nothing of that kind is tuned.
    EXPECT_EQ(table.find(table.prepare("toy", "dtype=f16,m=64,n=512")).source,
              LookupSource::default_config);
  }
}

}  // namespace
}  // namespace cutune::testing
