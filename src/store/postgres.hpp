// A thin RAII layer over libpq: a connection, one call that runs a parameterized statement, and
// results read by row and column. Values travel as text (libpq's text format), which keeps
// doubles exact through "%.17g" and needs no per-type OIDs. NaN travels as NULL, as SQLite stores
// it, so both backends read back the same rows.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cutune::postgres {

class Error : public std::runtime_error {
 public:
  Error(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  // The five-character SQLSTATE; empty when the connection itself failed.
  const std::string& sqlstate() const { return sqlstate_; }
  // Serialization failures and deadlocks: the transaction is safe to run again.
  bool retryable() const { return sqlstate_ == "40001" || sqlstate_ == "40P01"; }

 private:
  std::string sqlstate_;
};

// One parameter: text, or NULL.
using Param = std::optional<std::string>;
Param param(std::string_view text);
Param param(double value);  // NaN is NULL
Param param(std::int64_t value);

class Result {
 public:
  explicit Result(PGresult* result) : result_(result, &PQclear) {}
  int rows() const { return PQntuples(result_.get()); }
  bool is_null(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
  std::string text(int row, int column) const;
  double real(int row, int column) const;  // NULL reads as NaN
  std::int64_t integer(int row, int column) const;
  // Rows changed by an INSERT, UPDATE or DELETE.
  std::int64_t changed() const;
  PGresult* raw() const { return result_.get(); }

 private:
  std::unique_ptr<PGresult, decltype(&PQclear)> result_;
};

class Connection {
 public:
  // conninfo: a postgresql:// URI or key=value pairs, as libpq takes them; `defaults` are libpq
  // parameters (keyword, value) that conninfo's own override. Throws Error.
  explicit Connection(const std::string& conninfo,
                      const std::vector<std::pair<std::string, std::string>>& defaults = {});
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs one statement with $1.. parameters. Throws Error with the server's SQLSTATE.
  Result run(std::string_view sql, const std::vector<Param>& params = {});
  // Runs statements that take no parameters (schema scripts, BEGIN, COMMIT).
  void execute(std::string_view sql);

 private:
  Result checked(PGresult* raw);
  PGconn* conn_ = nullptr;
};

// Rolls back unless committed; the retry loop above it runs the whole transaction again.
class Transaction {
 public:
  explicit Transaction(Connection& db) : db_(db) { db_.execute("BEGIN"); }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Connection& db_;
  bool done_ = false;
};

}  // namespace cutune::postgres
