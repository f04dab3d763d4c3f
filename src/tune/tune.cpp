#include "cutune/tune.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <random>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "finishing.hpp"
#include "participation.hpp"
#include "plateau.hpp"
#include "result_writer.hpp"

namespace cutune {

std::optional<double> TuneReport::speedup() const {
  if (tournament && tournament->finalists.front().role == FinalistRole::default_config &&
      tournament->finalists.front().measurement.ok() && tournament->winning().measurement.ok()) {
    return tournament->speedup().median;
  }
  if (!best || !baseline || !baseline->measurement.ok()) return std::nullopt;
  return baseline->measurement.time_ms / best->measurement.time_ms;
}

namespace {

std::string unsupported_message(const Problem& problem, const std::vector<std::string>& errors) {
  std::string text = "the space cannot run problem " + problem.canonical() + ":";
  for (const std::string& error : errors) text += "\n  " + error;
  return text;
}

}  // namespace

UnsupportedProblem::UnsupportedProblem(const Problem& problem, std::vector<std::string> errors)
    : std::invalid_argument(unsupported_message(problem, errors)), errors_(std::move(errors)) {}

namespace {

// A strategy that keeps proposing only configs already measured is stuck; stop after this many
// rounds without a new measurement rather than spin.
constexpr int kMaxRoundsWithoutNews = 32;

// How often a participant looks again at a candidate another one is measuring.
constexpr std::chrono::milliseconds kPoll(10);

// Names one participant in claims: its tune id (random unless given) and where it runs.
std::string owner_name(const std::string& tune_id) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return fmt::format("{}@{}:{}", tune_id, host, static_cast<long>(getpid()));
}

std::string make_tune_id(std::uint64_t seed) {
  std::random_device entropy;
  return fmt::format("{:x}-{:x}-{:08x}", static_cast<long long>(std::time(nullptr)), seed,
                     entropy());
}

class TuneRun {
 public:
  TuneRun(const TuningSpace& space, const Problem& problem, const Device& device,
          Evaluator& evaluator, Store* store, const TuningKey& key, const TuneOptions& options,
          const TuneCallbacks& callbacks)
      : space_(space),
        problem_(problem),
        device_(device),
        evaluator_(evaluator),
        store_(store),
        writer_(store),
        key_(key),
        options_(options),
        callbacks_(callbacks),
        tune_id_(options.tune_id.empty() ? make_tune_id(options.seed) : options.tune_id),
        start_(std::chrono::steady_clock::now()) {}

