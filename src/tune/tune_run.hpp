// One run of tune() (cutune/tune.hpp), the driver of every search: the search itself, rounds of
// a strategy's asks and tells from the default config and the seeds on (tune_run.cpp); one
// measurement per config, from this tune's report, the store, a shared store's claims or the
// evaluator, each new one written to the store as it arrives (tune_measure.cpp); and the tune's
// end: the final tournament and finishing pass, or on a shared store the decision another
// participant recorded (tune_decide.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/tune.hpp"
#include "participation.hpp"
#include "result_writer.hpp"

namespace cutune::tuning {

// How often a participant looks again at a candidate another one is measuring.
inline constexpr std::chrono::milliseconds kPoll(10);

class TuneRun {
 public:
  TuneRun(const TuningSpace& space, const Problem& problem, const Device& device,
          Evaluator& evaluator, Store* store, const TuningKey& key, const TuneOptions& options,
          const TuneCallbacks& callbacks);
  TuneReport run();

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool out_of_time() const { return options_.max_seconds > 0 && elapsed() >= options_.max_seconds; }
  bool stop_asked() const { return options_.stop != nullptr && options_.stop->load(); }

  // The search (tune_run.cpp).

  // The first of the fastest correct results so far (null before any), and its search time
  // (infinity before any).
  const Evaluated* fastest() const;
  double fastest_ok() const;
  // Stopped: the search's fastest correct config so far, as the search timed it; no decision.
  void keep_fastest();
  // The default config, or, where neither a seed nor the space's default is legal (a recorded
  // space that lacks each knob's first value), the space's default as one failed evaluation: the
  // tune goes on, and the tournament finds no default to measure against.
  Config baseline_config();
  // Measures configs; the prior is told what this device measured for the first time (a prior's
  // seed the strategy proposes again is answered from the report and judged once).
  std::vector<Measurement> measure_and_observe(const std::vector<Config>& configs);
  // The prior's seeds the first round had no room for, in rounds of their own, within the budget.
  // The strategy never sees them: where it proposes one later, measure() answers from the report,
  // so the search is the cold one plus the seeds.
  void measure_prior_seeds(std::size_t batch);
  // TuneOptions::final_climb: up to `configs` of the fastest config's unmeasured one-knob
  // neighbours, `batch` a round (tune_climb.cpp).
  void final_climb(std::size_t configs, std::size_t batch);
  // The fastest config's legal unmeasured one-knob neighbours and paired moves, at most `count`:
  // each slot's best move by a model fitted on every result before any slot's next.
  std::vector<Config> untried_neighbours(std::size_t count);
  // The prior's seeds as this space normalizes them, each once, at most options_.prior_seeds; one
  // that stays illegal here is skipped.
  std::vector<Config> legal_prior_seeds();
  // Warm-start configs first (normalized; an illegal one is dropped and counted), then the
  // eligible heuristic seeds.
  std::vector<Config> starting_points();
  void drop(const std::string& reason);

  // Measuring (tune_measure.cpp).

  // One measurement per config, in order: earlier results of this tune, then the store, then the
  // evaluator for what is left. Each new result is committed to the store as it arrives. On a
  // shared store each candidate is claimed first; one another participant is measuring is waited
  // for, and one past the budget is left unmeasured (budget_full_).
  std::vector<Measurement> measure(const std::vector<Config>& configs);
  // Whether this tune measures config: stored when the store has it (out and the report get it),
  // else ours; on a shared store, as the claim decides.
  participation::Turn turn(const Config& config, Measurement& out);
  void evaluate_into(const std::vector<Config>& configs, const std::vector<std::size_t>& which,
                     std::vector<Measurement>& out);
  // Candidates a participant died with: measured here, outside the strategy, which never asked.
  void adopt_orphans();
  // Tells the caller what the tune waits for, once each time that changes.
  void say_waiting(std::string what);
  void add(const Config& config, Measurement m, bool from_store);
  void progress(TunePhase phase, std::size_t finalists = 0);
  StoredResult stored(const Config& config, const Measurement& m) const;
  // The row id in the store; 0 without one. Throws StoreError as ResultWriter::write does.
  std::int64_t persist(const Config& config, const Measurement& m);

  // The tune's end (tune_decide.cpp).

  // The end of a shared tune: orphans measured, then the decision another participant's
  // tournament recorded since this one joined is adopted, or this one runs the tournament once
  // nothing else is in flight, on everything the store holds under the key.
  void decide_together();
  void add_others_results();
  void adopt(const Decision& d);
  // The final tournament (cutune/tournament.hpp): the default, every seed that ran correctly in
  // the search and the fastest few by search time, timed together in paired rounds; the winner,
  // every finalist's rounds and the decision go to the store.
  void choose_winner();
  // What one finishing reset should cost before any was timed: compiling a config (the median
  // compile time of the search's fresh measurements; a GEMM config's compile dwarfs its rounds)
  // plus rounds of three configs at the tournament's pace.
  double reset_estimate(const TournamentResult& result) const;
  void record_decision(const TournamentResult& result, const std::vector<std::int64_t>& rows);

  const TuningSpace& space_;
  const Problem& problem_;
  const Device& device_;
  Evaluator& evaluator_;
  Store* store_;
  ResultWriter writer_;  // every fresh result goes through it, none lost
  const TuningKey& key_;
  const TuneOptions& options_;
  const TuneCallbacks& callbacks_;
  const std::string tune_id_;
  const std::chrono::steady_clock::time_point start_;
  TuneReport report_;
  std::unordered_map<std::uint64_t, std::size_t> index_by_hash_;
  std::optional<double> best_ms_;
  std::vector<Config> seeds_;  // the eligible heuristic seeds, pinned in the tournament
  std::optional<participation::Participant> participant_;  // on a shared store only
  bool budget_full_ = false;  // a shared store refused a claim: the key's budget is spent
  std::string last_wait_;     // what say_waiting() said last
  std::optional<std::string> illegal_default_;  // why the default could not be built legally
  std::shared_ptr<TransferPrior> prior_;        // TuneOptions::priors, weighed as results arrive
  std::vector<Config> prior_seeds_;             // the prior's seeds not measured yet
};

}  // namespace cutune::tuning
