#include "cutune/cuda/compile.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cubin_symbols.hpp"
#include "eval/child_process.hpp"
#include "eval/compile_pool.hpp"
#include "eval/files.hpp"
#include "hash/content_hash.hpp"
#include "nvrtc_helper_output.hpp"

namespace cutune::cuda {
namespace fs = std::filesystem;
namespace {

struct IncludeDirective {
  std::string name;
  bool quoted;
};

// Every #include of the text, those in branches the preprocessor may skip too: hashing a header
// too many costs a cache miss at worst, missing one would serve a stale cubin.
std::vector<IncludeDirective> includes_of(const std::string& text) {
  std::vector<IncludeDirective> found;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_of("<\"", i + 7);
    if (i == std::string::npos) continue;
    char close = line[i] == '<' ? '>' : '"';
    std::size_t end = line.find(close, i + 1);
    if (end != std::string::npos) found.push_back({line.substr(i + 1, end - i - 1), close == '"'});
  }
  return found;
}

// Feeds (path, contents) of every header reachable from `text` through the include folders.
// Headers found in none of them (the toolkit's own) are covered by the compiler's identity.
void hash_headers(const std::string& text, const fs::path& including_dir,
                  const std::vector<fs::path>& include_dirs, std::set<fs::path>& seen,
                  hash::ContentHash& hash) {
  for (const auto& directive : includes_of(text)) {
    std::vector<fs::path> candidates;
    if (directive.quoted && !including_dir.empty()) candidates.push_back(including_dir);
    candidates.insert(candidates.end(), include_dirs.begin(), include_dirs.end());
    for (const auto& dir : candidates) {
      std::error_code error;
      fs::path path = fs::weakly_canonical(dir / directive.name, error);
      if (error || !fs::is_regular_file(path, error)) continue;
      if (seen.insert(path).second) {
        std::string header = eval::read_file(path);
        hash.field(path.string()).field(header);
        hash_headers(header, path.parent_path(), include_dirs, seen, hash);
      }
      break;
    }
  }
}

std::vector<std::string> common_flags(const CompileRequest& request) {
  std::vector<std::string> flags;
  for (const auto& [name, value] : request.defines) {
    flags.push_back(value.empty() ? "-D" + name : "-D" + name + "=" + value);
  }
  for (const auto& dir : request.include_dirs) flags.push_back("-I" + fs::absolute(dir).string());
  flags.insert(flags.end(), request.options.begin(), request.options.end());
  return flags;
}

fs::path default_nvrtc_helper() {
  if (const char* path = std::getenv("CUTUNE_NVRTC_HELPER"); path != nullptr && *path != '\0') {
    return path;
  }
  return CUTUNE_NVRTC_HELPER_PATH;
}

}  // namespace

std::string CompileResult::symbol(const std::string& name) const {
  auto found = lowered_names.find(name);
  return found == lowered_names.end() ? name : found->second;
}

struct CubinCompiler::State {
  Options options;
  eval::CompilePool pool;
  fs::path sources_dir;
  std::mutex identity_mutex;
  std::map<CompilerKind, std::string> identities;
  std::atomic<unsigned> next_scratch{0};

  explicit State(Options given)
      : options(std::move(given)),
        pool(options.cache_dir, options.jobs),
        sources_dir(options.cache_dir / "sources") {
    fs::create_directories(sources_dir);
  }

  std::vector<std::string> command(const CompileRequest& request, const fs::path& source) const {
    std::vector<std::string> argv;
    if (request.compiler == CompilerKind::nvcc) {
      argv = {options.nvcc, "-arch=" + request.arch, "-o", "{output}"};
      if (request.shared_library) {
        argv.insert(argv.begin() + 1, {"-shared", "-Xcompiler", "-fPIC"});
      } else {
        argv.insert(argv.begin() + 1, "-cubin");
      }
    } else {
      argv = {options.nvrtc_helper.string(), source.string(), "{output}", "--name",
              request.source_name};
      for (const auto& expression : request.name_expressions) {
        argv.insert(argv.end(), {"--expression", expression});
      }
      argv.insert(argv.end(), {"--", "--gpu-architecture=" + request.arch});
    }
    auto flags = common_flags(request);
    argv.insert(argv.end(), flags.begin(), flags.end());
    if (request.compiler == CompilerKind::nvcc) argv.push_back(source.string());
    return argv;
  }

