// The messages between the tuner and `cutune-cuda-worker`, one JSON object per line each way.
// This header is all the worker shares with the tuner, so it depends on nothing but the standard
// library and nlohmann-json.
//
// Requests (tuner -> worker):
//   {"op":"hello"}                               -> {"ok":true,"device":DeviceReport}
//   {"op":"measure","request":MeasureRequest}   -> MeasureReply
//   {"op":"family","family":NAME,"request":{...}} -> MeasureReply (FamilyRequest: a request of a
//                                                  kernel family's own, handed to its mode)
//   {"op":"quit"}                                -> (the worker exits with status 0)
// A worker that meets a sticky CUDA error replies with outcome "crash" and exits: its context is
// unusable. A worker that hangs never replies; the tuner's watchdog kills it.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cutune::cuda::protocol {

using Dim3 = std::array<std::uint32_t, 3>;

// One kernel launch: which function of which cubin, and its launch shape.
struct Launch {
  std::string cubin;   // path of the cubin file
  std::string kernel;  // entry symbol (the lowered name for templates)
  Dim3 grid{1, 1, 1};
  Dim3 block{1, 1, 1};
  Dim3 cluster{1, 1, 1};           // {1,1,1}: no cluster attribute is passed
  std::uint32_t dynamic_smem = 0;  // bytes; above 48 KiB the worker opts in first
};

// Element types the worker can fill, poison and compare.
enum class Dtype { f64, f32, f16, bf16, i32, i64, u32, u64, u8 };

enum class Role {
  input,    // filled once (seeded random non-zero values, or zeros), restored before every launch
  output,   // poisoned (NaN; integers 0x7f bytes) before every launch, compared with the reference
  scratch,  // zeroed before every launch, never compared
  inout,    // filled and restored as an input, compared as an output
  partial_sums,  // zeroed before every launch, compared by the sum of its elements
};
// What an input or inout holds before the first launch.
enum class Fill {
  random,    // seeded random non-zero values
  zero,      // zeros
  positive,  // the random values' magnitudes
};
// Whether a launch starts from the buffer's fill, and whether it is compared afterwards.
inline bool is_filled(Role role) { return role == Role::input || role == Role::inout; }
inline bool is_compared(Role role) {
  return role == Role::output || role == Role::inout || role == Role::partial_sums;
}

// One kernel parameter: a device buffer (passed as its pointer) or a scalar passed by value.
struct Arg {
  bool is_buffer = true;
  Dtype dtype = Dtype::f32;
  std::uint64_t count = 0;  // buffer elements
  Role role = Role::input;
  Fill fill = Fill::random;  // inputs and inouts
  double value = 0;          // scalars: converted to dtype
  bool hidden = false;       // a buffer that only fills a constant: not a kernel parameter
};

// A __constant__ symbol of the launched module, written before each launch of a request: with
// the (pristine) contents of argument `arg`'s buffer, or with `values` converted to `dtype`.
struct Constant {
  std::string symbol;
  int arg = -1;  // -1: values
  Dtype dtype = Dtype::f32;
  std::vector<double> values;
};

struct Timing {
  int warmup = 3;           // untimed launches before measuring...
  double warmup_ms = 20.0;  // ...repeated until this much time has passed: clocks ramp up
  double budget_ms = 50.0;  // stop repeating once the timed repetitions reach this much
  int min_reps = 10;
  int max_reps = 500;
  bool flush_l2 = true;        // overwrite a buffer of twice the L2 before every repetition
  std::string graph = "auto";  // "auto": a CUDA graph when launch gaps would dominate; "on"; "off"
};

struct MeasureRequest {
  std::uint64_t id = 0;
  Launch candidate;
  std::optional<Launch> reference;  // none: the candidate is only timed
  std::string reference_name;       // what the reference is, for a wrong result's detail
  std::vector<Arg> args;
  std::vector<Constant> constants;  // written into the candidate's and the reference's modules
  std::uint64_t seed = 1;           // input values; the same seed gives the same inputs
  double tolerance = -1;            // max relative error; negative: the default for the dtype
  bool time = true;                 // false: only check correctness
  Timing timing;
  // rounds > 0: paired rounds of `candidates` instead (candidate unused): each checked as above,
  // untimed rounds until the first candidate's time and the SM clock settle, then `rounds` rounds
  // timing each `reps` times (timing.flush_l2 ignored: always flushed) in an order rotated from
  // round to round. The reply's round_reference_ms is -1 (no reference is timed).
  std::vector<Launch> candidates;
  int rounds = 0;
  int reps = 5;
};

struct MeasureReply {
  std::uint64_t id = 0;
  // cutune::Outcome's names: ok, crash, wrong_result, launch_error, transient (the machine's
  // trouble, such as no device memory left; the worker then exits as after a crash)
  std::string outcome;
  double time_ms = -1;  // median
  double min_ms = -1;
  double max_ms = -1;
  double p25_ms = -1;  // quartiles, for the robust spread (cutune/timing_summary.hpp)
  double p75_ms = -1;
  int repetitions = 0;
  std::vector<double> times_ms;  // every timed repetition, in order
  bool graph = false;
  double max_rel_error = -1;
  int sm_clock_start_mhz = 0;  // 0 when NVML could not tell
  int sm_clock_end_mhz = 0;
  double worker_ms = 0;  // time the worker spent on the request, from receipt to reply
  double kernel_ms = 0;  // of which running the candidate: check launch, warm-up, timed repetitions
  std::string detail;
  // Paired rounds (a MeasureRequest with rounds > 0, or a family request for them, e.g. the
  // GEMM's): per candidate its check's outcome and detail; per round each candidate's median of its
  // L2-flushed launches (-1: failed its check) and the reference's (cuBLASLt for the GEMM; -1
  // without one), with the SM clock and board power read after the round (0: NVML could not tell).
  std::vector<std::string> candidate_outcomes;
  std::vector<std::string> candidate_details;
  std::vector<std::vector<double>> round_ms;
  std::vector<double> round_reference_ms;
  std::vector<int> round_sm_clock_mhz;
  std::vector<double> round_power_w;
  int warmup_rounds = 0;
};

