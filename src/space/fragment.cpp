#include "cutune/fragment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace cutune {
namespace {

// Enumerating a view larger than this is a caller's mistake (use the gene vector instead).
constexpr std::uint64_t kMaxListedValues = std::uint64_t{1} << 24;

std::invalid_argument not_legal(const Value& v, const Fragment& f, View view) {
  return std::invalid_argument("value " + v.to_string() + " is not in " + f.describe(view));
}

void check_genes(std::span<const std::int64_t> genes, const std::vector<std::int64_t>& bounds) {
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

std::int64_t uniform(Rng& rng, std::int64_t count) {
  return std::uniform_int_distribution<std::int64_t>(0, count - 1)(rng);
}

bool coin(Rng& rng) { return (rng() & 1U) != 0; }

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

class EnumFragment : public IndexedFragment {
 public:
  EnumFragment(std::vector<Value> choices, const std::vector<Value>& search,
               const std::optional<Value>& default_value)
      : choices_(std::move(choices)) {
    if (choices_.empty()) throw std::invalid_argument("an enum needs at least one choice");
    for (std::size_t i = 0; i < choices_.size(); ++i) {
      if (std::find(choices_.begin(), choices_.begin() + i, choices_[i]) != choices_.begin() + i) {
        throw std::invalid_argument("enum choice " + choices_[i].to_string() + " is repeated");
      }
    }
    ordered_ = std::all_of(choices_.begin(), choices_.end(),
                           [](const Value& v) { return v.is_int() || v.is_double(); });
    std::vector<std::int64_t> search_indices;
    for (const Value& v : search) {
      const auto index = index_of(v);
      if (!index) {
        throw std::invalid_argument("search choice " + v.to_string() +
                                    " is not one of the choices " + choices_text());
      }
      search_indices.push_back(*index);
    }
    if (search_indices.empty()) {
      search_indices.resize(choices_.size());
      std::iota(search_indices.begin(), search_indices.end(), 0);
    }
    std::sort(search_indices.begin(), search_indices.end());
    search_indices.erase(std::unique(search_indices.begin(), search_indices.end()),
                         search_indices.end());
    const std::int64_t size = static_cast<std::int64_t>(choices_.size());
    std::int64_t default_index = search_indices.front();
    if (default_value) {
      const auto index = index_of(*default_value);
      if (!index) {
        throw std::invalid_argument("default " + default_value->to_string() +
                                    " is not one of the choices " + choices_text());
      }
      default_index = *index;
    }
    init(size, std::move(search_indices), 0, 0, default_index);
  }

  std::string_view kind() const override { return "enum"; }
  std::string describe(View view) const override { return list_text(view); }

  std::size_t feature_count() const override { return choices_.size(); }
  void encode_features(const Value& v, std::span<double> out) const override {
    const std::int64_t index = checked_index(v);
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(choices_.size()), 0.0);
    out[index] = 1.0;
  }
  Value decode_features(std::span<const double> features) const override {
    const auto count = static_cast<std::ptrdiff_t>(choices_.size());
    return choices_[std::max_element(features.begin(), features.begin() + count) -
                    features.begin()];
  }

 protected:
  Value value_at(std::int64_t index) const override { return choices_[index]; }
  std::optional<std::int64_t> index_of(const Value& v) const override {
    for (std::size_t i = 0; i < choices_.size(); ++i) {
      if (choices_[i] == v) return static_cast<std::int64_t>(i);
    }
    return std::nullopt;
  }
  bool ordered() const override { return ordered_; }

 private:
  // describe() needs the base initialised; this serves the constructor's own errors.
  std::string choices_text() const {
    std::string text = "{";
    for (const Value& v : choices_) text += (text.size() > 1 ? ", " : "") + v.to_string();
    return text + "}";
  }

  std::vector<Value> choices_;
  bool ordered_ = false;
};

class BooleanFragment : public EnumFragment {
 public:
  BooleanFragment(bool default_value, const std::vector<bool>& search)
      : EnumFragment({false, true}, {search.begin(), search.end()}, default_value) {}

