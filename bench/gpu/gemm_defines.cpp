// Prints "NAME -DCUTUNE_...=..." for every configuration name in CONFIGS, like
// `gemm_bench defines` (a name may end in "@LABEL", which selects no define), but as plain C++ (g++
// builds it in seconds), so that scripts can start the kernel compiles while nvcc still builds the
// benchmark.
//
//   gemm_defines CONFIGS DTYPE(bf16|fp16) LAYOUT(0|1)

#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "gemm/gemm_problem.hpp"

int main(int argc, char** argv) {
  using namespace cutune::gemm;
  if (argc != 4) {
    std::fprintf(stderr, "usage: gemm_defines CONFIGS bf16|fp16 0|1\n");
    return 64;
  }
  try {
    const std::string dtype_text = argv[2];
    const std::string layout_text = argv[3];
    if ((dtype_text != "bf16" && dtype_text != "fp16") ||
        (layout_text != "0" && layout_text != "1")) {
      throw std::invalid_argument("dtype must be bf16 or fp16 and layout 0 or 1");
    }
    const DType dtype = dtype_text == "bf16" ? DType::bf16 : DType::fp16;
    const BLayout layout = layout_text == "0" ? BLayout::k_by_n : BLayout::n_by_k;
    std::ifstream file(argv[1]);
    if (!file) throw std::runtime_error(std::string("cannot read ") + argv[1]);
    std::string line;
    while (std::getline(file, line)) {
      line = line.substr(0, line.find('#'));
      std::string name;
      for (char c : line) {
        if (c != ' ' && c != '\t' && c != '\r') name += c;
      }
      if (name.empty()) continue;
      std::printf("%s", name.c_str());
      for (const auto& define :
           compile_defines(parse_config(name.substr(0, name.find('@'))), dtype, layout)) {
        std::printf(" -D%s", define.c_str());
      }
      std::printf("\n");
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gemm_defines: %s\n", error.what());
    return 1;
  }
  return 0;
}
