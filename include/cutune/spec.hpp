// A kernel spec: a JSON file that lets a user tune a kernel of their own, on the CPU or on a CUDA
// device, without writing C++ for the tuner. It names the kernel source and entry point, the
// tunable knobs (fragments with their search views), constraints between knobs and problem sizes
// (muparser expressions, with an optional repair), the problem arguments, the buffers the kernel
// takes and how to fill them, how to check the output, heuristic seeds, and for CUDA the launch
// shape. docs/spec-format.md describes the format with a full example.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/heuristics.hpp"
#include "cutune/problem.hpp"

namespace cutune {

// A malformed spec. what() is "file:line:col: what was expected", pointing into the spec file.
class SpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An arithmetic or logical expression over knobs, problem arguments and device properties,
// evaluated by muparser. Names it may use:
//   a number or boolean knob          its value (booleans are 0 and 1)
//   a string enum knob KNOB           the index of its value among its choices; every choice C
//                                     that is an identifier is also the constant KNOB_C
//   a list or permutation knob KNOB   its elements as KNOB_0, KNOB_1, ...
//   a numeric problem argument        its value (the spec's default when the problem lacks it)
//   device_smem_per_block, device_sm_count, device_regs_per_sm, device_cc (major * 10 + minor)
// Beyond muparser's operators and functions: a % b, floor(x), ceil(x), cdiv(a, b) = ceil(a / b).
// Safe to evaluate from several threads.
class Expression {
 public:
  Expression() = default;
  const std::string& text() const;
  bool uses_knobs() const;
  // Needs a config when the expression names a knob (throws std::logic_error otherwise).
  double evaluate(const Problem& problem, const Device& device) const;
  double evaluate(const Config& config, const Problem& problem, const Device& device) const;
  // Non-zero and not NaN.
  bool holds(const Config& config, const Problem& problem, const Device& device) const;

