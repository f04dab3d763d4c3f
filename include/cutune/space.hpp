// A Space: ordered named fragments, the constraints between them, and the views over both.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/config.hpp"
#include "cutune/fragment.hpp"
#include "cutune/problem.hpp"

namespace cutune {

// A predicate over a config with a repair that changes the fewest knobs needed to satisfy it.
// A gate is a constraint that fires when a combination of knobs asks for a special mode (e.g. a
// launch path legal only inside an envelope): its repair moves the candidate *away* from that
// mode, to the nearest legal search value, and never overwrites the candidate with a seed.
struct Constraint {
  std::string name;
  std::function<bool(const Config&, const Problem&, const Device&)> holds = {};
  // Changes config so that holds() becomes true (or leaves it, if it cannot). May be empty: a
  // violated constraint without a repair drops the candidate.
  std::function<void(Config&, const Problem&, const Device&)> repair = {};
  bool is_gate = false;
};

// A guess where fast configs lie, such as a thread block whose x side is a whole number of warps.
// Unlike a constraint it makes no config illegal: a search's random first round keeps to the
// configs every preference holds for (where its draws find any), and the search may leave them.
struct Preference {
  std::string name;
  std::function<bool(const Config&, const Problem&, const Device&)> holds = {};
};

// The preference that a thread block's x side, `block_x` of a config, be a whole number of warps
// (32 threads): by the convention of CUDA kernels and Kernel Tuner's block_size_x, threadIdx.x runs
// along contiguous memory, so such a block gives every warp one contiguous row to load.
Preference whole_warps(std::string name,
                       std::function<double(const Config&, const Problem&, const Device&)> block_x);

// What normalization did to one candidate.
struct Normalized {
  std::optional<Config> config;    // empty when the candidate is still illegal after repair
  std::vector<std::size_t> fired;  // indices of constraints whose repair ran
  std::string failure;             // the constraint still violated, when dropped
};

class Space {
 public:
  Space() = default;
  Space(const Space&) = delete;  // configs point at their space
  Space& operator=(const Space&) = delete;

  // Builders; throw std::invalid_argument on a duplicate or empty knob name.
  Space& add(std::string name, FragmentPtr fragment);
  Space& constrain(Constraint constraint);
  // Knobs that often pay only when they move together (a tile's two sides, a tile and the warps
  // that run it): paired_neighbours moves two knobs of one group a step each, which a one-knob
  // step cannot reach when either move alone is slower. Throws ConfigError naming an unknown knob
  // (with the closest name), std::invalid_argument for a group of fewer than two distinct knobs.
  Space& pair_moves(const std::vector<std::string>& knobs);
  // Throws std::invalid_argument for a preference without a name or a predicate.
  Space& prefer(Preference preference);

  std::size_t knob_count() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  const Fragment& fragment(std::size_t knob) const { return *fragments_.at(knob); }
  // Shared, so that a derived space (a variant, a spec's override) can reuse the declaration.
  const FragmentPtr& fragment_ptr(std::size_t knob) const { return fragments_.at(knob); }
  std::optional<std::size_t> find(std::string_view name) const;
  std::size_t index_of(std::string_view name) const;  // throws ConfigError with the closest name
  std::string closest_name(std::string_view name) const;
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const std::vector<std::vector<std::size_t>>& move_pairs() const { return move_pairs_; }
  const std::vector<Preference>& preferences() const { return preferences_; }
  // Every preference holds (true for a space without any).
  bool preferred(const Config& config, const Problem& problem, const Device& device) const;
  // Hash of the knob names in order: configs of differently shaped spaces hash differently.
  std::uint64_t layout_hash() const { return layout_hash_; }

  Config default_config() const;
  Config draw(Rng& rng) const;  // every knob drawn from its search view
  // Completes a partial config with defaults. Throws ConfigError on an unknown knob or a value
  // illegal in the full view.
  Config complete(const PartialConfig& partial) const;
  Config from_json(const nlohmann::json& j) const;  // object of knobs; partial allowed

  // Repairs constraints in order, passes repeated until none fires (bounded). Idempotent:
  // normalize(normalize(c)) == normalize(c).
  Normalized normalize(Config config, const Problem& problem, const Device& device) const;
  bool legal(const Config& config, const Problem& problem, const Device& device) const;

  // Genes: a flat integer vector over all knobs. Encoding a value outside the view throws.
  std::vector<std::int64_t> gene_bounds(View view) const;
  std::vector<std::int64_t> encode(const Config& config, View view) const;
  Config decode(std::span<const std::int64_t> genes, View view) const;

  // Surrogate features over the full view, so any legal config (partial seeds included, after
  // completion) encodes.
  std::size_t feature_count() const;
  std::vector<double> features(const Config& config) const;

  // Search operators, knob by knob through the fragments: a knob they change lands in its search
  // view; the knobs they leave keep their values, seed-only ones included.
  std::vector<Config> neighbours(const Config& config, int radius = 1) const;
  // Two knobs of one pair_moves group moved one step each, every such pair once (none without
  // groups).
  std::vector<Config> paired_neighbours(const Config& config) const;
  // `to` moved two steps further along each knob of ordered values (power_of_two, integer) that
  // differs between `from` and `to`, in the direction from one to the other, where the search
  // view holds both steps; nullopt when no knob can move so.
  std::optional<Config> onward(const Config& from, const Config& to) const;
  Config mutate(const Config& config, Rng& rng, double rate) const;
  Config crossover(const Config& a, const Config& b, Rng& rng) const;

  // Size of a view before constraints (nullopt when it overflows 64 bits).
  std::optional<std::uint64_t> size(View view) const;
  // Every config of a finite view, in a stable order; throws std::length_error above max_count.
  std::vector<Config> enumerate(View view, std::uint64_t max_count) const;

 private:
  // Where each knob's genes / features start in the flat vectors (one extra entry: the total).
  struct Layout {
    std::vector<std::int64_t> bounds;
    std::vector<std::size_t> offsets{0};
  };
  const Layout& layout(View view) const { return view == View::full ? full_ : search_; }
  ConfigError knob_error(std::size_t knob, const std::exception& cause) const;

  std::vector<std::string> names_;
  std::vector<FragmentPtr> fragments_;
  std::vector<Constraint> constraints_;
  std::vector<std::vector<std::size_t>> move_pairs_;  // pair_moves groups, as knob indices
  std::vector<Preference> preferences_;
  Layout full_, search_;
  std::vector<std::size_t> feature_offsets_{0};
  std::uint64_t layout_hash_ = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
};

}  // namespace cutune
