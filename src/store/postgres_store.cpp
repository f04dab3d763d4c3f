#include "postgres_store.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace cutune {

namespace {

using postgres::param;
using postgres::Param;

// The SQLite store's schema (store.cpp) in PostgreSQL's types, with the same names, views and
// rules, plus the two tables of cooperation: claims (a candidate leased to one participant) and
// participants (who joined a key, in order).
constexpr const char* kCreateSchema = R"sql(
CREATE TABLE cutune_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tuning_keys(
  id BIGSERIAL PRIMARY KEY,
  family TEXT NOT NULL,
  family_version TEXT NOT NULL,
  problem TEXT NOT NULL,
  device TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  UNIQUE(family, family_version, problem, device, toolchain));
CREATE TABLE measurements(
  id BIGSERIAL PRIMARY KEY,
  key_id BIGINT NOT NULL REFERENCES tuning_keys(id),
  config_hash TEXT NOT NULL,
  config_json TEXT NOT NULL,
  outcome TEXT NOT NULL,
  time_ms DOUBLE PRECISION,
  spread DOUBLE PRECISION,
  repetitions INTEGER NOT NULL,
  compile_s DOUBLE PRECISION NOT NULL,
  max_rel_error DOUBLE PRECISION,
  detail TEXT NOT NULL,
  tune_id TEXT NOT NULL,
  timestamp DOUBLE PRECISION NOT NULL,
  iqr_spread DOUBLE PRECISION,
  min_ms DOUBLE PRECISION,
  max_ms DOUBLE PRECISION);
CREATE INDEX measurements_by_config ON measurements(key_id, config_hash, id);
CREATE TABLE decisions(
  id BIGSERIAL PRIMARY KEY,
  key_id BIGINT NOT NULL REFERENCES tuning_keys(id),
  tune_id TEXT NOT NULL,
  winner_hash TEXT NOT NULL,
  winner_json TEXT NOT NULL,
  winner_measurement BIGINT NOT NULL REFERENCES measurements(id),
  default_hash TEXT NOT NULL,
  seed_hash TEXT NOT NULL,
  speedup DOUBLE PRECISION,
  speedup_low DOUBLE PRECISION,
  speedup_high DOUBLE PRECISION,
  rounds INTEGER NOT NULL,
  finalists TEXT NOT NULL,
  rounds_detail TEXT NOT NULL,
  timestamp DOUBLE PRECISION NOT NULL);
CREATE INDEX decisions_by_key ON decisions(key_id, id);
CREATE TABLE claims(
  key_id BIGINT NOT NULL REFERENCES tuning_keys(id),
  config_hash TEXT NOT NULL,
  config_json TEXT NOT NULL,
  owner TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY(key_id, config_hash));
CREATE TABLE participants(
  id BIGSERIAL PRIMARY KEY,
  key_id BIGINT NOT NULL REFERENCES tuning_keys(id),
  owner TEXT NOT NULL,
  joined_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE(key_id, owner));
INSERT INTO cutune_meta(name, value) VALUES ('format', 'cutune-results'), ('schema_version', '1');
)sql";

// A config's latest verdict: its newest row that is not `transient` (no verdict on the config),
// as in the SQLite store. CREATE OR REPLACE: also what replace_stale_latest_view() runs.
constexpr std::string_view kLatestPerConfig = R"sql(
CREATE OR REPLACE VIEW latest_per_config AS
  SELECT * FROM (
    SELECT m.*, row_number() OVER (PARTITION BY m.key_id, m.config_hash ORDER BY m.id DESC)
      AS newness
    FROM measurements m WHERE m.outcome != 'transient') ranked
  WHERE newness = 1;
)sql";

