// The state behind cutune::Runtime and its parts, one file each: runtime.cpp (the public API and
// the order in which a kernel is resolved), kernel_cache.cpp (families, the slots of loaded
// kernels, warnings), kernel_sources.cpp (a kernel from the store, the exported winners or the
// dispatch rule, and the rule for an untuned shape) and runtime_tunes.cpp (tunes on a miss, now
// or in the background). Internal to cutune_runtime.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cutune/dispatch.hpp"
#include "cutune/runtime.hpp"
#include "runtime/winners.hpp"

namespace cutune {
namespace runtime {

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

}  // namespace runtime

struct Runtime::Impl {
  using Added = runtime::Added;
  using Slot = runtime::Slot;

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

  explicit Impl(RuntimeOptions o);

  // kernel_cache.cpp
  void warn(std::string message);
  Added& family(std::string_view name) const;
  Slot& slot_for(const std::string& text, std::uint64_t hash);
  const Kernel* find(const std::string& text, std::uint64_t hash) const;
  static const Kernel& install(Slot& slot, std::unique_ptr<Kernel> kernel);

  // kernel_sources.cpp
  LookupOptions table_options();
  runtime::Chosen choose(const Family& f, const Problem& problem);
  std::optional<StoredResult> stored_winner(const Family& f, const Problem& problem);
  std::unique_ptr<Kernel> from_exported(const Family& f, const Problem& problem);
  std::unique_ptr<Kernel> from_store(const Family& f, const Problem& problem);
  std::unique_ptr<Kernel> from_dispatch(const Added& family, const Problem& problem);
  std::unique_ptr<Kernel> untuned(const Family& f, const Problem& problem);

  // runtime_tunes.cpp
  bool can_tune(const Family& f);
  std::optional<Config> run_tune(const Family& f, const Problem& problem, std::stop_token stop);
  std::unique_ptr<Kernel> tuned(const Family& f, const Problem& problem, std::stop_token stop);
  void tune_in_background(const Family& f, const Problem& problem, Slot& slot);

  // runtime.cpp
  const Kernel& resolve(const KernelQuery& query, Policy policy, Slot& slot);
};

}  // namespace cutune
