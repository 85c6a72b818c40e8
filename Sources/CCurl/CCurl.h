#ifndef RELAYFETCH_CCURL_H
#define RELAYFETCH_CCURL_H
#include <curl/curl.h>

// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call; these typed wrappers are the only way the Swift side sets options or reads info.
static inline CURLcode rf_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rf_curl_easy_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rf_curl_easy_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rf_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rf_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode rf_curl_easy_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode rf_curl_easy_setopt_sslctx(CURL *h, curl_ssl_ctx_callback f) { return curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, f); }
static inline CURLcode rf_curl_easy_setopt_opensocket(CURL *h, curl_opensocket_callback f) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
// A blob option takes a struct; CURL_BLOB_COPY: libcurl keeps its own copy (in memory).
static inline CURLcode rf_curl_easy_setopt_blob(CURL *h, CURLoption o, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(h, o, &blob);
}
static inline CURLcode rf_curl_easy_setopt_prereq(CURL *h, curl_prereq_callback f) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
static inline CURLcode rf_curl_easy_setopt_xferinfo(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode rf_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rf_curl_easy_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rf_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rf_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode rf_curl_easy_getinfo_str(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
// OpenSSL's SSL * for the connection a transfer runs on: the topmost TLS layer (the origin's for
// an https:// origin, even through an https:// proxy; the proxy's for an http:// origin through
// one); NULL before TLS, without it, or when libcurl was built on another TLS library.
// Streams on one connection share it.
static inline void *rf_curl_tls_internals(CURL *h) {
    struct curl_tlssessioninfo *info = NULL;
    if(curl_easy_getinfo(h, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info) return NULL;
    if(info->backend != CURLSSLBACKEND_OPENSSL) return NULL;
    return info->internals;
}
static inline CURLMcode rf_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline curl_socket_t rf_curl_socket_bad(void) { return CURL_SOCKET_BAD; }
// CURL_WRITEFUNC_PAUSE and CURLPAUSE_CONT are macros Swift does not import (a cast, an OR).
static inline size_t rf_curl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline CURLcode rf_curl_easy_unpause(CURL *h) { return curl_easy_pause(h, CURLPAUSE_CONT); }
// A streamed request body: CURL_READFUNC_PAUSE and CURL_READFUNC_ABORT are macros too, and the
// seek callback (rewinding the body to send it again) has a type of its own.
static inline size_t rf_curl_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
static inline size_t rf_curl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline CURLcode rf_curl_easy_setopt_seek(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline const char *rf_curl_version_string(void) { return curl_version_info(CURLVERSION_NOW)->version; }
#endif