// Created after the tables and kLatestPerConfig, which they name.
constexpr std::string_view kCreateViews = R"sql(
CREATE VIEW best_per_key AS
  SELECT * FROM (
    SELECT l.*, row_number() OVER (PARTITION BY l.key_id ORDER BY l.time_ms, l.id) AS position
    FROM latest_per_config l
    WHERE l.outcome = 'ok') ranked
  WHERE position = 1;
CREATE VIEW deployed_per_key AS
  SELECT m.* FROM measurements m JOIN decisions d ON d.winner_measurement = m.id
    WHERE d.id = (SELECT max(id) FROM decisions WHERE key_id = d.key_id)
  UNION ALL
  SELECT m.* FROM measurements m
    WHERE m.id IN (SELECT b.id FROM best_per_key b
                   WHERE b.key_id NOT IN (SELECT key_id FROM decisions));
)sql";

// Any constant: participants creating the schema at once queue on this lock.
constexpr std::int64_t kSchemaLock = 0x6375'7475'6e65;

constexpr std::string_view kKeyId =
    "(SELECT id FROM tuning_keys WHERE family = $1 AND family_version = $2 AND problem = $3 AND "
    "device = $4 AND toolchain = $5)";
constexpr std::string_view kResultColumns =
    "k.family, k.family_version, k.problem, k.device, k.toolchain, m.config_hash, m.config_json, "
    "m.outcome, m.time_ms, m.spread, m.repetitions, m.compile_s, m.max_rel_error, m.detail, "
    "m.tune_id, m.timestamp, m.iqr_spread, m.min_ms, m.max_ms";
constexpr std::string_view kKeyOrder =
    "k.family, k.family_version, k.problem, k.device, k.toolchain";
constexpr std::string_view kDecisionColumns =
    "tune_id, winner_hash, winner_json, winner_measurement, default_hash, seed_hash, speedup, "
    "speedup_low, speedup_high, rounds, finalists, rounds_detail, timestamp";
// A claim is live until its lease ends, by the server's clock (participants' clocks may differ).
constexpr std::string_view kLive = "expires_at > clock_timestamp()";

std::vector<Param> key_params(const TuningKey& key) {
  return {param(key.family), param(key.family_version), param(key.problem), param(key.device),
          param(key.toolchain)};
}

// Appends params after the key's five.
std::vector<Param> key_and(const TuningKey& key, std::vector<Param> more) {
  std::vector<Param> params = key_params(key);
  params.insert(params.end(), more.begin(), more.end());
  return params;
}

}  // namespace

postgres::Connection Store::Postgres::connect(const std::string& url) {
  try {
    return postgres::Connection(url);
  } catch (const postgres::Error& error) {
    throw StoreError(fmt::format("results store {}: cannot connect: {}", url, error.what()));
  }
}

Store::Postgres::Postgres(std::string url, OpenMode mode) : url_(url), db_(connect(url)) {
  try {
    check_or_create_schema(mode);
    if (mode == OpenMode::read_only) db_.execute("SET default_transaction_read_only = on");
  } catch (const postgres::Error& error) {
    fail("open", error.what());
  }
}

void Store::Postgres::fail(std::string_view doing, const std::string& problem) const {
  throw StoreError(fmt::format("results store {}: {}: {}", url_.string(), doing, problem));
}

void Store::Postgres::check_or_create_schema(OpenMode mode) {
  postgres::Transaction transaction(db_);
  if (mode == OpenMode::read_write) {
    db_.run("SELECT pg_advisory_xact_lock($1)", {param(kSchemaLock)});
  }
  if (db_.run("SELECT to_regclass('cutune_meta')").is_null(0, 0)) {
    if (mode == OpenMode::read_only) {
      fail("open", "no cutune results store in this database (no table cutune_meta)");
    }
    db_.execute(kCreateSchema);
    db_.execute(kLatestPerConfig);
    db_.execute(kCreateViews);
    transaction.commit();
    return;
  }
  const postgres::Result meta = db_.run(
      "SELECT (SELECT value FROM cutune_meta WHERE name = 'format'), (SELECT value FROM "
      "cutune_meta WHERE name = 'schema_version')");
  if (meta.text(0, 0) != "cutune-results") {
    fail("open",
         fmt::format("its cutune_meta names format '{}', not 'cutune-results'", meta.text(0, 0)));
  }
  if (meta.text(0, 1) != "1") {
    fail("open", fmt::format("schema version '{}'; this build of cutune reads version 1 only",
                             meta.text(0, 1)));
  }
  if (mode == OpenMode::read_write) replace_stale_latest_view();
  transaction.commit();
}