  // The cache keeps cubins only; the lowered names of a fresh NVRTC compile are kept beside them.
  CompileResult finish(const CompileRequest& request, const fs::path& source,
                       const eval::CompileResult& raw) {
    CompileResult result;
    result.log = raw.log;
    result.compile_s = raw.wall_s;
    result.cached = raw.cached;
    if (raw.status == eval::CompileResult::Status::timeout) {
      result.status = CompileStatus::timeout;
      result.log = request.source_name + ": compile killed at its time limit of " +
                   std::to_string(options.time_limit.count()) + " ms (" + raw.starvation.detail +
                   ")\n" + raw.log;
      result.log_file = options.cache_dir / (raw.key_hash + ".timeout.log");
      eval::write_atomically(result.log_file, result.log);
      return result;
    }
    if (raw.status != eval::CompileResult::Status::ok) {  // CUDA requests name no inputs
      result.status = raw.status == eval::CompileResult::Status::error ? CompileStatus::error
                                                                       : CompileStatus::transient;
      result.log_file = raw.log_file;
      return result;
    }
    result.status = CompileStatus::ok;
    result.cubin = raw.output;
    if (request.compiler == CompilerKind::nvcc && !request.name_expressions.empty()) {
      const std::string image = eval::read_file(result.cubin);
      for (const auto& name : request.name_expressions) {
        std::string why;
        if (auto symbol = cubin_symbols::entry_symbol(image, name, why)) {
          result.lowered_names[name] = *symbol;
        } else {
          CompileResult missing;  // an error
          missing.log = request.source_name + ": " + why;
          return missing;
        }
      }
    }
    if (request.compiler == CompilerKind::nvrtc && !request.name_expressions.empty()) {
      fs::path names = options.cache_dir / (raw.key_hash + ".names.json");
      if (raw.cached && fs::exists(names)) {
        result.lowered_names = nlohmann::json::parse(eval::read_file(names));
      } else {
        // A cached cubin without its names (whoever compiled it never asked for the result, or
        // is writing them now) costs one more NVRTC run, into a scratch file.
        std::string output = raw.log;
        if (raw.cached) {
          fs::path scratch = names;
          scratch += ".cubin." + std::to_string(::getpid()) + "." + std::to_string(next_scratch++);
          auto argv = command(request, source);
          std::replace(argv.begin(), argv.end(), std::string("{output}"), scratch.string());
          output = eval::run_with_limit(argv, options.time_limit).output;
          fs::remove(scratch);
        }
        result.lowered_names = nvrtc_helper::lowered_names(output);
        eval::write_atomically(names, nlohmann::json(result.lowered_names).dump());
      }
      for (const auto& expression : request.name_expressions) {
        if (!result.lowered_names.count(expression)) {
          CompileResult missing;  // an error
          missing.log = "NVRTC gave no lowered name for '" + expression + "'";
          return missing;
        }
      }
    }
    return result;
  }
};

CubinCompiler::CubinCompiler(Options options) {
  if (options.cache_dir.empty()) throw std::invalid_argument("CubinCompiler: no cache folder");
  if (options.nvrtc_helper.empty()) options.nvrtc_helper = default_nvrtc_helper();
  state_ = std::make_unique<State>(std::move(options));
}

CubinCompiler::~CubinCompiler() = default;

const std::string& CubinCompiler::identity(CompilerKind kind) {
  std::lock_guard lock(state_->identity_mutex);
  if (auto found = state_->identities.find(kind); found != state_->identities.end()) {
    return found->second;
  }
  std::vector<std::string> argv = {
      kind == CompilerKind::nvrtc ? state_->options.nvrtc_helper.string() : state_->options.nvcc,
      "--version"};
  auto run = eval::run_with_limit(argv, std::chrono::seconds(30));
  if (!run.status.success()) {
    throw std::runtime_error("cannot ask " + argv[0] + " for its version (" +
                             run.status.describe() + "): " + run.output);
  }
  std::string text = run.output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (kind == CompilerKind::nvcc) {
    // The last line names the exact build: "Build cuda_13.0.r13.0/compiler.36424714_0".
    std::string build = text.substr(text.rfind('\n') + 1);
    if (build.rfind("Build ", 0) == 0) build.erase(0, 6);
    text = "nvcc " + build;
  }
  return state_->identities[kind] = text;
}

std::string CubinCompiler::cache_key(const CompileRequest& request) {
  hash::ContentHash hash;
  hash.field("cutune-cubin-v1").field(identity(request.compiler)).field(request.arch);
  hash.field(request.source);
  for (const auto& [name, value] : request.defines) hash.field("-D").field(name).field(value);
  for (const auto& option : request.options) hash.field("option").field(option);
  for (const auto& expression : request.name_expressions) hash.field("name").field(expression);
  if (request.shared_library) hash.field("shared-library");
  for (const auto& dir : request.include_dirs) hash.field("-I").field(fs::absolute(dir).string());
  std::set<fs::path> seen;
  hash_headers(request.source, {}, request.include_dirs, seen, hash);
  return hash.hex();
}

std::shared_future<CompileResult> CubinCompiler::submit(const CompileRequest& request) {
  if (request.compiler == CompilerKind::nvcc) {
    for (const std::string& expression : request.name_expressions) {
      if (!cubin_symbols::is_plain_name(expression)) {
        throw std::invalid_argument(request.source_name + ": '" + expression +
                                    "' is a template instantiation, which needs NVRTC; nvcc finds "
                                    "plain names only");
      }
    }
  }
  // The compilers read the source from a file named by its contents.
  fs::path source = state_->sources_dir / (hash::ContentHash().field(request.source).hex() + ".cu");
  if (!fs::exists(source)) eval::write_atomically(source, request.source);
  if (request.shared_library && request.compiler != CompilerKind::nvcc) {
    throw std::invalid_argument(request.source_name + ": a shared library needs nvcc");
  }
  eval::CompileRequest job{state_->command(request, source), cache_key(request),
                           request.shared_library ? ".so" : ".cubin", state_->options.time_limit};
  auto raw = state_->pool.submit(std::move(job));
  return std::async(std::launch::deferred,
                    [state = state_.get(), request, source, raw] {
                      return state->finish(request, source, raw.get());
                    })
      .share();
}

unsigned CubinCompiler::jobs() const { return state_->pool.jobs(); }
const fs::path& CubinCompiler::cache_dir() const { return state_->options.cache_dir; }

}  // namespace cutune::cuda
