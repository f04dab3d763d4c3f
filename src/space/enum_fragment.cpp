// Enums of any values (ordered when all are numbers) and booleans.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "fragment_base.hpp"

namespace cutune {
namespace {

using namespace fragments;

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

}  // namespace

FragmentPtr enum_fragment(std::vector<Value> choices, std::vector<Value> search,
                          std::optional<Value> default_value) {
  return std::make_shared<EnumFragment>(std::move(choices), search, default_value);
}

FragmentPtr boolean_fragment(bool default_value, std::vector<bool> search) {
  return std::make_shared<BooleanFragment>(default_value, search);
}

}  // namespace cutune
