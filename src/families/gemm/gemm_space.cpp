#include "gemm/gemm_space.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "gemm/gemm_seeds.hpp"

namespace cutune {
namespace {

namespace rules = gemm::rules;

// The legal values of gemm_rules.hpp (which the kernel's static_asserts read) as knob values.
template <int N>
std::vector<Value> values_of(const int (&legal)[N]) {
  return std::vector<Value>(std::begin(legal), std::end(legal));
}

constexpr const char* kCooperative = "cooperative";
constexpr const char* kPingpong = "pingpong";

// Knob positions, resolved once when the space is built so that constraints read values by index
// (a name lookup per read would cost more than the rest of a draw).
struct Knobs {
  std::size_t tile_m, tile_n, tile_k, stages, cluster_m, cluster_n, schedule, raster, swizzle,
      split_k, fast_launch;

  // Integer knobs' search values, ascending, by knob index (empty for the others).
  std::vector<std::vector<int>> search_ints;

  explicit Knobs(const Space& s)
      : tile_m(s.index_of("tile_m")),
        tile_n(s.index_of("tile_n")),
        tile_k(s.index_of("tile_k")),
        stages(s.index_of("stages")),
        cluster_m(s.index_of("cluster_m")),
        cluster_n(s.index_of("cluster_n")),
        schedule(s.index_of("schedule")),
        raster(s.index_of("raster")),
        swizzle(s.index_of("swizzle")),
        split_k(s.index_of("split_k")),
        fast_launch(s.index_of("fast_launch")),
        search_ints(s.knob_count()) {
    for (std::size_t knob = 0; knob < s.knob_count(); ++knob) {
      for (const Value& v : s.fragment(knob).values(View::search)) {
        if (v.is_int()) search_ints[knob].push_back(static_cast<int>(v.as_int()));
      }
      std::sort(search_ints[knob].begin(), search_ints[knob].end());
    }
  }

