// cutune::Runtime's public API (cutune/runtime.hpp) and the order in which a kernel is resolved;
// its state and other parts are in runtime_impl.hpp.
#include "cutune/runtime.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "hash/content_hash.hpp"
#include "runtime/runtime_impl.hpp"

namespace cutune {

using runtime::Added;
using runtime::Slot;

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

}  // namespace

Runtime::Impl::Impl(RuntimeOptions o) : options(std::move(o)) {
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

// A kernel for a problem not resolved yet: the stored or exported winner, a tune now when asked,
// the dispatch rule's pick, the untuned-shape rule's, else the default config; a background tune
// after it when asked.
const Kernel& Runtime::Impl::resolve(const KernelQuery& query, Policy policy, Slot& slot) {
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
      throw RuntimeError(fmt::format("no kernel of {} for {}: the default config fails: {}", f.name,
                                     problem.canonical(), error.what()));
    }
  }
  const Kernel& now = install(slot, std::move(kernel));
  if (policy == Policy::tune_in_background && can_tune(f)) tune_in_background(f, problem, slot);
  return now;
}

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