  TuneReport run() {
    if (store_ != nullptr && store_->shared()) {
      participant_.emplace(*store_, key_, owner_name(tune_id_), options_.max_evaluations);
      report_.participant = participant_->index();
    }
    auto strategy = make_strategy(options_.strategy, options_.effort);
    const Config baseline = baseline_config();
    const std::uint64_t seed = participant_ ? participant_->seed(options_.seed) : options_.seed;
    SearchContext context{&space_,
                          problem_,
                          device_,
                          starting_points(),
                          seed,
                          options_.max_evaluations,
                          options_.start_near_seeds,
                          options_.min_move_gain};
    if (!options_.priors.empty()) {
      prior_ = std::make_shared<TransferPrior>(options_.priors, seed);
      prior_seeds_ = legal_prior_seeds();
    }
    strategy->start(context);

    const std::size_t batch =
        options_.batch_size != 0
            ? options_.batch_size
            : std::max<std::size_t>(2, 2 * std::thread::hardware_concurrency());
    // The default config is measured with the strategy's first batch: one compile latency for
    // both, not one each. The prior's seeds take the round's free slots, ahead of the strategy's
    // draws; those that do not fit are measured in rounds of their own right after it.
    std::vector<Config> first{baseline};
    std::vector<Config> asked;
    const std::size_t room = std::min(batch, options_.max_evaluations);
    if (room > 1) asked = strategy->ask(room - 1);
    const std::size_t used = first.size() + asked.size();
    const std::size_t seeds_now = std::min(room > used ? room - used : 0, prior_seeds_.size());
    first.insert(first.end(), prior_seeds_.begin(), prior_seeds_.begin() + seeds_now);
    prior_seeds_.erase(prior_seeds_.begin(), prior_seeds_.begin() + seeds_now);
    first.insert(first.end(), asked.begin(), asked.end());
    const std::vector<Measurement> first_results = measure_and_observe(first);
    // Unmeasured only when a stop came while another participant was measuring it.
    if (const auto it = index_by_hash_.find(baseline.hash()); it != index_by_hash_.end()) {
      report_.baseline = report_.evaluated[it->second];
    }
    if (!asked.empty() && !budget_full_) {
      strategy->tell(asked, std::span(first_results).last(asked.size()));
    }
    measure_prior_seeds(batch);
    int rounds_without_news = 0;
    Plateau plateau(options_, fastest_ok());
    while (report_.evaluated.size() < options_.max_evaluations && !out_of_time() &&
           rounds_without_news < kMaxRoundsWithoutNews && !budget_full_ && !stop_asked() &&
           !plateau.reached(report_.evaluated.size())) {
      adopt_orphans();
      const std::size_t want = std::min(batch, options_.max_evaluations - report_.evaluated.size());
      std::vector<Config> asked = strategy->ask(want);
      if (asked.empty()) break;
      const std::size_t before = report_.evaluated.size();
      const std::vector<Measurement> results = measure_and_observe(asked);
      if (budget_full_) break;  // the rest were never measured; no ask() follows to need them
      strategy->tell(asked, results);
      rounds_without_news = report_.evaluated.size() == before ? rounds_without_news + 1 : 0;
      plateau.round_ended(fastest_ok());
    }
    if (!stop_asked()) {
      if (participant_) {
        decide_together();
      } else {
        choose_winner();
      }
    }
    // Stopped while searching, or while waiting on the other participants.
    if (stop_asked() && !report_.best) {
      report_.stopped = true;
      keep_fastest();
    }
    if (participant_) report_.claims_taken_over = participant_->takeovers();
    if (prior_) report_.priors = prior_->weights();
    report_.seconds = elapsed();
    return std::move(report_);
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool out_of_time() const { return options_.max_seconds > 0 && elapsed() >= options_.max_seconds; }

  // The fastest correct search time so far (infinity before any).
  double fastest_ok() const {
    double fastest = std::numeric_limits<double>::infinity();
    for (const Evaluated& e : report_.evaluated) {
      if (e.measurement.ok()) fastest = std::min(fastest, e.measurement.time_ms);
    }
    return fastest;
  }
  bool stop_asked() const { return options_.stop != nullptr && options_.stop->load(); }

  // Stopped: the search's fastest correct config so far, as the search timed it; no decision.
  void keep_fastest() {
    for (const Evaluated& e : report_.evaluated) {
      if (e.measurement.ok() &&
          (!report_.best || e.measurement.time_ms < report_.best->measurement.time_ms)) {
        report_.best = e;
      }
    }
    if (report_.best) report_.seconds_to_best = report_.best->at_seconds;
  }

  // The default config, or, where neither a seed nor the space's default is legal (a recorded
  // space that lacks each knob's first value), the space's default as one failed evaluation: the
  // tune goes on, and the tournament finds no default to measure against.
  Config baseline_config() {
    try {
      return default_config(space_, problem_, device_);
    } catch (const ConfigError& error) {
      illegal_default_ = error.what();
      return space_.space.default_config();
    }
  }

  // Measures configs; the prior is told what this device measured for the first time (a prior's
  // seed the strategy proposes again is answered from the report and judged once).
  std::vector<Measurement> measure_and_observe(const std::vector<Config>& configs) {
    const std::size_t before = report_.evaluated.size();
    std::vector<Measurement> results = measure(configs);
    if (prior_ && report_.evaluated.size() > before) {
      std::vector<Config> fresh;
      std::vector<Measurement> fresh_results;
      for (std::size_t i = before; i < report_.evaluated.size(); ++i) {
        fresh.push_back(report_.evaluated[i].config);
        fresh_results.push_back(report_.evaluated[i].measurement);
      }
      prior_->observe(fresh, fresh_results);
    }
    return results;
  }

  // The prior's seeds the first round had no room for, in rounds of their own, within the budget.
  // The strategy never sees them: where it proposes one later, measure() answers from the report,
  // so the search is the cold one plus the seeds.
  void measure_prior_seeds(std::size_t batch) {
    while (!prior_seeds_.empty() && report_.evaluated.size() < options_.max_evaluations &&
           !budget_full_ && !stop_asked() && !out_of_time()) {
      const std::size_t count = std::min(
          {batch, prior_seeds_.size(), options_.max_evaluations - report_.evaluated.size()});
      const std::vector<Config> round(prior_seeds_.begin(), prior_seeds_.begin() + count);
      prior_seeds_.erase(prior_seeds_.begin(), prior_seeds_.begin() + count);
      measure_and_observe(round);
    }
    prior_seeds_.clear();
  }

  // The prior's seeds as this space normalizes them, each once, at most options_.prior_seeds; one
  // that stays illegal here is skipped.
  std::vector<Config> legal_prior_seeds() {
    std::vector<Config> out;
    std::unordered_set<std::uint64_t> taken;
    for (const Config& seed :
         prior_->seeds(options_.prior_seeds_first, options_.prior_seeds_per_source)) {
      if (out.size() == options_.prior_seeds) break;
      try {
        Normalized n = space_.space.normalize(seed, problem_, device_);
        if (n.config && taken.insert(n.config->hash()).second) out.push_back(std::move(*n.config));
      } catch (const ConfigError&) {
        continue;  // a prior's config this space cannot hold is no seed, and no failure here
      }
    }
    return out;
  }

  // Warm-start configs first (normalized; an illegal one is dropped and counted), then the
  // eligible heuristic seeds.
  std::vector<Config> starting_points() {
    std::vector<Config> points;
    for (const Config& warm : options_.warm_start) {
      Normalized n = space_.space.normalize(warm, problem_, device_);
      if (n.config) {
        points.push_back(std::move(*n.config));
      } else {
        drop(fmt::format("warm start {} violates {}", warm.to_string(), n.failure));
      }
    }
    std::vector<std::string> errors;
    seeds_ = seed_configs(space_, problem_, device_, &errors);
    points.insert(points.end(), seeds_.begin(), seeds_.end());
    for (const std::string& error : errors) drop(error);
    return points;
  }

  void drop(const std::string& reason) {
    ++report_.dropped_by_normalizer;
    report_.drop_reasons.push_back(reason);
  }

  // One measurement per config, in order: earlier results of this tune, then the store, then the
  // evaluator for what is left. Each new result is committed to the store as it arrives. On a
  // shared store each candidate is claimed first; one another participant is measuring is waited
  // for, and one past the budget is left unmeasured (budget_full_).
  std::vector<Measurement> measure(const std::vector<Config>& configs) {
    std::vector<Measurement> out(configs.size());
    std::vector<std::size_t> fresh;
    std::vector<std::size_t> waiting;
    std::unordered_map<std::uint64_t, std::size_t> fresh_by_hash;
    std::vector<std::pair<std::size_t, std::size_t>> same_as_fresh;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const std::uint64_t hash = configs[i].hash();
      if (auto it = index_by_hash_.find(hash); it != index_by_hash_.end()) {
        out[i] = report_.evaluated[it->second].measurement;
        ++report_.duplicates_skipped;
        continue;
      }
      if (auto it = fresh_by_hash.find(hash); it != fresh_by_hash.end()) {
        same_as_fresh.emplace_back(i, it->second);
        ++report_.duplicates_skipped;
        continue;
      }
      fresh_by_hash.emplace(hash, i);
      if (illegal_default_ && i == 0 && report_.evaluated.empty()) {
        out[i] = Measurement{.outcome = Outcome::invalid_config, .detail = *illegal_default_};
        add(configs[i], out[i], /*from_store=*/false);
        continue;
      }
      switch (turn(configs[i], out[i])) {
        case participation::Turn::ours:
          fresh.push_back(i);
          break;
        case participation::Turn::wait:
          waiting.push_back(i);
          break;
        case participation::Turn::stored:
        case participation::Turn::full:
          break;
      }
    }
    evaluate_into(configs, fresh, out);
    // Waits for a fact: the holder writes the result or dies (its claim then comes back as ours).
    // A stop leaves the rest unmeasured; the search ends after this batch.
    while (!waiting.empty() && !stop_asked()) {
      say_waiting(fmt::format("waiting for {} {} other participants are measuring: {}",
                              waiting.size(), waiting.size() == 1 ? "candidate" : "candidates",
                              participant_->others_in_flight()));
      std::this_thread::sleep_for(kPoll);
      std::vector<std::size_t> ours;
      std::erase_if(waiting, [&](std::size_t i) {
        const participation::Turn t = turn(configs[i], out[i]);
        if (t == participation::Turn::ours) ours.push_back(i);
        return t != participation::Turn::wait;
      });
      evaluate_into(configs, ours, out);
    }
    for (auto [dup, original] : same_as_fresh) out[dup] = out[original];
    return out;
  }

