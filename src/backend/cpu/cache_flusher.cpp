// The cache eviction before each timed run of the CPU worker (worker.hpp's CacheFlusher).
#include <algorithm>
#include <fstream>

#include "worker.hpp"

namespace cutune::cpu {

void CacheFlusher::flush(const std::vector<Buffer>& buffers) {
#if defined(__x86_64__)
  for (const auto& buffer : buffers) {
    const char* bytes = reinterpret_cast<const char*>(buffer.data);
    for (std::size_t at = 0; at < buffer.bytes; at += 64) __builtin_ia32_clflush(bytes + at);
  }
  __builtin_ia32_mfence();
#else
  (void)buffers;
  if (lines_.empty()) lines_.assign(flush_bytes() / sizeof(Line), Line{});
  for (auto& line : lines_) line.bytes[0] = static_cast<char>(line.bytes[0] + 1);
#endif
}

#if !defined(__x86_64__)
std::size_t CacheFlusher::flush_bytes() {
  std::size_t llc = 32u << 20;
  std::ifstream size_file("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string text;
  if (size_file >> text && !text.empty()) {
    std::size_t value = std::stoul(text);
    if (text.back() == 'K') value <<= 10;
    if (text.back() == 'M') value <<= 20;
    if (value > 0) llc = value;
  }
  return std::min<std::size_t>(2 * llc, 256u << 20);
}
#endif

}  // namespace cutune::cpu