// A store created before latest_per_config passed over transient rows gets the current rule
// (kLatestPerConfig); same columns, so best_per_key and deployed_per_key keep working. Runs under
// the schema lock. A read-only open of such a store reads by the old rule until a writer opens it.
void Store::Postgres::replace_stale_latest_view() {
  const postgres::Result stale = db_.run(
      "SELECT count(*) FROM pg_views WHERE viewname = 'latest_per_config' AND schemaname = "
      "current_schema() AND position('transient' in definition) = 0");
  if (stale.integer(0, 0) != 0) db_.execute(kLatestPerConfig);
}

template <typename Work>
auto Store::Postgres::transaction(std::string_view doing, Work&& work) {
  for (int attempt = 0;; ++attempt) {
    try {
      postgres::Transaction transaction(db_);
      if constexpr (std::is_void_v<decltype(work())>) {
        work();
        transaction.commit();
        return;
      } else {
        auto result = work();
        transaction.commit();
        return result;
      }
    } catch (const postgres::Error& error) {
      if (!error.retryable() || attempt >= 20) fail(doing, error.what());
    }
  }
}

std::int64_t Store::Postgres::lock_key(const TuningKey& key) {
  db_.run(
      "INSERT INTO tuning_keys(family, family_version, problem, device, toolchain) "
      "VALUES($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
      key_params(key));
  return db_
      .run(fmt::format("SELECT id FROM tuning_keys WHERE id = {} FOR UPDATE", kKeyId),
           key_params(key))
      .integer(0, 0);
}

std::vector<StoredResult> Store::Postgres::query_results(std::string_view source,
                                                         std::string_view condition,
                                                         std::string_view order,
                                                         const std::vector<Param>& params) {
  const postgres::Result rows = db_.run(
      fmt::format("SELECT {} FROM {} m JOIN tuning_keys k ON k.id = m.key_id WHERE {} ORDER BY {}",
                  kResultColumns, source, condition, order),
      params);
  std::vector<StoredResult> out;
  for (int r = 0; r < rows.rows(); ++r) {
    StoredResult result;
    result.key = {rows.text(r, 0), rows.text(r, 1), rows.text(r, 2), rows.text(r, 3),
                  rows.text(r, 4)};
    result.config_hash = rows.text(r, 5);
    result.config_json = rows.text(r, 6);
    const auto outcome = outcome_from_string(rows.text(r, 7));
    if (!outcome) {
      fail("read", fmt::format("measurement of config {} under key {} has an unknown outcome '{}'",
                               result.config_hash, result.key.canonical(), rows.text(r, 7)));
    }
    Measurement& m = result.measurement;
    m.outcome = *outcome;
    m.time_ms = rows.real(r, 8);
    m.spread = rows.real(r, 9);
    m.repetitions = static_cast<int>(rows.integer(r, 10));
    m.compile_s = rows.real(r, 11);
    m.max_rel_error = rows.real(r, 12);
    m.detail = rows.text(r, 13);
    result.tune_id = rows.text(r, 14);
    result.timestamp = rows.real(r, 15);
    m.iqr_spread = rows.real(r, 16);
    m.min_ms = rows.real(r, 17);
    m.max_ms = rows.real(r, 18);
    out.push_back(std::move(result));
  }
  return out;
}

