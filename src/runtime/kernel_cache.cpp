// The runtime's cache of loaded kernels (runtime_impl.hpp): the families added, one slot of kernels
// per (family, problem) text found by its hash, and the warnings said on the way.
#include <fmt/format.h>

#include <cstdio>

#include "runtime/runtime_impl.hpp"

namespace cutune {

void Runtime::Impl::warn(std::string message) {
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

Runtime::Impl::Added& Runtime::Impl::family(std::string_view name) const {
  auto it = families.find(name);
  if (it == families.end()) {
    std::string known;
    for (const auto& [family_name, unused] : families) known += " " + family_name;
    throw std::invalid_argument(fmt::format("unknown kernel family '{}' (added:{})", name,
                                            known.empty() ? " none" : known));
  }
  return *it->second;
}

Runtime::Impl::Slot& Runtime::Impl::slot_for(const std::string& text, std::uint64_t hash) {
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

const Kernel* Runtime::Impl::find(const std::string& text, std::uint64_t hash) const {
  std::shared_lock lock(slots_mutex);
  auto it = slots.find(hash);
  if (it == slots.end()) return nullptr;
  if (it->second->text == text) return it->second->current.load(std::memory_order_acquire);
  auto other = colliding.find(text);
  return other == colliding.end() ? nullptr
                                  : other->second->current.load(std::memory_order_acquire);
}

const Kernel& Runtime::Impl::install(Slot& slot, std::unique_ptr<Kernel> kernel) {
  const Kernel* raw = kernel.get();
  slot.kept.push_back(std::move(kernel));
  slot.current.store(raw, std::memory_order_release);
  return *raw;
}

}  // namespace cutune
