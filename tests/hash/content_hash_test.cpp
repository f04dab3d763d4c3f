#include "hash/content_hash.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cutune::hash {
namespace {

TEST(ContentHash, IsXxh3128) {
  // XXH3-128 of no bytes, from xxHash's own test vectors: a change of algorithm shows here.
  EXPECT_EQ(ContentHash().hex(), "99aa06d3014798d86001c324468d497f");
  EXPECT_EQ(content_hash("").hex(), ContentHash().hex());
  EXPECT_EQ(ContentHash().hex().size(), 32u);
}

TEST(ContentHash, StreamingEqualsOneShotAndFieldsSeparate) {
  const std::string text(1000, 'x');
  ContentHash pieces;
  pieces.update(text.substr(0, 333)).update(text.substr(333));
  EXPECT_EQ(pieces.digest(), content_hash(text));
  EXPECT_NE(ContentHash().field("ab").field("c").digest(),
            ContentHash().field("a").field("bc").digest());
  EXPECT_NE(ContentHash().field("").digest(), ContentHash().digest());
  ContentHash moved = ContentHash();
  moved.update(text);
  EXPECT_EQ(moved.digest(), content_hash(text));
}

TEST(StoredVersionHash, KeepsTheVersionsExistingStoresHold) {
  // FNV-1a 64 of "0:": the encoding (decimal length, colon, bytes) every stored version was made
  // with.
  EXPECT_EQ(StoredVersionHash().field("").hex(), "07fc0e07b4bd112f");
  EXPECT_NE(StoredVersionHash().field("ab").field("c").hex(),
            StoredVersionHash().field("a").field("bc").hex());
}

}  // namespace
}  // namespace cutune::hash
