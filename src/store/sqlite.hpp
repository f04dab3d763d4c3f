// A thin RAII layer over the sqlite3 C API: a connection, prepared statements that reset
// themselves after each use (an unreset statement would pin a WAL snapshot), and errors that carry
// SQLite's result code so the store can tell contention from corruption.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cutune::sqlite {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }  // primary result code (SQLITE_BUSY, SQLITE_NOTADB, ...)
  bool busy() const { return code_ == SQLITE_BUSY || code_ == SQLITE_LOCKED; }

 private:
  int code_;
};

class Connection {
 public:
  // uri: a file path or a "file:" URI; flags: SQLITE_OPEN_* (SQLITE_OPEN_URI is added).
  Connection(const std::string& uri, int flags);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  sqlite3* handle() const { return db_; }
  // Runs one or more statements that return no rows.
  void execute(const char* sql);

 private:
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(const Connection& connection, std::string_view sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds parameters by 1-based index. NaN binds as NULL (SQLite does so too, silently).
  void bind(int index, std::string_view text);
  void bind(int index, double value);
  void bind(int index, std::int64_t value);
  void bind_null(int index);

  // Advances to the next row: true while there is one, false when done.
  bool step();
  // Ends this use: rows not stepped through are dropped and parameters cleared.
  void reset();

  int columns() const;
  int type(
      int column) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  bool is_null(int column) const;
  std::string text(int column) const;
  double real(int column) const;  // NULL reads as NaN
  std::int64_t integer(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Resets a statement when the scope that uses it ends, however it ends.
class Use {
 public:
  explicit Use(Statement& statement) : statement_(statement) {}
  Use(const Use&) = delete;
  Use& operator=(const Use&) = delete;
  ~Use() { statement_.reset(); }

 private:
  Statement& statement_;
};

}  // namespace cutune::sqlite
