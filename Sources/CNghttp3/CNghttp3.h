#ifndef RELAYFETCH_CNGHTTP3_H
#define RELAYFETCH_CNGHTTP3_H
// Header-only shim: the protocol layers wrap nghttp3; nothing here but the include.
#include <nghttp3/nghttp3.h>
#endif
