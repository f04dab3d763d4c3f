// What every measure request of a CudaEvaluator carries besides its candidate
// (cuda_evaluator_impl.hpp): the kernel's arguments and constants as the spec describes them, and
// the reference kernel its check compares against.
#include <cmath>
#include <map>
#include <stdexcept>

#include "cuda_evaluator_impl.hpp"
#include "eval/backend_support.hpp"

namespace cutune {
namespace {

namespace proto = cuda::protocol;

proto::Dtype dtype_named(const std::string& type, const KernelSpec& spec) {
  static const std::map<std::string, proto::Dtype> types = {
      {"f64", proto::Dtype::f64},   {"f32", proto::Dtype::f32}, {"f16", proto::Dtype::f16},
      {"bf16", proto::Dtype::bf16}, {"i32", proto::Dtype::i32}, {"i64", proto::Dtype::i64},
      {"u32", proto::Dtype::u32},   {"u64", proto::Dtype::u64}, {"u8", proto::Dtype::u8}};
  auto found = types.find(type);
  if (found == types.end()) {
    throw std::invalid_argument(spec.path.string() + ": buffer type " + type +
                                " is not one the CUDA worker knows");
  }
  return found->second;
}

// The worker's role for a spec's buffer role. Spelled out rather than read through the roles' JSON
// names: an enum name the wire does not know would read back silently as its first role, input.
proto::Role worker_role(BufferRole role) {
  switch (role) {
    case BufferRole::input:
      return proto::Role::input;
    case BufferRole::output:
      return proto::Role::output;
    case BufferRole::scratch:
      return proto::Role::scratch;
    case BufferRole::inout:
      return proto::Role::inout;
    case BufferRole::partial_sums:
      return proto::Role::partial_sums;
  }
  throw std::logic_error("a buffer role without a worker role");
}

proto::Fill worker_fill(BufferFill fill) {
  switch (fill) {
    case BufferFill::random:
      return proto::Fill::random;
    case BufferFill::zero:
      return proto::Fill::zero;
    case BufferFill::positive:
      return proto::Fill::positive;
  }
  throw std::logic_error("a buffer fill without a worker fill");
}

}  // namespace

void CudaEvaluator::Impl::set_arguments() {
  std::vector<proto::Arg> buffers;
  for (const auto& buffer : spec.buffers) {
    double count = buffer.count.evaluate(problem, device);
    if (!(count >= 1) || count > 1e12) {
      throw std::invalid_argument(spec.path.string() + ": buffer '" + buffer.name + "' size '" +
                                  buffer.count.text() + "' is " + std::to_string(count));
    }
    proto::Arg arg;
    arg.dtype = dtype_named(buffer.type, spec);
    arg.count = static_cast<std::uint64_t>(std::llround(count));
    arg.role = worker_role(buffer.role);
    arg.fill = worker_fill(buffer.fill);
    buffers.push_back(arg);
  }
  const auto scalar = [&](const std::string& type, const Expression& value) {
    proto::Arg arg;
    arg.is_buffer = false;
    arg.dtype = dtype_named(type, spec);
    const double v = value.evaluate(problem, device);
    arg.value = type[0] == 'f' ? v : static_cast<double>(std::llround(v));
    return arg;
  };
  if (spec.arguments.empty()) {  // the fixed ABI: buffers, then scalars as long long
    args = buffers;
    for (const auto& value : spec.scalars) args.push_back(scalar("i64", value));
  }
  for (const auto& argument : spec.arguments) {
    args.push_back(argument.buffer >= 0 ? buffers[static_cast<std::size_t>(argument.buffer)]
                                        : scalar(argument.type, argument.value));
  }
  for (const auto& constant : spec.constants) {
    proto::Constant out;
    out.symbol = constant.symbol;
    if (constant.buffer >= 0 && spec.arguments.empty()) {
      out.arg = constant.buffer;  // every buffer is an argument of the fixed ABI
    } else if (constant.buffer >= 0) {
      // The argument of that buffer when it is one, else the buffer appended as an argument the
      // kernel never sees (the worker fills it like any input).
      out.arg = -1;
      for (std::size_t i = 0; i < spec.arguments.size(); ++i) {
        if (spec.arguments[i].buffer == constant.buffer) out.arg = static_cast<int>(i);
      }
      if (out.arg < 0) {
        out.arg = static_cast<int>(args.size());
        args.push_back(buffers[static_cast<std::size_t>(constant.buffer)]);
        args.back().hidden = true;
      }
    } else {
      out.dtype = dtype_named(constant.type, spec);
      out.values = constant.values;
    }
    constants.push_back(out);
  }
}

void CudaEvaluator::Impl::set_reference() {
  if (spec.check) {
    tolerance = spec.check->tolerance;
    const auto& space = spec.tuning->space;
    Config config = spec.check->reference_config ? space.complete(*spec.check->reference_config)
                                                 : space.default_config();
    auto source = spec.check->source.empty() ? spec.source : spec.check->source;
    auto entry = spec.check->entry.empty() ? spec.entry : spec.check->entry;
    auto compiled = compiler->compile(compile_request(source, config, entry));
    if (!compiled.ok()) {
      throw std::runtime_error(checked_against(spec) + " of " + source.string() +
                               ", the reference, does not compile:\n" +
                               eval::log_excerpt(compiled.log));
    }
    std::string why;
    auto launch = launch_of(config, why, spec.check->launch ? &*spec.check->launch : nullptr);
    if (!launch) {
      throw std::runtime_error(checked_against(spec) + ", the reference, has no launch: " + why);
    }
    launch->cubin = compiled.cubin.string();
    launch->kernel = compiled.symbol(entry);
    reference = launch;
  }
}

proto::MeasureRequest CudaEvaluator::Impl::measure_request(const proto::Timing& timing) {
  proto::MeasureRequest request;
  request.id = next_id++;
  request.reference = reference;
  request.reference_name = checked_against(spec);
  request.args = args;
  request.constants = constants;
  request.seed = options.seed;
  request.tolerance = tolerance;
  request.timing = timing;
  return request;
}

}  // namespace cutune
