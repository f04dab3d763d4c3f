#include "gemm_fp8/gemm_fp8_space.hpp"

#include <array>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gemm/gemm_space.hpp"
#include "gemm_fp8/gemm_fp8_seeds.hpp"

namespace cutune {
namespace {

namespace rules = gemm_fp8::rules;
using gemm_fp8::Fp8Config;
using gemm_fp8::Fp8Problem;
using gemm_fp8::Scaling;
using gemm_fp8::Schedule;

template <int N>
std::vector<Value> legal_values(const int (&legal)[N]) {
  return std::vector<Value>(std::begin(legal), std::end(legal));
}

// The knobs in Fp8Config's order; their positions in the space are resolved once, so that
// constraints read values by index.
enum Knob {
  kTileMKnob,
  kTileNKnob,
  kTileKKnob,
  kStagesKnob,
  kClusterMKnob,
  kClusterNKnob,
  kScheduleKnob,
  kRasterKnob,
  kSwizzleKnob,
  kPromotionKnob,
  kSwapABKnob,
  kStreamKKnob,
  kKnobCount
};
constexpr std::array<const char*, kKnobCount> kKnobNames{
    "tile_m",   "tile_n", "tile_k",  "stages",    "cluster_m", "cluster_n",
    "schedule", "raster", "swizzle", "promotion", "swap_ab",   "stream_k"};

struct Fp8Knobs {
  std::array<std::size_t, kKnobCount> at{};

  explicit Fp8Knobs(const Space& s) {
    for (std::size_t knob = 0; knob < at.size(); ++knob) at[knob] = s.index_of(kKnobNames[knob]);
  }

