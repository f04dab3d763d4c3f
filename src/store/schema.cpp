#include "schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace cutune::store {
namespace {

constexpr std::string_view kFormat = "cutune-results";
constexpr int kSchemaVersion = 1;

enum class Type { id, reference, integer, real, text, instant };

struct Column {
  std::string_view name;
  Type type;
  bool required = false;  // NOT NULL; a column added to an existing store must be nullable
  std::string_view references = {};
};

struct Table {
  std::string_view name;
  std::vector<Column> columns;
  std::string_view constraints = {};
  bool shared_only = false;  // the cooperation of participants: a shared database only
};

// Columns came and went without a version change (schema version 1 holds them all): what a store
// lacks is added when it is opened for writing, and read as NULL when it is opened read-only, so
// older cutune builds (which name their columns) go on reading and writing a migrated store.
const std::vector<Table>& tables() {
  static const std::vector<Table> all = {
      {"cutune_meta",
       {{"name", Type::text, true}, {"value", Type::text, true}},
       "PRIMARY KEY(name)"},
      {"tuning_keys",
       {{"id", Type::id},
        {"family", Type::text, true},
        {"family_version", Type::text, true},
        {"problem", Type::text, true},
        {"device", Type::text, true},
        {"toolchain", Type::text, true}},
       "UNIQUE(family, family_version, problem, device, toolchain)"},
      {"measurements",
       {{"id", Type::id},
        {"key_id", Type::reference, true, "tuning_keys(id)"},
        {"config_hash", Type::text, true},
        {"config_json", Type::text, true},
        {"outcome", Type::text, true},
        {"time_ms", Type::real},
        {"spread", Type::real},
        {"repetitions", Type::integer, true},
        {"compile_s", Type::real, true},
        {"max_rel_error", Type::real},
        {"detail", Type::text, true},
        {"tune_id", Type::text, true},
        {"timestamp", Type::real, true},
        {"iqr_spread", Type::real},
        {"min_ms", Type::real},
        {"max_ms", Type::real},
        {"device_index", Type::integer},  // which GPU (CUDA ordinal) or CPU worker measured it
        {"device_name", Type::text},
        {"times_json", Type::text}}},  // the timed repetitions, a JSON array of ms
      {"decisions",
       {{"id", Type::id},
        {"key_id", Type::reference, true, "tuning_keys(id)"},
        {"tune_id", Type::text, true},
        {"winner_hash", Type::text, true},
        {"winner_json", Type::text, true},
        {"winner_measurement", Type::reference, true, "measurements(id)"},
        {"default_hash", Type::text, true},
        {"seed_hash", Type::text, true},
        {"speedup", Type::real},
        {"speedup_low", Type::real},
        {"speedup_high", Type::real},
        {"rounds", Type::integer, true},
        {"finalists", Type::text, true},
        {"rounds_detail", Type::text, true},
        {"timestamp", Type::real, true}}},
      {"claims",
       {{"key_id", Type::reference, true, "tuning_keys(id)"},
        {"config_hash", Type::text, true},
        {"config_json", Type::text, true},
        {"owner", Type::text, true},
        {"expires_at", Type::instant, true}},
       "PRIMARY KEY(key_id, config_hash)",
       true},
      {"participants",
       {{"id", Type::id},
        {"key_id", Type::reference, true, "tuning_keys(id)"},
        {"owner", Type::text, true},
        {"joined_at", Type::instant, true}},
       "UNIQUE(key_id, owner)",
       true},
  };
  return all;
}

constexpr std::string_view kIndexes = R"sql(
CREATE INDEX IF NOT EXISTS measurements_by_config ON measurements(key_id, config_hash, id);
CREATE INDEX IF NOT EXISTS decisions_by_key ON decisions(key_id, id);
)sql";

