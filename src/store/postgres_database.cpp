// The store's database on a PostgreSQL server (libpq): transactions retried on serialization
// failures and deadlocks, schema changes serialized by an advisory lock, and a read-only session
// for a store opened read_only.
#include <fmt/format.h>

#include <cstdlib>

#include "database.hpp"
#include "postgres.hpp"

namespace cutune::store {
namespace {

// Any constant: participants creating or migrating the schema at once queue on this lock.
constexpr std::int64_t kSchemaLock = 0x6375'7475'6e65;

// How long a server that does not answer may keep a tune waiting, unless the URL (or the
// environment, or the role) says otherwise: connecting (libpq's connect_timeout, per address
// tried), one statement (the store's are short; one waits at most for another participant's
// transaction under the same key), and a transaction left open by a process that stopped (its
// locks would hold up every other participant).
constexpr std::string_view kConnectSeconds = "10";
constexpr std::string_view kStatementTimeout = "60s";
constexpr std::string_view kIdleInTransactionTimeout = "60s";

postgres::Param text_param(const Value& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return postgres::param(*i);
  if (const auto* d = std::get_if<double>(&value)) return postgres::param(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return postgres::param(*s);
  return std::nullopt;
}

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const std::string& url, OpenMode mode) : url_(url), db_(connect(url)) {
    try {
      for (const auto& [name, value] :
           {std::pair{"statement_timeout", kStatementTimeout},
            {"idle_in_transaction_session_timeout", kIdleInTransactionTimeout}}) {
        // A timeout the URL's options, the role or the database set is theirs to keep.
        db_.run("SELECT set_config($1, $2, false) WHERE current_setting($1) = '0'",
                {postgres::param(name), postgres::param(value)});
      }
      if (mode == OpenMode::read_only) db_.execute("SET default_transaction_read_only = on");
    } catch (const postgres::Error& error) {
      throw StoreError(fmt::format("results store {}: open: {}", url, error.what()));
    }
  }

  // A read-only session may create nothing, not even temporary views.
  const Capabilities& capabilities() const override {
    static constexpr Capabilities kPostgres{.shared = true,
                                            .row_locks = true,
                                            .temp_views_when_read_only = false,
                                            .id_type = "BIGSERIAL PRIMARY KEY",
                                            .reference_type = "BIGINT",
                                            .real_type = "DOUBLE PRECISION",
                                            .instant_type = "TIMESTAMPTZ"};
    return kPostgres;
  }
  const std::filesystem::path& where() const override { return url_; }

  void transaction(Access access, std::string_view doing,
                   const std::function<void()>& work) override {
    for (int attempt = 0;; ++attempt) {
      try {
        postgres::Transaction transaction(db_);
        if (access == Access::schema) {
          db_.run("SELECT pg_advisory_xact_lock($1)", {postgres::param(kSchemaLock)});
        }
        work();
        transaction.commit();
        return;
      } catch (const postgres::Error& error) {
        if (!error.retryable() || attempt >= 20) {
          throw StoreError(
              fmt::format("results store {}: {}: {}", url_.string(), doing, error.what()));
        }
      }
    }
  }

  Rows query(std::string_view sql, const std::vector<Value>& params) override {
    std::vector<postgres::Param> texts;
    for (const Value& v : params) texts.push_back(text_param(v));
    const postgres::Result result = db_.run(sql, texts);
    std::vector<std::vector<Value>> rows;
    const int columns = PQnfields(result.raw());
    for (int r = 0; r < result.rows(); ++r) {
      std::vector<Value>& row = rows.emplace_back();
      for (int c = 0; c < columns; ++c) {
        if (result.is_null(r, c)) {
          row.emplace_back();
        } else {
          row.emplace_back(result.text(r, c));
        }
      }
    }
    return Rows(std::move(rows));
  }

  void execute(std::string_view sql) override { db_.execute(sql); }

  void before_writes() override {}

  std::vector<std::string> relations() override {
    return names(query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
        "ORDER BY table_name",
        {}));
  }

  std::vector<std::string> columns(std::string_view table) override {
    return names(
        query("SELECT column_name FROM information_schema.columns WHERE table_schema = "
              "current_schema() AND table_name = $1 ORDER BY ordinal_position",
              {std::string(table)}));
  }

  std::string view_definition(std::string_view view) override {
    const Rows rows = query(
        "SELECT definition FROM pg_views WHERE schemaname = current_schema() AND viewname = $1",
        {std::string(view)});
    return rows.size() == 0 ? std::string() : rows.text(0, 0);
  }

 private:
  static postgres::Connection connect(const std::string& url) {
    std::vector<std::pair<std::string, std::string>> defaults = {
        // A server gone from the network is noticed in seconds, not at the system's two hours.
        {"keepalives_idle", "5"},
        {"keepalives_interval", "2"},
        {"keepalives_count", "3"}};
    const char* environment = std::getenv("PGCONNECT_TIMEOUT");
    if (environment == nullptr || *environment == '\0') {
      defaults.emplace_back("connect_timeout", kConnectSeconds);
    }
    try {
      return postgres::Connection(url, defaults);
    } catch (const postgres::Error& error) {
      std::string message = error.what();
      if (message.find("timeout expired") != std::string::npos) {
        message = fmt::format(
            "the server did not answer within the connect timeout ({} s unless the URL's "
            "connect_timeout= or PGCONNECT_TIMEOUT says otherwise): {}",
            kConnectSeconds, message);
      }
      throw StoreError(fmt::format("results store {}: cannot connect: {}", url, message));
    }
  }

  static std::vector<std::string> names(const Rows& rows) {
    std::vector<std::string> out;
    for (int r = 0; r < rows.size(); ++r) out.push_back(rows.text(r, 0));
    return out;
  }

  std::filesystem::path url_;
  postgres::Connection db_;
};

}  // namespace

std::unique_ptr<Database> open_postgres(const std::string& url, OpenMode mode) {
  return std::make_unique<PostgresDatabase>(url, mode);
}

}  // namespace cutune::store
