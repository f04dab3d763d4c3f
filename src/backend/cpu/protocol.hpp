// The messages between CpuEvaluator and `cutune-cpu-worker`, one JSON object per line each way:
//   {"op":"measure", ...MeasureRequest}  ->  MeasureReply
//   {"op":"rounds", ...RoundsRequest}    ->  RoundsReply
//   {"op":"quit"}                        ->  (the worker exits with status 0)
// A kernel that crashes takes the worker with it; one that hangs never lets it reply. Both are
// the parent's to notice (eval::WorkerClient), so neither has a reply here.
//
// The kernel ABI the worker calls, for candidates and references alike:
//   extern "C" void ENTRY(void** buffers, const std::int64_t* scalars);
// buffers in the spec's order, scalars in the spec's order.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cutune::cpu::protocol {

// Element types the worker fills, poisons and compares.
inline constexpr std::array<std::string_view, 6> element_types{"f64", "f32", "i32",
                                                               "i64", "u32", "u8"};
inline bool is_element_type(std::string_view type) {
  return std::find(element_types.begin(), element_types.end(), type) != element_types.end();
}
// Bytes per element of one of element_types (0 for any other name).
inline std::size_t element_size(std::string_view type) {
  if (type == "f64" || type == "i64") return 8;
  if (type == "f32" || type == "i32" || type == "u32") return 4;
  if (type == "u8") return 1;
  return 0;
}

struct Kernel {
  std::string object;  // path of the shared object
  std::string entry;   // extern "C" symbol
};

struct Buffer {
  std::string name;  // the spec's, for messages
  std::string type;  // one of element_types
  std::uint64_t count = 0;
  std::string role;  // "input", "output", "scratch", "inout", "partial_sums" (BufferRole's names)
  std::string fill;  // inputs and inouts: "random", "zero" or "positive"
};
// Whether a run starts from the buffer's seeded fill, and whether it is compared afterwards.
inline bool is_filled(const Buffer& b) { return b.role == "input" || b.role == "inout"; }
inline bool is_compared(const Buffer& b) {
  return b.role == "output" || b.role == "inout" || b.role == "partial_sums";
}

// One parameter of a kernel called with its own parameter list (through the call shim of
// cppgen/call_shim.hpp): a buffer's pointer, or a scalar of `type` (i32, i64, u32, u64, f32, f64)
// whose value is `integer` for integer types and `real` for the others.
struct Argument {
  int buffer = -1;  // index into the request's buffers; -1: a scalar
  std::string type;
  std::int64_t integer = 0;
  double real = 0;
};

// Timing and MeasureRequest are this worker's own, not shared with the CUDA worker's
// (cutune/cuda/worker_protocol.hpp), on purpose: that header is public and depends on nothing of
// the tuner's, and what it carries is a GPU launch's (a cubin's entry with its grid, typed buffers
// and __constant__ symbols; a warm-up counted in time so the clocks ramp, a CUDA graph when the
// host's launch rate would be timed, defaults for launches of microseconds), where this one calls
// a shared object's entry on host buffers or a call shim's arguments. The fields both have are
// the spec's TimingSpec, which each evaluator scales for a re-measure.
struct Timing {
  int warmup = 2;
  double budget_ms = 20;
  int min_reps = 3;
  int max_reps = 50;
  bool flush_cache = true;
};

struct MeasureRequest {
  std::uint64_t id = 0;
  Kernel candidate;
  std::optional<Kernel> reference;  // none: outputs are not checked
  std::string reference_name;       // what the reference is, for a wrong result's detail
  std::vector<Buffer> buffers;
  std::vector<std::int64_t> scalars;
  // Non-empty: the entries are call shims, handed a pointer to each argument's value instead of
  // the buffers' pointers (and `scalars`, unused).
  std::vector<Argument> arguments;
  std::uint64_t seed = 1;
  double tolerance = 0;  // normwise relative error allowed
  bool time = true;      // false: check only
  Timing timing;
};

