// The one content hash of cutune: XXH3-128 (Debian's libxxhash) for every key that names content
// (compile-cache entries, source files, reference caches, lookup tables). 128 bits make an
// accidental collision negligible; where a collision would matter (the compile cache) the key is
// still compared before anything is used.
//
// Callers: any module. Throws only std::bad_alloc (creating a hash state).
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace cutune::hash {

struct Digest128 {
  std::uint64_t high = 0;
  std::uint64_t low = 0;

  std::string hex() const;  // 32 lowercase hex digits, high word first
  auto operator<=>(const Digest128&) const = default;
};

// A streaming hash over pieces of content.
class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(ContentHash&&) noexcept;
  ContentHash& operator=(ContentHash&&) noexcept;
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;

  // Raw bytes, concatenated with whatever came before.
  ContentHash& update(std::string_view bytes);
  // A piece preceded by its length, so that ("ab","c") and ("a","bc") hash differently.
  ContentHash& field(std::string_view bytes);

  Digest128 digest() const;
  std::string hex() const { return digest().hex(); }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The digest of one piece of bytes, as update(bytes) on a fresh hash.
Digest128 content_hash(std::string_view bytes);

// FNV-1a 64 over length-prefixed fields, kept for one reason: kernel family versions are stored in
// every existing store's tuning keys and in exported headers, so changing how they are computed
// would orphan every tuned row (a re-tune for every user) for no gain in safety (a version is
// compared as text, never trusted to name an object). Use ContentHash for anything new.
class StoredVersionHash {
 public:
  StoredVersionHash& field(std::string_view bytes);
  std::string hex() const;  // 16 lowercase hex digits

 private:
  void update(std::string_view bytes);
  std::uint64_t state_ = 14695981039346656037ull;
};

}  // namespace cutune::hash
