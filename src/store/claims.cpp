// The cooperation of several tunes ("participants") on one key, which only a PostgreSQL store
// offers (docs/scale-out.md): a candidate is claimed with a lease before it is measured, by the
// server's clock (participants' clocks may differ); an SQLite store refuses these calls.
#include <fmt/format.h>

#include "store_impl.hpp"

namespace cutune {
namespace {

using store::Access;
using store::in_transaction;
using store::Value;

constexpr std::string_view kLive = "expires_at > clock_timestamp()";

// An SQLite store has one participant per tune; several processes on one file measure alone.
store::Database& shared_database(Store::Impl& impl, std::string_view call) {
  if (impl.db->dialect() != store::Dialect::postgresql) {
    impl.fail(
        fmt::format("{}: only a PostgreSQL store (--db postgresql://...) is shared by the "
                    "participants of a tune",
                    call));
  }
  return *impl.db;
}

}  // namespace

ClaimResult Store::claim(const TuningKey& key, std::string_view config_hash,
                         std::string_view config_json, std::string_view owner, double lease_seconds,
                         std::size_t budget) {
  auto& db = shared_database(*impl_, "claim");
  return in_transaction(db, Access::write, "claim", [&] {
    const Value key_id = impl_->lock_key(key);
    const Value hash = std::string(config_hash);
    if (db.query("SELECT 1 FROM measurements WHERE key_id = $1 AND config_hash = $2 LIMIT 1",
                 {key_id, hash})
            .size() > 0) {
      return ClaimResult::measured;
    }
    const store::Rows held = db.query(
        fmt::format("SELECT owner, {} FROM claims WHERE key_id = $1 AND config_hash = $2", kLive),
        {key_id, hash});
    const bool exists = held.size() > 0;
    const bool mine = exists && held.text(0, 0) == owner;
    const bool live = exists && held.text(0, 1) == "t";
    if (live && !mine) return ClaimResult::held;
    // An expired claim keeps its place in the budget until someone measures its config: the
    // candidate goes back to the pool (orphans()), not out of the tune.
    if (budget > 0 && !exists) {
      const std::int64_t taken =
          db.query(
                "SELECT (SELECT count(DISTINCT config_hash) FROM measurements WHERE key_id = $1) + "
                "(SELECT count(*) FROM claims WHERE key_id = $1 AND config_json <> '')",
                {key_id})
              .integer(0, 0);
      if (taken >= static_cast<std::int64_t>(budget)) return ClaimResult::budget_full;
    }
    db.query(
        "INSERT INTO claims(key_id, config_hash, config_json, owner, expires_at) VALUES($1, $2, "
        "$3, $4, clock_timestamp() + $5 * interval '1 second') ON CONFLICT (key_id, config_hash) "
        "DO UPDATE SET config_json = excluded.config_json, owner = excluded.owner, expires_at = "
        "excluded.expires_at",
        {key_id, hash, std::string(config_json), std::string(owner), lease_seconds});
    return exists && !mine ? ClaimResult::taken_over : ClaimResult::granted;
  });
}

std::vector<std::string> Store::orphans(const TuningKey& key) {
  auto& db = shared_database(*impl_, "orphans");
  return in_transaction(db, Access::read, "orphans", [&] {
    std::vector<std::string> out;
    const auto id = impl_->key_id(key);
    if (!id) return out;
    const store::Rows rows =
        db.query(fmt::format("SELECT config_json FROM claims WHERE key_id = $1 AND NOT ({}) AND "
                             "config_json <> '' ORDER BY expires_at",
                             kLive),
                 {*id});
    for (int r = 0; r < rows.size(); ++r) out.push_back(rows.text(r, 0));
    return out;
  });
}

void Store::release(const TuningKey& key, std::string_view config_hash, std::string_view owner) {
  auto& db = shared_database(*impl_, "release");
  in_transaction(db, Access::write, "release", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return;
    db.query("DELETE FROM claims WHERE key_id = $1 AND config_hash = $2 AND owner = $3",
             {*id, std::string(config_hash), std::string(owner)});
  });
}

std::size_t Store::join(const TuningKey& key, std::string_view owner) {
  auto& db = shared_database(*impl_, "join");
  return in_transaction(db, Access::write, "join", [&] {
    const Value key_id = impl_->lock_key(key);
    db.query(
        "INSERT INTO participants(key_id, owner, joined_at) VALUES($1, $2, clock_timestamp()) ON "
        "CONFLICT DO NOTHING",
        {key_id, std::string(owner)});
    return static_cast<std::size_t>(
        db.query("SELECT count(*) FROM participants WHERE key_id = $1 AND id < (SELECT id FROM "
                 "participants WHERE key_id = $1 AND owner = $2)",
                 {key_id, std::string(owner)})
            .integer(0, 0));
  });
}

std::size_t Store::claims_held_by_others(const TuningKey& key, std::string_view owner) {
  auto& db = shared_database(*impl_, "claims_held_by_others");
  return in_transaction(db, Access::read, "claims_held_by_others", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::size_t{0};
    return static_cast<std::size_t>(
        db.query(fmt::format("SELECT count(*) FROM claims WHERE key_id = $1 AND owner <> $2 AND {}",
                             kLive),
                 {*id, std::string(owner)})
            .integer(0, 0));
  });
}

}  // namespace cutune
