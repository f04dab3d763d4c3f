// The Python package's C++ side (python/cutune), with only standard types at its surface: JSON
// text in and out, so that the nanobind module (bindings/core_module.cpp) can be built from this
// header alone, on a machine that has Python but none of cutune's dependencies (the GPU machine:
// docs/python.md). Built into libcutune_python_core, which links cutune's libraries.
//
// Any thread may call these; one Lookup from one thread at a time (the package holds the GIL).
// Misuse (unknown family, spec file of another backend, bad problem text) throws
// std::invalid_argument; a machine that cannot measure (no worker, no GPU) std::runtime_error.
#pragma once

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
  // Called after every measured config and as the tournament and finishing pass start, with
  // {"evaluated", "budget", "best_ms", "failures", "seconds", "phase", "finalists"}; returning
  // false stops the tune after the batch in flight (as Ctrl-C does the tool's). Empty: none.
  std::function<bool(const std::string&)> on_progress = {};
};

// The store cutune uses when given none: $CUTUNE_DB, else the user's cache folder.
std::string default_store();

// {"report": what `cutune tune --json` prints, "decision": the store's decision for the key (or,
// without a store, the winner), null when no config ran}.
std::string tune_json(const TuneRequest& request);

// The runtime of the package's Runtime class for spec families (CPU specs): the store's winner
// for a problem, compiled and loaded, or the default config when the problem was never tuned.
class Lookup {
 public:
  explicit Lookup(const std::string& db);  // empty: no store
  ~Lookup();
  Lookup(const Lookup&) = delete;
  Lookup& operator=(const Lookup&) = delete;

  // {"family", "problem" (resolved, canonical), "config", "origin" ("store", "default_config"..),
  // "warnings": [..]}. Compiles and loads the kernel the first time.
  std::string get(const std::string& spec_or_family, const std::string& problem);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// {"family", "problem"}: the family's name and the resolved problem's canonical text, the key's
// fields an exported store (`cutune export --json`) is searched by.
std::string key_json(const std::string& spec_or_family, const std::string& problem);

}  // namespace cutune::python
