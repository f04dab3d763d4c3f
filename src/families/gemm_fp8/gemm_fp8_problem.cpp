#include "gemm_fp8/gemm_fp8_problem.hpp"

#include <array>
#include <cstdio>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace cutune::gemm_fp8 {
namespace {

using Named = std::pair<const char*, int>;

// "knob = value is not in {a, b}" when `value` is not one of `legal`.
template <int N>
void require_one_of(std::vector<std::string>& out, const Named& knob, const int (&legal)[N]) {
  if (rules::one_of(knob.second, legal)) return;
  std::string set;
  for (int value : legal) set += (set.empty() ? "" : ", ") + std::to_string(value);
  out.push_back(std::string(knob.first) + " = " + std::to_string(knob.second) + " is not in {" +
                set + "}");
}

constexpr std::array<std::pair<Schedule, const char*>, 4> kScheduleNames{{
    {Schedule::cooperative, "cooperative"},
    {Schedule::pingpong, "pingpong"},
    {Schedule::cooperative_fast_accum, "cooperative_fast_accum"},
    {Schedule::pingpong_fast_accum, "pingpong_fast_accum"},
}};
// The same schedules in config names.
constexpr std::array<const char*, 4> kScheduleTags{"coop", "ping", "coopfa", "pingfa"};

constexpr std::array<std::pair<Scaling, const char*>, 3> kScalingNames{{
    {Scaling::tensor, "tensor"},
    {Scaling::row_col, "row_col"},
    {Scaling::block, "block"},
}};

}  // namespace

int shared_memory_bytes(const Fp8Config& c, Scaling scaling) {
  return rules::shared_bytes(c.tile_m, c.tile_n, c.tile_k, c.stages, static_cast<int>(scaling));
}

// rules::accumulators_per_thread counts the second set of block scaling only. The accurate
// schedules under tensor and row x column scales hold one as well (a 128x256 cooperative tile
// spills and runs at a third of its fast-accumulation twin's speed); the kernel reads neither
// limit, so the host counts them here rather than in the header whose text versions every
// compiled library.
namespace {
bool promotes(const Fp8Config& c, Scaling scaling) {
  return scaling == Scaling::block || !rules::is_fast_accum(static_cast<int>(c.schedule));
}
}  // namespace

bool promotion_is_a_knob(Schedule schedule, Scaling scaling) {
  return rules::takes_promotion(static_cast<int>(schedule), static_cast<int>(scaling));
}

int accumulators_per_thread(const Fp8Config& c, Scaling scaling) {
  const int one = rules::accumulators_per_thread(c.tile_m, c.tile_n, static_cast<int>(c.schedule),
                                                 rules::kScalingTensor);
  return promotes(c, scaling) ? 2 * one : one;
}

int max_accumulators(const Fp8Config& c, Scaling scaling) {
  return promotes(c, scaling) ? rules::kBlockScaledMaxAccumulators
                              : rules::kMaxAccumulatorsPerThread;
}

