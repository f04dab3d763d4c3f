#include "compiled_source.hpp"

#include <cmath>
#include <fstream>

#include "cppgen/call_shim.hpp"
#include "cppgen/cpp_writer.hpp"
#include "hash/content_hash.hpp"

namespace cutune::cpu {

CompiledSource compiled_source(const KernelSpec& spec, const std::filesystem::path& source,
                               const std::string& entry, const std::filesystem::path& cache_dir) {
  if (spec.arguments.empty()) return {source, source, entry};
  std::vector<std::string> parameters;
  for (const ArgumentSpec& argument : spec.arguments) {
    parameters.push_back(argument.buffer >= 0 ? "buffer" : argument.type);
  }
  std::string text;
  try {
    text = cppgen::call_shim(source.string(), entry, parameters);
  } catch (const cppgen::NameError& error) {
    throw std::invalid_argument(spec.path.string() + ": " + error.what());
  }
  // The source's extension: a C kernel stays C for a C compiler (and C++ for g++, as Kernel
  // Tuner compiles its C kernels).
  const auto folder = cache_dir / "shims";
  std::filesystem::create_directories(folder);
  const auto file = folder / (hash::content_hash(text).hex() + source.extension().string());
  if (!std::filesystem::exists(file)) {
    const auto partial = file.string() + ".partial";
    std::ofstream(partial, std::ios::binary) << text;
    std::filesystem::rename(partial, file);  // atomic: another tune may write it at once
  }
  return {source, file, std::string(cppgen::call_shim_symbol)};
}

std::vector<protocol::Argument> worker_arguments(const KernelSpec& spec, const Problem& problem) {
  std::vector<protocol::Argument> out;
  const Device device = Device::host_cpu();
  for (const ArgumentSpec& argument : spec.arguments) {
    protocol::Argument a;
    a.buffer = argument.buffer;
    if (argument.buffer < 0) {
      a.type = argument.type;
      a.real = argument.value.evaluate(problem, device);
      a.integer = std::llround(a.real);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace cutune::cpu
