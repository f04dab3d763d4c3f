// The results store: one SQLite file (or one PostgreSQL database, see Store::open) that keeps every
// measured candidate as it arrives, so that a tune killed at any moment resumes without
// re-measuring, several tunes can share one file, and a program can later read the best
// configuration per key.
//
// Each record() is its own committed transaction (WAL journal, busy timeout, retry on contention),
// so a SIGKILL loses at most the measurement being written. A Store object is not thread-safe:
// use one per thread or process; any number of them may open the same file at once.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/measurement.hpp"

namespace cutune {

// What a measurement is valid for: results are only comparable under one key.
struct TuningKey {
  std::string family;          // kernel family name, e.g. "gemm"
  std::string family_version;  // hash of the family's source: a changed kernel is a new key
  std::string problem;         // canonical problem text, e.g. "m=2048,n=4096,k=4096,dtype=bf16"
  std::string device;          // device name and compute capability, e.g. "NVIDIA H200 sm_90"
  std::string toolchain;       // compiler, toolkit and driver versions

  // Unambiguous text of all five fields (a JSON array); equal keys give equal text.
  std::string canonical() const;
  // 32 hex digits of the XXH3-128 of canonical(): stable across runs and builds. Not stored: the
  // store keys rows by the five fields themselves.
  std::string hash() const;

  auto operator<=>(const TuningKey&) const = default;
};

struct StoredResult {
  TuningKey key;
  std::string config_hash;  // identifies the config within the key (computed by the space)
  std::string config_json;  // the complete config as a JSON object, knob name -> value
  Measurement measurement;
  std::string tune_id;     // which tune run measured it
  double timestamp = 0.0;  // seconds since the Unix epoch
};

// The timestamp of a row recorded now: seconds since the Unix epoch, to the microsecond, so that
// rows recorded within one second still order (`report --last` picks the newest). Throws nothing.
double unix_seconds_now();

// What one tune decided for its key (cutune/tournament.hpp): the config it deploys, measured in
// the same paired rounds as the default and the other finalists. The latest decision of a key is
// what best_per_key(), deployed() and everything built on them hand out.
struct Decision {
  TuningKey key;
  std::string tune_id;
  std::string winner_hash;
  std::string winner_json;
  std::int64_t winner_measurement = 0;  // the row (record()'s id) of the winner's rounds
  std::string default_hash;
  std::string seed_hash;     // the heuristic seed the default came from; empty when none
  double speedup = NAN;      // median paired ratio default / winner
  double speedup_low = NAN;  // its order-statistic confidence interval
  double speedup_high = NAN;
  int rounds = 0;
  // Per finalist: {"config_hash", "config", "role", "outcome", "time_ms", "ratio", "ratio_low",
  // "ratio_high"}, a JSON array.
  std::string finalists_json = "[]";
  // The rounds' device state: {"warmup_rounds", "steady_state", "sm_clock_mhz": [..], "power_w":
  // [..]} (null where the backend has none), a JSON object.
  std::string rounds_json = "{}";
  double timestamp = 0.0;
};

// Restricts keys() and best_per_key(); an empty field matches anything.
struct KeyFilter {
  std::string family = {};
  std::string device = {};
};

// Every failure to open, read or write a store: names the file and what is wrong with it.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What Store::claim found (docs/scale-out.md): the candidate is now this participant's to
// measure (granted, or taken_over from a participant that died holding it), was measured already,
// is being measured by another participant that is alive (held), or would take the key past the
// tune's budget of distinct configs (budget_full).
enum class ClaimResult { granted, taken_over, measured, held, budget_full };

// A live participant's claim: who holds it (the owner string it joined with) and on what (a
// config hash, or "tournament").
struct Claim {
  std::string owner;
  std::string config_hash;
};

enum class OpenMode {
  read_write,  // creates the file (and its folder) when missing
  read_only,   // never writes; works on a read-only file in a read-only folder
};

class Store {
 public:
  // Throws StoreError when the file is missing (read_only), is not SQLite, is corrupt, holds
  // another program's tables, or was written by a newer schema. A store written by an older
  // cutune (without a column or table added since) gains them when opened read_write, and is
  // read as it is, with what it lacks as unknown (NaN, -1, ""), when opened read_only. A path that
  // starts with "postgresql://" or "postgres://" is a libpq connection URL instead: the same tables
  // on a PostgreSQL server (created in an empty database), which tunes on many machines share; the
  // same StoreErrors, and one when the server cannot be reached.
  static Store open(const std::filesystem::path& path, OpenMode mode = OpenMode::read_write);
  // A private store in memory that goes with this object: for drivers that replay recorded spaces
  // through the real tune loop without a file. Throws StoreError when SQLite cannot create it.
  static Store in_memory();

  // $CUTUNE_DB if set; else $XDG_CACHE_HOME/cutune/results.db if XDG_CACHE_HOME is an absolute
  // path; else ~/.cache/cutune/results.db.
  static std::filesystem::path default_path();

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::filesystem::path& path() const;

  // Appends one measurement and commits it; returns its row id (for Decision). config_json must
  // be a JSON object.
  std::int64_t record(const StoredResult& result);