// The store's rules, held once for this code and for anyone reading the database with a shell: a
// config measured twice is judged by its latest verdict, its newest row that is not `transient` (a
// transient failure says nothing of the config, so an ok row before it still stands); the best of
// a key is the fastest such config that ran correctly; a key's latest decision names the
// measurement it deploys, and a key without one deploys its best. Listed in the order they depend
// on each other.
struct View {
  std::string_view name;
  std::string_view select;
  // A word of the current rule that the view's earlier rules lack (as the database renders the
  // definition back): a view without it is stale, made again when the store is opened for
  // writing and, on SQLite opened read-only, shadowed (shadow_stale_views).
  std::string_view rule_mark = {};
};
constexpr View kViews[] = {
    {"latest_per_config", R"sql(
  SELECT * FROM (
    SELECT m.*, row_number() OVER (PARTITION BY m.key_id, m.config_hash ORDER BY m.id DESC)
      AS newness
    FROM measurements m WHERE m.outcome != 'transient') ranked
  WHERE newness = 1)sql",
     "transient"},
    {"best_per_key", R"sql(
  SELECT * FROM (
    SELECT l.*, row_number() OVER (PARTITION BY l.key_id ORDER BY l.time_ms, l.id) AS position
    FROM latest_per_config l
    WHERE l.outcome = 'ok') ranked
  WHERE position = 1)sql"},
    {"deployed_per_key", R"sql(
  SELECT m.* FROM measurements m JOIN decisions d ON d.winner_measurement = m.id
    WHERE d.id = (SELECT max(id) FROM decisions WHERE key_id = d.key_id)
  UNION ALL
  SELECT m.* FROM measurements m
    WHERE m.id IN (SELECT b.id FROM best_per_key b
                   WHERE b.key_id NOT IN (SELECT key_id FROM decisions)))sql"},
};

std::string_view type_name(Type type, const Capabilities& can) {
  switch (type) {
    case Type::id:
      return can.id_type;
    case Type::reference:
      return can.reference_type;
    case Type::integer:
      return "INTEGER";
    case Type::real:
      return can.real_type;
    case Type::text:
      return "TEXT";
    case Type::instant:
      return can.instant_type;
  }
  return "TEXT";
}

std::string column_text(const Column& c, const Capabilities& can) {
  return fmt::format("{} {}{}{}", c.name, type_name(c.type, can), c.required ? " NOT NULL" : "",
                     c.references.empty() ? "" : fmt::format(" REFERENCES {}", c.references));
}

bool wanted(const Table& table, const Capabilities& can) {
  return !table.shared_only || can.shared;
}

std::string create_table(const Table& table, const Capabilities& can) {
  std::vector<std::string> parts;
  for (const Column& c : table.columns) parts.push_back(column_text(c, can));
  if (!table.constraints.empty()) parts.emplace_back(table.constraints);
  return fmt::format("CREATE TABLE IF NOT EXISTS {}(\n  {});\n", table.name,
                     fmt::join(parts, ",\n  "));
}

std::string create_view(const View& v, std::string_view create = "CREATE VIEW") {
  return fmt::format("{} {} AS{};\n", create, v.name, v.select);
}

std::string create_views() {
  std::string script;
  for (const View& v : kViews) script += create_view(v);
  return script;
}

