#ifndef RELAYFETCH_CSQLITE_H
#define RELAYFETCH_CSQLITE_H
// Header-only shim: the crawler's embedded store (frontier, seen set, results) is SQLite.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: bind text
// and blobs through these so SQLite copies them before the Swift buffers go away.
static inline int rf_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}
static inline int rf_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}
#endif
