// What a Store holds: its database (SQLite or PostgreSQL, behind one interface) and what the
// schema check found in it, with the helpers its queries share. Internal to cutune_store.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/store.hpp"
#include "database.hpp"
#include "schema.hpp"

namespace cutune {

struct Store::Impl {
  Impl(std::unique_ptr<store::Database> database, OpenMode mode);

  [[noreturn]] void fail(std::string_view problem) const;

  // The calls below run inside a transaction.
  // The key's id; none when nothing was ever recorded under it.
  std::optional<std::int64_t> key_id(const TuningKey& key);
  // The key's id, its row created when missing and, on PostgreSQL, locked until the transaction
  // ends: every write under one key queues there, so that a claim's look at the budget and its
  // insert are one step (SQLite's write transaction already holds the whole file).
  std::int64_t lock_key(const TuningKey& key);
  // StoredResult rows from a measurement source (a table or view) aliased m.
  std::vector<StoredResult> results(std::string_view source, std::string_view condition,
                                    std::string_view order,
                                    const std::vector<store::Value>& params);

  std::unique_ptr<store::Database> db;
  store::SchemaState schema;
  // Owners whose life lock this connection holds (PostgreSQL only; src/store/participants.hpp).
  std::set<std::string, std::less<>> lives;
};

}  // namespace cutune
