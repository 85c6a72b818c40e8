#ifndef RELAYFETCH_COPENSSL_H
#define RELAYFETCH_COPENSSL_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/cms.h>
#include <openssl/pkcs12.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

// These OpenSSL calls are macros over SSL_ctrl/SSL_CTX_ctrl, invisible to Swift; the wrappers
// make them callable with their real types.
static inline int rf_SSL_set_tlsext_host_name(SSL *s, const char *name) { return (int)SSL_set_tlsext_host_name(s, name); }
static inline int rf_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return (int)SSL_CTX_set_min_proto_version(c, v); }
static inline long rf_SSL_CTX_set_mode(SSL_CTX *c, long m) { return SSL_CTX_set_mode(c, m); }
static inline long rf_SSL_CTX_set_session_cache_mode(SSL_CTX *c, long m) { return SSL_CTX_set_session_cache_mode(c, m); }
static inline long rf_SSL_CTX_set_options(SSL_CTX *c, long o) { return (long)SSL_CTX_set_options(c, (uint64_t)o); }
static inline int rf_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
// STACK_OF(X509) accessors are macros.
static inline int rf_sk_X509_num(const STACK_OF(X509) *s) { return sk_X509_num(s); }
static inline X509 *rf_sk_X509_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
static inline void rf_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline void rf_sk_X509_pop_free(STACK_OF(X509) *s) { sk_X509_pop_free(s, X509_free); }
static inline long rf_BIO_get_mem_data(BIO *b, char **p) { return BIO_get_mem_data(b, p); }
static inline unsigned long rf_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

// ---- Wrappers for ObliviousHTTP (HPKE) go below this line. ----

#endif