  // Appends one decision and commits it. Throws StoreError when winner_measurement is not a row
  // of this key holding winner_hash, or a JSON field is not JSON.
  void record_decision(const Decision& decision);

  // The latest decision recorded under the key; none for a key tuned before decisions were kept
  // (or never tuned).
  std::optional<Decision> decision(const TuningKey& key);

  // What the key deploys: the latest decision's winner (the measurement it was decided on); for a
  // key without a decision, the fastest config as best(key, 1) judges it.
  std::optional<StoredResult> deployed(const TuningKey& key);

  // The latest measurement of this config under this key, for resuming: of any outcome but
  // `transient` (no verdict on the config, so a resumed tune measures it again).
  std::optional<Measurement> find(const TuningKey& key, std::string_view config_hash);

  // Every measurement under the key, in the order they were recorded.
  std::vector<StoredResult> results(const TuningKey& key);

  // The latest verdict on each config under the key, by the rule best() judges by: its newest
  // measurement that is not `transient` (a config measured only with transient failures has
  // none). In the order the configs were first measured.
  std::vector<StoredResult> latest_results(const TuningKey& key);

  // How many measurements the key holds (all outcomes, repeats included).
  std::int64_t measurement_count(const TuningKey& key);

  // The n fastest configs under the key. A config measured more than once is judged by its latest
  // measurement (a final re-benchmark supersedes the search's timing; a config whose latest
  // measurement failed is left out).
  std::vector<StoredResult> best(const TuningKey& key, int n);

  // Keys that hold at least one measurement, sorted.
  std::vector<TuningKey> keys(const KeyFilter& filter = {});

  // What every key that has one deploys, as deployed(key), sorted by key.
  std::vector<StoredResult> best_per_key(const KeyFilter& filter = {});

  // Cooperation of several tunes ("participants") on one key, which only a PostgreSQL store
  // offers (docs/scale-out.md); the calls below throw StoreError on an SQLite store.
  bool shared() const;
  // Registers owner as a participant of the key: how many joined before it (0 for the first).
  // From then on, until leave(owner) or the end of this store's connection, owner is alive: the
  // server holds a lock in its name that it releases when the connection ends, however the
  // process ends. StoreError when another connection holds owner's lock.
  std::size_t join(const TuningKey& key, std::string_view owner);
  // Gives owner's life back early: its claims become orphans() at once.
  void leave(std::string_view owner);
  // Takes config_hash for owner (alive from then on, as join makes it), in one transaction that
  // also looks at what the key holds: budget caps distinct measured configs plus claims, those of
  // dead owners included (0: no cap). record() of the config ends its claim. config_json (empty
  // for a claim that is not a config, such as the tournament's) is what orphans() hands to other
  // participants. A claim lasts while its owner lives, however long the measurement takes.
  ClaimResult claim(const TuningKey& key, std::string_view config_hash,
                    std::string_view config_json, std::string_view owner, std::size_t budget);
  // The configs (config_json) of claims whose owner died before measuring them, oldest first.
  std::vector<std::string> orphans(const TuningKey& key);
  // Ends owner's claim without a measurement (a candidate given up, the tournament done).
  void release(const TuningKey& key, std::string_view config_hash, std::string_view owner);
  // Claims on the key held by live owners other than owner (candidates still being measured, a
  // tournament being run), by owner.
  std::vector<Claim> claims_of_others(const TuningKey& key, std::string_view owner);
  // Measurements under the key that other tunes wrote after its latest decision (0 without one):
  // none, and the decision saw everything the key holds.
  std::size_t measured_since_decision(const TuningKey& key);

  // The database behind the store, SQLite or PostgreSQL (src/store/store_impl.hpp).
  struct Impl;

 private:
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A JSON document of results (normally best_per_key()), for other tools:
// {"format": "cutune-best", "version": 2, "results": [{"family", "family_version", "problem",
//  "device", "toolchain", "config", "config_hash", "time_ms", "spread", "range_spread", "min_ms",
//  "max_ms", "repetitions", "tune_id", "timestamp"}, ...]}
// time_ms is the median; spread is (p75 - p25) / median, what every cutune output calls spread,
// and range_spread (max - min) / median (version 1 named these iqr_spread and spread); the ones a
// row does not know (written before they were kept) are null.
std::string export_json(const std::vector<StoredResult>& results);

// A self-contained C++17 header: per family, a struct of its knobs with their C++ types, a
// constexpr table of (problem, device) -> config sorted fastest first, and a constexpr
// find_<family>(problem, device). Knobs whose values are not uniformly bool, integer, number,
// string or fixed-length integer list are given as their JSON text; strings are
// std::string_view and keep every byte. Throws std::invalid_argument when cpp_namespace is not a
// C++ namespace name ("a" or "a::b"), a knob name is not a usable C++ identifier, or a config is
// not a JSON object; family names, problems, devices and versions are escaped, never refused.
std::string export_cpp_header(const std::vector<StoredResult>& results,
                              std::string_view cpp_namespace);

}  // namespace cutune
