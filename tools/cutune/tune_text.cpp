#include "tune_text.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cutune/tune_json.hpp"
#include "rank_table.hpp"
#include "text_fit.hpp"

namespace cutune::cli {

// How many of the warm-start configs the tune evaluated (a config the space repairs into another,
// or equal to the default config, is counted once, under whichever came first).
std::size_t count_evaluated(const TuneReport& report, const std::vector<NearestWinner>& winners) {
  std::size_t count = 0;
  for (const NearestWinner& w : winners) {
    const std::uint64_t hash = w.config.hash();
    count += std::any_of(report.evaluated.begin(), report.evaluated.end(),
                         [&](const Evaluated& e) { return e.config.hash() == hash; });
  }
  return count;
}

nlohmann::json warm_start_json(const WarmStart& warm) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const NearestWinner& w : warm.winners) {
    shapes.push_back({{"problem", w.problem.canonical()},
                      {"distance", w.distance},
                      {"time_ms", w.time_ms},
                      {"config", w.config.to_string()}});
  }
  return {{"enabled", warm.enabled},
          {"configs", warm.winners.size()},
          {"evaluated", warm.evaluated},
          {"from", shapes}};
}

void print_warm_start(const WarmStart& warm) {
  if (!warm.enabled) {
    fmt::print("warm start: off\n");
    return;
  }
  fmt::print("warm start: {} config(s) from the nearest tuned shapes, {} evaluated\n",
             warm.winners.size(), warm.evaluated);
  for (const NearestWinner& w : warm.winners) {
    fmt::print("  {}\n",
               fit(fmt::format("{} (distance {:.2f}, {:.5g} ms): {}", w.problem.canonical(),
                               w.distance, w.time_ms, w.config.to_string()),
                   kOutputColumns - 2));
  }
}

void print_transfer(bool enabled, const TuneReport& report) {
  if (!enabled) {
    fmt::print("transfer: off\n");
    return;
  }
  fmt::print("transfer: {} prior(s) from other devices and shapes in the store\n",
             report.priors.size());
  for (const PriorWeight& p : report.priors) {
    fmt::print("  {}\n",
               fit(fmt::format("weight {:.2f} (judged on {} results), {} rows, {} seeds: {}",
                               p.weight, p.observed, p.rows, p.seeds, p.name),
                   kOutputColumns - 2));
  }
}

namespace {

double tflops(double flop_count, double ms) { return flop_count / (ms * 1e-3) / 1e12; }

// The default as the report compares it: timed in the tournament's rounds when there was one.
const Measurement* default_measurement(const TuneReport& report) {
  if (report.tournament) return &report.tournament->finalists.front().measurement;
  return report.baseline ? &report.baseline->measurement : nullptr;
}

}  // namespace

std::size_t count_encoder_errors(const TuneReport& report, const Space& space) {
  std::size_t errors = 0;
  for (const Evaluated& e : report.evaluated) {
    try {
      space.features(e.config);
    } catch (const std::exception&) {
      ++errors;
    }
  }
  return errors;
}

nlohmann::json comparison_json(const TuneReport& report, const Comparison& c) {
  nlohmann::json out;
  out["encoder_errors"] = c.encoder_errors;
  if (c.flop_count <= 0) return out;
  auto rate = [&](const Measurement& m) {
    return m.ok() ? nlohmann::json(tflops(c.flop_count, m.time_ms)) : nlohmann::json();
  };
  if (report.best) out["best_tflops"] = rate(report.best->measurement);
  if (const Measurement* m = default_measurement(report)) out["default_tflops"] = rate(*m);
  if (c.reference) {
    out["reference"] = {{"name", c.reference_name},
                        {"outcome", to_string(c.reference->outcome)},
                        {"time_ms", c.reference->time_ms},
                        {"tflops", rate(*c.reference)}};
  }
  return out;
}

void print_comparison(const TuneReport& report, const Comparison& c) {
  fmt::print("normalizer drops: {}, encoder errors: {}\n", report.dropped_by_normalizer,
             c.encoder_errors);
  if (c.flop_count <= 0) return;
  const bool have_reference = c.reference && c.reference->ok();
  auto line = [&](const char* what, const Measurement& m) {
    if (!m.ok()) return;
    fmt::print("{:<10} {:>9.4f} ms  {:>7.1f} TFLOP/s", what, m.time_ms,
               tflops(c.flop_count, m.time_ms));
    if (have_reference)
      fmt::print("  {:.3f}x {}", c.reference->time_ms / m.time_ms, c.reference_name);
    fmt::print("\n");
  };
  if (report.best) line("best", report.best->measurement);
  if (const Measurement* m = default_measurement(report)) line("default", *m);
  if (c.reference) {
    if (c.reference->ok()) {
      line(c.reference_name.c_str(), *c.reference);
    } else {
      fmt::print("{}: {} ({})\n", c.reference_name, to_string(c.reference->outcome),
                 c.reference->detail);
    }
  }
}

