// One tune of a kernel family's problem: a strategy proposes, the space normalizes, duplicates are
// skipped, the evaluator measures, the store keeps every result as it arrives, and a final
// tournament of the default, the seeds and the top few (cutune/tournament.hpp) chooses the winner,
// which the store records as the key's decision. On a shared store (Store::shared, a PostgreSQL
// server) any number of tunes of one key cooperate: each claims a candidate before measuring it,
// and one tournament decides for all (docs/scale-out.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/family.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/measurement.hpp"
#include "cutune/problem.hpp"
#include "cutune/store.hpp"
#include "cutune/strategy.hpp"
#include "cutune/tournament.hpp"
#include "cutune/transfer.hpp"

namespace cutune {

struct TuneOptions {
  std::string strategy = "default";
  Effort effort = Effort::full;
  std::size_t max_evaluations = 100;  // new configs measured (results found in the store count)
  double max_seconds = 0.0;           // wall-time budget; 0 means none
  // Ends the search early once it has stopped improving: after at least min_evaluations configs,
  // when `patience` rounds in a row did not make the fastest config at least min_gain faster (a
  // round that made it 5 % faster, the first round against the default's time, earns one more:
  // src/tune/plateau.hpp).
  // Where the measure is costly (a Python framework compiles every config) a search that found its
  // answer early should not spend the rest of the budget; 0 turns it off.
  std::size_t patience = 0;
  std::size_t min_evaluations = 0;
  double min_gain = 0.01;
  std::uint64_t seed = 0;
  // The first round samples the neighbourhoods of the default and the seeds instead of the whole
  // space. Where every candidate costs a framework's compile (a Helion or Triton kernel) a random
  // draw is often a config that compiles for many seconds or not at all, and a round waits for its
  // slowest compile; the default's neighbours compile like the default and are a better start.
  bool start_near_seeds = false;
  // A search walker moves to a neighbour only when it is at least this much faster (0.01: 1 %).
  // On a device a difference of a fraction of a percent is noise: a walker that follows it
  // recentres on a config that differs from the last centre in a knob that does nothing, and
  // measures the same neighbourhood again, shifted by that knob, instead of the rest of its own.
  double min_move_gain = 0.0;
  // The last configs of max_evaluations, kept from the search for a climb from its fastest config:
  // its unmeasured one-knob neighbours and paired moves, a round at a time, from whichever config
  // is fastest when the round is asked, each knob's best move (by a model like the search's)
  // before any knob's second, until the neighbourhood is measured or these are spent. A search
  // ended by its patience or budget may stop mid-climb, a knob or two from its basin's best, and
  // two tunes of one key then end that far apart. 0: none (not on a shared store, whose tunes
  // decide together).
  std::size_t final_climb = 0;
  std::size_t batch_size = 0;  // candidates per evaluator call; 0: twice the hardware threads
  std::size_t retime_top = 3;  // the fastest few by search time that enter the tournament
  TournamentOptions tournament;
  // After the tournament, reset the winner's knobs to the default's one at a time while paired
  // rounds show no loss (at most this many tried): the simplest config as fast is deployed.
  bool finishing = true;
  std::size_t finishing_max_resets = 6;
  // No reset starts once the tournament and the pass together have taken this share of the
  // search's wall time (the tune's time before the tournament).
  double finishing_share = 0.10;
  std::vector<Config> warm_start;  // configs to try first (e.g. winners of nearby shapes)
  // Results of the same family elsewhere (cutune/transfer.hpp): the first prior_seeds_first of
  // each source's seed list (drawn from its prior_seeds_per_source fastest configs; prior_seeds in
  // all) are added to the first round, outside the strategy, which never sees them: with priors
  // the search is the cold one plus those seeds. Each source is weighted, for the report, by how
  // it ranks this device's results.
  std::vector<PriorSource> priors;
  std::size_t prior_seeds_per_source = 8;
  std::size_t prior_seeds = 16;
  std::size_t prior_seeds_first = 3;
  std::string tune_id;  // names this run in the store; empty: generated
  // Set (e.g. by a signal handler) to stop: the batch in flight is finished and stored, no more
  // is asked, no tournament runs, and the report holds the search's fastest as `best`, undecided.
  const std::atomic<bool>* stop = nullptr;
};

struct Evaluated {
  Config config;
  Measurement measurement;
  bool from_store = false;  // resumed: measured by an earlier run under the same key
  double at_seconds = 0.0;  // tune wall time when the result arrived
};

// Where a tune is: the search, then the final tournament and its finishing pass, which measure
// no new configs but may take a large share of a short tune (a display keeps its clock running).
enum class TunePhase { search, tournament, finishing };

struct TuneProgress {
  std::size_t evaluated = 0;
  std::size_t budget = 0;
  std::optional<double> best_ms;
  std::size_t failures = 0;
  double seconds = 0.0;
  TunePhase phase = TunePhase::search;
  std::size_t finalists = 0;  // in the tournament and the finishing pass
};

std::string_view to_string(TunePhase phase);

struct TuneReport {
  std::vector<Evaluated> evaluated;   // in arrival order, the default config first
  std::optional<Evaluated> best;      // the tournament's winner, timed over its rounds
  std::optional<Evaluated> baseline;  // the default config's measurement
  std::map<Outcome, std::size_t> outcomes;
  std::size_t dropped_by_normalizer = 0;  // illegal after repair, or a ConfigError
  std::vector<std::string> drop_reasons;  // one line per distinct reason, with counts folded in
  std::size_t duplicates_skipped = 0;
  std::size_t resumed = 0;
  double seconds = 0.0;
  double seconds_to_best = 0.0;                // when the eventual winner was first measured
  std::optional<TournamentResult> tournament;  // none when no config ran correctly
  double tournament_seconds = 0.0;             // part of `seconds`
  bool stopped = false;                        // TuneOptions::stop ended the search
  std::vector<PriorWeight> priors;             // TuneOptions::priors with their final weights

