// cutune-cuda-bench: the CUDA backend's figures on this machine's GPU (docs/perf.md).
//
//   cutune-cuda-bench [--examples DIR] [--json FILE]
//
//   compile    cold-cache compile throughput of the shipped examples' configs, one job per core
//   overhead   tuner time per candidate that is neither compiling nor running the kernel, over
//              every reduction config on a small problem (cubins cached by the compile step)
//   stability  the same config timed by 10 separate tunes (a new evaluator and worker each)
//   faults     the fault spec evaluated to the end, each outcome against the expected one
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cutune/cuda.hpp"
#include "cutune/space.hpp"
#include "faults_expected.hpp"

namespace fs = std::filesystem;

namespace cutune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The outcome's name, for printf's %s and the JSON rows.
std::string outcome_name(Outcome outcome) { return std::string(to_string(outcome)); }

// The legal configs of a spec's search view (at most `limit`), default first.
std::vector<Config> legal_configs(const KernelSpec& spec, const Device& device, std::size_t limit) {
  const Space& space = spec.tuning->space;
  std::vector<Config> out{space.default_config()};
  for (auto& config : space.enumerate(View::search, 1'000'000)) {
    if (out.size() >= limit) break;
    if (config != out.front() && space.legal(config, spec.problem, device)) {
      out.push_back(std::move(config));
    }
  }
  return out;
}

CudaOptions options_with_cache(const fs::path& cache) {
  CudaOptions options;
  options.cache_dir = cache;
  return options;
}

nlohmann::json compile_throughput(const fs::path& examples, const fs::path& cache) {
  nlohmann::json out;
  std::size_t total = 0;
  double wall = 0;
  for (const char* name : {"reduction.json", "tiled_matmul.json"}) {
    KernelSpec spec = load_spec(examples / name);
    CudaEvaluator evaluator(spec, {}, options_with_cache(cache));
    auto configs = legal_configs(spec, Device::h200(), 64);
    auto start = Clock::now();
    auto results = evaluator.compile(configs);
    double seconds = seconds_since(start);
    std::size_t ok =
        std::count_if(results.begin(), results.end(), [](const auto& r) { return r.ok(); });
    out[spec.name] = {{"configs", configs.size()},
                      {"compiled", ok},
                      {"wall_s", seconds},
                      {"per_s", configs.size() / seconds}};
    total += configs.size();
    wall += seconds;
    std::printf("compile    %-13s %4zu configs (%zu ok) in %6.2f s: %6.1f configs/s\n",
                spec.name.c_str(), configs.size(), ok, seconds, configs.size() / seconds);
  }
  out["total"] = {{"configs", total},
                  {"wall_s", wall},
                  {"per_s", total / wall},
                  {"jobs", std::thread::hardware_concurrency()}};
  return out;
}

nlohmann::json pipeline_overhead(const fs::path& examples, const fs::path& cache) {
  KernelSpec spec = load_spec(examples / "reduction.json");
  Problem small;
  small.set("rows", Value(1024));
  small.set("cols", Value(1024));
  CudaEvaluator evaluator(spec, small, options_with_cache(cache));
  auto configs = legal_configs(spec, Device::h200(), 256);
  evaluator.compile(configs);  // compile time is not the figure
  auto results = evaluator.evaluate(configs);
  const auto& stats = evaluator.stats();
  std::size_t ok =
      std::count_if(results.begin(), results.end(), [](const auto& r) { return r.ok(); });
  std::printf(
      "overhead   %zu candidates (%zu ok): %.3f ms per candidate beyond compile and "
      "kernel (wall %.2f s, kernel %.2f s, compile wait %.3f s)\n",
      stats.candidates, ok, stats.overhead_ms_per_candidate(), stats.wall_s, stats.kernel_s,
      stats.compile_wait_s);
  return {{"candidates", stats.candidates},
          {"ok", ok},
          {"overhead_ms_per_candidate", stats.overhead_ms_per_candidate()},
          {"wall_s", stats.wall_s},
          {"kernel_s", stats.kernel_s},
          {"compile_wait_s", stats.compile_wait_s}};
}