std::int64_t Store::Postgres::record(const StoredResult& result) {
  const Measurement& m = result.measurement;
  return transaction("record", [&] {
    const std::int64_t key_id = lock_key(result.key);
    const std::int64_t id =
        db_.run(
               "INSERT INTO measurements(key_id, config_hash, config_json, outcome, time_ms, "
               "spread, repetitions, compile_s, max_rel_error, detail, tune_id, timestamp, "
               "iqr_spread, min_ms, max_ms) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
               "$12, $13, $14, $15) RETURNING id",
               {param(key_id), param(result.config_hash), param(result.config_json),
                param(to_string(m.outcome)), param(m.time_ms), param(m.spread),
                param(static_cast<std::int64_t>(m.repetitions)), param(m.compile_s),
                param(m.max_rel_error), param(m.detail), param(result.tune_id),
                param(result.timestamp), param(m.iqr_spread), param(m.min_ms), param(m.max_ms)})
            .integer(0, 0);
    db_.run("DELETE FROM claims WHERE key_id = $1 AND config_hash = $2",
            {param(key_id), param(result.config_hash)});
    return id;
  });
}

bool Store::Postgres::record_decision(const Decision& d) {
  return transaction("record_decision", [&] {
    return db_.run(fmt::format("INSERT INTO decisions(key_id, {}) SELECT m.key_id, $6, $7, $8, "
                               "$9, $10, $11, $12, $13, $14, $15, $16, $17, $18 FROM "
                               "measurements m WHERE m.id = $9 AND m.config_hash = $7 AND "
                               "m.key_id = {}",
                               kDecisionColumns, kKeyId),
                   key_and(d.key,
                           {param(d.tune_id), param(d.winner_hash), param(d.winner_json),
                            param(d.winner_measurement), param(d.default_hash), param(d.seed_hash),
                            param(d.speedup), param(d.speedup_low), param(d.speedup_high),
                            param(static_cast<std::int64_t>(d.rounds)), param(d.finalists_json),
                            param(d.rounds_json), param(d.timestamp)}))
               .changed() == 1;
  });
}

std::optional<Decision> Store::Postgres::decision(const TuningKey& key) {
  return transaction("decision", [&]() -> std::optional<Decision> {
    const postgres::Result row =
        db_.run(fmt::format("SELECT {} FROM decisions WHERE key_id = {} ORDER BY id DESC LIMIT 1",
                            kDecisionColumns, kKeyId),
                key_params(key));
    if (row.rows() == 0) return std::nullopt;
    Decision d;
    d.key = key;
    d.tune_id = row.text(0, 0);
    d.winner_hash = row.text(0, 1);
    d.winner_json = row.text(0, 2);
    d.winner_measurement = row.integer(0, 3);
    d.default_hash = row.text(0, 4);
    d.seed_hash = row.text(0, 5);
    d.speedup = row.real(0, 6);
    d.speedup_low = row.real(0, 7);
    d.speedup_high = row.real(0, 8);
    d.rounds = static_cast<int>(row.integer(0, 9));
    d.finalists_json = row.text(0, 10);
    d.rounds_json = row.text(0, 11);
    d.timestamp = row.real(0, 12);
    return d;
  });
}

std::optional<StoredResult> Store::Postgres::deployed(const TuningKey& key) {
  auto rows = transaction("deployed", [&] {
    return query_results("deployed_per_key", fmt::format("m.key_id = {}", kKeyId), "m.id",
                         key_params(key));
  });
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

std::optional<Measurement> Store::Postgres::find(const TuningKey& key,
                                                 std::string_view config_hash) {
  auto rows = transaction("find", [&] {
    return query_results("measurements",
                         fmt::format("m.key_id = {} AND m.config_hash = $6", kKeyId),
                         "m.id DESC LIMIT 1", key_and(key, {param(config_hash)}));
  });
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front().measurement);
}

