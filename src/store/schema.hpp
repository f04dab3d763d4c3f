// The results store's schema, described once (schema.cpp) and rendered for each database: the
// tables with their columns' types, the indexes and the views that hold the store's rules. Opening
// a store checks it, creates it in an empty database, and brings an older one up to date when
// opened for writing (a table or a nullable column added since, the views re-made, also a view
// made by an earlier rule); an older store opened read-only is left as it is and read with NULL for
// what it lacks (on SQLite, by the current rules through TEMP views). Internal to cutune_store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "database.hpp"

namespace cutune::store {

// What the opened store holds of the schema.
struct SchemaState {
  std::vector<std::string> measurement_columns;  // present in the measurements table
  bool has_decisions = true;                     // the decisions table and deployed_per_key
};

// Throws StoreError naming db.where() when the database is another program's, was written by a
// newer schema, or is empty and opened read_only.
SchemaState prepare_schema(Database& db, OpenMode mode);

// The whole schema for a database that can do `can`, as one script (tables, indexes, views).
std::string create_script(const Capabilities& can);

}  // namespace cutune::store