  std::string_view kind() const override { return "boolean"; }
  std::size_t feature_count() const override { return 1; }
  void encode_features(const Value& v, std::span<double> out) const override {
    out[0] = static_cast<double>(checked_index(v));
  }
  Value decode_features(std::span<const double> features) const override {
    return features[0] >= 0.5;
  }
};

class PowerOfTwoFragment : public IndexedFragment {
 public:
  PowerOfTwoFragment(std::int64_t lo, std::int64_t hi, std::optional<std::int64_t> default_value,
                     std::int64_t search_lo, std::int64_t search_hi)
      : lo_(lo), hi_(hi) {
    auto require_power = [](std::int64_t v, const char* what) {
      if (v <= 0 || (v & (v - 1)) != 0) {
        throw std::invalid_argument(std::string(what) + " " + std::to_string(v) +
                                    " is not a power of two");
      }
    };
    require_power(lo, "lower bound");
    require_power(hi, "upper bound");
    if (lo > hi) {
      throw std::invalid_argument("power-of-two range [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "] is empty");
    }
    if (search_lo == 0) search_lo = lo;
    if (search_hi == 0) search_hi = hi;
    require_power(search_lo, "search lower bound");
    require_power(search_hi, "search upper bound");
    if (search_lo < lo || search_hi > hi || search_lo > search_hi) {
      throw std::invalid_argument("search range [" + std::to_string(search_lo) + ", " +
                                  std::to_string(search_hi) + "] is not a non-empty part of " +
                                  describe(View::full));
    }
    const std::int64_t size = log2(hi) - log2(lo) + 1;
    const std::int64_t first = log2(search_lo) - log2(lo);
    search_lo_ = search_lo;
    search_hi_ = search_hi;
    const std::int64_t wanted_default = default_value.value_or(search_lo);
    const auto default_index = index_of(wanted_default);
    if (!default_index) {
      throw std::invalid_argument("default " + std::to_string(wanted_default) + " is not in " +
                                  describe(View::full));
    }
    init(size, {}, first, log2(search_hi) - log2(search_lo) + 1, *default_index);
  }

  std::string_view kind() const override { return "power_of_two"; }
  std::string describe(View view) const override {
    const bool full = view == View::full;
    return "powers of two in [" + std::to_string(full ? lo_ : search_lo_) + ", " +
           std::to_string(full ? hi_ : search_hi_) + "]";
  }

  std::size_t feature_count() const override { return 1; }
  void encode_features(const Value& v, std::span<double> out) const override {
    out[0] = static_cast<double>(log2(value_at(checked_index(v)).as_int()));
  }
  Value decode_features(std::span<const double> features) const override {
    const double exponent = std::isfinite(features[0]) ? std::round(features[0]) : 0.0;
    const auto clamped = static_cast<std::int64_t>(std::clamp<double>(
        exponent, static_cast<double>(log2(lo_)), static_cast<double>(log2(hi_))));
    return std::int64_t{1} << clamped;
  }

 protected:
  Value value_at(std::int64_t index) const override { return lo_ << index; }
  std::optional<std::int64_t> index_of(const Value& v) const override {
    if (!v.is_int()) return std::nullopt;
    const std::int64_t x = v.as_int();
    if (x < lo_ || x > hi_ || (x & (x - 1)) != 0) return std::nullopt;
    return log2(x) - log2(lo_);
  }

