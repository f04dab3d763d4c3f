// Differential evolution screened by the surrogate: each member draws several candidate children,
// the classifier of "in the best fraction so far" (fitted once per generation on every result,
// failures as not good) rates them, and only the most promising child per member is measured.
#include <algorithm>

#include "cutune/surrogate.hpp"
#include "differential_evolution.hpp"
#include "strategies.hpp"

namespace cutune::search {
namespace {

class SurrogateEvolution final : public DifferentialEvolution {
 public:
  explicit SurrogateEvolution(Effort effort)
      : DifferentialEvolution(effort == Effort::quick ? EvolutionSettings{12, 0.5, 6}
                                                      : EvolutionSettings{20, 0.5, 8}),
        trees_(effort == Effort::quick ? 16 : 24) {}
  std::string_view name() const override { return "hybrid"; }

 private:
  void prepare_generation() override {
    ClassifierOptions options;
    options.trees = trees_;
    options.seed = state_.context().rng_seed + state_.results().size();
    model_.emplace(options, kGoodFraction);
    if (!model_->fit(state_.evaluated(), state_.results())) model_.reset();
  }

  std::size_t choose(const std::vector<Config>& candidates) override {
    if (!model_ || candidates.size() < 2) return 0;
    const std::vector<double> scores = model_->score(candidates);
    return static_cast<std::size_t>(std::max_element(scores.begin(), scores.end()) -
                                    scores.begin());
  }

  static constexpr double kGoodFraction = 0.2;
  int trees_;
  std::optional<GoodConfigModel> model_;
};

}  // namespace

std::unique_ptr<Strategy> make_hybrid(Effort effort) {
  return std::make_unique<SurrogateEvolution>(effort);
}

}  // namespace cutune::search
