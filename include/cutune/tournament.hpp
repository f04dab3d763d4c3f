// The final tournament of a tune: the finalists (the default config, the heuristic seeds and the
// fastest few of the search) are timed together in paired, interleaved rounds
// (Evaluator::time_rounds), and the winner is chosen from per-round ratios against the default, so
// that a clock or power drift moves every finalist of a round alike and cancels out of the ratio,
// and an outlier round moves one ratio of many, not the median.
//
// The statistic. For finalist c, round r gives the paired ratio default_r / c_r (> 1: c is
// faster). Its median over the n rounds where both were timed is the reported speedup; its
// interval is the distribution-free order-statistic confidence interval of a median: with the
// ratios sorted, [x(k), x(n+1-k)] for the largest k with P(Binomial(n, 1/2) < k) <= (1 -
// confidence) / 2 (n = 15 at 95 %: k = 4). Below 6 rounds no k qualifies and the interval is
// [min, max], which then covers less than the confidence asked; tournaments run at least 15.
//
// The rule. A challenger qualifies when its interval's low end is above 1 + margin: faster than
// the default beyond the measured noise. None qualifies: the default wins. Otherwise the
// qualified finalist with the highest median wins, except that a pinned seed that qualified
// keeps its place unless the challenger also beats that seed by the same test.
//
// The rounds. min_rounds first; while the leading challenger's interval straddles 1 + margin
// (neither clearly faster nor clearly not), step_rounds more, up to max_rounds. Each further call
// re-reaches steady state (the backend's warm-up) before it times anything.
//
// Any caller; never throws for a failing finalist: it drops out with its outcome. Throws
// std::invalid_argument when given no finalists.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/measurement.hpp"

namespace cutune {

struct RatioInterval {
  double median = NAN;  // of the paired ratios reference / candidate
  double low = NAN;     // the order-statistic confidence interval of that median
  double high = NAN;
  int rounds = 0;  // rounds where both were timed
};

// Paired ratios reference_r / candidate_r over the rounds where both have a time.
RatioInterval paired_ratio(const std::vector<TimedRound>& rounds, std::size_t reference,
                           std::size_t candidate, double confidence = 0.95);

// Config i's times over the rounds as one Measurement (median, quartiles, extremes; repetitions
// = rounds), or its check's failure.
Measurement timing_over_rounds(const PairedRounds& rounds, std::size_t i);

// Ratios reference_ms / candidate_r over the rounds where the backend timed its reference (the
// GEMM's cuBLASLt) and the candidate: tuned / reference in throughput terms.
RatioInterval reference_ratio(const std::vector<TimedRound>& rounds, std::size_t candidate,
                              double confidence = 0.95);

enum class FinalistRole { default_config, seed, search, finishing };
std::string_view to_string(FinalistRole role);

struct Finalist {
  Config config;
  FinalistRole role = FinalistRole::search;
  Measurement measurement{};     // its times over the rounds (median, quartiles), or its failure
  RatioInterval vs_default{};    // speedup over the default, from the same rounds
  RatioInterval vs_winner{};     // the winner's time / its time: how far behind the winner it is
  RatioInterval vs_reference{};  // the backend's reference time / its time (rounds = 0: none)
};

struct TournamentOptions {
  int min_rounds = 15;
  int step_rounds = 10;
  int max_rounds = 45;
  double margin = 0.01;  // a challenger must beat the default by more than this (1 %)
  double confidence = 0.95;
};

struct TournamentResult {
  std::vector<Finalist> finalists;  // the default first, in the order given
  std::size_t winner = 0;           // index into finalists
  std::vector<TimedRound> rounds;   // every timed round, device state included
  int warmup_rounds = 0;
  std::string steady_state;            // the backend's account of its warm-up
  double seconds = 0.0;                // wall time of the tournament
  std::vector<std::string> finishing;  // the tune's finishing pass: one line per knob reset

  const Finalist& winning() const { return finalists.at(winner); }
  // The default's time over the winner's, from the same rounds (1 when the default won).
  const RatioInterval& speedup() const { return winning().vs_default; }
};

// The finalists' first element is the default (the reference of every ratio); seeds are pinned.
TournamentResult run_tournament(Evaluator& evaluator, std::vector<Finalist> finalists,
                                const TournamentOptions& options);

}  // namespace cutune
