// Stored results as a flat CSV table (cutune/kernel_tuner.hpp).
#include <cmath>
#include <ctime>
#include <set>

#include "cutune/kernel_tuner.hpp"

namespace cutune {
namespace {

// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "";
  return nlohmann::json(v).dump();
}

std::string iso_utc(double seconds) {
  const auto whole = static_cast<std::time_t>(std::floor(seconds));
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

std::string results_csv(const std::vector<StoredResult>& rows) {
  std::vector<nlohmann::json> configs;
  std::set<std::string> knobs;
  for (const StoredResult& r : rows) {
    configs.push_back(nlohmann::json::parse(r.config_json, nullptr, false));
    if (!configs.back().is_object()) {
      throw KernelTunerError("config " + r.config_hash + " of " + r.key.canonical() +
                             " is not a JSON object");
    }
    for (const auto& [name, value] : configs.back().items()) knobs.insert(name);
  }
  std::string out;
  // Appends one field, a comma before every field but a line's first.
  const auto add = [&out](const std::string& text) {
    if (!out.empty() && out.back() != '\n') out += ',';
    out += field(text);
  };
  for (const char* name :
       {"family", "family_version", "problem", "device", "toolchain", "config_hash"}) {
    add(name);
  }
  for (const std::string& knob : knobs) add(knob);
  for (const char* name : {"outcome", "time_ms", "spread", "range_spread", "min_ms", "max_ms",
                           "repetitions", "compile_s", "tune_id", "timestamp", "detail"}) {
    add(name);
  }
  out += '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StoredResult& r = rows[i];
    const Measurement& m = r.measurement;
    for (const std::string* text : {&r.key.family, &r.key.family_version, &r.key.problem,
                                    &r.key.device, &r.key.toolchain, &r.config_hash}) {
      add(*text);
    }
    for (const std::string& knob : knobs) {
      const auto it = configs[i].find(knob);
      add(it == configs[i].end() ? std::string()
          : it->is_string()      ? it->get<std::string>()
                                 : it->dump());
    }
    add(std::string(to_string(m.outcome)));
    for (const double v : {m.time_ms, m.iqr_spread, m.spread, m.min_ms, m.max_ms}) add(number(v));
    add(std::to_string(m.repetitions));
    add(number(m.compile_s));
    add(r.tune_id);
    add(iso_utc(r.timestamp));
    add(m.detail);
    out += '\n';
  }
  return out;
}

}  // namespace cutune
