// Recorded search spaces: every configuration of a kernel measured elsewhere (brute force, on some
// GPU), replayed as a cutune space and an evaluator that answers from the recording. This lets
// strategies be compared on real performance landscapes in milliseconds, with no GPU.
//
// Formats read (gzipped or plain; detected from the content, not the name):
//   Kernel Tuner cache  {"tune_params_keys", "tune_params", "objective": "time", "cache":
//   {"v1,v2,..":
//                        {knob: value, ..., "time": ms | "CompilationFailedConfig" | ...}}}
//   T4 results          {"schema_version", "results": [{"configuration": {...}, "invalidity",
//                        "objectives": ["time"], "measurements": [{"name": "time", "value"}]}]}
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/evaluator.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/measurement.hpp"
#include "cutune/value.hpp"

namespace cutune {

// A file that cannot be read as a recording; the message names the file and the place in it.
class RecordingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RecordedKnob {
  std::string name;
  std::vector<Value> values;  // as the file lists them (T4: every value seen, sorted)
};

struct RecordedEntry {
  std::vector<Value> values;  // one per knob, in knob order
  Measurement measurement;    // ok with the recorded time exactly, or the recorded failure
  // What the original tuner spent on this config, in seconds; NaN where the file does not say.
  // Kernel Tuner cache: compile_time, and benchmark_time + verification_time. T4: compilation,
  // and validation + the sum of the timed runtimes (T4 records no benchmark time).
  double compile_s = NAN;
  double benchmark_s = NAN;
};

// The file's contents, independent of any Space.
struct Recording {
  std::filesystem::path source;
  std::string format;  // "kernel_tuner_cache" or "t4"
  std::string kernel_name;
  std::string device_name;
  std::vector<RecordedKnob> knobs;
  std::vector<RecordedEntry> entries;  // one per distinct configuration, in file order
};

// Throws RecordingError (file and place named) on unreadable, malformed or unsupported input.
Recording read_recording(const std::filesystem::path& path);

// Equal for two recordings of the same measurements (one space in two formats, or one file found
// twice): a content hash, 32 hex digits, of every entry's values and result, in any entry order.
// Throws only std::bad_alloc.
std::string measurements_fingerprint(const Recording& recording);

// A recording as a tuning space: one enum fragment per knob (every recorded value searchable) and
// one constraint, "recorded", that holds only for configurations present in the recording. The
// recording never names the kernel's restrictions, only their effect (the configurations it lacks),
// and a missing configuration cannot be repaired into a measured one without inventing a choice,
// so the constraint has no repair: normalization drops such candidates before they cost an
// evaluation, as the original tuner never ran them either. ReplayEvaluator still answers
// invalid_config for any that reach it.
class RecordedSpace {
 public:
  explicit RecordedSpace(Recording recording);
  RecordedSpace(const RecordedSpace&) = delete;
  RecordedSpace& operator=(const RecordedSpace&) = delete;

  const Recording& recording() const { return recording_; }
  const TuningSpace& tuning_space() const { return tuning_space_; }
  const Space& space() const { return tuning_space_.space; }
  std::string name() const;  // "kernel@device"

  // The recorded entry of a config of this space, if the recording has it.
  const RecordedEntry* find(const Config& config) const;
  Config config_of(const RecordedEntry& entry) const;

  std::size_t ok_count() const;
  // The fastest recorded time; throws std::logic_error if no configuration succeeded.
  double optimum_ms() const;

 private:
  Recording recording_;
  TuningSpace tuning_space_;
  std::unordered_multimap<std::uint64_t, std::size_t> index_;  // config hash -> entry
};

// read_recording + RecordedSpace (which cannot move: its configs point at its space).
std::shared_ptr<const RecordedSpace> load_recorded_space(const std::filesystem::path& path);

// Answers each config with its recorded measurement; a config absent from the recording is
// invalid_config. Thread-safe: evaluate() only reads.
class ReplayEvaluator : public Evaluator {
 public:
  explicit ReplayEvaluator(std::shared_ptr<const RecordedSpace> space);
  std::vector<Measurement> evaluate(std::span<const Config> batch) override;
  std::string device_name() const override;
  std::string toolchain() const override;

 private:
  std::shared_ptr<const RecordedSpace> space_;
};

}  // namespace cutune
