// Measuring a CPU evaluator's compiled candidates in its workers: one candidate a request, retried
// when the machine stopped it, the devices' shares in threads of their own; and paired rounds of
// many candidates on the first worker.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <thread>

#include "cpu_evaluator_impl.hpp"

namespace cutune {
namespace {

// Measurements retried after the worker was killed from outside (eval::WorkerReply) or ran past
// its limit starved by other work (eval/starvation.hpp).
constexpr int kOutsideKillRetries = 2;

}  // namespace

using cpu::Clock;
using cpu::seconds_since;
using cpu::short_number;

int CpuEvaluator::Impl::worker_starts() const {
  int starts = 0;
  for (const auto& worker : workers) starts += worker->starts();
  return starts;
}

Measurement CpuEvaluator::Impl::measure(const std::filesystem::path& object,
                                        const proto::Timing& timing, std::size_t device) {
  auto limit = std::chrono::milliseconds(static_cast<long long>(spec.timing.timeout_s * 1e3));
  eval::WorkerReply reply;
  int attempts = 0;
  // A worker killed from outside, or one that ran past its limit starved by other work on the
  // machine, says nothing of the candidate: measure it again, a few times.
  const auto machine_stopped = [&] {
    return reply.killed_from_outside() ||
           (reply.status == eval::WorkerReply::Status::timeout && reply.starvation.starved);
  };
  while (attempts <= kOutsideKillRetries) {
    reply = workers[device]->request(measure_request(object, timing), limit);
    ++attempts;
    // A stretched try that got the first limit's worth of CPU ran long enough to be judged.
    if (reply.starvation.cpu_s >= 0.5 * spec.timing.timeout_s) reply.starvation.starved = false;
    if (!machine_stopped()) break;
    // Starved: at the same share of the machine, the next try gets about its limit in CPU.
    limit = std::chrono::milliseconds(
        static_cast<long long>(spec.timing.timeout_s * 1e3 * reply.starvation.stretch));
  }
  std::lock_guard lock(stats_mutex);  // workers measure in threads of their own
  stats.measured += static_cast<std::size_t>(attempts);

  if (reply.status == eval::WorkerReply::Status::timeout && reply.starvation.starved) {
    return {.outcome = Outcome::transient,
            .detail = fmt::format("ran past its limit {} times while other work starved it "
                                  "(the last time {}): {}",
                                  attempts, reply.starvation.detail, reply.detail)};
  }
  if (reply.status == eval::WorkerReply::Status::timeout) {
    return {.outcome = Outcome::hang,
            .detail = fmt::format("{} ({})", reply.detail, reply.starvation.detail)};
  }
  if (reply.killed_from_outside()) {
    return {.outcome = Outcome::transient,
            .detail = fmt::format("killed from outside {} times: {}", kOutsideKillRetries + 1,
                                  reply.detail)};
  }
  if (reply.status == eval::WorkerReply::Status::died) {
    return {.outcome = Outcome::crash, .detail = reply.detail};
  }
  auto answer = reply.body.get<proto::MeasureReply>();
  stats.kernel_s += answer.kernel_ms / 1e3;
  stats.flush_s += answer.flush_ms / 1e3;
  stats.worker_s += answer.worker_ms / 1e3;
  return from_reply(answer);
}

Measurement CpuEvaluator::Impl::from_reply(const proto::MeasureReply& answer) const {
  Measurement m;
  if (answer.max_rel_error >= 0) m.max_rel_error = answer.max_rel_error;
  m.detail = answer.detail;
  if (answer.outcome == "ok") {
    m.outcome = Outcome::ok;
    if (answer.repetitions > 0) m.take_timing(answer);
  } else if (answer.outcome == "wrong_result") {
    m.outcome = Outcome::wrong_result;
    m.detail += " (max relative error " + short_number(answer.max_rel_error) + ", tolerance " +
                short_number(tolerance) + ")";
  } else {
    m.outcome = Outcome::launch_error;
    if (answer.outcome != "launch_error") m.detail = "the worker refused: " + m.detail;
  }
  return m;
}

std::vector<Measurement> CpuEvaluator::Impl::run(std::span<const Config> batch,
                                                 const proto::Timing& timing) {
  auto start = Clock::now();
  std::vector<Compiled> compiled = compile(batch);
  std::vector<Measurement> out(compiled.size());
  std::vector<std::size_t> to_measure;
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    out[i] = compiled[i].failure;
    if (!compiled[i].object.empty()) to_measure.push_back(i);
  }
  // The compiled candidates in turn over the devices, each device measuring its share in order
  // in a thread of its own.
  const auto measure_share = [&](std::size_t device) {
    for (std::size_t k = device; k < to_measure.size(); k += workers.size()) {
      const std::size_t i = to_measure[k];
      out[i] = measure(compiled[i].object, timing, device);
      out[i].compile_s = compiled[i].failure.compile_s;
      out[i].device = static_cast<int>(device);
      out[i].device_name = "cpu worker";
    }
  };
  {
    std::vector<std::jthread> others;
    for (std::size_t d = 1; d < workers.size(); ++d) others.emplace_back(measure_share, d);
    measure_share(0);
  }
  stats.candidates += batch.size();
  stats.worker_starts = worker_starts();
  stats.wall_s += seconds_since(start);
  return out;
}