struct MeasureReply {
  std::uint64_t id = 0;
  std::string outcome;  // "ok", "wrong_result", "launch_error"
  double time_ms = -1;  // median of the timed runs
  double min_ms = -1;
  double max_ms = -1;
  double p25_ms = -1;  // quartiles, for the robust spread (cutune/timing_summary.hpp)
  double p75_ms = -1;
  int repetitions = 0;
  std::vector<double> times_ms;  // every timed run, in order
  double max_rel_error = -1;     // -1: not checked; NaN results give +inf
  double kernel_ms = 0;          // every call of the candidate (check, warm-up, timed runs)
  double flush_ms = 0;           // cache eviction between runs
  double worker_ms = 0;          // from receipt of the request to the reply
  std::string detail;
};

// Paired rounds (Evaluator::time_rounds): every candidate is checked as a measure request without
// timing would check it, then untimed warm-up rounds run until the first candidate's round time
// settles, then `rounds` rounds time each candidate `reps` times (cache flushed before each run,
// as measure does) in an order rotated from round to round; a round's time is the median.
struct RoundsRequest {
  MeasureRequest base;  // buffers, scalars, seed, reference, tolerance, timing.flush_cache
  std::vector<Kernel> candidates;
  int rounds = 15;
  int reps = 3;
  int max_warmup_rounds = 20;
  double settled = 0.03;  // warm-up ends when two rounds in a row differ by less than this
};

struct RoundsReply {
  std::uint64_t id = 0;
  std::vector<MeasureReply> checks;           // per candidate: outcome, detail, max_rel_error
  std::vector<std::vector<double>> times_ms;  // [round][candidate]; -1 where the check failed
  int warmup_rounds = 0;
  double kernel_ms = 0;
  double flush_ms = 0;
  double worker_ms = 0;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Kernel, object, entry)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Buffer, name, type, count, role, fill)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Argument, buffer, type, integer, real)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Timing, warmup, budget_ms, min_reps, max_reps,
                                                flush_cache)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MeasureReply, id, outcome, time_ms, min_ms, max_ms,
                                                p25_ms, p75_ms, repetitions, times_ms,
                                                max_rel_error, kernel_ms, flush_ms, worker_ms,
                                                detail)

inline void to_json(nlohmann::json& j, const MeasureRequest& r) {
  j = {{"op", "measure"},          {"id", r.id},           {"candidate", r.candidate},
       {"buffers", r.buffers},     {"scalars", r.scalars}, {"seed", r.seed},
       {"tolerance", r.tolerance}, {"time", r.time},       {"timing", r.timing}};
  if (r.reference) j["reference"] = *r.reference;
  if (r.reference) j["reference_name"] = r.reference_name;
  if (!r.arguments.empty()) j["arguments"] = r.arguments;
}

inline void from_json(const nlohmann::json& j, MeasureRequest& r) {
  r.id = j.value("id", std::uint64_t{0});
  j.at("candidate").get_to(r.candidate);
  if (j.contains("reference")) r.reference = j.at("reference").get<Kernel>();
  r.reference_name = j.value("reference_name", std::string("the reference"));
  r.buffers = j.value("buffers", std::vector<Buffer>{});
  r.scalars = j.value("scalars", std::vector<std::int64_t>{});
  r.arguments = j.value("arguments", std::vector<Argument>{});
  r.seed = j.value("seed", std::uint64_t{1});
  r.tolerance = j.value("tolerance", 0.0);
  r.time = j.value("time", true);
  r.timing = j.value("timing", Timing{});
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RoundsReply, id, checks, times_ms, warmup_rounds,
                                                kernel_ms, flush_ms, worker_ms)

inline void to_json(nlohmann::json& j, const RoundsRequest& r) {
  j = r.base;
  j["op"] = "rounds";
  j["candidates"] = r.candidates;
  j["rounds"] = r.rounds;
  j["reps"] = r.reps;
  j["max_warmup_rounds"] = r.max_warmup_rounds;
  j["settled"] = r.settled;
}

inline void from_json(const nlohmann::json& j, RoundsRequest& r) {
  j.get_to(r.base);
  j.at("candidates").get_to(r.candidates);
  r.rounds = j.value("rounds", 15);
  r.reps = j.value("reps", 3);
  r.max_warmup_rounds = j.value("max_warmup_rounds", 20);
  r.settled = j.value("settled", 0.03);
}

}  // namespace cutune::cpu::protocol
