// Fixed-length lists of one element fragment (per-dimension block sizes).
#include <algorithm>
#include <stdexcept>

#include "fragment_base.hpp"

namespace cutune {
namespace {

using namespace fragments;

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

FragmentPtr list_fragment(FragmentPtr element, int length) {
  return std::make_shared<ListFragment>(std::move(element), length);
}

}  // namespace cutune