  // Whether this tune measures config: stored when the store has it (out and the report get it),
  // else ours; on a shared store, as the claim decides.
  participation::Turn turn(const Config& config, Measurement& out) {
    using participation::Turn;
    const Turn t = participant_ ? participant_->take(config) : Turn::stored;
    if (t == Turn::full) budget_full_ = true;
    if (t != Turn::stored || store_ == nullptr) return store_ == nullptr ? Turn::ours : t;
    auto stored = store_->find(key_, config.hash_hex());
    if (!stored) return Turn::ours;
    out = *stored;
    ++report_.resumed;
    add(config, std::move(*stored), /*from_store=*/true);
    return Turn::stored;
  }

  void evaluate_into(const std::vector<Config>& configs, const std::vector<std::size_t>& which,
                     std::vector<Measurement>& out) {
    if (which.empty()) return;
    std::vector<Config> batch;
    for (const std::size_t i : which) batch.push_back(configs[i]);
    std::vector<Measurement> results = evaluator_.evaluate(batch);
    for (std::size_t j = 0; j < which.size(); ++j) {
      Measurement m = j < results.size()
                          ? std::move(results[j])
                          : Measurement{.outcome = Outcome::crash,
                                        .detail = "the evaluator returned no result"};
      out[which[j]] = m;
      add(configs[which[j]], std::move(m), /*from_store=*/false);
    }
    // The whole batch is in the report before a store that refused part of it stops the tune.
    writer_.flush();
  }

