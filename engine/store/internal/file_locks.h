// Internal: SQLite's file locks made immune to other code of the same process.
//
// SQLite's unix VFS locks the database file and its -shm file with POSIX advisory record
// locks (fcntl F_SETLK). Those belong to the *process*, and POSIX drops every one of them
// on a file as soon as the process closes *any* descriptor on that file, even one SQLite
// never knew of (sqlite.org/howtocorrupt.html, 2.2). Qt's file dialogs do exactly that in
// the window: they open runs.sqlite and runs.sqlite-shm to read their magic bytes for the
// "Type" column and close them, and from then on the window's connections hold no lock
// while believing they do; the next `pha` process to close its connection last deletes the
// WAL under them, and the store is corrupted (docs/store.md, "The corruption of 2026-12-02").
//
// install_file_locks() routes SQLite's fcntl() lock calls to Linux open-file-description
// locks (F_OFD_SETLK), all taken on one private duplicate descriptor per file and process.
// They conflict with other processes' locks exactly as POSIX locks do (also with programs
// that use classic POSIX locks, such as the sqlite3 shell or an older pha), never conflict
// inside the process (one description per file), and are released only when SQLite unlocks
// them or closes its last descriptor on the file, never by a close() elsewhere. Where the
// kernel or file system refuses OFD locks the call falls back to POSIX locks for that file.
#pragma once

namespace pha::store::detail {

// Idempotent and thread-safe; call before the process opens its first SQLite connection
// (Db's constructor does). Throws core::Error when SQLite's unix VFS cannot be hooked.
void install_file_locks();

// How many files currently have a private lock descriptor (tests).
int file_lock_descriptors();

}  // namespace pha::store::detail
