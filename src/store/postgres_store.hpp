// The results store on a PostgreSQL server: the SQLite store's tables, views and rules, written
// for PostgreSQL, plus what lets several tunes on several machines share one key (claims with a
// lease, participants). Store (cutune/store.hpp) forwards to it when --db is a postgresql:// URL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/store.hpp"
#include "postgres.hpp"

namespace cutune {

class Store::Postgres {
 public:
  // Connects, then checks the schema, creating it (read_write) in an empty database.
  Postgres(std::string url, OpenMode mode);

  const std::filesystem::path& url() const { return url_; }

  std::int64_t record(const StoredResult& result);
  bool record_decision(const Decision& decision);  // false: no such winner row under the key
  std::optional<Decision> decision(const TuningKey& key);
  std::optional<StoredResult> deployed(const TuningKey& key);
  std::optional<Measurement> find(const TuningKey& key, std::string_view config_hash);
  std::vector<StoredResult> results(const TuningKey& key);
  std::int64_t measurement_count(const TuningKey& key);
  std::vector<StoredResult> best(const TuningKey& key, int n);
  std::vector<TuningKey> keys(const KeyFilter& filter);
  std::vector<StoredResult> best_per_key(const KeyFilter& filter);

  ClaimResult claim(const TuningKey& key, std::string_view config_hash,
                    std::string_view config_json, std::string_view owner, double lease_seconds,
                    std::size_t budget);
  std::vector<std::string> orphans(const TuningKey& key);
  void release(const TuningKey& key, std::string_view config_hash, std::string_view owner);
  std::size_t join(const TuningKey& key, std::string_view owner);
  std::size_t claims_held_by_others(const TuningKey& key, std::string_view owner);

 private:
  static postgres::Connection connect(const std::string& url);  // StoreError when it cannot
  [[noreturn]] void fail(std::string_view doing, const std::string& problem) const;
  void check_or_create_schema(OpenMode mode);
  void replace_stale_latest_view();
  // Runs work in a transaction, again when the server reports a serialization failure.
  template <typename Work>
  auto transaction(std::string_view doing, Work&& work);
  // The key's row, created when missing and locked until the transaction ends: every write under
  // one key queues here, so a claim's look at the budget and its insert are one step.
  std::int64_t lock_key(const TuningKey& key);
  std::vector<StoredResult> query_results(std::string_view source, std::string_view condition,
                                          std::string_view order,
                                          const std::vector<postgres::Param>& params);

  std::filesystem::path url_;
  postgres::Connection db_;
};

}  // namespace cutune