// A request of a kernel family's own (src/families/NAME), which the worker hands, unread, to that
// family's mode (the worker's table of families, src/families/CMakeLists.txt); the reply is a
// MeasureReply. The family defines the request (e.g. src/families/gemm/gemm_protocol.hpp).
struct FamilyRequest {
  std::string family;
  nlohmann::json request;  // the family's own; its "id" comes back in the reply
  Timing timing;           // the watchdog waits four times timing.budget_ms longer when `time`
  bool time = true;
};

struct DeviceReport {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int regs_per_sm = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t smem_optin_bytes = 0;
  int driver_version = 0;
  std::string pci_bus_id;
};

// How a results store's key names a device, "NVIDIA H200 (sm_90)", and a toolchain on it,
// "<compiler>; driver 13000". Every CUDA evaluator and runtime family writes them alike, so that
// the runtime finds what tunes stored.
inline std::string device_key(const std::string& name, int cc_major, int cc_minor) {
  return name + " (sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + ")";
}
inline std::string toolchain_key(const std::string& compiler, int driver_version) {
  return compiler + "; driver " + std::to_string(driver_version);
}

// Default tolerance on the normwise relative error, max|x - ref| / max|ref|, per dtype.
inline double default_tolerance(Dtype dtype) {
  switch (dtype) {
    case Dtype::f64:
      return 1e-9;
    case Dtype::f32:
      return 1e-4;
    case Dtype::f16:
      return 5e-3;
    case Dtype::bf16:
      return 2e-2;
    default:
      return 0.0;  // integers must match exactly
  }
}

inline std::size_t dtype_size(Dtype dtype) {
  switch (dtype) {
    case Dtype::f64:
    case Dtype::i64:
    case Dtype::u64:
      return 8;
    case Dtype::u8:
      return 1;
    case Dtype::f16:
    case Dtype::bf16:
      return 2;
    default:
      return 4;
  }
}

NLOHMANN_JSON_SERIALIZE_ENUM(Dtype, {{Dtype::f64, "f64"},
                                     {Dtype::f32, "f32"},
                                     {Dtype::f16, "f16"},
                                     {Dtype::bf16, "bf16"},
                                     {Dtype::i32, "i32"},
                                     {Dtype::i64, "i64"},
                                     {Dtype::u32, "u32"},
                                     {Dtype::u64, "u64"},
                                     {Dtype::u8, "u8"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Role, {{Role::input, "input"},
                                    {Role::output, "output"},
                                    {Role::scratch, "scratch"},
                                    {Role::inout, "inout"},
                                    {Role::partial_sums, "partial_sums"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Fill, {{Fill::random, "random"},
                                    {Fill::zero, "zero"},
                                    {Fill::positive, "positive"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Launch, cubin, kernel, grid, block, cluster,
                                                dynamic_smem)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Arg, is_buffer, dtype, count, role, fill, value,
                                                hidden)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Constant, symbol, arg, dtype, values)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Timing, warmup, warmup_ms, budget_ms, min_reps,
                                                max_reps, flush_l2, graph)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MeasureReply, id, outcome, time_ms, min_ms, max_ms,
                                                p25_ms, p75_ms, repetitions, times_ms, graph,
                                                max_rel_error, sm_clock_start_mhz, sm_clock_end_mhz,
                                                worker_ms, kernel_ms, detail, candidate_outcomes,
                                                candidate_details, round_ms, round_reference_ms,
                                                round_sm_clock_mhz, round_power_w, warmup_rounds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DeviceReport, name, cc_major, cc_minor, sm_count,
                                                regs_per_sm, l2_bytes, smem_optin_bytes,
                                                driver_version, pci_bus_id)

inline void to_json(nlohmann::json& j, const MeasureRequest& r) {
  j = {{"id", r.id},        {"candidate", r.candidate}, {"args", r.args},
       {"seed", r.seed},    {"tolerance", r.tolerance}, {"time", r.time},
       {"timing", r.timing}};
  if (r.reference) j["reference"] = *r.reference;
  if (r.reference) j["reference_name"] = r.reference_name;
  if (!r.constants.empty()) j["constants"] = r.constants;
  if (r.rounds > 0) {
    j["candidates"] = r.candidates;
    j["rounds"] = r.rounds;
    j["reps"] = r.reps;
  }
}

inline void from_json(const nlohmann::json& j, MeasureRequest& r) {
  r.id = j.value("id", std::uint64_t{0});
  j.at("candidate").get_to(r.candidate);
  if (j.contains("reference")) r.reference = j.at("reference").get<Launch>();
  r.reference_name = j.value("reference_name", std::string("the reference"));
  r.args = j.value("args", std::vector<Arg>{});
  r.constants = j.value("constants", std::vector<Constant>{});
  r.seed = j.value("seed", std::uint64_t{1});
  r.tolerance = j.value("tolerance", -1.0);
  r.time = j.value("time", true);
  r.timing = j.value("timing", Timing{});
  r.candidates = j.value("candidates", std::vector<Launch>{});
  r.rounds = j.value("rounds", 0);
  r.reps = j.value("reps", 5);
}

}  // namespace cutune::cuda::protocol
