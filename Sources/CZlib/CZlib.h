#ifndef RELAYFETCH_CZLIB_H
#define RELAYFETCH_CZLIB_H
// Header-only shim: the crawler inflates gzip sitemaps (sitemap.xml.gz) with zlib.
#include <zlib.h>

// inflateInit2 is a macro (it passes the library version and the stream size), which Swift
// cannot call.
static inline int rf_inflateInit2(z_streamp stream, int windowBits) { return inflateInit2(stream, windowBits); }
#endif
