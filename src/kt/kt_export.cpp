// Stored results -> Kernel Tuner cache, T4 results and CSV (cutune/kernel_tuner.hpp).
#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "cutune/kernel_tuner.hpp"
#include "kt_values.hpp"

namespace cutune {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

struct Row {
  const StoredResult* result;
  json config;
};

std::vector<Row> rows_of(const std::vector<StoredResult>& latest) {
  std::vector<Row> rows;
  for (const StoredResult& r : latest) {
    json config = json::parse(r.config_json, nullptr, false);
    if (!config.is_object()) {
      throw KernelTunerError("config " + r.config_hash + " of " + r.key.canonical() +
                             " is not a JSON object");
    }
    rows.push_back({&r, std::move(config)});
  }
  return rows;
}

std::vector<std::string> knob_order(const std::vector<Row>& rows, const KtExportInfo& info) {
  if (!info.knob_order.empty()) return info.knob_order;
  std::set<std::string> names;
  for (const Row& row : rows) {
    for (const auto& [name, value] : row.config.items()) names.insert(name);
  }
  return {names.begin(), names.end()};
}

ordered tune_params_of(const std::vector<Row>& rows, const std::vector<std::string>& order,
                       const KtExportInfo& info) {
  ordered out = ordered::object();
  for (const std::string& name : order) {
    out[name] = ordered::array();
    if (info.tune_params.contains(name)) {
      for (const auto& v : info.tune_params.at(name)) out[name].push_back(ordered(kt::kt_value(v)));
      continue;
    }
    std::set<json> seen;
    for (const Row& row : rows) {
      if (row.config.contains(name)) seen.insert(row.config.at(name));
    }
    for (const json& v : seen) out[name].push_back(ordered(kt::kt_value(v)));
  }
  return out;
}

const char* kt_marker(Outcome outcome) {
  switch (outcome) {
    case Outcome::compile_error:
    case Outcome::compile_timeout:
      return "CompilationFailedConfig";
    case Outcome::invalid_config:
      return "InvalidConfig";
    default:
      return "RuntimeFailedConfig";
  }
}

const char* t4_invalidity(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok:
      return "correct";
    case Outcome::compile_error:
    case Outcome::compile_timeout:
      return "compile";
    case Outcome::wrong_result:
      return "correctness";
    case Outcome::hang:
      return "timeout";
    case Outcome::invalid_config:
      return "constraints";
    default:
      return "runtime";
  }
}

// "2023-12-22 09:54:05.502007+00:00", as Kernel Tuner writes timestamps.
std::string iso_time(double seconds) {
  const auto whole = static_cast<std::time_t>(std::floor(seconds));
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[64];
  const int micros = static_cast<int>(std::lround((seconds - std::floor(seconds)) * 1e6)) % 1000000;
  std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d.%06d+00:00", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, micros);
  return text;
}

// The row's value of a knob the file lists. A spec's knob order (--spec) may name a knob that a
// stored config lacks (another version of the spec): one error for every format, naming it, the
// config and the knob.
const json& knob_value(const Row& row, const std::string& name, const char* format) {
  const auto it = row.config.find(name);
  if (it == row.config.end()) {
    throw KernelTunerError(std::string(format) + ": config " + row.result->config_hash +
                           " has no knob " + name);
  }
  return *it;
}

void require_one_key(const std::vector<StoredResult>& rows, const char* format) {
  if (rows.empty()) throw KernelTunerError(std::string(format) + ": no results to export");
  for (const StoredResult& r : rows) {
    if (r.key != rows.front().key) {
      throw KernelTunerError(std::string(format) + " holds one tuning key; got " +
                             rows.front().key.canonical() + " and " + r.key.canonical());
    }
  }
}

}  // namespace

ordered kt_cache(const std::vector<StoredResult>& latest, const KtExportInfo& info) {
  constexpr const char* kFormat = "a Kernel Tuner cache";
  require_one_key(latest, kFormat);
  const std::vector<Row> rows = rows_of(latest);
  const std::vector<std::string> order = knob_order(rows, info);
  const TuningKey& key = latest.front().key;
  ordered doc;
  // Kernel Tuner's cache schema 1.1.0 requires its version; its reader ignores what it does not
  // know, so the one file serves both.
  doc["schema_version"] = "1.1.0";
  doc["device_name"] = key.device;
  doc["kernel_name"] = key.family;
  doc["problem_size"] = kt::problem_size(key.problem, info.problem_order);
  doc["tune_params_keys"] = order;
  doc["tune_params"] = tune_params_of(rows, order, info);
  doc["objective"] = "time";
  doc["cache"] = ordered::object();
  for (const Row& row : rows) {
    std::string cache_key;
    ordered entry;
    for (const std::string& name : order) {
      const json& value = knob_value(row, name, kFormat);
      if (!cache_key.empty()) cache_key += ',';
      cache_key += kt::python_str(kt::kt_value(value));
      entry[name] = ordered(kt::kt_value(value));
    }
    const Measurement& m = row.result->measurement;
    entry["time"] = m.ok() ? ordered(m.time_ms) : ordered(kt_marker(m.outcome));
    if (m.ok() && !m.times_ms.empty()) entry["times"] = m.times_ms;
    entry["compile_time"] = m.compile_s * 1000.0;  // Kernel Tuner's times are milliseconds
    entry["verification_time"] = 0;
    entry["benchmark_time"] = 0;
    entry["strategy_time"] = 0;
    entry["framework_time"] = 0;
    entry["timestamp"] = iso_time(row.result->timestamp);
    doc["cache"][cache_key] = entry;
  }
  return doc;
}

ordered kt_t4(const std::vector<StoredResult>& latest, const KtExportInfo& info) {
  constexpr const char* kFormat = "a T4 results file";
  require_one_key(latest, kFormat);
  const std::vector<Row> rows = rows_of(latest);
  const std::vector<std::string> order = knob_order(rows, info);
  ordered doc;
  doc["schema_version"] = "1.0.0";
  doc["metadata"] = {{"timeunit", "milliseconds"}};
  doc["results"] = ordered::array();
  for (const Row& row : rows) {
    const Measurement& m = row.result->measurement;
    ordered configuration = ordered::object();
    for (const std::string& name : order) {
      configuration[name] = ordered(kt::kt_value(knob_value(row, name, kFormat)));
    }
    ordered result;
    result["timestamp"] = iso_time(row.result->timestamp);
    result["configuration"] = configuration;
    result["times"] = {{"compilation", m.compile_s * 1000.0},
                       {"runtimes", m.ok() ? ordered(m.times_ms) : ordered::array()}};
    result["invalidity"] = t4_invalidity(m.outcome);
    result["correctness"] = m.ok() ? 1 : 0;
    result["measurements"] =
        ordered::array({{{"name", "time"},
                         {"value", m.ok() ? ordered(m.time_ms) : ordered(kt_marker(m.outcome))},
                         {"unit", m.ok() ? "ms" : ""}}});
    result["objectives"] = ordered::array({"time"});
    doc["results"].push_back(result);
  }
  return doc;
}

}  // namespace cutune
