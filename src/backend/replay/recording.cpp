#include <fmt/core.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cutune/replay.hpp"
#include "cutune/timing_summary.hpp"

namespace cutune {
namespace {

using Json = nlohmann::ordered_json;

// gzread passes plain files through unchanged, so one reader serves both.
std::string read_maybe_gzipped(const std::filesystem::path& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw RecordingError(fmt::format("{}: cannot open", path.string()));
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(n));
  int error = Z_OK;
  const std::string message = n < 0 ? gzerror(file, &error) : "";
  gzclose(file);
  if (n < 0) throw RecordingError(fmt::format("{}: cannot read: {}", path.string(), message));
  return text;
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& where,
                       const std::string& what) {
  throw RecordingError(fmt::format("{}: {}: {}", path.string(), where, what));
}

const Json& field(const std::filesystem::path& path, const Json& object, const char* name,
                  const std::string& where) {
  if (!object.is_object()) fail(path, where, "expected a JSON object");
  const auto it = object.find(name);
  if (it == object.end()) fail(path, where, fmt::format("missing \"{}\"", name));
  return *it;
}

Value value_of(const std::filesystem::path& path, const Json& j, const std::string& where) {
  try {
    return Value::from_json(j);
  } catch (const std::exception& e) {
    fail(path, where, e.what());
  }
}

Measurement failure(Outcome outcome, std::string detail) {
  Measurement m;
  m.outcome = outcome;
  m.detail = std::move(detail);
  return m;
}

// Kernel Tuner writes a failed configuration's objective as one of these names.
Measurement kernel_tuner_failure(const std::string& marker) {
  if (marker == "CompilationFailedConfig") return failure(Outcome::compile_error, marker);
  if (marker == "RuntimeFailedConfig") return failure(Outcome::launch_error, marker);
  if (marker == "InvalidConfig") return failure(Outcome::invalid_config, marker);
  return failure(Outcome::crash, marker);
}

Measurement t4_failure(const std::string& invalidity, const std::string& marker) {
  if (invalidity == "compile") return failure(Outcome::compile_error, marker);
  if (invalidity == "runtime") return failure(Outcome::launch_error, marker);
  if (invalidity == "correctness") return failure(Outcome::wrong_result, marker);
  if (invalidity == "constraints") return failure(Outcome::invalid_config, marker);
  if (invalidity == "timeout") return failure(Outcome::hang, marker);
  return failure(Outcome::crash, invalidity + ": " + marker);
}

// The sum of the named millisecond fields that are numbers, in seconds; NaN when none is.
double seconds_of(const Json& object, std::initializer_list<const char*> fields) {
  double sum = 0.0;
  bool any = false;
  for (const char* name : fields) {
    const auto it = object.find(name);
    if (it != object.end() && it->is_number()) {
      sum += it->get<double>();
      any = true;
    }
  }
  return any ? sum / 1e3 : NAN;
}

Measurement timed(double time_ms, const Json* repetitions) {
  Measurement m;
  m.time_ms = time_ms;
  if (repetitions != nullptr && repetitions->is_array() && !repetitions->empty()) {
    std::vector<double> times;
    for (const Json& t : *repetitions) {
      if (t.is_number()) times.push_back(t.get<double>());
    }
    if (!times.empty()) {
      // The recorded time stays the time; the spreads are relative to the repetitions' median.
      const TimingSummary summary = summarize_timings(std::move(times));
      m.repetitions = summary.repetitions;
      m.iqr_spread = summary.iqr_spread();
      m.spread = summary.range_spread();
      m.min_ms = summary.min_ms;
      m.max_ms = summary.max_ms;
      m.times_ms = summary.times_ms;
    }
  }
  return m;
}

void check_objective(const std::filesystem::path& path, const std::string& objective,
                     const std::string& where) {
  if (objective != "time") {
    fail(path, where,
         fmt::format("objective \"{}\" is not supported: only \"time\" (lower is better) is",
                     objective));
  }
}

// Reads the entry's knob values in knob order and checks them against the listed values.
std::vector<Value> entry_values(const std::filesystem::path& path, const Json& object,
                                const std::vector<RecordedKnob>& knobs, const std::string& where) {
  std::vector<Value> values;
  values.reserve(knobs.size());
  for (const RecordedKnob& knob : knobs) {
    Value v =
        value_of(path, field(path, object, knob.name.c_str(), where), where + "." + knob.name);
    if (std::find(knob.values.begin(), knob.values.end(), v) == knob.values.end()) {
      fail(path, where,
           fmt::format("{} = {} is not among the listed values of {}", knob.name, v.to_string(),
                       knob.name));
    }
    values.push_back(std::move(v));
  }
  return values;
}

Recording read_kernel_tuner_cache(const std::filesystem::path& path, const Json& doc) {
  Recording r;
  r.source = path;
  r.format = "kernel_tuner_cache";
  r.kernel_name = doc.value("kernel_name", "");
  r.device_name = doc.value("device_name", "");
  check_objective(path, doc.value("objective", "time"), "objective");
  const Json& keys = field(path, doc, "tune_params_keys", "top level");
  const Json& params = field(path, doc, "tune_params", "top level");
  if (!keys.is_array() || keys.empty()) fail(path, "tune_params_keys", "expected a non-empty list");
  for (const Json& key : keys) {
    if (!key.is_string()) fail(path, "tune_params_keys", "expected knob names (strings)");
    RecordedKnob knob{key.get<std::string>(), {}};
    const std::string where = "tune_params." + knob.name;
    const Json& list = field(path, params, knob.name.c_str(), "tune_params");
    if (!list.is_array() || list.empty()) fail(path, where, "expected a non-empty list of values");
    for (const Json& v : list) knob.values.push_back(value_of(path, v, where));
    r.knobs.push_back(std::move(knob));
  }
  const Json& cache = field(path, doc, "cache", "top level");
  if (!cache.is_object()) fail(path, "cache", "expected an object of configurations");
  for (const auto& [key, entry] : cache.items()) {
    const std::string where = "cache[\"" + key + "\"]";
    RecordedEntry e{entry_values(path, entry, r.knobs, where), {}};
    const Json& time = field(path, entry, "time", where);
    if (time.is_number()) {
      const auto repetitions = entry.find("times");
      e.measurement =
          timed(time.get<double>(), repetitions == entry.end() ? nullptr : &*repetitions);
    } else if (time.is_string()) {
      e.measurement = kernel_tuner_failure(time.get<std::string>());
    } else {
      fail(path, where + ".time", "expected milliseconds or a failure name");
    }
    e.compile_s = seconds_of(entry, {"compile_time"});
    e.benchmark_s = seconds_of(entry, {"benchmark_time", "verification_time"});
    r.entries.push_back(std::move(e));
  }
  return r;
}

Recording read_t4(const std::filesystem::path& path, const Json& doc) {
  Recording r;
  r.source = path;
  r.format = "t4";
  const Json& results = field(path, doc, "results", "top level");
  if (!results.is_array() || results.empty()) fail(path, "results", "expected a non-empty list");
  // T4 lists no parameter table: the knobs are the first configuration's keys, in file order, and
  // each knob's values are every value the results hold.
  const Json& first = field(path, results.front(), "configuration", "results[0]");
  if (!first.is_object() || first.empty()) fail(path, "results[0].configuration", "expected knobs");
  std::vector<std::set<Value>> seen(first.size());
  for (const auto& [name, v] : first.items()) r.knobs.push_back({name, {}});
  std::vector<std::pair<const Json*, std::string>> rows;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("results[{}]", i);
    const Json& configuration = field(path, results[i], "configuration", where);
    if (configuration.size() != r.knobs.size()) {
      fail(path, where + ".configuration",
           fmt::format("has {} knobs where results[0] has {}", configuration.size(),
                       r.knobs.size()));
    }
    for (std::size_t k = 0; k < r.knobs.size(); ++k) {
      seen[k].insert(value_of(path, field(path, configuration, r.knobs[k].name.c_str(), where),
                              where + ".configuration." + r.knobs[k].name));
    }
  }
  for (std::size_t k = 0; k < r.knobs.size(); ++k) {
    r.knobs[k].values.assign(seen[k].begin(), seen[k].end());
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("results[{}]", i);
    const Json& result = results[i];
    RecordedEntry e{entry_values(path, result["configuration"], r.knobs, where), {}};
    const Json& objectives = field(path, result, "objectives", where);
    if (!objectives.is_array() || objectives.size() != 1 || !objectives[0].is_string()) {
      fail(path, where + ".objectives", "expected exactly one objective name");
    }
    const std::string objective = objectives[0].get<std::string>();
    check_objective(path, objective, where + ".objectives");
    const Json* value = nullptr;
    for (const Json& m : field(path, result, "measurements", where)) {
      if (m.is_object() && m.value("name", "") == objective)
        value = &field(path, m, "value", where);
    }
    if (value == nullptr) fail(path, where + ".measurements", "no measurement of \"time\"");
    const std::string invalidity = result.value("invalidity", "correct");
    if (invalidity == "correct" && value->is_number()) {
      const Json& times = result.contains("times") ? result["times"] : Json();
      e.measurement =
          timed(value->get<double>(),
                times.is_object() && times.contains("runtimes") ? &times["runtimes"] : nullptr);
    } else {
      e.measurement = t4_failure(invalidity, value->is_string() ? value->get<std::string>() : "");
    }
    if (const Json& times = result.contains("times") ? result["times"] : Json();
        times.is_object()) {
      e.compile_s = seconds_of(times, {"compilation"});
      double runtimes_ms = 0.0;
      if (times.contains("runtimes") && times["runtimes"].is_array()) {
        for (const Json& t : times["runtimes"]) {
          if (t.is_number()) runtimes_ms += t.get<double>();
        }
      }
      const double validation_s = seconds_of(times, {"validation"});
      e.benchmark_s = runtimes_ms / 1e3 + (std::isnan(validation_s) ? 0.0 : validation_s);
    }
    r.entries.push_back(std::move(e));
  }
  return r;
}

}  // namespace

Recording read_recording(const std::filesystem::path& path) {
  const std::string text = read_maybe_gzipped(path);
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw RecordingError(fmt::format("{}: not JSON: {}", path.string(), e.what()));
  }
  if (!doc.is_object()) fail(path, "top level", "expected a JSON object");
  Recording r;
  if (doc.contains("cache")) {
    r = read_kernel_tuner_cache(path, doc);
  } else if (doc.contains("results")) {
    r = read_t4(path, doc);
  } else {
    fail(path, "top level",
         "neither a Kernel Tuner cache (\"cache\") nor T4 results (\"results\")");
  }
  if (r.entries.empty()) fail(path, "top level", "no configurations recorded");
  return r;
}

}  // namespace cutune
