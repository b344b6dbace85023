// cache/db_schema.hpp: the SQL of the tuning database and its migrations.
//
// A new database is created by running the version-1 script and then every
// migration, so a fresh file and a migrated old file have the same schema text.
// docs/database.md documents the tables and views.
#pragma once

#include <cstdint>
#include <string>

namespace scantune::sqlite {
class Connection;
}

namespace scantune::db {

/// PRAGMA application_id of every scantune tuning database: 'SCTN'.
inline constexpr std::uint32_t kApplicationId = 0x5343544e;
/// PRAGMA user_version written by this library.
inline constexpr int kSchemaVersion = 6;

/// The script that created a version-1 database (tables only; no PRAGMAs).
const char* schema_v1_sql();

/// Why the migration from `from` to `from + 1` exists (for messages and docs).
const char* migration_description(int from);

/// Runs the migration from `from` to `from + 1` (1 <= from < kSchemaVersion) and
/// sets user_version. The caller owns the transaction.
void apply_migration(sqlite::Connection& c, int from);

/// Creates the current schema in an empty database (v1 script, then every
/// migration) and sets application_id and user_version. The caller owns the
/// transaction.
void create_schema(sqlite::Connection& c);

} // namespace scantune::db
