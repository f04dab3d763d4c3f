#include "cutune/store.hpp"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

#include "hash/content_hash.hpp"
#include "postgres_store.hpp"
#include "sqlite.hpp"

namespace cutune {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFormat = "cutune-results";
constexpr int kSchemaVersion = 1;

// A config measured twice is judged by its latest measurement; the best of a key is the fastest
// such config that ran correctly. The views hold that rule once, for this code and for anyone
// reading the file with the sqlite3 shell.
constexpr const char* kCreateSchema = R"sql(
CREATE TABLE cutune_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE tuning_keys(
  id INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  family_version TEXT NOT NULL,
  problem TEXT NOT NULL,
  device TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  UNIQUE(family, family_version, problem, device, toolchain));
CREATE TABLE measurements(
  id INTEGER PRIMARY KEY,
  key_id INTEGER NOT NULL REFERENCES tuning_keys(id),
  config_hash TEXT NOT NULL,
  config_json TEXT NOT NULL,
  outcome TEXT NOT NULL,
  time_ms REAL,
  spread REAL,
  repetitions INTEGER NOT NULL,
  compile_s REAL NOT NULL,
  max_rel_error REAL,
  detail TEXT NOT NULL,
  tune_id TEXT NOT NULL,
  timestamp REAL NOT NULL,
  iqr_spread REAL,
  min_ms REAL,
  max_ms REAL);
CREATE INDEX measurements_by_config ON measurements(key_id, config_hash, id);
CREATE VIEW best_per_key AS
  SELECT * FROM (
    SELECT l.*, row_number() OVER (PARTITION BY l.key_id ORDER BY l.time_ms, l.id) AS position
    FROM latest_per_config l
    WHERE l.outcome = 'ok')
  WHERE position = 1;
)sql";

// A config's latest verdict: its newest row that is not `transient` (a transient failure says
// nothing of the config, so an ok row before it still stands). Stores written before this rule
// hold a view without the filter: opened for writing, the view is replaced; opened read-only, a
// TEMP view of the rule shadows it (with best_per_key and deployed_per_key, which name it).
constexpr std::string_view kLatestPerConfig = R"sql(CREATE VIEW latest_per_config AS
  SELECT * FROM (
    SELECT m.*, row_number() OVER (PARTITION BY m.key_id, m.config_hash ORDER BY m.id DESC)
      AS newness
    FROM measurements m WHERE m.outcome != 'transient')
  WHERE newness = 1)sql";

// Decisions came after schema version 1 was released, without a version change: a store without
// them gets them when opened for writing (older cutune builds ignore the table), and one opened
// read-only is read by the rule that came before (best_per_key). deployed_per_key holds the rule
// once: a key's latest decision names the measurement it deploys; a key without one deploys its
// best_per_key row.
constexpr const char* kDecisionsSchema = R"sql(
CREATE TABLE IF NOT EXISTS decisions(
  id INTEGER PRIMARY KEY,
  key_id INTEGER NOT NULL REFERENCES tuning_keys(id),
  tune_id TEXT NOT NULL,
  winner_hash TEXT NOT NULL,
  winner_json TEXT NOT NULL,
  winner_measurement INTEGER NOT NULL REFERENCES measurements(id),
  default_hash TEXT NOT NULL,
  seed_hash TEXT NOT NULL,
  speedup REAL,
  speedup_low REAL,
  speedup_high REAL,
  rounds INTEGER NOT NULL,
  finalists TEXT NOT NULL,
  rounds_detail TEXT NOT NULL,
  timestamp REAL NOT NULL);
CREATE INDEX IF NOT EXISTS decisions_by_key ON decisions(key_id, id);
CREATE VIEW IF NOT EXISTS deployed_per_key AS
  SELECT m.* FROM measurements m JOIN decisions d ON d.winner_measurement = m.id
    WHERE d.id = (SELECT max(id) FROM decisions WHERE key_id = d.key_id)
  UNION ALL
  SELECT m.* FROM measurements m
    WHERE m.id IN (SELECT b.id FROM best_per_key b
                   WHERE b.key_id NOT IN (SELECT key_id FROM decisions));
)sql";
constexpr std::string_view kDecisionColumns =
    "tune_id, winner_hash, winner_json, winner_measurement, default_hash, seed_hash, speedup, "
    "speedup_low, speedup_high, rounds, finalists, rounds_detail, timestamp";