std::vector<std::string> violations(const Fp8Config& c, const Fp8Problem& p,
                                    int shared_memory_per_block) {
  std::vector<std::string> out;
  require_one_of(out, {"tile_m", c.tile_m}, rules::kTileM);
  require_one_of(out, {"tile_n", c.tile_n}, rules::kTileN);
  require_one_of(out, {"tile_k", c.tile_k}, rules::kTileK);
  require_one_of(out, {"cluster_m", c.cluster_m}, rules::kClusterExtent);
  require_one_of(out, {"cluster_n", c.cluster_n}, rules::kClusterExtent);
  require_one_of(out, {"swizzle", c.swizzle}, rules::kSwizzle);
  require_one_of(out, {"promotion", c.promotion}, rules::kPromotion);
  if (c.stages < rules::kMinStages || c.stages > rules::kMaxStages) {
    out.push_back("stages = " + std::to_string(c.stages) + " is not in " +
                  std::to_string(rules::kMinStages) + ".." + std::to_string(rules::kMaxStages));
  }
  if (!out.empty()) return out;  // the rules below assume legal knob values

  const int schedule = static_cast<int>(c.schedule);
  // The MMA's M side: tile_m, or tile_n with the operands swapped.
  const char* m_side = c.swap_ab ? "tile_n" : "tile_m";
  const int mma_m = rules::mma_m(c.tile_m, c.tile_n, c.swap_ab);
  if (!rules::one_of(mma_m, rules::kMmaM)) {
    out.push_back(std::string(m_side) + " = " + std::to_string(mma_m) + " is the MMA's M side" +
                  (c.swap_ab ? " with swap_ab" : "") + ": it takes 64, 128 or 256" +
                  (c.swap_ab ? "" : " (tile_m < 64 needs swap_ab)"));
  }
  if (!rules::is_pingpong(schedule) && mma_m < 128) {
    out.push_back("schedule = " + to_string(c.schedule) + " needs " + m_side +
                  " >= 128 (two warpgroups of 64+ rows), got " + m_side + " = " +
                  std::to_string(mma_m));
  }
  if (c.stream_k && rules::is_pingpong(schedule)) {
    out.push_back("stream_k = 1 needs a cooperative schedule, got schedule = " +
                  to_string(c.schedule));
  }
  if (c.swap_ab && p.scaling == Scaling::block) {
    out.push_back(
        "swap_ab = 1 is not taken by scaling = block (its scale blocks are laid out for "
        "A and B in their own roles)");
  }
  if (p.scaling == Scaling::block && rules::is_fast_accum(schedule)) {
    out.push_back("schedule = " + to_string(c.schedule) +
                  " does not promote per k-block: scaling = block takes cooperative or pingpong");
  }
  if (c.promotion != 1 && !promotion_is_a_knob(c.schedule, p.scaling)) {
    out.push_back("promotion = " + std::to_string(c.promotion) +
                  " needs a schedule that promotes "
                  "(cooperative or pingpong) and scaling tensor or row_col, got schedule = " +
                  to_string(c.schedule) + ", scaling = " + to_string(p.scaling));
  }
  if (p.scaling == Scaling::block && c.tile_n % rules::kScaleBlock != 0) {
    out.push_back("tile_n = " + std::to_string(c.tile_n) +
                  " is not a multiple of 128, the scale block of scaling = block");
  }
  if (const int acc = accumulators_per_thread(c, p.scaling); acc > max_accumulators(c, p.scaling)) {
    out.push_back("tile " + std::to_string(c.tile_m) + "x" + std::to_string(c.tile_n) +
                  " with schedule = " + to_string(c.schedule) + " needs " + std::to_string(acc) +
                  " fp32 accumulators per consumer thread, more than " +
                  std::to_string(max_accumulators(c, p.scaling)));
  }
  if (const int bytes = shared_memory_bytes(c, p.scaling); bytes > shared_memory_per_block) {
    out.push_back("stages = " + std::to_string(c.stages) + " needs " + std::to_string(bytes) +
                  " bytes of shared memory, more than the " +
                  std::to_string(shared_memory_per_block) + " available");
  }
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) {
    out.push_back("problem " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                  std::to_string(p.k) + " has a non-positive dimension");
  }
  // TMA needs 16-byte aligned rows: 16 fp8 elements of A and B, 8 bf16 of D.
  if (p.k % 16 != 0) out.push_back("k = " + std::to_string(p.k) + " is not a multiple of 16");
  if (p.n % 8 != 0) out.push_back("n = " + std::to_string(p.n) + " is not a multiple of 8");
  if (p.scaling == Scaling::block && p.k % rules::kScaleBlock != 0) {
    out.push_back("k = " + std::to_string(p.k) +
                  " is not a multiple of 128, the scale block of scaling = block");
  }
  return out;
}

std::string to_string(Scaling scaling) {
  for (const auto& [value, name] : kScalingNames) {
    if (value == scaling) return name;
  }
  return "tensor";
}

Scaling parse_scaling(const std::string& name) {
  for (const auto& [value, text] : kScalingNames) {
    if (name == text) return value;
  }
  throw std::invalid_argument("gemm_fp8 problem scaling '" + name +
                              "' is not tensor, row_col or block");
}

std::string to_string(Schedule schedule) {
  return kScheduleNames[static_cast<int>(schedule)].second;
}

Schedule parse_schedule(const std::string& name) {
  for (const auto& [value, text] : kScheduleNames) {
    if (name == text) return value;
  }
  throw std::invalid_argument("gemm_fp8 schedule '" + name +
                              "' is not cooperative, pingpong, cooperative_fast_accum or "
                              "pingpong_fast_accum");
}

std::string to_string(Format format) { return format == Format::e5m2 ? "e5m2" : "e4m3"; }

