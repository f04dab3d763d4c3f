#include "gemm/gemm_problem.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace cutune::gemm {
namespace {

template <int N>
std::string legal_set(const int (&legal)[N]) {
  std::string text = "{";
  for (int value : legal) text += (text.size() > 1 ? ", " : "") + std::to_string(value);
  return text + "}";
}

template <int N>
void check_knob(std::vector<std::string>& out, const char* knob, int value, const int (&legal)[N]) {
  if (!rules::one_of(value, legal)) {
    out.push_back(std::string(knob) + " = " + std::to_string(value) + " is not in " +
                  legal_set(legal));
  }
}

void check_range(std::vector<std::string>& out, const char* knob, int value, int lo, int hi) {
  if (value < lo || value > hi) {
    out.push_back(std::string(knob) + " = " + std::to_string(value) + " is not in " +
                  std::to_string(lo) + ".." + std::to_string(hi));
  }
}

}  // namespace

int epilogue_buffers(const GemmConfig& config) {
  return rules::epilogue_buffers(config.tile_m, config.tile_n, config.tile_k, config.stages,
                                 config.split_k);
}

int shared_memory_bytes(const GemmConfig& config) {
  return rules::shared_bytes(config.tile_m, config.tile_n, config.tile_k, config.stages,
                             config.split_k);
}

int accumulators_per_thread(const GemmConfig& config) {
  return rules::accumulators_per_thread(config.tile_m, config.tile_n,
                                        config.schedule == Schedule::pingpong);
}

std::vector<std::string> violations(const GemmConfig& config, const GemmProblem& problem,
                                    int shared_memory_per_block) {
  std::vector<std::string> out;
  check_knob(out, "tile_m", config.tile_m, rules::kTileM);
  check_knob(out, "tile_n", config.tile_n, rules::kTileN);
  check_knob(out, "tile_k", config.tile_k, rules::kTileK);
  check_range(out, "stages", config.stages, rules::kMinStages, rules::kMaxStages);
  check_knob(out, "cluster_m", config.cluster_m, rules::kClusterExtent);
  check_knob(out, "cluster_n", config.cluster_n, rules::kClusterExtent);
  // The kernel divides by both (grouped raster, K slices), so every count in range gives its own
  // tile order or slicing.
  check_range(out, "swizzle", config.swizzle, rules::kMinSwizzle, rules::kMaxSwizzle);
  check_range(out, "split_k", config.split_k, rules::kMinSplitK, rules::kMaxSplitK);
  if (!out.empty()) return out;  // the rules below assume legal knob values

  if (config.schedule == Schedule::cooperative && config.tile_m < 128) {
    out.push_back(
        "schedule = cooperative needs tile_m >= 128 (each of two warpgroups takes 64+ "
        "rows), got tile_m = " +
        std::to_string(config.tile_m));
  }
  if (const int accumulators = accumulators_per_thread(config);
      accumulators > kMaxAccumulatorsPerThread) {
    out.push_back("tile " + std::to_string(config.tile_m) + "x" + std::to_string(config.tile_n) +
                  " needs " + std::to_string(accumulators) +
                  " fp32 accumulators per consumer thread with this schedule, more than " +
                  std::to_string(kMaxAccumulatorsPerThread));
  }
  if (const int bytes = shared_memory_bytes(config); bytes > shared_memory_per_block) {
    out.push_back("stages = " + std::to_string(config.stages) + " needs " + std::to_string(bytes) +
                  " bytes of shared memory, more than the " +
                  std::to_string(shared_memory_per_block) + " available");
  }
  if (config.fast_launch &&
      !rules::fast_launch_allowed(config.cluster_m, config.cluster_n,
                                  config.schedule == Schedule::pingpong, config.split_k)) {
    out.push_back(
        "fast_launch needs cluster_m <= 2, cluster_n = 1, the cooperative schedule and "
        "split_k = 1");
  }

  if (problem.m <= 0 || problem.n <= 0 || problem.k <= 0) {
    out.push_back("problem " + std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
                  std::to_string(problem.k) + " has a non-positive dimension");
  }
  // TMA needs 16-byte aligned row strides; the epilogue stores pairs of columns.
  if (problem.k % 8 != 0)
    out.push_back("k = " + std::to_string(problem.k) + " is not a multiple of 8");
  if (problem.n % 8 != 0)
    out.push_back("n = " + std::to_string(problem.n) + " is not a multiple of 8");
  return out;
}

bool fits(const GemmConfig& config, const GemmProblem& problem, int shared_memory_per_block) {
  return violations(config, problem, shared_memory_per_block).empty();
}

std::string to_string(DType dtype) { return dtype == DType::bf16 ? "bf16" : "fp16"; }

std::string to_string(BLayout layout) { return layout == BLayout::k_by_n ? "k_by_n" : "n_by_k"; }

