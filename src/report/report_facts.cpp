#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "cutune/report.hpp"

namespace cutune::report {
namespace {

using nlohmann::json;

json number(double x) { return std::isnan(x) ? json() : json(x); }

double median_of(const json& values) {
  std::vector<double> xs;
  for (const json& v : values)
    if (v.is_number()) xs.push_back(v.get<double>());
  if (xs.empty()) return NAN;
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

std::string date_of(double timestamp) {
  const std::time_t t = static_cast<std::time_t>(timestamp);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

// The winner, the default and the speedup: from the decision's tournament, or without one from
// the samples (the fastest against the tune's first sample, which is the default).
void add_verdict(const TuneRecord& r, json& facts) {
  double default_search_ms = NAN;
  if (!r.samples.empty() && r.samples.front().measurement.ok())
    default_search_ms = r.samples.front().measurement.time_ms;
  facts["winner"] = nullptr;
  facts["speedup"] = nullptr;
  facts["sureness"] = nullptr;
  facts["reference"] = nullptr;
  if (r.decision) {
    const Decision& d = *r.decision;
    json winner = json::object();
    double default_ms = NAN;
    for (const json& f : json::parse(d.finalists_json)) {
      if (f.at("config_hash") == d.winner_hash) winner = f;
      if (f.at("role") == "default" && f.at("time_ms").is_number()) default_ms = f.at("time_ms");
    }
    facts["winner"] = {{"config", json::parse(d.winner_json)},
                       {"time_ms", winner.value("time_ms", json())}};
    facts["default"] = {{"time_ms", number(default_ms)},
                        {"search_time_ms", number(default_search_ms)}};
    if (!std::isnan(d.speedup)) {
      facts["speedup"] = {{"ratio", d.speedup},
                          {"low", number(d.speedup_low)},
                          {"high", number(d.speedup_high)},
                          {"rounds", d.rounds},
                          {"from", "tournament"}};
      const bool kept = d.winner_hash == d.default_hash;
      facts["sureness"] =
          kept ? json{{"verdict", "default kept"},
                      {"text",
                       "No challenger was faster than the default beyond the noise: the "
                       "default is deployed."}}
          : d.speedup_low > 1
              ? json{{"verdict", "sure"},
                     {"text",
                      "Sure: the whole interval is above 1, so the winner is faster than "
                      "the default beyond the measured noise."}}
              : json{{"verdict", "not sure"},
                     {"text",
                      "Not sure: the interval reaches 1 or below, so the winner may be no "
                      "faster than the default."}};
    }
    const json reference = winner.value("vs_reference", json::object());
    const double reference_ms = median_of(json::parse(d.rounds_json).value("reference_ms", json()));
    if (reference.value("rounds", 0) > 0) {
      facts["reference"] = {{"ratio", reference.at("ratio")},
                            {"low", reference.at("low")},
                            {"high", reference.at("high")},
                            {"rounds", reference.at("rounds")},
                            {"median_ms", number(reference_ms)}};
    }
    return;
  }
  double winner_ms = NAN;
  std::string winner_config;
  for (const Sample& s : r.samples) {
    if (s.measurement.ok() && !(winner_ms <= s.measurement.time_ms)) {
      winner_ms = s.measurement.time_ms;
      winner_config = s.config_json;
    }
  }
  facts["default"] = {{"time_ms", number(default_search_ms)},
                      {"search_time_ms", number(default_search_ms)}};
  if (winner_config.empty()) return;
  facts["winner"] = {{"config", json::parse(winner_config)}, {"time_ms", winner_ms}};
  if (!std::isnan(default_search_ms)) {
    facts["speedup"] = {{"ratio", default_search_ms / winner_ms},
                        {"low", nullptr},
                        {"high", nullptr},
                        {"rounds", 0},
                        {"from", "search"}};
  }
}

json knobs_of(const TuneRecord& r) {
  json knobs = json::array();
  for (const KnobEffect& e : r.effects) {
    const auto fastest = std::min_element(e.values.begin(), e.values.end(), [](auto& a, auto& b) {
      return a.median_ms < b.median_ms;
    });
    json values = json::array();
    for (const ValueTimes& t : e.values)
      values.push_back({{"value", t.value}, {"median_ms", t.median_ms}, {"times", t.times}});
    knobs.push_back({{"knob", e.knob},
                     {"ratio", e.ratio},
                     {"fastest",
                      {{"value", fastest->value},
                       {"median_ms", fastest->median_ms},
                       {"samples", fastest->times.size()}}},
                     {"values", values}});
  }
  return knobs;
}

json tournament_of(const TuneRecord& r) {
  if (!r.decision) return nullptr;
  const json rounds = json::parse(r.decision->rounds_json);
  json finalists = json::array();
  for (const json& f : json::parse(r.decision->finalists_json)) {
    const bool ok = f.at("outcome") == "ok";
    finalists.push_back({{"winner", f.at("config_hash") == r.decision->winner_hash},
                         {"role", f.at("role")},
                         {"outcome", f.at("outcome")},
                         {"time_ms", ok ? f.at("time_ms") : json()},
                         {"ratio", ok ? f.at("ratio") : json()},
                         {"ratio_low", ok ? f.at("ratio_low") : json()},
                         {"ratio_high", ok ? f.at("ratio_high") : json()},
                         {"config", f.at("config")}});
  }
  return {{"rounds", rounds.value("rounds", 0)},
          {"warmup_rounds", rounds.value("warmup_rounds", 0)},
          {"steady_state", rounds.value("steady_state", "")},
          {"finishing", rounds.value("finishing", json::array())},
          {"reference_median_ms", number(median_of(rounds.value("reference_ms", json())))},
          {"finalists", finalists}};
}

json failures_of(const TuneRecord& r) {
  json failures = json::array();
  for (const FailureGroup& g : r.failures) {
    failures.push_back({{"outcome", to_string(g.outcome)},
                        {"configs", g.count},
                        {"first_error_line", g.first_line},
                        {"example_config", json::parse(g.example_config)},
                        {"log", g.log_path.empty() ? json() : json(g.log_path)}});
  }
  return failures;
}

json convergence_of(const TuneRecord& r) {
  json samples = json::array();
  for (const Sample& s : r.samples) {
    samples.push_back({{"evaluation", s.evaluation},
                       {"seconds", s.seconds},
                       {"outcome", to_string(s.measurement.outcome)},
                       {"time_ms", number(s.measurement.time_ms)},
                       {"best_ms", number(s.best_ms)},
                       {"config", config_text(s.config_json)},
                       {"device", measuring_device(s.measurement)}});
  }
  return samples;
}

}  // namespace

std::string measuring_device(const Measurement& m) {
  if (m.device < 0) return "-";
  return fmt::format("{} #{}", m.device_name.empty() ? "device" : m.device_name, m.device);
}

json report_facts(const TuneRecord& r) {
  std::size_t failed = 0;
  for (const FailureGroup& g : r.failures) failed += g.count;
  json facts = {{"format", "cutune-report"},
                {"version", 1},
                {"key", key_json(r.key)},
                {"tune_id", r.tune_id},
                {"started", r.rows.empty() ? json() : json(date_of(r.rows.front().timestamp))},
                {"configs_measured", r.samples.size()},
                {"configs_failed", failed},
                {"other_tunes_rows", r.other_tunes_rows}};
  add_verdict(r, facts);
  facts["knobs"] = knobs_of(r);
  facts["tournament"] = tournament_of(r);
  facts["failures"] = failures_of(r);
  facts["convergence"] = convergence_of(r);
  return facts;
}

}  // namespace cutune::report
