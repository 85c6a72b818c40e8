#ifndef RELAYFETCH_CNGHTTP2_H
#define RELAYFETCH_CNGHTTP2_H
// Header-only shim: the protocol layers wrap nghttp2; nothing here but the include.
#include <nghttp2/nghttp2.h>
#endif
