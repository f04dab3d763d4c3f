#include "cutune/tournament.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "cutune/timing_summary.hpp"

namespace cutune {
namespace {

// P(Binomial(n, 1/2) <= k), summed in doubles: n stays in the tens.
double binomial_half_cdf(int n, int k) {
  double term = std::pow(0.5, n);  // P(B = 0)
  double sum = 0.0;
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term = term * (n - i) / (i + 1);
  }
  return sum;
}

// Appends the rounds of `more` to `all`, and keeps the first failure of each finalist.
void merge(PairedRounds& all, PairedRounds more) {
  if (all.checks.empty()) {
    all = std::move(more);
    return;
  }
  for (std::size_t i = 0; i < all.checks.size() && i < more.checks.size(); ++i) {
    if (all.checks[i].ok() && !more.checks[i].ok()) all.checks[i] = std::move(more.checks[i]);
  }
  all.warmup_rounds += more.warmup_rounds;
  for (TimedRound& round : more.rounds) all.rounds.push_back(std::move(round));
}

bool beats(const RatioInterval& ratio, double margin) { return ratio.low > 1.0 + margin; }

// Each finalist's times over the rounds and its ratio against the default.
void score(std::vector<Finalist>& finalists, const PairedRounds& rounds, double confidence) {
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    finalists[i].measurement = timing_over_rounds(rounds, i);
    const bool ok = finalists[i].measurement.ok();
    finalists[i].vs_default = ok ? paired_ratio(rounds.rounds, 0, i, confidence) : RatioInterval{};
    finalists[i].vs_reference =
        ok ? reference_ratio(rounds.rounds, i, confidence) : RatioInterval{};
  }
}

struct Choice {
  std::size_t winner = 0;
  bool settled = true;  // no challenger's interval straddles 1 + margin
};

Choice choose(const std::vector<Finalist>& finalists, const PairedRounds& rounds,
              const TournamentOptions& options) {
  Choice choice;
  if (!finalists.front().measurement.ok()) {
    // No default to measure against: the fastest finalist by its median wins outright.
    for (std::size_t i = 1; i < finalists.size(); ++i) {
      const Measurement& m = finalists[i].measurement;
      if (m.ok() && (!finalists[choice.winner].measurement.ok() ||
                     m.time_ms < finalists[choice.winner].measurement.time_ms)) {
        choice.winner = i;
      }
    }
    return choice;
  }
  std::optional<std::size_t> best;
  std::optional<std::size_t> best_seed;
  for (std::size_t i = 1; i < finalists.size(); ++i) {
    if (!finalists[i].measurement.ok()) continue;
    const RatioInterval& r = finalists[i].vs_default;
    if (r.low <= 1.0 + options.margin && r.high > 1.0 + options.margin) choice.settled = false;
    if (!beats(r, options.margin)) continue;
    if (!best || r.median > finalists[*best].vs_default.median) best = i;
    if (finalists[i].role == FinalistRole::seed &&
        (!best_seed || r.median > finalists[*best_seed].vs_default.median)) {
      best_seed = i;
    }
  }
  if (!best) return choice;
  choice.winner = *best;
  if (best_seed && *best_seed != *best &&
      !beats(paired_ratio(rounds.rounds, *best_seed, *best, options.confidence), options.margin)) {
    choice.winner = *best_seed;
  }
  return choice;
}

}  // namespace

namespace {

// The median of the ratios and its order-statistic interval.
RatioInterval interval_of(std::vector<double> ratios, double confidence) {
  RatioInterval out;
  out.rounds = static_cast<int>(ratios.size());
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  const int n = out.rounds;
  out.median = quantile_of_sorted(ratios, 0.5);
  int k = 1;  // 1-based rank of the low end
  while (k + 1 <= (n + 1) / 2 && binomial_half_cdf(n, k) <= (1.0 - confidence) / 2) ++k;
  out.low = ratios[static_cast<std::size_t>(k - 1)];
  out.high = ratios[static_cast<std::size_t>(n - k)];
  return out;
}

}  // namespace

RatioInterval paired_ratio(const std::vector<TimedRound>& rounds, std::size_t reference,
                           std::size_t candidate, double confidence) {
  std::vector<double> ratios;
  for (const TimedRound& round : rounds) {
    const double a = round.times_ms.at(reference);
    const double b = round.times_ms.at(candidate);
    if (a > 0 && b > 0) ratios.push_back(a / b);
  }
  return interval_of(std::move(ratios), confidence);
}

RatioInterval reference_ratio(const std::vector<TimedRound>& rounds, std::size_t candidate,
                              double confidence) {
  std::vector<double> ratios;
  for (const TimedRound& round : rounds) {
    const double b = round.times_ms.at(candidate);
    if (round.reference_ms > 0 && b > 0) ratios.push_back(round.reference_ms / b);
  }
  return interval_of(std::move(ratios), confidence);
}

Measurement timing_over_rounds(const PairedRounds& rounds, std::size_t i) {
  if (!rounds.checks.at(i).ok()) return rounds.checks[i];
  std::vector<double> times;
  for (const TimedRound& round : rounds.rounds) {
    if (!std::isnan(round.times_ms.at(i))) times.push_back(round.times_ms[i]);
  }
  if (times.empty()) return {.outcome = Outcome::crash, .detail = "timed in no round"};
  const TimingSummary summary = summarize_timings(std::move(times));
  Measurement m = rounds.checks[i];
  m.time_ms = summary.median_ms;
  m.iqr_spread = summary.iqr_spread();
  m.spread = summary.range_spread();
  m.min_ms = summary.min_ms;
  m.max_ms = summary.max_ms;
  m.repetitions = summary.repetitions;
  m.times_ms = summary.times_ms;
  m.detail = "median of paired rounds";
  return m;
}

std::string_view to_string(FinalistRole role) {
  switch (role) {
    case FinalistRole::default_config:
      return "default";
    case FinalistRole::seed:
      return "seed";
    case FinalistRole::search:
      return "search";
    case FinalistRole::finishing:
      return "finishing";
  }
  return "search";
}

TournamentResult run_tournament(Evaluator& evaluator, std::vector<Finalist> finalists,
                                const TournamentOptions& options) {
  if (finalists.empty()) throw std::invalid_argument("run_tournament: no finalists");
  const auto start = std::chrono::steady_clock::now();
  std::vector<Config> configs;
  for (const Finalist& f : finalists) configs.push_back(f.config);

  PairedRounds rounds;
  Choice choice;
  int asked = std::max(1, options.min_rounds);
  for (;;) {
    merge(rounds, evaluator.time_rounds(configs, asked));
    score(finalists, rounds, options.confidence);
    choice = choose(finalists, rounds, options);
    const int done = static_cast<int>(rounds.rounds.size());
    if (choice.settled || done >= options.max_rounds || options.step_rounds <= 0) break;
    asked = std::min(options.step_rounds, options.max_rounds - done);
  }

  TournamentResult result;
  result.winner = choice.winner;
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    if (finalists[i].measurement.ok()) {
      finalists[i].vs_winner = paired_ratio(rounds.rounds, choice.winner, i, options.confidence);
    }
  }
  result.finalists = std::move(finalists);
  result.rounds = std::move(rounds.rounds);
  result.warmup_rounds = rounds.warmup_rounds;
  result.steady_state = std::move(rounds.steady_state);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace cutune
