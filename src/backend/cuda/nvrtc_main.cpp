// cutune-nvrtc: compiles one CUDA source to a cubin with NVRTC, in a process of its own so that
// the tuner can kill a compile that runs past its limit (NVRTC cannot be interrupted in a thread).
//
//   cutune-nvrtc --version
//   cutune-nvrtc SOURCE OUTPUT [--name NAME] [--expression EXPR]... -- NVRTC_OPTIONS...
//
// The toolkit's include folders are searched after the caller's (toolkit_include_folders).
// Prints the compiler log. On success writes OUTPUT and ends with the lowered names line
// (nvrtc_helper_output.hpp), exit status 0; when the source does not compile, exit status 1.
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "nvrtc_helper_output.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void check(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS) {
    throw std::runtime_error(std::string(call) + ": " + nvrtcGetErrorString(result));
  }
}

// The toolkit's header folders, searched after the caller's: nvcc finds CUB's block-level
// algorithms and <cuda/std/...> there by itself, NVRTC only when told. (CUB's device-wide part,
// <cub/cub.cuh> whole, holds host code that NVRTC refuses: such a kernel needs nvcc.) The
// toolkit is CUDA_HOME's or CUDA_PATH's, else the one the helper was built with.
std::vector<std::string> toolkit_include_folders() {
  std::filesystem::path root = CUTUNE_CUDA_TOOLKIT_ROOT;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* value = std::getenv(variable); value != nullptr && *value != '\0') {
      root = value;
      break;
    }
  }
  std::vector<std::string> folders;
  for (const std::filesystem::path& folder : {root / "include", root / "include" / "cccl"}) {
    if (std::filesystem::is_directory(folder)) folders.push_back(folder.string());
  }
  return folders;
}

struct Job {
  std::string source_path;
  std::string output_path;
  std::string name = "kernel.cu";
  std::vector<std::string> expressions;
  std::vector<std::string> options;
};

Job parse(int argc, char** argv) {
  if (argc < 3) throw std::runtime_error("usage: cutune-nvrtc SOURCE OUTPUT [...] -- OPTIONS");
  Job job;
  job.source_path = argv[1];
  job.output_path = argv[2];
  int i = 3;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) throw std::runtime_error(flag + " needs a value");
    if (flag == "--name") {
      job.name = argv[++i];
    } else if (flag == "--expression") {
      job.expressions.push_back(argv[++i]);
    } else {
      throw std::runtime_error("unknown argument '" + flag + "'");
    }
  }
  for (++i; i < argc; ++i) job.options.push_back(argv[i]);
  return job;
}

int compile(const Job& job) {
  const std::string source = read_file(job.source_path);
  nvrtcProgram program;
  check(nvrtcCreateProgram(&program, source.c_str(), job.name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  for (const auto& expression : job.expressions) {
    check(nvrtcAddNameExpression(program, expression.c_str()), "nvrtcAddNameExpression");
  }
  std::vector<std::string> all_options = job.options;
  for (const std::string& folder : toolkit_include_folders()) {
    all_options.push_back("--include-path=" + folder);
  }
  std::vector<const char*> options;
  for (const auto& option : all_options) options.push_back(option.c_str());
  nvrtcResult compiled =
      nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());

  std::size_t log_size = 0;
  check(nvrtcGetProgramLogSize(program, &log_size), "nvrtcGetProgramLogSize");
  std::string log(log_size, '\0');
  check(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (!log.empty()) std::cout << log << '\n';
  if (compiled != NVRTC_SUCCESS) {
    std::cout << job.name << ": " << nvrtcGetErrorString(compiled) << '\n';
    return 1;
  }

  nlohmann::json lowered = nlohmann::json::object();
  for (const auto& expression : job.expressions) {
    const char* mangled = nullptr;
    check(nvrtcGetLoweredName(program, expression.c_str(), &mangled), "nvrtcGetLoweredName");
    lowered[expression] = mangled;
  }
  std::size_t cubin_size = 0;
  check(nvrtcGetCUBINSize(program, &cubin_size), "nvrtcGetCUBINSize");
  if (cubin_size == 0) throw std::runtime_error("no cubin: give a real architecture (sm_XY)");
  std::string cubin(cubin_size, '\0');
  check(nvrtcGetCUBIN(program, cubin.data()), "nvrtcGetCUBIN");
  std::ofstream out(job.output_path, std::ios::binary);
  out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + job.output_path);
  nvrtcDestroyProgram(&program);
  std::cout << cutune::cuda::nvrtc_helper::names_prefix << lowered.dump() << '\n';
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::string(argv[1]) == "--version") {
      int major = 0, minor = 0;
      check(nvrtcVersion(&major, &minor), "nvrtcVersion");
      // The identity in every compile's cache key: the header folders are part of it.
      std::printf("nvrtc %d.%d\n", major, minor);
      for (const std::string& folder : toolkit_include_folders()) {
        std::printf("include %s\n", folder.c_str());
      }
      return 0;
    }
    return compile(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cout << "cutune-nvrtc: " << e.what() << '\n';
    return 2;
  }
}