 private:
  static std::int64_t log2(std::int64_t v) {
    return std::bit_width(static_cast<std::uint64_t>(v)) - 1;
  }
  std::int64_t lo_, hi_, search_lo_ = 0, search_hi_ = 0;
};

class IntegerFragment : public IndexedFragment {
 public:
  IntegerFragment(std::int64_t lo, std::int64_t hi, std::int64_t step,
                  std::optional<std::int64_t> default_value, std::optional<std::int64_t> search_lo,
                  std::optional<std::int64_t> search_hi)
      : lo_(lo), step_(step) {
    if (step <= 0)
      throw std::invalid_argument("integer step " + std::to_string(step) + " is not positive");
    if (lo > hi) {
      throw std::invalid_argument("integer range [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "] is empty");
    }
    hi_ = lo + (hi - lo) / step * step;
    const std::int64_t size = (hi_ - lo) / step + 1;
    const std::int64_t slo = search_lo.value_or(lo);
    const std::int64_t shi = search_hi.value_or(hi_);
    const auto first = index_of(slo);
    const auto last = index_of(shi);
    if (!first || !last || *first > *last) {
      throw std::invalid_argument("search range [" + std::to_string(slo) + ", " +
                                  std::to_string(shi) + "] is not a non-empty part of " +
                                  describe(View::full));
    }
    search_lo_ = slo;
    search_hi_ = shi;
    const std::int64_t wanted_default = default_value.value_or(slo);
    const auto default_index = index_of(wanted_default);
    if (!default_index) {
      throw std::invalid_argument("default " + std::to_string(wanted_default) + " is not in " +
                                  describe(View::full));
    }
    init(size, {}, *first, *last - *first + 1, *default_index);
  }

  std::string_view kind() const override { return "integer"; }
  std::string describe(View view) const override {
    const bool full = view == View::full;
    return "[" + std::to_string(full ? lo_ : search_lo_) + ", " +
           std::to_string(full ? hi_ : search_hi_) + "] step " + std::to_string(step_);
  }

  std::size_t feature_count() const override { return 1; }
  void encode_features(const Value& v, std::span<double> out) const override {
    out[0] = static_cast<double>(value_at(checked_index(v)).as_int());
  }
  Value decode_features(std::span<const double> features) const override {
    const double x = std::isfinite(features[0]) ? features[0] : static_cast<double>(lo_);
    const double steps = std::round((x - static_cast<double>(lo_)) / static_cast<double>(step_));
    return value_at(
        static_cast<std::int64_t>(std::clamp<double>(steps, 0.0, static_cast<double>(size() - 1))));
  }

 protected:
  Value value_at(std::int64_t index) const override { return lo_ + index * step_; }
  std::optional<std::int64_t> index_of(const Value& v) const override {
    if (!v.is_int()) return std::nullopt;
    const std::int64_t x = v.as_int();
    if (x < lo_ || x > hi_ || (x - lo_) % step_ != 0) return std::nullopt;
    return (x - lo_) / step_;
  }

 private:
  std::int64_t lo_, hi_ = 0, step_, search_lo_ = 0, search_hi_ = 0;
};

std::optional<std::uint64_t> checked_multiply(std::optional<std::uint64_t> a,
                                              std::optional<std::uint64_t> b) {
  if (!a || !b) return std::nullopt;
  if (*b != 0 && *a > std::numeric_limits<std::uint64_t>::max() / *b) return std::nullopt;
  return *a * *b;
}

// Search view == full view: every ordering is as legal as any other.
class PermutationFragment : public Fragment {
 public:
  explicit PermutationFragment(int n) : n_(n) {
    if (n < 1) throw std::invalid_argument("a permutation needs n >= 1, got " + std::to_string(n));
    Value::List identity;
    for (int i = 0; i < n; ++i) identity.emplace_back(i);
    default_ = Value(std::move(identity));
  }

  std::string_view kind() const override { return "permutation"; }
  bool contains(const Value& v, View) const override { return positions(v).has_value(); }
  const Value& default_value() const override { return default_; }
  std::string describe(View) const override {
    return "permutations of 0.." + std::to_string(n_ - 1);
  }

