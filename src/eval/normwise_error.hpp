// How both workers judge an output against its reference, element by element: the normwise
// relative error max|x - r| / max|r| (absolute when the reference is all zero), or for a
// partial_sums buffer |sum(x) - sum(r)| / sum|r|, the error the order of a sum of these elements
// may make. Non-finite values are each worker's to refuse before adding them. Header-only: the
// workers include it without linking the tuner's libraries.
#pragma once

#include <algorithm>
#include <cmath>

namespace cutune::eval {

class NormwiseError {
 public:
  explicit NormwiseError(bool summed) : summed_(summed) {}

  void add(double x, double r) {
    sum_ += x;
    reference_sum_ += r;
    max_diff_ = std::max(max_diff_, std::fabs(x - r));
    scale_ = summed_ ? scale_ + std::fabs(r) : std::max(scale_, std::fabs(r));
  }

  double value() const {
    const double diff = summed_ ? std::fabs(sum_ - reference_sum_) : max_diff_;
    return scale_ > 0 ? diff / scale_ : diff;
  }

 private:
  bool summed_;
  double sum_ = 0, reference_sum_ = 0, max_diff_ = 0, scale_ = 0;
};

}  // namespace cutune::eval