  gemm::GemmConfig read(const Config& c) const {
    gemm::GemmConfig g;
    g.tile_m = static_cast<int>(c.at(tile_m).as_int());
    g.tile_n = static_cast<int>(c.at(tile_n).as_int());
    g.tile_k = static_cast<int>(c.at(tile_k).as_int());
    g.stages = static_cast<int>(c.at(stages).as_int());
    g.cluster_m = static_cast<int>(c.at(cluster_m).as_int());
    g.cluster_n = static_cast<int>(c.at(cluster_n).as_int());
    g.schedule = c.at(schedule).as_string() == kCooperative ? gemm::Schedule::cooperative
                                                            : gemm::Schedule::pingpong;
    g.raster =
        c.at(raster).as_string() == "along_m" ? gemm::Raster::along_m : gemm::Raster::along_n;
    g.swizzle = static_cast<int>(c.at(swizzle).as_int());
    g.split_k = static_cast<int>(c.at(split_k).as_int());
    g.fast_launch = c.at(fast_launch).as_bool();
    return g;
  }
};

std::int64_t smem_budget(const Device& device) {
  return device.smem_per_block > 0 ? device.smem_per_block : gemm::kSm90SharedMemoryPerBlock;
}

std::int64_t tile_count(std::int64_t extent, const Value& tile) {
  return gemm::ceil_div(extent, tile.as_int());
}

bool fits_shared_memory(const gemm::GemmConfig& g, const Device& device) {
  return gemm::shared_memory_bytes(g) <= smem_budget(device);
}

// The largest search value of an integer knob below `current` for which `ok` holds, if any.
template <typename Ok>
std::optional<int> largest_below(const Knobs& k, std::size_t knob, int current, Ok ok) {
  const std::vector<int>& values = k.search_ints[knob];
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (*it < current && ok(*it)) return *it;
  }
  return std::nullopt;
}

// Folds a (tile_k, stages) pair that overflows shared memory onto the pairs that fit with the same
// tile_m x tile_n: the pair's position among all search pairs (tile_k major), modulo how many fit.
// The pairs the budget rejects then spread evenly over the ones it keeps, where "the most stages
// that fit" piled every rejected stage count onto one config (independent draws collided about
// five times in 300). Pairs that fit map to themselves, so the repair is idempotent. Nothing when
// no pair fits.
std::optional<std::pair<int, int>> fold_depth(const Knobs& k, gemm::GemmConfig g,
                                              const Device& device) {
  const std::vector<int>& depths = k.search_ints[k.tile_k];
  const std::vector<int>& stages = k.search_ints[k.stages];
  // Per depth, how many of the (ascending) stage counts fit: a prefix, as each stage costs bytes.
  std::array<std::size_t, 8> fitting;
  const std::size_t depth_count = std::min(depths.size(), fitting.size());
  std::size_t total = 0;
  std::size_t position = 0;
  const int drawn_depth = g.tile_k;
  const int drawn_stages = g.stages;
  for (std::size_t d = 0; d < depth_count; ++d) {
    g.tile_k = depths[d];
    std::size_t fit = 0;
    while (fit < stages.size()) {
      g.stages = stages[fit];
      if (!fits_shared_memory(g, device)) break;
      ++fit;
    }
    fitting[d] = fit;
    total += fit;
    if (depths[d] < drawn_depth) {
      position += stages.size();
    } else if (depths[d] == drawn_depth) {
      position += static_cast<std::size_t>(
          std::lower_bound(stages.begin(), stages.end(), drawn_stages) - stages.begin());
    }
  }
  if (total == 0) return std::nullopt;
  std::size_t target = position % total;
  for (std::size_t d = 0;; ++d) {
    if (target < fitting[d]) return std::pair{depths[d], stages[target]};
    target -= fitting[d];
  }
}

void add_constraints(Space& space, const Knobs& k) {
  space.constrain({
      .name = "cooperative_needs_tile_m_128",
      .holds =
          [k](const Config& c, const Problem&, const Device&) {
            return c.at(k.schedule).as_string() != kCooperative || c.at(k.tile_m).as_int() >= 128;
          },
      // Switching the schedule keeps the tile; a 64-row tile runs as one warpgroup per tile.
      .repair = [k](Config& c, const Problem&, const Device&) { c.set(k.schedule, kPingpong); },
  });
  space.constrain({
      .name = "register_budget",
      .holds =
          [k](const Config& c, const Problem&, const Device&) {
            return gemm::accumulators_per_thread(k.read(c)) <= gemm::kMaxAccumulatorsPerThread;
          },
      .repair =
          [k](Config& c, const Problem&, const Device&) {
            gemm::GemmConfig g = k.read(c);
            const auto tile_n = largest_below(k, k.tile_n, g.tile_n, [&](int n) {
              g.tile_n = n;
              return gemm::accumulators_per_thread(g) <= gemm::kMaxAccumulatorsPerThread;
            });
            if (tile_n) c.set(k.tile_n, *tile_n);
          },
  });
  space.constrain({
      .name = "shared_memory",
      .holds = [k](const Config& c, const Problem&,
                   const Device& d) { return fits_shared_memory(k.read(c), d); },
      // Moves tile_k and stages only (tile_m x tile_n come from the register budget and the
      // schedule), spread by fold_depth; when no depth fits the tile, the smallest of all three.
      .repair =
          [k](Config& c, const Problem&, const Device& d) {
            if (const auto depth = fold_depth(k, k.read(c), d)) {
              c.set(k.tile_k, depth->first);
              c.set(k.stages, depth->second);
              return;
            }
            for (std::size_t knob : {k.stages, k.tile_n, k.tile_k}) {
              c.set(knob, k.search_ints[knob].front());
            }
          },
  });
  space.constrain({
      .name = "cluster_fits_tile_grid",
      // A cluster wider than the grid of output tiles would hold CTAs with nothing to compute.
      .holds =
          [k](const Config& c, const Problem& p, const Device&) {
            return c.at(k.cluster_m).as_int() <= tile_count(p.get_int("m"), c.at(k.tile_m)) &&
                   c.at(k.cluster_n).as_int() <= tile_count(p.get_int("n"), c.at(k.tile_n));
          },
      .repair =
          [k](Config& c, const Problem& p, const Device&) {
            if (c.at(k.cluster_m).as_int() > tile_count(p.get_int("m"), c.at(k.tile_m))) {
              c.set(k.cluster_m, 1);
            }
            if (c.at(k.cluster_n).as_int() > tile_count(p.get_int("n"), c.at(k.tile_n))) {
              c.set(k.cluster_n, 1);
            }
          },
  });
  space.constrain({
      .name = "split_k_depth",
      // Each K slice must still fill the pipeline: at least two tile_k steps.
      .holds =
          [k](const Config& c, const Problem& p, const Device&) {
            const std::int64_t split = c.at(k.split_k).as_int();
            return split == 1 || p.get_int("k") / split >= 2 * c.at(k.tile_k).as_int();
          },
      .repair =
          [k](Config& c, const Problem& p, const Device&) {
            const std::int64_t depth = p.get_int("k");
            const std::int64_t tile_k = c.at(k.tile_k).as_int();
            const auto split =
                largest_below(k, k.split_k, static_cast<int>(c.at(k.split_k).as_int()),
                              [&](int s) { return s == 1 || depth / s >= 2 * tile_k; });
            c.set(k.split_k, split.value_or(1));
          },
  });
  space.constrain({
      .name = "fast_launch_envelope",
      .holds =
          [k](const Config& c, const Problem&, const Device&) {
            return !c.at(k.fast_launch).as_bool() ||
                   rules::fast_launch_allowed(static_cast<int>(c.at(k.cluster_m).as_int()),
                                              static_cast<int>(c.at(k.cluster_n).as_int()),
                                              c.at(k.schedule).as_string() == kPingpong,
                                              static_cast<int>(c.at(k.split_k).as_int()));
          },
      // Away from the gated mode, to the nearest search value; the other knobs stay as drawn.
      .repair =
          [k, &space](Config& c, const Problem&, const Device&) {
            c.set(k.fast_launch, space.fragment(k.fast_launch).nearest_search(c.at(k.fast_launch)));
          },
      .is_gate = true,
  });
}

std::vector<std::string> gemm_problem_errors(const Problem& problem, const Device& device) {
  try {
    // The default kernel config is legal, so whatever the kernel's rules report is the problem's.
    return gemm::violations(gemm::GemmConfig{}, to_gemm_problem(problem),
                            static_cast<int>(smem_budget(device)));
  } catch (const std::exception& e) {  // a missing or unsupported argument
    return {e.what()};
  }
}

}  // namespace

