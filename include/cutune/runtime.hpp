// The runtime: hands a program the tuned kernel for a (family, problem), ready to launch.
//
//   cutune::Runtime runtime({.store = cutune::Store::default_path()});
//   runtime.add_family(cutune::cpu_spec_family(spec));
//   const auto query = runtime.query("cpu_matmul", cutune::Problem::parse("m=512,n=512,k=512"));
//   runtime.get(query).as<cutune::CpuKernel>()(buffers, scalars);  // a hash lookup after the first
//
// The first get() of a (family, problem) resolves a config: the store's winner when the key was
// tuned; otherwise (with Policy::tune_now, after a tune) the family's dispatch rule when one was
// added (cutune/dispatch.hpp); otherwise the one rule for an untuned shape (cutune/lookup.hpp): the
// winner of the nearest tuned shape within kNearestShapeDistance, repaired for the problem, else
// default_config, with a warning that says which; and with Policy::tune_in_background a tune in a
// background thread whose winner every later get() returns. Kernels are kept in memory for the
// runtime's life, so a reference from get() stays valid even after a background tune swaps in its
// winner.
//
// A store that cannot be opened (missing, corrupt, another program's) or a stored config that no
// longer fits the family is reported through RuntimeOptions::on_warning and never stops the
// program: the runtime falls back as if the key were untuned.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/family.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/lookup.hpp"
#include "cutune/problem.hpp"
#include "cutune/store.hpp"
#include "cutune/tune.hpp"
#include "cutune/warm_start.hpp"

// The CUDA driver API's handle types (cuda.h), so that this header does not need the toolkit.
struct CUfunc_st;
struct CUstream_st;

namespace cutune {

class Dispatcher;
struct KernelSpec;

// What the runtime does on the first request for a problem the store has no winner for (and no
// dispatch rule covers).
enum class Policy {
  default_now,         // the family's default_config, at once; never tunes
  tune_now,            // tunes before returning (blocks for the whole tune)
  tune_in_background,  // default_config now; a tune in a background thread swaps its winner in
};

// A CPU kernel of a spec: its entry point in a loaded shared object, with the CPU backend's ABI
// (buffers and scalars in the spec's order, see cutune/cpu.hpp). For a spec with `arguments` the
// entry is the generated call shim: `buffers[i]` points at the kernel's i-th parameter's value (a
// buffer's pointer, or a scalar of its type), `scalars` unused.
class CpuKernel final : public Kernel {
 public:
  using Entry = void (*)(void** buffers, const std::int64_t* scalars);

  // `library` keeps the shared object loaded for as long as the kernel lives.
  CpuKernel(Config config, KernelOrigin origin, std::shared_ptr<void> library, Entry entry)
      : Kernel(std::move(config), origin), library_(std::move(library)), entry_(entry) {}

  void operator()(void** buffers, const std::int64_t* scalars) const { entry_(buffers, scalars); }
  Entry entry() const { return entry_; }

 private:
  std::shared_ptr<void> library_;
  Entry entry_;
};

// A CUDA kernel of a spec: one function of a cubin loaded into the CUDA context of its family,
// with its launch shape for one problem. Needs cutune_family_spec_cuda_runtime (built with
// CUTUNE_CUDA).
class CudaKernel final : public Kernel {
 public:
  struct Shape {
    std::array<std::uint32_t, 3> grid{1, 1, 1};
    std::array<std::uint32_t, 3> block{1, 1, 1};
    std::array<std::uint32_t, 3> cluster{1, 1, 1};
    std::uint32_t shared_bytes = 0;  // dynamic shared memory
  };

  // `module` keeps the cubin loaded for as long as the kernel lives.
  CudaKernel(Config config, KernelOrigin origin, std::shared_ptr<void> module, CUfunc_st* function,
             Shape shape)
      : Kernel(std::move(config), origin),
        module_(std::move(module)),
        function_(function),
        shape_(shape) {}

  // Enqueues the kernel with cuLaunchKernelEx. `params` as cuLaunchKernelEx takes them: a pointer
  // to each argument, the spec's buffers (device pointers) then its scalars (long long). Returns
  // the CUresult (0: CUDA_SUCCESS).
  int launch(CUstream_st* stream, void** params) const;
  CUfunc_st* function() const { return function_; }
  const Shape& shape() const { return shape_; }