  // Candidates a participant died with: measured here, outside the strategy, which never asked.
  void adopt_orphans() {
    if (!participant_) return;
    std::vector<std::string> dropped;
    const std::vector<Config> orphans = participant_->orphans(space_.space, dropped);
    for (const std::string& reason : dropped) drop(reason);
    if (!orphans.empty()) measure(orphans);
  }

  // The end of a shared tune: orphans measured, then the decision another participant's
  // tournament recorded since this one joined is adopted, or this one runs the tournament once
  // nothing else is in flight, on everything the store holds under the key.
  void decide_together() {
    while (!stop_asked()) {
      adopt_orphans();
      if (auto d = participant_->decision_to_adopt()) return adopt(*d);
      if (participant_->take_tournament()) {
        // A tournament that ended between the look above and the claim recorded its decision
        // before giving the claim back: look again, now that no other can decide.
        if (auto d = participant_->decision_to_adopt()) {
          participant_->end_tournament();
          return adopt(*d);
        }
        add_others_results();
        choose_winner();
        participant_->end_tournament();
        return;
      }
      if (const std::string others = participant_->others_in_flight(); !others.empty()) {
        say_waiting("waiting for the other participants before the tournament: " + others);
      }
      std::this_thread::sleep_for(kPoll);
    }
  }

  // Tells the caller what the tune waits for, once each time that changes.
  void say_waiting(std::string what) {
    if (what == last_wait_) return;
    last_wait_ = std::move(what);
    if (callbacks_.on_wait) callbacks_.on_wait(last_wait_);
  }

  void add_others_results() {
    for (StoredResult& r : store_->results(key_)) {
      try {
        Config config = space_.space.from_json(nlohmann::json::parse(r.config_json));
        if (!index_by_hash_.contains(config.hash())) {
          add(config, std::move(r.measurement), /*from_store=*/true);
        }
      } catch (const std::exception& error) {
        drop(fmt::format("stored config {} is not a config of this space: {}", r.config_json,
                         error.what()));
      }
    }
  }

