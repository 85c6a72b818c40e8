#ifndef RELAYFETCH_CBROTLI_H
#define RELAYFETCH_CBROTLI_H
// Brotli's streaming decoder: HTTP/3 responses with Content-Encoding br are decoded here, as
// libcurl decodes them on TCP.
#include <brotli/decode.h>
#endif
