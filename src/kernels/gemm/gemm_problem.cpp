#include "gemm/gemm_problem.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <stdexcept>

namespace cutune::gemm {
namespace {

constexpr int kElementBytes = 2;  // bf16 and fp16
constexpr int kSwizzleAtomBytes = 1024;
constexpr int kBarrierBytes = 8;

bool one_of(int value, std::initializer_list<int> legal) {
  return std::find(legal.begin(), legal.end(), value) != legal.end();
}

std::string legal_set(std::initializer_list<int> legal) {
  std::string text = "{";
  for (int value : legal) text += (text.size() > 1 ? ", " : "") + std::to_string(value);
  return text + "}";
}

void check_knob(std::vector<std::string>& out, const char* knob, int value,
                std::initializer_list<int> legal) {
  if (!one_of(value, legal)) {
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

namespace {

int pipeline_shared_bytes(const GemmConfig& config) {
  const int stage_bytes = (config.tile_m + config.tile_n) * config.tile_k * kElementBytes;
  // Each stage has a "full" and an "empty" barrier.
  return kSwizzleAtomBytes + config.stages * (stage_bytes + 2 * kBarrierBytes);
}

constexpr int kConsumerWarps = 8;
constexpr int kEpilogueBoxBytes = 16 * 64 * kElementBytes;

}  // namespace

int epilogue_buffers(const GemmConfig& config) {
  if ((config.variant & kVariantTmaStore) == 0 || config.split_k > 1) return 0;
  const int base = pipeline_shared_bytes(config);
  for (int buffers : {2, 1}) {
    if (base + buffers * kConsumerWarps * kEpilogueBoxBytes <= kSm90SharedMemoryPerBlock) {
      return buffers;
    }
  }
  return 0;
}

bool uses_b_3d_map(const GemmConfig& config, const GemmProblem& problem) {
  const int chunks = config.tile_n / 64;
  return (config.variant & kVariantB3d) != 0 && problem.b_layout == BLayout::k_by_n &&
         chunks >= 2 && chunks % config.cluster_m == 0 && problem.n % 64 == 0;
}

int shared_memory_bytes(const GemmConfig& config) {
  return pipeline_shared_bytes(config) +
         epilogue_buffers(config) * kConsumerWarps * kEpilogueBoxBytes;
}

int accumulators_per_thread(const GemmConfig& config) {
  const int rows_per_warpgroup =
      config.schedule == Schedule::cooperative ? config.tile_m / 2 : config.tile_m;
  // A warpgroup's 128 threads hold its rows_per_warpgroup x tile_n fp32 results.
  return rows_per_warpgroup * config.tile_n / 128;
}

std::vector<std::string> violations(const GemmConfig& config, const GemmProblem& problem,
                                    int shared_memory_per_block) {
  std::vector<std::string> out;
  check_knob(out, "tile_m", config.tile_m, {64, 128, 256});
  check_knob(out, "tile_n", config.tile_n, {64, 128, 192, 256});
  check_knob(out, "tile_k", config.tile_k, {32, 64, 128});
  check_range(out, "stages", config.stages, 2, 16);
  check_knob(out, "cluster_m", config.cluster_m, {1, 2});
  check_knob(out, "cluster_n", config.cluster_n, {1, 2});
  // The kernel divides by both (grouped raster, K slices), so every count in range gives its own
  // tile order or slicing.
  check_range(out, "swizzle", config.swizzle, 1, 16);
  check_range(out, "split_k", config.split_k, 1, 8);
  check_range(out, "variant", config.variant, 0, 7);
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
  if (config.fast_launch && !(config.cluster_m == 2 && config.cluster_n == 1 &&
                              config.schedule == Schedule::cooperative && config.split_k == 1)) {
    out.push_back(
        "fast_launch needs cluster_m = 2, cluster_n = 1, the cooperative schedule and "
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
  const std::int64_t tiles_m = (problem.m + cluster_tile_m - 1) / cluster_tile_m;
  const std::int64_t tiles_n = (problem.n + cluster_tile_n - 1) / cluster_tile_n;
  return static_cast<int>(tiles_m * tiles_n * config.split_k);
}

std::vector<std::string> compile_defines(const GemmConfig& config, DType dtype, BLayout b_layout) {
  auto define = [](const char* name, int value) {
    return std::string(name) + "=" + std::to_string(value);
  };
  std::vector<std::string> defines{
      define("CUTUNE_TILE_M", config.tile_m),
      define("CUTUNE_TILE_N", config.tile_n),
      define("CUTUNE_TILE_K", config.tile_k),
      define("CUTUNE_STAGES", config.stages),
      define("CUTUNE_CLUSTER_M", config.cluster_m),
      define("CUTUNE_CLUSTER_N", config.cluster_n),
      define("CUTUNE_SCHEDULE", static_cast<int>(config.schedule)),
      define("CUTUNE_RASTER", static_cast<int>(config.raster)),
      define("CUTUNE_SWIZZLE", config.swizzle),
      define("CUTUNE_SPLIT_K", config.split_k),
      define("CUTUNE_FAST_LAUNCH", config.fast_launch ? 1 : 0),
      define("CUTUNE_DTYPE", static_cast<int>(dtype)),
      define("CUTUNE_B_LAYOUT", static_cast<int>(b_layout)),
  };
  if (config.variant != 0) defines.push_back(define("CUTUNE_VARIANT", config.variant));
  return defines;
}

std::string to_string(const GemmConfig& config) {
  return std::to_string(config.tile_m) + "x" + std::to_string(config.tile_n) + "x" +
         std::to_string(config.tile_k) + "_s" + std::to_string(config.stages) + "_c" +
         std::to_string(config.cluster_m) + "x" + std::to_string(config.cluster_n) +
         (config.schedule == Schedule::cooperative ? "_coop" : "_ping") + "_r" +
         (config.raster == Raster::along_m ? "m" : "n") + std::to_string(config.swizzle) + "_k" +
         std::to_string(config.split_k) + (config.fast_launch ? "_pdl" : "") +
         (config.variant != 0 ? "_v" + std::to_string(config.variant) : "");
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
    throw std::invalid_argument(
        "gemm config name '" + name +
        "' does not match TMxTNxTK_sS_cCMxCN_{coop|ping}_r{m|n}W_kK[_pdl][_vV]");
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
  if (rest.rfind("_v", 0) == 0 && rest.size() > 2 &&
      rest.find_first_not_of("0123456789", 2) == std::string::npos && rest.size() <= 4) {
    config.variant = std::stoi(rest.substr(2));
    rest.clear();
  }
  if (!rest.empty()) {
    throw std::invalid_argument("gemm config name '" + name + "': unexpected suffix '" + rest +
                                "'");
  }
  return config;
}

}  // namespace cutune::gemm
