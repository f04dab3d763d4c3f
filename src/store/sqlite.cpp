#include "sqlite.hpp"

#include <fmt/core.h>

#include <cmath>
#include <limits>

namespace cutune::sqlite {
namespace {

[[noreturn]] void fail(sqlite3* db, int code, std::string_view doing) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  throw Error(code & 0xff, fmt::format("{}: {}", doing, message));
}

// Names a statement in an error by its start: enough to tell which one, short enough to read.
std::string excerpt(std::string_view sql) {
  constexpr std::size_t kLength = 48;
  return sql.size() <= kLength ? std::string(sql) : fmt::format("{}...", sql.substr(0, kLength));
}

}  // namespace

Connection::Connection(const std::string& uri, int flags) {
  const int code = sqlite3_open_v2(uri.c_str(), &db_, flags | SQLITE_OPEN_URI, nullptr);
  if (code != SQLITE_OK) {
    // sqlite3_open_v2 hands back a handle even on failure, to report the error and then close.
    Error error(code & 0xff, fmt::format("open: {}", db_ != nullptr ? sqlite3_errmsg(db_)
                                                                    : sqlite3_errstr(code)));
    sqlite3_close(db_);
    throw error;
  }
  sqlite3_extended_result_codes(db_, 1);
}

Connection::~Connection() { sqlite3_close(db_); }

void Connection::execute(const char* sql) {
  const int code = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) fail(db_, code, excerpt(sql));
}

Statement::Statement(const Connection& connection, std::string_view sql)
    : db_(connection.handle()) {
  const int code = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (code != SQLITE_OK) fail(db_, code, fmt::format("prepare '{}'", excerpt(sql)));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::bind(int index, std::string_view text) {
  const int code =
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (code != SQLITE_OK) fail(db_, code, "bind");
}

void Statement::bind(int index, double value) {
  const int code = std::isnan(value) ? sqlite3_bind_null(stmt_, index)
                                     : sqlite3_bind_double(stmt_, index, value);
  if (code != SQLITE_OK) fail(db_, code, "bind");
}

void Statement::bind(int index, std::int64_t value) {
  const int code = sqlite3_bind_int64(stmt_, index, value);
  if (code != SQLITE_OK) fail(db_, code, "bind");
}

void Statement::bind_null(int index) {
  const int code = sqlite3_bind_null(stmt_, index);
  if (code != SQLITE_OK) fail(db_, code, "bind");
}

bool Statement::step() {
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  fail(db_, code, fmt::format("'{}'", excerpt(sqlite3_sql(stmt_))));
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int Statement::columns() const { return sqlite3_column_count(stmt_); }

int Statement::type(int column) const { return sqlite3_column_type(stmt_, column); }

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(stmt_, column);
  if (bytes == nullptr) return {};
  return {reinterpret_cast<const char*>(bytes),
          static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

double Statement::real(int column) const {
  return is_null(column) ? std::numeric_limits<double>::quiet_NaN()
                         : sqlite3_column_double(stmt_, column);
}

std::int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }

}  // namespace cutune::sqlite
