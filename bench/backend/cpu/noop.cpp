// A kernel that does almost nothing, so that a candidate's cost is the tuner's own.
#include <cstdint>

#ifndef SCALE
#define SCALE 1
#endif

extern "C" void scale(void** buffers, const std::int64_t* scalars) {
  const auto* in = static_cast<const float*>(buffers[0]);
  auto* out = static_cast<float*>(buffers[1]);
  for (std::int64_t i = 0; i < scalars[0]; ++i) out[i] = in[i] * (SCALE > 0 ? 1.0f : 2.0f);
}
