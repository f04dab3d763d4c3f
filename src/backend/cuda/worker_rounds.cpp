// Paired rounds on the worker (declared in worker_host.hpp): one piece for every family, so the
// GEMM op and the generic spec request reach steady state and time their rounds the same way.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "worker_host.hpp"

namespace cutune::cuda::worker {

void run_paired_rounds(Host& host, const std::vector<std::function<void()>>& launches,
                       const std::function<void()>& reference, int rounds, int reps,
                       protocol::MeasureReply& reply, bool flush_l2) {
  protocol::Timing per_round;  // `reps` launches (flushed unless told) after one untimed, no graph
  per_round.flush_l2 = flush_l2;
  per_round.warmup = 1;
  per_round.warmup_ms = 0;
  per_round.budget_ms = 0;
  per_round.min_reps = std::max(1, reps);
  per_round.max_reps = per_round.min_reps;
  per_round.graph = "off";
  const auto time_once = [&](const std::function<void()>& launch) {
    protocol::MeasureReply timed;
    host.time(launch, per_round, timed);
    return timed.time_ms;
  };
  // Without a reference, the first candidate that passed its check (the tournament's default)
  // is the time that must settle.
  std::size_t settling = launches.size();
  for (std::size_t i = 0; i < launches.size() && settling == launches.size(); ++i) {
    if (launches[i]) settling = i;
  }
  // Each round starts one candidate later than the last, so no candidate always runs first.
  const auto round = [&](int index, std::vector<double>& times) {
    times.assign(launches.size(), -1);
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const std::size_t at = (i + static_cast<std::size_t>(index)) % launches.size();
      if (launches[at]) times[at] = time_once(launches[at]);
    }
    if (reference) return time_once(reference);
    return settling < times.size() ? times[settling] : -1.0;
  };
  std::vector<double> times;
  double previous_ms = -1;
  int previous_mhz = -1;
  constexpr int kMinWarmup = 3;
  constexpr int kMaxWarmup = 40;
  while (reply.warmup_rounds < kMaxWarmup) {
    const double settling_ms = round(reply.warmup_rounds, times);
    const int mhz = host.sm_clock_mhz();
    ++reply.warmup_rounds;
    const bool settled = previous_ms > 0 &&
                         std::abs(settling_ms - previous_ms) <= 0.02 * previous_ms &&
                         std::abs(mhz - previous_mhz) <= 0.01 * std::max(previous_mhz, 1);
    if (settled && reply.warmup_rounds >= kMinWarmup) break;
    previous_ms = settling_ms;
    previous_mhz = mhz;
  }
  for (int r = 0; r < rounds; ++r) {
    const double settling_ms = round(r, times);
    reply.round_reference_ms.push_back(reference ? settling_ms : -1.0);
    reply.round_ms.push_back(times);
    reply.round_sm_clock_mhz.push_back(host.sm_clock_mhz());
    reply.round_power_w.push_back(host.power_w());
  }
  reply.outcome = "ok";
}

bool recheck_after_timing(const std::function<bool(protocol::MeasureReply&)>& check_once,
                          protocol::MeasureReply& reply) {
  for (int again = 1; again <= kRechecksAfterTiming; ++again) {
    protocol::MeasureReply checked;
    if (check_once(checked)) continue;
    reply.outcome = checked.outcome;
    reply.detail = "check " + std::to_string(again) + " of " +
                   std::to_string(kRechecksAfterTiming) +
                   " after its timed runs: " + checked.detail;
    reply.max_rel_error = std::max(reply.max_rel_error, checked.max_rel_error);
    return false;
  }
  return true;
}

void recheck_after_rounds(
    const std::vector<std::function<void()>>& launches,
    const std::function<bool(std::size_t, protocol::MeasureReply&)>& check_one,
    protocol::MeasureReply& reply) {
  for (std::size_t j = 0; j < launches.size() && j < reply.candidate_outcomes.size(); ++j) {
    if (!launches[j]) continue;
    protocol::MeasureReply again;
    if (recheck_after_timing([&](protocol::MeasureReply& checked) { return check_one(j, checked); },
                             again)) {
      continue;
    }
    reply.candidate_outcomes[j] = again.outcome;
    reply.candidate_details[j] = again.detail;
    for (std::vector<double>& round : reply.round_ms) {
      if (j < round.size()) round[j] = -1;
    }
  }
}

}  // namespace cutune::cuda::worker