  Value draw(Rng& rng) const override {
    std::vector<std::int64_t> order(n_);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    return to_value(order);
  }
  std::vector<Value> neighbours(const Value& v, int radius) const override {
    const std::vector<std::int64_t> order = checked(v);
    std::vector<Value> result;
    for (int i = 0; i < n_; ++i) {
      for (int j = i + 1; j < n_ && j - i <= radius; ++j) {
        std::vector<std::int64_t> swapped = order;
        std::swap(swapped[i], swapped[j]);
        result.push_back(to_value(swapped));
      }
    }
    return result;
  }
  Value mutate(const Value& v, Rng& rng) const override {
    std::vector<std::int64_t> order = checked(v);
    if (n_ < 2) return v;
    const std::int64_t i = uniform(rng, n_);
    std::int64_t j = uniform(rng, n_ - 1);
    if (j >= i) ++j;
    std::swap(order[i], order[j]);
    return to_value(order);
  }
  // Order crossover: a prefix of one parent, then the remaining elements in the other's order.
  Value crossover(const Value& a, const Value& b, Rng& rng) const override {
    const std::vector<std::int64_t> first = checked(a);
    const std::vector<std::int64_t> second = checked(b);
    const std::int64_t cut = uniform(rng, n_ + 1);
    std::vector<std::int64_t> child(first.begin(), first.begin() + cut);
    std::vector<bool> taken(n_, false);
    for (std::int64_t x : child) taken[x] = true;
    for (std::int64_t x : second) {
      if (!taken[x]) child.push_back(x);
    }
    return to_value(child);
  }
  Value nearest_search(const Value& v) const override {
    checked(v);
    return v;
  }

  // Lehmer code: gene i is the rank of element i among the elements not yet placed.
  std::vector<std::int64_t> gene_bounds(View) const override {
    std::vector<std::int64_t> bounds(n_);
    for (int i = 0; i < n_; ++i) bounds[i] = n_ - i;
    return bounds;
  }
  void encode_genes(const Value& v, View, std::span<std::int64_t> out) const override {
    const std::vector<std::int64_t> order = checked(v);
    for (int i = 0; i < n_; ++i) {
      out[i] = std::count_if(order.begin() + i + 1, order.end(),
                             [&](std::int64_t x) { return x < order[i]; });
    }
  }
  Value decode_genes(std::span<const std::int64_t> genes, View view) const override {
    check_genes(genes, gene_bounds(view));
    std::vector<std::int64_t> remaining(n_);
    std::iota(remaining.begin(), remaining.end(), 0);
    std::vector<std::int64_t> order;
    order.reserve(n_);
    for (int i = 0; i < n_; ++i) {
      order.push_back(remaining[genes[i]]);
      remaining.erase(remaining.begin() + genes[i]);
    }
    return to_value(order);
  }

  std::size_t feature_count() const override { return n_; }
  void encode_features(const Value& v, std::span<double> out) const override {
    const std::vector<std::int64_t> order = checked(v);
    for (int position = 0; position < n_; ++position) {
      out[order[position]] = static_cast<double>(position);
    }
  }
  Value decode_features(std::span<const double> features) const override {
    std::vector<std::int64_t> order(n_);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t x, std::int64_t y) { return features[x] < features[y]; });
    return to_value(order);
  }

  std::optional<std::uint64_t> cardinality(View) const override {
    std::optional<std::uint64_t> count = 1;
    for (int i = 2; i <= n_; ++i) count = checked_multiply(count, static_cast<std::uint64_t>(i));
    return count;
  }
  std::vector<Value> values(View view) const override {
    const auto count = cardinality(view);
    if (!count || *count > kMaxListedValues) {
      throw std::length_error(describe(view) + " has too many values to list");
    }
    std::vector<std::int64_t> order(n_);
    std::iota(order.begin(), order.end(), 0);
    std::vector<Value> result;
    do {
      result.push_back(to_value(order));
    } while (std::next_permutation(order.begin(), order.end()));
    return result;
  }

 private:
  std::optional<std::vector<std::int64_t>> positions(const Value& v) const {
    if (!v.is_list() || v.as_list().size() != static_cast<std::size_t>(n_)) return std::nullopt;
    std::vector<std::int64_t> order;
    std::vector<bool> seen(n_, false);
    for (const Value& item : v.as_list()) {
      if (!item.is_int() || item.as_int() < 0 || item.as_int() >= n_ || seen[item.as_int()]) {
        return std::nullopt;
      }
      seen[item.as_int()] = true;
      order.push_back(item.as_int());
    }
    return order;
  }
  std::vector<std::int64_t> checked(const Value& v) const {
    auto order = positions(v);
    if (!order) throw not_legal(v, *this, View::full);
    return *std::move(order);
  }
  static Value to_value(const std::vector<std::int64_t>& order) {
    Value::List items(order.begin(), order.end());
    return Value(std::move(items));
  }

  int n_;
  Value default_;
};

