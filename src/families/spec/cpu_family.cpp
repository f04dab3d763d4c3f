// The runtime's side of the CPU backend: a spec's configs compiled with the backend's own compile
// command and loaded into this process with dlopen.
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cppgen/call_shim.hpp"
#include "cutune/cpu.hpp"
#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"
#include "eval/backend_support.hpp"
#include "eval/compile_pool.hpp"
#include "eval/files.hpp"
#include "hash/content_hash.hpp"
#include "spec/spec_family.hpp"

namespace cutune {
namespace {

CpuOptions cpu_options(const std::filesystem::path& cache_dir) {
  CpuOptions options;
  options.cache_dir = cache_dir;
  return options;
}

// Compiles configs of one spec into shared objects (cached on disk) and loads them. The compile
// command is the CPU backend's, so a loaded kernel is the very code that was measured.
class CpuLoader {
 public:
  CpuLoader(const KernelSpec& spec, CpuFamilyOptions options)
      : spec_(spec),
        // Any problem serves: the command depends on the config only (sizes are scalars).
        commands_(spec, spec.problem, cpu_options(options.cache_dir)),
        pool_(options.cache_dir.empty() ? eval::default_cache_dir("runtime")
                                        : options.cache_dir / "runtime") {
    hash::ContentHash base;
    base.field(commands_.toolchain())
        .field(commands_.device_name())
        .field(eval::read_file(spec.source));
    for (const auto& depend : spec.compile.depends) base.field(eval::read_file(depend));
    key_base_ = base.hex();
  }

  const CpuEvaluator& evaluator() const { return commands_; }

  std::unique_ptr<Kernel> load(const Config& config, KernelOrigin origin) {
    eval::CompileRequest request;
    request.command = commands_.compile_command(config);
    hash::ContentHash key;
    key.field(key_base_);
    for (const auto& arg : request.command) key.field(arg);
    request.key = key.hex();
    request.limit =
        std::chrono::milliseconds(static_cast<long long>(spec_.compile.timeout_s * 1e3));
    const eval::CompileResult result = pool_.submit(std::move(request)).get();
    if (result.status != eval::CompileResult::Status::ok) {
      throw std::runtime_error(
          fmt::format("config {} of {} does not compile{}: {}", config.to_string(), spec_.name,
                      result.status == eval::CompileResult::Status::timeout ? " in time" : "",
                      eval::compile_failure_detail(result.log, result.log_file)));
    }
    void* handle = dlopen(result.output.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      throw std::runtime_error(
          fmt::format("cannot load {}: {}", result.output.string(), dlerror()));
    }
    std::shared_ptr<void> library(handle, [](void* h) { dlclose(h); });
    // With `arguments` the object's entry is the call shim the backend compiled around it.
    const std::string entry =
        spec_.arguments.empty() ? spec_.entry : std::string(cppgen::call_shim_symbol);
    void* symbol = dlsym(handle, entry.c_str());
    if (symbol == nullptr) {
      throw std::runtime_error(fmt::format("{} has no entry point '{}' (is it extern \"C\"?)",
                                           result.output.string(), entry));
    }
    return std::make_unique<CpuKernel>(config, origin, std::move(library),
                                       reinterpret_cast<CpuKernel::Entry>(symbol));
  }

 private:
  const KernelSpec& spec_;
  CpuEvaluator commands_;
  eval::CompilePool pool_;
  std::string key_base_;
};

// The family without its loader: what the tool's tunes need.
Family cpu_tuning_family(const KernelSpec& spec, const CpuFamilyOptions& options) {
  Family f = families::spec_common(spec, "cpu");
  f.device = Device::host_cpu();
  f.make_evaluator = [&spec, cache_dir = options.cache_dir](const Problem& problem,
                                                            const std::vector<int>& devices) {
    // On the CPU backend a device is a worker process.
    CpuOptions measure = cpu_options(cache_dir);
    measure.devices = std::max<unsigned>(1, static_cast<unsigned>(devices.size()));
    return FamilyEvaluator{std::make_unique<CpuEvaluator>(spec, problem, measure),
                           Device::host_cpu()};
  };
  return f;
}

}  // namespace

Family families::spec_cpu(const KernelSpec& spec) { return cpu_tuning_family(spec, {}); }

Family cpu_spec_family(const KernelSpec& spec, CpuFamilyOptions options) {
  Family f = cpu_tuning_family(spec, options);
  auto loader = std::make_shared<CpuLoader>(spec, options);
  f.device_key = loader->evaluator().device_name();
  f.toolchain = loader->evaluator().toolchain();
  f.load = [loader](const Config& config, const Problem&, KernelOrigin origin) {
    return loader->load(config, origin);
  };
  return f;
}

}  // namespace cutune