proto::MeasureRequest CpuEvaluator::Impl::measure_request(const std::filesystem::path& object,
                                                          const proto::Timing& timing) {
  proto::MeasureRequest request;
  request.id = next_id++;
  request.candidate = {object.string(), kernel.symbol};
  request.reference = reference;
  request.reference_name = checked_against(spec);
  request.buffers = buffers;
  request.scalars = scalars;
  request.arguments = arguments;
  request.seed = options.seed;
  request.tolerance = tolerance;
  request.timing = timing;
  return request;
}

CpuEvaluator::Impl::Probe CpuEvaluator::Impl::probe(const std::filesystem::path& object,
                                                    const std::string& entry) {
  proto::MeasureRequest request = measure_request(object, timing(1));
  request.candidate.entry = entry;
  request.time = false;
  const auto limit = std::chrono::milliseconds(static_cast<long long>(spec.timing.timeout_s * 1e3));
  const eval::WorkerReply reply = workers.front()->request(request, limit);
  if (reply.status != eval::WorkerReply::Status::ok || !reply.body.is_object()) {
    return {false, "", reply.detail};
  }
  return {true, reply.body.value("outcome", std::string()),
          reply.body.value("detail", std::string())};
}

PairedRounds CpuEvaluator::Impl::rounds(std::span<const Config> configs, int count) {
  auto start = Clock::now();
  PairedRounds out;
  std::vector<Compiled> compiled = compile(configs);
  proto::RoundsRequest request;
  request.base = measure_request({}, timing(1));
  request.rounds = count;
  std::vector<std::size_t> sent;  // config index of each candidate in the request
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    out.checks.push_back(compiled[i].failure);
    if (compiled[i].object.empty()) continue;
    request.candidates.push_back({compiled[i].object.string(), kernel.symbol});
    sent.push_back(i);
  }
  out.steady_state = fmt::format(
      "untimed rounds until the first config's round time moved by under {:.0f}% (at most {}); "
      "each round times every config {} times from a {} cache, median kept",
      request.settled * 100, request.max_warmup_rounds, request.reps,
      spec.timing.flush_cache ? "flushed" : "warm");
  // Every round of every candidate, each bounded as one measurement would be.
  const auto limit = std::chrono::milliseconds(static_cast<long long>(
      spec.timing.timeout_s * 1e3 *
      static_cast<double>(std::max<std::size_t>(1, sent.size()) *
                          static_cast<std::size_t>(count + request.max_warmup_rounds))));
  auto reply = workers.front()->request(request, limit);
  out.rounds.assign(static_cast<std::size_t>(count), TimedRound{});
  for (TimedRound& round : out.rounds) round.times_ms.assign(configs.size(), NAN);
  if (reply.status != eval::WorkerReply::Status::ok) {
    const bool timeout = reply.status == eval::WorkerReply::Status::timeout;
    const Outcome outcome = timeout && !reply.starvation.starved     ? Outcome::hang
                            : timeout || reply.killed_from_outside() ? Outcome::transient
                                                                     : Outcome::crash;
    for (std::size_t i : sent) out.checks[i] = {.outcome = outcome, .detail = reply.detail};
  } else {
    auto answer = reply.body.get<proto::RoundsReply>();
    if (answer.checks.size() != sent.size()) {
      for (std::size_t i : sent) {
        out.checks[i] = {.outcome = Outcome::launch_error,
                         .detail = "the worker refused: " + reply.body.value("detail", "")};
      }
    }
    stats.kernel_s += answer.kernel_ms / 1e3;
    stats.flush_s += answer.flush_ms / 1e3;
    stats.worker_s += answer.worker_ms / 1e3;
    out.warmup_rounds = answer.warmup_rounds;
    for (std::size_t j = 0; j < sent.size() && j < answer.checks.size(); ++j) {
      out.checks[sent[j]] = from_reply(answer.checks[j]);
      for (std::size_t r = 0; r < answer.times_ms.size() && r < out.rounds.size(); ++r) {
        const double t = answer.times_ms[r].at(j);
        if (t >= 0) out.rounds[r].times_ms[sent[j]] = t;
      }
    }
  }
  // The rounds ran on the first device: it measured every config sent there.
  for (std::size_t i : sent) {
    out.checks[i].device = 0;
    out.checks[i].device_name = "cpu worker";
  }
  stats.worker_starts = worker_starts();
  stats.wall_s += seconds_since(start);
  return out;
}

proto::Timing CpuEvaluator::Impl::timing(int scale) const {
  proto::Timing t;
  t.warmup = spec.timing.warmup;
  t.budget_ms = spec.timing.budget_ms * scale;
  t.min_reps = spec.timing.min_reps;
  t.max_reps = spec.timing.max_reps * scale;
  t.flush_cache = spec.timing.flush_cache;
  return t;
}

}  // namespace cutune
