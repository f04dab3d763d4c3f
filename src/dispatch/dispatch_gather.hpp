// Reads a family's tuned shapes from the store into a DispatchFitter (internal to cutune_runtime):
// the shapes, their candidate configs and what each candidate, as repaired for each shape, did.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/dispatch_fitter.hpp"

namespace cutune::dispatch {

// The tune id of cross-measured rows: gather() counts them as measurements of a candidate on a
// shape, never as that shape's own tune.
inline constexpr std::string_view kCrossMeasure = "cross-measure";

struct Gathered {
  DispatchFitter fitter;
  std::vector<TuningKey> shape_keys;  // a key of each shape (fitter.shapes order)
  std::string device, version;
  std::vector<std::string> features;
  std::map<std::string, Value, std::less<>> fixed;
};

// Throws std::invalid_argument when the family has no tuned shape on the device, or when shapes
// differ in argument names or in a non-numeric argument.
Gathered gather(Store& store, const DispatchOptions& options);

}  // namespace cutune::dispatch
