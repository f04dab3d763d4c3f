#include "cutune/runtime.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "cutune/dispatch.hpp"
#include "cutune/session.hpp"
#include "hash/content_hash.hpp"
#include "runtime/winners.hpp"
#include "space/repair.hpp"

namespace cutune {

std::string_view to_string(Policy policy) {
  switch (policy) {
    case Policy::default_now:
      return "default_now";
    case Policy::tune_now:
      return "tune_now";
    case Policy::tune_in_background:
      return "tune_in_background";
  }
  return "unknown";
}

std::string_view to_string(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::store:
      return "store";
    case KernelOrigin::dispatch:
      return "dispatch";
    case KernelOrigin::nearest:
      return "nearest";
    case KernelOrigin::default_config:
      return "default_config";
    case KernelOrigin::tuned:
      return "tuned";
  }
  return "unknown";
}

namespace {

// The lookup text's content hash; the text itself is compared on a hit, so a collision costs a
// fallback lookup, never a wrong kernel.
std::uint64_t hash_text(std::string_view text) { return hash::content_hash(text).low; }

// Thrown from a background tune's progress callback to end it when the runtime shuts down.
struct TuneCancelled {};

struct Added {
  Family def;
  std::optional<Dispatcher> dispatch;
};

// Every kernel ever current for one (family, problem). Kernels are never freed before the
// runtime, so references handed out stay valid after a background tune swaps its winner in.
struct Slot {
  std::string text;
  std::atomic<const Kernel*> current{nullptr};
  std::mutex mutex;  // resolving, and `kept`
  std::vector<std::unique_ptr<Kernel>> kept;
};

}  // namespace

struct Runtime::Impl {
  RuntimeOptions options;
  std::map<std::string, std::unique_ptr<Added>, std::less<>> families;

  mutable std::shared_mutex slots_mutex;
  std::unordered_map<std::uint64_t, std::unique_ptr<Slot>> slots;
  std::map<std::string, std::unique_ptr<Slot>, std::less<>> colliding;  // same hash, other text

  std::mutex store_mutex;  // a Store is not thread-safe
  std::optional<Store> store;
  std::optional<std::string> store_error;
  // RuntimeOptions::winners read once; without it, no winners (the store's are read when asked).
  std::optional<LookupTable> exported;

  mutable std::mutex warnings_mutex;
  std::vector<std::string> warnings;

  std::mutex tunes_mutex;
  std::vector<std::jthread> tunes;  // last member: joined before anything they use is destroyed

  explicit Impl(RuntimeOptions o) : options(std::move(o)) {
    exported = LookupTable::from_json(nlohmann::json::parse(export_json({})), table_options());
    if (options.winners) {
      try {
        exported = LookupTable::load(*options.winners, table_options());
      } catch (const std::exception& error) {
        warn(fmt::format("cannot use the exported winners, falling back: {}", error.what()));
      }
    }
    if (!options.store) return;
    try {
      store = Store::open(*options.store, options.store_mode);
    } catch (const std::exception& error) {
      store_error = error.what();
      warn(fmt::format("cannot use the results store, falling back to default configs: {}",
                       error.what()));
    }
  }

  LookupOptions table_options() {
    return runtime::lookup_options([this](std::string_view name) -> const Family* {
      const auto it = families.find(name);
      return it == families.end() ? nullptr : &it->second->def;
    });
  }

