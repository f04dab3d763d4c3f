#include "finishing.hpp"

#include <fmt/format.h>

namespace cutune::finishing {

void finish(Evaluator& evaluator, const Space& space, const Problem& problem, const Device& device,
            const TournamentOptions& options, std::size_t max_resets,
            std::chrono::steady_clock::time_point deadline, double reset_seconds,
            TournamentResult& result) {
  using Clock = std::chrono::steady_clock;
  if (result.winner == 0 || !result.winning().measurement.ok()) return;
  const Config reference = result.finalists.front().config;
  Config current = result.winning().config;
  std::size_t tried = 0;
  for (std::size_t knob = 0; knob < space.knob_count() && tried < max_resets; ++knob) {
    if (current.at(knob) == reference.at(knob)) continue;
    const std::string& name = space.names()[knob];
    Config reset = current;
    reset.set(knob, reference.at(knob));
    const Normalized normalized = space.normalize(reset, problem, device);
    if (!normalized.config || !(*normalized.config == reset)) {
      result.finishing.push_back(fmt::format("{}: skipped, the space repairs the reset", name));
      continue;
    }
    const auto started = Clock::now();
    if (started + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(reset_seconds)) >
        deadline) {
      result.finishing.push_back(
          fmt::format("{}: not tried, a reset (about {:.1f} s) would overrun the finishing budget",
                      name, reset_seconds));
      break;
    }
    ++tried;
    const std::vector<Config> trio{reference, current, reset};
    const PairedRounds rounds = evaluator.time_rounds(trio, options.min_rounds);
    const bool timed =
        rounds.checks.at(0).ok() && rounds.checks.at(1).ok() && rounds.checks.at(2).ok();
    const RatioInterval vs_current = paired_ratio(rounds.rounds, 1, 2, options.confidence);
    const RatioInterval vs_default = paired_ratio(rounds.rounds, 0, 2, options.confidence);
    const bool kept = timed && vs_current.median >= 1.0 - options.margin &&
                      vs_current.high >= 1.0 && vs_default.low > 1.0 + options.margin;
    result.finishing.push_back(fmt::format(
        "{} = {}: {} (vs the winner {:.3f} [{:.3f}, {:.3f}], vs the default {:.3f} [{:.3f}, "
        "{:.3f}])",
        name, reference.at(knob).to_string(), kept ? "kept" : "dropped", vs_current.median,
        vs_current.low, vs_current.high, vs_default.median, vs_default.low, vs_default.high));
    reset_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (!kept) continue;
    current = reset;
    Finalist finalist{.config = reset, .role = FinalistRole::finishing};
    finalist.measurement = timing_over_rounds(rounds, 2);
    finalist.vs_default = vs_default;
    finalist.vs_winner = paired_ratio(rounds.rounds, 2, 2, options.confidence);
    finalist.vs_reference = reference_ratio(rounds.rounds, 2, options.confidence);
    result.finalists.push_back(std::move(finalist));
    result.winner = result.finalists.size() - 1;
  }
}

}  // namespace cutune::finishing
