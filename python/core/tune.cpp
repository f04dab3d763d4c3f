// cutune.tune(): one tune, as `cutune tune --json` runs it, with the store's decision.
#include "cutune/tune.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "cutune/family.hpp"
#include "cutune/measurement.hpp"
#include "cutune/session.hpp"
#include "cutune/store.hpp"
#include "cutune/tune_json.hpp"
#include "cutune/warm_start.hpp"
#include "cutune_python.hpp"
#include "tune_session.hpp"

namespace cutune::python {
namespace {

nlohmann::json decision_json(const Decision& d) {
  return {{"winner_hash", d.winner_hash},
          {"config", nlohmann::json::parse(d.winner_json)},
          {"tune_id", d.tune_id},
          {"speedup_over_default", json_number(d.speedup)},
          {"speedup_interval", {json_number(d.speedup_low), json_number(d.speedup_high)}},
          {"rounds", d.rounds},
          {"finalists", nlohmann::json::parse(d.finalists_json)}};
}

// Without a store the report's winner is the decision.
nlohmann::json winner_json(const TuneReport& report) {
  if (!report.best) return nullptr;
  return {{"winner_hash", report.best->config.hash_hex()},
          {"config", report.best->config.to_json()},
          {"speedup_over_default", report.speedup() ? nlohmann::json(*report.speedup()) : nullptr},
          {"time_ms", report.best->measurement.time_ms}};
}

// The package's tunes start as `cutune tune` does: warm start and transfer priors, each with its
// opt-out.
TuneSessionOptions session_options(const TuneRequest& request) {
  TuneSessionOptions options;
  if (request.store) options.store = store_path(request.db);
  options.warm_start_neighbours = request.warm_start ? kWarmStartNeighbours : 0;
  options.transfer = request.transfer;
  return options;
}

// Runs the session as the request says: {"report", "decision"}.
std::string session_json(TuneSession& session, const TuneRequest& request) {
  if (!session.family().make_evaluator) {
    throw std::invalid_argument("family " + session.family().name +
                                " cannot be tuned in this build");
  }
  if (request.budget == 0) throw std::invalid_argument("budget: at least 1 config");
  TuneOptions options;
  options.strategy = request.strategy;
  options.effort = effort_from_string(request.effort);
  options.max_evaluations = request.budget;
  options.max_seconds = request.seconds;
  options.seed = request.seed;
  options.batch_size = request.batch;
  options.patience = request.patience;
  options.min_evaluations = request.min_evaluations;
  options.final_climb = request.final_climb;
  options.start_near_seeds = request.start_near_seeds;
  options.min_move_gain = request.min_move_gain;
  options.stop = request.stop;
  std::atomic<bool> stop = false;
  TuneCallbacks callbacks;
  if (request.on_progress) {
    options.stop = &stop;
    callbacks.on_progress = [&](const TuneProgress& p) {
      const nlohmann::json text = {
          {"evaluated", p.evaluated},
          {"budget", p.budget},
          {"best_ms", p.best_ms ? nlohmann::json(*p.best_ms) : nlohmann::json()},
          {"failures", p.failures},
          {"seconds", p.seconds},
          {"phase", to_string(p.phase)},
          {"finalists", p.finalists}};
      // Either ends the tune after the batch in flight: the callback's false, or a SIGINT.
      if (!request.on_progress(text.dump()) || (request.stop != nullptr && *request.stop)) {
        stop = true;
      }
    };
  }
  const TuneReport report = session.run(options, callbacks);
  nlohmann::json decision = winner_json(report);
  // A stopped tune decided nothing: its search's fastest, not an earlier tune's decision.
  if (Store* store = session.store(); store != nullptr && !report.stopped) {
    if (const std::optional<Decision> stored = store->decision(session.key())) {
      decision = decision_json(*stored);
    }
  }
  return nlohmann::json{{"report", session.report_json(report)}, {"decision", decision}}.dump();
}

}  // namespace

std::filesystem::path store_path(const std::string& db) {
  return db.empty() ? Store::default_path() : std::filesystem::path(db);
}

std::string default_store() { return Store::default_path().string(); }

std::string outcome_names_json() {
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [outcome, name] : kOutcomeNames) names.push_back(std::string(name));
  return names.dump();
}

std::string tune_json(const TuneRequest& request) {
  TuneSession session =
      tune_session(request.spec_or_family, request.problem, session_options(request));
  return session_json(session, request);
}

std::string tune_family_json(const Family& family, const Problem& problem,
                             const TuneRequest& request) {
  TuneSession session({.spec = nullptr, .family = family}, problem, session_options(request));
  return session_json(session, request);
}

std::string stored_decision_json(const TuningKey& key, const std::string& db) {
  Store store = Store::open(store_path(db));
  const std::optional<Decision> stored = store.decision(key);
  return stored ? decision_json(*stored).dump() : "null";
}

}  // namespace cutune::python
