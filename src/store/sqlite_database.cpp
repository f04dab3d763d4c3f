// The store's database as one SQLite file: WAL journal, a busy timeout and whole-transaction
// retries so that any number of processes share the file, and statements prepared once per
// connection.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>
#include <thread>
#include <unordered_map>

#include "database.hpp"
#include "sqlite.hpp"

namespace cutune::store {
namespace {

namespace fs = std::filesystem;

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

// PostgreSQL's $N parameters as SQLite's ?N (the store's SQL holds no '$' elsewhere).
std::string sqlite_parameters(std::string_view sql) {
  std::string out(sql);
  std::replace(out.begin(), out.end(), '$', '?');
  return out;
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(fs::path path, const std::string& uri, int flags)
      : path_(std::move(path)), db_(uri, flags) {
    sqlite3_busy_timeout(db_.handle(), 10'000);
  }

  const Capabilities& capabilities() const override {
    static constexpr Capabilities kSqlite{.shared = false,
                                          .row_locks = false,
                                          .temp_views_when_read_only = true,
                                          .id_type = "INTEGER PRIMARY KEY",
                                          .reference_type = "INTEGER",
                                          .real_type = "REAL",
                                          .instant_type = "REAL"};
    return kSqlite;
  }
  const fs::path& where() const override { return path_; }

  [[noreturn]] void fail(std::string_view doing, const sqlite::Error& error) const {
    throw StoreError(
        fmt::format("results store {}: {}: {}", path_.string(), doing, describe(error)));
  }

  // BEGIN IMMEDIATE takes the write lock up front: a deferred transaction that later upgrades can
  // fail with SQLITE_BUSY without waiting, whatever the busy timeout.
  void transaction(Access access, std::string_view doing,
                   const std::function<void()>& work) override {
    try {
      retry_while_busy([&] {
        db_.execute(access == Access::read ? "BEGIN" : "BEGIN IMMEDIATE");
        try {
          work();
          db_.execute("COMMIT");
        } catch (...) {
          if (sqlite3_get_autocommit(db_.handle()) == 0)
            sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
          throw;
        }
      });
    } catch (const sqlite::Error& error) {
      fail(doing, error);
    }
  }

  Rows query(std::string_view sql, const std::vector<Value>& params) override {
    sqlite::Statement& statement = prepared(sql);
    sqlite::Use use(statement);
    for (std::size_t i = 0; i < params.size(); ++i)
      bind(statement, static_cast<int>(i) + 1, params[i]);
    std::vector<std::vector<Value>> rows;
    while (statement.step()) {
      std::vector<Value>& row = rows.emplace_back();
      for (int c = 0; c < statement.columns(); ++c) {
        switch (statement.type(c)) {
          case SQLITE_NULL:
            row.emplace_back();
            break;
          case SQLITE_INTEGER:
            row.emplace_back(statement.integer(c));
            break;
          case SQLITE_FLOAT:
            row.emplace_back(statement.real(c));
            break;
          default:
            row.emplace_back(statement.text(c));
        }
      }
    }
    return Rows(std::move(rows));
  }

  void execute(std::string_view sql) override { db_.execute(std::string(sql).c_str()); }

  void before_writes() override {
    try {
      retry_while_busy([&] { db_.execute("PRAGMA journal_mode = WAL"); });
      // In WAL mode NORMAL loses nothing when a process dies, only on power loss, and skips an
      // fsync per commit.
      db_.execute("PRAGMA synchronous = NORMAL");
    } catch (const sqlite::Error& error) {
      fail("open", error);
    }
  }

  std::vector<std::string> relations() override {
    return names(
        query("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE "
              "'sqlite_%' ORDER BY name",
              {}));
  }

  std::vector<std::string> columns(std::string_view table) override {
    return names(query("SELECT name FROM pragma_table_info($1)", {std::string(table)}));
  }

  // The file's view (the main schema's), never a TEMP view shadowing it.
  std::string view_definition(std::string_view view) override {
    const Rows rows = query("SELECT sql FROM main.sqlite_schema WHERE type = 'view' AND name = $1",
                            {std::string(view)});
    return rows.size() == 0 ? std::string() : rows.text(0, 0);
  }

  // Reads the schema once, outside the store's checks: the first read is where a file that is
  // not a database, or cannot be shared from its folder, shows it.
  void probe() {
    retry_while_busy([&] { query("SELECT count(*) FROM sqlite_schema", {}); });
  }

 private:
  static std::vector<std::string> names(const Rows& rows) {
    std::vector<std::string> out;
    for (int r = 0; r < rows.size(); ++r) out.push_back(rows.text(r, 0));
    return out;
  }

  static void bind(sqlite::Statement& statement, int index, const Value& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      statement.bind(index, *i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      statement.bind(index, *d);
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      statement.bind(index, std::string_view(*s));
    } else {
      statement.bind_null(index);
    }
  }

  sqlite::Statement& prepared(std::string_view sql) {
    auto found = statements_.find(std::string(sql));
    if (found == statements_.end()) {
      auto statement = std::make_unique<sqlite::Statement>(db_, sqlite_parameters(sql));
      found = statements_.emplace(std::string(sql), std::move(statement)).first;
    }
    return *found->second;
  }

  fs::path path_;
  sqlite::Connection db_;
  // After db_: statements are finalized before their connection closes.
  std::unordered_map<std::string, std::unique_ptr<sqlite::Statement>> statements_;
};

[[noreturn]] void store_failed(const fs::path& path, std::string_view problem) {
  throw StoreError(fmt::format("results store {}: {}", path.string(), problem));
}

std::unique_ptr<SqliteDatabase> open_probed(const fs::path& path, OpenMode mode,
                                            const std::string& uri) {
  const int flags = mode == OpenMode::read_only ? SQLITE_OPEN_READONLY
                                                : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  auto db = std::make_unique<SqliteDatabase>(path, uri, flags);
  db->probe();
  return db;
}

}  // namespace

std::unique_ptr<Database> open_sqlite(const fs::path& path, OpenMode mode) {
  if (path == ":memory:") {
    try {
      return open_probed(path, OpenMode::read_write, "file::memory:");
    } catch (const sqlite::Error& error) {
      store_failed(path, describe(error));
    }
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
    return open_probed(path, mode, file_uri(path, ""));
  } catch (const sqlite::Error& first) {
    // A WAL file needs its -shm index, which a reader cannot create in a read-only folder. When
    // the file is only ever read there (a deployment), reading it as immutable needs no index.
    const bool cannot_share = first.code() == SQLITE_CANTOPEN || first.code() == SQLITE_READONLY;
    if (mode == OpenMode::read_only && cannot_share) {
      try {
        return open_probed(path, mode, file_uri(path, "immutable=1"));
      } catch (const sqlite::Error&) {
        // Report the first error: it says why the ordinary way failed.
      }
    }
    store_failed(path, describe(first));
  }
}

}  // namespace cutune::store
