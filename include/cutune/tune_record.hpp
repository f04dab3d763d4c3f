// One tune as the store kept it, read back after the fact (for `cutune report`): its measurements
// in the order they arrived, its decision, and what a person asks of them — how the best time
// fell, which knobs moved the time, what failed and why. Works for any backend's store, so a GPU
// tune recorded on another machine reads the same as a CPU tune here.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/store.hpp"

namespace cutune::report {

// A config's first measurement in the tune (a re-timing in the tournament is not a new sample).
struct Sample {
  std::size_t evaluation = 0;  // 1-based, in arrival order
  double seconds = 0;          // since the tune's first result arrived
  Measurement measurement;
  std::string config_json;
  double best_ms = 0;  // the best correct time up to and including this sample; NaN before any
};

struct ValueTimes {
  std::string value;          // the knob's value as config_text() writes it
  std::vector<double> times;  // the correct samples' times with that value
  double median_ms = 0;
};

// How much one knob moved the time: its values' median times, and the slowest median over the
// fastest (1: no visible effect).
struct KnobEffect {
  std::string knob;
  std::vector<ValueTimes> values;
  double ratio = 1;
};

// Failed samples sharing an outcome and a first error line.
struct FailureGroup {
  Outcome outcome = Outcome::ok;
  std::string first_line;
  std::size_t count = 0;
  std::string example_config;
  std::string log_path;  // where the example's full log is; empty when none was kept
};

struct TuneRecord {
  TuningKey key;
  std::string tune_id;
  std::vector<StoredResult> rows;    // the tune's rows, in recorded order
  std::size_t other_tunes_rows = 0;  // rows of the same key from other tunes
  std::optional<Decision> decision;  // this tune's decision, when it recorded one
  std::vector<Sample> samples;
  std::vector<KnobEffect> effects;  // largest ratio first; knobs seen with one value are left out
  std::vector<FailureGroup> failures;  // most frequent first, then by outcome name and line
};

// The tune `selector` names in the store: empty for the one that recorded the latest row, else a
// tune id or a prefix (4+ hex digits) of a key's hash (TuningKey::hash(); that key's latest tune).
// Throws std::invalid_argument naming the selector when none or several keys match.
TuneRecord load_tune_record(Store& store, std::string_view selector);

// A config's JSON object as "knob=value, ..." (a string value without its quotes, anything else as
// JSON text), shorter than JSON and as exact. Throws nlohmann::json::parse_error for text that is
// not JSON.
std::string config_text(const std::string& config_json);

// The key as JSON, as every command prints it.
nlohmann::json key_json(const TuningKey& key);

}  // namespace cutune::report
