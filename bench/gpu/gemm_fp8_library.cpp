// The library path of an fp8 GEMM config, compiled if the cache lacks it (nvcc, no GPU): what
// scripts/gpu/fp8-table.sh precompiles on the build machine and what bench/gpu/fp8_peers.py loads
// with ctypes. Prints one JSON line per config: problem, config name, library path, or the
// compile's failure.
//
//   gemm_fp8_library --problem m=..,n=..,k=..,scaling=.. [--column NAME]
//                    [--config default | NAME | JSON]...
//
// `default` is default_config on an H200 (132 SMs), column "default"; a config name
// (gemm_fp8::to_string) or a JSON object of knobs (as `cutune show --json` prints a winner) is
// column "tuned", or the --column given (a candidate's, bench/gpu/gemm_fp8_candidates.txt).
// Exits 1 when a config does not compile.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cutune/heuristics.hpp"
#include "gemm_fp8/gemm_fp8_compiler.hpp"
#include "gemm_fp8/gemm_fp8_space.hpp"

int main(int argc, char** argv) {
  using namespace cutune;
  std::string problem_text;
  std::vector<std::string> names;
  std::string column = "tuned";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--problem") {
      problem_text = argv[i + 1];
    } else if (flag == "--config") {
      names.emplace_back(argv[i + 1]);
    } else if (flag == "--column") {
      column = argv[i + 1];
    } else {
      std::cerr << "gemm_fp8_library: unknown flag " << flag
                << " (--problem, --column, --config)\n";
      return 64;
    }
  }
  try {
    const Problem problem = resolve_gemm_fp8_problem(Problem::parse(problem_text));
    const gemm_fp8::Fp8Problem shape = to_fp8_problem(problem);
    const auto space = make_gemm_fp8_space();
    // Run ahead of a GPU call, often on a busy build machine: no candidate waits on it.
    GemmCompileOptions options;
    options.time_limit = std::chrono::minutes(30);
    Fp8Compiler compiler(gemm_fp8::LibraryKind(shape), options);
    int status = 0;
    for (const std::string& name : names) {
      const gemm_fp8::Fp8Config config =
          name == "default" ? to_fp8_config(default_config(*space, problem, Device::h200()))
          : !name.empty() && name.front() == '{'
              ? to_fp8_config(space->space.from_json(nlohmann::json::parse(name)))
              : gemm_fp8::parse_config(name);
      const cuda::CompileResult result = compiler.submit(config).get();
      nlohmann::json line{{"problem", problem.canonical()},
                          {"column", name == "default" ? "default" : column},
                          {"config", gemm_fp8::to_string(config)}};
      if (result.ok()) {
        line["library"] = result.cubin.string();
      } else {
        line["error"] = result.log.substr(0, 2000);
        status = 1;
      }
      std::cout << line.dump() << std::endl;
    }
    return status;
  } catch (const std::exception& error) {
    std::cerr << "gemm_fp8_library: " << error.what() << "\n";
    return 64;
  }
}
