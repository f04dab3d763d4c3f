#include "hash/content_hash.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <new>

namespace cutune::hash {

struct ContentHash::State {
  XXH3_state_t* xxh = nullptr;
  State() : xxh(XXH3_createState()) {
    if (xxh == nullptr) throw std::bad_alloc();
    XXH3_128bits_reset(xxh);
  }
  ~State() { XXH3_freeState(xxh); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
};

std::string Digest128::hex() const { return fmt::format("{:016x}{:016x}", high, low); }

ContentHash::ContentHash() : state_(std::make_unique<State>()) {}
ContentHash::~ContentHash() = default;
ContentHash::ContentHash(ContentHash&&) noexcept = default;
ContentHash& ContentHash::operator=(ContentHash&&) noexcept = default;

ContentHash& ContentHash::update(std::string_view bytes) {
  XXH3_128bits_update(state_->xxh, bytes.data(), bytes.size());
  return *this;
}

ContentHash& ContentHash::field(std::string_view bytes) {
  // Little-endian whatever the host, so digests agree across machines.
  char length[8];
  const std::uint64_t size = bytes.size();
  for (int i = 0; i < 8; ++i) length[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  update(std::string_view(length, sizeof length));
  return update(bytes);
}

Digest128 ContentHash::digest() const {
  const XXH128_hash_t h = XXH3_128bits_digest(state_->xxh);
  return {h.high64, h.low64};
}

Digest128 content_hash(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {h.high64, h.low64};
}

void StoredVersionHash::update(std::string_view bytes) {
  for (const unsigned char c : bytes) {
    state_ ^= c;
    state_ *= 1099511628211ull;
  }
}

StoredVersionHash& StoredVersionHash::field(std::string_view bytes) {
  // The length as decimal text and a colon: the encoding every stored version was made with.
  update(std::to_string(bytes.size()));
  update(":");
  update(bytes);
  return *this;
}

std::string StoredVersionHash::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace cutune::hash