  void adopt(const Decision& d) {
    Config winner = space_.space.from_json(nlohmann::json::parse(d.winner_json));
    std::optional<Measurement> timed = store_->find(key_, d.winner_hash);
    report_.best =
        Evaluated{std::move(winner), timed ? std::move(*timed) : Measurement{}, true, elapsed()};
    report_.seconds_to_best = report_.best->at_seconds;
    report_.adopted_decision = true;
  }

  void add(const Config& config, Measurement m, bool from_store) {
    if (!from_store) writer_.write_or_keep(stored(config, m));
    index_by_hash_.emplace(config.hash(), report_.evaluated.size());
    ++report_.outcomes[m.outcome];
    if (m.ok() && (!best_ms_ || m.time_ms < *best_ms_)) best_ms_ = m.time_ms;
    report_.evaluated.push_back(Evaluated{config, std::move(m), from_store, elapsed()});
    if (callbacks_.on_result) callbacks_.on_result(report_.evaluated.back());
    progress(TunePhase::search);
  }

  void progress(TunePhase phase, std::size_t finalists = 0) {
    if (!callbacks_.on_progress) return;
    std::size_t failures = 0;
    for (const auto& [outcome, count] : report_.outcomes) {
      if (outcome != Outcome::ok) failures += count;
    }
    callbacks_.on_progress(TuneProgress{report_.evaluated.size(), options_.max_evaluations,
                                        best_ms_, failures, elapsed(), phase, finalists});
  }

  StoredResult stored(const Config& config, const Measurement& m) const {
    return StoredResult{key_, config.hash_hex(), config.to_string(),
                        m,    tune_id_,          unix_seconds_now()};
  }

  // The row id in the store; 0 without one. Throws StoreError as ResultWriter::write does.
  std::int64_t persist(const Config& config, const Measurement& m) {
    return writer_.write(stored(config, m));
  }

  // The final tournament (cutune/tournament.hpp): the default, every seed that ran correctly in
  // the search and the fastest few by search time, timed together in paired rounds; the winner,
  // every finalist's rounds and the decision go to the store.
  void choose_winner() {
    std::vector<const Evaluated*> ranked;
    for (const Evaluated& e : report_.evaluated) {
      if (e.measurement.ok()) ranked.push_back(&e);
    }
    if (ranked.empty()) return;
    const double start = elapsed();
    std::sort(ranked.begin(), ranked.end(), [](const Evaluated* a, const Evaluated* b) {
      return a->measurement.time_ms < b->measurement.time_ms;
    });
    std::vector<Finalist> finalists;
    std::unordered_set<std::uint64_t> entered;
    const auto enter = [&](const Config& config, FinalistRole role) {
      if (entered.insert(config.hash()).second)
        finalists.push_back({.config = config, .role = role});
    };
    // An illegal default is no finalist: no evaluator is handed a config its space rejects.
    if (!illegal_default_) enter(report_.baseline->config, FinalistRole::default_config);
    for (const Config& seed : seeds_) {
      const auto it = index_by_hash_.find(seed.hash());
      if (it != index_by_hash_.end() && report_.evaluated[it->second].measurement.ok()) {
        enter(seed, FinalistRole::seed);
      }
    }
    const std::size_t top = std::max<std::size_t>(1, options_.retime_top);
    for (std::size_t i = 0; i < ranked.size() && i < top; ++i) {
      enter(ranked[i]->config, FinalistRole::search);
    }
    progress(TunePhase::tournament, finalists.size());
    TournamentResult result = run_tournament(evaluator_, std::move(finalists), options_.tournament);
    if (options_.finishing) {
      progress(TunePhase::finishing, result.finalists.size());
      // The pass stops starting resets once tournament and pass reach their share of the search.
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(std::max(
                                    0.0, options_.finishing_share * start - (elapsed() - start))));
      finishing::finish(evaluator_, space_.space, problem_, device_, options_.tournament,
                        options_.finishing_max_resets, deadline, reset_estimate(result), result);
    }
    std::vector<std::int64_t> rows;
    for (Finalist& f : result.finalists) {
      // The rounds run binaries the search compiled (a cache hit, 0 s): the row keeps what
      // compiling the config cost, so that an export of its latest row does not say 0.
      const auto searched = index_by_hash_.find(f.config.hash());
      if (f.measurement.compile_s == 0.0 && searched != index_by_hash_.end()) {
        f.measurement.compile_s = report_.evaluated[searched->second].measurement.compile_s;
      }
      rows.push_back(persist(f.config, f.measurement));
    }

