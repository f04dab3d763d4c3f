// Orderings of 0..n-1 (loop orders): searched whole, encoded as Lehmer codes.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "fragment_base.hpp"

namespace cutune {
namespace {

using namespace fragments;

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

}  // namespace

FragmentPtr permutation_fragment(int n) { return std::make_shared<PermutationFragment>(n); }

}  // namespace cutune