nlohmann::json timing_stability(const fs::path& examples, const fs::path& cache) {
  nlohmann::json out;
  for (const char* name : {"tiled_matmul.json", "reduction.json"}) {
    KernelSpec spec = load_spec(examples / name);
    Config config = spec.tuning->space.default_config();
    std::vector<double> medians;
    std::vector<double> iqr_spreads;  // (p75 - p25) / median
    for (int tune = 0; tune < 10; ++tune) {
      CudaEvaluator evaluator(spec, {}, options_with_cache(cache));
      std::vector<Config> batch{config};
      auto m = evaluator.evaluate(batch).front();
      if (!m.ok()) {
        std::printf("stability  %s: %s: %s\n", spec.name.c_str(), outcome_name(m.outcome).c_str(),
                    m.detail.c_str());
        break;
      }
      medians.push_back(m.time_ms);
      iqr_spreads.push_back(m.iqr_spread);
    }
    if (medians.empty()) continue;
    auto [low, high] = std::minmax_element(medians.begin(), medians.end());
    std::printf("stability  %-13s 10 tunes: median %.4f..%.4f ms, max/min %.4f (%.2f%%)\n",
                spec.name.c_str(), *low, *high, *high / *low, (*high / *low - 1) * 100);
    out[spec.name] = {{"config", config.to_json()},
                      {"medians_ms", medians},
                      {"iqr_spreads", iqr_spreads},
                      {"max_over_min", *high / *low}};
  }
  return out;
}

nlohmann::json fault_spec(const fs::path& examples, const fs::path& cache) {
  KernelSpec spec = load_spec(examples / "faults.json");
  CudaEvaluator evaluator(spec, {}, options_with_cache(cache));
  auto configs = spec.tuning->space.enumerate(View::search, 1000);
  auto start = Clock::now();
  auto results = evaluator.evaluate(configs);
  double seconds = seconds_since(start);
  nlohmann::json rows = nlohmann::json::array();
  int right = 0;
  std::printf("faults     %-22s %-16s %-16s %s\n", "config", "expected", "got", "detail");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Outcome expected = examples::expected_fault(configs[i]);
    bool match = results[i].outcome == expected;
    right += match;
    std::string detail = results[i].detail.substr(0, results[i].detail.find('\n')).substr(0, 60);
    std::printf("faults     %-22s %-16s %-16s %s%s\n", configs[i].to_string().c_str(),
                outcome_name(expected).c_str(), outcome_name(results[i].outcome).c_str(),
                match ? "" : "MISMATCH ", detail.c_str());
    rows.push_back({{"config", configs[i].to_json()},
                    {"expected", outcome_name(expected)},
                    {"got", outcome_name(results[i].outcome)},
                    {"detail", results[i].detail.substr(0, 300)}});
  }
  std::printf("faults     %d of %zu classified as expected in %.1f s, %d workers started\n", right,
              configs.size(), seconds, evaluator.stats().worker_starts);
  return {{"rows", rows},
          {"right", right},
          {"total", configs.size()},
          {"wall_s", seconds},
          {"worker_starts", evaluator.stats().worker_starts}};
}

}  // namespace
}  // namespace cutune

int main(int argc, char** argv) {
  fs::path examples = CUTUNE_EXAMPLES_DIR;
  fs::path json_out;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--examples") {
      examples = argv[i + 1];
    } else if (flag == "--json") {
      json_out = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: cutune-cuda-bench [--examples DIR] [--json FILE]\n");
      return 2;
    }
  }
  fs::path cache = fs::temp_directory_path() / ("cutune-cuda-bench-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  try {
    nlohmann::json report;
    report["compile"] = cutune::compile_throughput(examples, cache);
    report["overhead"] = cutune::pipeline_overhead(examples, cache);
    report["stability"] = cutune::timing_stability(examples, cache);
    report["faults"] = cutune::fault_spec(examples, cache);
    if (!json_out.empty()) std::ofstream(json_out) << report.dump(2) << '\n';
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cutune-cuda-bench: %s\n", error.what());
    return 1;
  }
  fs::remove_all(cache);
  return 0;
}
