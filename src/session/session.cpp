// One tune session (cutune/session.hpp): the set-up around tune() that `cutune tune`, the Python
// package and the runtime's tunes share.
#include "cutune/session.hpp"

#include <stdexcept>
#include <utility>

#include "cutune/tune_json.hpp"

namespace cutune {

TuneSession::TuneSession(FamilySource source, Problem problem, TuneSessionOptions options)
    : source_(std::move(source)), problem_(std::move(problem)), options_(std::move(options)) {}

TuneReport TuneSession::run(TuneOptions options, const TuneCallbacks& callbacks) {
  if (target_) throw std::logic_error("a TuneSession runs once");
  const Family& family = source_.family;
  if (!family.make_evaluator) {
    throw std::invalid_argument("family " + family.name + " cannot be tuned in this build");
  }
  target_ = family.make_evaluator(problem_, options_.devices);
  Evaluator& evaluator = *target_->evaluator;
  key_ = family.key(problem_, evaluator.device_name(), evaluator.toolchain());
  if (options_.store) store_ = Store::open(*options_.store, options_.store_mode);
  if (store_ && options_.warm_start_neighbours > 0) {
    warm_start_ = add_warm_start(options, *store_, family, problem_, key_->device,
                                 options_.warm_start_neighbours);
  }
  transfer_ = options_.transfer && store_.has_value();
  if (transfer_) add_priors(options, *store_, family, *key_);
  Store* record = store_ && options_.store_mode == OpenMode::read_write ? &*store_ : nullptr;
  return tune(family, problem_, *target_, record, options, callbacks);
}

const TuningKey& TuneSession::key() const {
  if (!key_) throw std::logic_error("TuneSession::key() before run()");
  return *key_;
}

FamilyEvaluator& TuneSession::target() {
  if (!target_) throw std::logic_error("TuneSession::target() before run()");
  return *target_;
}

nlohmann::json TuneSession::report_json(const TuneReport& report) const {
  nlohmann::json out = tune_report_json(report, key(), store_ ? &*store_ : nullptr);
  out["transfer"]["enabled"] = transfer_;
  const std::string& reference = source_.family.checked_against;
  out["checked_against"] = reference.empty() ? nlohmann::json() : nlohmann::json(reference);
  return out;
}

}  // namespace cutune
