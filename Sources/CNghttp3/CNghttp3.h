#ifndef RELAYFETCH_CNGHTTP3_H
#define RELAYFETCH_CNGHTTP3_H
// Header-only shim: the protocol layers wrap nghttp3.
#include <nghttp3/nghttp3.h>

// nghttp3's versioned entry points are function-like macros that fill in the struct versions;
// Swift cannot call macros, so these wrappers do it with the installed versions.
static inline int rf_nghttp3_conn_client_new(nghttp3_conn **pconn, const nghttp3_callbacks *callbacks,
                                             const nghttp3_settings *settings, void *user_data) {
    return nghttp3_conn_client_new(pconn, callbacks, settings, nghttp3_mem_default(), user_data);
}
static inline void rf_nghttp3_settings_default(nghttp3_settings *settings) { nghttp3_settings_default(settings); }
#endif
