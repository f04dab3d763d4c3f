// What every fragment kind shares: the checks behind their errors, the draws, the listing limit
// and the indexed base of enums, booleans, powers of two and integer ranges. Internal to
// src/space (fragment.hpp is the public face).
#pragma once

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "cutune/fragment.hpp"

namespace cutune::fragments {

// Enumerating a view larger than this is a caller's mistake (use the gene vector instead).
inline constexpr std::uint64_t kMaxListedValues = std::uint64_t{1} << 24;

inline std::invalid_argument not_legal(const Value& v, const Fragment& f, View view) {
  return std::invalid_argument("value " + v.to_string() + " is not in " + f.describe(view));
}

inline void check_genes(std::span<const std::int64_t> genes,
                        const std::vector<std::int64_t>& bounds) {
  if (genes.size() != bounds.size()) {
    throw std::invalid_argument("expected " + std::to_string(bounds.size()) + " genes, got " +
                                std::to_string(genes.size()));
  }
  for (std::size_t i = 0; i < genes.size(); ++i) {
    if (genes[i] < 0 || genes[i] >= bounds[i]) {
      throw std::invalid_argument("gene " + std::to_string(genes[i]) + " is outside [0, " +
                                  std::to_string(bounds[i]) + ")");
    }
  }
}

inline std::int64_t uniform(Rng& rng, std::int64_t count) {
  return std::uniform_int_distribution<std::int64_t>(0, count - 1)(rng);
}

inline bool coin(Rng& rng) { return (rng() & 1U) != 0; }

inline std::optional<std::uint64_t> checked_multiply(std::optional<std::uint64_t> a,
                                                     std::optional<std::uint64_t> b) {
  if (!a || !b) return std::nullopt;
  if (*b != 0 && *a > std::numeric_limits<std::uint64_t>::max() / *b) return std::nullopt;
  return *a * *b;
}

// A fragment whose full view is a finite sequence of values addressed by index 0..size-1, and
// whose search view is an ascending subset of those indices: enums, booleans, powers of two and
// integer ranges. Neighbours and nearest values follow index order.
class IndexedFragment : public Fragment {
 public:
  bool contains(const Value& v, View view) const override {
    const auto index = index_of(v);
    return index && (view == View::full || search_position(*index));
  }
  const Value& default_value() const override { return default_; }

  Value draw(Rng& rng) const override {
    return value_at(search_index(uniform(rng, search_count())));
  }

  std::vector<Value> neighbours(const Value& v, int radius) const override {
    const std::int64_t index = checked_index(v);
    const auto position = search_position(index);
    std::vector<Value> result;
    if (!ordered()) {
      for (std::int64_t j = 0; j < search_count(); ++j) {
        if (search_index(j) != index) result.push_back(value_at(search_index(j)));
      }
      return result;
    }
    // Search ranks below and above v; a seed-only v sits between two ranks, each at distance 1.
    const std::int64_t above = position ? *position + 1 : first_search_above(index);
    const std::int64_t below = position ? *position - 1 : above - 1;
    for (std::int64_t j = std::max<std::int64_t>(0, below - radius + 1); j <= below; ++j) {
      result.push_back(value_at(search_index(j)));
    }
    for (std::int64_t j = above; j < std::min(search_count(), above + radius); ++j) {
      result.push_back(value_at(search_index(j)));
    }
    return result;
  }

  Value mutate(const Value& v, Rng& rng) const override {
    const auto position = search_position(checked_index(v));
    if (!position) return draw(rng);
    if (search_count() == 1) return v;
    std::int64_t j = uniform(rng, search_count() - 1);
    if (j >= *position) ++j;
    return value_at(search_index(j));
  }

  Value crossover(const Value& a, const Value& b, Rng& rng) const override {
    const Value& first = coin(rng) ? a : b;
    const Value& second = &first == &a ? b : a;
    if (contains(first, View::search)) return first;
    if (contains(second, View::search)) return second;
    return nearest_search(first);
  }

  Value nearest_search(const Value& v) const override {
    const std::int64_t index = checked_index(v);
    if (search_position(index)) return v;
    const std::int64_t above = first_search_above(index);
    if (above == search_count()) return value_at(search_index(above - 1));
    if (above == 0) return value_at(search_index(0));
    const std::int64_t lower = search_index(above - 1);
    const std::int64_t upper = search_index(above);
    return value_at(index - lower <= upper - index ? lower : upper);
  }

