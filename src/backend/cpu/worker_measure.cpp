// A request's checks and timing in the CPU worker: each candidate loaded, run once from fresh
// buffers and checked (guards, then the reference's outputs), then timed run by run, each run
// checked again; or paired rounds of many candidates after untimed rounds that settle the core.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>

#include "cutune/timing_summary.hpp"
#include "worker.hpp"

namespace cutune::cpu {

proto::MeasureReply Worker::measure(const proto::MeasureRequest& request) {
  auto start = Clock::now();
  proto::MeasureReply reply;
  reply.id = request.id;
  prepare(request);
  auto candidate = check(request.candidate, request, reply);
  if (candidate && request.time) time(candidate.entry, request, reply);
  reply.worker_ms = ms_since(start);
  return reply;
}

proto::RoundsReply Worker::rounds(const proto::RoundsRequest& request) {
  auto start = Clock::now();
  const proto::MeasureRequest& base = request.base;
  proto::RoundsReply reply;
  reply.id = base.id;
  prepare(base);
  std::vector<Loaded> loaded;
  for (const proto::Kernel& kernel : request.candidates) {
    reply.checks.emplace_back();
    loaded.push_back(check(kernel, base, reply.checks.back()));
    reply.kernel_ms += reply.checks.back().kernel_ms;
  }
  // Untimed rounds until the first candidate's round time stops moving: the caches, the
  // branch predictors and the core's frequency are then where they stay for the timed rounds.
  double previous = -1;
  while (reply.warmup_rounds < request.max_warmup_rounds) {
    const std::vector<double> times = round(loaded, request, reply.warmup_rounds, reply);
    ++reply.warmup_rounds;
    const double now = times.empty() ? -1 : times.front();
    if (previous > 0 && now > 0 && std::abs(now - previous) <= request.settled * previous) break;
    previous = now;
  }
  for (int r = 0; r < request.rounds; ++r)
    reply.times_ms.push_back(round(loaded, request, r, reply));
  reply.worker_ms = ms_since(start);
  return reply;
}

Worker::Loaded Worker::check(const proto::Kernel& kernel, const proto::MeasureRequest& request,
                             proto::MeasureReply& reply) {
  auto candidate = load(kernel, reply);
  if (!candidate) return candidate;
  reset_buffers();
  if (request.reference) {
    auto t0 = Clock::now();
    candidate.entry(first_argument(), request.scalars.data());
    reply.kernel_ms += ms_since(t0);
    reply.max_rel_error = 0;
    if (std::string why = verify(request, reply.max_rel_error); !why.empty()) {
      reply.outcome = "wrong_result";
      reply.detail = std::move(why);
      return {};
    }
  }
  reply.outcome = "ok";
  return candidate;
}

std::vector<double> Worker::round(std::vector<Loaded>& loaded, const proto::RoundsRequest& request,
                                  int index, proto::RoundsReply& reply) {
  std::vector<double> times(loaded.size(), -1);
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const std::size_t at = (i + static_cast<std::size_t>(index)) % loaded.size();
    if (!loaded[at]) continue;
    std::vector<double> runs;
    for (int rep = 0; rep < std::max(1, request.reps); ++rep) {
      const auto run = checked_run(loaded[at].entry, request.base, reply.checks[at],
                                   reply.kernel_ms, reply.flush_ms);
      if (!run) {
        reply.checks[at].detail += " in round " + std::to_string(index + 1);
        loaded[at] = {};
        break;
      }
      runs.push_back(*run);
    }
    if (loaded[at]) times[at] = summarize_timings(std::move(runs)).median_ms;
  }
  return times;
}

std::optional<double> Worker::checked_run(Entry entry, const proto::MeasureRequest& request,
                                          proto::MeasureReply& reply, double& kernel_ms,
                                          double& flush_ms) {
  reset_buffers();
  const double run = timed_run(entry, request, kernel_ms, flush_ms);
  if (std::string why = verify(request, reply.max_rel_error); !why.empty()) {
    reply.outcome = "wrong_result";
    reply.detail = std::move(why) + " after a timed run";
    return std::nullopt;
  }
  return run;
}

double Worker::timed_run(Entry entry, const proto::MeasureRequest& request, double& kernel_ms,
                         double& flush_ms) {
  if (request.timing.flush_cache) {
    auto f0 = Clock::now();
    flusher_.flush(buffers_);
    flush_ms += ms_since(f0);
  }
  auto t0 = Clock::now();
  entry(first_argument(), request.scalars.data());
  const double run = ms_since(t0);
  kernel_ms += run;
  return run;
}

void Worker::time(Entry entry, const proto::MeasureRequest& request, proto::MeasureReply& reply) {
  const auto& timing = request.timing;
  for (int i = 0; i < timing.warmup; ++i) {
    auto t0 = Clock::now();
    entry(first_argument(), request.scalars.data());
    reply.kernel_ms += ms_since(t0);
  }
  // The warm-up runs are not compared (they follow one another without a reset), but a write
  // outside the buffers in one of them is still there to see.
  if (std::string damage = damaged_guard(); !damage.empty()) {
    reply.outcome = "wrong_result";
    reply.detail = std::move(damage) + " in a warm-up run";
    return;
  }
  std::vector<double> runs;
  double total = 0;
  while (static_cast<int>(runs.size()) < timing.max_reps &&
         (static_cast<int>(runs.size()) < timing.min_reps || total < timing.budget_ms)) {
    const auto run = checked_run(entry, request, reply, reply.kernel_ms, reply.flush_ms);
    if (!run) return;  // wrong: no timing
    runs.push_back(*run);
    total += *run;
  }
  const TimingSummary summary = summarize_timings(std::move(runs));
  summary.copy_to(reply);
}

Worker::Loaded Worker::load(const proto::Kernel& kernel, proto::MeasureReply& reply) {
  Loaded loaded;
  void* handle = ::dlopen(kernel.object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    reply.outcome = "launch_error";
    reply.detail = std::string("dlopen: ") + ::dlerror();
    return loaded;
  }
  loaded.handle = std::shared_ptr<void>(handle, [](void* h) { ::dlclose(h); });
  loaded.entry = reinterpret_cast<Entry>(::dlsym(handle, kernel.entry.c_str()));
  if (loaded.entry == nullptr) {
    reply.outcome = "launch_error";
    reply.detail =
        "no symbol '" + kernel.entry + "' in " + kernel.object + " (is it declared extern \"C\"?)";
  }
  return loaded;
}

}  // namespace cutune::cpu
