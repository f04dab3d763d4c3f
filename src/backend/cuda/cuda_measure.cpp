// A CudaEvaluator's measurements (cuda_evaluator_impl.hpp): a batch, each candidate compiled and
// measured on the next free device worker, and paired rounds of several configs timed together
// for the tournament.
#include <chrono>
#include <cmath>
#include <mutex>

#include "cuda_evaluator_impl.hpp"
#include "eval/backend_support.hpp"

namespace cutune {
namespace {

namespace proto = cuda::protocol;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

PairedRounds CudaEvaluator::Impl::rounds(std::span<const Config> configs, int count) {
  PairedRounds out;
  out.checks.assign(configs.size(), Measurement{});
  out.rounds.assign(static_cast<std::size_t>(std::max(0, count)), TimedRound{});
  for (TimedRound& round : out.rounds) round.times_ms.assign(configs.size(), NAN);
  proto::MeasureRequest request = measure_request(timing(1));
  request.rounds = count;
  std::vector<std::shared_future<cuda::CompileResult>> compiles;
  for (const Config& config : configs) {
    compiles.push_back(compiler->submit(compile_request(spec.source, config, spec.entry)));
  }
  std::vector<std::size_t> sent;  // config index of each candidate in the request
  for (std::size_t i = 0; i < configs.size(); ++i) {
    std::optional<proto::Launch> launch = launch_of(configs[i], out.checks[i].detail);
    const cuda::CompileResult& compiled = compiles[i].get();
    if (!launch) {
      out.checks[i].outcome = Outcome::invalid_config;
    } else if (!compiled.ok()) {
      out.checks[i] = failed_compile(compiled);
    } else {
      launch->cubin = compiled.cubin.string();
      launch->kernel = compiled.symbol(spec.entry);
      request.candidates.push_back(*launch);
      sent.push_back(i);
    }
  }
  // The watchdog allows four times the budget: the spec's budget per candidate and round
  // (plus the reference's check), warm-up rounds (at most 40) included.
  request.timing.budget_ms *= static_cast<double>((count + 40) * (sent.size() + 1));
  cuda::read_paired_rounds(workers->measure(0, request), sent, out);
  out.steady_state =
      "untimed rounds until the first config's time moved by under 2 % and the SM clock by "
      "under 1 %; each round times every config " +
      std::to_string(request.reps) + " times from a flushed L2, median kept";
  return out;
}

std::vector<Measurement> CudaEvaluator::Impl::run(std::span<const Config> batch,
                                                  const proto::Timing& timing) {
  auto start = Clock::now();
  std::vector<std::shared_future<cuda::CompileResult>> compiles;
  std::vector<std::optional<proto::Launch>> launches;
  std::vector<Measurement> out(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    launches.push_back(launch_of(batch[i], out[i].detail));
    if (!launches.back()) out[i].outcome = Outcome::invalid_config;
    compiles.push_back(compiler->submit(compile_request(spec.source, batch[i], spec.entry)));
  }
  // Each slot takes the next candidate, waits for its cubin, and measures it.
  std::mutex merge;
  eval::for_each_on_slots(workers->size(), batch.size(), [&](std::size_t slot, std::size_t i) {
    auto wait_start = Clock::now();
    const cuda::CompileResult& compiled = compiles[i].get();
    double waited = seconds_since(wait_start);
    Measurement m = out[i];
    std::optional<cuda::DeviceResult> result;
    if (!compiled.ok()) {
      m = failed_compile(compiled);
    } else if (launches[i]) {
      proto::MeasureRequest request = measure_request(timing);
      request.candidate = *launches[i];
      request.candidate.cubin = compiled.cubin.string();
      request.candidate.kernel = compiled.symbol(spec.entry);
      result = workers->measure(slot, request);
      m = result->measurement;
    }
    m.compile_s = compiled.compile_s;
    std::lock_guard lock(merge);
    stats.compile_s += compiled.compile_s;
    stats.compile_wait_s += waited;
    if (result) {
      ++stats.measured;
      stats.kernel_s += result->reply.kernel_ms / 1e3;
    }
    out[i] = std::move(m);
  });
  stats.candidates += batch.size();
  stats.worker_starts = workers->workers_started();
  stats.wall_s += seconds_since(start);
  return out;
}

}  // namespace cutune