class ListFragment : public Fragment {
 public:
  ListFragment(FragmentPtr element, int length) : element_(std::move(element)), length_(length) {
    if (!element_) throw std::invalid_argument("a list needs an element fragment");
    if (length < 1)
      throw std::invalid_argument("a list needs length >= 1, got " + std::to_string(length));
    default_ = Value(Value::List(length_, element_->default_value()));
    element_genes_ = element_->gene_bounds(View::full).size();
  }

  std::string_view kind() const override { return "list"; }
  bool contains(const Value& v, View view) const override {
    if (!v.is_list() || v.as_list().size() != static_cast<std::size_t>(length_)) return false;
    return std::all_of(v.as_list().begin(), v.as_list().end(),
                       [&](const Value& item) { return element_->contains(item, view); });
  }
  const Value& default_value() const override { return default_; }
  std::string describe(View view) const override {
    return "lists of " + std::to_string(length_) + " values in " + element_->describe(view);
  }

  Value draw(Rng& rng) const override {
    Value::List items;
    items.reserve(length_);
    for (int i = 0; i < length_; ++i) items.push_back(element_->draw(rng));
    return Value(std::move(items));
  }
  std::vector<Value> neighbours(const Value& v, int radius) const override {
    const Value::List& items = checked(v, View::full);
    std::vector<Value> result;
    for (int i = 0; i < length_; ++i) {
      for (Value& n : element_->neighbours(items[i], radius)) {
        Value::List changed = to_search(items);
        changed[i] = std::move(n);
        result.emplace_back(std::move(changed));
      }
    }
    return result;
  }
  Value mutate(const Value& v, Rng& rng) const override {
    Value::List items = to_search(checked(v, View::full));
    const std::int64_t i = uniform(rng, length_);
    items[i] = element_->mutate(items[i], rng);
    return Value(std::move(items));
  }
  Value crossover(const Value& a, const Value& b, Rng& rng) const override {
    const Value::List& first = checked(a, View::full);
    const Value::List& second = checked(b, View::full);
    Value::List items;
    items.reserve(length_);
    for (int i = 0; i < length_; ++i)
      items.push_back(element_->crossover(first[i], second[i], rng));
    return Value(std::move(items));
  }
  Value nearest_search(const Value& v) const override {
    return Value(to_search(checked(v, View::full)));
  }

  std::vector<std::int64_t> gene_bounds(View view) const override {
    const std::vector<std::int64_t> element = element_->gene_bounds(view);
    std::vector<std::int64_t> bounds;
    for (int i = 0; i < length_; ++i) bounds.insert(bounds.end(), element.begin(), element.end());
    return bounds;
  }
  void encode_genes(const Value& v, View view, std::span<std::int64_t> out) const override {
    const Value::List& items = checked(v, view);
    for (int i = 0; i < length_; ++i) {
      element_->encode_genes(items[i], view, out.subspan(i * element_genes_, element_genes_));
    }
  }
  Value decode_genes(std::span<const std::int64_t> genes, View view) const override {
    check_genes(genes, gene_bounds(view));
    Value::List items;
    items.reserve(length_);
    for (int i = 0; i < length_; ++i) {
      items.push_back(
          element_->decode_genes(genes.subspan(i * element_genes_, element_genes_), view));
    }
    return Value(std::move(items));
  }