std::vector<StoredResult> Store::Postgres::results(const TuningKey& key) {
  return transaction("results", [&] {
    return query_results("measurements", fmt::format("m.key_id = {}", kKeyId), "m.id",
                         key_params(key));
  });
}

std::int64_t Store::Postgres::measurement_count(const TuningKey& key) {
  return transaction("measurement_count", [&] {
    return db_
        .run(fmt::format("SELECT count(*) FROM measurements WHERE key_id = {}", kKeyId),
             key_params(key))
        .integer(0, 0);
  });
}

std::vector<StoredResult> Store::Postgres::best(const TuningKey& key, int n) {
  return transaction("best", [&] {
    return query_results(
        "latest_per_config", fmt::format("m.key_id = {} AND m.outcome = 'ok'", kKeyId),
        "m.time_ms, m.id LIMIT $6", key_and(key, {param(static_cast<std::int64_t>(n))}));
  });
}

std::vector<TuningKey> Store::Postgres::keys(const KeyFilter& filter) {
  return transaction("keys", [&] {
    // Keys that hold a measurement: claims and participants create keys before any result.
    const postgres::Result rows = db_.run(
        fmt::format("SELECT family, family_version, problem, device, toolchain FROM tuning_keys "
                    "k WHERE ($1 = '' OR family = $1) AND ($2 = '' OR device = $2) AND EXISTS "
                    "(SELECT 1 FROM measurements m WHERE m.key_id = k.id) ORDER BY {}",
                    kKeyOrder),
        {param(filter.family), param(filter.device)});
    std::vector<TuningKey> keys;
    for (int r = 0; r < rows.rows(); ++r) {
      keys.push_back(
          {rows.text(r, 0), rows.text(r, 1), rows.text(r, 2), rows.text(r, 3), rows.text(r, 4)});
    }
    return keys;
  });
}

std::vector<StoredResult> Store::Postgres::best_per_key(const KeyFilter& filter) {
  return transaction("best_per_key", [&] {
    return query_results("deployed_per_key",
                         "($1 = '' OR k.family = $1) AND ($2 = '' OR k.device = $2)", kKeyOrder,
                         {param(filter.family), param(filter.device)});
  });
}

ClaimResult Store::Postgres::claim(const TuningKey& key, std::string_view config_hash,
                                   std::string_view config_json, std::string_view owner,
                                   double lease_seconds, std::size_t budget) {
  return transaction("claim", [&] {
    const Param key_id = param(lock_key(key));
    const Param hash = param(config_hash);
    if (db_.run("SELECT 1 FROM measurements WHERE key_id = $1 AND config_hash = $2 LIMIT 1",
                {key_id, hash})
            .rows() > 0) {
      return ClaimResult::measured;
    }
    const postgres::Result held = db_.run(
        fmt::format("SELECT owner, {} FROM claims WHERE key_id = $1 AND config_hash = $2", kLive),
        {key_id, hash});
    const bool exists = held.rows() > 0;
    const bool mine = exists && held.text(0, 0) == owner;
    const bool live = exists && held.text(0, 1) == "t";
    if (live && !mine) return ClaimResult::held;
    // An expired claim keeps its place in the budget until someone measures its config: the
    // candidate goes back to the pool (orphans()), not out of the tune.
    if (budget > 0 && !exists) {
      const std::int64_t taken =
          db_.run(
                 "SELECT (SELECT count(DISTINCT config_hash) FROM measurements WHERE key_id = "
                 "$1) + (SELECT count(*) FROM claims WHERE key_id = $1 AND config_json <> '')",
                 {key_id})
              .integer(0, 0);
      if (taken >= static_cast<std::int64_t>(budget)) return ClaimResult::budget_full;
    }
    db_.run(
        "INSERT INTO claims(key_id, config_hash, config_json, owner, expires_at) VALUES($1, $2, "
        "$3, $4, clock_timestamp() + $5 * interval '1 second') ON CONFLICT (key_id, config_hash) "
        "DO UPDATE SET config_json = excluded.config_json, owner = excluded.owner, expires_at = "
        "excluded.expires_at",
        {key_id, hash, param(config_json), param(owner), param(lease_seconds)});
    return exists && !mine ? ClaimResult::taken_over : ClaimResult::granted;
  });
}

