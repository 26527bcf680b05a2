#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; bound text and blobs are copied.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic; these wrappers expose the options we set.
static inline int csqlite_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

/// Defensive mode forbids PRAGMA writable_schema; one migration needs it briefly.
static inline int csqlite_disable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 0, (int *)0);
}

/// sqlite3_config is variadic. Memory statistics (sqlite3_memory_used) take a process-wide mutex
/// on every allocation and free; nothing reads them. Must run before the first connection opens
/// (returns SQLITE_MISUSE, harmlessly, once SQLite is initialized).
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
