// What the runtime costs per launch on the CPU: a raw call of a loaded kernel's entry point
// against the same call through Runtime::get (with a prepared query, and by family name and
// problem). The kernel is the stencil example on a 16 x 16 grid, so that the call itself is tiny.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "cutune/runtime.hpp"
#include "cutune/spec.hpp"

namespace {

struct Fixture {
  cutune::KernelSpec spec =
      cutune::load_spec(std::filesystem::path(CUTUNE_EXAMPLES_DIR) / "cpu/stencil/stencil.json");
  cutune::Runtime runtime{[] {
    cutune::RuntimeOptions options;
    options.on_warning = [](const std::string&) {};
    return options;
  }()};
  cutune::Problem problem = cutune::Problem::parse("n=16");
  cutune::KernelQuery query;
  std::vector<float> in = std::vector<float>(16 * 16, 1.0f), out = std::vector<float>(16 * 16);
  void* buffers[2] = {in.data(), out.data()};
  std::int64_t scalars[1] = {16};

  Fixture() {
    runtime.add_family(cutune::cpu_spec_family(spec));
    query = runtime.query("cpu_stencil", problem);
    (void)runtime.get(query);  // compile and load outside the timed loops
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void RawCall(benchmark::State& state) {
  auto& f = fixture();
  const auto entry = f.runtime.get(f.query).as<cutune::CpuKernel>().entry();
  for (auto _ : state) {
    entry(f.buffers, f.scalars);
    benchmark::ClobberMemory();
  }
}

void GetWithQuery(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    f.runtime.get(f.query).as<cutune::CpuKernel>()(f.buffers, f.scalars);
    benchmark::ClobberMemory();
  }
}

void GetByNameAndProblem(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) {
    f.runtime.get("cpu_stencil", f.problem).as<cutune::CpuKernel>()(f.buffers, f.scalars);
    benchmark::ClobberMemory();
  }
}

void GetOnly(benchmark::State& state) {
  auto& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(&f.runtime.get(f.query));
}

BENCHMARK(RawCall);
BENCHMARK(GetWithQuery);
BENCHMARK(GetWithQuery)->Threads(2);
BENCHMARK(GetByNameAndProblem);
BENCHMARK(GetOnly);
BENCHMARK(GetOnly)->Threads(2);

}  // namespace

BENCHMARK_MAIN();