[[noreturn]] void fail(Database& db, std::string_view problem) {
  throw StoreError(fmt::format("results store {}: {}", db.where().string(), problem));
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether the store's view (present) was made by an earlier rule than kViews holds.
bool stale(Database& db, const View& v) {
  return !v.rule_mark.empty() && db.view_definition(v.name).find(v.rule_mark) == std::string::npos;
}

// What an existing store lacks of the schema: whole tables, columns of present tables, views, or
// a view's current rule (a view an older schema created answers by its old rule until replaced).
bool out_of_date(Database& db) {
  const std::vector<std::string> present = db.relations();
  for (const Table& table : tables()) {
    if (!wanted(table, db.capabilities())) continue;
    if (!contains(present, table.name)) return true;
    const std::vector<std::string> columns = db.columns(table.name);
    for (const Column& c : table.columns)
      if (!contains(columns, c.name)) return true;
  }
  for (const View& v : kViews)
    if (!contains(present, v.name) || stale(db, v)) return true;
  return false;
}

// SQLite opened read-only, the file untouched: TEMP views (this connection's, searched before the
// file's) of the current rules shadow a stale view and every present view after it, since the
// file's own copies name the file's stale one. PostgreSQL's read-only session may create nothing,
// not even temporary views: a stale PostgreSQL store is read by its own rule until a writer opens
// it.
void shadow_stale_views(Database& db) {
  db.transaction(Access::read, "open", [&] {
    const std::vector<std::string> present = db.relations();
    bool shadowing = false;
    for (const View& v : kViews) {
      if (!contains(present, v.name)) continue;
      shadowing = shadowing || stale(db, v);
      if (shadowing) db.execute(create_view(v, "CREATE TEMP VIEW"));
    }
  });
}

// Under the schema lock, whoever comes first. The views are made again: PostgreSQL fixes a view's
// `m.*` when it is created, so a view older than a column would not show it.
void migrate(Database& db) {
  db.transaction(Access::schema, "migrate", [&] {
    if (!out_of_date(db)) return;
    for (auto v = std::rbegin(kViews); v != std::rend(kViews); ++v)
      db.execute(fmt::format("DROP VIEW IF EXISTS {}", v->name));
    const std::vector<std::string> present = db.relations();
    for (const Table& table : tables()) {
      if (!wanted(table, db.capabilities())) continue;
      if (!contains(present, table.name)) {
        db.execute(create_table(table, db.capabilities()));
        continue;
      }
      const std::vector<std::string> columns = db.columns(table.name);
      for (const Column& c : table.columns) {
        if (contains(columns, c.name)) continue;
        if (c.required)
          fail(db, fmt::format("cannot add required column {}.{}", table.name, c.name));
        db.execute(fmt::format("ALTER TABLE {} ADD COLUMN {}", table.name,
                               column_text(c, db.capabilities())));
      }
    }
    db.execute(std::string(kIndexes) + create_views());
  });
}

void create(Database& db) {
  db.transaction(Access::schema, "create", [&] {
    if (!db.relations().empty()) return;  // another process made it between our look and lock
    db.execute(create_script(db.capabilities()));
    db.query("INSERT INTO cutune_meta(name, value) VALUES('format', $1), ('schema_version', $2)",
             {std::string(kFormat), std::to_string(kSchemaVersion)});
  });
}

void check_meta(Database& db) {
  const Rows meta = in_transaction(db, Access::read, "open", [&] {
    return db.query(
        "SELECT (SELECT value FROM cutune_meta WHERE name = 'format'), (SELECT value FROM "
        "cutune_meta WHERE name = 'schema_version')");
  });
  if (meta.text(0, 0) != kFormat) {
    fail(db, fmt::format("a database whose cutune_meta names format '{}', not '{}'",
                         meta.text(0, 0), kFormat));
  }
  const std::string version = meta.text(0, 1);
  if (version != std::to_string(kSchemaVersion)) {
    fail(db, fmt::format(
                 "schema version '{}'; this build of cutune reads version {} only{}", version,
                 kSchemaVersion,
                 std::atoi(version.c_str()) > kSchemaVersion ? " (a newer cutune wrote it)" : ""));
  }
}

}  // namespace

std::string create_script(const Capabilities& can) {
  std::string script;
  for (const Table& table : tables())
    if (wanted(table, can)) script += create_table(table, can);
  return script + std::string(kIndexes) + create_views();
}

SchemaState prepare_schema(Database& db, OpenMode mode) {
  const auto relations = [&] {
    return in_transaction(db, Access::read, "open", [&] { return db.relations(); });
  };
  const std::vector<std::string> found = relations();
  if (found.empty()) {
    if (mode == OpenMode::read_only) fail(db, "empty database: no cutune results store in it");
    db.before_writes();
    create(db);
  } else if (!contains(found, "cutune_meta")) {
    fail(db, fmt::format("a database of another program (tables: {}), not a cutune results store",
                         fmt::join(found, ", ")));
  } else {
    check_meta(db);
    if (mode == OpenMode::read_write) {
      db.before_writes();
      if (in_transaction(db, Access::read, "open", [&] { return out_of_date(db); })) migrate(db);
    } else if (db.capabilities().temp_views_when_read_only) {
      shadow_stale_views(db);
    }
  }
  SchemaState state;
  state.measurement_columns =
      in_transaction(db, Access::read, "open", [&] { return db.columns("measurements"); });
  const std::vector<std::string> now = relations();
  state.has_decisions = contains(now, "decisions") && contains(now, "deployed_per_key");
  return state;
}

}  // namespace cutune::store
