// Exhaustive search: the seeds, then every config of a finite search view in the space's stable
// order. For small spaces, and for building recorded spaces.
#include <fmt/core.h>

#include <stdexcept>

#include "strategies.hpp"

namespace cutune::search {
namespace {

constexpr std::uint64_t kMaxConfigs = 1'000'000;

class ExhaustiveSearch final : public QueuedStrategy {
 public:
  std::string_view name() const override { return "exhaustive"; }

 private:
  void on_start() override {
    const std::optional<std::uint64_t> size = state_.space().size(View::search);
    if (!size || *size > kMaxConfigs) {
      throw std::invalid_argument(fmt::format(
          "exhaustive search needs a search view of at most {} configs; this one has {}",
          kMaxConfigs, size ? std::to_string(*size) : std::string("more than 2^64")));
    }
    configs_ = state_.space().enumerate(View::search, kMaxConfigs);
    next_ = 0;
  }

  void refill(std::size_t wanted) override {
    std::size_t queued = offer_seeds();
    while (queued < wanted && next_ < configs_.size()) {
      if (offer(std::move(configs_[next_]))) ++queued;
      ++next_;
    }
  }

  std::vector<Config> configs_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(Effort) { return std::make_unique<ExhaustiveSearch>(); }

}  // namespace cutune::search
