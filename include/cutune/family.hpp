// A kernel family: everything cutune knows about one kernel, in one record. `cutune tune`,
// `cutune space`, the runtime (cutune/runtime.hpp) and the benchmarks take a Family; each family
// lives in one folder of src/families and the built-in ones are listed in one table
// (builtin_families(), listed in src/families/CMakeLists.txt; docs/families.md shows how to add
// one).
//
// Who may call what: builtin_families() and find_family() from any thread (the table is built on
// first use); a Family's functions as each one's comment says.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/evaluator.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/measurement.hpp"
#include "cutune/problem.hpp"
#include "cutune/store.hpp"

namespace cutune {

struct KernelSpec;

// Where the config of a loaded kernel came from.
// `nearest`: an untuned problem given the winner of the nearest tuned shape (cutune/lookup.hpp).
enum class KernelOrigin { store, dispatch, nearest, default_config, tuned };

std::string_view to_string(KernelOrigin origin);

// A compiled config, loaded and ready to launch. Families derive from it (CpuKernel, CudaKernel
// in cutune/runtime.hpp, GemmRuntimeKernel in cutune/gemm.hpp).
class Kernel {
 public:
  virtual ~Kernel() = default;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const Config& config() const { return config_; }
  KernelOrigin origin() const { return origin_; }

  // The family's kernel type; throws std::bad_cast when the kernel is of another family.
  template <class K>
  const K& as() const {
    return dynamic_cast<const K&>(*this);
  }

 protected:
  Kernel(Config config, KernelOrigin origin) : config_(std::move(config)), origin_(origin) {}

 private:
  Config config_;
  KernelOrigin origin_;
};

// An evaluator made by a family for one problem, with what it measures on.
struct FamilyEvaluator {
  // Its device_name() and toolchain() are the store key's device and toolchain.
  std::unique_ptr<Evaluator> evaluator;
  Device device;  // what constraints and seeds see: the device the evaluator measures on
  // Times the family's reference (Family::reference_name) on the same problem, data and timing,
  // through this evaluator; empty: the family has none.
  std::function<Measurement()> time_reference = {};
};

struct Family {
  std::string name;     // TuningKey::family
  std::string version;  // TuningKey::family_version: the hash of what is compiled
  std::string summary;  // one line, for `cutune space`
  // The space and seeds; must outlive the family (built-in ones live for the whole program).
  const TuningSpace* tuning = nullptr;
  Problem example_problem;  // what a command uses when given no problem
  // The device constraints and seeds see before any evaluator reports one (`cutune space`), and
  // for the runtime's loads. Required: builtin_families() and spec_family() refuse a family
  // whose device has no name, so that no command goes around the family for it.
  Device device;
  // Fills the family's defaults into a problem: the problem of the key a tune writes and the
  // runtime reads. Throws std::invalid_argument for a problem the family cannot run. Empty:
  // problems are taken as given.
  std::function<Problem(const Problem&)> resolve;
  // An evaluator for tunes of one (resolved) problem, measuring on `devices`: CUDA ordinals, one
  // worker each with candidates spread over them (the CPU backend starts that many worker
  // processes); empty: the family's own one device. Throws std::runtime_error when the machine
  // cannot measure (no worker, no GPU). Empty: the family cannot be tuned here.
  std::function<FamilyEvaluator(const Problem&, const std::vector<int>& devices)> make_evaluator;
  // Runtime families only (empty in the table of built-in families): compiles (through the
  // backend's cache) and loads a config; throws std::runtime_error naming the config and why it
  // cannot be loaded; called from several threads at once. With the store key's device and
  // toolchain of loads on this machine.
  std::function<std::unique_ptr<Kernel>(const Config&, const Problem&, KernelOrigin)> load;
  std::string device_key;
  std::string toolchain;
  // The vendor reference a report compares with, and the work of one run for rates (empty: none).
  std::string reference_name;
  // What every candidate's outputs are compared with, for the tune's output: "the default config"
  // (a spec without a check), "the reference kernel 'naive'", "cuBLASLt"; empty: nothing is.
  std::string checked_against;
  std::function<double(const Problem&)> flop_count;
  // A config's short name for tables and scripts (the GEMM's "128x256x64_s4_c2x1_coop_rn8_k1",
  // which its benchmarks take); empty: the family has none. Throws ConfigError for a config of
  // another space.
  std::function<std::string(const Config&)> config_name;

  // Resolves `problem` (resolve, when given).
  Problem resolved(const Problem& problem) const { return resolve ? resolve(problem) : problem; }

  // The store key of `problem` (resolved) measured on `device` with `toolchain`: the only place
  // a key is built from a family.
  TuningKey key(const Problem& problem, std::string device, std::string toolchain) const {
    return TuningKey{name, version, problem.canonical(), std::move(device), std::move(toolchain)};
  }
};

// The families built into this build, in table order (src/families/CMakeLists.txt; the GEMM family
// only in a build with the CUDA backend). Built on first use; throws std::runtime_error when a
// family's sources cannot be read then.
const std::vector<Family>& builtin_families();
const Family* find_family(std::string_view name);  // nullptr when unknown
std::vector<std::string> family_names();           // names only: builds no family

// The tuning family (no loader) of a kernel spec file, by its backend. The spec must outlive the
// family. Throws std::invalid_argument for a backend this build lacks (naming those it has).
Family spec_family(const KernelSpec& spec);

// A family as a user names it, and for a spec file the spec it points into (kept alive with it).
struct FamilySource {
  std::shared_ptr<KernelSpec> spec;  // null for a built-in family
  Family family;
};

// The one "name or spec path -> family" of the CLI and the Python package: a file is a kernel
// spec, else a built-in family's name. Throws std::invalid_argument for a name that is neither
// (naming the built-in families), and what load_spec throws for a bad spec file.
FamilySource family_source(const std::string& spec_or_family);

// The one problem rule: an empty text is the family's example; a built-in family's example
// arguments are overridden one by one ("m=128" keeps its n, k and dtype); a spec's text is taken
// as given; then resolved by the family (Family::resolved). Throws std::invalid_argument for a
// malformed text or a problem the family rejects.
Problem problem_for(const FamilySource& source, std::string_view text);

}  // namespace cutune
