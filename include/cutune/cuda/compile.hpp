// Compiling CUDA kernels to cubins, with NVRTC or nvcc, without a GPU. Every compile is a child
// process (NVRTC runs inside the small `cutune-nvrtc` helper, because a compile in a thread
// cannot be interrupted) that is killed at its time limit; compiles run in parallel on the
// shared compile pool (src/eval) and are cached on disk under a hash of everything that decides
// the cubin: source, defines, flags, name expressions, the contents of every header the source
// includes from its include folders (followed recursively), the compiler's identity, the target.
#pragma once

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cutune/measurement.hpp"

namespace cutune::cuda {

enum class CompilerKind { nvrtc, nvcc };

struct CompileRequest {
  std::string source;                     // the kernel's source text
  std::string source_name = "kernel.cu";  // how diagnostics name it
  std::string arch = "sm_90a";            // a real architecture: the output is a cubin
  CompilerKind compiler = CompilerKind::nvrtc;
  std::vector<std::pair<std::string, std::string>> defines;  // knob values, as -DNAME=VALUE
  std::vector<std::filesystem::path> include_dirs;           // searched by #include, and hashed
  std::vector<std::string> options;                          // more flags, e.g. "-std=c++17"
  // Entries to find: under NVRTC template instantiations to emit, e.g. "matmul<64, 4>" or
  // "matmul<TILE, 4>" (macros from `defines` expand), or plain names; under nvcc plain names only
  // (a kernel need not be extern "C": its one C++ symbol is looked up in the cubin).
  // CompileResult::symbol maps them to entry symbols.
  std::vector<std::string> name_expressions;
  // nvcc only: a shared library (host code and the device code it launches, -shared -fPIC)
  // instead of a cubin, for kernels whose launch parameters need host code of the same
  // instantiation (CUTLASS's). CompileResult::cubin is then the library's path.
  bool shared_library = false;
};

// transient: the machine stopped the compile (killed from outside, no space or memory), retried
// to no avail and not cached (eval/compile_pool.hpp).
enum class CompileStatus { ok, error, timeout, transient };

// The outcome a failed compile gives its config.
inline Outcome outcome_of(CompileStatus status) {
  return status == CompileStatus::timeout     ? Outcome::compile_timeout
         : status == CompileStatus::transient ? Outcome::transient
                                              : Outcome::compile_error;
}

struct CompileResult {
  CompileStatus status = CompileStatus::error;
  std::filesystem::path cubin;                       // inside the cache; set when ok
                                                     // (a .so with shared_library)
  std::map<std::string, std::string> lowered_names;  // name expression -> entry symbol
  std::string log;                                   // compiler messages; for a failure, why
  std::filesystem::path log_file;                    // where a failed compile's log is kept
  double compile_s = 0;                              // 0 when served from the cache
  bool cached = false;

  bool ok() const { return status == CompileStatus::ok; }
  // The symbol to launch: the lowered name of a name expression, else `name` itself.
  std::string symbol(const std::string& name) const;
};

class CubinCompiler {
 public:
  struct Options {
    std::filesystem::path cache_dir;  // required; shared safely by several processes
    unsigned jobs = 0;                // compiles at once; 0: one per core
    std::chrono::milliseconds time_limit{std::chrono::seconds(120)};
    // Empty: $CUTUNE_NVRTC_HELPER, else the cutune-nvrtc built with this library.
    std::filesystem::path nvrtc_helper;
    std::string nvcc = "nvcc";
  };

  // Throws std::invalid_argument without a cache folder, std::filesystem::filesystem_error when
  // the cache folder cannot be made.
  explicit CubinCompiler(Options options);
  ~CubinCompiler();  // finishes queued compiles
  CubinCompiler(const CubinCompiler&) = delete;
  CubinCompiler& operator=(const CubinCompiler&) = delete;

  // Queues a compile and returns at once; identical requests share one compile. A compile that
  // fails is a CompileResult (its status and log), never an exception. Throws
  // std::invalid_argument for a request nvcc cannot serve (a name expression other than a plain
  // name) or NVRTC cannot (a shared library), what cache_key throws, and std::system_error when
  // the source cannot be written to the cache folder. The future's get() throws
  // std::system_error when a timeout's log or NVRTC's lowered names cannot be written or read
  // back, or NVRTC cannot be started again for them, and nlohmann::json::exception when a cached
  // file of lowered names is damaged.
  std::shared_future<CompileResult> submit(const CompileRequest& request);
  // submit and wait: throws what submit and its future's get() throw.
  CompileResult compile(const CompileRequest& request) { return submit(request).get(); }

  // "nvrtc 13.0", "nvcc cuda_13.0.r13.0/compiler.36424714_0": part of every cache key. Throws
  // std::runtime_error when the compiler does not answer --version, std::system_error when it
  // cannot be started.
  const std::string& identity(CompilerKind kind);
  // The hash naming a request's cubin; reads the headers it includes. Throws what identity
  // throws, and std::system_error when an included header cannot be read.
  std::string cache_key(const CompileRequest& request);
  unsigned jobs() const;
  const std::filesystem::path& cache_dir() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cutune::cuda
