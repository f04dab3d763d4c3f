// The search of one tune: rounds of a strategy's asks and tells, from the default config, the warm
// start, the seeds and the transfer prior's seeds on, until the budget, the time, the plateau, a
// stop or a strategy with nothing new to ask ends it.
#include "tune_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <limits>
#include <random>
#include <thread>
#include <unordered_set>

#include "plateau.hpp"

namespace cutune::tuning {
namespace {

// A strategy that keeps proposing only configs already measured is stuck; stop after this many
// rounds without a new measurement rather than spin.
constexpr int kMaxRoundsWithoutNews = 32;

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

}  // namespace

TuneRun::TuneRun(const TuningSpace& space, const Problem& problem, const Device& device,
                 Evaluator& evaluator, Store* store, const TuningKey& key,
                 const TuneOptions& options, const TuneCallbacks& callbacks)
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

TuneReport TuneRun::run() {
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

  const std::size_t batch = options_.batch_size != 0
                                ? options_.batch_size
                                : std::max<std::size_t>(2, 2 * std::thread::hardware_concurrency());
  // The default config is measured with the strategy's first batch: one compile latency for
  // both, not one each. The prior's seeds take the round's free slots, ahead of the strategy's
  // draws; those that do not fit are measured in rounds of their own right after it.
  std::vector<Config> first{baseline};
  std::vector<Config> asked;
  // The search leaves the final climb its configs (none on a shared store: see TuneOptions).
  const std::size_t climb =
      participant_ ? 0 : std::min(options_.final_climb, options_.max_evaluations / 2);
  const std::size_t search_budget = options_.max_evaluations - climb;
  const std::size_t room = std::min(batch, search_budget);
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
  const bool baseline_ok = report_.baseline && report_.baseline->measurement.ok();
  Plateau plateau(
      options_, batch,
      baseline_ok ? report_.baseline->measurement.time_ms : std::numeric_limits<double>::infinity(),
      fastest_ok());
  while (report_.evaluated.size() < search_budget && !out_of_time() &&
         rounds_without_news < kMaxRoundsWithoutNews && !budget_full_ && !stop_asked() &&
         !plateau.reached(report_.evaluated.size())) {
    adopt_orphans();
    const std::size_t want = std::min(batch, search_budget - report_.evaluated.size());
    std::vector<Config> asked = strategy->ask(want);
    if (asked.empty()) break;
    const std::size_t before = report_.evaluated.size();
    const std::vector<Measurement> results = measure_and_observe(asked);
    if (budget_full_) break;  // the rest were never measured; no ask() follows to need them
    strategy->tell(asked, results);
    rounds_without_news = report_.evaluated.size() == before ? rounds_without_news + 1 : 0;
    plateau.round_ended(fastest_ok(), asked.size());
  }
  final_climb(std::min(climb, options_.max_evaluations -
                                  std::min(report_.evaluated.size(), options_.max_evaluations)),
              batch);
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

const Evaluated* TuneRun::fastest() const {
  const Evaluated* out = nullptr;
  for (const Evaluated& e : report_.evaluated) {
    if (e.measurement.ok() && (!out || e.measurement.time_ms < out->measurement.time_ms)) out = &e;
  }
  return out;
}

double TuneRun::fastest_ok() const {
  const Evaluated* e = fastest();
  return e ? e->measurement.time_ms : std::numeric_limits<double>::infinity();
}

void TuneRun::keep_fastest() {
  if (const Evaluated* e = fastest()) {
    report_.best = *e;
    report_.seconds_to_best = e->at_seconds;
  }
}

Config TuneRun::baseline_config() {
  try {
    return default_config(space_, problem_, device_);
  } catch (const ConfigError& error) {
    illegal_default_ = error.what();
    return space_.space.default_config();
  }
}

std::vector<Measurement> TuneRun::measure_and_observe(const std::vector<Config>& configs) {
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

void TuneRun::measure_prior_seeds(std::size_t batch) {
  while (!prior_seeds_.empty() && report_.evaluated.size() < options_.max_evaluations &&
         !budget_full_ && !stop_asked() && !out_of_time()) {
    const std::size_t count =
        std::min({batch, prior_seeds_.size(), options_.max_evaluations - report_.evaluated.size()});
    const std::vector<Config> round(prior_seeds_.begin(), prior_seeds_.begin() + count);
    prior_seeds_.erase(prior_seeds_.begin(), prior_seeds_.begin() + count);
    measure_and_observe(round);
  }
  prior_seeds_.clear();
}

std::vector<Config> TuneRun::legal_prior_seeds() {
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

std::vector<Config> TuneRun::starting_points() {
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

void TuneRun::drop(const std::string& reason) {
  ++report_.dropped_by_normalizer;
  report_.drop_reasons.push_back(reason);
}

}  // namespace cutune::tuning
