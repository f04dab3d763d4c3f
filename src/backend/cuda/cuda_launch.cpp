// A config of a CudaEvaluator as the worker takes it (cuda_evaluator_impl.hpp): the cubin compile
// request with the knobs defined, the launch by the spec's launch shape, the timing the spec asks
// for, and a failed compile as a measurement.
#include <cmath>
#include <stdexcept>

#include "cubin_symbols.hpp"
#include "cuda_evaluator_impl.hpp"
#include "eval/backend_support.hpp"
#include "eval/files.hpp"

namespace cutune {
namespace {

namespace proto = cuda::protocol;

// The knob definitions of the CPU backend (knob_definitions, cutune/spec.hpp), so that one kernel
// source serves both, as the (name, value) pairs a cubin compile request takes.
void add_knob_defines(const Config& config, std::vector<std::pair<std::string, std::string>>& out) {
  for (const std::string& definition : knob_definitions(config)) {
    const auto equals = definition.find('=');
    out.emplace_back(definition.substr(0, equals), definition.substr(equals + 1));
  }
}

LaunchShape shape_of(const LaunchSpec& launch, const Config& config, const Problem& problem,
                     const Device& device) {
  auto dimension = [&](const Expression& e, double least) {
    const double value = e.evaluate(config, problem, device);
    if (!(value >= least) || value > 2147483647.0) {
      throw std::invalid_argument("launch expression '" + e.text() + "' gives " +
                                  std::to_string(value));
    }
    return static_cast<std::uint32_t>(std::llround(value));
  };
  LaunchShape shape;
  for (int axis = 0; axis < 3; ++axis) {
    shape.grid[axis] = dimension(launch.grid[axis], 1);
    shape.block[axis] = dimension(launch.block[axis], 1);
    shape.cluster[axis] = dimension(launch.cluster[axis], 1);
  }
  shape.shared_bytes = dimension(launch.shared_memory, 0);
  return shape;
}

}  // namespace

LaunchShape launch_shape(const KernelSpec& spec, const Config& config, const Problem& problem,
                         const Device& device) {
  return shape_of(*spec.launch, config, problem, device);
}

cuda::CompileRequest CudaEvaluator::Impl::compile_request(const std::filesystem::path& source,
                                                          const Config& config,
                                                          const std::string& entry) {
  cuda::CompileRequest request;
  request.source = source == spec.source ? source_text : eval::read_file(source);
  request.source_name = source.filename().string();
  request.arch = options.arch;
  request.compiler = compiler_kind;
  add_knob_defines(config, request.defines);
  request.include_dirs.push_back(source.parent_path());
  for (const auto& depend : spec.compile.depends) {
    request.include_dirs.push_back(depend.parent_path());
  }
  request.options = spec.compile.flags;
  // An entry is a name expression, so that it need not be extern "C" (Kernel Tuner's kernels
  // seldom are): under NVRTC a template instantiation or a plain name, under nvcc a plain name.
  if (compiler_kind == cuda::CompilerKind::nvrtc || cuda::cubin_symbols::is_plain_name(entry)) {
    request.name_expressions.push_back(entry);
  }
  return request;
}

// The launch of a config by the kernel's launch shape, or by `other` (a reference's own).
std::optional<proto::Launch> CudaEvaluator::Impl::launch_of(const Config& config, std::string& why,
                                                            const LaunchSpec* other) const {
  try {
    const LaunchShape shape = shape_of(other ? *other : *spec.launch, config, problem, device);
    proto::Launch launch;
    for (int axis = 0; axis < 3; ++axis) {
      launch.grid[axis] = shape.grid[axis];
      launch.block[axis] = shape.block[axis];
      launch.cluster[axis] = shape.cluster[axis];
    }
    launch.dynamic_smem = shape.shared_bytes;
    return launch;
  } catch (const std::invalid_argument& e) {
    why = e.what();
    return std::nullopt;
  }
}

proto::Timing CudaEvaluator::Impl::timing(int scale) const {
  proto::Timing t;
  t.warmup = spec.timing.warmup;
  t.budget_ms = spec.timing.budget_ms * scale;
  t.min_reps = spec.timing.min_reps;
  t.max_reps = spec.timing.max_reps * scale;
  t.flush_l2 = spec.timing.flush_cache;
  return t;
}

Measurement CudaEvaluator::Impl::failed_compile(const cuda::CompileResult& result) const {
  Measurement m;
  m.outcome = cuda::outcome_of(result.status);
  m.detail = eval::compile_failure_detail(result.log, result.log_file, result.cached);
  return m;
}

}  // namespace cutune
