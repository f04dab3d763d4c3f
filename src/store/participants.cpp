// Participants of a shared tune: joining a key, and the life lock that keeps their claims live
// (participants.hpp).
#include "participants.hpp"

#include <fmt/format.h>

namespace cutune {
namespace store {

Database& shared_database(Store::Impl& impl, std::string_view call) {
  // An SQLite store has one participant per tune; several processes on one file measure alone.
  if (!impl.db->capabilities().shared) {
    impl.fail(
        fmt::format("{}: only a PostgreSQL store (--db postgresql://...) is shared by the "
                    "participants of a tune",
                    call));
  }
  return *impl.db;
}

void hold_life(Store::Impl& impl, std::string_view owner) {
  if (impl.lives.contains(owner)) return;
  // A session lock outlives the transaction that took it, even one rolled back: taken once per
  // owner (lives), it is held once and one unlock (leave) gives it back.
  const bool taken = in_transaction(*impl.db, Access::write, "join", [&] {
    // Over TCP the server learns of a peer that vanished without closing (a host down, a cable
    // pulled) from keepalives: about 11 s with these, instead of the system's two hours. A Unix
    // socket connection ignores them; there the kernel closes the socket with the process.
    impl.db->query(
        "SELECT set_config('tcp_keepalives_idle', '5', false), set_config("
        "'tcp_keepalives_interval', '2', false), set_config('tcp_keepalives_count', '3', false)",
        {});
    return impl.db
               ->query("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", {std::string(owner)})
               .text(0, 0) == "t";
  });
  if (!taken) {
    impl.fail(fmt::format("participant '{}' is already live on another connection", owner));
  }
  impl.lives.insert(std::string(owner));
}

}  // namespace store

std::size_t Store::join(const TuningKey& key, std::string_view owner) {
  auto& db = store::shared_database(*impl_, "join");
  store::hold_life(*impl_, owner);
  return store::in_transaction(db, store::Access::write, "join", [&] {
    const store::Value key_id = impl_->lock_key(key);
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

void Store::leave(std::string_view owner) {
  auto& db = store::shared_database(*impl_, "leave");
  if (impl_->lives.erase(std::string(owner)) == 0) return;
  store::in_transaction(db, store::Access::write, "leave", [&] {
    db.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", {std::string(owner)});
  });
}

std::size_t Store::measured_since_decision(const TuningKey& key) {
  auto& db = store::shared_database(*impl_, "measured_since_decision");
  return store::in_transaction(db, store::Access::read, "measured_since_decision", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::size_t{0};
    // Row ids order rows on one server whatever the participants' clocks say; the deciding tune's
    // own rows after its winner's are its other finalists.
    return static_cast<std::size_t>(
        db.query("SELECT count(*) FROM measurements m, (SELECT winner_measurement, tune_id FROM "
                 "decisions WHERE key_id = $1 ORDER BY id DESC LIMIT 1) d WHERE m.key_id = $1 AND "
                 "m.id > d.winner_measurement AND m.tune_id <> d.tune_id",
                 {*id})
            .integer(0, 0));
  });
}

}  // namespace cutune
