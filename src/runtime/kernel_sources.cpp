// Where the runtime's kernel comes from without a tune (runtime_impl.hpp): the winner the store
// deploys or the exported winners hold, the dispatch rule's pick, and the one rule for an untuned
// shape (the lookup table's answer, runtime/winners.hpp), each repaired for the problem and
// loaded, or a warning saying why not.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "runtime/runtime_impl.hpp"
#include "space/repair.hpp"

namespace cutune {

LookupOptions Runtime::Impl::table_options() {
  return runtime::lookup_options([this](std::string_view name) -> const Family* {
    const auto it = families.find(name);
    return it == families.end() ? nullptr : &it->second->def;
  });
}

// The lookup table's answer (runtime/winners.hpp): over the exported winners when given or
// when there is no store, else over the store's.
runtime::Chosen Runtime::Impl::choose(const Family& f, const Problem& problem) {
  if (!options.winners) {
    std::lock_guard lock(store_mutex);
    try {
      if (store) {
        return runtime::choose(runtime::store_winners(*store, f, table_options()), f, problem);
      }
    } catch (const std::exception& error) {
      warn(fmt::format("cannot read the results store, falling back: {}", error.what()));
    }
  }
  return runtime::choose(*exported, f, problem);
}

// What the key deploys (Store::deployed: its latest decision); with the family's own toolchain
// first, then any other toolchain (a deployment's compiler may differ from the tuning
// machine's), the fastest of those.
std::optional<StoredResult> Runtime::Impl::stored_winner(const Family& f, const Problem& problem) {
  std::lock_guard lock(store_mutex);
  if (!store) return std::nullopt;
  try {
    const TuningKey key = f.key(problem, f.device_key, f.toolchain);
    if (auto deployed = store->deployed(key)) return deployed;
    std::optional<StoredResult> winner;
    for (const TuningKey& other : store->keys({.family = f.name, .device = f.device_key})) {
      if (other.family_version != f.version || other.problem != key.problem) continue;
      auto deployed = store->deployed(other);
      if (deployed && deployed->measurement.ok() &&
          (!winner || deployed->measurement.time_ms < winner->measurement.time_ms)) {
        winner = std::move(deployed);
      }
    }
    return winner;
  } catch (const std::exception& error) {
    warn(fmt::format("cannot read the results store, falling back: {}", error.what()));
    return std::nullopt;
  }
}

std::unique_ptr<Kernel> Runtime::Impl::from_exported(const Family& f, const Problem& problem) {
  runtime::Chosen chosen = choose(f, problem);
  if (chosen.answer.source != LookupSource::tuned) return nullptr;
  if (chosen.config) return f.load(*chosen.config, problem, KernelOrigin::store);
  warn(fmt::format("the exported winner of {} for {} is not usable; falling back", f.name,
                   problem.canonical()));
  return nullptr;
}

std::unique_ptr<Kernel> Runtime::Impl::from_store(const Family& f, const Problem& problem) {
  if (options.winners) return from_exported(f, problem);
  auto stored = stored_winner(f, problem);
  if (!stored) return nullptr;
  std::string why;
  try {
    Repaired r =
        repaired(f.tuning->space, nlohmann::json::parse(stored->config_json), problem, f.device);
    if (r.config) return f.load(*r.config, problem, KernelOrigin::store);
    why = r.why;
  } catch (const std::exception& error) {
    why = error.what();
  }
  warn(fmt::format("the stored winner of {} for {} is not usable ({}); falling back", f.name,
                   problem.canonical(), why));
  return nullptr;
}

std::unique_ptr<Kernel> Runtime::Impl::from_dispatch(const Added& family, const Problem& problem) {
  if (!family.dispatch) return nullptr;
  const Family& f = family.def;
  std::string why;
  try {
    const auto& j = family.dispatch->config(family.dispatch->pick(problem));
    Repaired r = repaired(f.tuning->space, j, problem, f.device);
    if (r.config) return f.load(*r.config, problem, KernelOrigin::dispatch);
    why = r.why;
  } catch (const std::exception& error) {
    why = error.what();
  }
  warn(fmt::format("the dispatch rule of {} gives no usable config for {} ({}); falling back",
                   f.name, problem.canonical(), why));
  return nullptr;
}

// The untuned-shape rule: the nearest tuned shape's winner when one is near enough, said in a
// warning either way; nullptr leaves the default config to the caller.
std::unique_ptr<Kernel> Runtime::Impl::untuned(const Family& f, const Problem& problem) {
  runtime::Chosen chosen = choose(f, problem);
  if (chosen.answer.source == LookupSource::tuned) return nullptr;  // rejected by from_store
  warn(chosen.answer.message);
  if (chosen.answer.source != LookupSource::nearest || !chosen.config) return nullptr;
  try {
    return f.load(*chosen.config, problem, KernelOrigin::nearest);
  } catch (const std::exception& error) {
    warn(
        fmt::format("the nearest tuned shape's config of {} does not load for {} ({}); using "
                    "the default config",
                    f.name, problem.canonical(), error.what()));
  }
  return nullptr;
}

}  // namespace cutune
