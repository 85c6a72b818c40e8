#ifndef RELAYFETCH_CNGTCP2_H
#define RELAYFETCH_CNGTCP2_H
// Header-only shim: QUIC comes from ngtcp2 with its GnuTLS crypto helper (Debian has no quictls).
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#endif