  // On a shared store (docs/scale-out.md): this participant's place in joining the key, the claims
  // it took over from participants that died holding them, and whether the decision (best) is one
  // another participant's tournament made.
  std::size_t participant = 0;
  std::size_t claims_taken_over = 0;
  bool adopted_decision = false;

  // The tournament's median paired ratio default / winner; without a tournament of both (the
  // default failed), the default's search time over the winner's.
  std::optional<double> speedup() const;
};

// The tournament as JSON, as the store's decision keeps it: finalists_json is an array of
// {"config_hash", "config", "role", "outcome", "detail", "time_ms", "ratio", "ratio_low",
// "ratio_high", "rounds", "vs_reference": {"ratio", "low", "high", "rounds"}}; rounds_json is
// {"rounds", "warmup_rounds", "steady_state", "seconds", "sm_clock_mhz": [..], "power_w": [..],
// "reference_ms": [..], "finishing": [..]}, null where unknown.
nlohmann::json finalists_json(const TournamentResult& result);
nlohmann::json rounds_json(const TournamentResult& result);

struct TuneCallbacks {
  std::function<void(const TuneProgress&)> on_progress;
  std::function<void(const Evaluated&)> on_result;
  // On a shared store: what the tune now waits for (candidates or a tournament other live
  // participants hold), each time that changes.
  std::function<void(const std::string&)> on_wait;
};

// A problem the space's family cannot run at all (TuningSpace::problem_errors is not empty): no
// config would help, so the tune refuses it before measuring anything. what() names the problem and
// every reason; errors() holds the reasons one by one.
class UnsupportedProblem : public std::invalid_argument {
 public:
  UnsupportedProblem(const Problem& problem, std::vector<std::string> errors);
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::vector<std::string> errors_;
};

// The one driver of every search (`cutune tune`, the runtime's tunes, bench-strategies): tunes
// `problem` (resolved: Family::resolved) in `family`'s space with `target`, the family's evaluator
// bundle (Family::make_evaluator, or any other for the same problem): its evaluator measures, its
// device is what constraints and seeds see. Every result is kept in `store` (none: nullptr) under
// the family's key, family.key(problem, evaluator's device_name(), toolchain()).
// Throws UnsupportedProblem for a problem the space rejects, std::invalid_argument for a bundle
// without an evaluator, and otherwise only for misuse (a family without a space, an unknown
// strategy name); every candidate failure lands in the report.
// Any thread; `store` and `target` belong to the calling thread for the tune's duration.
TuneReport tune(const Family& family, const Problem& problem, FamilyEvaluator& target, Store* store,
                const TuneOptions& options, const TuneCallbacks& callbacks = {});

}  // namespace cutune
