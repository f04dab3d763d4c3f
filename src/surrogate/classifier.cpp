#include <fmt/core.h>
#include <xgboost/c_api.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cutune/surrogate.hpp"

namespace cutune {
namespace {

void check(int status, const char* call) {
  if (status != 0)
    throw std::runtime_error(fmt::format("XGBoost {} failed: {}", call, XGBGetLastError()));
}

// XGBoost prints warnings to stdout by default; the search's output is a table.
void silence_library() {
  static std::once_flag once;
  std::call_once(once,
                 [] { check(XGBSetGlobalConfig(R"({"verbosity": 0})"), "XGBSetGlobalConfig"); });
}

struct DMatrix {
  DMatrixHandle handle = nullptr;
  DMatrix(std::span<const double> rows, std::size_t row_count, std::size_t feature_count) {
    std::vector<float> data(rows.begin(), rows.end());
    check(XGDMatrixCreateFromMat(data.data(), row_count, feature_count, NAN, &handle),
          "XGDMatrixCreateFromMat");
  }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  ~DMatrix() { XGDMatrixFree(handle); }
};

}  // namespace

struct Classifier::Impl {
  ClassifierOptions options;
  BoosterHandle booster = nullptr;
  std::size_t feature_count = 0;

  ~Impl() { reset(); }
  void reset() {
    if (booster != nullptr) XGBoosterFree(booster);
    booster = nullptr;
  }
  void set(const char* name, const std::string& value) {
    check(XGBoosterSetParam(booster, name, value.c_str()), "XGBoosterSetParam");
  }
};

Classifier::Classifier(ClassifierOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.trees < 1) throw std::invalid_argument("classifier: trees must be at least 1");
  if (options.max_depth < 1)
    throw std::invalid_argument("classifier: max_depth must be at least 1");
  impl_->options = options;
}
Classifier::Classifier(Classifier&&) noexcept = default;
Classifier& Classifier::operator=(Classifier&&) noexcept = default;
Classifier::~Classifier() = default;

bool Classifier::fitted() const { return impl_->booster != nullptr; }

void Classifier::fit(std::span<const double> rows, std::size_t feature_count,
                     std::span<const int> labels) {
  if (feature_count == 0) throw std::invalid_argument("classifier: no features");
  if (labels.empty()) throw std::invalid_argument("classifier: no rows to fit");
  if (rows.size() != labels.size() * feature_count) {
    throw std::invalid_argument(
        fmt::format("classifier: {} values do not make {} rows of {} features", rows.size(),
                    labels.size(), feature_count));
  }
  std::vector<float> label_values;
  label_values.reserve(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != 0 && labels[i] != 1) {
      throw std::invalid_argument(
          fmt::format("classifier: label {} of row {} is not 0 or 1", labels[i], i));
    }
    label_values.push_back(static_cast<float>(labels[i]));
  }
  silence_library();
  impl_->reset();
  DMatrix train(rows, labels.size(), feature_count);
  check(XGDMatrixSetFloatInfo(train.handle, "label", label_values.data(), label_values.size()),
        "XGDMatrixSetFloatInfo");
  check(XGBoosterCreate(&train.handle, 1, &impl_->booster), "XGBoosterCreate");
  impl_->feature_count = feature_count;

  const ClassifierOptions& o = impl_->options;
  const bool forest = o.mode == ClassifierOptions::Mode::forest;
  impl_->set("objective", "binary:logistic");
  impl_->set("nthread", "1");
  impl_->set("tree_method", "exact");
  impl_->set("seed", std::to_string(o.seed % (std::uint64_t{1} << 31)));
  impl_->set("max_depth", std::to_string(o.max_depth));
  impl_->set("min_child_weight", fmt::format("{}", o.min_child_weight));
  impl_->set("subsample", fmt::format("{}", o.row_fraction));
  impl_->set("colsample_bynode", fmt::format("{}", o.column_fraction));
  // A forest is one boosting step of many parallel trees with a full learning rate.
  impl_->set("num_parallel_tree", std::to_string(forest ? o.trees : 1));
  impl_->set("eta", forest ? std::string("1") : fmt::format("{}", o.learning_rate));
  const int rounds = forest ? 1 : o.trees;
  for (int round = 0; round < rounds; ++round) {
    check(XGBoosterUpdateOneIter(impl_->booster, round, train.handle), "XGBoosterUpdateOneIter");
  }
}

std::vector<double> Classifier::predict(std::span<const double> rows) const {
  if (!fitted()) throw std::logic_error("classifier: predict() before fit()");
  const std::size_t columns = impl_->feature_count;
  if (rows.size() % columns != 0) {
    throw std::invalid_argument(fmt::format(
        "classifier: {} values are not whole rows of {} features", rows.size(), columns));
  }
  const std::size_t row_count = rows.size() / columns;
  if (row_count == 0) return {};
  DMatrix data(rows, row_count, columns);
  bst_ulong length = 0;
  const float* result = nullptr;
  check(XGBoosterPredict(impl_->booster, data.handle, 0, 0, 0, &length, &result),
        "XGBoosterPredict");
  return std::vector<double>(result, result + length);
}

}  // namespace cutune
