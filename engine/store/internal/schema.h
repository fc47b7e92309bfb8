// Internal: the schema version table and the migrations that bring a store to the version this
// code writes. A new store is built by running every migration from version 0, so the upgrade
// path is the creation path and is always exercised.
#pragma once

namespace pha::store::detail {

class Db;

// Creates or migrates the schema (in one write transaction, re-checking the version after the
// lock is taken). Throws core::Error naming the file for a newer version or a foreign database.
void ensure_schema(Db& db, int target_version);
int read_schema_version(Db& db);

}  // namespace pha::store::detail