  std::vector<std::int64_t> gene_bounds(View view) const override {
    return {view == View::full ? size_ : search_count()};
  }
  void encode_genes(const Value& v, View view, std::span<std::int64_t> out) const override {
    const auto index = index_of(v);
    if (!index) throw not_legal(v, *this, view);
    if (view == View::full) {
      out[0] = *index;
      return;
    }
    const auto position = search_position(*index);
    if (!position) throw not_legal(v, *this, view);
    out[0] = *position;
  }
  Value decode_genes(std::span<const std::int64_t> genes, View view) const override {
    check_genes(genes, gene_bounds(view));
    return value_at(view == View::full ? genes[0] : search_index(genes[0]));
  }

  std::optional<std::uint64_t> cardinality(View view) const override {
    return static_cast<std::uint64_t>(view == View::full ? size_ : search_count());
  }
  std::vector<Value> values(View view) const override {
    const std::int64_t count = view == View::full ? size_ : search_count();
    if (static_cast<std::uint64_t>(count) > kMaxListedValues) {
      throw std::length_error(describe(view) + " has too many values to list");
    }
    std::vector<Value> result;
    result.reserve(count);
    for (std::int64_t j = 0; j < count; ++j) {
      result.push_back(value_at(view == View::full ? j : search_index(j)));
    }
    return result;
  }

 protected:
  // search_indices empty: the search view is the contiguous range [search_first, +search_count).
  void init(std::int64_t size, std::vector<std::int64_t> search_indices, std::int64_t search_first,
            std::int64_t search_count, std::int64_t default_index) {
    size_ = size;
    search_indices_ = std::move(search_indices);
    search_first_ = search_first;
    search_count_ =
        search_indices_.empty() ? search_count : static_cast<std::int64_t>(search_indices_.size());
    default_ = value_at(default_index);
    if (!search_position(default_index)) {
      throw std::invalid_argument("default " + default_.to_string() +
                                  " is not in the search view " + describe(View::search));
    }
  }

  virtual Value value_at(std::int64_t index) const = 0;
  virtual std::optional<std::int64_t> index_of(const Value& v) const = 0;
  virtual bool ordered() const { return true; }

  std::int64_t size() const { return size_; }
  std::int64_t search_count() const { return search_count_; }
  std::int64_t search_index(std::int64_t position) const {
    return search_indices_.empty() ? search_first_ + position : search_indices_[position];
  }
  std::optional<std::int64_t> search_position(std::int64_t index) const {
    if (search_indices_.empty()) {
      if (index < search_first_ || index >= search_first_ + search_count_) return std::nullopt;
      return index - search_first_;
    }
    const auto it = std::lower_bound(search_indices_.begin(), search_indices_.end(), index);
    if (it == search_indices_.end() || *it != index) return std::nullopt;
    return it - search_indices_.begin();
  }
  std::int64_t checked_index(const Value& v) const {
    const auto index = index_of(v);
    if (!index) throw not_legal(v, *this, View::full);
    return *index;
  }
  // The index of a numeric default; one outside the full view is the caller's error.
  std::int64_t default_index_of(std::int64_t wanted) const {
    const auto index = index_of(Value(wanted));
    if (!index) {
      throw std::invalid_argument("default " + std::to_string(wanted) + " is not in " +
                                  describe(View::full));
    }
    return *index;
  }
  // Text of an explicit value list, "{a, b, c}".
  std::string list_text(View view) const {
    std::string text = "{";
    const std::int64_t count = view == View::full ? size_ : search_count();
    for (std::int64_t j = 0; j < count; ++j) {
      if (j > 0) text += ", ";
      text += value_at(view == View::full ? j : search_index(j)).to_string();
    }
    return text + "}";
  }

 private:
  // Rank of the first search value whose index is above `index`.
  std::int64_t first_search_above(std::int64_t index) const {
    if (search_indices_.empty()) {
      return std::clamp<std::int64_t>(index - search_first_ + 1, 0, search_count_);
    }
    return std::upper_bound(search_indices_.begin(), search_indices_.end(), index) -
           search_indices_.begin();
  }

  std::int64_t size_ = 0;
  std::vector<std::int64_t> search_indices_;
  std::int64_t search_first_ = 0;
  std::int64_t search_count_ = 0;
  Value default_;
};

}  // namespace cutune::fragments
