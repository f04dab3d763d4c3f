// The finishing pass after the tournament: the simplest config that is as fast as the winner.
// The tune driver (src/tune) runs it after run_tournament (cutune/tournament.hpp).
#pragma once

#include <chrono>
#include <cstddef>

#include "cutune/evaluator.hpp"
#include "cutune/problem.hpp"
#include "cutune/space.hpp"
#include "cutune/tournament.hpp"

namespace cutune::finishing {

// Resets the winner's knobs to the default's values one at a time, in the space's knob order,
// trying at most `max_resets`. A reset is kept when paired rounds of the default, the current
// winner and the reset config (TournamentOptions::min_rounds of them) show no loss: the reset's
// median ratio against the current winner is at least 1 - margin and its interval's high end at
// least 1, while it still beats the default as the tournament requires (interval low end above
// 1 + margin). A reset that the space would repair into another config (a constraint ties the
// knob to others) is skipped. A kept reset joins the finalists (role finishing) as the winner,
// with its ratios from the last rounds it was timed in. A reset starts only when it is expected to
// end by `deadline`, taking `reset_seconds` (then the last reset's own time) as its cost. Never
// throws for a failing config.
void finish(Evaluator& evaluator, const Space& space, const Problem& problem, const Device& device,
            const TournamentOptions& options, std::size_t max_resets,
            std::chrono::steady_clock::time_point deadline, double reset_seconds,
            TournamentResult& result);

}  // namespace cutune::finishing
