// Fragments: one typed knob each. A fragment has two views of its values:
//   choices         every legal value (what a seed, the store, a user or the default may hold)
//   search_choices  the non-empty subset that random draws, neighbours, mutation and crossover use
// A value in choices but not in search_choices is seed-only: it reaches a candidate only through a
// heuristic seed. The default is legal in both views.
// Every operation given a value outside the view it needs throws std::invalid_argument naming the
// value and the legal set (Space adds the knob's name).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/value.hpp"

namespace cutune {

using Rng = std::mt19937_64;

enum class View { search, full };

class Fragment {
 public:
  virtual ~Fragment() = default;

  virtual std::string_view kind() const = 0;  // "enum", "boolean", "power_of_two", ...
  virtual bool contains(const Value& v, View view = View::full) const = 0;
  virtual const Value& default_value() const = 0;
  // The legal set of a view, printed for error messages ("{64, 128, 256}", "[1, 8] step 1").
  virtual std::string describe(View view = View::full) const = 0;

  // Search-view operations. Results are always in the search view.
  virtual Value draw(Rng& rng) const = 0;
  // Values at distance 1..radius of v in the search view (v itself excluded); v may be seed-only.
  virtual std::vector<Value> neighbours(const Value& v, int radius) const = 0;
  virtual Value mutate(const Value& v, Rng& rng) const = 0;
  virtual Value crossover(const Value& a, const Value& b, Rng& rng) const = 0;
  // The search value closest to v (v itself when it is in the search view): where a gate's repair
  // moves a candidate that asks for a seed-only mode.
  virtual Value nearest_search(const Value& v) const = 0;

  // Genes: a fixed number of integers per fragment, gene i in [0, gene_bounds(view)[i]).
  // decode(encode(v)) == v for every v legal in the view.
  virtual std::vector<std::int64_t> gene_bounds(View view) const = 0;
  virtual void encode_genes(const Value& v, View view, std::span<std::int64_t> out) const = 0;
  virtual Value decode_genes(std::span<const std::int64_t> genes, View view) const = 0;

  // Surrogate features over the full view (so seed-only values encode too): one-hot for enums,
  // log2 for powers of two, 0/1 for booleans, positions for permutations.
  virtual std::size_t feature_count() const = 0;
  virtual void encode_features(const Value& v, std::span<double> out) const = 0;
  virtual Value decode_features(std::span<const double> features) const = 0;  // nearest legal value

  // Number of values in a view (nullopt when it does not fit in 64 bits).
  virtual std::optional<std::uint64_t> cardinality(View view) const = 0;
  // All values of a finite view, in a stable order.
  virtual std::vector<Value> values(View view) const = 0;
};

using FragmentPtr = std::shared_ptr<const Fragment>;

// Builders. Each throws std::invalid_argument when the description is inconsistent (empty views,
// search_choices not a subset of choices, a default outside either view).
// An empty `search` means "search every choice"; a missing default means the first search choice.
FragmentPtr enum_fragment(std::vector<Value> choices, std::vector<Value> search = {},
                          std::optional<Value> default_value = std::nullopt);
FragmentPtr boolean_fragment(bool default_value = false, std::vector<bool> search = {});
// Powers of two in [lo, hi]; the search view is [search_lo, search_hi] (0 means same as full).
FragmentPtr power_of_two_fragment(std::int64_t lo, std::int64_t hi,
                                  std::optional<std::int64_t> default_value = std::nullopt,
                                  std::int64_t search_lo = 0, std::int64_t search_hi = 0);
// lo, lo+step, ..., <= hi; the search view is [search_lo, search_hi] on the same grid.
FragmentPtr integer_fragment(std::int64_t lo, std::int64_t hi, std::int64_t step = 1,
                             std::optional<std::int64_t> default_value = std::nullopt,
                             std::optional<std::int64_t> search_lo = std::nullopt,
                             std::optional<std::int64_t> search_hi = std::nullopt);
// A permutation of 0..n-1 (value: list of ints); default is the identity.
FragmentPtr permutation_fragment(int n);
// A fixed-length list of values of one element fragment (value: list of element values).
FragmentPtr list_fragment(FragmentPtr element, int length);

}  // namespace cutune
