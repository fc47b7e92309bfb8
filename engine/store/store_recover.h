// Recovering a damaged run store: what SQLite can still read of it is copied, row by row and
// checked, into a new store; the damaged file is kept beside it under a new name. The same
// call serves `pha runs recover` and the window's damaged-store banner (docs/store.md,
// "Damaged stores").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pha::store {

// One table's share of a recovery.
struct TableRecovery {
  std::string table;
  std::int64_t saved = 0;       // rows copied into the new store
  std::int64_t rejected = 0;    // rows read but refused: wrong column types, or a run / key not saved
  std::int64_t duplicates = 0;  // rows read twice (a page referenced twice): kept once
  std::int64_t unreadable = 0;  // places where SQLite could not read on (damaged pages skipped)
  std::string error;            // the first read error, "" when the table read cleanly
};

// What was saved for one run.
struct RunRecovery {
  std::int64_t id = 0;
  std::string name;
  std::string status;
  std::int64_t points = 0, evals = 0, checkpoints = 0, mixer = 0, perf = 0;
};

struct RecoveryReport {
  std::string store_path;                 // the new, sound store (the original path)
  std::string damaged_path;               // where the damaged file is kept now
  std::vector<std::string> kept_files;    // every file renamed aside (the store, its -wal, -shm)
  std::vector<std::string> problems;      // the damaged file's quick_check problems
  std::vector<TableRecovery> tables;      // in copy order
  std::vector<RunRecovery> runs;          // every saved run, by id
  std::string integrity;                  // PRAGMA integrity_check of the new store ("ok")
};

struct RecoverOptions {
  bool force = false;  // recover a store that passes quick_check too (a rebuild)
};

// Recovers the store at `path` in place: the damaged file (and its -wal / -shm) is renamed to
// `<path>.damaged-<UTC time>` (+ "-wal", "-shm"), and a new store with everything that could
// be read is put at `path`. Summaries and rollups are rebuilt from the saved points. Throws
// core::Error when the store is sound (unless options.force), when a run is still being
// written by a live process on this host, when its schema version is not this program's, or
// when nothing could be read at all (the file is then left where it was).
RecoveryReport recover_store(const std::string& path, const RecoverOptions& options = {});

}  // namespace pha::store