// Columns of measurements added after schema version 1 was first released, without a version
// change: a store without them is migrated when opened for writing (ALTER TABLE ADD COLUMN, NULL
// in the old rows), and read as NULL when opened read-only. Older cutune builds name their
// columns, so they go on reading and writing a migrated store (leaving these NULL).
constexpr std::array<std::string_view, 3> kAddedColumns{"iqr_spread", "min_ms", "max_ms"};

// Every query that returns StoredResult rows selects these columns from a measurement source
// aliased m joined to its key k, so that one function reads them all.
std::string result_columns(bool has_added_columns) {
  std::string columns =
      "k.family, k.family_version, k.problem, k.device, k.toolchain, m.config_hash, "
      "m.config_json, m.outcome, m.time_ms, m.spread, m.repetitions, m.compile_s, "
      "m.max_rel_error, m.detail, m.tune_id, m.timestamp";
  for (const std::string_view column : kAddedColumns) {
    columns += has_added_columns ? fmt::format(", m.{}", column) : std::string(", NULL");
  }
  return columns;
}
constexpr std::string_view kKeyIdOfParameters =
    "(SELECT id FROM tuning_keys WHERE family = ?1 AND family_version = ?2 AND problem = ?3 "
    "AND device = ?4 AND toolchain = ?5)";
constexpr std::string_view kKeyOrder =
    "k.family, k.family_version, k.problem, k.device, k.toolchain";

std::string results_query(bool has_added_columns, std::string_view source,
                          std::string_view condition, std::string_view order) {
  return fmt::format(
      "SELECT {} FROM {} m JOIN tuning_keys k ON k.id = m.key_id WHERE {} ORDER BY {}",
      result_columns(has_added_columns), source, condition, order);
}

void bind_key(sqlite::Statement& statement, const TuningKey& key) {
  statement.bind(1, key.family);
  statement.bind(2, key.family_version);
  statement.bind(3, key.problem);
  statement.bind(4, key.device);
  statement.bind(5, key.toolchain);
}

std::string describe(const sqlite::Error& error) {
  switch (error.code()) {
    case SQLITE_NOTADB:
      return "not an SQLite database (a corrupt file, or not a cutune results store)";
    case SQLITE_CORRUPT:
      return fmt::format("the database is corrupt ({})", error.what());
    case SQLITE_READONLY:
      return fmt::format("cannot write to a read-only store ({})", error.what());
    case SQLITE_CANTOPEN:
      return fmt::format("cannot open the file ({})", error.what());
    default:
      return error.what();
  }
}

// Contention that outlasts SQLite's busy timeout (a long checkpoint, WAL recovery after a crash)
// is retried whole, with jitter so that colliding writers spread out.
template <typename Work>
auto retry_while_busy(Work&& work) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  std::minstd_rand jitter(std::random_device{}());
  for (;;) {
    try {
      return work();
    } catch (const sqlite::Error& error) {
      if (!error.busy() || Clock::now() > deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + jitter() % 20));
    }
  }
}

