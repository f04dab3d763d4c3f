// The text of log_feature.inl, which every generated dispatch header carries so that it picks
// exactly what Dispatcher::pick picks. Defined in log_feature_source.cpp, which CMake makes from
// log_feature_source.cpp.in and log_feature.inl.
#pragma once

#include <string_view>

namespace cutune::dispatch {

extern const std::string_view kLogFeatureSource;

}  // namespace cutune::dispatch