 private:
  std::shared_ptr<void> module_;
  CUfunc_st* function_;
  Shape shape_;
};

struct CpuFamilyOptions {
  // Compiled kernels. Empty: the CPU backend's default cache folder.
  std::filesystem::path cache_dir = {};
};

// The family of a CPU kernel spec (backend "cpu"). The spec must outlive the family. Runs the
// compiler once (its version is part of the key); throws std::invalid_argument for a spec of
// another backend.
Family cpu_spec_family(const KernelSpec& spec, CpuFamilyOptions options = {});

struct CudaFamilyOptions {
  std::filesystem::path cache_dir = {};  // cubins; empty: the CUDA backend's default
  int device = 0;                        // CUDA ordinal the backend's worker measures on
};

// The family of a CUDA kernel spec (backend "cuda"). Kernels are loaded into the CUDA context
// current on the calling thread now (background tunes load into it too), so one must be. Starts
// the CUDA backend's worker for that device (it compiles and, for tunes, measures). Needs
// cutune_family_spec_cuda_runtime. Throws std::invalid_argument for a spec of another backend and
// std::runtime_error without a current context.
Family cuda_spec_family(const KernelSpec& spec, CudaFamilyOptions options = {});

// A (family, problem) with its lookup hash computed once: the cheapest way to ask again and again.
class KernelQuery {
 public:
  const std::string& family() const { return family_; }
  const Problem& problem() const { return problem_; }  // resolved by the family
  std::uint64_t hash() const { return hash_; }

 private:
  friend class Runtime;
  std::string family_;
  Problem problem_;
  std::string text_;  // family and canonical problem: tells hash collisions apart
  std::uint64_t hash_ = 0;
};

// get() could not produce any kernel: even the default config fails to load.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RuntimeOptions {
  std::optional<std::filesystem::path> store = {};  // none: no store, every problem is untuned
  // A file `cutune export --json` wrote, read instead of a store (tunes record nothing then); its
  // winners answer as a store's would.
  std::optional<std::filesystem::path> winners = {};
  OpenMode store_mode = OpenMode::read_only;  // read_write lets tunes record what they measure
  Policy policy = Policy::default_now;
  TuneOptions tune = {};  // for the tune policies; warm_start is filled from the nearest winners
  std::size_t warm_start_neighbours =
      kWarmStartNeighbours;  // winners of the nearest tuned shapes a tune starts from
  // A tune's transfer priors: the family's results on other devices and shapes in the store, as
  // `cutune tune` looks for them (TuneSessionOptions::transfer); false: `--no-transfer`.
  bool transfer = true;
  // Every problem the runtime recovered from (store unreadable, stored config rejected, tune
  // failed). Empty: printed to stderr as "cutune: ...". Called from any thread.
  std::function<void(const std::string&)> on_warning = {};
};

// Thread-safe: any number of threads may call get() at once.
class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();  // asks background tunes to stop after their current batch and waits for them
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Add families and dispatch rules before other threads call get().
  // Throws std::invalid_argument for a family without a name, space or loader, or a name taken.
  void add_family(Family family);
  // Makes `dispatcher` the source of configs for its family's untuned problems (instead of the
  // policy). Throws std::invalid_argument when its family was not added.
  void add_dispatch(Dispatcher dispatcher);

  // Throws std::invalid_argument for an unknown family, or a problem the family rejects.
  KernelQuery query(std::string_view family, const Problem& problem) const;

  // The kernel for the query. A repeat call is a hash lookup. Throws RuntimeError when no config,
  // not even the default, can be loaded.
  const Kernel& get(const KernelQuery& query);
  const Kernel& get(const KernelQuery& query, Policy policy);
  const Kernel& get(std::string_view family, const Problem& problem) {
    return get(query(family, problem));
  }

  // Why the store could not be opened, when it could not.
  std::optional<std::string> store_error() const;
  std::vector<std::string> warnings() const;  // every warning so far, oldest first
  // Blocks until every background tune started so far has finished and swapped its winner in.
  void wait_for_background();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// For a program that reads `cutune export --json` with the lookup-only LookupTable: options that
// answer an untuned shape as Runtime does, the nearest tuned shape's config repaired by its
// family's space, else the family's default_config. A family not given keeps its configs as tuned
// and has no default. Fallbacks are printed unless on_fallback is set. Throws nothing.
LookupOptions family_lookup_options(std::vector<Family> families);

}  // namespace cutune
