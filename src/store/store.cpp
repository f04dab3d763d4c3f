#include "cutune/store.hpp"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "hash/content_hash.hpp"
#include "store_impl.hpp"

namespace cutune {

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
namespace fs = std::filesystem;
using store::Access;
using store::in_transaction;
using store::Value;

namespace {

// Every query that returns StoredResult rows selects these columns, in this order, from a
// measurement source aliased m joined to its key k; a column an older store lacks reads as NULL.
constexpr std::string_view kKeyColumns = "family, family_version, problem, device, toolchain";
constexpr std::string_view kMeasurementColumns[] = {
    "config_hash", "config_json",   "outcome",      "time_ms",     "spread",    "repetitions",
    "compile_s",   "max_rel_error", "detail",       "tune_id",     "timestamp", "iqr_spread",
    "min_ms",      "max_ms",        "device_index", "device_name", "times_json"};
constexpr std::string_view kKeyOrder =
    "k.family, k.family_version, k.problem, k.device, k.toolchain";
constexpr std::string_view kDecisionColumns =
    "tune_id, winner_hash, winner_json, winner_measurement, default_hash, seed_hash, speedup, "
    "speedup_low, speedup_high, rounds, finalists, rounds_detail, timestamp";

std::vector<Value> key_values(const TuningKey& key) {
  return {key.family, key.family_version, key.problem, key.device, key.toolchain};
}

// The repetitions' times as a JSON array: one column, read and written whole, never queried.
Value times_to_json(const std::vector<double>& times) {
  if (times.empty()) return Value();
  return nlohmann::json(times).dump();
}

std::vector<double> times_from_json(const std::string& text) {
  if (text.empty()) return {};
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  std::vector<double> times;
  if (!parsed.is_array()) return times;
  for (const auto& t : parsed)
    if (t.is_number()) times.push_back(t.get<double>());
  return times;
}

// NaN is NULL in both backends, as SQLite stores it.
Value real(double x) { return x; }

StoredResult read_result(const store::Rows& rows, int r, const Store::Impl& impl) {
  StoredResult result;
  result.key = {rows.text(r, 0), rows.text(r, 1), rows.text(r, 2), rows.text(r, 3),
                rows.text(r, 4)};
  result.config_hash = rows.text(r, 5);
  result.config_json = rows.text(r, 6);
  const auto outcome = outcome_from_string(rows.text(r, 7));
  if (!outcome) {
    impl.fail(fmt::format("measurement of config {} under key {} has an unknown outcome '{}'",
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
  m.device = rows.is_null(r, 19) ? -1 : static_cast<int>(rows.integer(r, 19));
  m.device_name = rows.text(r, 20);
  m.times_ms = times_from_json(rows.text(r, 21));
  return result;
}

}  // namespace

std::string TuningKey::canonical() const {
  return nlohmann::json::array({family, family_version, problem, device, toolchain}).dump();
}

std::string TuningKey::hash() const { return hash::content_hash(canonical()).hex(); }

Store::Impl::Impl(std::unique_ptr<store::Database> database, OpenMode mode)
    : db(std::move(database)), schema(store::prepare_schema(*db, mode)) {}

void Store::Impl::fail(std::string_view problem) const {
  throw StoreError(fmt::format("results store {}: {}", db->where().string(), problem));
}

std::optional<std::int64_t> Store::Impl::key_id(const TuningKey& key) {
  const store::Rows rows = db->query(
      "SELECT id FROM tuning_keys WHERE family = $1 AND family_version = $2 AND problem = $3 AND "
      "device = $4 AND toolchain = $5",
      key_values(key));
  if (rows.size() == 0) return std::nullopt;
  return rows.integer(0, 0);
}

std::int64_t Store::Impl::lock_key(const TuningKey& key) {
  db->query(fmt::format("INSERT INTO tuning_keys({}) VALUES($1, $2, $3, $4, $5) ON CONFLICT DO "
                        "NOTHING",
                        kKeyColumns),
            key_values(key));
  const bool row_locks = db->capabilities().row_locks;
  return db
      ->query(fmt::format("SELECT id FROM tuning_keys WHERE family = $1 AND family_version = $2 "
                          "AND problem = $3 AND device = $4 AND toolchain = $5{}",
                          row_locks ? " FOR UPDATE" : ""),
              key_values(key))
      .integer(0, 0);
}

std::vector<StoredResult> Store::Impl::results(std::string_view source, std::string_view condition,
                                               std::string_view order,
                                               const std::vector<Value>& params) {
  std::string columns = "k.family, k.family_version, k.problem, k.device, k.toolchain";
  const auto& present = schema.measurement_columns;
  for (const std::string_view column : kMeasurementColumns) {
    const bool there = std::find(present.begin(), present.end(), column) != present.end();
    columns += there ? fmt::format(", m.{}", column) : std::string(", NULL");
  }
  const store::Rows rows = db->query(
      fmt::format("SELECT {} FROM {} m JOIN tuning_keys k ON k.id = m.key_id WHERE {} ORDER BY {}",
                  columns, source, condition, order),
      params);
  std::vector<StoredResult> out;
  for (int r = 0; r < rows.size(); ++r) out.push_back(read_result(rows, r, *this));
  return out;
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const fs::path& Store::path() const { return impl_->db->where(); }

Store Store::open(const fs::path& path, OpenMode mode) {
  const std::string url = path.string();
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return Store(std::make_unique<Impl>(store::open_postgres(url, mode), mode));
  }
  return Store(std::make_unique<Impl>(store::open_sqlite(path, mode), mode));
}

Store Store::in_memory() {
  return Store(std::make_unique<Impl>(store::open_sqlite(":memory:", OpenMode::read_write),
                                      OpenMode::read_write));
}

fs::path Store::default_path() {
  if (const char* db = std::getenv("CUTUNE_DB"); db != nullptr && *db != '\0') return db;
  const fs::path relative = fs::path("cutune") / "results.db";
  if (const char* cache = std::getenv("XDG_CACHE_HOME");
      cache != nullptr && fs::path(cache).is_absolute()) {
    return cache / relative;
  }
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    const passwd* user = getpwuid(getuid());
    if (user == nullptr || user->pw_dir == nullptr) {
      throw StoreError(
          "no default results store: CUTUNE_DB, XDG_CACHE_HOME and HOME are unset and the user "
          "has no home folder; pass --db");
    }
    home = user->pw_dir;
  }
  return fs::path(home) / ".cache" / relative;
}

std::int64_t Store::record(const StoredResult& result) {
  const auto config = nlohmann::json::parse(result.config_json, nullptr, false);
  if (!config.is_object()) {
    impl_->fail(fmt::format("record: config {} of key {}: config_json is not a JSON object: '{}'",
                            result.config_hash, result.key.canonical(), result.config_json));
  }
  const Measurement& m = result.measurement;
  if (m.ok() && !(std::isfinite(m.time_ms) && m.time_ms >= 0.0)) {
    impl_->fail(fmt::format("record: config {} of key {}: outcome ok needs a time, got {} ms",
                            result.config_hash, result.key.canonical(), m.time_ms));
  }
  auto& db = *impl_->db;
  return in_transaction(db, Access::write, "record", [&] {
    const std::int64_t key_id = impl_->lock_key(result.key);
    const std::int64_t id =
        db.query(
              fmt::format("INSERT INTO measurements(key_id, {}) VALUES($1, $2, $3, $4, $5, $6, "
                          "$7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id",
                          fmt::join(kMeasurementColumns, ", ")),
              {key_id, result.config_hash, result.config_json, std::string(to_string(m.outcome)),
               real(m.time_ms), real(m.spread), std::int64_t{m.repetitions}, real(m.compile_s),
               real(m.max_rel_error), m.detail, result.tune_id, real(result.timestamp),
               real(m.iqr_spread), real(m.min_ms), real(m.max_ms),
               // No name: no device measured it (a compile failure) or none is known.
               m.device < 0 || m.device_name.empty() ? Value() : Value(std::int64_t{m.device}),
               m.device_name.empty() ? Value() : Value(m.device_name), times_to_json(m.times_ms)})
            .integer(0, 0);
    // A measurement ends the claim on its config (docs/scale-out.md).
    if (shared()) {
      db.query("DELETE FROM claims WHERE key_id = $1 AND config_hash = $2",
               {key_id, result.config_hash});
    }
    return id;
  });
}

void Store::record_decision(const Decision& d) {
  const auto is_json = [](const std::string& text, bool object) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    return object ? parsed.is_object() : parsed.is_array();
  };
  if (!is_json(d.winner_json, true) || !is_json(d.finalists_json, false) ||
      !is_json(d.rounds_json, true)) {
    impl_->fail(
        fmt::format("record_decision: key {}: winner_json and rounds_json must be JSON "
                    "objects and finalists_json a JSON array",
                    d.key.canonical()));
  }
  if (!impl_->schema.has_decisions) impl_->fail("record_decision: the store has no decisions");
  auto& db = *impl_->db;
  const bool inserted = in_transaction(db, Access::write, "record_decision", [&] {
    const auto key_id = impl_->key_id(d.key);
    if (!key_id) return false;
    return db.query(fmt::format("INSERT INTO decisions(key_id, {}) SELECT m.key_id, $2, $3, $4, "
                                "$5, $6, $7, $8, $9, $10, $11, $12, $13, $14 FROM measurements m "
                                "WHERE m.id = $5 AND m.config_hash = $3 AND m.key_id = $1 "
                                "RETURNING id",
                                kDecisionColumns),
                    {*key_id, d.tune_id, d.winner_hash, d.winner_json, d.winner_measurement,
                     d.default_hash, d.seed_hash, real(d.speedup), real(d.speedup_low),
                     real(d.speedup_high), std::int64_t{d.rounds}, d.finalists_json, d.rounds_json,
                     real(d.timestamp)})
               .size() == 1;
  });
  if (!inserted) {
    impl_->fail(
        fmt::format("record_decision: key {}: measurement {} is not a row of config {} "
                    "under this key",
                    d.key.canonical(), d.winner_measurement, d.winner_hash));
  }
}

std::optional<Decision> Store::decision(const TuningKey& key) {
  if (!impl_->schema.has_decisions) return std::nullopt;  // a read-only store from before them
  auto& db = *impl_->db;
  return in_transaction(db, Access::read, "decision", [&]() -> std::optional<Decision> {
    const auto id = impl_->key_id(key);
    if (!id) return std::nullopt;
    const store::Rows row =
        db.query(fmt::format("SELECT {} FROM decisions WHERE key_id = $1 ORDER BY id DESC LIMIT 1",
                             kDecisionColumns),
                 {*id});
    if (row.size() == 0) return std::nullopt;
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

namespace {

// What a key deploys: the view that holds the rule, or for a read-only store from before
// decisions the rule that came before them.
std::string_view deployed_source(const store::SchemaState& schema) {
  return schema.has_decisions ? "deployed_per_key" : "best_per_key";
}

}  // namespace

// The reads below look up the key's id first and pass it: SQLite pushes a bound key_id into the
// views' window functions but not a subquery.
std::optional<StoredResult> Store::deployed(const TuningKey& key) {
  auto rows = in_transaction(*impl_->db, Access::read, "deployed", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    return impl_->results(deployed_source(impl_->schema), "m.key_id = $1", "m.id", {*id});
  });
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

std::optional<Measurement> Store::find(const TuningKey& key, std::string_view config_hash) {
  auto rows = in_transaction(*impl_->db, Access::read, "find", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    // A transient failure is no verdict: a resumed tune measures the config again.
    return impl_->results("measurements",
                          "m.key_id = $1 AND m.config_hash = $2 AND m.outcome != 'transient'",
                          "m.id DESC LIMIT 1", {*id, std::string(config_hash)});
  });
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front().measurement);
}

std::vector<StoredResult> Store::results(const TuningKey& key) {
  return in_transaction(*impl_->db, Access::read, "results", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    return impl_->results("measurements", "m.key_id = $1", "m.id", {*id});
  });
}

std::vector<StoredResult> Store::latest_results(const TuningKey& key) {
  return in_transaction(*impl_->db, Access::read, "latest_results", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    return impl_->results("latest_per_config", "m.key_id = $1",
                          "(SELECT min(f.id) FROM measurements f WHERE f.key_id = m.key_id AND "
                          "f.config_hash = m.config_hash)",
                          {*id});
  });
}

std::int64_t Store::measurement_count(const TuningKey& key) {
  auto& db = *impl_->db;
  return in_transaction(db, Access::read, "measurement_count", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::int64_t{0};
    return db.query("SELECT count(*) FROM measurements WHERE key_id = $1", {*id}).integer(0, 0);
  });
}

