#ifndef RELAYFETCH_CNGTCP2_H
#define RELAYFETCH_CNGTCP2_H
// Header-only shim: QUIC comes from ngtcp2 with its GnuTLS crypto helper (Debian has no quictls).
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
// GnuTLS itself: the QUIC handshake's TLS session, and the relay key pins (pubkey export, SHA-256).
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>

// ngtcp2's versioned entry points are reached through function-like macros that fill in the
// struct versions; Swift cannot call macros, so these wrappers do it with the installed versions.
static inline int rf_ngtcp2_conn_client_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid,
                                            const ngtcp2_path *path, uint32_t version, const ngtcp2_callbacks *callbacks,
                                            const ngtcp2_settings *settings, const ngtcp2_transport_params *params,
                                            void *user_data) {
    return ngtcp2_conn_client_new(pconn, dcid, scid, path, version, callbacks, settings, params, NULL, user_data);
}
static inline int rf_ngtcp2_conn_read_pkt(ngtcp2_conn *conn, const ngtcp2_path *path, const ngtcp2_pkt_info *pi,
                                          const uint8_t *pkt, size_t pktlen, ngtcp2_tstamp ts) {
    return ngtcp2_conn_read_pkt(conn, path, pi, pkt, pktlen, ts);
}
static inline ngtcp2_ssize rf_ngtcp2_conn_writev_stream(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                                        uint8_t *dest, size_t destlen, ngtcp2_ssize *pdatalen,
                                                        uint32_t flags, int64_t stream_id, const ngtcp2_vec *datav,
                                                        size_t datavcnt, ngtcp2_tstamp ts) {
    return ngtcp2_conn_writev_stream(conn, path, pi, dest, destlen, pdatalen, flags, stream_id, datav, datavcnt, ts);
}
static inline ngtcp2_ssize rf_ngtcp2_conn_write_connection_close(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                                                 uint8_t *dest, size_t destlen,
                                                                 const ngtcp2_connection_close_error *ccerr, ngtcp2_tstamp ts) {
    return ngtcp2_conn_write_connection_close(conn, path, pi, dest, destlen, ccerr, ts);
}
static inline void rf_ngtcp2_settings_default(ngtcp2_settings *settings) { ngtcp2_settings_default(settings); }
static inline void rf_ngtcp2_transport_params_default(ngtcp2_transport_params *params) { ngtcp2_transport_params_default(params); }
// gnutls_free is a macro over a global function pointer.
static inline void rf_gnutls_free(void *pointer) { gnutls_free(pointer); }
#endif
