// The end of a tune: the final tournament of the default, the seeds and the fastest few, the
// finishing pass, the decision recorded in the store; on a shared store, orphans measured first,
// and the decision another participant recorded adopted instead of a second tournament.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_set>

#include "tournament/finishing.hpp"
#include "tune_run.hpp"

namespace cutune::tuning {

void TuneRun::decide_together() {
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

void TuneRun::add_others_results() {
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

void TuneRun::adopt(const Decision& d) {
  Config winner = space_.space.from_json(nlohmann::json::parse(d.winner_json));
  std::optional<Measurement> timed = store_->find(key_, d.winner_hash);
  report_.best =
      Evaluated{std::move(winner), timed ? std::move(*timed) : Measurement{}, true, elapsed()};
  report_.seconds_to_best = report_.best->at_seconds;
  report_.adopted_decision = true;
}

void TuneRun::choose_winner() {
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
    if (entered.insert(config.hash()).second) finalists.push_back({.config = config, .role = role});
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

double TuneRun::reset_estimate(const TournamentResult& result) const {
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

void TuneRun::record_decision(const TournamentResult& result,
                              const std::vector<std::int64_t>& rows) {
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

}  // namespace cutune::tuning
