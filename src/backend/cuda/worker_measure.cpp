// A request's checks and timing in the device worker: each candidate launched once from restored
// inputs and checked (guards, then the reference's outputs), timed (in one graph when launches are
// shorter than the host's enqueue) and checked again; or paired rounds of many candidates.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "cutune/timing_summary.hpp"
#include "worker.hpp"

namespace cutune::cuda::worker {

proto::MeasureReply Worker::measure(const proto::MeasureRequest& request) {
  proto::MeasureReply reply;
  reply.id = request.id;
  reply.sm_clock_start_mhz = clock_->mhz();
  try {
    prepare(request);
    if (request.rounds > 0) {
      run_rounds(request, reply);
    } else {
      CUfunction candidate = function(request.candidate, request);
      auto check_start = std::chrono::steady_clock::now();
      bool correct = check_candidate(candidate, request.candidate, request, reply);
      reply.kernel_ms = milliseconds_since(check_start);
      if (correct && request.time) {
        auto timing_start = std::chrono::steady_clock::now();
        auto args = params(request.args);
        time([&] { launch(candidate, request.candidate, args); }, request.timing, reply);
        correct = checked_after_timing(candidate, request.candidate, request, reply);
        reply.kernel_ms += milliseconds_since(timing_start);
      }
      if (correct) reply.outcome = "ok";
    }
  } catch (const LaunchRefused& refused) {
    reply.outcome = "launch_error";
    reply.detail = refused.what();
  }
  reply.sm_clock_end_mhz = clock_->mhz();
  return reply;
}

bool Worker::check_candidate(CUfunction candidate, const proto::Launch& shape,
                             const proto::MeasureRequest& request, proto::MeasureReply& reply) {
  restore_inputs();
  reset_outputs(request.args);
  for (const GuardedBuffer& buffer : workspace_.working) buffer.poison(stream_);
  launch(candidate, shape, params(request.args));
  sync("candidate");
  if (std::string damage = damaged_guard(request.args); !damage.empty()) {
    reply.outcome = "wrong_result";
    reply.detail = std::move(damage);
    return false;
  }
  if (!request.reference) return true;
  for (std::size_t i = 0; i < request.args.size(); ++i) {
    const auto& arg = request.args[i];
    if (!arg.is_buffer || !proto::is_compared(arg.role)) continue;
    std::vector<std::byte> got(workspace_.working[i].bytes);
    check(cuMemcpyDtoH(got.data(), workspace_.working[i].pointer, got.size()), "cuMemcpyDtoH");
    Comparison result = compare(got, workspace_.expected[i], arg.dtype, arg.count,
                                arg.role == proto::Role::partial_sums);
    reply.max_rel_error = std::max(reply.max_rel_error, result.max_rel_error);
    double limit = request.tolerance >= 0 ? request.tolerance : proto::default_tolerance(arg.dtype);
    if (!result.problem.empty() || !(result.max_rel_error <= limit)) {
      reply.outcome = "wrong_result";
      reply.detail =
          "argument " + std::to_string(i) + " (" + nlohmann::json(arg.role).get<std::string>() +
          ") differs from " + request.reference_name + ": " +
          (result.problem.empty() ? "relative error " + std::to_string(result.max_rel_error) +
                                        " above tolerance " + std::to_string(limit)
                                  : result.problem);
      return false;
    }
  }
  return true;
}

std::string Worker::damaged_guard(const std::vector<proto::Arg>& args) const {
  for (std::size_t i = 0; i < workspace_.working.size() && i < args.size(); ++i) {
    const std::string role = nlohmann::json(args[i].role).get<std::string>();
    std::string damage =
        workspace_.working[i].damage("argument " + std::to_string(i) + " (" + role + ")");
    if (!damage.empty()) return damage;
  }
  return {};
}

bool Worker::checked_after_timing(CUfunction candidate, const proto::Launch& shape,
                                  const proto::MeasureRequest& request,
                                  proto::MeasureReply& reply) {
  if (std::string damage = damaged_guard(request.args); !damage.empty()) {
    reply.outcome = "wrong_result";
    reply.detail = "during its timed runs: " + damage;
    return false;
  }
  return recheck_after_timing(
      [&](proto::MeasureReply& checked) {
        return check_candidate(candidate, shape, request, checked);
      },
      reply);
}

void Worker::run_rounds(const proto::MeasureRequest& request, proto::MeasureReply& reply) {
  std::vector<std::pair<CUfunction, const proto::Launch*>> passed;
  for (const proto::Launch& shape : request.candidates) {
    proto::MeasureReply checked;
    try {
      CUfunction candidate = function(shape, request);
      if (check_candidate(candidate, shape, request, checked)) {
        checked.outcome = "ok";
        passed.emplace_back(candidate, &shape);
      } else {
        passed.emplace_back(nullptr, nullptr);
      }
    } catch (const LaunchRefused& refused) {
      checked.outcome = "launch_error";
      checked.detail = refused.what();
      passed.emplace_back(nullptr, nullptr);
    }
    reply.candidate_outcomes.push_back(checked.outcome);
    reply.candidate_details.push_back(checked.detail);
  }
  restore_inputs();
  const std::vector<void*> args = params(request.args);
  std::vector<std::function<void()>> timed;
  for (const auto& [candidate, shape] : passed) {
    timed.emplace_back();
    if (candidate != nullptr) {
      timed.back() = [this, candidate, shape, &args] { launch(candidate, *shape, args); };
    }
  }
  run_paired_rounds(*this, timed, {}, request.rounds, request.reps, reply);
  // Damage during the rounds names no candidate; each one's re-checks, with guards of its own,
  // find a kernel that writes out of bounds (or is wrong) only sometimes.
  recheck_after_rounds(
      timed,
      [&](std::size_t j, proto::MeasureReply& checked) {
        return check_candidate(passed[j].first, *passed[j].second, request, checked);
      },
      reply);
}

bool Worker::run_graph(const std::function<void()>& launch_once, int reps, bool flush) {
  timer_->reserve(reps);
  if (cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS) {
    return false;
  }
  bool captured = true;
  try {
    timer_->enqueue(launch_once, reps, flush, true);
  } catch (const std::exception&) {
    captured = false;
  }
  CUgraph graph = nullptr;
  if (cuStreamEndCapture(stream_, &graph) != CUDA_SUCCESS || !captured) {
    if (graph) cuGraphDestroy(graph);
    return false;
  }
  CUgraphExec exec = nullptr;
  bool ok = cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS;
  cuGraphDestroy(graph);
  if (!ok) return false;
  CUresult launched = cuGraphLaunch(exec, stream_);
  if (launched == CUDA_SUCCESS) sync("timed graph");
  cuGraphExecDestroy(exec);
  return launched == CUDA_SUCCESS;
}

void Worker::time(const std::function<void()>& launch_once, const proto::Timing& timing,
                  proto::MeasureReply& reply) {
  auto warm_start = std::chrono::steady_clock::now();
  do {
    for (int i = 0; i < std::max(1, timing.warmup); ++i) launch_once();
    sync("warm-up");
  } while (milliseconds_since(warm_start) < timing.warmup_ms);
  // A first estimate, in a warm L2, sizes the repetitions to the budget.
  constexpr int kProbes = 3;
  timer_->enqueue_span([&] {
    for (int i = 0; i < kProbes; ++i) launch_once();
  });
  sync("warm-up");
  double estimate_ms = std::max(1e-4, timer_->span_ms() / kProbes);
  int reps = static_cast<int>(std::ceil(timing.budget_ms / estimate_ms));
  reps = std::clamp(reps, std::max(1, timing.min_reps), std::max(1, timing.max_reps));

  // Short kernels are launched faster by the GPU than the host can enqueue them: a graph
  // removes the host from the timed region.
  constexpr double kLaunchGapMs = 0.02;
  bool want_graph = timing.graph == "on" || (timing.graph == "auto" && estimate_ms < kLaunchGapMs);
  reply.graph = want_graph && run_graph(launch_once, reps, timing.flush_l2);
  if (!reply.graph) {
    timer_->enqueue(launch_once, reps, timing.flush_l2);
    sync("timed repetitions");
  }
  const cutune::TimingSummary summary = cutune::summarize_timings(timer_->elapsed(reps));
  summary.copy_to(reply);
}

}  // namespace cutune::cuda::worker