std::vector<StoredResult> Store::best(const TuningKey& key, int n) {
  return in_transaction(*impl_->db, Access::read, "best", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    return impl_->results("latest_per_config", "m.key_id = $1 AND m.outcome = 'ok'",
                          "m.time_ms, m.id LIMIT $2", {*id, std::int64_t{n}});
  });
}

std::vector<TuningKey> Store::keys(const KeyFilter& filter) {
  auto& db = *impl_->db;
  return in_transaction(db, Access::read, "keys", [&] {
    // Keys that hold a measurement: claims and participants create keys before any result.
    const store::Rows rows = db.query(
        fmt::format("SELECT {} FROM tuning_keys k WHERE ($1 = '' OR family = $1) AND ($2 = '' OR "
                    "device = $2) AND EXISTS (SELECT 1 FROM measurements m WHERE m.key_id = k.id) "
                    "ORDER BY {}",
                    kKeyColumns, kKeyOrder),
        {filter.family, filter.device});
    std::vector<TuningKey> keys;
    for (int r = 0; r < rows.size(); ++r) {
      keys.push_back(
          {rows.text(r, 0), rows.text(r, 1), rows.text(r, 2), rows.text(r, 3), rows.text(r, 4)});
    }
    return keys;
  });
}

std::vector<StoredResult> Store::best_per_key(const KeyFilter& filter) {
  return in_transaction(*impl_->db, Access::read, "best_per_key", [&] {
    return impl_->results(deployed_source(impl_->schema),
                          "($1 = '' OR k.family = $1) AND ($2 = '' OR k.device = $2)", kKeyOrder,
                          {filter.family, filter.device});
  });
}

bool Store::shared() const { return impl_->db->capabilities().shared; }

}  // namespace cutune