  struct Impl;
  explicit Expression(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

enum class BufferRole {
  input,    // filled once per evaluation from the fixed seed, shared by candidate and reference
  output,   // poisoned (NaN, or 0x7f.. for integers) before every run, compared with the reference
  scratch,  // zeroed before every run, never compared
  inout,    // filled and restored as an input, compared as an output (a kernel that works in place)
  // Zeroed before every run, compared by the sum of its elements: a reduction's per-block partial
  // results, whose number and order follow the config's grid, so that no two grids agree element
  // by element while every correct one agrees on the total.
  partial_sums,
};

// "input", "output", "scratch", "inout", "partial_sums"
std::string_view to_string(BufferRole role);
// Whether a buffer of `role` starts every run from its seeded fill (input, inout), and whether it
// is compared with the reference afterwards (output, inout, partial_sums).
inline bool is_filled(BufferRole role) {
  return role == BufferRole::input || role == BufferRole::inout;
}
inline bool is_compared(BufferRole role) {
  return role == BufferRole::output || role == BufferRole::inout ||
         role == BufferRole::partial_sums;
}

// Inputs and inouts: seeded values away from zero with either sign, zeros, or the seeded values'
// magnitudes (for what a kernel divides by, takes the root or logarithm of, or scales by).
enum class BufferFill { random, zero, positive };
std::string_view to_string(BufferFill fill);  // "random", "zero", "positive"

struct BufferSpec {
  std::string name;
  std::string type;  // "f64", "f32", "f16", "bf16", "i32", "i64", "u32", "u8"
  Expression count;  // elements, over problem arguments
  BufferRole role = BufferRole::input;
  BufferFill fill = BufferFill::random;
};

// One parameter of the kernel, in the kernel's own order: a buffer (its pointer, whatever the
// kernel calls the element type: a float2* is an f32 buffer of twice the elements) or a scalar
// passed by value in its own type.
struct ArgumentSpec {
  std::string name;  // the buffer's name, or the scalar's (for messages)
  int buffer = -1;   // index into KernelSpec::buffers; -1: a scalar
  std::string type;  // scalars: "i32", "i64", "u32", "u64", "f32", "f64"
  Expression value;  // scalars: over problem arguments; integers are rounded
};

// A CUDA __constant__ symbol the worker fills before every launch (Kernel Tuner's cmem_args):
// with the contents of an input buffer, or with literal values of `type`.
struct ConstantSpec {
  std::string symbol;
  int buffer = -1;             // index into KernelSpec::buffers; -1: `values`
  std::string type;            // with values: a buffer type
  std::vector<double> values;  // converted to `type`
};

// CUDA launch shape, each an expression over knobs and problem arguments.
struct LaunchSpec {
  std::array<Expression, 3> grid;
  std::array<Expression, 3> block;
  std::array<Expression, 3> cluster;
  Expression shared_memory;  // dynamic shared memory, bytes
};

// How outputs are checked: against a reference kernel (its own source and entry point, same
// parameters), or against the spec's own kernel compiled with a reference config. A spec without
// a check whose buffers include an output or an inout gets one against its default config (no
// entry, no reference_config), so that every candidate computes what the default computes.
struct CheckSpec {
  std::filesystem::path source;  // reference kernel source (absolute); empty: the kernel's
  std::string entry;             // reference entry point; empty: reference_config of the kernel
  // With an entry: the definitions the reference compiles with (default: the default config's).
  std::optional<PartialConfig> reference_config;
  std::optional<LaunchSpec> launch;  // cuda, with an entry: its own (default: the kernel's)
  double tolerance = -1;             // normwise relative error; negative: the dtype default
};

struct CompileSpec {
  std::string compiler;                        // "c++" (cpu) or "nvcc" (cuda) unless given
  std::vector<std::string> flags;              // appended after the backend's own flags
  std::vector<std::filesystem::path> depends;  // headers the source includes (absolute): hashed
  double timeout_s = 60;
};

struct TimingSpec {
  int warmup = 2;
  double budget_ms = 20;  // stop repeating once the timed runs add up to this
  int min_reps = 3;
  int max_reps = 50;
  bool flush_cache = true;  // evict the caches (L2 on a GPU, LLC on a CPU) before every run
  double timeout_s = 10;    // watchdog per candidate: check and timing together
};

struct KernelSpec {
  std::filesystem::path path;  // the spec file
  std::string name;
  std::string backend;           // "cpu" or "cuda"
  std::filesystem::path source;  // absolute (a relative path in the file is relative to it)
  std::string entry;
  std::string version;  // hash of the spec text, the source and its depends: a changed
                        // kernel is a new tuning key
  std::unique_ptr<TuningSpace> tuning;  // a Space cannot move: configs point at it
  Problem problem;  // the default problem arguments, in declaration order of names
  std::vector<std::string> problem_order;
  std::vector<Expression> scalars;  // int64 values passed to the kernel, over problem arguments
  std::vector<BufferSpec> buffers;
  // The kernel's parameters in its own order and types. Empty: the fixed ABI (buffers, then
  // `scalars` as 64-bit integers; on the CPU the two arrays of docs/spec-format.md).
  std::vector<ArgumentSpec> arguments;
  std::vector<ConstantSpec> constants;  // cuda only
  std::optional<CheckSpec> check;
  CompileSpec compile;
  TimingSpec timing;
  std::optional<LaunchSpec> launch;  // cuda only

  // The defaults with `overrides` applied. Throws SpecError naming an argument the spec does not
  // declare, or a value of another type than its default.
  Problem resolve(const Problem& overrides) const;
};

// What a spec's candidates are compared with, for messages and reports: "the reference kernel
// 'ENTRY'", "the reference config", "the default config"; empty when nothing is compared.
std::string checked_against(const KernelSpec& spec);

// A config's knobs as preprocessor definitions, NAME=VALUE each (a backend passes -DNAME=VALUE):
//   an integer or real knob K      K=value
//   a boolean knob K               K=0 or K=1
//   a string enum knob K = "text"  K=text (a token), and K_text=1 when K_text is an identifier
//   a list or permutation knob K   K={a,b,...} (a braced initializer), and K_0=a, K_1=b, ...
// The K_text and K_i names are the ones expressions use for the same values.
std::vector<std::string> knob_definitions(const Config& config);

// Reads and validates a spec. Throws SpecError ("file:line:col: ...") for malformed JSON, a
// missing or unknown field, a value of the wrong type, an expression that does not parse or names
// an unknown variable, an illegal knob description, or a seed or reference config the space
// rejects; std::system_error when the file cannot be read.
KernelSpec load_spec(const std::filesystem::path& path);
// The same from text; `origin` names it in errors and anchors relative paths.
KernelSpec parse_spec(std::string_view text, const std::filesystem::path& origin);

}  // namespace cutune
