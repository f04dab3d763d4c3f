// The one interface the results store (cutune/store.hpp) runs on: a relational database reached
// through SQL, an SQLite file or a PostgreSQL server. Store's queries are written once, with
// PostgreSQL's $1.. parameters (the SQLite side renames them ?1..); what differs between the two
// (opening, transactions and their retries, how errors read, what the catalog is called) lives
// behind this interface, in sqlite_database.cpp and postgres_database.cpp; what the store's own SQL
// must know of the difference, each database says as its Capabilities. Internal to cutune_store.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cutune/store.hpp"

namespace cutune::store {

// One parameter or cell: NULL, an integer, a real (NaN binds as NULL) or text.
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;

// The rows a query returned, read by row and column.
class Rows {
 public:
  explicit Rows(std::vector<std::vector<Value>> rows) : rows_(std::move(rows)) {}
  int size() const { return static_cast<int>(rows_.size()); }
  bool is_null(int row, int column) const;
  std::string text(int row, int column) const;  // NULL reads as ""
  double real(int row, int column) const;       // NULL reads as NaN
  std::int64_t integer(int row, int column) const;

 private:
  const Value& at(int row, int column) const;
  std::vector<std::vector<Value>> rows_;
};

// What a database can do, where the store's schema and queries differ by it. The store asks for a
// capability where it uses one, never which database it is.
struct Capabilities {
  // Several processes cooperate on one tune through it: session-level advisory locks
  // (pg_try_advisory_lock) and connection keepalives, and the tables of that cooperation (claims,
  // participants). SQLite's store has one participant per tune.
  bool shared = false;
  // SELECT ... FOR UPDATE locks the rows it reads until the transaction ends. SQLite has no such
  // clause; its write transaction already holds the whole file.
  bool row_locks = false;
  // A read-only connection may still create TEMP views (of its own, searched before the stored
  // ones), so a stale stored view can be shadowed by the current rule without writing.
  bool temp_views_when_read_only = false;
  // Column types for the schema's kinds of column.
  std::string_view id_type;         // an integer primary key the database numbers itself
  std::string_view reference_type;  // an integer that refers to an id
  std::string_view real_type;       // a double
  std::string_view instant_type;    // a point in time
};

// What a transaction may do: read; write rows; or change the schema (serialized with every other
// participant's schema change).
enum class Access { read, write, schema };

class Database {
 public:
  virtual ~Database() = default;

  virtual const Capabilities& capabilities() const = 0;
  // The file or URL, as errors name it.
  virtual const std::filesystem::path& where() const = 0;

  // Runs work in one transaction, run again whole when the database reports contention that
  // clears by itself; the database's own errors become StoreError naming where() and `doing`.
  // Calls of query() and execute() belong inside one.
  virtual void transaction(Access access, std::string_view doing,
                           const std::function<void()>& work) = 0;
  // One statement with $1.. parameters; every row it returns.
  virtual Rows query(std::string_view sql, const std::vector<Value>& params = {}) = 0;
  // Statements without parameters or rows (a schema script).
  virtual void execute(std::string_view sql) = 0;

  // Called when a read_write open has found (or is about to create) a cutune store, before its
  // first write and outside any transaction: SQLite turns on its write-ahead log here, never in a
  // file that turned out to be another program's.
  virtual void before_writes() = 0;

  // The tables and views of the store's schema (namespace), sorted; the columns of one, in order.
  virtual std::vector<std::string> relations() = 0;
  virtual std::vector<std::string> columns(std::string_view table) = 0;
  // The stored definition of the view, as the database renders it back; "" when there is none.
  virtual std::string view_definition(std::string_view view) = 0;
};

// Opens the SQLite file (creating it and its folder for read_write); ":memory:" is a private store
// in memory. Throws StoreError.
std::unique_ptr<Database> open_sqlite(const std::filesystem::path& path, OpenMode mode);
// Connects to a PostgreSQL server by libpq URL. Throws StoreError when it cannot.
std::unique_ptr<Database> open_postgres(const std::string& url, OpenMode mode);

// Runs work in a transaction and hands back what it returned.
template <typename Work>
auto in_transaction(Database& db, Access access, std::string_view doing, Work&& work) {
  if constexpr (std::is_void_v<decltype(work())>) {
    db.transaction(access, doing, work);
  } else {
    std::optional<decltype(work())> result;
    db.transaction(access, doing, [&] { result.emplace(work()); });
    return std::move(*result);
  }
}

}  // namespace cutune::store