// BEGIN IMMEDIATE takes the write lock up front: a deferred transaction that later upgrades can
// fail with SQLITE_BUSY without waiting, whatever the busy timeout.
class WriteTransaction {
 public:
  explicit WriteTransaction(sqlite::Connection& db) : db_(db) { db_.execute("BEGIN IMMEDIATE"); }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction() {
    if (sqlite3_get_autocommit(db_.handle()) == 0)
      sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() { db_.execute("COMMIT"); }

 private:
  sqlite::Connection& db_;
};

// A path as an SQLite URI, for the query parameters only URIs can carry.
std::string file_uri(const fs::path& path, std::string_view parameters) {
  std::string uri = "file:";
  for (const unsigned char c : fs::absolute(path).string()) {
    if (std::isalnum(c) != 0 ||
        std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return parameters.empty() ? uri : fmt::format("{}?{}", uri, parameters);
}

std::vector<std::string> table_names(sqlite::Connection& db) {
  sqlite::Statement statement(db,
                              "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
  std::vector<std::string> names;
  while (statement.step()) names.push_back(statement.text(0));
  return names;
}

std::vector<std::string> column_names(sqlite::Connection& db, std::string_view table) {
  sqlite::Statement statement(db, "SELECT name FROM pragma_table_info(?1)");
  statement.bind(1, table);
  std::vector<std::string> names;
  while (statement.step()) names.push_back(statement.text(0));
  return names;
}

std::vector<std::string_view> missing_added_columns(sqlite::Connection& db) {
  const std::vector<std::string> present = column_names(db, "measurements");
  std::vector<std::string_view> missing;
  for (const std::string_view column : kAddedColumns) {
    if (std::find(present.begin(), present.end(), column) == present.end()) {
      missing.push_back(column);
    }
  }
  return missing;
}

std::string meta_value(sqlite::Connection& db, std::string_view name) {
  sqlite::Statement statement(db, "SELECT value FROM cutune_meta WHERE name = ?1");
  statement.bind(1, name);
  return statement.step() ? statement.text(0) : std::string();
}

}  // namespace

std::string TuningKey::canonical() const {
  return nlohmann::json::array({family, family_version, problem, device, toolchain}).dump();
}

std::string TuningKey::hash() const { return hash::content_hash(canonical()).hex(); }

struct Store::Impl {
  // Prepared once per connection, after the schema is known to be there.
  struct Statements {
    // has_added_columns is false only for a store opened read-only that predates kAddedColumns;
    // its insert (never run) leaves them out.
    Statements(const sqlite::Connection& db, bool has_added_columns, bool has_decisions)
        : insert_key(db,
                     "INSERT INTO tuning_keys(family, family_version, problem, device, toolchain) "
                     "VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING"),
          insert_measurement(
              db,
              fmt::format("INSERT INTO measurements(key_id, config_hash, config_json, outcome, "
                          "time_ms, spread, repetitions, compile_s, max_rel_error, detail, "
                          "tune_id, timestamp{}) VALUES({}, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                          "?13, ?14, ?15, ?16{})",
                          has_added_columns ? fmt::format(", {}", fmt::join(kAddedColumns, ", "))
                                            : std::string(),
                          kKeyIdOfParameters, has_added_columns ? ", ?17, ?18, ?19" : "")),
          key_id(db, fmt::format("SELECT {}", kKeyIdOfParameters)),
          // The reads below take the key's id rather than its fields: SQLite pushes a bound
          // key_id into the views' window functions but not a subquery.
          find(db,
               results_query(
                   has_added_columns, "measurements",
                   // A transient failure is no verdict: a resumed tune measures the config again.
                   "m.key_id = ?1 AND m.config_hash = ?2 AND m.outcome != "
                   "'transient'",
                   "m.id DESC LIMIT 1")),
          results(db, results_query(has_added_columns, "measurements", "m.key_id = ?1", "m.id")),
          count(db, "SELECT count(*) FROM measurements WHERE key_id = ?1"),
          best(db, results_query(has_added_columns, "latest_per_config",
                                 "m.key_id = ?1 AND m.outcome = 'ok'", "m.time_ms, m.id LIMIT ?2")),
          keys(db, fmt::format("SELECT family, family_version, problem, device, toolchain FROM "
                               "tuning_keys k WHERE (?1 = '' OR family = ?1) AND (?2 = '' OR "
                               "device = ?2) ORDER BY {}",
                               kKeyOrder)),
          best_per_key(db,
                       results_query(has_added_columns, deployed_source(has_decisions),
                                     "(?1 = '' OR k.family = ?1) AND (?2 = '' OR k.device = ?2)",
                                     kKeyOrder)),
          deployed(db, results_query(has_added_columns, deployed_source(has_decisions),
                                     "m.key_id = ?1", "m.id")) {
      if (!has_decisions) return;  // a read-only store from before decisions: none to read
      insert_decision.emplace(
          db, fmt::format("INSERT INTO decisions(key_id, {}) SELECT m.key_id, ?6, ?7, ?8, ?9, "
                          "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18 FROM measurements m WHERE "
                          "m.id = ?9 AND m.config_hash = ?7 AND m.key_id = {}",
                          kDecisionColumns, kKeyIdOfParameters));
      decision.emplace(db, fmt::format("SELECT {} FROM decisions WHERE key_id = ?1 ORDER BY id "
                                       "DESC LIMIT 1",
                                       kDecisionColumns));
    }

    static std::string_view deployed_source(bool has_decisions) {
      return has_decisions ? "deployed_per_key" : "best_per_key";
    }

    sqlite::Statement insert_key;
    sqlite::Statement insert_measurement;
    sqlite::Statement key_id;
    sqlite::Statement find;
    sqlite::Statement results;
    sqlite::Statement count;
    sqlite::Statement best;
    sqlite::Statement keys;
    sqlite::Statement best_per_key;
    sqlite::Statement deployed;
    std::optional<sqlite::Statement> insert_decision;
    std::optional<sqlite::Statement> decision;
  };

  Impl(fs::path path_in, OpenMode mode_in, const std::string& uri, int flags)
      : path(std::move(path_in)), mode(mode_in), db(uri, flags) {
    sqlite3_busy_timeout(db.handle(), 10'000);
  }

  [[noreturn]] void fail(std::string_view doing, const sqlite::Error& error) const {
    throw StoreError(
        fmt::format("results store {}: {}: {}", path.string(), doing, describe(error)));
  }
  [[noreturn]] void fail(std::string_view problem) const {
    throw StoreError(fmt::format("results store {}: {}", path.string(), problem));
  }

  // Reads nothing but the schema; writes only into a file that holds no tables yet.
  void check_or_create_schema() {
    std::vector<std::string> tables = retry_while_busy([&] { return table_names(db); });
    if (tables.empty()) {
      if (mode == OpenMode::read_only) fail("empty database: no cutune results store in it");
      create_schema();
      add_missing_columns();  // when an older cutune created it first
      add_decisions();
      return;
    }
    if (std::find(tables.begin(), tables.end(), "cutune_meta") == tables.end()) {
      fail(
          fmt::format("an SQLite database of another program (tables: {}), not a cutune results "
                      "store",
                      fmt::join(tables, ", ")));
    }
    std::string format;
    try {
      format = meta_value(db, "format");
    } catch (const sqlite::Error& error) {
      if (error.code() != SQLITE_ERROR) throw;  // a damaged file, not a foreign table
      fail("an SQLite database with a cutune_meta table that cutune did not write");
    }
    if (format != kFormat) {
      fail(fmt::format("an SQLite database whose cutune_meta names format '{}', not '{}'", format,
                       kFormat));
    }
    const std::string version = meta_value(db, "schema_version");
    if (version != std::to_string(kSchemaVersion)) {
      fail(fmt::format(
          "schema version '{}'; this build of cutune reads version {} only{}", version,
          kSchemaVersion,
          std::atoi(version.c_str()) > kSchemaVersion ? " (a newer cutune wrote it)" : ""));
    }
    if (mode == OpenMode::read_write) {
      enable_wal();
      add_missing_columns();
      add_decisions();
      replace_stale_latest_view();
    } else {
      shadow_stale_latest_view();
    }
    has_added_columns = retry_while_busy([&] { return missing_added_columns(db).empty(); });
    has_decisions = retry_while_busy([&] {
      const std::vector<std::string> names = table_names(db);
      return std::find(names.begin(), names.end(), "decisions") != names.end();
    });
  }

  // A store written before kAddedColumns gets them, NULL in its rows. Another writer may be
  // doing the same: the check is repeated under the write lock.
  void add_missing_columns() {
    if (retry_while_busy([&] { return missing_added_columns(db).empty(); })) return;
    retry_while_busy([&] {
      WriteTransaction transaction(db);
      for (const std::string_view column : missing_added_columns(db)) {
        db.execute(fmt::format("ALTER TABLE measurements ADD COLUMN {} REAL", column).c_str());
      }
      transaction.commit();
    });
  }

  // kDecisionsSchema is idempotent; it runs under the write lock like every migration.
  void add_decisions() {
    const auto present = [&] {
      sqlite::Statement statement(
          db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('decisions', 'deployed_per_key')");
      statement.step();
      return statement.integer(0) == 2;
    };
    if (retry_while_busy(present)) return;
    retry_while_busy([&] {
      WriteTransaction transaction(db);
      db.execute(kDecisionsSchema);
      transaction.commit();
    });
  }

  // Whether latest_per_config predates kLatestPerConfig's rule (counts transient rows).
  bool latest_view_is_stale() {
    return retry_while_busy([&] {
      sqlite::Statement statement(db,
                                  "SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND "
                                  "name = 'latest_per_config' AND instr(sql, 'transient') = 0");
      statement.step();
      return statement.integer(0) != 0;
    });
  }

  void replace_stale_latest_view() {
    if (!latest_view_is_stale()) return;
    retry_while_busy([&] {
      WriteTransaction transaction(db);
      if (!latest_view_is_stale()) return;  // another writer replaced it first
      db.execute("DROP VIEW latest_per_config");
      db.execute(std::string(kLatestPerConfig).c_str());
      transaction.commit();
    });
  }

  // Read-only: TEMP views (this connection's, searched before the file's) of the current rule.
  // best_per_key and deployed_per_key are copied too, since the file's copies name the file's
  // latest_per_config.
  void shadow_stale_latest_view() {
    if (!latest_view_is_stale()) return;
    const auto as_temp = [](std::string sql) {
      return "CREATE TEMP VIEW" + sql.substr(std::string_view("CREATE VIEW").size());
    };
    std::vector<std::string> views{as_temp(std::string(kLatestPerConfig))};
    retry_while_busy([&] {
      sqlite::Statement statement(db,
                                  "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name "
                                  "IN ('best_per_key', 'deployed_per_key') ORDER BY name = "
                                  "'deployed_per_key'");
      while (statement.step()) views.push_back(as_temp(statement.text(0)));
    });
    for (const std::string& view : views) db.execute(view.c_str());
  }

  void enable_wal() {
    retry_while_busy([&] { db.execute("PRAGMA journal_mode = WAL"); });
    // In WAL mode NORMAL loses nothing when a process dies, only on power loss, and skips an
    // fsync per commit.
    db.execute("PRAGMA synchronous = NORMAL");
  }

  void create_schema() {
    enable_wal();
    retry_while_busy([&] {
      WriteTransaction transaction(db);
      // Another process may have created it between our look and our lock.
      if (!table_names(db).empty()) return;
      db.execute(kCreateSchema);
      db.execute(std::string(kLatestPerConfig).c_str());
      sqlite::Statement meta(db, "INSERT INTO cutune_meta(name, value) VALUES(?1, ?2)");
      meta.bind(1, std::string_view("format"));
      meta.bind(2, kFormat);
      meta.step();
      meta.reset();
      meta.bind(1, std::string_view("schema_version"));
      meta.bind(2, std::to_string(kSchemaVersion));
      meta.step();
      transaction.commit();
    });
  }

  StoredResult read_result(const sqlite::Statement& row) const {
    StoredResult result;
    result.key = {row.text(0), row.text(1), row.text(2), row.text(3), row.text(4)};
    result.config_hash = row.text(5);
    result.config_json = row.text(6);
    const std::string outcome = row.text(7);
    const auto parsed = outcome_from_string(outcome);
    if (!parsed) {
      fail(fmt::format("measurement of config {} under key {} has an unknown outcome '{}'",
                       result.config_hash, result.key.canonical(), outcome));
    }
    result.measurement.outcome = *parsed;
    result.measurement.time_ms = row.real(8);
    result.measurement.spread = row.real(9);
    result.measurement.repetitions = static_cast<int>(row.integer(10));
    result.measurement.compile_s = row.real(11);
    result.measurement.max_rel_error = row.real(12);
    result.measurement.detail = row.text(13);
    result.tune_id = row.text(14);
    result.timestamp = row.real(15);
    result.measurement.iqr_spread = row.real(16);
    result.measurement.min_ms = row.real(17);
    result.measurement.max_ms = row.real(18);
    return result;
  }

  // Null when nothing was recorded under the key.
  std::optional<std::int64_t> key_id(const TuningKey& key) {
    sqlite::Use use(sql->key_id);
    bind_key(sql->key_id, key);
    sql->key_id.step();
    if (sql->key_id.is_null(0)) return std::nullopt;
    return sql->key_id.integer(0);
  }

  std::vector<StoredResult> read_results(sqlite::Statement& statement) const {
    std::vector<StoredResult> results;
    while (statement.step()) results.push_back(read_result(statement));
    return results;
  }

  // Runs a read under the store's error reporting; a read retries whole when the file is busy.
  static std::unique_ptr<Impl> open_checked(const fs::path& path, OpenMode mode,
                                            const std::string& uri) {
    const int flags = mode == OpenMode::read_only ? SQLITE_OPEN_READONLY
                                                  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    auto impl = std::make_unique<Impl>(path, mode, uri, flags);
    impl->check_or_create_schema();
    impl->sql =
        std::make_unique<Statements>(impl->db, impl->has_added_columns, impl->has_decisions);
    return impl;
  }

  template <typename Read>
  auto read(std::string_view doing, Read&& work) {
    try {
      return retry_while_busy(work);
    } catch (const sqlite::Error& error) {
      fail(doing, error);
    }
  }

  fs::path path;
  OpenMode mode;
  sqlite::Connection db;
  bool has_added_columns = true;  // see kAddedColumns
  bool has_decisions = true;      // see kDecisionsSchema
  std::unique_ptr<Statements> sql;
};

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(std::unique_ptr<Postgres> postgres) : postgres_(std::move(postgres)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const fs::path& Store::path() const { return postgres_ ? postgres_->url() : impl_->path; }

namespace {

[[noreturn]] void store_failed(const fs::path& path, std::string_view problem) {
  throw StoreError(fmt::format("results store {}: {}", path.string(), problem));
}

}  // namespace

Store Store::open(const fs::path& path, OpenMode mode) {
  if (const std::string url = path.string();
      url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    return Store(std::make_unique<Postgres>(url, mode));
  }
  const auto fail = [&](std::string_view problem) { store_failed(path, problem); };
  std::error_code error;
  if (mode == OpenMode::read_only) {
    if (!fs::exists(path, error)) fail("no such file");
  } else if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), error);
    if (error) fail(fmt::format("cannot create its folder: {}", error.message()));
  }
  if (fs::is_directory(path, error)) fail("a folder, not a file");
  try {
    return Store(Impl::open_checked(path, mode, file_uri(path, "")));
  } catch (const sqlite::Error& first) {
    // A WAL file needs its -shm index, which a reader cannot create in a read-only folder. When
    // the file is only ever read there (a deployment), reading it as immutable needs no index.
    const bool cannot_share = first.code() == SQLITE_CANTOPEN || first.code() == SQLITE_READONLY;
    if (mode == OpenMode::read_only && cannot_share) {
      try {
        return Store(Impl::open_checked(path, mode, file_uri(path, "immutable=1")));
      } catch (const sqlite::Error&) {
        // Report the first error: it says why the ordinary way failed.
      }
    }
    store_failed(path, describe(first));
  }
}

Store Store::in_memory() {
  const fs::path name(":memory:");
  try {
    return Store(Impl::open_checked(name, OpenMode::read_write, "file::memory:"));
  } catch (const sqlite::Error& error) {
    store_failed(name, describe(error));
  }
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
    store_failed(path(),
                 fmt::format("record: config {} of key {}: config_json is not a JSON object: '{}'",
                             result.config_hash, result.key.canonical(), result.config_json));
  }
  const Measurement& m = result.measurement;
  if (m.ok() && !(std::isfinite(m.time_ms) && m.time_ms >= 0.0)) {
    store_failed(path(),
                 fmt::format("record: config {} of key {}: outcome ok needs a time, got {} ms",
                             result.config_hash, result.key.canonical(), m.time_ms));
  }
  if (postgres_) return postgres_->record(result);
  auto& sql = *impl_->sql;
  try {
    return retry_while_busy([&] {
      WriteTransaction transaction(impl_->db);
      {
        sqlite::Use use(sql.insert_key);
        bind_key(sql.insert_key, result.key);
        sql.insert_key.step();
      }
      {
        auto& insert = sql.insert_measurement;
        sqlite::Use use(insert);
        bind_key(insert, result.key);
        insert.bind(6, result.config_hash);
        insert.bind(7, result.config_json);
        insert.bind(8, to_string(m.outcome));
        insert.bind(9, m.time_ms);
        insert.bind(10, m.spread);
        insert.bind(11, static_cast<std::int64_t>(m.repetitions));
        insert.bind(12, m.compile_s);
        insert.bind(13, m.max_rel_error);
        insert.bind(14, m.detail);
        insert.bind(15, result.tune_id);
        insert.bind(16, result.timestamp);
        insert.bind(17, m.iqr_spread);
        insert.bind(18, m.min_ms);
        insert.bind(19, m.max_ms);
        insert.step();
      }
      const std::int64_t id = sqlite3_last_insert_rowid(impl_->db.handle());
      transaction.commit();
      return id;
    });
  } catch (const sqlite::Error& error) {
    impl_->fail("record", error);
  }
}

void Store::record_decision(const Decision& d) {
  const auto is_json = [](const std::string& text, bool object) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    return object ? parsed.is_object() : parsed.is_array();
  };
  if (!is_json(d.winner_json, true) || !is_json(d.finalists_json, false) ||
      !is_json(d.rounds_json, true)) {
    store_failed(path(),
                 fmt::format("record_decision: key {}: winner_json and rounds_json must be JSON "
                             "objects and finalists_json a JSON array",
                             d.key.canonical()));
  }
  const auto not_a_row = [&] {
    store_failed(path(), fmt::format("record_decision: key {}: measurement {} is not a row of "
                                     "config {} under this key",
                                     d.key.canonical(), d.winner_measurement, d.winner_hash));
  };
  if (postgres_) {
    if (!postgres_->record_decision(d)) not_a_row();
    return;
  }
  if (!impl_->sql->insert_decision) impl_->fail("record_decision: the store has no decisions");
  auto& insert = *impl_->sql->insert_decision;
  bool inserted = false;
  try {
    retry_while_busy([&] {
      WriteTransaction transaction(impl_->db);
      sqlite::Use use(insert);
      bind_key(insert, d.key);
      insert.bind(6, d.tune_id);
      insert.bind(7, d.winner_hash);
      insert.bind(8, d.winner_json);
      insert.bind(9, d.winner_measurement);
      insert.bind(10, d.default_hash);
      insert.bind(11, d.seed_hash);
      insert.bind(12, d.speedup);
      insert.bind(13, d.speedup_low);
      insert.bind(14, d.speedup_high);
      insert.bind(15, static_cast<std::int64_t>(d.rounds));
      insert.bind(16, d.finalists_json);
      insert.bind(17, d.rounds_json);
      insert.bind(18, d.timestamp);
      insert.step();
      inserted = sqlite3_changes(impl_->db.handle()) == 1;
      transaction.commit();
    });
  } catch (const sqlite::Error& error) {
    impl_->fail("record_decision", error);
  }
  if (!inserted) not_a_row();
}