    const Finalist& winner = result.winning();
    const auto first = index_by_hash_.find(winner.config.hash());
    const double found_at =
        first != index_by_hash_.end() ? report_.evaluated[first->second].at_seconds : elapsed();
    if (winner.measurement.ok()) {
      report_.best = Evaluated{winner.config, winner.measurement, false, found_at};
    } else {
      // Every finalist failed in the rounds: the search's own fastest, undecided.
      report_.best = *ranked.front();
    }
    report_.seconds_to_best = report_.best->at_seconds;
    report_.tournament_seconds = elapsed() - start;
    if (winner.measurement.ok() && store_ != nullptr) record_decision(result, rows);
    report_.tournament = std::move(result);
  }

  // What one finishing reset should cost before any was timed: compiling a config (the median
  // compile time of the search's fresh measurements; a GEMM config's compile dwarfs its rounds)
  // plus rounds of three configs at the tournament's pace.
  double reset_estimate(const TournamentResult& result) const {
    std::vector<double> compiles;
    for (const Evaluated& e : report_.evaluated) {
      if (!e.from_store) compiles.push_back(e.measurement.compile_s);
    }
    double compile = 0.0;
    if (!compiles.empty()) {
      std::nth_element(compiles.begin(), compiles.begin() + compiles.size() / 2, compiles.end());
      compile = compiles[compiles.size() / 2];
    }
    return compile + result.seconds * 3.0 / static_cast<double>(result.finalists.size());
  }

  void record_decision(const TournamentResult& result, const std::vector<std::int64_t>& rows) {
    const Finalist& winner = result.winning();
    Decision d;
    d.key = key_;
    d.tune_id = tune_id_;
    d.winner_hash = winner.config.hash_hex();
    d.winner_json = winner.config.to_string();
    d.winner_measurement = rows.at(result.winner);
    d.default_hash = report_.baseline->config.hash_hex();
    d.seed_hash = seeds_.empty() ? std::string() : seeds_.front().hash_hex();
    d.speedup = result.speedup().median;
    d.speedup_low = result.speedup().low;
    d.speedup_high = result.speedup().high;
    d.rounds = static_cast<int>(result.rounds.size());
    d.finalists_json = finalists_json(result).dump();
    d.rounds_json = rounds_json(result).dump();
    d.timestamp = unix_seconds_now();
    store_->record_decision(d);
  }

  const TuningSpace& space_;
  const Problem& problem_;
  const Device& device_;
  Evaluator& evaluator_;
  Store* store_;
  tuning::ResultWriter writer_;  // every fresh result goes through it, none lost
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

}  // namespace

TuneReport tune(const Family& family, const Problem& problem, FamilyEvaluator& target, Store* store,
                const TuneOptions& options, const TuneCallbacks& callbacks) {
  if (family.tuning == nullptr) {
    throw std::invalid_argument(fmt::format("tune: family '{}' has no tuning space", family.name));
  }
  if (!target.evaluator) {
    throw std::invalid_argument(
        fmt::format("tune: family '{}' was given no evaluator", family.name));
  }
  Evaluator& evaluator = *target.evaluator;
  const Device& device = target.device;
  const TuningSpace& space = *family.tuning;
  // Once per tune, before the default config is even built: no candidate could run it.
  if (std::vector<std::string> errors = problem_errors(space, problem, device); !errors.empty()) {
    throw UnsupportedProblem(problem, std::move(errors));
  }
  const TuningKey key = family.key(problem, evaluator.device_name(), evaluator.toolchain());
  return TuneRun(space, problem, device, evaluator, store, key, options, callbacks).run();
}

}  // namespace cutune
