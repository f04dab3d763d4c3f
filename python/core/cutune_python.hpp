// The Python package's C++ side (python/cutune), with only standard types at its surface: JSON
// text in and out, so that the nanobind module (bindings/core_module.cpp) can be built from this
// header alone, on a machine that has Python but none of cutune's dependencies (the GPU machine:
// docs/python.md). Built into libcutune_python_core, which links cutune's libraries.
//
// Any thread may call these; one Lookup from one thread at a time (the package holds the GIL).
// Misuse (unknown family, spec file of another backend, bad problem text) throws
// std::invalid_argument; a machine that cannot measure (no worker, no GPU) std::runtime_error.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace cutune::python {

// The diversity report of `spec_or_family` (a spec file's path or a built-in family's name) for
// `problem` ("m=512,n=512"; empty: the family's example; a built-in family's example arguments
// are overridden one by one), as `cutune space --json` prints it.
std::string space_json(const std::string& spec_or_family, const std::string& problem,
                       std::size_t draws, std::uint64_t seed);

struct TuneRequest {
  std::string spec_or_family;
  std::string problem;  // as space_json's
  std::string strategy = "default";
  std::string effort = "full";  // or "quick"
  std::size_t budget = 60;      // configs measured
  double seconds = 0;           // wall-time budget; 0: none
  std::uint64_t seed = 0;
  std::string db;     // store path; empty: the default store (CUTUNE_DB, else the user's cache)
  bool store = true;  // false: keep no results
  bool warm_start = true;
  std::size_t batch = 0;  // candidates per evaluation round; 0: the tune's default
  // Set from another thread (the package's on SIGINT) to stop after the batch in flight.
  const std::atomic<bool>* stop = nullptr;
  // Called after every measured config and as the tournament and finishing pass start, with
  // {"evaluated", "budget", "best_ms", "failures", "seconds", "phase", "finalists"}; returning
  // false stops the tune after the batch in flight (as Ctrl-C does the tool's). Empty: none.
  std::function<bool(const std::string&)> on_progress = {};
  // TuneOptions::patience and min_evaluations: end the search once it stops improving; 0: never.
  std::size_t patience = 0;
  std::size_t min_evaluations = 0;
  std::size_t final_climb = 0;    // TuneOptions::final_climb
  bool start_near_seeds = false;  // TuneOptions::start_near_seeds
  double min_move_gain = 0.0;     // TuneOptions::min_move_gain
  // The family's results on other devices and shapes in the store as transfer priors, as
  // `cutune tune` looks for them (TuneSessionOptions::transfer); false: `--no-transfer`.
  bool transfer = true;
};

// The store cutune uses when given none: $CUTUNE_DB, else the user's cache folder.
std::string default_store();

// The names of a measurement's outcomes, "ok" first (cutune/measurement.hpp's one table), as a
// JSON array: what a host kernel's measure may answer.
std::string outcome_names_json();

// {"report": what `cutune tune --json` prints, "decision": the store's decision for the key (or,
// without a store, the winner), null when no config ran}.
std::string tune_json(const TuneRequest& request);

// The runtime of the package's Runtime class for spec families (CPU specs): the store's winner
// for a problem, compiled and loaded; for an untuned problem the runtime's one rule (the nearest
// tuned shape's winner, repaired, when near enough, else the default config).
class Lookup {
 public:
  // `db`: a store, or a `.json` file `cutune export --json` wrote; empty: neither.
  explicit Lookup(const std::string& db);
  ~Lookup();
  Lookup(const Lookup&) = delete;
  Lookup& operator=(const Lookup&) = delete;

  // {"family", "problem" (resolved, canonical), "config", "origin" ("store", "nearest",
  // "default_config"..), "warnings": [..]}. Compiles and loads the kernel the first time.
  std::string get(const std::string& spec_or_family, const std::string& problem);

  // One host array as the binding hands it over: its memory, its length in elements and its
  // element type as a spec names types ("f32", "f64", "i32", ...).
  struct Array {
    void* data;
    std::size_t elements;
    std::string type;
  };
  // Runs the kernel get() deploys for the problem on `arrays`, in the order of the spec's buffers,
  // with the problem's scalars. Throws std::invalid_argument naming the buffer whose type or length
  // does not fit (or the count of arrays), before anything runs.
  void run(const std::string& spec_or_family, const std::string& problem,
           const std::vector<Array>& arrays);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Kernels the package's frameworks compile and time (cutune.helion, cutune.triton): a spec of
// backend "host" (docs/spec-format.md) whose candidates Python measures.
struct HostKernel {
  std::string spec;     // the spec's JSON text
  std::string origin;   // where the spec's relative paths (its source) are anchored
  std::string problem;  // "n=4096,dtype=bf16": the arguments' shapes and dtypes
  std::string
      device;  // {"name", "cc_major", "cc_minor", "sm_count", "smem_per_block", "regs_per_sm"}
  std::string toolchain;  // the frameworks' versions: part of the store key
};
// A batch of configs (a JSON array of objects) to a JSON array of measurements, one per config:
// {"outcome": "ok" | "compile_error" | ..., "time_ms", "detail", "compile_s", "repetitions"}.
using MeasureText = std::function<std::string(const std::string&)>;
// A config (a JSON object) to the config the framework runs for it, or "null" when it rejects it.
// Empty: no normalization beyond the spec's constraints.
using NormalizeText = std::function<std::string(const std::string&)>;

// tune_json for a host kernel (request.spec_or_family is not used).
std::string host_tune_json(const HostKernel& kernel, const TuneRequest& request,
                           MeasureText measure, NormalizeText normalize);
// {"key": the store key's fields, "decision": the store's decision (as tune_json's) or null}: what
// a process that finds the kernel tuned deploys without measuring anything.
std::string host_decision_json(const HostKernel& kernel, const std::string& db);

}  // namespace cutune::python
