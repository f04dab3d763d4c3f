// Kernel Tuner interoperability (docs/kernel-tuner.md): cutune specs from Kernel Tuner
// descriptions, and a tune's stored results in Kernel Tuner's formats and as CSV.
//
// Import: a tune script (Python: the tune_kernel() call, CUDA or C), a T1 input file
// (ConfigurationSpace + KernelSpecification), a `tune_params` dict in Python syntax with
// `restrictions` strings, or the header of a Kernel Tuner cache file, become a cutune spec (JSON,
// docs/spec-format.md); the last three for the CUDA backend: one enum knob per tunable
// parameter, one constraint per restriction (Python translated into the spec's expressions), the
// problem size as problem arguments size_x, size_y, size_z, and the launch shape Kernel Tuner
// would use (block from block_size_x/y/z, grid = ceil(size / product of the grid divisors)).
//
// Export: the latest verdict on every config under one tuning key as a Kernel Tuner cache
// file (what `tune_kernel(cache=...)` writes and its simulation mode, KTdashboard and the
// methodology scripts read), as T4 results (Kernel Tuner's output schema 1.0.0), or as one CSV row
// per stored measurement of any number of keys.
//
// Every function throws KernelTunerError naming the input and what is wrong; called from any
// thread (no shared state).
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/store.hpp"

namespace cutune {

class KernelTunerError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct KtImportOptions {
  std::string name = {};    // the spec's name; empty: the description's kernel name
  std::string source = {};  // kernel source file; empty: the description's, else "<name>.cu"
  std::string entry = {};   // kernel function; empty: the kernel name
  // Kernel Tuner's grid_div_x/y/z: knobs whose product divides the problem size into the grid.
  // Empty: block_size_x / block_size_y / block_size_z when that knob exists (Kernel Tuner's
  // defaults).
  std::vector<std::vector<std::string>> grid_div = {{}, {}, {}};
  // Tune scripts: a reference function (CPU) or kernel (CUDA) in the kernel's source that
  // computes the outputs whose `answer` the script computes in Python.
  std::string reference = {};
};

// A T1 input document (Kernel Tuner's schema T1 1.0.0).
nlohmann::ordered_json spec_from_kt_t1(const nlohmann::json& t1, const KtImportOptions& options,
                                       std::string_view origin);

// `tune_params` as Python text ("{'block_size_x': [32, 64], 'tile': [i for i in range(1, 5)]}";
// JSON is Python too), Kernel Tuner `restrictions` strings, and its problem_size (1 to 3 numbers).
nlohmann::ordered_json spec_from_kt_tune_params(std::string_view tune_params,
                                                const std::vector<std::string>& restrictions,
                                                const std::vector<long long>& problem_size,
                                                const KtImportOptions& options);

// The header of a Kernel Tuner cache file (kernel_name, problem_size, tune_params_keys,
// tune_params). The cache records no restrictions: only their effect (configs it lacks).
nlohmann::ordered_json spec_from_kt_cache(const nlohmann::json& cache,
                                          const KtImportOptions& options, std::string_view origin);

// A Kernel Tuner tune script (Python), read without running Python: its statements up to the
// first tune_kernel() call (docs/kernel-tuner.md says which), whose arguments become the spec:
// `arguments` (numpy arrays and scalars in order with their dtypes) the spec's buffers and
// arguments, `cmem_args` its constants, `grid_div_x/y/z` and problem_size its launch, `answer`
// its check (a run_kernel() reference kernel, or --reference for answers computed in Python;
// without an answer the arrays the kernel's signature lets it write become inouts, and the spec,
// having no check, is checked against its default config), `lang="C"` the CPU backend. Throws
// KernelTunerError naming the script and the line.
struct KtScriptSpec {
  nlohmann::ordered_json spec;
  // The kernel source when the script holds it as text (to be written where spec["source"]
  // says); empty when the spec names the script's source file (relative to the script's folder).
  std::string source_text;
  std::vector<std::string> notes;  // what the spec leaves out, for the user to read
};
KtScriptSpec spec_from_kt_script(std::string_view script, const KtImportOptions& options,
                                 std::string_view origin);

// What the export of one key needs besides the store's rows.
struct KtExportInfo {
  // Knob order of the cache keys ("16,1,4"): Kernel Tuner's tune_params_keys. Empty: the knobs'
  // names sorted (the store keeps configs as JSON objects).
  std::vector<std::string> knob_order = {};
  // Each knob's values in the file's tune_params; missing knobs: every value measured, sorted.
  nlohmann::ordered_json tune_params = nlohmann::ordered_json::object();
  // The problem arguments in the spec's order, for problem_size ([m, n, k] of "m=..,n=..,k=..").
  // Empty: size_x, size_y, size_z when the problem has them, else the names sorted.
  std::vector<std::string> problem_order = {};
};

// A Kernel Tuner cache document for one key's latest result per config
// (Store::latest_results), schema_version 1.1.0, with each config's timed repetitions (`times`).
// Failed configs carry Kernel Tuner's markers: CompilationFailedConfig (compile_error,
// compile_timeout), RuntimeFailedConfig (crash, hang, launch_error, wrong_result), InvalidConfig
// (invalid_config).
nlohmann::ordered_json kt_cache(const std::vector<StoredResult>& latest, const KtExportInfo& info);

// T4 results for one key's latest result per config (Store::latest_results): invalidity
// correct/compile/runtime/correctness/timeout/constraints.
nlohmann::ordered_json kt_t4(const std::vector<StoredResult>& latest, const KtExportInfo& info);

// One CSV line per row (RFC 4180 quoting): key fields, config hash, one column per knob seen
// (values as JSON, strings bare), outcome, time and spread statistics, compile seconds, tune id,
// timestamp (ISO 8601 UTC).
std::string results_csv(const std::vector<StoredResult>& rows);

}  // namespace cutune