  Fp8Config read(const Config& c) const {
    auto integer = [&](Knob knob) { return static_cast<int>(c.at(at[knob]).as_int()); };
    const bool along_m = c.at(at[kRasterKnob]).as_string() == "along_m";
    return {integer(kTileMKnob),
            integer(kTileNKnob),
            integer(kTileKKnob),
            integer(kStagesKnob),
            integer(kClusterMKnob),
            integer(kClusterNKnob),
            gemm_fp8::parse_schedule(c.at(at[kScheduleKnob]).as_string()),
            along_m ? gemm::Raster::along_m : gemm::Raster::along_n,
            integer(kSwizzleKnob),
            integer(kPromotionKnob),
            integer(kSwapABKnob) != 0,
            integer(kStreamKKnob) != 0};
  }
};

Scaling scaling_of(const Problem& p) {
  return p.has("scaling") ? gemm_fp8::parse_scaling(p.at("scaling").as_string()) : Scaling::tensor;
}

// An operand's format where the problem names none.
const std::string kDefaultFormat = gemm_fp8::to_string(gemm_fp8::Format::e4m3);

int smem_budget(const Device& device) {
  return device.smem_per_block > 0 ? static_cast<int>(device.smem_per_block)
                                   : rules::kSharedMemoryPerBlock;
}

// One constraint per rule of gemm_fp8_problem.cpp's violations(), each with the repair that moves
// the fewest knobs; `holds` reads the config and the problem's scaling.
void add_constraint(Space& space, const Fp8Knobs& k, std::string name,
                    bool (*holds)(const Fp8Config&, Scaling, int),
                    void (*repair)(Fp8Config&, Scaling, int)) {
  space.constrain({
      .name = std::move(name),
      .holds = [k, holds](
                   const Config& c, const Problem& p,
                   const Device& d) { return holds(k.read(c), scaling_of(p), smem_budget(d)); },
      .repair =
          [k, repair](Config& c, const Problem& p, const Device& d) {
            Fp8Config g = k.read(c);
            repair(g, scaling_of(p), smem_budget(d));
            c.set(k.at[kTileMKnob], g.tile_m);
            c.set(k.at[kTileNKnob], g.tile_n);
            c.set(k.at[kStagesKnob], g.stages);
            c.set(k.at[kScheduleKnob], gemm_fp8::to_string(g.schedule));
            c.set(k.at[kPromotionKnob], g.promotion);
            c.set(k.at[kSwapABKnob], g.swap_ab ? 1 : 0);
            c.set(k.at[kStreamKKnob], g.stream_k ? 1 : 0);
          },
  });
}

int schedule_id(const Fp8Config& g) { return static_cast<int>(g.schedule); }
int mma_m(const Fp8Config& g) { return rules::mma_m(g.tile_m, g.tile_n, g.swap_ab); }

// The ping-pong schedule with the same accumulation.
void to_pingpong(Fp8Config& g) {
  g.schedule =
      rules::is_fast_accum(schedule_id(g)) ? Schedule::pingpong_fast_accum : Schedule::pingpong;
}

// The same schedule's accurate (promoting) accumulation.
void to_accurate(Fp8Config& g) {
  g.schedule = rules::is_pingpong(schedule_id(g)) ? Schedule::pingpong : Schedule::cooperative;
}

void add_constraints(Space& space, const Fp8Knobs& k) {
  space.constrain({
      .name = "fast_accum_depth",
      .holds =
          [k](const Config& c, const Problem& p, const Device&) {
            return p.get_int("k") <= rules::kFastAccumMaxK ||
                   !rules::is_fast_accum(schedule_id(k.read(c)));
          },
      // The same tile with the schedule's accurate accumulation (first, so that the register
      // budget below sees the promotion's second accumulator set).
      .repair =
          [k](Config& c, const Problem&, const Device&) {
            Fp8Config g = k.read(c);
            to_accurate(g);
            c.set(k.at[kScheduleKnob], gemm_fp8::to_string(g.schedule));
          },
  });
  add_constraint(
      space, k, "block_scaling_unswapped",
      [](const Fp8Config& g, Scaling s, int) { return s != Scaling::block || !g.swap_ab; },
      // mma_m_side then lengthens a tile shorter than the MMA's M side.
      [](Fp8Config& g, Scaling, int) { g.swap_ab = false; });
  add_constraint(
      space, k, "mma_m_side",
      [](const Fp8Config& g, Scaling, int) { return rules::one_of(mma_m(g), rules::kMmaM); },
      // A tile shorter than the MMA's M side swaps its operands where the scaling allows; a
      // swapped tile's columns (192) narrow to 128.
      [](Fp8Config& g, Scaling s, int) {
        if (!g.swap_ab && g.tile_m < 64) {
          if (s == Scaling::block) {
            g.tile_m = 64;
          } else {
            g.swap_ab = true;
          }
        }
        if (g.swap_ab && !rules::one_of(g.tile_n, rules::kMmaM)) g.tile_n = 128;
      });
  add_constraint(
      space, k, "block_scaling_promotes",
      [](const Fp8Config& g, Scaling s, int) {
        return s != Scaling::block || !rules::is_fast_accum(schedule_id(g));
      },
      [](Fp8Config& g, Scaling, int) { to_accurate(g); });
  add_constraint(
      space, k, "promotion_needs_promoting_schedule",
      [](const Fp8Config& g, Scaling s, int) {
        return g.promotion == 1 || gemm_fp8::promotion_is_a_knob(g.schedule, s);
      },
      [](Fp8Config& g, Scaling, int) { g.promotion = 1; });
  add_constraint(
      space, k, "cooperative_needs_mma_m_128",
      [](const Fp8Config& g, Scaling, int) {
        return rules::is_pingpong(schedule_id(g)) || mma_m(g) >= 128;
      },
      // Keeps the tile; a 64-row MMA side runs as one warpgroup per tile.
      [](Fp8Config& g, Scaling, int) { to_pingpong(g); });
  add_constraint(
      space, k, "block_scaling_tile_n",
      [](const Fp8Config& g, Scaling s, int) {
        return s != Scaling::block || g.tile_n % rules::kScaleBlock == 0;
      },
      [](Fp8Config& g, Scaling, int) { g.tile_n = g.tile_n < 256 ? 128 : 256; });
  add_constraint(
      space, k, "stream_k_cooperative",
      [](const Fp8Config& g, Scaling, int) {
        return !g.stream_k || !rules::is_pingpong(schedule_id(g));
      },
      [](Fp8Config& g, Scaling, int) { g.stream_k = false; });
  add_constraint(
      space, k, "register_budget",
      [](const Fp8Config& g, Scaling s, int) {
        return gemm_fp8::accumulators_per_thread(g, s) <= gemm_fp8::max_accumulators(g, s);
      },
      // Narrows the tile (to 128 columns, the scale block), then shortens it.
      [](Fp8Config& g, Scaling s, int) {
        const int limit = gemm_fp8::max_accumulators(g, s);
        if (g.tile_n > 128) g.tile_n = 128;
        while (gemm_fp8::accumulators_per_thread(g, s) > limit && g.tile_m > 64) g.tile_m /= 2;
        if (mma_m(g) < 128) to_pingpong(g);
      });
  add_constraint(
      space, k, "shared_memory",
      [](const Fp8Config& g, Scaling s, int budget) {
        return gemm_fp8::shared_memory_bytes(g, s) <= budget;
      },
      [](Fp8Config& g, Scaling s, int budget) {
        g.stages = rules::deepest_stages(g.tile_m, g.tile_n, g.tile_k, static_cast<int>(s), budget);
      });
  space.constrain({
      .name = "cluster_fits_tile_grid",
      // A cluster wider than the grid of output tiles would hold CTAs with nothing to compute.
      .holds =
          [k](const Config& c, const Problem& p, const Device&) {
            const Fp8Config g = k.read(c);
            return g.cluster_m <= gemm::ceil_div(p.get_int("m"), g.tile_m) &&
                   g.cluster_n <= gemm::ceil_div(p.get_int("n"), g.tile_n);
          },
      .repair =
          [k](Config& c, const Problem& p, const Device&) {
            const Fp8Config g = k.read(c);
            if (g.cluster_m > gemm::ceil_div(p.get_int("m"), g.tile_m))
              c.set(k.at[kClusterMKnob], 1);
            if (g.cluster_n > gemm::ceil_div(p.get_int("n"), g.tile_n))
              c.set(k.at[kClusterNKnob], 1);
          },
  });
}

std::vector<std::string> fp8_problem_errors(const Problem& problem, const Device& device) {
  Fp8Problem shape;
  try {
    shape = to_fp8_problem(problem);
  } catch (const std::exception& e) {  // a missing or unsupported argument
    return {e.what()};
  }
  // The default config runs every scaling: what the rules report is the problem's.
  return gemm_fp8::violations(Fp8Config{}, shape, smem_budget(device));
}

}  // namespace

std::unique_ptr<TuningSpace> make_gemm_fp8_space() {
  auto ts = std::make_unique<TuningSpace>();
  Space& space = ts->space;
  space.add("tile_m", enum_fragment(legal_values(rules::kTileM), {}, 128))
      .add("tile_n", enum_fragment(legal_values(rules::kTileN), {}, 128))
      .add("tile_k", enum_fragment(legal_values(rules::kTileK), {}, 128))
      .add("stages", integer_fragment(rules::kMinStages, rules::kMaxStages, 1, 4))
      .add("cluster_m", power_of_two_fragment(1, 2, 1))
      .add("cluster_n", power_of_two_fragment(1, 2, 1))
      .add("schedule", enum_fragment({"cooperative", "pingpong", "cooperative_fast_accum",
                                      "pingpong_fast_accum"}))
      .add("raster", enum_fragment({"along_m", "along_n"}, {}, "along_n"))
      .add("swizzle", enum_fragment(legal_values(rules::kSwizzle), {}, 1))
      .add("promotion", enum_fragment(legal_values(rules::kPromotion), {}, 1))
      .add("swap_ab", enum_fragment(legal_values(rules::kSwapAB), {}, 0))
      .add("stream_k", enum_fragment(legal_values(rules::kStreamK), {}, 0));
  add_constraints(space, Fp8Knobs(space));
  add_gemm_fp8_seeds(*ts);
  ts->problem_errors = fp8_problem_errors;
  return ts;
}

Problem gemm_fp8_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::string scaling,
                         const std::string& a_format, const std::string& b_format) {
  Problem p({{"m", m}, {"n", n}, {"k", k}, {"scaling", std::move(scaling)}});
  if (a_format != kDefaultFormat) p.set("a_format", Value(a_format));
  if (b_format != kDefaultFormat) p.set("b_format", Value(b_format));
  return p;
}

Problem resolve_gemm_fp8_problem(const Problem& problem) {
  // e4m3 is the default and stays unnamed, so that the keys of tunes made before e5m2 existed are
  // the keys of e4m3 tunes now.
  return resolve_gemm_family_problem(problem, "gemm_fp8", "scaling", "tensor",
                                     {{"a_format", kDefaultFormat}, {"b_format", kDefaultFormat}},
                                     fp8_problem_errors);
}

gemm_fp8::Fp8Problem to_fp8_problem(const Problem& problem) {
  Fp8Problem g;
  g.m = problem.get_int("m");
  g.n = problem.get_int("n");
  g.k = problem.get_int("k");
  g.scaling = scaling_of(problem);
  for (auto [field, format] : {std::pair{"a_format", &g.a_format}, {"b_format", &g.b_format}}) {
    if (problem.has(field)) *format = gemm_fp8::parse_format(problem.at(field).as_string(), field);
  }
  if (problem.has("timing")) g.timing = gemm::parse_timing(problem.at("timing").as_string());
  return g;
}

gemm_fp8::Fp8Config to_fp8_config(const Config& config) {
  return Fp8Knobs(config.space()).read(config);
}

}  // namespace cutune