Format parse_format(const std::string& name, const std::string& field) {
  if (name == "e4m3") return Format::e4m3;
  if (name == "e5m2") return Format::e5m2;
  throw std::invalid_argument("gemm_fp8 problem " + field + " '" + name + "' is not e4m3 or e5m2");
}

bool LibraryKind::operator<(const LibraryKind& other) const {
  return std::tie(scaling, a_format, b_format) <
         std::tie(other.scaling, other.a_format, other.b_format);
}

std::vector<std::string> compile_defines(const Fp8Config& c, const LibraryKind& kind) {
  std::vector<std::string> defines = gemm::tile_defines(c);
  defines.push_back(gemm::compile_define("CUTUNE_SCALING", static_cast<int>(kind.scaling)));
  defines.push_back(gemm::compile_define("CUTUNE_A_FORMAT", static_cast<int>(kind.a_format)));
  defines.push_back(gemm::compile_define("CUTUNE_B_FORMAT", static_cast<int>(kind.b_format)));
  defines.push_back(gemm::compile_define("CUTUNE_PROMOTION", c.promotion));
  defines.push_back(gemm::compile_define("CUTUNE_SWAP_AB", c.swap_ab ? 1 : 0));
  defines.push_back(gemm::compile_define("CUTUNE_STREAM_K", c.stream_k ? 1 : 0));
  return defines;
}

std::string to_string(const Fp8Config& c) {
  return std::to_string(c.tile_m) + "x" + std::to_string(c.tile_n) + "x" +
         std::to_string(c.tile_k) + "_s" + std::to_string(c.stages) + "_c" +
         std::to_string(c.cluster_m) + "x" + std::to_string(c.cluster_n) + "_" +
         kScheduleTags[static_cast<int>(c.schedule)] + "_r" +
         (c.raster == gemm::Raster::along_m ? "m" : "n") + std::to_string(c.swizzle) +
         (c.promotion != 1 ? "_p" + std::to_string(c.promotion) : "") + (c.swap_ab ? "_swap" : "") +
         (c.stream_k ? "_sk" : "");
}

Fp8Config parse_config(const std::string& name) {
  Fp8Config c;
  char tag[7] = {};
  char raster = 0;
  int consumed = -1;
  const int fields = std::sscanf(name.c_str(), "%dx%dx%d_s%d_c%dx%d_%6[a-z]_r%c%d%n", &c.tile_m,
                                 &c.tile_n, &c.tile_k, &c.stages, &c.cluster_m, &c.cluster_n, tag,
                                 &raster, &c.swizzle, &consumed);
  if (fields == 9 && consumed >= 0 &&
      name.compare(static_cast<std::size_t>(consumed), 2, "_p") == 0) {
    int more = -1;  // the optional promotion interval
    if (std::sscanf(name.c_str() + consumed, "_p%d%n", &c.promotion, &more) == 1) consumed += more;
  }
  // The optional suffixes, in their order.
  const auto suffix = [&](const char* text, bool& flag) {
    const std::string tag(text);
    if (fields == 9 && consumed >= 0 &&
        name.compare(static_cast<std::size_t>(consumed), tag.size(), tag) == 0) {
      flag = true;
      consumed += static_cast<int>(tag.size());
    }
  };
  suffix("_swap", c.swap_ab);
  suffix("_sk", c.stream_k);
  if (fields != 9 || consumed != static_cast<int>(name.size())) {
    throw std::invalid_argument("gemm_fp8 config name '" + name +
                                "' does not match TMxTNxTK_sS_cCMxCN_{coop|ping|coopfa|pingfa}_"
                                "r{m|n}W[_pP][_swap][_sk]");
  }
  std::size_t schedule = 0;
  while (schedule < kScheduleTags.size() && std::string(tag) != kScheduleTags[schedule]) {
    ++schedule;
  }
  if (schedule == kScheduleTags.size()) {
    throw std::invalid_argument("gemm_fp8 config name '" + name + "': schedule '" + tag +
                                "' is not coop, ping, coopfa or pingfa");
  }
  c.schedule = static_cast<Schedule>(schedule);
  if (raster != 'm' && raster != 'n') {
    throw std::invalid_argument("gemm_fp8 config name '" + name + "': raster '" +
                                std::string(1, raster) + "' is neither m nor n");
  }
  c.raster = raster == 'm' ? gemm::Raster::along_m : gemm::Raster::along_n;
  return c;
}

}  // namespace cutune::gemm_fp8