std::unique_ptr<TuningSpace> make_gemm_space() {
  auto ts = std::make_unique<TuningSpace>();
  Space& space = ts->space;
  space.add("tile_m", enum_fragment(values_of(rules::kTileM), {}, 128))
      .add("tile_n", enum_fragment(values_of(rules::kTileN), {}, 128))
      .add("tile_k", enum_fragment(values_of(rules::kTileK), {}, 64))
      .add("stages", integer_fragment(rules::kMinStages, rules::kMaxStages, 1, 4))
      .add("cluster_m",
           power_of_two_fragment(rules::kClusterExtent[0], rules::kClusterExtent[1], 1))
      .add("cluster_n",
           power_of_two_fragment(rules::kClusterExtent[0], rules::kClusterExtent[1], 1))
      .add("schedule", enum_fragment({kCooperative, kPingpong}))
      .add("raster", enum_fragment({"along_m", "along_n"}))
      .add("swizzle", integer_fragment(rules::kMinSwizzle, rules::kMaxSwizzle, 1, 1))
      .add("split_k", integer_fragment(rules::kMinSplitK, rules::kMaxSplitK, 1, 1))
      // Seed-only: true enters only through the eligibility-gated fast_launch seed.
      .add("fast_launch", boolean_fragment(false, {false}));
  add_constraints(space, Knobs(space));
  add_gemm_seeds(*ts);
  ts->problem_errors = gemm_problem_errors;
  return ts;
}

Problem gemm_problem(std::int64_t m, std::int64_t n, std::int64_t k, std::string dtype) {
  return Problem({{"m", m}, {"n", n}, {"k", k}, {"dtype", std::move(dtype)}});
}

Problem resolve_gemm_family_problem(const Problem& problem, const std::string& family,
                                    const std::string& field, const std::string& fallback,
                                    const UnnamedDefaults& unnamed, const ProblemErrors& errors) {
  auto args = problem.args();
  // Flushed timing is the default and stays unnamed, so that the keys of tunes made before the
  // option existed are the keys of flushed tunes now; likewise the family's own.
  UnnamedDefaults defaults = unnamed;
  defaults.emplace_back("timing", gemm::to_string(gemm::Timing::flushed));
  for (const auto& [name, value] : defaults) {
    if (const auto it = args.find(name);
        it != args.end() && it->second.is_string() && it->second.as_string() == value) {
      args.erase(it);
    }
  }
  Problem out(std::move(args));
  if (!out.has(field)) out.set(field, Value(fallback));
  // The device's shared memory does not change what problems the kernel runs: the default
  // description will do.
  if (const std::vector<std::string> reasons = errors(out, Device{}); !reasons.empty()) {
    throw std::invalid_argument(family + " problem " + out.canonical() + ": " +
                                gemm::joined(reasons));
  }
  return out;
}

Problem resolve_gemm_problem(const Problem& problem) {
  return resolve_gemm_family_problem(problem, "gemm", "dtype", "bf16",
                                     {{"b_layout", gemm::to_string(gemm::BLayout::k_by_n)}},
                                     gemm_problem_errors);
}

gemm::GemmProblem to_gemm_problem(const Problem& problem) {
  gemm::GemmProblem g;
  g.m = problem.get_int("m");
  g.n = problem.get_int("n");
  g.k = problem.get_int("k");
  if (problem.has("dtype")) g.dtype = gemm::parse_dtype(problem.at("dtype").as_string());
  if (problem.has("b_layout")) {
    g.b_layout = gemm::parse_b_layout(problem.at("b_layout").as_string());
  }
  if (problem.has("timing")) g.timing = gemm::parse_timing(problem.at("timing").as_string());
  return g;
}

gemm::GemmConfig to_gemm_config(const Config& config) { return Knobs(config.space()).read(config); }

}  // namespace cutune
