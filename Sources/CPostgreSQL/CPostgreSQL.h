#ifndef RELAYFETCH_CPOSTGRESQL_H
#define RELAYFETCH_CPOSTGRESQL_H
// Header-only shim: a crawl shared by many workers keeps its frontier in PostgreSQL (libpq).
#include <libpq-fe.h>

// libpq prints server notices (such as "relation already exists, skipping" from CREATE ... IF
// NOT EXISTS) to stderr by default; a crawl's own output must not carry them.
static void rf_pq_ignore_notice(void *context, const char *message) {
    (void)context;
    (void)message;
}
static inline void rf_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, rf_pq_ignore_notice, NULL);
}
#endif