std::optional<Decision> Store::decision(const TuningKey& key) {
  if (postgres_) return postgres_->decision(key);
  if (!impl_->sql->decision) return std::nullopt;
  auto& statement = *impl_->sql->decision;
  return impl_->read("decision", [&]() -> std::optional<Decision> {
    const auto id = impl_->key_id(key);
    if (!id) return std::nullopt;
    sqlite::Use use(statement);
    statement.bind(1, *id);
    if (!statement.step()) return std::nullopt;
    Decision d;
    d.key = key;
    d.tune_id = statement.text(0);
    d.winner_hash = statement.text(1);
    d.winner_json = statement.text(2);
    d.winner_measurement = statement.integer(3);
    d.default_hash = statement.text(4);
    d.seed_hash = statement.text(5);
    d.speedup = statement.real(6);
    d.speedup_low = statement.real(7);
    d.speedup_high = statement.real(8);
    d.rounds = static_cast<int>(statement.integer(9));
    d.finalists_json = statement.text(10);
    d.rounds_json = statement.text(11);
    d.timestamp = statement.real(12);
    return d;
  });
}

std::optional<StoredResult> Store::deployed(const TuningKey& key) {
  if (postgres_) return postgres_->deployed(key);
  auto& statement = impl_->sql->deployed;
  return impl_->read("deployed", [&]() -> std::optional<StoredResult> {
    const auto id = impl_->key_id(key);
    if (!id) return std::nullopt;
    sqlite::Use use(statement);
    statement.bind(1, *id);
    if (!statement.step()) return std::nullopt;
    return impl_->read_result(statement);
  });
}

