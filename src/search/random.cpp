// Random search: the seeds, then uniform draws from the search view. The baseline every other
// strategy must beat, and the fallback of several of them.
#include "strategies.hpp"

namespace cutune::search {
namespace {

class RandomSearch final : public QueuedStrategy {
 public:
  std::string_view name() const override { return "random"; }

 private:
  void refill(std::size_t wanted) override {
    const std::size_t seeds = offer_seeds();
    if (seeds < wanted) offer_random(wanted - seeds);
  }
};

}  // namespace

std::unique_ptr<Strategy> make_random(Effort) { return std::make_unique<RandomSearch>(); }

}  // namespace cutune::search
