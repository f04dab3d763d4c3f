// One measurement per config a tune asks for: from this tune's report, the store, a shared
// store's claims (waiting for another participant's result) or the evaluator; each new result is
// written to the store as it arrives, and reported to the caller's callbacks.
#include <fmt/format.h>

#include <thread>
#include <unordered_map>

#include "tune_run.hpp"

namespace cutune::tuning {

std::vector<Measurement> TuneRun::measure(const std::vector<Config>& configs) {
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

participation::Turn TuneRun::turn(const Config& config, Measurement& out) {
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

void TuneRun::evaluate_into(const std::vector<Config>& configs,
                            const std::vector<std::size_t>& which, std::vector<Measurement>& out) {
  if (which.empty()) return;
  std::vector<Config> batch;
  for (const std::size_t i : which) batch.push_back(configs[i]);
  std::vector<Measurement> results = evaluator_.evaluate(batch);
  for (std::size_t j = 0; j < which.size(); ++j) {
    Measurement m = j < results.size() ? std::move(results[j])
                                       : Measurement{.outcome = Outcome::crash,
                                                     .detail = "the evaluator returned no result"};
    out[which[j]] = m;
    add(configs[which[j]], std::move(m), /*from_store=*/false);
  }
  // The whole batch is in the report before a store that refused part of it stops the tune.
  writer_.flush();
}

void TuneRun::adopt_orphans() {
  if (!participant_) return;
  std::vector<std::string> dropped;
  const std::vector<Config> orphans = participant_->orphans(space_.space, dropped);
  for (const std::string& reason : dropped) drop(reason);
  if (!orphans.empty()) measure(orphans);
}

void TuneRun::say_waiting(std::string what) {
  if (what == last_wait_) return;
  last_wait_ = std::move(what);
  if (callbacks_.on_wait) callbacks_.on_wait(last_wait_);
}

void TuneRun::add(const Config& config, Measurement m, bool from_store) {
  if (!from_store) writer_.write_or_keep(stored(config, m));
  index_by_hash_.emplace(config.hash(), report_.evaluated.size());
  ++report_.outcomes[m.outcome];
  if (m.ok() && (!best_ms_ || m.time_ms < *best_ms_)) best_ms_ = m.time_ms;
  report_.evaluated.push_back(Evaluated{config, std::move(m), from_store, elapsed()});
  if (callbacks_.on_result) callbacks_.on_result(report_.evaluated.back());
  progress(TunePhase::search);
}

void TuneRun::progress(TunePhase phase, std::size_t finalists) {
  if (!callbacks_.on_progress) return;
  std::size_t failures = 0;
  for (const auto& [outcome, count] : report_.outcomes) {
    if (outcome != Outcome::ok) failures += count;
  }
  callbacks_.on_progress(TuneProgress{report_.evaluated.size(), options_.max_evaluations, best_ms_,
                                      failures, elapsed(), phase, finalists});
}

StoredResult TuneRun::stored(const Config& config, const Measurement& m) const {
  return StoredResult{key_, config.hash_hex(), config.to_string(), m, tune_id_, unix_seconds_now()};
}

std::int64_t TuneRun::persist(const Config& config, const Measurement& m) {
  return writer_.write(stored(config, m));
}

}  // namespace cutune::tuning