  std::size_t feature_count() const override { return length_ * element_->feature_count(); }
  void encode_features(const Value& v, std::span<double> out) const override {
    const Value::List& items = checked(v, View::full);
    const std::size_t width = element_->feature_count();
    for (int i = 0; i < length_; ++i)
      element_->encode_features(items[i], out.subspan(i * width, width));
  }
  Value decode_features(std::span<const double> features) const override {
    const std::size_t width = element_->feature_count();
    Value::List items;
    items.reserve(length_);
    for (int i = 0; i < length_; ++i) {
      items.push_back(element_->decode_features(features.subspan(i * width, width)));
    }
    return Value(std::move(items));
  }

  std::optional<std::uint64_t> cardinality(View view) const override {
    std::optional<std::uint64_t> count = 1;
    for (int i = 0; i < length_; ++i) count = checked_multiply(count, element_->cardinality(view));
    return count;
  }
  std::vector<Value> values(View view) const override {
    const auto count = cardinality(view);
    if (!count || *count > kMaxListedValues) {
      throw std::length_error(describe(view) + " has too many values to list");
    }
    const std::vector<Value> element_values = element_->values(view);
    std::vector<Value> result;
    result.reserve(*count);
    std::vector<std::size_t> digits(length_, 0);
    for (std::uint64_t n = 0; n < *count; ++n) {
      Value::List items;
      for (std::size_t d : digits) items.push_back(element_values[d]);
      result.emplace_back(std::move(items));
      for (int i = length_ - 1; i >= 0 && ++digits[i] == element_values.size(); --i) digits[i] = 0;
    }
    return result;
  }

 private:
  const Value::List& checked(const Value& v, View view) const {
    if (!contains(v, view)) throw not_legal(v, *this, view);
    return v.as_list();
  }
  Value::List to_search(const Value::List& items) const {
    Value::List result;
    result.reserve(items.size());
    for (const Value& item : items) result.push_back(element_->nearest_search(item));
    return result;
  }

  FragmentPtr element_;
  int length_;
  std::size_t element_genes_ = 0;
  Value default_;
};

}  // namespace

FragmentPtr enum_fragment(std::vector<Value> choices, std::vector<Value> search,
                          std::optional<Value> default_value) {
  return std::make_shared<EnumFragment>(std::move(choices), search, default_value);
}

FragmentPtr boolean_fragment(bool default_value, std::vector<bool> search) {
  return std::make_shared<BooleanFragment>(default_value, search);
}

FragmentPtr power_of_two_fragment(std::int64_t lo, std::int64_t hi,
                                  std::optional<std::int64_t> default_value, std::int64_t search_lo,
                                  std::int64_t search_hi) {
  return std::make_shared<PowerOfTwoFragment>(lo, hi, default_value, search_lo, search_hi);
}

FragmentPtr integer_fragment(std::int64_t lo, std::int64_t hi, std::int64_t step,
                             std::optional<std::int64_t> default_value,
                             std::optional<std::int64_t> search_lo,
                             std::optional<std::int64_t> search_hi) {
  return std::make_shared<IntegerFragment>(lo, hi, step, default_value, search_lo, search_hi);
}

FragmentPtr permutation_fragment(int n) { return std::make_shared<PermutationFragment>(n); }

FragmentPtr list_fragment(FragmentPtr element, int length) {
  return std::make_shared<ListFragment>(std::move(element), length);
}

}  // namespace cutune
