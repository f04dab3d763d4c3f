// The runtime's tunes on a miss (runtime_impl.hpp): one tune session per problem, now under
// Policy::tune_now or in a background thread whose winner is swapped into the problem's slot.
#include <fmt/format.h>

#include "cutune/session.hpp"
#include "runtime/runtime_impl.hpp"

namespace cutune {
namespace {

// Thrown from a background tune's progress callback to end it when the runtime shuts down.
struct TuneCancelled {};

}  // namespace

bool Runtime::Impl::can_tune(const Family& f) {
  if (f.make_evaluator) return true;
  warn(fmt::format("family {} cannot be tuned here (no evaluator): using its default config",
                   f.name));
  return false;
}

// Tunes one problem in a session of its own (cutune/session.hpp), warm-started from the nearest
// tuned shapes and with the store's transfer priors, as `cutune tune` starts. The session opens
// its own store handle (a Store belongs to one thread) and records results only when the
// runtime's store is writable.
std::optional<Config> Runtime::Impl::run_tune(const Family& f, const Problem& problem,
                                              std::stop_token stop) {
  TuneSessionOptions session_options;
  if (options.store && !store_error) session_options.store = *options.store;
  session_options.store_mode = options.store_mode;
  session_options.warm_start_neighbours = options.warm_start_neighbours;
  session_options.transfer = options.transfer;
  TuneSession session({.spec = nullptr, .family = f}, problem, session_options);
  TuneCallbacks callbacks;
  callbacks.on_progress = [&stop](const TuneProgress&) {
    if (stop.stop_requested()) throw TuneCancelled{};
  };
  TuneReport report = session.run(options.tune, callbacks);
  if (!report.best) return std::nullopt;
  return report.best->config;
}

std::unique_ptr<Kernel> Runtime::Impl::tuned(const Family& f, const Problem& problem,
                                             std::stop_token stop) {
  try {
    if (auto best = run_tune(f, problem, stop)) return f.load(*best, problem, KernelOrigin::tuned);
    warn(fmt::format("the tune of {} for {} found no correct config", f.name, problem.canonical()));
  } catch (const TuneCancelled&) {
  } catch (const std::exception& error) {
    warn(
        fmt::format("the tune of {} for {} failed: {}", f.name, problem.canonical(), error.what()));
  }
  return nullptr;
}

void Runtime::Impl::tune_in_background(const Family& f, const Problem& problem, Slot& slot) {
  std::lock_guard lock(tunes_mutex);
  tunes.emplace_back([this, &f, problem, &slot](std::stop_token stop) {
    auto kernel = tuned(f, problem, stop);
    if (!kernel) return;
    std::lock_guard slot_lock(slot.mutex);
    install(slot, std::move(kernel));
  });
}

}  // namespace cutune