std::vector<std::string> Store::Postgres::orphans(const TuningKey& key) {
  return transaction("orphans", [&] {
    const postgres::Result rows = db_.run(
        fmt::format("SELECT c.config_json FROM claims c WHERE c.key_id = {} AND NOT ({}) AND "
                    "c.config_json <> '' ORDER BY c.expires_at",
                    kKeyId, kLive),
        key_params(key));
    std::vector<std::string> out;
    for (int r = 0; r < rows.rows(); ++r) out.push_back(rows.text(r, 0));
    return out;
  });
}

void Store::Postgres::release(const TuningKey& key, std::string_view config_hash,
                              std::string_view owner) {
  transaction("release", [&] {
    db_.run(fmt::format("DELETE FROM claims WHERE key_id = {} AND config_hash = $6 AND owner = $7",
                        kKeyId),
            key_and(key, {param(config_hash), param(owner)}));
  });
}

std::size_t Store::Postgres::join(const TuningKey& key, std::string_view owner) {
  return transaction("join", [&] {
    const Param key_id = param(lock_key(key));
    db_.run("INSERT INTO participants(key_id, owner) VALUES($1, $2) ON CONFLICT DO NOTHING",
            {key_id, param(owner)});
    return static_cast<std::size_t>(
        db_.run("SELECT count(*) FROM participants WHERE key_id = $1 AND id < (SELECT id FROM "
                "participants WHERE key_id = $1 AND owner = $2)",
                {key_id, param(owner)})
            .integer(0, 0));
  });
}

std::size_t Store::Postgres::claims_held_by_others(const TuningKey& key, std::string_view owner) {
  return transaction("claims_held_by_others", [&] {
    return static_cast<std::size_t>(
        db_.run(fmt::format("SELECT count(*) FROM claims WHERE key_id = {} AND owner <> $6 AND {}",
                            kKeyId, kLive),
                key_and(key, {param(owner)}))
            .integer(0, 0));
  });
}

// The Store calls of cooperation, which only the PostgreSQL store implements.

namespace {

// An SQLite store has one participant per tune; several processes on one file measure alone.
[[noreturn]] void not_shared(const std::filesystem::path& path, std::string_view call) {
  throw StoreError(
      fmt::format("results store {}: {}: only a PostgreSQL store (--db "
                  "postgresql://...) is shared by the participants of a tune",
                  path.string(), call));
}

}  // namespace

bool Store::shared() const { return postgres_ != nullptr; }

ClaimResult Store::claim(const TuningKey& key, std::string_view config_hash,
                         std::string_view config_json, std::string_view owner, double lease_seconds,
                         std::size_t budget) {
  if (!postgres_) not_shared(path(), "claim");
  return postgres_->claim(key, config_hash, config_json, owner, lease_seconds, budget);
}

std::vector<std::string> Store::orphans(const TuningKey& key) {
  if (!postgres_) not_shared(path(), "orphans");
  return postgres_->orphans(key);
}

void Store::release(const TuningKey& key, std::string_view config_hash, std::string_view owner) {
  if (!postgres_) not_shared(path(), "release");
  postgres_->release(key, config_hash, owner);
}

std::size_t Store::join(const TuningKey& key, std::string_view owner) {
  if (!postgres_) not_shared(path(), "join");
  return postgres_->join(key, owner);
}

std::size_t Store::claims_held_by_others(const TuningKey& key, std::string_view owner) {
  if (!postgres_) not_shared(path(), "claims_held_by_others");
  return postgres_->claims_held_by_others(key, owner);
}

}  // namespace cutune
