// The cooperation of several tunes ("participants") on one key, which only a PostgreSQL store
// offers (docs/scale-out.md): a candidate is claimed before it is measured, and the claim lives
// exactly as long as its owner's life lock (participants.cpp), which the server releases when the
// owner's connection ends; an SQLite store refuses these calls.
#include <fmt/format.h>

#include "participants.hpp"
#include "store_impl.hpp"

namespace cutune {

using store::Access;
using store::in_transaction;
using store::Value;

ClaimResult Store::claim(const TuningKey& key, std::string_view config_hash,
                         std::string_view config_json, std::string_view owner, std::size_t budget) {
  auto& db = store::shared_database(*impl_, "claim");
  store::hold_life(*impl_, owner);
  return in_transaction(db, Access::write, "claim", [&] {
    const Value key_id = impl_->lock_key(key);
    const Value hash = std::string(config_hash);
    if (db.query("SELECT 1 FROM measurements WHERE key_id = $1 AND config_hash = $2 LIMIT 1",
                 {key_id, hash})
            .size() > 0) {
      return ClaimResult::measured;
    }
    const store::Rows held = db.query(
        fmt::format("SELECT c.owner, {} FROM claims c WHERE c.key_id = $1 AND c.config_hash = $2",
                    store::kOwnerLives),
        {key_id, hash});
    const bool exists = held.size() > 0;
    const bool mine = exists && held.text(0, 0) == owner;
    const bool live = exists && held.text(0, 1) == "t";
    if (live && !mine) return ClaimResult::held;
    // A dead owner's claim keeps its place in the budget until someone measures its config: the
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
    // expires_at is when the claim was taken, plus what cutune before claims followed lives read
    // as a lease: such a participant on the same database then leaves this one's claims alone.
    db.query(
        "INSERT INTO claims(key_id, config_hash, config_json, owner, expires_at) VALUES($1, $2, "
        "$3, $4, clock_timestamp() + interval '600 seconds') ON CONFLICT (key_id, config_hash) "
        "DO UPDATE SET config_json = excluded.config_json, owner = excluded.owner, expires_at = "
        "excluded.expires_at",
        {key_id, hash, std::string(config_json), std::string(owner)});
    return exists && !mine ? ClaimResult::taken_over : ClaimResult::granted;
  });
}

std::vector<std::string> Store::orphans(const TuningKey& key) {
  auto& db = store::shared_database(*impl_, "orphans");
  return in_transaction(db, Access::read, "orphans", [&] {
    std::vector<std::string> out;
    const auto id = impl_->key_id(key);
    if (!id) return out;
    const store::Rows rows = db.query(
        fmt::format("SELECT c.config_json FROM claims c WHERE c.key_id = $1 AND NOT {} AND "
                    "c.config_json <> '' ORDER BY c.expires_at",
                    store::kOwnerLives),
        {*id});
    for (int r = 0; r < rows.size(); ++r) out.push_back(rows.text(r, 0));
    return out;
  });
}

void Store::release(const TuningKey& key, std::string_view config_hash, std::string_view owner) {
  auto& db = store::shared_database(*impl_, "release");
  in_transaction(db, Access::write, "release", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return;
    db.query("DELETE FROM claims WHERE key_id = $1 AND config_hash = $2 AND owner = $3",
             {*id, std::string(config_hash), std::string(owner)});
  });
}

std::vector<Claim> Store::claims_of_others(const TuningKey& key, std::string_view owner) {
  auto& db = store::shared_database(*impl_, "claims_of_others");
  return in_transaction(db, Access::read, "claims_of_others", [&] {
    std::vector<Claim> out;
    const auto id = impl_->key_id(key);
    if (!id) return out;
    const store::Rows rows =
        db.query(fmt::format("SELECT c.owner, c.config_hash FROM claims c WHERE c.key_id = $1 AND "
                             "c.owner <> $2 AND {} ORDER BY c.owner, c.config_hash",
                             store::kOwnerLives),
                 {*id, std::string(owner)});
    for (int r = 0; r < rows.size(); ++r) out.push_back({rows.text(r, 0), rows.text(r, 1)});
    return out;
  });
}

}  // namespace cutune