std::optional<Measurement> Store::find(const TuningKey& key, std::string_view config_hash) {
  if (postgres_) return postgres_->find(key, config_hash);
  auto& statement = impl_->sql->find;
  return impl_->read("find", [&]() -> std::optional<Measurement> {
    const auto id = impl_->key_id(key);
    if (!id) return std::nullopt;
    sqlite::Use use(statement);
    statement.bind(1, *id);
    statement.bind(2, config_hash);
    if (!statement.step()) return std::nullopt;
    return impl_->read_result(statement).measurement;
  });
}

std::vector<StoredResult> Store::results(const TuningKey& key) {
  if (postgres_) return postgres_->results(key);
  auto& statement = impl_->sql->results;
  return impl_->read("results", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    sqlite::Use use(statement);
    statement.bind(1, *id);
    return impl_->read_results(statement);
  });
}

std::int64_t Store::measurement_count(const TuningKey& key) {
  if (postgres_) return postgres_->measurement_count(key);
  auto& statement = impl_->sql->count;
  return impl_->read("measurement_count", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::int64_t{0};
    sqlite::Use use(statement);
    statement.bind(1, *id);
    statement.step();
    return statement.integer(0);
  });
}

std::vector<StoredResult> Store::best(const TuningKey& key, int n) {
  if (postgres_) return postgres_->best(key, n);
  auto& statement = impl_->sql->best;
  return impl_->read("best", [&] {
    const auto id = impl_->key_id(key);
    if (!id) return std::vector<StoredResult>{};
    sqlite::Use use(statement);
    statement.bind(1, *id);
    statement.bind(2, static_cast<std::int64_t>(n));
    return impl_->read_results(statement);
  });
}

std::vector<TuningKey> Store::keys(const KeyFilter& filter) {
  if (postgres_) return postgres_->keys(filter);
  auto& statement = impl_->sql->keys;
  return impl_->read("keys", [&] {
    sqlite::Use use(statement);
    statement.bind(1, filter.family);
    statement.bind(2, filter.device);
    std::vector<TuningKey> keys;
    while (statement.step()) {
      keys.push_back({statement.text(0), statement.text(1), statement.text(2), statement.text(3),
                      statement.text(4)});
    }
    return keys;
  });
}

std::vector<StoredResult> Store::best_per_key(const KeyFilter& filter) {
  if (postgres_) return postgres_->best_per_key(filter);
  auto& statement = impl_->sql->best_per_key;
  return impl_->read("best_per_key", [&] {
    sqlite::Use use(statement);
    statement.bind(1, filter.family);
    statement.bind(2, filter.device);
    return impl_->read_results(statement);
  });
}

}  // namespace cutune