namespace {

// A fraction as a percentage; "-" when unknown (a store row or recording without repetitions).
std::string percent(double fraction) {
  return std::isnan(fraction) ? std::string("-") : fmt::format("{:.1f}%", 100.0 * fraction);
}

void print_tournament(const TuneReport& report) {
  if (!report.tournament) return;
  const TournamentResult& t = *report.tournament;
  fmt::print(
      "\ntournament: {} finalists, {} paired rounds after {} warm-up rounds, {:.2f} s ({} of the "
      "tune)\n  {}\n",
      t.finalists.size(), t.rounds.size(), t.warmup_rounds, report.tournament_seconds,
      percent(report.seconds > 0 ? report.tournament_seconds / report.seconds : NAN),
      wrap("steady state: " + t.steady_state, kOutputColumns, "  "));
  fmt::print("{:>6}  {:<9}  {:>12}  {:>24}  {}\n", "", "role", "time (ms)", "default / it [95% CI]",
             "config");
  for (std::size_t i = 0; i < t.finalists.size(); ++i) {
    const Finalist& f = t.finalists[i];
    const bool ok = f.measurement.ok();
    fmt::print("{:>6}  {:<9}  {:>12}  {:>24}  {}\n", i == t.winner ? "winner" : "",
               to_string(f.role),
               ok ? fmt::format("{:.5g}", f.measurement.time_ms)
                  : std::string(to_string(f.measurement.outcome)),
               ok ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", f.vs_default.median, f.vs_default.low,
                                f.vs_default.high)
                  : std::string("-"),
               fit(f.config.to_string(), kOutputColumns - 64));
  }
  for (const std::string& line : t.finishing) fmt::print("  finishing: {}\n", line);
  if (const RatioInterval& r = t.winning().vs_reference; r.rounds > 0) {
    fmt::print("  winner against the reference in the same rounds: {:.3f}x [{:.3f}, {:.3f}]\n",
               r.median, r.low, r.high);
  }
}

}  // namespace

void print_report(const TuneReport& report, const TuningKey& key, std::size_t show,
                  const std::string& checked_against) {
  fmt::print("\n{}\n", fit(fmt::format("{} on {} ({}), problem {}", key.family, key.device,
                                       short_toolchain(key.toolchain), key.problem),
                           kOutputColumns));
  // spread: (p75 - p25) / median of the search's repetitions.
  for (const std::string& line : rank_table(report, show)) fmt::print("{}\n", line);
  fmt::print(
      "\nevaluated {} configs in {:.1f} s ({} from the store, {} duplicates skipped, {} "
      "dropped by the normalizer)\n",
      report.evaluated.size(), report.seconds, report.resumed, report.duplicates_skipped,
      report.dropped_by_normalizer);
  std::string outcomes;
  for (const auto& [outcome, count] : report.outcomes) {
    outcomes += fmt::format("{}{} {}", outcomes.empty() ? "" : ", ", count, to_string(outcome));
  }
  fmt::print("outcomes: {}\n", outcomes);
  fmt::print("{}\n", checked_against.empty() ? "outputs not checked"
                                             : "outputs checked against " + checked_against);
  if (report.baseline) {
    const Measurement& m = report.baseline->measurement;
    fmt::print("default config in the search: {}\n",
               m.ok() ? fmt::format("{:.5g} ms", m.time_ms)
                      : fmt::format("{} ({})", to_string(m.outcome), m.detail));
  }
  print_tournament(report);
  if (report.adopted_decision) {
    fmt::print("shared tune: participant {}; the decision is another participant's tournament\n",
               report.participant);
  }
  if (!report.best) {
    fmt::print("no config passed the check\n");
    return;
  }
  const Measurement& best = report.best->measurement;
  fmt::print("winner: {:.5g} ms (spread {}", best.time_ms, percent(best.iqr_spread));
  if (!std::isnan(best.min_ms) && !std::isnan(best.max_ms))
    fmt::print(", min {:.5g}, max {:.5g} ms", best.min_ms, best.max_ms);
  fmt::print("), found at {:.1f} s", report.seconds_to_best);
  if (report.speedup()) fmt::print("\n ");
  if (auto within = seconds_to_within(report, 0.02))
    fmt::print(" (within 2% at {:.1f} s)", *within);
  if (auto s = report.speedup()) {
    fmt::print(", {:.3f}x the default config", *s);
    if (report.tournament) {
      fmt::print(" [{:.3f}, {:.3f}] over {} paired rounds", report.tournament->speedup().low,
                 report.tournament->speedup().high, report.tournament->speedup().rounds);
    }
  }
  fmt::print("\nwinning config:\n{}\n", report.best->config.to_json().dump(2));
}

}  // namespace cutune::cli
