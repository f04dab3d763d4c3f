// The shared evaluator helpers: a batch spread over worker slots, and compile-failure details.
#include "eval/backend_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

namespace cutune::eval {
namespace {

TEST(ForEachOnSlots, EveryIndexRunsOnceOnSomeSlot) {
  std::mutex mutex;
  std::vector<int> runs(100, 0);
  std::set<std::size_t> slots;
  for_each_on_slots(3, runs.size(), [&](std::size_t slot, std::size_t i) {
    std::lock_guard lock(mutex);
    ++runs[i];
    slots.insert(slot);
  });
  for (int count : runs) EXPECT_EQ(count, 1);
  for (std::size_t slot : slots) EXPECT_LT(slot, 3u);
}

TEST(ForEachOnSlots, RethrowsTheFailureAndStartsNoMore) {
  std::atomic<std::size_t> started{0};
  EXPECT_THROW(for_each_on_slots(1, 10,
                                 [&](std::size_t, std::size_t i) {
                                   ++started;
                                   if (i == 3) throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  EXPECT_EQ(started.load(), 4u);  // one slot: 0..3, then nothing
}

TEST(CompileFailureDetail, ExcerptAndWhereTheFullLogIs) {
  EXPECT_EQ(compile_failure_detail("error: x", ""), "error: x");
  EXPECT_EQ(compile_failure_detail("error: x", "/cache/x.log"),
            "error: x\n(full log: /cache/x.log)");
  const std::string long_log(4010, 'e');
  EXPECT_EQ(compile_failure_detail(long_log, ""),
            std::string(4000, 'e') + "\n[... 10 more characters]");
}

}  // namespace
}  // namespace cutune::eval
