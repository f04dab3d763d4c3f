// A 64-bit FNV-1a hasher for content keys (compile cache entries, reference caches). Stable across
// runs, builds and machines: the same bytes always give the same hash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cutune::eval {

class Fnv1a {
 public:
  static constexpr std::uint64_t offset_basis = 14695981039346656037ull;
  static constexpr std::uint64_t prime = 1099511628211ull;

  Fnv1a& update(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= prime;
    }
    return *this;
  }
  // Feeds a length before a piece so that ("ab","c") and ("a","bc") hash differently.
  Fnv1a& field(std::string_view bytes) {
    update(std::to_string(bytes.size()));
    update(":");
    return update(bytes);
  }

  std::uint64_t digest() const { return state_; }
  std::string hex() const;  // 16 lowercase hex digits

 private:
  std::uint64_t state_ = offset_basis;
};

inline std::string Fnv1a::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15, shift = 0; i >= 0; --i, shift += 4) out[i] = digits[(state_ >> shift) & 0xf];
  return out;
}

}  // namespace cutune::eval