  // The lookup table's answer (runtime/winners.hpp): over the exported winners when given or
  // when there is no store, else over the store's.
  runtime::Chosen choose(const Family& f, const Problem& problem) {
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

  void warn(std::string message) {
    {
      std::lock_guard lock(warnings_mutex);
      warnings.push_back(message);
    }
    if (options.on_warning) {
      options.on_warning(message);
    } else {
      std::fprintf(stderr, "cutune: %s\n", message.c_str());
    }
  }

  Added& family(std::string_view name) const {
    auto it = families.find(name);
    if (it == families.end()) {
      std::string known;
      for (const auto& [family_name, unused] : families) known += " " + family_name;
      throw std::invalid_argument(fmt::format("unknown kernel family '{}' (added:{})", name,
                                              known.empty() ? " none" : known));
    }
    return *it->second;
  }

  Slot& slot_for(const std::string& text, std::uint64_t hash) {
    std::unique_lock lock(slots_mutex);
    auto [it, inserted] = slots.try_emplace(hash);
    if (inserted) {
      it->second = std::make_unique<Slot>();
      it->second->text = text;
    }
    if (it->second->text == text) return *it->second;
    auto& other = colliding[text];
    if (!other) {
      other = std::make_unique<Slot>();
      other->text = text;
    }
    return *other;
  }

  const Kernel* find(const std::string& text, std::uint64_t hash) const {
    std::shared_lock lock(slots_mutex);
    auto it = slots.find(hash);
    if (it == slots.end()) return nullptr;
    if (it->second->text == text) return it->second->current.load(std::memory_order_acquire);
    auto other = colliding.find(text);
    return other == colliding.end() ? nullptr
                                    : other->second->current.load(std::memory_order_acquire);
  }

  static const Kernel& install(Slot& slot, std::unique_ptr<Kernel> kernel) {
    const Kernel* raw = kernel.get();
    slot.kept.push_back(std::move(kernel));
    slot.current.store(raw, std::memory_order_release);
    return *raw;
  }

  // What the key deploys (Store::deployed: its latest decision); with the family's own toolchain
  // first, then any other toolchain (a deployment's compiler may differ from the tuning
  // machine's), the fastest of those.
  std::optional<StoredResult> stored_winner(const Family& f, const Problem& problem) {
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

  std::unique_ptr<Kernel> from_exported(const Family& f, const Problem& problem) {
    runtime::Chosen chosen = choose(f, problem);
    if (chosen.answer.source != LookupSource::tuned) return nullptr;
    if (chosen.config) return f.load(*chosen.config, problem, KernelOrigin::store);
    warn(fmt::format("the exported winner of {} for {} is not usable; falling back", f.name,
                     problem.canonical()));
    return nullptr;
  }

  std::unique_ptr<Kernel> from_store(const Family& f, const Problem& problem) {
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

  std::unique_ptr<Kernel> from_dispatch(const Added& family, const Problem& problem) {
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
  std::unique_ptr<Kernel> untuned(const Family& f, const Problem& problem) {
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

  bool can_tune(const Family& f) {
    if (f.make_evaluator) return true;
    warn(fmt::format("family {} cannot be tuned here (no evaluator): using its default config",
                     f.name));
    return false;
  }

  // Tunes one problem in a session of its own (cutune/session.hpp), warm-started from the nearest
  // tuned shapes and with the store's transfer priors, as `cutune tune` starts. The session opens
  // its own store handle (a Store belongs to one thread) and records results only when the
  // runtime's store is writable.
  std::optional<Config> run_tune(const Family& f, const Problem& problem, std::stop_token stop) {
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

  std::unique_ptr<Kernel> tuned(const Family& f, const Problem& problem, std::stop_token stop) {
    try {
      if (auto best = run_tune(f, problem, stop))
        return f.load(*best, problem, KernelOrigin::tuned);
      warn(fmt::format("the tune of {} for {} found no correct config", f.name,
                       problem.canonical()));
    } catch (const TuneCancelled&) {
    } catch (const std::exception& error) {
      warn(fmt::format("the tune of {} for {} failed: {}", f.name, problem.canonical(),
                       error.what()));
    }
    return nullptr;
  }

  void tune_in_background(const Family& f, const Problem& problem, Slot& slot) {
    std::lock_guard lock(tunes_mutex);
    tunes.emplace_back([this, &f, problem, &slot](std::stop_token stop) {
      auto kernel = tuned(f, problem, stop);
      if (!kernel) return;
      std::lock_guard slot_lock(slot.mutex);
      install(slot, std::move(kernel));
    });
  }

  const Kernel& resolve(const KernelQuery& query, Policy policy, Slot& slot) {
    std::lock_guard lock(slot.mutex);
    if (const Kernel* ready = slot.current.load(std::memory_order_acquire)) return *ready;
    Added& family = [&]() -> Added& {
      std::shared_lock families_lock(slots_mutex);
      return this->family(query.family());
    }();
    const Family& f = family.def;
    const Problem& problem = query.problem();

    if (auto kernel = from_store(f, problem)) return install(slot, std::move(kernel));
    if (policy == Policy::tune_now && can_tune(f)) {
      if (auto kernel = tuned(f, problem, {})) return install(slot, std::move(kernel));
    }
    auto kernel = from_dispatch(family, problem);
    if (!kernel) kernel = untuned(f, problem);
    if (!kernel) {
      try {
        kernel = f.load(default_config(*f.tuning, problem, f.device), problem,
                        KernelOrigin::default_config);
      } catch (const std::exception& error) {
        throw RuntimeError(fmt::format("no kernel of {} for {}: the default config fails: {}",
                                       f.name, problem.canonical(), error.what()));
      }
    }
    const Kernel& now = install(slot, std::move(kernel));
    if (policy == Policy::tune_in_background && can_tune(f)) tune_in_background(f, problem, slot);
    return now;
  }
};

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Runtime::~Runtime() {
  std::vector<std::jthread> tunes;
  {
    std::lock_guard lock(impl_->tunes_mutex);
    tunes.swap(impl_->tunes);
  }
  for (auto& t : tunes) t.request_stop();
}  // `tunes` joins here, before impl_ goes

void Runtime::add_family(Family family) {
  if (family.name.empty() || family.tuning == nullptr || !family.load) {
    throw std::invalid_argument(
        "add_family: a kernel family needs a name, a tuning space and a "
        "loader (family '" +
        family.name + "')");
  }
  std::unique_lock lock(impl_->slots_mutex);
  const std::string name = family.name;
  auto [it, inserted] = impl_->families.try_emplace(name);
  if (!inserted) throw std::invalid_argument("add_family: family '" + name + "' was already added");
  it->second = std::make_unique<Added>(Added{std::move(family), std::nullopt});
}

void Runtime::add_dispatch(Dispatcher dispatcher) {
  std::unique_lock lock(impl_->slots_mutex);
  Added& family = impl_->family(dispatcher.family());
  family.dispatch = std::move(dispatcher);
}

KernelQuery Runtime::query(std::string_view family_name, const Problem& problem) const {
  KernelQuery q;
  {
    std::shared_lock lock(impl_->slots_mutex);
    const Family& f = impl_->family(family_name).def;
    q.problem_ = f.resolved(problem);
  }
  q.family_ = std::string(family_name);
  q.text_ = q.family_;
  q.text_ += '\n';
  q.text_ += q.problem_.canonical();
  q.hash_ = hash_text(q.text_);
  return q;
}

const Kernel& Runtime::get(const KernelQuery& query) { return get(query, impl_->options.policy); }

const Kernel& Runtime::get(const KernelQuery& query, Policy policy) {
  if (const Kernel* ready = impl_->find(query.text_, query.hash_)) return *ready;
  Slot& slot = impl_->slot_for(query.text_, query.hash_);
  return impl_->resolve(query, policy, slot);
}

std::optional<std::string> Runtime::store_error() const { return impl_->store_error; }

std::vector<std::string> Runtime::warnings() const {
  std::lock_guard lock(impl_->warnings_mutex);
  return impl_->warnings;
}

void Runtime::wait_for_background() {
  for (;;) {
    std::vector<std::jthread> finishing;
    {
      std::lock_guard lock(impl_->tunes_mutex);
      finishing.swap(impl_->tunes);
    }
    if (finishing.empty()) return;
    for (auto& t : finishing) t.join();
  }
}

}  // namespace cutune