DType parse_dtype(const std::string& name) {
  for (DType dtype : {DType::bf16, DType::fp16}) {
    if (name == to_string(dtype)) return dtype;
  }
  throw std::invalid_argument("gemm problem dtype '" + name + "' is not bf16 or fp16");
}

BLayout parse_b_layout(const std::string& name) {
  for (BLayout layout : {BLayout::k_by_n, BLayout::n_by_k}) {
    if (name == to_string(layout)) return layout;
  }
  throw std::invalid_argument("gemm problem b_layout '" + name + "' is not k_by_n or n_by_k");
}

std::string to_string(Timing timing) {
  return timing == Timing::flushed ? "flushed" : "back_to_back";
}

Timing parse_timing(const std::string& name) {
  for (Timing timing : {Timing::flushed, Timing::back_to_back}) {
    if (name == to_string(timing)) return timing;
  }
  throw std::invalid_argument("gemm problem timing '" + name + "' is not flushed or back_to_back");
}

std::string joined(const std::vector<std::string>& violations) {
  std::string text;
  for (const std::string& reason : violations) text += (text.empty() ? "" : "; ") + reason;
  return text;
}

std::size_t workspace_bytes(const GemmConfig& config, const GemmProblem& problem) {
  if (config.split_k == 1) return 0;
  return static_cast<std::size_t>(config.split_k) * static_cast<std::size_t>(problem.m) *
         static_cast<std::size_t>(problem.n) * sizeof(float);
}

int work_units(const GemmConfig& config, const GemmProblem& problem) {
  const std::int64_t cluster_tile_m = static_cast<std::int64_t>(config.cluster_m) * config.tile_m;
  const std::int64_t cluster_tile_n = static_cast<std::int64_t>(config.cluster_n) * config.tile_n;
  return static_cast<int>(ceil_div(problem.m, cluster_tile_m) *
                          ceil_div(problem.n, cluster_tile_n) * config.split_k);
}

std::vector<std::string> compile_defines(const GemmConfig& config, DType dtype, BLayout b_layout) {
  std::vector<std::string> defines = tile_defines(config);
  defines.insert(defines.end(), {compile_define("CUTUNE_SPLIT_K", config.split_k),
                                 compile_define("CUTUNE_FAST_LAUNCH", config.fast_launch ? 1 : 0),
                                 compile_define("CUTUNE_DTYPE", static_cast<int>(dtype)),
                                 compile_define("CUTUNE_B_LAYOUT", static_cast<int>(b_layout))});
  return defines;
}

std::string to_string(const GemmConfig& config) {
  return std::to_string(config.tile_m) + "x" + std::to_string(config.tile_n) + "x" +
         std::to_string(config.tile_k) + "_s" + std::to_string(config.stages) + "_c" +
         std::to_string(config.cluster_m) + "x" + std::to_string(config.cluster_n) +
         (config.schedule == Schedule::cooperative ? "_coop" : "_ping") + "_r" +
         (config.raster == Raster::along_m ? "m" : "n") + std::to_string(config.swizzle) + "_k" +
         std::to_string(config.split_k) + (config.fast_launch ? "_pdl" : "");
}

}  // namespace cutune::gemm

namespace cutune::gemm {

GemmConfig parse_config(const std::string& name) {
  GemmConfig config;
  char schedule[5] = {};
  char raster = 0;
  int consumed = 0;
  const int fields = std::sscanf(name.c_str(), "%dx%dx%d_s%d_c%dx%d_%4[a-z]_r%c%d_k%d%n",
                                 &config.tile_m, &config.tile_n, &config.tile_k, &config.stages,
                                 &config.cluster_m, &config.cluster_n, schedule, &raster,
                                 &config.swizzle, &config.split_k, &consumed);
  if (fields != 10) {
    throw std::invalid_argument("gemm config name '" + name +
                                "' does not match TMxTNxTK_sS_cCMxCN_{coop|ping}_r{m|n}W_kK[_pdl]");
  }
  if (std::strcmp(schedule, "coop") == 0) {
    config.schedule = Schedule::cooperative;
  } else if (std::strcmp(schedule, "ping") == 0) {
    config.schedule = Schedule::pingpong;
  } else {
    throw std::invalid_argument("gemm config name '" + name + "': schedule '" + schedule +
                                "' is neither coop nor ping");
  }
  if (raster != 'm' && raster != 'n') {
    throw std::invalid_argument("gemm config name '" + name + "': raster '" +
                                std::string(1, raster) + "' is neither m nor n");
  }
  config.raster = raster == 'm' ? Raster::along_m : Raster::along_n;
  std::string rest = name.substr(static_cast<std::size_t>(consumed));
  if (rest.rfind("_pdl", 0) == 0) {
    config.fast_launch = true;
    rest = rest.substr(4);
  }
  if (!rest.empty()) {
    throw std::invalid_argument("gemm config name '" + name + "': unexpected suffix '" + rest +
                                "'");
  }
  return config;
}

}  // namespace cutune::gemm
