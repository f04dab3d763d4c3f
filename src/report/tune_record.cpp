#include "cutune/tune_record.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_set>

#include "cutune/failure_text.hpp"
#include "cutune/timing_summary.hpp"

namespace cutune::report {
namespace {

// A knob's value for people: a string without its quotes, anything else as JSON text.
std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

bool is_hex_prefix(std::string_view text) {
  return text.size() >= 4 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The keys whose hash starts with the selector, or that hold a row of the tune it names.
struct Match {
  TuningKey key;
  std::vector<StoredResult> rows;
};

std::vector<Match> matching_keys(Store& store, std::string_view selector) {
  std::vector<Match> matches;
  for (const TuningKey& key : store.keys()) {
    std::vector<StoredResult> rows = store.results(key);
    const bool by_hash = is_hex_prefix(selector) && key.hash().starts_with(selector);
    const bool by_tune = std::any_of(rows.begin(), rows.end(),
                                     [&](const StoredResult& r) { return r.tune_id == selector; });
    if (selector.empty() || by_hash || by_tune) matches.push_back({key, std::move(rows)});
  }
  return matches;
}

std::vector<Sample> samples_of(const std::vector<StoredResult>& rows) {
  std::vector<Sample> samples;
  std::unordered_set<std::string> seen;
  double best = NAN;
  for (const StoredResult& row : rows) {
    if (!seen.insert(row.config_hash).second) continue;
    const Measurement& m = row.measurement;
    if (m.ok() && !(best <= m.time_ms)) best = m.time_ms;
    samples.push_back(
        {samples.size() + 1, row.timestamp - rows.front().timestamp, m, row.config_json, best});
  }
  return samples;
}

std::vector<KnobEffect> effects_of(const std::vector<Sample>& samples) {
  // Values keyed as JSON, so that numbers sort as numbers.
  std::map<std::string, std::map<nlohmann::json, std::vector<double>>> by_knob;
  for (const Sample& s : samples) {
    if (!s.measurement.ok()) continue;
    const nlohmann::json config = nlohmann::json::parse(s.config_json);
    for (const auto& [knob, value] : config.items()) {
      by_knob[knob][value].push_back(s.measurement.time_ms);
    }
  }
  std::vector<KnobEffect> effects;
  for (auto& [knob, values] : by_knob) {
    if (values.size() < 2) continue;
    KnobEffect effect{knob, {}, 1};
    double fastest = INFINITY, slowest = 0;
    for (auto& [value, times] : values) {
      std::sort(times.begin(), times.end());
      const double median = quantile_of_sorted(times, 0.5);
      fastest = std::min(fastest, median);
      slowest = std::max(slowest, median);
      effect.values.push_back({value_text(value), times, median});
    }
    effect.ratio = slowest / fastest;
    effects.push_back(std::move(effect));
  }
  std::stable_sort(effects.begin(), effects.end(),
                   [](const KnobEffect& a, const KnobEffect& b) { return a.ratio > b.ratio; });
  return effects;
}

std::vector<FailureGroup> group_failures(const std::vector<Sample>& samples) {
  std::vector<FailureGroup> groups;
  for (const Sample& s : samples) {
    if (s.measurement.ok()) continue;
    const std::string line = first_error_line(s.measurement.detail);
    auto group = std::find_if(groups.begin(), groups.end(), [&](const FailureGroup& g) {
      return g.outcome == s.measurement.outcome && g.first_line == line;
    });
    if (group == groups.end()) {
      groups.push_back(
          {s.measurement.outcome, line, 0, s.config_json, full_log_path(s.measurement.detail)});
      group = groups.end() - 1;
    }
    ++group->count;
  }
  // Most frequent first, then by outcome and line: a reader finds a reason where they expect it.
  std::sort(groups.begin(), groups.end(), [](const FailureGroup& a, const FailureGroup& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.outcome != b.outcome) return to_string(a.outcome) < to_string(b.outcome);
    return a.first_line < b.first_line;
  });
  return groups;
}

}  // namespace

TuneRecord load_tune_record(Store& store, std::string_view selector) {
  std::vector<Match> matches = matching_keys(store, selector);
  if (matches.empty()) {
    throw std::invalid_argument(
        selector.empty() ? fmt::format("the store {} holds no tune", store.path().string())
                         : fmt::format("no tune id or key hash in {} matches '{}'",
                                       store.path().string(), selector));
  }
  if (!selector.empty() && matches.size() > 1) {
    std::string keys;
    for (const Match& m : matches) keys += fmt::format("\n  {} {}", m.key.hash(), m.key.problem);
    throw std::invalid_argument(fmt::format("'{}' matches several keys:{}", selector, keys));
  }
  // The key whose latest row is the newest; its latest row's tune unless a tune id was given.
  const Match& match = *std::max_element(matches.begin(), matches.end(), [](auto& a, auto& b) {
    return a.rows.back().timestamp < b.rows.back().timestamp;
  });
  TuneRecord record;
  record.key = match.key;
  const bool by_tune = std::any_of(match.rows.begin(), match.rows.end(),
                                   [&](const StoredResult& r) { return r.tune_id == selector; });
  record.tune_id = by_tune ? std::string(selector) : match.rows.back().tune_id;
  for (const StoredResult& row : match.rows) {
    if (row.tune_id == record.tune_id) {
      record.rows.push_back(row);
    } else {
      ++record.other_tunes_rows;
    }
  }
  if (auto decision = store.decision(record.key); decision && decision->tune_id == record.tune_id)
    record.decision = std::move(decision);
  record.samples = samples_of(record.rows);
  record.effects = effects_of(record.samples);
  record.failures = group_failures(record.samples);
  return record;
}

std::string config_text(const std::string& config_json) {
  std::string text;
  const nlohmann::json config = nlohmann::json::parse(config_json);
  for (const auto& [knob, value] : config.items()) {
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", knob, value_text(value));
  }
  return text;
}

nlohmann::json key_json(const TuningKey& key) {
  return {{"family", key.family}, {"family_version", key.family_version}, {"problem", key.problem},
          {"device", key.device}, {"toolchain", key.toolchain},           {"hash", key.hash()}};
}

}  // namespace cutune::report
