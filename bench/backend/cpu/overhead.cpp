// Tuner overhead per candidate, excluding compile and kernel time (target: under 5 ms).
// Evaluates a batch of candidates twice through CpuEvaluator: cold (compiled) and warm (served
// from the disk cache), then warm again with cache flushing between timed runs, and prints where
// the time went.
//
//   bench_cpu_overhead [--candidates N]
#include <fmt/core.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "cutune/cpu.hpp"
#include "cutune/space.hpp"

namespace {

struct Row {
  std::string name;
  cutune::CpuEvaluationStats stats;
};

cutune::CpuEvaluationStats delta(const cutune::CpuEvaluationStats& after,
                                 const cutune::CpuEvaluationStats& before) {
  cutune::CpuEvaluationStats d;
  d.candidates = after.candidates - before.candidates;
  d.measured = after.measured - before.measured;
  d.wall_s = after.wall_s - before.wall_s;
  d.compile_s = after.compile_s - before.compile_s;
  d.compile_wall_s = after.compile_wall_s - before.compile_wall_s;
  d.kernel_s = after.kernel_s - before.kernel_s;
  d.flush_s = after.flush_s - before.flush_s;
  d.worker_s = after.worker_s - before.worker_s;
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 40;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--candidates") == 0) count = std::stoul(argv[i + 1]);
  }
  auto spec = cutune::load_spec(CUTUNE_BENCH_DIR "/noop.json");
  std::vector<cutune::Config> batch;
  for (std::size_t i = 0; i < count; ++i) {
    batch.push_back(spec.tuning->space.complete({{"SCALE", static_cast<std::int64_t>(i + 1)}}));
  }
  cutune::CpuOptions options;
  options.cache_dir =
      std::filesystem::temp_directory_path() / ("cutune-overhead-" + std::to_string(::getpid()));
  std::vector<Row> rows;
  {
    cutune::CpuEvaluator evaluator(spec, {}, options);
    auto before = evaluator.stats();
    evaluator.evaluate(batch);
    rows.push_back({"cold (compiles)", delta(evaluator.stats(), before)});
    before = evaluator.stats();
    evaluator.evaluate(batch);
    rows.push_back({"warm (disk cache)", delta(evaluator.stats(), before)});
  }
  spec.timing.flush_cache = true;
  {
    cutune::CpuEvaluator evaluator(spec, {}, options);
    evaluator.evaluate(batch);  // starts the worker and fills its flush buffer
    auto before = evaluator.stats();
    evaluator.evaluate(batch);
    rows.push_back({"warm, cache flushed", delta(evaluator.stats(), before)});
  }
  std::filesystem::remove_all(options.cache_dir);

  fmt::print("{} candidates per pass, {} timed runs each\n\n", count, spec.timing.max_reps);
  fmt::print("{:<22}{:>10}{:>12}{:>11}{:>10}{:>11}{:>13}\n", "pass", "wall ms", "compile ms",
             "kernel ms", "flush ms", "worker ms", "overhead ms");
  bool within_target = true;
  for (const auto& row : rows) {
    auto per = [&](double seconds) {
      return seconds * 1e3 / static_cast<double>(row.stats.candidates);
    };
    double overhead = row.stats.overhead_ms_per_candidate();
    fmt::print("{:<22}{:>10.3f}{:>12.3f}{:>11.3f}{:>10.3f}{:>11.3f}{:>13.3f}\n", row.name,
               per(row.stats.wall_s), per(row.stats.compile_wall_s), per(row.stats.kernel_s),
               per(row.stats.flush_s), per(row.stats.worker_s), overhead);
    within_target = within_target && overhead < 5.0;
  }
  fmt::print(
      "\nper candidate; worker: time inside the worker process (kernel and flush included);\n"
      "overhead = wall - compile - kernel - flush (target < 5 ms): {}\n",
      within_target ? "met" : "MISSED");
  return within_target ? 0 : 1;
}
