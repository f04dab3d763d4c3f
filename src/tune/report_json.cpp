#include <cmath>
#include <string>

#include "cutune/tune_json.hpp"

namespace cutune {

nlohmann::json json_number(double x) {
  return std::isnan(x) ? nlohmann::json() : nlohmann::json(x);
}

nlohmann::json finalists_json(const TournamentResult& result) {
  nlohmann::json out = nlohmann::json::array();
  for (const Finalist& f : result.finalists) {
    out.push_back({{"config_hash", f.config.hash_hex()},
                   {"config", f.config.to_json()},
                   {"role", to_string(f.role)},
                   {"outcome", to_string(f.measurement.outcome)},
                   {"detail", f.measurement.ok() ? std::string() : f.measurement.detail},
                   {"time_ms", json_number(f.measurement.time_ms)},
                   {"ratio", json_number(f.vs_default.median)},
                   {"ratio_low", json_number(f.vs_default.low)},
                   {"ratio_high", json_number(f.vs_default.high)},
                   {"rounds", f.vs_default.rounds},
                   {"vs_reference",
                    {{"ratio", json_number(f.vs_reference.median)},
                     {"low", json_number(f.vs_reference.low)},
                     {"high", json_number(f.vs_reference.high)},
                     {"rounds", f.vs_reference.rounds}}}});
  }
  return out;
}

nlohmann::json rounds_json(const TournamentResult& result) {
  nlohmann::json clocks = nlohmann::json::array();
  nlohmann::json power = nlohmann::json::array();
  nlohmann::json reference = nlohmann::json::array();
  for (const TimedRound& round : result.rounds) {
    reference.push_back(json_number(round.reference_ms));
    clocks.push_back(json_number(round.sm_clock_mhz));
    power.push_back(json_number(round.power_w));
  }
  return {{"rounds", result.rounds.size()},
          {"warmup_rounds", result.warmup_rounds},
          {"steady_state", result.steady_state},
          {"seconds", result.seconds},
          {"sm_clock_mhz", clocks},
          {"power_w", power},
          {"reference_ms", reference},
          {"finishing", result.finishing}};
}

// When the search first measured a config within `tolerance` of the winner, both as the search
// measured them: re-timing runs longer and may read another clock, so its times are not the bar.
std::optional<double> seconds_to_within(const TuneReport& report, double tolerance) {
  if (!report.best) return std::nullopt;
  const std::uint64_t winner = report.best->config.hash();
  std::optional<double> winner_ms;
  for (const Evaluated& e : report.evaluated) {
    if (e.measurement.ok() && e.config.hash() == winner) winner_ms = e.measurement.time_ms;
  }
  const double bar = winner_ms.value_or(report.best->measurement.time_ms) * (1.0 + tolerance);
  for (const Evaluated& e : report.evaluated) {
    if (e.measurement.ok() && e.measurement.time_ms <= bar) return e.at_seconds;
  }
  return std::nullopt;
}

nlohmann::json tune_report_json(const TuneReport& report, const TuningKey& key,
                                const Store* store) {
  nlohmann::json out;
  out["key"] = {{"family", key.family},
                {"family_version", key.family_version},
                {"problem", key.problem},
                {"device", key.device},
                {"toolchain", key.toolchain}};
  if (store != nullptr) out["store"] = store->path().string();
  out["evaluated"] = report.evaluated.size();
  out["resumed"] = report.resumed;
  out["duplicates_skipped"] = report.duplicates_skipped;
  // Which device measured each new result (several with --devices).
  nlohmann::json per_device = nlohmann::json::object();
  for (const Evaluated& e : report.evaluated) {
    if (e.from_store) continue;
    auto& count = per_device[std::to_string(e.measurement.device)];
    count = count.is_null() ? 1 : count.get<int>() + 1;
  }
  out["measured_per_device"] = per_device;
  if (store != nullptr && store->shared()) {
    out["shared"] = {{"participant", report.participant},
                     {"claims_taken_over", report.claims_taken_over},
                     {"adopted_decision", report.adopted_decision}};
  }
  out["stopped"] = report.stopped;  // TuneOptions::stop ended it: best is the search's, undecided
  out["dropped_by_normalizer"] = report.dropped_by_normalizer;
  out["seconds"] = report.seconds;
  out["seconds_to_best"] = report.seconds_to_best;
  if (auto within = seconds_to_within(report, 0.02)) out["seconds_to_within_2pct"] = *within;
  nlohmann::json outcomes = nlohmann::json::object();
  for (const auto& [outcome, count] : report.outcomes)
    outcomes[std::string(to_string(outcome))] = count;
  out["outcomes"] = outcomes;
  if (report.baseline) {
    out["default"] = {{"config", report.baseline->config.to_json()},
                      {"outcome", to_string(report.baseline->measurement.outcome)},
                      {"time_ms", report.baseline->measurement.time_ms}};
  }
  if (report.best) {
    const Measurement& m = report.best->measurement;
    out["best"] = {{"config", report.best->config.to_json()},
                   {"time_ms", m.time_ms},
                   {"spread", m.iqr_spread},
                   {"range_spread", m.spread},
                   {"min_ms", m.min_ms},
                   {"max_ms", m.max_ms}};
  }
  nlohmann::json priors = nlohmann::json::array();
  for (const PriorWeight& p : report.priors) {
    priors.push_back({{"source", p.name},
                      {"rows", p.rows},
                      {"seeds", p.seeds},
                      {"weight", p.weight},
                      {"judged_on", p.observed}});
  }
  out["transfer"] = {{"priors", priors}};
  if (auto s = report.speedup()) out["speedup_over_default"] = *s;
  if (report.tournament) {
    const TournamentResult& t = *report.tournament;
    out["speedup_interval"] = {t.speedup().low, t.speedup().high};
    out["tournament"] = {{"winner", t.winner},
                         {"finalists", finalists_json(t)},
                         {"rounds", rounds_json(t)},
                         {"seconds", report.tournament_seconds},
                         {"share_of_wall_time",
                          report.seconds > 0 ? report.tournament_seconds / report.seconds : 0.0}};
  }
  return out;
}

std::string_view to_string(TunePhase phase) {
  switch (phase) {
    case TunePhase::tournament:
      return "tournament";
    case TunePhase::finishing:
      return "finishing";
    case TunePhase::search:
      break;
  }
  return "search";
}

}  // namespace cutune
