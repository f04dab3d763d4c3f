#include "postgres.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace cutune::postgres {

Param param(std::string_view text) { return std::string(text); }
Param param(double value) {
  if (std::isnan(value)) return std::nullopt;
  return fmt::format("{:.17g}", value);
}
Param param(std::int64_t value) { return std::to_string(value); }

std::string Result::text(int row, int column) const {
  return PQgetvalue(result_.get(), row, column);
}

double Result::real(int row, int column) const {
  if (is_null(row, column)) return NAN;
  return std::strtod(PQgetvalue(result_.get(), row, column), nullptr);
}

std::int64_t Result::integer(int row, int column) const {
  return std::strtoll(PQgetvalue(result_.get(), row, column), nullptr, 10);
}

std::int64_t Result::changed() const {
  const char* count = PQcmdTuples(result_.get());
  return *count == '\0' ? 0 : std::strtoll(count, nullptr, 10);
}

namespace {

// libpq takes the parameters in order, and those of conninfo (expanded from dbname) override
// the ones before it: the defaults go first.
PGconn* connect(const std::string& conninfo,
                const std::vector<std::pair<std::string, std::string>>& defaults) {
  std::vector<const char*> keywords;
  std::vector<const char*> values;
  for (const auto& [keyword, value] : defaults) {
    keywords.push_back(keyword.c_str());
    values.push_back(value.c_str());
  }
  keywords.push_back("dbname");
  values.push_back(conninfo.c_str());
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  return PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
}

}  // namespace

Connection::Connection(const std::string& conninfo,
                       const std::vector<std::pair<std::string, std::string>>& defaults)
    : conn_(connect(conninfo, defaults)) {
  if (conn_ == nullptr) throw Error("", "libpq could not allocate a connection");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = PQerrorMessage(conn_);
    PQfinish(conn_);
    conn_ = nullptr;
    throw Error("", message);
  }
  // Notices (e.g. "relation already exists, skipping") are for people at a psql prompt.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
}

Connection::~Connection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

Result Connection::checked(PGresult* raw) {
  Result result(raw);
  // A null PGresult (out of memory, lost connection) reads as PGRES_FATAL_ERROR.
  const ExecStatusType status = PQresultStatus(result.raw());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* state = PQresultErrorField(result.raw(), PG_DIAG_SQLSTATE);
    throw Error(state != nullptr ? state : "", PQerrorMessage(conn_));
  }
  return result;
}

Result Connection::run(std::string_view sql, const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const Param& p : params) values.push_back(p ? p->c_str() : nullptr);
  return checked(PQexecParams(conn_, std::string(sql).c_str(), static_cast<int>(values.size()),
                              nullptr, values.data(), nullptr, nullptr, 0));
}

void Connection::execute(std::string_view sql) { checked(PQexec(conn_, std::string(sql).c_str())); }

Transaction::~Transaction() {
  if (done_) return;
  try {
    db_.execute("ROLLBACK");
  } catch (const Error&) {
    // The connection is gone; the server rolls the transaction back itself.
  }
}

void Transaction::commit() {
  db_.execute("COMMIT");
  done_ = true;
}

}  // namespace cutune::postgres
